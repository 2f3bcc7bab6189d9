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
    # compare: current − pinned
    "compare.shape": "{shape}；差值：当前 − 固定",
    "compare.phrase": "{diff}（当前 {now}，固定 {pinned}）",
    "compare.shape_changed": "形状已改变：固定时为 {pinned}，现在为 {now}。无法逐格求差。",
    "compare.not_pinned": "固定的结果中没有这一步，因此没有差值可显示。",
    "compare.no_batch": "固定的结果中没有第 {b} 个批次样本，因此没有差值可显示。",
}
