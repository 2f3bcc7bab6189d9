"""Every word the step panes show, in English and Chinese.  Qt-free.

Step titles and formulas come from the engine (`Step.title` / `Step.formula`); these helpers
give what the panes add around them: axis names, head names, hover phrases, banners.  The words
themselves are in the catalogue, attention/words/panes.py (``dim.<dim>.axis``, ``dim.<dim>.noun``,
``pane.<key>``).  Axes are named by the dim they index (the engine's dim names: L, S, H*dk, dk,
...), never left as bare numbers.
"""
from __future__ import annotations

from attention import words

LANGS = words.LANGS


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
    return ui("head", lang, n=h + 1)
