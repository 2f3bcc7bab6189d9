"""Words of soft-capping (attention/kinds/softcap.py): its field, step, lesson, explain lines and problems."""
from __future__ import annotations

EN = {
    "field.softcap.cap": "Soft-cap",
    "field.softcap.cap.help": (
        "cap > 0: the scores become cap × tanh(score / cap) after scaling, before the mask (Gemma 2: 50)."),
    "step.softcap.scores.title": "Soft-capped scores",
    "step.softcap.scores.formula": "capped[b,h,l,s] = cap * tanh(scores[b,h,l,s] / cap)",
    "map.step.softcap.scores": "Soft-cap",
    "lesson.softcap.scores.what": (
        "Soft-capping bends every score into (−cap, cap) with cap × tanh(score / cap): small scores pass almost "
        "unchanged, large ones flatten out towards ±cap."),
    "lesson.softcap.scores.why": (
        "So no single key can take all the weight through one huge logit. Gemma 2 caps the scaled scores "
        "(its scale is query_pre_attn_scalar^(−1/2)) before the mask."),
    "explain.softcap.formula": "capped[{b},{h},{l},{s}] = {cap} × tanh(score / {cap})",
    "explain.softcap.summary": (
        "The score {score} divided by the cap {cap}, through tanh, times the cap: {result}, {squeeze} closer to "
        "0 (near 0 tanh x ≈ x changes little; far out the result stays inside ±{cap})."),
    "problem.softcap_scoring": (
        "soft-capping needs every score computed; {kind} leaves some rows unscored. Choose scaled dot, dot or "
        "additive scoring, or remove the softcap part"),
    "quiz.reason.softcap_small": "small scores pass the cap almost unchanged (tanh x ≈ x near 0)",
}

ZH = {
    "field.softcap.cap": "软上限",
    "field.softcap.cap.help": "上限 > 0：缩放之后、掩码之前，分数变为 上限 × tanh(分数 / 上限)（Gemma 2：50）。",
    "step.softcap.scores.title": "软上限后的分数",
    "step.softcap.scores.formula": "上限后的分数[b,h,l,s] = 上限 × tanh(分数[b,h,l,s] / 上限)",
    "map.step.softcap.scores": "软上限",
    "lesson.softcap.scores.what": (
        "软上限用 上限 × tanh(分数 / 上限) 把每个分数压进 (−上限, 上限)：小分数几乎不变，大分数趋于 ±上限。"),
    "lesson.softcap.scores.why": (
        "这样没有哪个键能靠一个巨大的 logit 拿走全部权重。Gemma 2 对缩放后的分数（缩放为 "
        "query_pre_attn_scalar^(−1/2)）在掩码之前做软上限。"),
    "explain.softcap.formula": "上限后的分数[{b},{h},{l},{s}] = {cap} × tanh(分数 / {cap})",
    "explain.softcap.summary": (
        "分数 {score} 除以上限 {cap}，过 tanh，再乘以上限：{result}，向 0 靠近了 {squeeze}"
        "（在 0 附近 tanh x ≈ x，几乎不变；离得远时结果始终在 ±{cap} 之内）。"),
    "problem.softcap_scoring": (
        "软上限需要所有分数都被计算；{kind} 有些行没有计算分数。请选择缩放点积、点积或加性打分，或去掉 softcap 部分"),
    "quiz.reason.softcap_small": "小分数经过软上限几乎不变（0 附近 tanh x ≈ x）",
}
