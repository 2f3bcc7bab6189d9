"""One explained cell as a record, and the text pieces every explanation is written with.

`Explanation` is what `attention.teaching.explain.explain(trace, step_id, index)` returns: the
cell's value, its formula, the terms that make it (each with the cells it read, `Source`) and how
they combine.  The kinds and the main pipeline build theirs with `_explanation`, the catalogue's
words (`_tx`: every language at once) and notation that reads the same in every language
(`_same`).  Numbers are written by `attention.datamodel.numbers.rounded`, so a number reads as in
the cell it explains.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Protocol, Sequence

import attention.words as words
from attention.datamodel import numbers


class Context(Protocol):
    """What an explainer reads of the trace it explains (attention.teaching.explain builds it):
    the trace's arrays as float64 numpy (bool and int arrays kept as they are), its options and
    its scoring kind."""

    trace: Any
    opts: Mapping[str, Any]  # the trace's options
    kinds: Any  # the kind objects the trace uses (attention.kinds.plan.Kinds)
    kind: Any  # the trace's scoring kind (kinds.scoring)

    def kv_head(self, h: int) -> int: ...
    def reads(self, step_id: str, before: Optional[str] = None) -> str: ...
    def raw(self, step_id: str) -> Any: ...
    def a(self, step_id: str) -> Any: ...
    def has(self, step_id: str) -> bool: ...
    def param(self, name: str) -> Any: ...
    def value(self, step_id: str, idx: tuple[int, ...]) -> float: ...
    @property
    def mask(self) -> Any: ...


@dataclass(frozen=True)
class Source:
    """One cell an explained number came from: a step id or a key of `trace.parameters`."""

    ref: str
    index: tuple[int, ...]


@dataclass(frozen=True)
class Term:
    """One printed line of the computation and its numeric contribution."""

    text: dict[str, str]
    value: float
    sources: tuple[Source, ...] = ()
    masked: bool = False
    factors: tuple[float, ...] = ()  # the numbers multiplied to make `value` (empty when not a product)


@dataclass(frozen=True)
class Explanation:
    step_id: str
    index: tuple[int, ...]
    value: float
    formula: dict[str, str]
    terms: tuple[Term, ...]
    result: float
    summary: dict[str, str]
    sources: tuple[Source, ...]
    # how the terms give `result`, with numbers
    combine: dict[str, str] = field(default_factory=lambda: {"en": "", "zh": ""})
    scoring: Optional[str] = None  # the trace's scoring function: the title is that kind's own
    title: Optional[dict[str, str]] = None  # {language: the step's title, as that kind names it}: set by explain()

    def text(self, lang: str = "en") -> str:
        """The whole explanation as printable lines: cell = value, formula, terms, result, summary."""
        lang = "zh" if lang == "zh" else "en"
        title = self.title[lang] if self.title else self.step_id
        where = ", ".join(str(i) for i in self.index)
        lines = [f"{title}: {self.step_id}[{where}] = {_value_text(self.step_id, self.value)}",
                 f"  {self.formula[lang]}"]
        masked_word = words.text("explain.masked_tag", lang)
        for t in self.terms:
            lines.append(f"    {t.text[lang]}{masked_word if t.masked else ''}")
        if self.combine.get(lang):
            lines.append(f"  = {self.combine[lang]}")
        if self.summary.get(lang):
            lines.append(f"  {self.summary[lang]}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Plain JSON-safe data (non-finite numbers as "NaN" / "Infinity" / "-Infinity")."""
        src = lambda ss: [{"ref": s.ref, "index": list(s.index)} for s in ss]  # noqa: E731
        return {
            "step_id": self.step_id, "index": list(self.index),
            "value": _json_number(self.value), "result": _json_number(self.result),
            "formula": dict(self.formula), "combine": dict(self.combine), "summary": dict(self.summary),
            "terms": [{"text": dict(t.text), "value": _json_number(t.value), "masked": t.masked,
                       "factors": [_json_number(f) for f in t.factors], "sources": src(t.sources)}
                      for t in self.terms],
            "sources": src(self.sources),
        }


def fmt(x: float) -> str:
    """A number in the text: `attention.datamodel.numbers.rounded`, so it reads as in the cell it explains."""
    return numbers.rounded(x)


#: A position in a sentence ("query 3", "head 1"): counted from 1, as everything a person reads;
#: formulas and terms written as code keep the index from 0 (``scores[0,0,2,1]``).
P = numbers.position


#: steps whose cells are whole numbers (indices, counts) or flags: printed as such (15, True)
_WHOLE = ("extra.sample_index", "extra.sample_count", "extra.top_index")
_FLAGS = ("extra.mask", "extra.fully_masked", "extra.selected")


def _value_text(step_id: str, value: float) -> str:
    if step_id in _FLAGS:
        return numbers.flag(value)
    if step_id in _WHOLE:
        return numbers.whole(value)
    return fmt(value)


def _tx(key: str, **args) -> dict[str, str]:
    """The catalogue's words for `key` in every language (attention/words/explain.py); an argument
    given as {"en": ..., "zh": ...} (words themselves) is filled in per language."""
    return {lang: words.text(key, lang, **{k: v[lang] if isinstance(v, dict) else v for k, v in args.items()})
            for lang in words.LANGS}


def _same(notation: str) -> dict[str, str]:
    """Notation that reads the same in every language (a formula, numbers multiplied): no words."""
    return {lang: notation for lang in words.LANGS}


def _cat(*parts) -> dict[str, str]:
    """Per-language concatenation of texts ({"en", "zh"} dicts) and notation (plain strings)."""
    return {lang: "".join(p[lang] if isinstance(p, dict) else p for p in parts) for lang in words.LANGS}


def _joined(parts: Sequence[dict[str, str]]) -> dict[str, str]:
    """Reasons joined with "and" in each language."""
    sep = _tx("explain.and")
    return {lang: sep[lang].join(p[lang] for p in parts) for lang in words.LANGS}


def _json_number(x: float):
    x = float(x)
    if math.isfinite(x):
        return x
    return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")


def _sum_text(values: Sequence[float]) -> str:
    if not values:
        return "0"
    if len(values) > 12:
        return _signed(values[:6]) + " + … " + _signed(values[-3:], first=False)
    return _signed(values)


def _signed(values: Sequence[float], first: bool = True) -> str:
    """1 − 0.5 + 2: the subtraction operator (U+2212) instead of "+ -0.5"."""
    out = []
    for i, v in enumerate(values):
        if i == 0 and first:
            out.append(fmt(v))
        else:
            out.append(f"− {fmt(-v)}" if v < 0 else f"+ {fmt(v)}")
    return " ".join(out)


def _fsum(values: Sequence[float]) -> float:
    """A plain left-to-right float sum (math.fsum would refuse inf - inf and hide NaN's origin)."""
    total = 0.0
    for v in values:
        total += v
    return total


def _dedupe(sources: list[Source]) -> tuple[Source, ...]:
    return tuple(dict.fromkeys(sources))


def _explanation(step_id: str, idx: tuple[int, ...], value: float, formula: dict, terms: list[Term],
                 result: float, summary: dict, combine: dict, extra_sources: Sequence[Source] = ()) -> Explanation:
    sources = [s for t in terms for s in t.sources] + list(extra_sources)
    return Explanation(step_id, idx, value, formula, tuple(terms), float(result), summary, _dedupe(sources), combine)
