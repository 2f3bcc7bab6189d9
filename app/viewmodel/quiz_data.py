"""Quiz: a step whose numbers are hidden ("?"), and the check of a typed answer.  Qt-free.

The hidden pane is built from flat numbers (every cell 0, so the colours say nothing) and keeps
no value it does not show: only the cells a student asked to reveal carry their text.  NaN
("not computed") stays NaN: that a ProbSparse row was never computed is structure, not an answer.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

import numpy as np

from app.viewmodel import cell_format
from app.viewmodel.pane_data import PaneData
from attention import words
from attention.registry import step_registry

HIDDEN = "?"
DEFAULT_TOLERANCE = 0.01

def text(key: str, lang: str, **kw) -> str:
    """The quiz's words (``quiz.<key>`` in attention/words/teaching.py) in `lang`."""
    return words.text(f"quiz.{key}", lang, **kw)


@dataclass(frozen=True)
class QuizPaneData(PaneData):
    """A step with its numbers hidden; `revealed` maps (m, r, c) -> (cell text, {lang: exact value
    phrase}) for the cells shown on request."""

    revealed: dict = field(default_factory=dict)
    hides_values = True  # StepPane hides the colour bar (its ends would tell the range)

    def cell_text(self, m: int, r: int, c: int, digits: int = 4) -> str:
        shown = self.revealed.get((m, r, c))
        if shown is not None:
            return shown[0]
        return self.nan_label if np.isnan(self.block[m, r, c]) else HIDDEN

    def cell_texts(self, m: int, digits: int = 4) -> list[str]:
        rows, cols = self.block.shape[1:]
        return [self.cell_text(m, r, c, digits) for r in range(rows) for c in range(cols)]

    def value_phrase(self, m: int, r: int, c: int, lang: str) -> str:
        shown = self.revealed.get((m, r, c))
        if shown is not None:
            return shown[1].get(lang, shown[1]["en"])
        if np.isnan(self.block[m, r, c]):
            return super().value_phrase(m, r, c, lang)
        return text("hidden", lang)


def hidden_pane(data: PaneData, revealed: set) -> QuizPaneData:
    """`data` with every number hidden except the cells in `revealed` ({(m, r, c)})."""
    nan = np.isnan(data.block) if data.block.dtype.kind == "f" else np.zeros(data.block.shape, bool)
    flat = np.where(nan, np.nan, 0.0)
    shown = {}
    for m, r, c in revealed:
        if m < data.block.shape[0] and r < data.block.shape[1] and c < data.block.shape[2]:
            shown[(m, r, c)] = (data.cell_text(m, r, c), {lg: data.value_phrase(m, r, c, lg) for lg in words.LANGS})
    layout = dataclasses.replace(data.layout, kind="signed")  # flat 0: the neutral middle colour
    return QuizPaneData(layout, data.step, data.batch, flat, data.masked, data.mask_style, data.nan_label,
                        data.value_axis, data.fill_value, revealed=shown)


@dataclass(frozen=True)
class Verdict:
    right: Optional[bool]  # None: the answer could not be read (nothing changes)
    message: dict  # {"en", "zh"}


def _both(key: str, **kw) -> dict:
    return {lang: text(key, lang, **kw) for lang in words.LANGS}


def parse_number(answer: str) -> Optional[float]:
    """A decimal, scientific or simple fraction ("1/3": paper answers), else None."""
    s = answer.strip().replace("−", "-").replace("，", ".").replace(",", ".")
    try:
        value = float(Fraction(s)) if "/" in s else float(s)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def _infinity(answer: str) -> Optional[float]:
    s = answer.strip().replace("−", "-").lower()
    if s in ("-inf", "-infinity", "-∞"):
        return -math.inf
    if s in ("inf", "+inf", "infinity", "∞"):
        return math.inf
    return parse_number(s)


def check_answer(answer: str, value: float, tolerance: float, is_bool: bool = False) -> Verdict:
    """Right when |answer − value| ≤ tolerance, or ≤ tolerance · |value| (so 0.01 means a
    hundredth for small numbers and 1 % for large ones, e.g. a −1e6 fill)."""
    s = answer.strip()
    if not s:
        return Verdict(None, _both("empty"))
    if is_bool:
        truth = {"true": True, "t": True, "1": True, "yes": True, "是": True, "真": True,
                 "false": False, "f": False, "0": False, "no": False, "否": False, "假": False}
        got = truth.get(s.lower())
        if got is None:
            return Verdict(None, _both("not_bool", text=s))
        return Verdict(got == bool(value), _both("right_bool" if got == bool(value) else "wrong_bool"))
    if math.isnan(value):
        return Verdict(None, _both("no_value"))
    got = parse_number(s) if math.isfinite(value) else _infinity(s)
    if got is not None and not math.isfinite(value):  # a -inf fill: only -inf is right
        return Verdict(got == value,
                       _both("right" if got == value else "wrong", answer=s, tol=cell_format.exact(tolerance)))
    if got is None:
        return Verdict(None, _both("not_number", text=s))
    err = abs(got - value)
    right = err <= tolerance or err <= tolerance * abs(value)
    tol = cell_format.exact(tolerance)
    return Verdict(right, _both("right" if right else "wrong", answer=s, tol=tol))


# ---- steps that repeat the hidden numbers --------------------------------------------------------
#: a repeat counts when at least this share of the hidden step's finite numbers can be read off
#: another tensor in any arrangement (a reshape, a transpose: the same multiset of numbers) ...
SAME_NUMBERS_SHARE = 0.9
#: ... or, for a tensor of the same shape, at least this share of its informative cells (not 0,
#: not ±1: those a student guesses anyway) sits at the same place (scores vs masked scores)
SAME_PLACE_SHARE = 0.5
#: significant digits two numbers must share to count as the same number
DIGITS = 9

#: the pipeline's links (input, step, reason), each with what makes its two ends hold the same
#: numbers when they do (a reason id: quiz.reason.<id> in attention/words/teaching.py): each step
#: record's `repeats` (attention/registry/step_registry.py)
_OWN_LINKS = tuple((source, rec.id, reason) for rec in step_registry.RECORDS for source, reason in rec.repeats)
#: ... and a step standing for another (ALiBi's biased scores for the scores) feeds what that one fed
LINKS: tuple[tuple[str, str, str], ...] = _OWN_LINKS + tuple(
    (rec.id, step, reason) for rec in step_registry.RECORDS if rec.stands_for
    for source, step, reason in _OWN_LINKS if source == rec.stands_for)
#: links that only rearrange numbers: named only when nothing else explains a repeat
REARRANGE = ("split", "concat")


@dataclass(frozen=True)
class Repeat:
    """Another tensor a student could read (some of) the hidden numbers off."""

    ref: str  # a step id, or an input / parameter name ("queries", "projection.out.weight")
    reasons: tuple[str, ...]  # reason ids along the pipeline from the hidden step to `ref`
    share: float  # the share of the hidden step's numbers it repeats (0..1]

    def reason_text(self, lang: str) -> str:
        parts = [text(f"reason.{r}", lang) for r in self.reasons] or [text("reason.same", lang)]
        return text("reason_join", lang).join(parts)


def _rounded(a: np.ndarray) -> np.ndarray:
    """Finite values of `a`, rounded to DIGITS significant digits (so 0.1 + 0.2 is 0.3)."""
    a = np.asarray(a, dtype=np.float64).ravel()
    a = a[np.isfinite(a)]
    with np.errstate(divide="ignore"):
        mag = np.where(a == 0, 0, np.floor(np.log10(np.abs(np.where(a == 0, 1, a)))))
    scale = 10.0 ** (DIGITS - 1 - mag)
    return np.round(a * scale) / scale


def _multiset_share(hidden: np.ndarray, other: np.ndarray) -> float:
    """The share of `hidden`'s finite numbers found in `other`, each number used once."""
    h, o = _rounded(hidden), _rounded(other)
    if h.size == 0:
        return 0.0
    hv, hc = np.unique(h, return_counts=True)
    ov, oc = np.unique(o, return_counts=True)
    _, hi, oi = np.intersect1d(hv, ov, assume_unique=True, return_indices=True)
    return float(np.minimum(hc[hi], oc[oi]).sum()) / h.size


def _informative(a: np.ndarray) -> np.ndarray:
    return np.isfinite(a) & (a != 0) & (np.abs(a) != 1)


def repeat_share(hidden: np.ndarray, other: np.ndarray) -> float:
    """How much of `hidden` a student can read off `other` (0 when it does not count as a repeat).

    Two ways to repeat: the same multiset of numbers in any arrangement (head split, concat,
    V = I, W = I), or, at the same shape, the same numbers at the same places for most
    informative cells (masked scores keep the unmasked scores).  Tensors of different sizes,
    and hidden steps holding nothing but 0 and ±1, never count."""
    hidden = np.asarray(hidden, dtype=np.float64)
    other = np.asarray(other, dtype=np.float64)
    if hidden.size != other.size or hidden.size == 0 or not _informative(hidden).any():
        return 0.0
    return _share(hidden, other)


def _share(hidden: np.ndarray, other: np.ndarray) -> float:
    """repeat_share once the sizes match and `hidden` has informative numbers."""
    place = 0.0
    # the same places: on an evenly spread sample first (the same positions in both), then in full
    if hidden.shape == other.shape and _same_places(_sample(hidden), _sample(other)) >= SAME_PLACE_SHARE - 0.1:
        place = _same_places(hidden, other)
    if place >= SAME_NUMBERS_SHARE:  # the same numbers at the same places: no need to sort
        return place
    if _could_share(hidden, other):
        share = _multiset_share(hidden, other)
        if share >= SAME_NUMBERS_SHARE:
            return max(share, place if place >= SAME_PLACE_SHARE else 0.0)
    return place if place >= SAME_PLACE_SHARE else 0.0


def _same_places(hidden: np.ndarray, other: np.ndarray) -> float:
    inf = _informative(hidden)
    n = int(inf.sum())
    if n == 0:
        return 0.0
    with np.errstate(invalid="ignore"):
        same = inf & np.isclose(hidden, other, rtol=10.0 ** (1 - DIGITS), atol=0.0)
    return float(same.sum()) / n


#: quantile levels compared by `_could_share`, and how far (in rank) they may move
LEVELS = np.array([0.2, 0.35, 0.5, 0.65, 0.8])
RANK_SLACK = 0.15
#: `_could_share` reads at most about this many numbers of a big tensor (quantiles of an evenly
#: spread sample move by well under RANK_SLACK)
SAMPLE = 1 << 16


def _sample(a: np.ndarray) -> np.ndarray:
    flat = a.ravel()
    if flat.size <= SAMPLE:
        return flat
    stride = flat.size // SAMPLE | 1  # odd: not in step with a row length that is a power of two
    return flat[::stride]


def _could_share(hidden: np.ndarray, other: np.ndarray) -> bool:
    """A quick necessary condition for `_multiset_share` ≥ SAME_NUMBERS_SHARE, in linear time
    (np.quantile partitions, it does not sort): when 90 % of the numbers are the same, each
    quantile of `hidden` lies between `other`'s quantiles a little below and above its rank.
    Scores vs weights of a 512-token trace are told apart in milliseconds instead of seconds."""
    h, o = _sample(hidden), _sample(other)
    h, o = h[np.isfinite(h)], o[np.isfinite(o)]
    if h.size == 0 or o.size == 0:
        return False
    hq = np.quantile(h, LEVELS)
    lo = np.quantile(o, np.clip(LEVELS - RANK_SLACK, 0, 1))
    hi = np.quantile(o, np.clip(LEVELS + RANK_SLACK, 0, 1))
    eps = 1e-6 * (np.abs(hq) + 1)
    return bool(np.all(lo - eps <= hq) and np.all(hq <= hi + eps))


def _path(a: str, b: str) -> Optional[list[str]]:
    """Reason ids along the pipeline from `a` down to `b`, or from `a` up to `b` (breadth first
    over LINKS); None when neither is downstream of the other: then two branches merely hold
    the same numbers (the queries equal the keys), which no step between them explains."""
    for down in (True, False):
        nbrs: dict[str, list[tuple[str, str]]] = {}
        for x, y, why in LINKS:
            src, dst = (x, y) if down else (y, x)
            nbrs.setdefault(src, []).append((dst, why))
        seen, frontier = {a}, [(a, [])]
        while frontier:
            nxt = []
            for node, whys in frontier:
                if node == b:
                    return whys
                for other, why in nbrs.get(node, ()):
                    if other not in seen:
                        seen.add(other)
                        nxt.append((other, whys + [why]))
            frontier = nxt
    return None


def _reasons(hidden: str, ref: str) -> tuple[str, ...]:
    path = _path(hidden, ref)
    if path is None:
        return ()
    named = [w for w in path if w not in REARRANGE]
    return tuple(dict.fromkeys(named or path))


def _as_array(value) -> Optional[np.ndarray]:
    """A trace step's or parameter's numbers as float64 numpy (None for what has none)."""
    if isinstance(value, np.ndarray):
        a = value
    else:
        try:
            a = value.detach().cpu().double().numpy()  # a torch tensor (no torch import needed)
        except (AttributeError, RuntimeError, TypeError):
            return None
    return a.astype(np.float64) if a.dtype.kind == "f" else None


def repeats_of(trace, step_id: str) -> list[Repeat]:
    """Every other step, input or parameter of `trace` that repeats the numbers of `step_id`,
    in trace order (steps first).  Qt-free: the quiz, the slides and worksheets all ask here."""
    if step_id not in trace:
        return []
    hidden = _as_array(trace.array(step_id))
    if hidden is None:
        return []
    if not _informative(hidden).any():
        return []
    candidates: list[tuple[str, object]] = [(s, trace.array(s)) for s in trace.ids if s != step_id]
    candidates += [(name, value) for name, value in (trace.parameters or {}).items() if name not in trace]
    out = []
    for ref, value in candidates:
        if getattr(value, "dtype", None) is None or int(np.prod(getattr(value, "shape", ()))) != hidden.size:
            continue  # another size (checked before converting: a big tensor is not copied for nothing)
        other = _as_array(value)
        if other is None:
            continue
        share = _share(hidden, other)
        if share > 0:
            out.append(Repeat(ref, _reasons(step_id, ref), share))
    return out


@dataclass(frozen=True)
class QuizPlan:
    """What a quiz hides: the chosen steps, the other steps hidden with them because they repeat
    their numbers (step id -> (the chosen step it repeats, Repeat)), and the inputs or
    parameters that repeat them, which cannot be hidden (only named on screen)."""

    chosen: tuple[str, ...]
    covered: dict = field(default_factory=dict)
    exposed: dict = field(default_factory=dict)

    def hides(self, step_id: str) -> bool:
        return step_id in self.chosen or step_id in self.covered

    def note(self, trace, lang: str, instruction: bool = True) -> str:
        """What the screen says while this plan hides steps: how to answer, and why other steps
        are hidden as well or which inputs give the answer away."""
        if not self.chosen:
            return ""
        lines = []
        titles = ", ".join(f"“{trace[s].title[lang]}”" for s in self.chosen if s in trace)
        lines.append(text("instruction" if instruction else "hidden_steps", lang, steps=titles))
        if self.covered:  # one sentence for them all: the bar stays short on a projector
            steps = ", ".join(f"“{trace[sid].title[lang]}”" for sid in self.covered)
            reasons = tuple(dict.fromkeys(r for _, rep in self.covered.values() for r in rep.reasons))
            lines.append(text("covered_all", lang, steps=steps, why=Repeat("", reasons, 1.0).reason_text(lang)))
        for ref, (of, rep) in self.exposed.items():
            lines.append(text("exposed", lang, ref=_ref_name(ref, lang), of=trace[of].title[lang],
                              why=rep.reason_text(lang)))
        return "\n".join(lines)

    def covered_note(self, trace, step_id: str, lang: str, key: str = "covered") -> str:
        """One sentence for a pane hidden because it repeats a chosen step ("" for others);
        `key` "blank_too" words it for a worksheet."""
        if step_id not in self.covered:
            return ""
        of, rep = self.covered[step_id]
        return text(key, lang, step=trace[step_id].title[lang], of=trace[of].title[lang],
                    why=rep.reason_text(lang))


def _ref_name(ref: str, lang: str) -> str:
    key = f"ref.{ref}"
    return text(key, lang) if words.has(f"quiz.{key}") else ref


def plan(trace, chosen) -> QuizPlan:
    """The plan for hiding `chosen` step ids (absent ones are left out) in `trace`."""
    chosen = tuple(s for s in dict.fromkeys(chosen) if s in trace)
    covered: dict = {}
    exposed: dict = {}
    for sid in chosen:
        for rep in repeats_of(trace, sid):
            if rep.ref in chosen:
                continue
            target = covered if rep.ref in trace else exposed
            target.setdefault(rep.ref, (sid, rep))
        rec = step_registry.BY_ID.get(sid)
        for ref, why in rec.gives_away if rec is not None else ():  # worked out from another step (a sink's mass)
            if ref in trace and ref not in chosen:
                covered.setdefault(ref, (sid, Repeat(ref, (why,), 1.0)))
    return QuizPlan(chosen, covered, exposed)
