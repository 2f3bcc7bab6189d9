"""QK-norm (attention/kinds/qk_norm.py): its steps, fields, explain and lesson, English and Chinese."""
from __future__ import annotations

EN: dict[str, str] = {
    "step.qk_norm.query.title": "Queries normalised (QK-norm)",
    "step.qk_norm.query.formula": "q' = q / √(mean(q²) + eps) · w per head row (Gemma 3: · (1 + w)), before RoPE",
    "step.qk_norm.key.title": "Keys normalised (QK-norm)",
    "step.qk_norm.key.formula": "k' = k / √(mean(k²) + eps) · w per head row (Gemma 3: · (1 + w)), before RoPE",
    "map.step.qk_norm.query": "Norm Q",
    "map.step.qk_norm.key": "Norm K",
    "field.qk_norm.style.label": "QK-norm style",
    "field.qk_norm.style.help": ("How the learned weight scales: Qwen3 multiplies by w (stored around 1), Gemma 3 by "
                                 "1 + w (stored around 0). The same weights give other numbers under the other."),
    "field.qk_norm.style.qwen3": "Qwen3: w",
    "field.qk_norm.style.gemma3": "Gemma 3: 1 + w",
    "field.qk_norm.eps.label": "QK-norm eps",
    "field.qk_norm.eps.help": "Added to the mean square before the square root, so a row of zeros stays finite.",
    "field.qk_norm.query_weight.label": "Query norm weight",
    "field.qk_norm.query_weight.help": "One learned number per column of a query head (d_k), shared by the heads.",
    "field.qk_norm.key_weight.label": "Key norm weight",
    "field.qk_norm.key_weight.help": "One learned number per column of a key head (d_k), shared by the heads.",
    "explain.qk_norm.query": "query",
    "explain.qk_norm.key": "key",
    "explain.qk_norm.summary.qwen3": ("Column {e} of {name} {n} in head {h1}: the row's {d} columns have root mean "
                                      "square {rms}; the column is divided by it and multiplied by its weight "
                                      "w = {w} (Qwen3)."),
    "explain.qk_norm.summary.gemma3": ("Column {e} of {name} {n} in head {h1}: the row's {d} columns have root mean "
                                       "square {rms}; the column is divided by it and multiplied by 1 + w = {factor} "
                                       "(Gemma 3, w = {w})."),
    "lesson.qk_norm.what": ("QK-norm divides each head's query and key row by its root mean square (eps = {eps}), "
                            "then scales each column by a learned weight, before RoPE turns them."),
    "lesson.qk_norm.qwen3": "Qwen3 multiplies by the weight w itself.",
    "lesson.qk_norm.gemma3": "Gemma 3 multiplies by 1 + w: a weight of 0 leaves the normalised row as it is.",
    "lesson.qk_norm.why": ("Every row then has the same size, so a score q·k cannot grow without bound with the "
                           "projections: training stays stable."),
}

ZH: dict[str, str] = {
    "step.qk_norm.query.title": "归一化后的查询（QK-norm）",
    "step.qk_norm.query.formula": "每个头的行：q' = q / √(mean(q²) + eps) · w（Gemma 3：· (1 + w)），在 RoPE 之前",
    "step.qk_norm.key.title": "归一化后的键（QK-norm）",
    "step.qk_norm.key.formula": "每个头的行：k' = k / √(mean(k²) + eps) · w（Gemma 3：· (1 + w)），在 RoPE 之前",
    "map.step.qk_norm.query": "归一化 Q",
    "map.step.qk_norm.key": "归一化 K",
    "field.qk_norm.style.label": "QK-norm 形式",
    "field.qk_norm.style.help": ("学到的权重如何缩放：Qwen3 乘以 w（存储值在 1 附近），Gemma 3 乘以 1 + w"
                                 "（存储值在 0 附近）。同样的权重换一种形式，结果就不同。"),
    "field.qk_norm.style.qwen3": "Qwen3 式：w",
    "field.qk_norm.style.gemma3": "Gemma 3 式：1 + w",
    "field.qk_norm.eps.label": "QK-norm 的 eps",
    "field.qk_norm.eps.help": "开平方前加到均方上，使全零的行仍然有限。",
    "field.qk_norm.query_weight.label": "查询归一化权重",
    "field.qk_norm.query_weight.help": "查询头每列一个学到的数（d_k 个），各头共用。",
    "field.qk_norm.key_weight.label": "键归一化权重",
    "field.qk_norm.key_weight.help": "键头每列一个学到的数（d_k 个），各头共用。",
    "explain.qk_norm.query": "查询",
    "explain.qk_norm.key": "键",
    "explain.qk_norm.summary.qwen3": ("{name} {n} 在第 {h1} 头的第 {e} 列：该行 {d} 列的均方根为 {rms}；"
                                      "这一列除以它，再乘以它的权重 w = {w}（Qwen3）。"),
    "explain.qk_norm.summary.gemma3": ("{name} {n} 在第 {h1} 头的第 {e} 列：该行 {d} 列的均方根为 {rms}；"
                                       "这一列除以它，再乘以 1 + w = {factor}（Gemma 3，w = {w}）。"),
    "lesson.qk_norm.what": ("QK-norm 把每个头的查询行和键行除以各自的均方根（eps = {eps}），"
                            "再把每列乘以学到的权重，然后才由 RoPE 旋转。"),
    "lesson.qk_norm.qwen3": "Qwen3 直接乘以权重 w。",
    "lesson.qk_norm.gemma3": "Gemma 3 乘以 1 + w：权重为 0 时归一化后的行保持不变。",
    "lesson.qk_norm.why": "这样每一行的大小都相同，分数 q·k 不会随投影无限增大：训练更稳定。",
}
