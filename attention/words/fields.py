"""The words of the scenario's plain options (attention/datamodel/fields.py): each control's label, its
tooltip (also the docs' meaning), its undo command, and the words of its choices.

Keys: ``field.<name>``, ``field.<name>.help``, ``field.<name>.undo`` (placeholders: label, the
control's label; value, the new value), ``field.<name>.<choice>``.  A kind's own fields add their
keys here the same way.
"""
from __future__ import annotations

EN: dict[str, str] = {
    "field.auto": "auto",
    "field.undo": "Change {label}",
    "field.unavailable": "{value} (not available here)",
    "field.n_heads": "Heads H",
    "field.n_heads.help": "Number of attention heads. Head h owns columns (h-1)*d_k+1 to h*d_k of the projected "
                          "queries and keys (head 1 the first d_k).",
    "field.n_heads.undo": "Change heads to {value}",
    "field.d_keys": "d_keys per head",
    "field.d_keys.help": "Query/key width of each head. auto = d_model / H, Time-Series-Library's default.",
    "field.d_values": "d_values per head",
    "field.d_values.help": "Value width of each head. auto = d_model / H, Time-Series-Library's default.",
    "field.scoring": "Scoring",
    "field.scoring.help": "How a query and a key give a score: scaled dot product q.k/sqrt(d_k), plain dot product "
                          "q.k, additive w_v^T tanh(W_q q + W_k k) (d2l), or Informer's ProbSparse (only the top "
                          "queries get full attention).",
    "field.scoring.undo": "Change scoring",
    "field.scoring.scaled_dot": "Scaled dot product",
    "field.scoring.dot": "Dot product",
    "field.scoring.additive": "Additive (d2l)",
    "field.scoring.prob_sparse": "ProbSparse (Informer)",
    "field.scale": "Scale",
    "field.scale.help": "Number the scores are multiplied by. auto = 1/sqrt(d_k) for scaled dot product and "
                        "ProbSparse, 1 for dot product and additive. Untick auto to type your own.",
    "field.scale.undo": "Change scale",
    "field.hidden": "Hidden size",
    "field.hidden.help": "Additive attention: width of W_q q + W_k k before tanh.",
    "field.hidden.undo": "Change hidden size",
    "field.factor": "Factor c",
    "field.factor.help": "ProbSparse: samples c*ceil(ln S) keys per query and keeps the top c*ceil(ln L) queries.",
    "field.factor.undo": "Change factor",
    "field.seed": "Sampling seed",
    "field.seed.help": "ProbSparse: seed of the random key sample; the same seed gives the same sample as "
                       "torch.manual_seed before Informer's forward.",
    "field.seed.undo": "Change seed",
    "field.mix": "Mix heads (TSL)",
    "field.mix.help": "ProbSparse: reproduce Time-Series-Library's view of (B,H,L,D) as (B,L,H*D) without a "
                      "transpose, which mixes positions and heads.",
    "field.mix.undo": "Change mix",
    "field.causal": "Causal",
    "field.causal.help": "Hide later keys: query l may only attend to keys s <= l.",
    "field.causal.undo": "Change causal mask",
    "field.fill_value": "Fill value",
    "field.fill_value.help": "What masked scores become before softmax: -1e6 (d2l; a fully masked row becomes "
                             "uniform) or -inf (a fully masked row becomes NaN).",
    "field.fill_value.undo": "Change fill value",
    "field.device": "Device",
    "field.device.help": "Where the engine computes: CPU, or CUDA when this machine has a usable GPU.",
    "field.device.undo": "Change device",
    "field.device.cpu": "CPU",
    "field.device.cuda": "CUDA",
    "field.dtype": "Precision",
    "field.dtype.help": "float64 matches hand calculation; float32 is what models usually run in.",
    "field.dtype.undo": "Change precision",
}

ZH: dict[str, str] = {
    "field.auto": "自动",
    "field.undo": "修改 {label}",
    "field.unavailable": "{value}（本机不可用）",
    "field.n_heads": "头数 H",
    "field.n_heads.help": "注意力头的个数。第 h 个头拥有投影后查询和键的第 (h-1)*d_k+1 到 h*d_k 列"
                          "（第 1 个头拥有前 d_k 列）。",
    "field.n_heads.undo": "将头数改为 {value}",
    "field.d_keys": "每头 d_keys",
    "field.d_keys.help": "每个头的查询/键宽度。自动 = d_model / H，即 Time-Series-Library 的默认值。",
    "field.d_values": "每头 d_values",
    "field.d_values.help": "每个头的值宽度。自动 = d_model / H，即 Time-Series-Library 的默认值。",
    "field.scoring": "评分函数",
    "field.scoring.help": "查询和键如何得到分数：缩放点积 q·k/sqrt(d_k)、普通点积 q·k、"
                          "加性 w_v^T tanh(W_q q + W_k k)（d2l），"
                          "或 Informer 的 ProbSparse（只有排在前面的查询做完整注意力）。",
    "field.scoring.undo": "修改评分方式",
    "field.scoring.scaled_dot": "缩放点积",
    "field.scoring.dot": "点积",
    "field.scoring.additive": "加性（d2l）",
    "field.scoring.prob_sparse": "ProbSparse（Informer）",
    "field.scale": "缩放系数",
    "field.scale.help": "分数要乘的数。自动：缩放点积和 ProbSparse 为 1/sqrt(d_k)，点积和加性为 1。"
                        "取消勾选“自动”即可输入自己的值。",
    "field.scale.undo": "修改缩放系数",
    "field.hidden": "隐藏层大小",
    "field.hidden.help": "加性注意力：tanh 之前 W_q q + W_k k 的宽度。",
    "field.hidden.undo": "修改隐藏层大小",
    "field.factor": "采样因子 c",
    "field.factor.help": "ProbSparse：每个查询采样 c*ceil(ln S) 个键，并保留前 c*ceil(ln L) 个查询。",
    "field.factor.undo": "修改采样因子",
    "field.seed": "采样种子",
    "field.seed.help": "ProbSparse：随机采样键的种子；相同的种子与在 Informer 前向计算前调用 torch.manual_seed "
                       "得到相同的样本。",
    "field.seed.undo": "修改种子",
    "field.mix": "混合多头（TSL）",
    "field.mix.help": "ProbSparse：复现 Time-Series-Library 不转置就把 (B,H,L,D) 视为 (B,L,H*D) 的做法，"
                      "这会把位置和头混在一起。",
    "field.mix.undo": "修改多头混合",
    "field.causal": "因果掩码",
    "field.causal.help": "遮住后面的键：查询 l 只能关注 s ≤ l 的键。",
    "field.causal.undo": "修改因果掩码",
    "field.fill_value": "填充值",
    "field.fill_value.help": "被掩蔽的分数在 softmax 前被替换成的值：-1e6（d2l；整行被掩蔽时变为均匀分布）"
                             "或 -inf（整行被掩蔽时变为 NaN）。",
    "field.fill_value.undo": "修改填充值",
    "field.device": "设备",
    "field.device.help": "在哪里计算：CPU，或本机有可用 GPU 时的 CUDA。",
    "field.device.undo": "修改设备",
    "field.device.cpu": "CPU",
    "field.device.cuda": "CUDA",
    "field.dtype": "精度",
    "field.dtype.help": "float64 与手算结果一致；模型通常用 float32 运行。",
    "field.dtype.undo": "修改精度",
}
