"""Every word the step panes show, in English and Chinese.  Qt-free.

Step titles and formulas come from the engine (`Step.title` / `Step.formula`); these helpers
give what the panes add around them: axis names, head names, hover phrases, banners.  The words
themselves are in the catalogue, attention/words/panes.py (``dim.<dim>.axis``, ``dim.<dim>.noun``,
``pane.<key>``).  Axes are named by the dim they index (the engine's dim names: L, S, H*dk, dk,
...), never left as bare numbers.
"""
from __future__ import annotations

from attention import words
from attention.datamodel import numbers

LANGS = words.LANGS

#: dims that count an amount, not a position: their ticks and hover name the amount itself, from 0 (a lag of 0
#: is no shift; AutoCorrelation's lags 0, 6, 12, 18 stood at ticks 1, 7, 13, 19)
AMOUNT_DIMS = frozenset({"lag"})
#: characters of a token shown as a tick label or an editor's row header: a scenario file may hold
#: a token of a megabyte, and a label that long squeezed the heatmap to nothing
TICK_CHARS = 12
#: characters of a token in hover text, the explain panel and tooltips (the "full" text, capped)
HOVER_CHARS = 200


def elide(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, an ellipsis marking the cut (line breaks shown
    as spaces: a label is one line)."""
    text = str(text)
    if len(text) > limit:
        text = text[:max(limit - 1, 0)] + "…"
    return text.replace("\r", " ").replace("\n", " ")


def ui(key: str, lang: str, **fmt) -> str:
    """The pane word `key` (``pane.<key>`` in the catalogue) in `lang`, placeholders filled."""
    return words.text(f"pane.{key}", lang, **fmt)


def dim_name(dim: str, lang: str) -> str:
    """What an axis indexing `dim` is called ("queries (L)"); the dim itself for a dim with no words."""
    key = f"dim.{dim}.axis"
    return words.text(key, lang) if words.has(key) else dim


def dim_noun(dim: str, lang: str) -> str:
    """One position of that axis ("query"); the dim itself for a dim with no words."""
    key = f"dim.{dim}.noun"
    return words.text(key, lang) if words.has(key) else dim


def head_name(h: int, lang: str) -> str:
    """Heads are numbered from 1 on screen (head 1 owns the first d_k columns)."""
    return ui("head", lang, n=numbers.position(h))
