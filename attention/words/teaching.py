"""Quiz and compare: the words of a hidden step's verdicts and of a difference to a pinned result.

Menus and buttons of these features are Qt widget strings (.ts); these are the words the
Qt-free halves (app/viewmodel/quiz_data.py, compare_data.py) write into panes and messages.
"""
from __future__ import annotations

EN: dict[str, str] = {
    # quiz: a hidden step, a typed answer and its verdict
    "quiz.hidden": "? (hidden: quiz)",
    "quiz.empty": "Type a number first.",
    "quiz.not_number": "“{text}” is not a number: type a number such as 0.25, -1.5, 1/3 or 2e-3.",
    "quiz.not_bool": "“{text}” is not an answer for this cell: type true or false (1 or 0).",
    "quiz.no_value": "This cell has no number to find (it was never computed).",
    "quiz.right": "Right: {answer} is within {tol} of the value.",
    "quiz.right_bool": "Right.",
    "quiz.wrong": "Not quite: {answer} is off by more than {tol}. Try again, or ask to be shown how.",
    "quiz.wrong_bool": "Not quite. Try again, or ask to be shown how.",
    "quiz.instruction": (
        "Quiz: the numbers of {steps} are hidden. Double-click a ? and type your answer (Explain panel, "
        "Enter checks it): a right answer shows its number, a wrong one gets a red outline. "
        "“Show how” reveals one cell."
    ),
    "quiz.hidden_steps": "Quiz: the numbers of {steps} are hidden.",
    "quiz.covered": "“{step}” is hidden as well: it repeats the numbers of “{of}” here ({why}).",
    "quiz.exposed": "Careful: the numbers of “{of}” can be read off {ref} here ({why}).",
    "quiz.reason_join": "; ",
    "quiz.covered_all": "Hidden as well, as they repeat these numbers here: {steps} ({why}).",
    "quiz.blank_too": "“{step}” is left blank as well: it repeats the numbers of “{of}” here ({why}).",
    "quiz.reason.wq": "the query projection W_q changes nothing",
    "quiz.reason.wk": "the key projection W_k changes nothing",
    "quiz.reason.wv": "the value projection W_v changes nothing",
    "quiz.reason.wo": "the output projection W_o changes nothing",
    "quiz.reason.split": "the same numbers, split into heads",
    "quiz.reason.concat": "the same numbers, heads joined side by side",
    "quiz.reason.q_picks": "the queries are one-hot, so each score copies a key entry",
    "quiz.reason.k_picks": "the keys are one-hot, so each score copies a query entry",
    "quiz.reason.mask": "masking keeps the unmasked cells as they are",
    "quiz.reason.v_identity": "V is the identity, so the weighted sum equals the weights",
    "quiz.reason.w_picks": "the weights are one-hot, so the weighted sum copies rows of V",
    "quiz.reason.same": "they hold the same numbers",
    "quiz.ref.queries": "the queries (Inputs)",
    "quiz.ref.keys": "the keys (Inputs)",
    "quiz.ref.values": "the values (Inputs)",
    "quiz.no_export": "“{step}” is hidden by the quiz: turn the quiz off (View ▸ Quiz) to export its numbers.",
    # compare: current − pinned
    "compare.shape": "{shape}; difference: current − pinned",
    "compare.phrase": "{diff} (now {now}, pinned {pinned})",
    "compare.shape_changed": (
        "Shape changed: {pinned} when pinned, {now} now. A cell-by-cell difference cannot be drawn."
    ),
    "compare.not_pinned": "This step is not in the pinned trace, so there is no difference to show.",
    "compare.no_batch": "The pinned trace has no batch item {b}, so there is no difference to show.",
}

ZH: dict[str, str] = {
    # quiz: a hidden step, a typed answer and its verdict
    "quiz.hidden": "?（测验中已隐藏）",
    "quiz.empty": "请先输入一个数。",
    "quiz.not_number": "“{text}”不是数：请输入数，例如 0.25、-1.5、1/3 或 2e-3。",
    "quiz.not_bool": "“{text}”不是这个单元格的答案：请输入 true 或 false（1 或 0）。",
    "quiz.no_value": "这个单元格没有可求的数（从未计算）。",
    "quiz.right": "正确：{answer} 与真实值之差在 {tol} 以内。",
    "quiz.right_bool": "正确。",
    "quiz.wrong": "不对：{answer} 与真实值之差超过 {tol}。再试一次，或点击“演示算法”。",
    "quiz.wrong_bool": "不对。再试一次，或点击“演示算法”。",
    "quiz.instruction": (
        "测验：{steps} 的数已隐藏。双击一个 ? 输入你的答案（在“解释”面板中，按回车检查）："
        "答对则显示这个数，答错则加红框。“演示算法”可揭示一个单元格。"
    ),
    "quiz.hidden_steps": "测验：{steps} 的数已隐藏。",
    "quiz.covered": "“{step}”也已隐藏：此处它重复了“{of}”的数（{why}）。",
    "quiz.exposed": "注意：此处从{ref}就能读出“{of}”的数（{why}）。",
    "quiz.reason_join": "；",
    "quiz.covered_all": "以下步骤也已隐藏，因为此处它们重复了这些数：{steps}（{why}）。",
    "quiz.blank_too": "“{step}”也留空：此处它重复了“{of}”的数（{why}）。",
    "quiz.reason.wq": "查询投影 W_q 不改变任何数",
    "quiz.reason.wk": "键投影 W_k 不改变任何数",
    "quiz.reason.wv": "值投影 W_v 不改变任何数",
    "quiz.reason.wo": "输出投影 W_o 不改变任何数",
    "quiz.reason.split": "同样的数，只是按头拆分",
    "quiz.reason.concat": "同样的数，只是把各头并排拼接",
    "quiz.reason.q_picks": "查询是独热向量，每个分数照抄键的一个元素",
    "quiz.reason.k_picks": "键是独热向量，每个分数照抄查询的一个元素",
    "quiz.reason.mask": "掩码保留未被遮盖的单元格不变",
    "quiz.reason.v_identity": "V 是单位矩阵，所以加权和等于权重",
    "quiz.reason.w_picks": "权重是独热向量，所以加权和照抄 V 的行",
    "quiz.reason.same": "它们的数相同",
    "quiz.ref.queries": "查询（输入）",
    "quiz.ref.keys": "键（输入）",
    "quiz.ref.values": "值（输入）",
    "quiz.no_export": "测验隐藏了“{step}”：请先在“视图”菜单中关闭测验，再导出它的数。",
    # compare: current − pinned
    "compare.shape": "{shape}；差值：当前 − 固定",
    "compare.phrase": "{diff}（当前 {now}，固定 {pinned}）",
    "compare.shape_changed": "形状已改变：固定时为 {pinned}，现在为 {now}。无法逐格求差。",
    "compare.not_pinned": "固定的结果中没有这一步，因此没有差值可显示。",
    "compare.no_batch": "固定的结果中没有第 {b} 个批次样本，因此没有差值可显示。",
}
