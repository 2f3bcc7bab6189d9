"""Words of ALiBi (attention/kinds/alibi.py): its fields, steps, lesson, explain lines and problems.

Positions in sentences count from 1 (attention.datamodel.numbers.position); indices written as code from 0."""
from __future__ import annotations

EN = {
    "field.alibi.slopes": "ALiBi slopes",
    "field.alibi.slopes.help": (
        "One slope per query head, (H,); null: BLOOM's formula (for 8 heads 1/2, 1/4, … 1/256)."),
    "field.alibi.form": "ALiBi bias form",
    "field.alibi.form.help": (
        "key: slope × key position, as BLOOM adds it; relative: slope × (key − query), the paper's distance "
        "penalty. They differ by a constant per row, so the weights are the same."),
    "field.alibi.form.key": "slope × key position (BLOOM)",
    "field.alibi.form.relative": "slope × (key − query) (the paper)",
    "step.alibi.bias.title": "ALiBi: bias per head",
    "step.alibi.bias.formula": "bias[h,l,s] = slope_h * s  (relative form: slope_h * (s - l))",
    "step.alibi.scores.title": "ALiBi: biased scores",
    "step.alibi.scores.formula": "biased[b,h,l,s] = scores[b,h,l,s] + bias[h,l,s]",
    "map.step.alibi.bias": "ALiBi bias",
    "map.step.alibi.scores": "Biased scores",
    "lesson.alibi.bias.what": (
        "ALiBi gives no position to q or k; instead each head adds slope × position to its scores, one slope per "
        "head."),
    "lesson.alibi.bias.slopes": (
        "The slopes are a geometric series (BLOOM: 2^(−8/H), 2^(−16/H), …): steep heads look close by, gentle "
        "heads far away."),
    "lesson.alibi.scores.add": (
        "The biased scores are the scores plus the bias; the mask and the softmax read these, not the plain "
        "scores."),
    "lesson.alibi.scores.distance": (
        "Relative to the query a key d steps back loses slope × d: the softmax ignores a constant per row, so "
        "slope × key position and slope × (key − query) give the same weights."),
    "explain.alibi.bias.formula.key": "alibi.bias[{h},{l},{s}] = slope[{h}] × {s}",
    "explain.alibi.bias.formula.relative": "alibi.bias[{h},{l},{s}] = slope[{h}] × ({s} − {l})",
    "explain.alibi.bias.summary.key": (
        "Head {h1}'s slope {slope} times the position of key {s} ({pos}: positions count from 0, as in the code); "
        "the same in every query row."),
    "explain.alibi.bias.summary.relative": (
        "Head {h1}'s slope {slope} times the key's offset from query {l} (key {s}: {pos}): 0 on the diagonal, "
        "more negative further back."),
    "explain.alibi.scores.formula.key": "biased[{b},{h},{l},{s}] = score + slope[{h}] × {s}",
    "explain.alibi.scores.formula.relative": "biased[{b},{h},{l},{s}] = score + slope[{h}] × ({s} − {l})",
    "explain.alibi.scores.summary": (
        "Query {l} against key {s} in head {h1}: the score plus ALiBi's bias, slope {slope} times the position; "
        "the mask and the softmax read this number."),
    "problem.alibi_scoring": (
        "ALiBi needs every score computed; {kind} leaves some rows unscored. Choose scaled dot, dot or additive "
        "scoring, or remove the ALiBi part"),
    "problem.alibi_slopes": "expected one slope per query head, shape [{H}], got {got}",
    "problem.alibi_slopes_finite": "every slope must be a finite number",
    "quiz.reason.alibi_zero": "ALiBi adds 0 where the key's position (or the slope) is 0",
    "problem.modifier_order": (
        "the score modifiers are applied in the order {order}; list them in that order"),
}

ZH = {
    "field.alibi.slopes": "ALiBi 斜率",
    "field.alibi.slopes.help": "每个查询头一个斜率，形状 (H,)；null：用 BLOOM 的公式（8 个头时为 1/2、1/4 … 1/256）。",
    "field.alibi.form": "ALiBi 偏置形式",
    "field.alibi.form.help": (
        "“斜率 × 键位置”：BLOOM 的做法；“斜率 ×（键 − 查询）”：论文中的距离惩罚。两者每行只差一个常数，"
        "所以权重相同。"),
    "field.alibi.form.key": "斜率 × 键位置（BLOOM）",
    "field.alibi.form.relative": "斜率 ×（键 − 查询）（论文）",
    "step.alibi.bias.title": "ALiBi：每个头的偏置",
    "step.alibi.bias.formula": "偏置[h,l,s] = slope_h × s（相对形式：slope_h × (s − l)）",
    "step.alibi.scores.title": "ALiBi：加偏置后的分数",
    "step.alibi.scores.formula": "加偏置的分数[b,h,l,s] = 分数[b,h,l,s] + 偏置[h,l,s]",
    "map.step.alibi.bias": "ALiBi 偏置",
    "map.step.alibi.scores": "加偏置的分数",
    "lesson.alibi.bias.what": "ALiBi 不给 q 或 k 加位置信息，而是每个头在分数上加上 斜率 × 位置，每个头一个斜率。",
    "lesson.alibi.bias.slopes": (
        "斜率是一个等比数列（BLOOM：2^(−8/H)、2^(−16/H)、…）：斜率大的头看近处，斜率小的头看远处。"),
    "lesson.alibi.scores.add": "加偏置的分数 = 分数 + 偏置；掩码和 softmax 读的是它，而不是原来的分数。",
    "lesson.alibi.scores.distance": (
        "相对于查询，往回 d 步的键少了 斜率 × d：softmax 不受每行常数的影响，所以 斜率 × 键位置 与 "
        "斜率 ×（键 − 查询）得到相同的权重。"),
    "explain.alibi.bias.formula.key": "偏置[{h},{l},{s}] = 斜率[{h}] × {s}",
    "explain.alibi.bias.formula.relative": "偏置[{h},{l},{s}] = 斜率[{h}] × ({s} − {l})",
    "explain.alibi.bias.summary.key": (
        "头 {h1} 的斜率 {slope} 乘以键 {s} 的位置（{pos}：位置从 0 数，与代码一致）；每个查询行都一样。"),
    "explain.alibi.bias.summary.relative": (
        "头 {h1} 的斜率 {slope} 乘以键 {s} 相对查询 {l} 的偏移（{pos}）：对角线上为 0，越往回越负。"),
    "explain.alibi.scores.formula.key": "加偏置的分数[{b},{h},{l},{s}] = 分数 + 斜率[{h}] × {s}",
    "explain.alibi.scores.formula.relative": "加偏置的分数[{b},{h},{l},{s}] = 分数 + 斜率[{h}] × ({s} − {l})",
    "explain.alibi.scores.summary": (
        "头 {h1} 中查询 {l} 对键 {s}：分数加上 ALiBi 的偏置（斜率 {slope} 乘以位置）；掩码和 softmax 读的就是这个数。"),
    "problem.alibi_scoring": (
        "ALiBi 需要所有分数都被计算；{kind} 有些行没有计算分数。请选择缩放点积、点积或加性打分，或去掉 ALiBi 部分"),
    "problem.alibi_slopes": "每个查询头应有一个斜率，形状应为 [{H}]，实际为 {got}",
    "problem.alibi_slopes_finite": "每个斜率都必须是有限的数",
    "quiz.reason.alibi_zero": "在键的位置（或斜率）为 0 的地方，ALiBi 加的是 0",
    "problem.modifier_order": "分数修饰按 {order} 的顺序应用；请按这个顺序列出",
}
