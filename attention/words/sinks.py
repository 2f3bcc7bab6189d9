"""Words of attention sinks (attention/kinds/sinks.py): field, step, lesson, explain lines, problems, tiles."""
from __future__ import annotations

EN = {
    "field.sinks.logits": "Sink logits",
    "field.sinks.logits.help": (
        "One learned logit per query head, (H,) (gpt-oss): it joins each row's softmax as an extra column and is "
        "dropped after, so the row's weights sum to less than 1."),
    "step.sinks.mass.title": "Sink: mass it took",
    "step.sinks.mass.formula": "mass[b,h,l] = exp(sink_h) / (sum_s exp(masked[b,h,l,s]) + exp(sink_h)) = 1 - sum_s A",
    "map.step.sinks.mass": "Sink mass",
    "step.attention_weights.formula.sinks": (
        "A = softmax([masked scores, sink_h], over keys and the sink) without the sink's column: rows sum to "
        "1 - sinks.mass"),
    "lesson.sinks.mass.what": (
        "The sink is one more column in every row's softmax, with its head's learned logit; it is dropped "
        "afterwards, and this is the share of the row it took."),
    "lesson.sinks.mass.sum": (
        "A row's weights plus its sink mass sum to 1: where the sink takes much, the query attends to little."),
    "lesson.sinks.weights.column": (
        "Softmax turns each row of masked scores into positive weights, here with one more column: each head's "
        "sink logit, dropped after the softmax."),
    "lesson.sinks.weights.less": (
        "So each row sums to 1 minus the sink's mass, less than 1: a query may attend to almost nothing. With "
        "every key masked the sink takes the whole row: weights 0, not NaN."),
    "explain.sinks.sink_term": "sink: exp(sinks[{h}] − m) = exp({x} − {m}) = {e}",
    "explain.sinks.weights.formula": (
        "A[{b},{h},{l},{s}] = exp(x_{s} − m) / (Σ_j exp(x_j − m) + exp(sink − m)), m = max(row, sink)"),
    "explain.sinks.weights.summary": (
        "Softmax of query {l}'s row in head {h1} with the sink's column (logit {sink}); m = {m} is the largest of "
        "the row and the sink. The sink took {mass} of the row, so its weights sum to {rest}."),
    "explain.sinks.mass.formula": "mass[{b},{h},{l}] = exp(sink − m) / (Σ_j exp(x_j − m) + exp(sink − m))",
    "explain.sinks.mass.summary": (
        "The sink's share of query {l}'s row in head {h1}: its logit {sink} against the row's masked scores. It "
        "took {mass}; the keys' weights sum to {rest}."),
    "explain.sinks.fully.formula": "all(mask[{b},{l},:]): every key masked",
    "explain.sinks.fully.summary": (
        "Every key of query {l} (batch {b}) is masked, so the sink takes the whole row: every weight is 0 (not "
        "uniform, not NaN, whatever the fill {fill}) and the output of this row is 0."),
    "sinks.lines_note": "A sink took part of each row: a query's lines sum to less than 1 (sinks.mass is the rest).",
    "quiz.reason.sink_rest": "a row's weights sum to 1 minus the sink's mass",
    "problem.sinks_scoring": (
        "sinks change the softmax of every row; {kind} leaves some rows without one. Choose scaled dot, dot or "
        "additive scoring, or remove the sinks part"),
    "problem.sinks_logits": "expected one sink logit per query head, shape [{H}], got {got}",
    "problem.sinks_logits_finite": "every sink logit must be a finite number",
    "problem.fully_masked_sink": (
        "{n} {rows_have} every key masked ({rows}): the sink takes the whole row, so their weights are 0 and their "
        "weighted sum is 0 (the fill {fill} does not matter)"),
    "tiles.not_applicable.sinks": (
        "The tiled view does not apply with attention sinks: each row's softmax has one more column (the sink's "
        "logit), dropped after, so the weights are not the row softmax of the masked scores that the tiles "
        "compute online."),
}

ZH = {
    "field.sinks.logits": "汇聚 logit",
    "field.sinks.logits.help": (
        "每个查询头一个学到的 logit，形状 (H,)（gpt-oss）：它作为额外的一列加入每行的 softmax，之后再去掉，"
        "所以一行的权重之和小于 1。"),
    "step.sinks.mass.title": "汇聚：拿走的份额",
    "step.sinks.mass.formula": "份额[b,h,l] = exp(sink_h) / (Σ_s exp(掩蔽后分数[b,h,l,s]) + exp(sink_h)) = 1 − Σ_s A",
    "map.step.sinks.mass": "汇聚份额",
    "step.attention_weights.formula.sinks": (
        "A = softmax([掩蔽后分数, sink_h]，对键和汇聚)，去掉汇聚列：每行之和 = 1 − 汇聚份额"),
    "lesson.sinks.mass.what": (
        "汇聚是每行 softmax 里多出的一列，值为该头学到的 logit；softmax 之后去掉，这里是它拿走的份额。"),
    "lesson.sinks.mass.sum": "一行的权重加上汇聚份额等于 1：汇聚拿得多，查询关注得就少。",
    "lesson.sinks.weights.column": (
        "softmax 把掩蔽后分数的每一行变成正的权重，这里多了一列：每个头的汇聚 logit，softmax 之后去掉。"),
    "lesson.sinks.weights.less": (
        "所以每行之和等于 1 减去汇聚的份额，小于 1：查询可以几乎什么都不关注。所有键都被掩蔽时汇聚拿走整行：权重为 0，"
        "而不是 NaN。"),
    "explain.sinks.sink_term": "汇聚：exp(汇聚[{h}] − m) = exp({x} − {m}) = {e}",
    "explain.sinks.weights.formula": (
        "A[{b},{h},{l},{s}] = exp(x_{s} − m) / (Σ_j exp(x_j − m) + exp(汇聚 − m))，m = max(行, 汇聚)"),
    "explain.sinks.weights.summary": (
        "头 {h1} 中查询 {l} 那一行加上汇聚列（logit {sink}）后的 softmax；m = {m} 是该行与汇聚中的最大值。"
        "汇聚拿走了 {mass}，所以这一行的权重之和为 {rest}。"),
    "explain.sinks.mass.formula": "份额[{b},{h},{l}] = exp(汇聚 − m) / (Σ_j exp(x_j − m) + exp(汇聚 − m))",
    "explain.sinks.mass.summary": (
        "头 {h1} 中查询 {l} 那一行里汇聚的份额：它的 logit {sink} 与该行的掩蔽后分数相比。它拿走了 {mass}；"
        "各键的权重之和为 {rest}。"),
    "explain.sinks.fully.formula": "all(掩码[{b},{l},:])：所有键都被掩蔽",
    "explain.sinks.fully.summary": (
        "批次 {b} 的查询 {l} 的所有键都被掩蔽，所以汇聚拿走整行：每个权重都是 0（不是均匀，也不是 NaN，"
        "与填充值 {fill} 无关），这一行的输出为 0。"),
    "sinks.lines_note": "汇聚拿走了每行的一部分：一个查询的线条之和小于 1（其余的在 sinks.mass 中）。",
    "quiz.reason.sink_rest": "一行的权重之和等于 1 减去汇聚的份额",
    "problem.sinks_scoring": (
        "汇聚改变每一行的 softmax；{kind} 有些行没有 softmax。请选择缩放点积、点积或加性打分，或去掉 sinks 部分"),
    "problem.sinks_logits": "每个查询头应有一个汇聚 logit，形状应为 [{H}]，实际为 {got}",
    "problem.sinks_logits_finite": "每个汇聚 logit 都必须是有限的数",
    "problem.fully_masked_sink": (
        "有 {n} 个{rows_have}的所有键都被掩蔽（{rows}）：汇聚拿走整行，所以这些行的权重为 0、加权和为 0"
        "（与填充值 {fill} 无关）"),
    "tiles.not_applicable.sinks": (
        "使用注意力汇聚时分块视图不适用：每行的 softmax 多了一列（汇聚的 logit），之后再去掉，所以权重不是"
        "分块在线计算的那种“掩蔽后分数按行 softmax”。"),
}
