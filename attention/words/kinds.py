"""The words of the kinds' fields (attention/kinds/): each field's label and help, English and Chinese."""

EN = {
    "field.scoring.hidden.label": "Hidden units",
    "field.scoring.hidden.help": "Additive attention: the number of hidden units of w_v · tanh(W_q q + W_k k).",
    "field.scoring.factor.label": "Factor c",
    "field.scoring.factor.help": ("ProbSparse: c sets how many keys each query samples (c·⌈ln S⌉) and how many "
                                  "queries are scored in full (c·⌈ln L⌉)."),
    "field.scoring.mix.label": "Mix (Time-Series-Library)",
    "field.scoring.mix.help": ("ProbSparse as Time-Series-Library runs it: the (B, H, L, d_v) context is viewed as "
                               "(B, L, H·d_v) without a transpose."),
    "field.scoring.sample_index.label": "Recorded key sample",
    "field.scoring.sample_index.help": ("ProbSparse: the keys each query sampled, (L, n_sample), recorded from a "
                                        "real model's forward; empty: drawn from the seed."),
    "field.mask.causal.label": "Causal",
    "field.mask.causal.help": ("Hide every key after the query's own position "
                               "(key s is hidden from query l when s > l)."),
    "field.mask.valid_lens.label": "Valid lengths",
    "field.mask.valid_lens.help": ("One length per batch item (B) or per query row (B, L): key s is hidden when "
                                   "s ≥ the length."),
}

ZH = {
    "field.scoring.hidden.label": "隐藏单元数",
    "field.scoring.hidden.help": "加性注意力：w_v · tanh(W_q q + W_k k) 的隐藏单元个数。",
    "field.scoring.factor.label": "因子 c",
    "field.scoring.factor.help": ("ProbSparse：c 决定每个查询采样多少个键（c·⌈ln S⌉），"
                                  "以及完整计算多少个查询（c·⌈ln L⌉）。"),
    "field.scoring.mix.label": "混合（Time-Series-Library）",
    "field.scoring.mix.help": ("按 Time-Series-Library 的做法运行 ProbSparse："
                               "把 (B, H, L, d_v) 的上下文不转置直接视为 (B, L, H·d_v)。"),
    "field.scoring.sample_index.label": "记录的键样本",
    "field.scoring.sample_index.help": ("ProbSparse：每个查询采样的键，(L, n_sample)，"
                                        "取自真实模型的前向计算；为空时由种子抽取。"),
    "field.mask.causal.label": "因果",
    "field.mask.causal.help": "遮住查询自身位置之后的每个键（s > l 时，键 s 对查询 l 不可见）。",
    "field.mask.valid_lens.label": "有效长度",
    "field.mask.valid_lens.help": "每个批次项一个长度 (B)，或每个查询行一个 (B, L)：s ≥ 长度时键 s 被遮住。",
}
