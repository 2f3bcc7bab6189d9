"""A token as a person can see it: whitespace and other invisible characters drawn as marks.

A decoder's next token may be a newline, a tab or a space alone: written as it is, a tick label, a table row
header or the "Next token" line showed nothing (glassllm's greedy token after "sitting by her" is a newline).
One rule for every tokenizer (glassllm's, a GGUF's):

    " fox" -> "▁fox"   (the SentencePiece mark for a space, as llama.cpp and glassllm print them)
    "\\n" -> "↵"   "\\t" -> "⇥"   "\\r" -> "␍"   other control characters -> their Unicode control picture (␀ ...)
    a zero-width or other invisible format character -> "⟨U+200B⟩"
    "" -> "∅"
"""
from __future__ import annotations

import unicodedata

MARKS = {" ": "▁", "\n": "↵", "\t": "⇥", "\r": "␍", "\x7f": "␡"}
EMPTY = "∅"


def _mark(ch: str) -> str:
    if ch in MARKS:
        return MARKS[ch]
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ ... ␟: the control pictures block
    if unicodedata.category(ch) in ("Cf", "Zl", "Zp") or (unicodedata.category(ch) == "Zs" and ch != " "):
        return f"⟨U+{code:04X}⟩"
    return ch


def visible(text: str) -> str:
    """`text` with every invisible character drawn (see the module's table); never empty."""
    return "".join(_mark(ch) for ch in text) or EMPTY
