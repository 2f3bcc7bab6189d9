"""Explain one cell of a trace: the arithmetic that produced that exact number, term by term.

`explain(trace, step_id, index)` reads only the trace (its tensors, `parameters` and `options`)
and writes the computation of one cell out with the real numbers: a projection's dot product
plus bias, which projected column a head-split cell was cut from, q·k times the scale (or d2l's
w_v · tanh(W_q q + W_k k)), why a score was masked and by which fill, the softmax of a row, the
weighted sum of values, where a concat cell came from (TSL's `mix` quirk included), and the
extras: which mask cells make a row fully masked, which key ProbSparse drew and how often, its
sparsity measure and which queries it chose.  The window's explain panel and `python main.py
explain` both print what this returns, so that every number a student sees next to a cell is
the trace's own.

`result` is recombined from the terms in float64 (in `combine`'s order) and equals the trace's
value up to float rounding; `value` is the trace's number itself.  No torch import: a trace's
tensors are read through numpy (`Step.numpy()`), so traces read back from disk work too.

Every sentence comes from the catalogue (attention/words/explain.py, English and Chinese); only
notation that reads the same in both (``q[0]·k[0] = 1 × 2 = 2``) is built here.  Sentences name
positions counted from 1 ("query 3 against key 1 in head 2"); formulas and terms are code and
keep its indices from 0 (``scores[0,1,2,0]``), as `main.py explain STEP INDEX...` takes them.  Numbers are
written by `attention.numbers.rounded`, so a number reads as in the cell it explains.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from attention import numbers, words

if TYPE_CHECKING:  # the step records and the kinds reference this module's explainers: imported in the functions
    from attention.trace import Trace


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

    def text(self, lang: str = "en") -> str:
        """The whole explanation as printable lines: cell = value, formula, terms, result, summary."""
        from attention import step_registry

        lang = "zh" if lang == "zh" else "en"
        known = self.step_id in step_registry.BY_ID
        title = step_registry.title(self.step_id, self.scoring)[lang] if known else self.step_id
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


class ExplainError(ValueError):
    """A step id or index explain() cannot take; the message says what was expected."""


# ---- public entry points ---------------------------------------------------------------------

def explainable(trace: Trace) -> tuple[str, ...]:
    """The step ids explain() supports for this trace, in pipeline order, then extras."""
    from attention import step_registry

    return tuple(sid for sid in trace.ids if sid in step_registry.BY_ID)


def explain(trace: Trace, step_id: str, index: Sequence[int]) -> Explanation:
    """How the cell `trace[step_id][index]` was computed, with the trace's own numbers."""
    ok = explainable(trace)
    if step_id not in ok:
        raise ExplainError(f"step id: unknown or not explainable {step_id!r}; expected one of {', '.join(ok)}")
    step = trace[step_id]
    idx = _check_index(step_id, tuple(step.dims), tuple(step.numpy().shape), index)
    from attention import kinds, step_registry

    ctx = _Ctx(trace)
    # a modifier (sinks' weights) or the trace's scoring kind explains the cells it computes its own way;
    # else the step's record's explainer
    own = next(filter(None, (m.explain_cell(ctx, step_id, idx) for m in kinds.modifiers(ctx.opts)
                             if hasattr(m, "explain_cell"))), None)
    out = own or ctx.kind.explain_cell(ctx, step_id, idx) or step_registry.record(step_id).explain(ctx, step_id, idx)
    return dataclasses.replace(out, scoring=trace.options.get("scoring"))


def _check_index(step_id: str, dims: tuple[str, ...], shape: tuple[int, ...], index: Sequence[int]) -> tuple[int, ...]:
    try:
        idx = tuple(index)
    except TypeError:
        raise ExplainError(f"index: expected {len(shape)} whole numbers ({', '.join(dims)}), got {index!r}") from None
    if len(idx) != len(shape):
        raise ExplainError(
            f"index: {step_id} has {len(shape)} dims ({', '.join(dims)}) of sizes {list(shape)}; "
            f"expected {len(shape)} indices, got {len(idx)}")
    out = []
    for d, (i, n, name) in enumerate(zip(idx, shape, dims)):
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise ExplainError(f"index: dim {d} ({name}) expects a whole number, got {i!r}")
        if not 0 <= int(i) < n:
            raise ExplainError(f"index: dim {d} ({name}) has size {n}; expected 0 ... {n - 1}, got {int(i)}")
        out.append(int(i))
    return tuple(out)


# ---- reading the trace -------------------------------------------------------------------------

class _Ctx:
    """The trace's arrays as float64 numpy (bool and int arrays kept as they are)."""

    def __init__(self, trace: Trace):
        from attention import kinds

        self.trace = trace
        self.opts = trace.options
        self.kind = kinds.scoring(self.opts.get("scoring") or kinds.DEFAULT_SCORING)  # the trace's scoring kind

    def kv_head(self, h: int) -> int:
        """The key/value head query head h reads (grouped-query attention: h // (n_heads / n_kv_heads))."""
        H = int(self.opts.get("n_heads") or 1)
        kv = int(self.opts.get("n_kv_heads") or H)
        return h // (H // kv)

    def reads(self, step_id: str) -> str:
        """The step the scores read in place of `step_id` in this trace (RoPE's rotated q for
        head_split.query: the last step standing for it), or `step_id` itself."""
        from attention import step_registry

        return step_registry.read_as(step_id, self.trace.ids)

    def raw(self, step_id: str) -> np.ndarray:
        return self.trace[step_id].numpy()

    def a(self, step_id: str) -> "_View":
        return _View(self.raw(step_id))

    def has(self, step_id: str) -> bool:
        return step_id in self.trace

    def param(self, name: str) -> Optional[np.ndarray]:
        p = self.trace.parameters
        if "queries" not in p:
            raise ExplainError("trace: it holds no parameters (a trace read back from the start-up cache); "
                               "explain needs a freshly computed trace")
        t = p.get(name)
        if t is None:
            return None
        if hasattr(t, "detach"):
            t = t.detach().cpu().numpy()
        return _as64(np.asarray(t))

    def value(self, step_id: str, idx: tuple[int, ...]) -> float:
        return float(self.raw(step_id)[idx])

    @property
    def mask(self) -> Optional[np.ndarray]:
        return self.raw("extra.mask") if self.has("extra.mask") else None


class _View:
    """Indexing converts only the slice read to float64 (a big float32 trace is not copied whole)."""

    def __init__(self, a: np.ndarray):
        self._a = a

    def __getitem__(self, key) -> np.ndarray:
        return _as64(np.asarray(self._a[key]))


def _as64(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float64, copy=False) if a.dtype.kind == "f" else a


# ---- text helpers ------------------------------------------------------------------------------

def fmt(x: float) -> str:
    """A number in the text: `attention.numbers.rounded`, so it reads as in the cell it explains."""
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


# ---- projections ---------------------------------------------------------------------------------

_PROJ = {  # name -> (input ref, input symbol, weight symbol, bias symbol, output symbol)
    "query": ("queries", "X_q", "W_q", "b_q", "Q"),
    "key": ("keys", "X_k", "W_k", "b_k", "K"),
    "value": ("values", "X_v", "W_v", "b_v", "V"),
    "out": ("concat", "concat", "W_o", "b_o", "Y"),
}


def _projection(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    name = "out" if step_id == "output" else step_id.split(".", 1)[1]
    inp_ref, xs, ws, bs, ys = _PROJ[name]
    b, n, o = idx
    x = ctx.a(inp_ref)[b, n] if inp_ref == "concat" else ctx.param(inp_ref)[b, n]
    W = ctx.param(f"projection.{name}.weight")
    bias = ctx.param(f"projection.{name}.bias")
    value = ctx.value(step_id, idx)
    wref, bref = f"projection.{name}.weight", f"projection.{name}.bias"
    proj_name = _tx(f"explain.name.{name}")
    if W is None:
        term = Term(_same(f"{xs}[{b},{n},{o}] = {fmt(x[o])}"), float(x[o]), (Source(inp_ref, (b, n, o)),))
        return _explanation(
            step_id, idx, value, _tx("explain.proj.identity_formula", ys=ys, xs=xs, name=proj_name),
            [term], float(x[o]), _tx("explain.proj.identity_summary", name=proj_name, o=P(o)), _same(fmt(x[o])))
    terms = [Term(_same(f"{xs}[{i}]·{ws}[{o},{i}] = {fmt(x[i])} × {fmt(W[o, i])} = {fmt(x[i] * W[o, i])}"),
                  float(x[i] * W[o, i]), (Source(inp_ref, (b, n, i)), Source(wref, (o, i))),
                  factors=(float(x[i]), float(W[o, i])))
             for i in range(W.shape[1])]
    products = [t.value for t in terms]
    result = _fsum(products)
    if bias is not None:
        terms.append(Term(_tx("explain.proj.bias_term", bs=bs, o=o, v=fmt(bias[o])), float(bias[o]),
                          (Source(bref, (o,)),)))
        result += float(bias[o])
        combine = _same(f"{_sum_text(products)} + {fmt(bias[o])} = {fmt(result)}")
        note = _tx("explain.proj.plus_bias", bs=bs, o=o)
    else:
        combine = _tx("explain.proj.no_bias_combine", sum=_sum_text(products), result=fmt(result))
        note = _tx("explain.proj.no_bias")
    return _explanation(
        step_id, idx, value, _same(f"{ys}[{b},{n},{o}] = Σ_i {xs}[{b},{n},i] · {ws}[{o},i] + {bs}[{o}]"),
        terms, result, _tx("explain.proj.summary", n=P(n), b=P(b), o=P(o), name=proj_name, note=note), combine)


# ---- head split ----------------------------------------------------------------------------------

def _head_split(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    name = step_id.split(".", 1)[1]
    b, n, h, e = idx
    E = ctx.raw(step_id).shape[-1]
    col = h * E + e
    src = Source(f"projection.{name}", (b, n, col))
    v = ctx.value(f"projection.{name}", (b, n, col))
    value = ctx.value(step_id, idx)
    sym = _PROJ[name][4]
    term = Term(_same(f"{sym}[{b},{n},{col}] = {fmt(v)}"), v, (src,))
    return _explanation(
        step_id, idx, value, _same(f"{sym.lower()}[b,n,h,e] = {sym}[b,n,h·{E}+e]"), [term], v,
        _tx("explain.head_split.summary", h1=P(h), first=P(h * E), last=P(h * E + E - 1),
            name={"en": name, "zh": words.text(f"step.projection.{name}.title", "zh")}, e=P(e),
            col=P(col), E=E, h=h, e0=e, col0=col),
        _same(fmt(v)))


# ---- scores ------------------------------------------------------------------------------------

def _scores(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    """q · k times the scale (the dot-product kinds; a kind that scores otherwise explains its own)."""
    b, h, l, s = idx
    qid, kid = ctx.reads("head_split.query"), ctx.reads("head_split.key")  # rotated q, k when RoPE is on
    q = ctx.a(qid)[b, l, h]
    j = ctx.kv_head(h)  # the key head this query head reads (h itself unless heads share keys)
    k = ctx.a(kid)[b, s, j]
    scale = float(ctx.opts["scale"])
    terms = [Term(_same(f"q[{e}]·k[{e}] = {fmt(q[e])} × {fmt(k[e])} = {fmt(q[e] * k[e])}"),
                  float(q[e] * k[e]),
                  (Source(qid, (b, l, h, e)), Source(kid, (b, s, j, e))),
                  factors=(float(q[e]), float(k[e])))
             for e in range(q.shape[0])]
    dot = _fsum([t.value for t in terms])
    result = scale * dot
    if not ctx.kind.scaled and scale == 1.0:
        formula = _tx("explain.scores.dot_formula", b=b, h=h, l=l, s=s)
        why = _tx("explain.scores.dot_why")
    else:
        formula = _tx("explain.scores.formula", b=b, h=h, l=l, s=s)
        dk = len(q)
        if abs(scale - 1.0 / math.sqrt(dk)) < 1e-12 * max(1.0, scale):
            why = _tx("explain.scores.scale_auto", dk=dk)
        else:
            why = _tx("explain.scores.scale_set", scale=fmt(scale))
    sums = _sum_text([t.value for t in terms])
    return _explanation(
        step_id, idx, ctx.value(step_id, idx), formula, terms, result,
        _cat(_tx("explain.scores.summary", l=P(l), s=P(s), h1=P(h), b=P(b), why=why), _kv_group(ctx, h)),
        _same(f"{fmt(scale)} × ({sums}) = {fmt(scale)} × {fmt(dot)} = {fmt(result)}"))


def _kv_group(ctx: _Ctx, h: int) -> dict[str, str]:
    """Grouped-query / multi-query attention: which key/value head query head h reads, and the
    group of query heads sharing it ("" when every query head has its own)."""
    H = int(ctx.opts.get("n_heads") or 1)
    kv = int(ctx.opts.get("n_kv_heads") or H)
    if kv == H:
        return _same("")
    g, j = H // kv, ctx.kv_head(h)
    return _tx("explain.scores.kv_group", h1=P(h), j1=P(j), h=h, j=j, H=H, kv=kv, g=g,
               first=P(j * g), last=P(j * g + g - 1))


# ---- masks -------------------------------------------------------------------------------------

def _mask_reasons(ctx: _Ctx, b: int, l: int, s: int) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(why masked, why kept) for key s of query l in batch item b: each mask rule's reason."""
    from attention.kinds import mask_rules

    return mask_rules.reasons(ctx.opts, b, l, s)


def _masked_scores(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    from attention import step_registry

    b, h, l, s = idx
    value = ctx.value(step_id, idx)
    src = step_registry.read_as("scores", ctx.trace.ids, before=step_id)  # ALiBi's biased scores, a cap's ...
    score = ctx.value(src, idx)
    mask = ctx.mask
    if src != "scores":
        return _masked_read(ctx, step_id, idx, src, score, value)
    if mask is None:
        term = Term(_tx("explain.masked.score_term", b=b, h=h, l=l, s=s, v=fmt(score)), score, (Source("scores", idx),))
        return _explanation(step_id, idx, value, _tx("explain.masked.no_mask_formula"), [term], score,
                            _tx("explain.masked.no_mask_summary"), _same(fmt(score)))
    fill = float(ctx.opts["fill_value"])
    why_masked, why_kept = _mask_reasons(ctx, b, l, s)
    msrc = Source("extra.mask", (b, l, s))
    if bool(mask[b, l, s]):
        term = Term(_tx("explain.masked.fill_term", v=fmt(fill)), fill, (msrc,), masked=True)
        what = _tx("explain.masked.fill_d2l" if fill == -1e6 else
                   "explain.masked.fill_tsl" if fill == -math.inf else "explain.masked.fill_chosen")
        return _explanation(
            step_id, idx, value, _tx("explain.masked.masked_formula"), [term], fill,
            _tx("explain.masked.masked_summary", fill=fmt(fill), what=what, why=_joined(why_masked), score=fmt(score)),
            _same(fmt(fill)), (Source("scores", idx),))
    term = Term(_tx("explain.masked.score_term", b=b, h=h, l=l, s=s, v=fmt(score)), score,
                (Source("scores", idx), msrc))
    return _explanation(
        step_id, idx, value, _tx("explain.masked.kept_formula"), [term], score,
        _tx("explain.masked.kept_summary", why=_joined(why_kept)), _same(fmt(score)))


def _masked_read(ctx: _Ctx, step_id: str, idx: tuple[int, ...], src: str, score: float,
                 value: float) -> Explanation:
    """A masked score where the mask reads a step standing for the scores (ALiBi, a cap): as
    `_masked_scores`, the term naming that step."""
    b, h, l, s = idx
    mask = ctx.mask
    term_of = lambda *more: Term(_same(f"{src}[{b},{h},{l},{s}] = {fmt(score)}"), score,  # noqa: E731
                                 (Source(src, idx), *more))
    if mask is None:
        return _explanation(step_id, idx, value, _tx("explain.masked.no_mask_formula"), [term_of()], score,
                            _tx("explain.masked.no_mask_summary"), _same(fmt(score)))
    why_masked, why_kept = _mask_reasons(ctx, b, l, s)
    msrc = Source("extra.mask", (b, l, s))
    if bool(mask[b, l, s]):
        fill = float(ctx.opts["fill_value"])
        term = Term(_tx("explain.masked.fill_term", v=fmt(fill)), fill, (msrc,), masked=True)
        what = _tx("explain.masked.fill_d2l" if fill == -1e6 else
                   "explain.masked.fill_tsl" if fill == -math.inf else "explain.masked.fill_chosen")
        return _explanation(
            step_id, idx, value, _tx("explain.masked.masked_formula"), [term], fill,
            _tx("explain.masked.masked_summary", fill=fmt(fill), what=what, why=_joined(why_masked), score=fmt(score)),
            _same(fmt(fill)), (Source(src, idx),))
    return _explanation(step_id, idx, value, _tx("explain.masked.kept_formula"), [term_of(msrc)], score,
                        _tx("explain.masked.kept_summary", why=_joined(why_kept)), _same(fmt(score)))


# ---- softmax -----------------------------------------------------------------------------------

def lazy_weight_text(ctx: _Ctx, h: int, l: int, S: int) -> dict[str, str]:
    if ctx.opts.get("causal"):
        return _tx("explain.lazy.causal", l=P(l), h1=P(h))
    return _tx("explain.lazy.mean", l=P(l), h1=P(h), S=S)


def _weights(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, h, l, s = idx
    value = ctx.value(step_id, idx)
    S = ctx.raw(step_id).shape[-1]
    row = ctx.a("masked_scores")[b, h, l]
    mask = ctx.mask
    m = float(np.max(row))
    terms = []
    for j in range(S):
        x = float(row[j])
        with np.errstate(invalid="ignore", over="ignore"):
            e = float(np.exp(np.float64(x) - np.float64(m)))
        masked = bool(mask[b, l, j]) if mask is not None else False
        terms.append(Term(_same(f"j={j}: exp({fmt(x)} − {fmt(m)}) = {fmt(e)}"), e,
                          (Source("masked_scores", (b, h, l, j)),), masked=masked))
    exps = [t.value for t in terms]
    denom = _fsum(exps)
    result = exps[s] / denom if denom != 0 else math.nan
    full = mask is not None and bool(np.all(mask[b, l]))
    fill = float(ctx.opts.get("fill_value", -1e6))
    if full and math.isfinite(fill):
        summ = _tx("explain.weights.uniform", fill=fmt(fill), S=S)
    elif full:
        summ = _tx("explain.weights.nan")
    else:
        n_masked = sum(t.masked for t in terms)
        extra = _tx("explain.weights.masked_keys", n=n_masked) if n_masked else _same("")
        summ = _tx("explain.weights.summary", S=S, l=P(l), h1=P(h), m=fmt(m), extra=extra)
    return _explanation(
        step_id, idx, value, _tx("explain.weights.formula", b=b, h=h, l=l, s=s), terms, result, summ,
        _same(f"{fmt(exps[s])} / ({_sum_text(exps)}) = {fmt(exps[s])} / {fmt(denom)} = {fmt(result)}"))


# ---- weighted sum, concat ------------------------------------------------------------------------

def _weighted_sum(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, l, h, d = idx
    A = ctx.a("attention_weights")[b, h, l]
    hv = ctx.kv_head(h)  # the value head this query head reads
    v = ctx.a("head_split.value")[b, :, hv, d]
    mask = ctx.mask
    terms = []
    for j in range(A.shape[0]):
        p = float(A[j] * v[j])
        terms.append(Term(_same(f"a[{j}]·v[{j}] = {fmt(A[j])} × {fmt(v[j])} = {fmt(p)}"), p,
                          (Source("attention_weights", (b, h, l, j)), Source("head_split.value", (b, j, hv, d))),
                          masked=bool(mask[b, l, j]) if mask is not None else False,
                          factors=(float(A[j]), float(v[j]))))
    vals = [t.value for t in terms]
    result = _fsum(vals)
    if ctx.kind.lazy_row(ctx, b, h, l):
        summ = _tx("explain.lazy.terms_note", lazy=lazy_weight_text(ctx, h, l, A.shape[0]))
    else:
        summ = _tx("explain.weighted.summary", d=P(d), h1=P(h), l=P(l))
    return _explanation(
        step_id, idx, ctx.value(step_id, idx), _tx("explain.weighted.formula", b=b, l=l, h=h, d=d),
        terms, result, summ, _same(f"{_sum_text(vals)} = {fmt(result)}"))


def _concat(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, l, c = idx
    _, L, H, D = ctx.raw("weighted_sum").shape
    if ctx.opts.get("mix"):
        p = l * H * D + c  # position in the (H, L, D) block of batch b, read row-major
        h, rest = divmod(p, L * D)
        l_src, d = divmod(rest, D)
        summ = _tx("explain.concat.mix_moved" if l_src != l else "explain.concat.mix",
                   c=P(c), l=P(l), d=P(d), h1=P(h), src=P(l_src))
        formula = _tx("explain.concat.mix_formula")
    else:
        h, d = divmod(c, D)
        l_src = l
        summ = _tx("explain.concat.summary", c=P(c), D=D, h=h, d=P(d), h1=P(h), l=P(l), d0=d, c0=c)
        formula = _tx("explain.concat.formula", D=D)
    src = Source("weighted_sum", (b, l_src, h, d))
    v = ctx.value("weighted_sum", src.index)
    term = Term(_tx("explain.concat.term", b=b, l=l_src, h=h, d=d, v=fmt(v)), v, (src,))
    return _explanation(step_id, idx, ctx.value(step_id, idx), formula, [term], v, summ, _same(fmt(v)))


# ---- extras (the mask, ProbSparse's sample, sparsity measure and chosen queries) -----------------

def _sampled_scores(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, h, l, j = idx
    s = int(ctx.raw("extra.sample_index")[l, j])
    qid, kid = ctx.reads("head_split.query"), ctx.reads("head_split.key")
    q = ctx.a(qid)[b, l, h]
    k = ctx.a(kid)[b, s, h]
    terms = [Term(_same(f"q[{e}]·k[{e}] = {fmt(q[e])} × {fmt(k[e])} = {fmt(q[e] * k[e])}"),
                  float(q[e] * k[e]),
                  (Source(qid, (b, l, h, e)), Source(kid, (b, s, h, e))),
                  factors=(float(q[e]), float(k[e])))
             for e in range(q.shape[0])]
    vals = [t.value for t in terms]
    result = _fsum(vals)
    return _explanation(
        step_id, idx, ctx.value(step_id, idx), _tx("explain.sampled.formula", b=b, h=h, l=l, j=j, s=s),
        terms, result, _tx("explain.sampled.summary", j=P(j), l=P(l), s=P(s), h1=P(h)),
        _same(f"{_sum_text(vals)} = {fmt(result)}"), (Source("extra.sample_index", (l, j)),))


def _sparsity(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, h, l = idx
    row = ctx.a("extra.sampled_scores")[b, h, l]
    S = int(ctx.opts["S"])
    mx = float(np.max(row))
    terms = [Term(_tx("explain.sparsity.term", j=P(j), v=fmt(x)), float(x),
                  (Source("extra.sampled_scores", (b, h, l, j)),))
             for j, x in enumerate(row)]
    total = _fsum([t.value for t in terms])
    result = mx - total / S
    chosen = bool(ctx.raw("extra.selected")[b, h, l])
    return _explanation(
        step_id, idx, ctx.value(step_id, idx), _tx("explain.sparsity.formula", S=S), terms, result,
        _tx("explain.sparsity.chosen" if chosen else "explain.sparsity.left_out", l=P(l), h1=P(h)),
        _same(f"{fmt(mx)} − {fmt(total)} / {S} = {fmt(result)}"))


def _mask_cell(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, l, s = idx
    masked = bool(ctx.raw(step_id)[idx])
    why_masked, why_kept = _mask_reasons(ctx, b, l, s)
    v = 1.0 if masked else 0.0
    from attention import step_registry

    summ = (_tx("explain.mask_cell.masked", why=_joined(why_masked)) if masked
            else _tx("explain.mask_cell.kept", why=_joined(why_kept)))
    term = Term(_same(numbers.flag(masked)), v, masked=masked)
    return _explanation(step_id, idx, v, step_registry.formula("extra.mask"), [term], v, summ,
                        _same(numbers.flag(masked)))


def _fully_masked(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, l = idx
    row = ctx.raw("extra.mask")[b, l]
    S = len(row)
    terms = [Term(_same(f"mask[{b},{l},{s}] = {numbers.flag(m)}"), 1.0 if m else 0.0,
                  (Source("extra.mask", (b, l, s)),), masked=bool(m)) for s, m in enumerate(row)]
    full = bool(np.all(row))
    result = 1.0 if full else 0.0
    cells = _same(", ".join(numbers.flag(m) for m in row)) if S <= 12 else _tx("explain.n_cells", n=S)
    fill = float(ctx.opts.get("fill_value", -1e6))
    if full and math.isfinite(fill):
        summ = _tx("explain.fully.uniform", l=P(l), b=P(b), fill=fmt(fill), S=S)
    elif full:
        summ = _tx("explain.fully.nan", l=P(l), b=P(b))
    else:
        kept = [s for s, m in enumerate(row) if not m]
        shown = numbers.positions(kept[:6]) + (" …" if len(kept) > 6 else "")
        summ = _tx("explain.fully.partly", l=P(l), b=P(b), kept=len(kept), S=S, shown=shown)
    return _explanation(
        step_id, idx, ctx.value(step_id, idx), _tx("explain.fully.formula", b=b, l=l),
        terms, result, summ, _cat("all(", cells, f") = {numbers.flag(full)}"))


def _sample_index(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    l, j = idx
    L, n = ctx.raw(step_id).shape
    S, seed = int(ctx.opts["S"]), ctx.opts["seed"]
    s = int(ctx.raw(step_id)[idx])
    term = Term(_tx("explain.sample_index.term", j=P(j), l=P(l), s=P(s)), float(s))
    if ctx.opts.get("sample_recorded"):  # a sample recorded by attention.capture, not drawn from the seed
        return _explanation(
            step_id, idx, ctx.value(step_id, idx),
            _tx("capture.explain.recorded_formula", l=l, j=j, s=s), [term], float(s),
            _tx("capture.explain.recorded_summary", l=P(l), s=P(s), S=S, i=s), _same(str(s)))
    call = f"torch.randint({S}, ({L}, {n}), generator=torch.Generator().manual_seed({seed}))"
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _tx("explain.sample_index.formula", call=call, l=l, j=j, n=n, pos=l * n + j), [term], float(s),
        _tx("explain.sample_index.summary", s=P(s), S=S, i=s, seed=seed), _same(str(s)))


def _sample_count(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    l, s = idx
    draws = ctx.raw("extra.sample_index")[l]
    hits = [j for j, k in enumerate(draws) if int(k) == s]
    terms = [Term(_tx("explain.sample_count.term", jp=P(j), j=j, l=l, s=s), 1.0,
                  (Source("extra.sample_index", (l, j)),))
             for j in hits]
    count = float(len(hits))
    combine = _same(" + ".join("1" for _ in hits) + f" = {len(hits)}") if hits else _tx("explain.sample_count.never")
    return _explanation(
        step_id, idx, ctx.value(step_id, idx), _same(f"count[{l},{s}] = #{{j : sample_index[{l},j] = {s}}}"),
        terms, count, _tx("explain.sample_count.summary", l=P(l), n=len(draws), hits=len(hits), s=P(s)), combine)


def _cut(M: np.ndarray, top: np.ndarray) -> tuple[float, Optional[float]]:
    """The smallest chosen M, and the largest M left out (None when every query is chosen)."""
    chosen = np.zeros(len(M), dtype=bool)
    chosen[top.astype(int)] = True
    rest = M[~chosen]
    return float(M[chosen].min()), (float(rest.max()) if rest.size else None)


def _top_index(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, h, r = idx
    top = ctx.raw(step_id)[b, h]
    l = int(top[r])
    M = ctx.a("extra.sparsity")[b, h]
    rank = 1 + int(np.sum(M > M[l]))
    low, out = _cut(M, top)
    u, L = len(top), len(M)
    after = _tx("explain.top.left_out", m=fmt(out)) if out is not None else _tx("explain.top.all_chosen")
    term = Term(_tx("explain.top.term", l=P(l), m=fmt(M[l]), rank=rank, L=L), float(l),
                (Source("extra.sparsity", (b, h, l)),))
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _same(f"top_index[{b},{h},:] = topk(M[{b},{h},:], u = {u}, sorted=False).indices"),
        [term], float(l),
        _tx("explain.top.summary", r=P(r), h1=P(h), l=P(l), m=fmt(M[l]), rank=rank, L=L, u=u, low=fmt(low), next=after),
        _same(str(l)))


def _selected(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, h, l = idx
    top = ctx.raw("extra.top_index")[b, h]
    M = ctx.a("extra.sparsity")[b, h]
    low, _ = _cut(M, top)
    hits = [r for r, t in enumerate(top) if int(t) == l]
    terms = [Term(_same(f"top_index[{b},{h},{r}] = {l}"), 1.0, (Source("extra.top_index", (b, h, r)),)) for r in hits]
    chosen = bool(hits)
    listed = numbers.positions(int(t) for t in top[:12]) + (", …" if len(top) > 12 else "")
    if chosen:
        summ = _tx("explain.selected.active", l=P(l), r=P(hits[0]), h1=P(h), m=fmt(M[l]), low=fmt(low))
        combine = _same(f"{l} ∈ top_index[{b},{h},:] → {numbers.flag(True)}")
    else:
        summ = _tx("explain.selected.lazy", l=P(l), h1=P(h), listed=listed, m=fmt(M[l]), low=fmt(low))
        combine = _same(f"{l} ∉ top_index[{b},{h},:] → {numbers.flag(False)}")
    return _explanation(
        step_id, idx, ctx.value(step_id, idx), _same(f"selected[{b},{h},{l}] = ({l} ∈ top_index[{b},{h},:])"),
        terms, 1.0 if chosen else 0.0, summ, combine, (Source("extra.sparsity", (b, h, l)),))

