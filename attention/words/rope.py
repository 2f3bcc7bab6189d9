"""Rotary position embedding (attention/kinds/rope.py): its steps, fields, explain and lesson, English and Chinese.

Placeholders: e / n / h1 positions counted from 1; pos the token's position (from the offset);
i the pair's index; first / second the pair's columns (from 1); base, r, d numbers."""
from __future__ import annotations

EN: dict[str, str] = {
    "step.rope.query.title": "Queries rotated (RoPE)",
    "step.rope.query.formula": ("q'[l] = R(p·θ) q[l], p = offset + l: pair i of each head's first r columns turns by "
                                "p·θ_i, θ_i = base^(−2i/r)"),
    "step.rope.key.title": "Keys rotated (RoPE)",
    "step.rope.key.formula": ("k'[s] = R(p·θ) k[s], p = key offset + s: the same turn per position as the queries, "
                              "so q'·k' depends on the positions only through their difference"),
    "map.step.rope.query": "RoPE Q",
    "map.step.rope.key": "RoPE K",
    "field.rope.base.label": "RoPE base",
    "field.rope.base.help": "θ_i = base^(−2i/r): a larger base turns the slow pairs more slowly (Llama: 10000, "
                            "Llama 3: 500000).",
    "field.rope.fraction.label": "Rotary fraction",
    "field.rope.fraction.help": ("The share of each head's columns that turn: r = int(d_k × fraction), as GPT-NeoX's "
                                 "rotary_pct and Phi's partial_rotary_factor; the rest pass through."),
    "field.rope.pairing.label": "Pairing",
    "field.rope.pairing.help": ("Which columns turn together: halves (i, i + r/2), Hugging Face and GPT-NeoX; "
                                "adjacent (2i, 2i + 1), Meta's reference and GPT-J. The same weights give other "
                                "scores under the other pairing."),
    "field.rope.pairing.halves": "halves (Hugging Face)",
    "field.rope.pairing.adjacent": "adjacent pairs (Meta, GPT-J)",
    "field.rope.offset.label": "Position offset",
    "field.rope.offset.help": "Query l sits at position offset + l (and key s at offset + s unless a key offset is "
                              "set).",
    "field.rope.key_offset.label": "Key offset",
    "field.rope.key_offset.help": ("Key s sits at position key offset + s; empty: the same offset as the queries. A "
                                   "decoder step with a cache: queries at S − L ... S − 1, keys at 0 ... S − 1."),
    "field.rope.frequencies.label": "Frequencies",
    "field.rope.frequencies.help": ("θ_i itself, one per pair (r/2): given when a model's config rescales them "
                                    "(Llama 3, linear); empty: computed from the base."),
    "problem.rope_rotary_dim": ("int({width} × {fraction}) = {r} columns of each head would turn; RoPE turns pairs, so "
                                "this must be an even number of at least 2 (head width {width})"),
    "explain.rope.query": "query",
    "explain.rope.key": "key",
    "explain.rope.summary": ("Column {e} of {name} {n} in head {h1} belongs to pair {i} (columns {first} and "
                             "{second}, {pairing}). The {name} sits at position {pos}, so the pair turns by "
                             "θ = {pos} × θ_{i} = {pos} × {inv} = {angle} rad: cos θ = {cos}, sin θ = {sin}. {how}"),
    "explain.rope.from_base": "θ_{i} = {base}^(−2·{i}/{r}).",
    "explain.rope.given": "θ_{i} is the scenario's given frequency.",
    "explain.rope.passes": ("Column {e} of {name} {n} in head {h1} lies past the {r} rotated columns of {d}: "
                            "it passes through unchanged (partial rotary)."),
    "lesson.rope.what": ("RoPE writes each token's position into its query and key by turning them: the position "
                         "is not added, it is an angle."),
    "lesson.rope.pairs": ("Each head's columns are taken in pairs ({pairing}); pair i is a point in a plane "
                          "that turns by position × θ_i, θ_i = {base}^(−2i/r): the first pairs turn fast, the "
                          "last slowly."),
    "lesson.rope.relative": ("Turning q by l·θ and k by s·θ leaves q'·k' depending on l − s only: shift every "
                             "position by the same amount and the scores do not change."),
    "lesson.rope.partial": "Only the first {fraction} of each head's columns turn here; the rest pass through.",
    "lesson.rope.offset": "Queries start at position {offset}, keys at {key_offset}.",
}

ZH: dict[str, str] = {
    "step.rope.query.title": "旋转后的查询（RoPE）",
    "step.rope.query.formula": ("q'[l] = R(p·θ) q[l]，p = 偏移 + l：每个头前 r 列中的第 i 对旋转 p·θ_i，"
                                "θ_i = 基数^(−2i/r)"),
    "step.rope.key.title": "旋转后的键（RoPE）",
    "step.rope.key.formula": ("k'[s] = R(p·θ) k[s]，p = 键偏移 + s：每个位置的旋转与查询相同，"
                              "因此 q'·k' 只通过位置之差依赖于位置"),
    "map.step.rope.query": "旋转 Q",
    "map.step.rope.key": "旋转 K",
    "field.rope.base.label": "RoPE 基数",
    "field.rope.base.help": "θ_i = 基数^(−2i/r)：基数越大，慢速的列对转得越慢（Llama：10000，Llama 3：500000）。",
    "field.rope.fraction.label": "旋转比例",
    "field.rope.fraction.help": ("每个头中参与旋转的列所占比例：r = int(d_k × 比例)，对应 GPT-NeoX 的 rotary_pct "
                                 "和 Phi 的 partial_rotary_factor；其余列原样通过。"),
    "field.rope.pairing.label": "配对方式",
    "field.rope.pairing.help": ("哪两列一起旋转：前后两半 (i, i + r/2)，即 Hugging Face 与 GPT-NeoX；"
                                "相邻两列 (2i, 2i + 1)，即 Meta 参考实现与 GPT-J。同样的权重换一种配对，分数就不同。"),
    "field.rope.pairing.halves": "前后两半（Hugging Face）",
    "field.rope.pairing.adjacent": "相邻两列（Meta、GPT-J）",
    "field.rope.offset.label": "位置偏移",
    "field.rope.offset.help": "查询 l 位于位置 偏移 + l（未设键偏移时，键 s 位于 偏移 + s）。",
    "field.rope.key_offset.label": "键偏移",
    "field.rope.key_offset.help": ("键 s 位于位置 键偏移 + s；留空：与查询相同的偏移。带缓存的解码步骤："
                                   "查询位于 S − L … S − 1，键位于 0 … S − 1。"),
    "field.rope.frequencies.label": "频率",
    "field.rope.frequencies.help": ("直接给出 θ_i，每对一个（r/2 个）：模型配置对其缩放时给出"
                                    "（Llama 3、线性缩放）；留空：由基数计算。"),
    "problem.rope_rotary_dim": ("int({width} × {fraction}) = {r}，即每个头有 {r} 列要旋转；RoPE 按列对旋转，"
                                "所以它必须是至少为 2 的偶数（头宽 {width}）"),
    "explain.rope.query": "查询",
    "explain.rope.key": "键",
    "explain.rope.summary": ("{name} {n} 在第 {h1} 头的第 {e} 列属于第 {i} 对（第 {first} 列与第 {second} 列，"
                             "{pairing}）。该{name}位于位置 {pos}，所以这一对旋转 θ = {pos} × θ_{i} = {pos} × {inv} "
                             "= {angle} 弧度：cos θ = {cos}，sin θ = {sin}。{how}"),
    "explain.rope.from_base": "θ_{i} = {base}^(−2·{i}/{r})。",
    "explain.rope.given": "θ_{i} 是场景给定的频率。",
    "explain.rope.passes": ("{name} {n} 在第 {h1} 头的第 {e} 列位于 {d} 列中被旋转的前 {r} 列之后："
                            "它原样通过（部分旋转）。"),
    "lesson.rope.what": "RoPE 通过旋转把每个词元的位置写进它的查询和键：位置不是加上去的，而是一个角度。",
    "lesson.rope.pairs": ("每个头的列两两成对（{pairing}）；第 i 对是平面上的一个点，旋转 位置 × θ_i，"
                          "θ_i = {base}^(−2i/r)：前面的列对转得快，后面的转得慢。"),
    "lesson.rope.relative": "q 旋转 l·θ、k 旋转 s·θ 之后，q'·k' 只依赖于 l − s：所有位置平移同样的量，分数不变。",
    "lesson.rope.partial": "这里每个头只有前 {fraction} 比例的列旋转；其余原样通过。",
    "lesson.rope.offset": "查询从位置 {offset} 开始，键从位置 {key_offset} 开始。",
}
