"""Where a header may wrap: between the parts of a sentence, never inside an expression.

A word-wrapped label breaks at any space, so a narrow pane showed "(B, H, L, S) = (1," on one
line and "2, 4, 4)" on the next, and a formula split at its "*".  `keep_together` turns the
spaces that sit inside brackets or next to an operator into no-break spaces; the spaces of the
prose around an expression stay, so a long header still wraps, only between whole pieces.
Qt-free (the view-model's panes and the slides use it).
"""
from __future__ import annotations

NBSP = "\u00a0"
_OPEN, _CLOSE = "([{（", ")]}）"
#: tokens made only of these characters are operators: the spaces beside them never break
_OPERATOR_CHARS = set("=+-*/.·×^<>≤≥≠≈→←⊙@|−…:")


def _is_operator(token: str) -> bool:
    return bool(token) and all(ch in _OPERATOR_CHARS for ch in token)


def keep_together(text: str) -> str:
    """`text` with no-break spaces inside brackets and around operator tokens ("=", "*", "...")."""
    tokens = text.split(" ")
    if len(tokens) < 2:
        return text
    out = [tokens[0]]
    depth = _depth_change(tokens[0])
    for prev, token in zip(tokens, tokens[1:]):
        glue = depth > 0 or _is_operator(prev) or _is_operator(token)
        out.append(NBSP if glue else " ")
        out.append(token)
        depth = max(depth + _depth_change(token), 0)
    return "".join(out)


def _depth_change(token: str) -> int:
    return sum(ch in _OPEN for ch in token) - sum(ch in _CLOSE for ch in token)


def plain(text: str) -> str:
    """`text` with its no-break spaces back to ordinary ones (what a person would type)."""
    return text.replace(NBSP, " ")


def slide_decimal(label: str) -> str:
    """A cell's label for a classroom slide: "4.5e-4" as "0.00045" (a decimal no more than a
    character longer reads better to a class than an exponent); other labels unchanged.
    Only the spelling changes: the digits are the label's own."""
    mantissa, sep, exp = label.partition("e")
    if not sep or not exp.startswith("-"):
        return label
    try:
        power = int(exp)
        float(mantissa)
    except ValueError:
        return label
    sign = "-" if mantissa.startswith("-") else ""
    digits = mantissa.lstrip("-").replace(".", "")
    text = f"{sign}0.{'0' * (-power - 1)}{digits}"
    return text if len(text) <= len(label) + 1 else label
