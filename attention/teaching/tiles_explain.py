"""Explain one running value of FlashAttention's tiles: the arithmetic of its update, real numbers.

`explain_running(result, order, what, b, h, row, col=0)` takes a walk from attention/teaching/tiles.py and
writes out how the running maximum m, the running sum l or one cell of the running output O of
query `row` changed at tile `order`:

    m_new = max(m_old, s_1, ..., s_bc)
    l_new = exp(m_old - m_new) * l_old + sum_j exp(s_j - m_new)
    O_new = exp(m_old - m_new) * O_old + sum_j exp(s_j - m_new) * v_j

`result` recombines the printed terms in float64 and equals `value` (the walk's own number) up to
rounding; after the last key block of the row the explanation also gives O / l beside the
engine's weighted sum.  Sentences come from the catalogue (attention/words/tiles.py, English and
Chinese), positions in them counted from 1; the arithmetic itself reads the same in both.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import attention.words as words
from attention.datamodel import numbers
from attention.teaching.tiles import Tiled, TilesError

WHAT = ("m", "l", "O")


@dataclass(frozen=True)
class RunningExplanation:
    what: str  # "m", "l" or "O"
    name: dict[str, str]  # {lang: what the value is}
    formula: dict[str, str]
    terms: tuple[dict[str, str], ...]  # one printed line each, {lang: text}
    combine: str  # the terms put together, with numbers (reads the same in every language)
    summary: dict[str, str]
    value: float  # the walk's own number
    result: float  # recombined from the terms in float64

    def text(self, lang: str = "en") -> str:
        lang = "zh" if lang == "zh" else "en"
        lines = [f"{self.name[lang]} = {numbers.rounded(self.value)}", f"  {self.formula[lang]}"]
        lines += [f"    {t[lang]}" for t in self.terms]
        if self.combine:
            lines.append(f"  = {self.combine}")
        if self.summary.get(lang):
            lines.append(f"  {self.summary[lang]}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        from attention.files.trace_json import number

        return {"what": self.what, "name": dict(self.name), "formula": dict(self.formula),
                "terms": [dict(t) for t in self.terms], "combine": self.combine, "summary": dict(self.summary),
                "value": number(self.value), "result": number(self.result)}


def _both(key: str, **args) -> dict[str, str]:
    return {lang: words.text(key, lang, **args) for lang in words.LANGS}


def _r(x: float) -> str:
    return numbers.rounded(float(x))


def _minus(a: float, b: float) -> str:
    """'a − b' with a negative b in brackets: exp(-1e6 − (-1e6)), never exp(-1e6 − -1e6)."""
    right = _r(b)
    return f"{_r(a)} − ({right})" if right.startswith("-") else f"{_r(a)} − {right}"


def _check(name: str, value: int, n: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= int(value) < n:
        raise TilesError("tiles.explain.bad_index", field=name, last=n - 1, got=repr(value))
    return int(value)


def explain_running(result: Tiled, order: int, what: str, b: int, h: int, row: int, col: int = 0) -> RunningExplanation:
    """How `what` ("m", "l" or "O") of query `row` (batch item b, head h; all from 0) was updated
    at tile `order` of the walk (and, for O, its column `col`)."""
    if what not in WHAT:
        raise TilesError("tiles.explain.bad_what", got=repr(what))
    B, H, L, S, D = result.shape
    order = _check("tile", order, len(result.tiles))
    tile = result.tiles[order]
    b, h = _check("batch", b, B), _check("head", h, H)
    r = _check("row", row, L)
    if not tile.rows[0] <= r < tile.rows[1]:
        raise TilesError("tiles.explain.bad_index", field="row", last=f"{tile.rows[0]} … {tile.rows[1] - 1}",
                         got=repr(row))
    col = _check("col", col, D) if what == "O" else 0
    i = r - tile.rows[0]
    where = {"r": r + 1, "i": tile.q_block + 1, "j": tile.k_block + 1, "d": col + 1}
    name = _both(f"tiles.explain.{what}.name", **where)
    formula = _both(f"tiles.explain.{what}.formula")
    new = {"m": tile.m_new, "l": tile.l_new, "O": tile.O_new}[what][b, h, i]
    value = float(new[col] if what == "O" else new)
    if tile.skipped[b, h]:
        return RunningExplanation(what, name, formula, (_both("tiles.explain.skipped", value=_r(value)),), "", {},
                                  value, value)
    last_key = tile.cols[1]
    build = {"m": _m, "l": _l, "O": _o}[what]
    terms, combine, result_value = build(result, tile, b, h, i, col)
    summary = _both(f"tiles.explain.{what}.summary", r=r + 1, last=last_key, value=_r(value))
    if what == "O" and tile.k_block == result.n_k - 1:
        out, exact = result.output[b, h, r, col], result.exact[b, h, r, col]
        final = _both("tiles.explain.final", O=_r(value), l=_r(tile.l_new[b, h, i]), out=_r(out), exact=_r(exact))
        summary = {lang: summary[lang] + (" " if lang == "en" else "") + final[lang] for lang in summary}
    return RunningExplanation(what, name, formula, tuple(terms), combine, summary, value, result_value)


def _old(what: str, tile, b: int, h: int, i: int, col: int) -> list[dict[str, str]]:
    """The line saying what the values were before this tile."""
    if tile.k_block == 0:
        return [_both("tiles.explain.first")]
    return [_both(f"tiles.explain.old.{what}", m=_r(tile.m_old[b, h, i]), l=_r(tile.l_old[b, h, i]),
                  o=_r(tile.O_old[b, h, i, col]))]


def _keys(result: Tiled, tile, b: int, h: int, i: int) -> list[dict[str, str]]:
    """One line per key of the tile: its score, or that it is masked and holds the fill."""
    lines = []
    for j, s in enumerate(range(*tile.cols)):
        score = _r(tile.scores[b, h, i, j])
        key = "tiles.explain.key_masked" if tile.masked[b, i, j] else "tiles.explain.key_score"
        lines.append(_both(key, s=s + 1, score=score))
    return lines


def _m(result: Tiled, tile, b: int, h: int, i: int, col: int) -> tuple[list, str, float]:
    m_old = float(tile.m_old[b, h, i])
    scores = [float(x) for x in tile.scores[b, h, i]]
    value = max([m_old, *scores])
    combine = f"max({', '.join(_r(x) for x in [m_old, *scores])}) = {_r(value)}"
    return _old("m", tile, b, h, i, col) + _keys(result, tile, b, h, i), combine, value


def _exponentials(tile, b: int, h: int, i: int) -> tuple[list[dict[str, str]], float, list[float]]:
    """The correction line and, per key, exp(s - m_new) with its numbers; the kernel's guard
    (subtract 0 when every score so far is -inf) said where it applies."""
    m_old, m_new = float(tile.m_old[b, h, i]), float(tile.m_new[b, h, i])
    base = m_new if math.isfinite(m_new) else 0.0
    corr = float(tile.correction[b, h, i])
    lines = []
    if not math.isfinite(m_new):
        lines.append(_both("tiles.explain.guard"))
    lines.append(_both("tiles.explain.correction", diff=_minus(m_old, base), c=_r(corr)))
    ps = [float(p) for p in tile.p[b, h, i]]
    for j, (s, p) in enumerate(zip(tile.scores[b, h, i], ps)):
        key = "tiles.explain.key_exp_masked" if tile.masked[b, i, j] else "tiles.explain.key_exp"
        lines.append(_both(key, s=tile.cols[0] + j + 1, diff=_minus(s, base), p=_r(p)))
    return lines, corr, ps


def _l(result: Tiled, tile, b: int, h: int, i: int, col: int) -> tuple[list, str, float]:
    lines, corr, ps = _exponentials(tile, b, h, i)
    l_old = float(tile.l_old[b, h, i])
    value = corr * l_old + math.fsum(ps)
    combine = f"{_r(corr)} × {_r(l_old)} + ({' + '.join(_r(p) for p in ps)}) = {_r(value)}"
    return _old("l", tile, b, h, i, col) + lines, combine, value


def _o(result: Tiled, tile, b: int, h: int, i: int, col: int) -> tuple[list, str, float]:
    lines, corr, ps = _exponentials(tile, b, h, i)
    O_old = float(tile.O_old[b, h, i, col])
    v = [float(x) for x in result.values[b, h, tile.cols[0]:tile.cols[1], col]]
    value = corr * O_old + math.fsum(p * x for p, x in zip(ps, v))
    products = " + ".join(f"{_r(p)} × {_r(x)}" for p, x in zip(ps, v))
    combine = f"{_r(corr)} × {_r(O_old)} + ({products}) = {_r(value)}"
    return _old("O", tile, b, h, i, col) + lines, combine, value
