"""Which inner attention a Time-Series-Library AttentionLayer ran: the import dialog's question, the
`main.py import --scoring/--factor/--mix` options' messages, and what the imported scenario's notes say.

A TSL state dict holds only the four projections: FullAttention and ProbAttention have no weights, so
the file cannot say which one the model was trained with; the importer asks (attention/models/importing.py)."""

EN = {
    # ---- the dialog (app/models_view/import_layer.py) -------------------------------------------------
    "inner.label": "Inner attention",
    "inner.choose": "Choose: the file cannot say",
    "inner.full": "FullAttention (scaled dot product)",
    "inner.prob": "ProbAttention (Informer's ProbSparse)",
    "inner.factor": "Factor c",
    "inner.mix": "Mix heads and positions (as Time-Series-Library's ProbAttention always does)",
    "inner.question": ("A Time-Series-Library state dict holds only the projections: FullAttention and ProbAttention "
                       "have no weights, so the file cannot say which one this layer ran. Choose the one the model "
                       "was trained with (Informer: ProbAttention, with its --factor)."),
    "inner.mix_help": ("Time-Series-Library's ProbAttention returns its context as (B, H, L, D) and AttentionLayer "
                       "views it as (B, L, H·D) without a transpose, so every row mixes heads and positions. "
                       "Untick only for Informer2020's encoder and cross-attention (mix=False)."),
    "inner.factor_help": ("ProbAttention's c (n_sample = c·⌈ln S⌉ keys, n_top = c·⌈ln L⌉ queries): the --factor the "
                          "model was trained with (Time-Series-Library's run.py default is 1, Informer2020's 5)."),
    "inner.needed": "Choose the inner attention this layer ran: the file cannot say.",
    # ---- CLI: `main.py import --scoring prob_sparse --factor F --mix` -----------------------------------
    "inner.hint": ("{name}: imported as FullAttention; a state dict cannot say whether it ran ProbAttention "
                   "(Informer): then import with --scoring prob_sparse --factor F (--no-mix for Informer2020's "
                   "encoder)"),
    "inner.imported": "inner attention: {inner}",
    "cli.opt.import.scoring": ("a Time-Series-Library layer's inner attention, which its file cannot say: scaled_dot "
                               "(FullAttention, the default) or prob_sparse (Informer's ProbAttention)"),
    "cli.opt.import.factor": "ProbAttention's factor c, as trained (needed with --scoring prob_sparse)",
    "cli.opt.import.mix": ("mix heads and positions as Time-Series-Library's ProbAttention does (the default); "
                           "--no-mix for Informer2020's encoder and cross-attention"),
    "inner.error.factor_needed": ("--factor: a state dict does not store ProbAttention's factor c; give the one the "
                                  "model was trained with (Time-Series-Library's run.py default is 1, "
                                  "Informer2020's 5)"),
    "inner.error.factor": "--factor: expected a whole number from 1 to {most}, got {got}",
    "inner.error.factor_alone": "--factor: only with --scoring prob_sparse (ProbAttention's c)",
    "inner.error.mix_alone": ("--mix: only with --scoring prob_sparse (how Time-Series-Library's AttentionLayer views "
                              "ProbAttention's context)"),
    "inner.error.family": ("--scoring {scoring}: {name} is not a Time-Series-Library AttentionLayer; only such a "
                           "layer has an inner attention to choose"),
    "inner.error.tokens": ("--scoring prob_sparse: ProbAttention needs at least 2 queries and 2 keys "
                           "(it samples c·⌈ln S⌉ keys, and ln 1 = 0), got {L} and {S}"),
    "inner.error.valid_lens": ("--scoring prob_sparse: {path} has valid lengths, but ProbAttention has no padding "
                               "mask (Time-Series-Library ignores attn_mask there)"),
    "inner.error.causal": ("--scoring prob_sparse: {name} is causal and ProbAttention's lazy rows are then a "
                           "cumulative sum over positions, which needs as many keys as queries; got {L} and {S}"),
    "inner.error.seed": ("--seed {got}: ProbAttention's key sample is drawn from the scenario's seed, a whole number "
                         "from 0 to {most}"),
    # ---- the imported scenario's notes ----------------------------------------------------------------
    "inner.notes.full": ("Inner attention: FullAttention, as chosen on import (a state dict cannot say; Informer's "
                         "ProbAttention would be --scoring prob_sparse)."),
    "inner.notes.assumed": ("Inner attention: FullAttention, assumed (a state dict cannot say; for Informer's "
                            "ProbAttention import with --scoring prob_sparse --factor F, or choose it in the dialog)."),
    "inner.notes.prob": ("Inner attention: ProbAttention (ProbSparse, factor {factor}), as chosen on import. {mix} "
                         "Its key sample is drawn from seed {seed}, the draw TSL makes after torch.manual_seed({seed}) "
                         "just before the layer's forward."),
    "inner.notes.mixed": "Heads and positions are mixed as Time-Series-Library's AttentionLayer views the context.",
    "inner.notes.unmixed": "Heads are concatenated per position (Informer2020's mix=False).",
    "inner.short.full": "FullAttention",
    "inner.short.prob": "ProbAttention (factor {factor}, {mix})",
    "inner.short.mixed": "heads and positions mixed",
    "inner.short.unmixed": "not mixed",
}

ZH = {
    "inner.label": "内部注意力",
    "inner.choose": "请选择：文件里看不出来",
    "inner.full": "FullAttention（缩放点积）",
    "inner.prob": "ProbAttention（Informer 的 ProbSparse）",
    "inner.factor": "因子 c",
    "inner.mix": "混合头与位置（Time-Series-Library 的 ProbAttention 总是如此）",
    "inner.question": ("Time-Series-Library 的 state_dict 只保存投影：FullAttention 和 ProbAttention 都没有权重，"
                       "所以文件说不出这一层用的是哪一种。请选择模型训练时用的那一种（Informer：ProbAttention，"
                       "以及它的 --factor）。"),
    "inner.mix_help": ("Time-Series-Library 的 ProbAttention 以 (B, H, L, D) 返回上下文，AttentionLayer 不转置就把它"
                       "视为 (B, L, H·D)，所以每一行都混合了头与位置。只有 Informer2020 的编码器和交叉注意力"
                       "（mix=False）才取消勾选。"),
    "inner.factor_help": ("ProbAttention 的 c（n_sample = c·⌈ln S⌉ 个键，n_top = c·⌈ln L⌉ 个查询）：模型训练时的 "
                          "--factor（Time-Series-Library 的 run.py 默认 1，Informer2020 默认 5）。"),
    "inner.needed": "请选择这一层所用的内部注意力：文件里看不出来。",
    "inner.hint": ("{name}：按 FullAttention 导入；state_dict 无法说明它是否用了 ProbAttention（Informer）："
                   "若是，请用 --scoring prob_sparse --factor F 导入（Informer2020 的编码器再加 --no-mix）"),
    "inner.imported": "内部注意力：{inner}",
    "cli.opt.import.scoring": ("Time-Series-Library 层的内部注意力（文件里看不出来）：scaled_dot（FullAttention，默认）"
                               "或 prob_sparse（Informer 的 ProbAttention）"),
    "cli.opt.import.factor": "ProbAttention 的因子 c，与训练时相同（--scoring prob_sparse 时必需）",
    "cli.opt.import.mix": ("像 Time-Series-Library 的 ProbAttention 那样混合头与位置（默认）；"
                           "Informer2020 的编码器和交叉注意力用 --no-mix"),
    "inner.error.factor_needed": ("--factor：state_dict 不保存 ProbAttention 的因子 c；请给出模型训练时用的值"
                                  "（Time-Series-Library 的 run.py 默认 1，Informer2020 默认 5）"),
    "inner.error.factor": "--factor：应为 1 到 {most} 的整数，得到 {got}",
    "inner.error.factor_alone": "--factor：只能与 --scoring prob_sparse 一起使用（ProbAttention 的 c）",
    "inner.error.mix_alone": ("--mix：只能与 --scoring prob_sparse 一起使用（Time-Series-Library 的 AttentionLayer "
                              "查看 ProbAttention 上下文的方式）"),
    "inner.error.family": ("--scoring {scoring}：{name} 不是 Time-Series-Library 的 AttentionLayer；只有这种层"
                           "才有内部注意力可选"),
    "inner.error.tokens": ("--scoring prob_sparse：ProbAttention 至少需要 2 个查询和 2 个键"
                           "（它抽样 c·⌈ln S⌉ 个键，而 ln 1 = 0），得到 {L} 和 {S}"),
    "inner.error.valid_lens": ("--scoring prob_sparse：{path} 带有有效长度，但 ProbAttention 没有填充掩码"
                               "（Time-Series-Library 在那里忽略 attn_mask）"),
    "inner.error.causal": ("--scoring prob_sparse：{name} 是因果的，此时 ProbAttention 的惰性行是沿位置的累加和，"
                           "需要键与查询一样多；得到 {L} 和 {S}"),
    "inner.error.seed": "--seed {got}：ProbAttention 的键抽样取自场景的种子，应为 0 到 {most} 的整数",
    "inner.notes.full": ("内部注意力：FullAttention，导入时所选（state_dict 无法说明；Informer 的 ProbAttention "
                         "应使用 --scoring prob_sparse）。"),
    "inner.notes.assumed": ("内部注意力：FullAttention，为假定（state_dict 无法说明；若是 Informer 的 "
                            "ProbAttention，请用 --scoring prob_sparse --factor F 导入，或在对话框中选择）。"),
    "inner.notes.prob": ("内部注意力：ProbAttention（ProbSparse，因子 {factor}），导入时所选。{mix}"
                         "它的键抽样取自种子 {seed}，与 TSL 在该层前向计算之前执行 torch.manual_seed({seed}) "
                         "后抽到的相同。"),
    "inner.notes.mixed": "头与位置按 Time-Series-Library 的 AttentionLayer 查看上下文的方式混合。",
    "inner.notes.unmixed": "各个头按位置拼接（Informer2020 的 mix=False）。",
    "inner.short.full": "FullAttention（完整注意力）",
    "inner.short.prob": "ProbAttention（因子 {factor}，{mix}）",
    "inner.short.mixed": "头与位置混合",
    "inner.short.unmixed": "不混合",
}
