"""The pipeline map ("you are here") and the explanation written on a slide.

Keys ``map.step.<step id>``: the short name of a step on its chip in the map of steps (the full
title, attention/words/steps.py, is the chip's tooltip); a step without a short name here shows
its title.  Keys ``slide_explain.*``: what the slide says around an explanation (the explanation
itself comes from attention/teaching/explain.py and attention/words/explain.py).
"""
from __future__ import annotations

EN: dict[str, str] = {
    "map.step.projection.query": "Project Q",
    "map.step.projection.key": "Project K",
    "map.step.projection.value": "Project V",
    "map.step.head_split.query": "Split Q",
    "map.step.head_split.key": "Split K",
    "map.step.head_split.value": "Split V",
    "map.step.scores": "Scores",
    "map.step.masked_scores": "Masked scores",
    "map.step.attention_weights": "Softmax",
    "map.step.weighted_sum": "Weighted sum",
    "map.step.concat": "Concat",
    "map.step.output": "Output",
    "map.step.extra.mask": "Mask",
    "map.step.extra.fully_masked": "Fully masked rows",
    "map.step.extra.sample_index": "Sampled keys",
    "map.step.extra.sample_count": "Sample counts",
    "map.step.extra.sampled_scores": "Sampled scores",
    "map.step.extra.sparsity": "Sparsity M",
    "map.step.extra.top_index": "Top-u queries",
    "map.step.extra.selected": "Active queries",
    "map.tooltip": "{title}\n{formula}\nClick to go to this step.",
    "map.tooltip_here": "{title}\n{formula}\nYou are here.",
    "slide_explain.hint": "Click any cell of the result to see its arithmetic here.",
    "slide_explain.more_terms": "… {n} more terms",
    "slide_explain.close_hint": "Esc closes · click another cell to explain it",
    "slide_explain.hidden_cell": "The quiz hides this cell: work it out, then answer in the window's Explain panel.",
    "slide_explain.hidden_source": "The terms are hidden while the quiz hides one of the steps they come from.",
    "slide_explain.starting": "The engine is still starting: click again in a moment.",
    "slide_explain.cannot": "No explanation for this cell: {reason}",
}

ZH: dict[str, str] = {
    "map.step.projection.query": "投影 Q",
    "map.step.projection.key": "投影 K",
    "map.step.projection.value": "投影 V",
    "map.step.head_split.query": "拆分 Q",
    "map.step.head_split.key": "拆分 K",
    "map.step.head_split.value": "拆分 V",
    "map.step.scores": "分数",
    "map.step.masked_scores": "掩蔽后的分数",
    "map.step.attention_weights": "Softmax 权重",
    "map.step.weighted_sum": "加权和",
    "map.step.concat": "拼接",
    "map.step.output": "输出",
    "map.step.extra.mask": "掩码",
    "map.step.extra.fully_masked": "全被掩蔽的行",
    "map.step.extra.sample_index": "采样的键",
    "map.step.extra.sample_count": "采样次数",
    "map.step.extra.sampled_scores": "采样键上的分数",
    "map.step.extra.sparsity": "稀疏度 M",
    "map.step.extra.top_index": "前 u 个查询",
    "map.step.extra.selected": "活跃查询",
    "map.tooltip": "{title}\n{formula}\n点击转到这一步。",
    "map.tooltip_here": "{title}\n{formula}\n你在这里。",
    "slide_explain.hint": "点击结果中的任意单元格，在这里查看它的算式。",
    "slide_explain.more_terms": "…… 另有 {n} 项",
    "slide_explain.close_hint": "Esc 关闭 · 点击另一个单元格以解释它",
    "slide_explain.hidden_cell": "测验隐藏了这个单元格：先自己算出来，再到主窗口的“解释”面板中作答。",
    "slide_explain.hidden_source": "测验隐藏了这些项所来自的某一步，因此不显示这些项。",
    "slide_explain.starting": "计算引擎仍在启动：请稍后再点击。",
    "slide_explain.cannot": "无法解释这个单元格：{reason}",
}
