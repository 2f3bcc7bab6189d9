"""The words of the kinds' fields (attention/kinds/): each field's label and help, English and Chinese."""

EN = {
    "parts.group": "Position & modifiers",
    "parts.add.undo": "Add {kind}",
    "parts.remove.undo": "Remove {kind}",
    "parts.cell_refused": "{problem}; the old value is kept.",
    "parts.kind.rope": "RoPE (rotary positions)",
    "parts.kind.rope.help": ("Rotate each head's queries and keys by their positions before the scores "
                             "(RoFormer, Llama)."),
    "parts.kind.alibi": "ALiBi (linear bias)",
    "parts.kind.alibi.help": ("Add a bias per head, growing with the distance to the key, to the scores "
                              "(BLOOM)."),
    "parts.kind.softcap": "Soft-capping",
    "parts.kind.softcap.help": ("Squash the scores into (-cap, cap) with cap·tanh(s / cap) before the mask "
                                "(Gemma 2)."),
    "parts.kind.window": "Sliding window",
    "parts.kind.window.help": "Each query sees only the last W keys up to its own position (Mistral, Gemma).",
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
    "parts.group": "位置与修饰",
    "parts.add.undo": "添加{kind}",
    "parts.remove.undo": "移除{kind}",
    "parts.cell_refused": "{problem}；保留原来的值。",
    "parts.kind.rope": "RoPE（旋转位置编码）",
    "parts.kind.rope.help": "在计算分数前，按位置旋转每个头的查询和键（RoFormer、Llama）。",
    "parts.kind.alibi": "ALiBi（线性偏置）",
    "parts.kind.alibi.help": "给分数加上每个头随与键距离增长的偏置（BLOOM）。",
    "parts.kind.softcap": "软上限",
    "parts.kind.softcap.help": "在掩码之前用 上限·tanh(s / 上限) 把分数压到 (−上限, 上限) 之内（Gemma 2）。",
    "parts.kind.window": "滑动窗口",
    "parts.kind.window.help": "每个查询只看到截至自身位置的最后 W 个键（Mistral、Gemma）。",
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
