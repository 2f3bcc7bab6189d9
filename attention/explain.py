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
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np

from attention import step_registry
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
    combine: dict[str, str] = field(default_factory=lambda: {"en": "", "zh": ""})  # how the terms give `result`, with numbers

    def text(self, lang: str = "en") -> str:
        """The whole explanation as printable lines: cell = value, formula, terms, result, summary."""
        lang = "zh" if lang == "zh" else "en"
        title = step_registry.title(self.step_id)[lang] if self.step_id in step_registry.BY_ID else self.step_id
        where = ", ".join(str(i) for i in self.index)
        lines = [f"{title}: {self.step_id}[{where}] = {_value_text(self.step_id, self.value)}", f"  {self.formula[lang]}"]
        masked_word = " (masked)" if lang == "en" else "（已掩蔽）"
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
    return tuple(sid for sid in trace.ids if sid in step_registry.BY_ID)


def explain(trace: Trace, step_id: str, index: Sequence[int]) -> Explanation:
    """How the cell `trace[step_id][index]` was computed, with the trace's own numbers."""
    ok = explainable(trace)
    if step_id not in ok:
        raise ExplainError(f"step id: unknown or not explainable {step_id!r}; expected one of {', '.join(ok)}")
    step = trace[step_id]
    idx = _check_index(step_id, tuple(step.dims), tuple(step.numpy().shape), index)
    ctx = _Ctx(trace)
    # the step's record names its explainer, one of the functions below (attention/step_registry.py)
    explainer: Callable[[_Ctx, str, tuple[int, ...]], Explanation] = globals()[step_registry.record(step_id).explain]
    return explainer(ctx, step_id, idx)


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
        self.trace = trace
        self.opts = trace.options

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
    """A number for the text: 4 decimals, or 4 significant digits when very large or small."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "-∞" if x < 0 else "∞"
    if x != 0 and (abs(x) >= 1e5 or abs(x) < 1e-4):
        return f"{x:.4g}"
    return f"{x:.4f}"


#: steps whose cells are whole numbers (indices, counts) or flags: printed as such, not as 15.0000
_WHOLE = ("extra.sample_index", "extra.sample_count", "extra.top_index")
_FLAGS = ("extra.mask", "extra.fully_masked", "extra.selected")


def _value_text(step_id: str, value: float) -> str:
    if step_id in _FLAGS:
        return "True" if value else "False"
    if step_id in _WHOLE and float(value).is_integer():
        return str(int(value))
    return fmt(value)


def _tx(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


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
    """1.0000 − 0.5000 + 2.0000: a minus sign instead of "+ -"."""
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
    if W is None:
        term = Term(_tx(f"{xs}[{b},{n},{o}] = {fmt(x[o])}", f"{xs}[{b},{n},{o}] = {fmt(x[o])}"),
                    float(x[o]), (Source(inp_ref, (b, n, o)),))
        return _explanation(
            step_id, idx, value,
            _tx(f"{ys}[b,n,o] = {xs}[b,n,o] (no {name} projection: identity)", f"{ys}[b,n,o] = {xs}[b,n,o]（无{_ZH_NAME[name]}投影：恒等）"),
            [term], float(x[o]),
            _tx(f"No {name} projection weight is given, so this cell is input column {o} copied unchanged (as d2l's scoring functions).",
                f"未给出{_ZH_NAME[name]}投影权重，所以此单元格就是输入第 {o} 列，原样复制（同 d2l 的打分函数）。"),
            _tx(fmt(x[o]), fmt(x[o])))
    terms = [Term(_tx(f"{xs}[{i}]·{ws}[{o},{i}] = {fmt(x[i])} × {fmt(W[o, i])} = {fmt(x[i] * W[o, i])}",
                      f"{xs}[{i}]·{ws}[{o},{i}] = {fmt(x[i])} × {fmt(W[o, i])} = {fmt(x[i] * W[o, i])}"),
                  float(x[i] * W[o, i]), (Source(inp_ref, (b, n, i)), Source(wref, (o, i))),
                  factors=(float(x[i]), float(W[o, i])))
             for i in range(W.shape[1])]
    products = [t.value for t in terms]
    result = _fsum(products)
    if bias is not None:
        terms.append(Term(_tx(f"bias {bs}[{o}] = {fmt(bias[o])}", f"偏置 {bs}[{o}] = {fmt(bias[o])}"),
                          float(bias[o]), (Source(bref, (o,)),)))
        result += float(bias[o])
        combine = _tx(f"{_sum_text(products)} + {fmt(bias[o])} = {fmt(result)}",
                      f"{_sum_text(products)} + {fmt(bias[o])} = {fmt(result)}")
        note_en, note_zh = f"plus bias {bs}[{o}]", f"加上偏置 {bs}[{o}]"
    else:
        combine = _tx(f"{_sum_text(products)} = {fmt(result)} (no bias)", f"{_sum_text(products)} = {fmt(result)}（无偏置）")
        note_en, note_zh = "no bias (the projection has none)", "无偏置（该投影没有偏置）"
    return _explanation(
        step_id, idx, value,
        _tx(f"{ys}[{b},{n},{o}] = Σ_i {xs}[{b},{n},i] · {ws}[{o},i] + {bs}[{o}]",
            f"{ys}[{b},{n},{o}] = Σ_i {xs}[{b},{n},i] · {ws}[{o},i] + {bs}[{o}]"),
        terms, result,
        _tx(f"Row {n} of the input (batch {b}) dotted with row {o} of the {name} weight, {note_en}.",
            f"输入第 {n} 行（批次 {b}）与{_ZH_NAME[name]}投影权重第 {o} 行的点积，{note_zh}。"),
        combine)


_ZH_NAME = {"query": "查询", "key": "键", "value": "值", "out": "输出"}


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
    term = Term(_tx(f"{sym}[{b},{n},{col}] = {fmt(v)}", f"{sym}[{b},{n},{col}] = {fmt(v)}"), v, (src,))
    return _explanation(
        step_id, idx, value,
        _tx(f"{sym.lower()}[b,n,h,e] = {sym}[b,n,h·{E}+e]", f"{sym.lower()}[b,n,h,e] = {sym}[b,n,h·{E}+e]"),
        [term], v,
        _tx(f"Head {h + 1} owns columns {h * E} … {h * E + E - 1} of projection.{name}; element {e} of it is column {col} = h·{E}+e with index h = {h}, copied (a view, nothing computed).",
            f"第 {h + 1} 头拥有 projection.{name} 的第 {h * E} … {h * E + E - 1} 列；其第 {e} 个元素就是第 {col} = h·{E}+e 列（下标 h = {h}），原样复制（只是 view，不做计算）。"),
        _tx(fmt(v), fmt(v)))


# ---- scores ------------------------------------------------------------------------------------

def _not_computed(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Optional[Explanation]:
    """ProbSparse: a score of a query that was not selected was never computed (NaN)."""
    if ctx.opts.get("scoring") != "prob_sparse":
        return None
    b, h, l, s = idx
    if bool(ctx.raw("extra.selected")[b, h, l]):
        return None
    M = ctx.a("extra.sparsity")
    top = ctx.raw("extra.top_index")[b, h]
    floor = float(min(M[b, h, int(t)] for t in top))
    u = len(top)
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _tx("not computed (ProbSparse scores only the top-u queries by M)", "未计算（ProbSparse 只对 M 最大的 u 个查询打分）"),
        [], math.nan,
        _tx(f"Never computed (nan): query {l} of head {h + 1} is not among the u = {u} queries chosen by the sparsity measure "
            f"(its M = {fmt(M[b, h, l])}; the chosen queries' smallest M = {fmt(floor)}). Its output is built from V directly.",
            f"从未计算（nan）：第 {h + 1} 头的查询 {l} 不在按稀疏度量 M 选出的 u = {u} 个查询之中"
            f"（它的 M = {fmt(M[b, h, l])}；被选查询中最小的 M = {fmt(floor)}）。它的输出直接由 V 得到。"),
        _tx("nan", "nan"),
        (Source("extra.sparsity", (b, h, l)), Source("extra.selected", (b, h, l))))


def _scores(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    lazy = _not_computed(ctx, step_id, idx)
    if lazy is not None:
        return lazy
    if ctx.opts.get("scoring") == "additive":
        return _additive_score(ctx, step_id, idx)
    b, h, l, s = idx
    q = ctx.a("head_split.query")[b, l, h]
    k = ctx.a("head_split.key")[b, s, h]
    scale = float(ctx.opts["scale"])
    terms = [Term(_tx(f"q[{e}]·k[{e}] = {fmt(q[e])} × {fmt(k[e])} = {fmt(q[e] * k[e])}",
                      f"q[{e}]·k[{e}] = {fmt(q[e])} × {fmt(k[e])} = {fmt(q[e] * k[e])}"),
                  float(q[e] * k[e]),
                  (Source("head_split.query", (b, l, h, e)), Source("head_split.key", (b, s, h, e))),
                  factors=(float(q[e]), float(k[e])))
             for e in range(q.shape[0])]
    dot = _fsum([t.value for t in terms])
    result = scale * dot
    kind = ctx.opts.get("scoring")
    if kind == "dot" and scale == 1.0:
        formula = _tx(f"scores[{b},{h},{l},{s}] = q_{l} · k_{s} (dot product, no scale)", f"分数[{b},{h},{l},{s}] = q_{l} · k_{s}（点积，不缩放）")
        why_en, why_zh = "the dot kind does not scale", "点积注意力不缩放"
    else:
        formula = _tx(f"scores[{b},{h},{l},{s}] = scale × Σ_e q[{b},{l},{h},e] · k[{b},{s},{h},e]",
                      f"分数[{b},{h},{l},{s}] = scale × Σ_e q[{b},{l},{h},e] · k[{b},{s},{h},e]")
        dk = len(q)
        if abs(scale - 1.0 / math.sqrt(dk)) < 1e-12 * max(1.0, scale):
            why_en, why_zh = f"scale = 1/√d_k = 1/√{dk}", f"scale = 1/√d_k = 1/√{dk}"
        else:
            why_en, why_zh = f"scale = {fmt(scale)} (as set)", f"scale = {fmt(scale)}（按设定）"
    return _explanation(
        step_id, idx, ctx.value(step_id, idx), formula, terms, result,
        _tx(f"Query {l} against key {s} in head {h + 1} (batch {b}): the dot product of their head-{h + 1} vectors, {why_en}.",
            f"第 {h + 1} 头中查询 {l} 对键 {s}（批次 {b}）：两者第 {h + 1} 头向量的点积，{why_zh}。"),
        _tx(f"{fmt(scale)} × ({_sum_text([t.value for t in terms])}) = {fmt(scale)} × {fmt(dot)} = {fmt(result)}",
            f"{fmt(scale)} × ({_sum_text([t.value for t in terms])}) = {fmt(scale)} × {fmt(dot)} = {fmt(result)}"))


def _additive_score(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, h, l, s = idx
    q = ctx.a("head_split.query")[b, l, h]
    k = ctx.a("head_split.key")[b, s, h]
    Wq, Wk, wv = ctx.param("additive.W_q")[h], ctx.param("additive.W_k")[h], ctx.param("additive.w_v")[h]
    scale = float(ctx.opts["scale"])
    terms = []
    for n in range(wv.shape[0]):
        fq = _fsum([float(Wq[n, e] * q[e]) for e in range(q.shape[0])])
        fk = _fsum([float(Wk[n, e] * k[e]) for e in range(k.shape[0])])
        arg = fq + fk
        th = math.tanh(arg)
        srcs = ([Source("additive.W_q", (h, n, e)) for e in range(q.shape[0])]
                + [Source("head_split.query", (b, l, h, e)) for e in range(q.shape[0])]
                + [Source("additive.W_k", (h, n, e)) for e in range(k.shape[0])]
                + [Source("head_split.key", (b, s, h, e)) for e in range(k.shape[0])]
                + [Source("additive.w_v", (h, n))])
        line = (f"n={n}: w_v[{n}] · tanh((W_q q)[{n}] + (W_k k)[{n}]) = {fmt(wv[n])} × tanh({fmt(fq)} + {fmt(fk)} = {fmt(arg)})"
                f" = {fmt(wv[n])} × {fmt(th)} = {fmt(wv[n] * th)}")
        terms.append(Term(_tx(line, line.replace("n=", "隐藏单元 n=")), float(wv[n]) * th, tuple(srcs),
                          factors=(float(wv[n]), th)))
    total = _fsum([t.value for t in terms])
    result = scale * total
    combine_en = f"{_sum_text([t.value for t in terms])} = {fmt(total)}"
    if scale != 1.0:
        combine_en = f"{fmt(scale)} × ({_sum_text([t.value for t in terms])}) = {fmt(result)}"
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _tx(f"scores[{b},{h},{l},{s}] = Σ_n w_v[n] · tanh(Σ_e W_q[n,e] q[e] + Σ_e W_k[n,e] k[e])" + (" × scale" if scale != 1.0 else ""),
            f"分数[{b},{h},{l},{s}] = Σ_n w_v[n] · tanh(Σ_e W_q[n,e] q[e] + Σ_e W_k[n,e] k[e])" + (" × scale" if scale != 1.0 else "")),
        terms, result,
        _tx(f"d2l additive attention, head {h + 1}: query {l} and key {s} are each mapped to {len(terms)} hidden units, added, "
            f"squashed by tanh and weighed by w_v" + (f", then multiplied by the scale {fmt(scale)}." if scale != 1.0 else " (no scale)."),
            f"d2l 加性注意力，第 {h + 1} 头：查询 {l} 和键 {s} 各自映射到 {len(terms)} 个隐藏单元，相加、经 tanh 压缩、再用 w_v 加权"
            + (f"，最后乘以缩放 {fmt(scale)}。" if scale != 1.0 else "（不缩放）。")),
        _tx(combine_en, combine_en))


# ---- masks -------------------------------------------------------------------------------------

def _mask_reasons(ctx: _Ctx, b: int, l: int, s: int) -> tuple[list[str], list[str], list[str], list[str]]:
    """(why masked en, zh; why kept en, zh) for key s of query l in batch item b."""
    masked_en, masked_zh, kept_en, kept_zh = [], [], [], []
    lens = ctx.opts.get("valid_lens")
    if lens is not None:
        two_d = isinstance(lens[0], list)
        n = lens[b][l] if two_d else lens[b]
        of_en = f"batch {b}, query row {l}" if two_d else f"batch item {b}"
        of_zh = f"批次 {b} 查询行 {l} " if two_d else f"批次 {b} "
        if s >= n:
            masked_en.append(f"key {s} ≥ valid length {n} of {of_en}")
            masked_zh.append(f"键 {s} ≥ {of_zh}的有效长度 {n}")
        else:
            kept_en.append(f"key {s} < valid length {n} of {of_en}")
            kept_zh.append(f"键 {s} < {of_zh}的有效长度 {n}")
    if ctx.opts.get("causal"):
        if s > l:
            masked_en.append(f"causal: key {s} comes after query {l}")
            masked_zh.append(f"因果：键 {s} 在查询 {l} 之后")
        else:
            kept_en.append(f"causal: key {s} ≤ query {l}")
            kept_zh.append(f"因果：键 {s} ≤ 查询 {l}")
    return masked_en, masked_zh, kept_en, kept_zh


def _masked_scores(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    lazy = _not_computed(ctx, step_id, idx)
    if lazy is not None:
        return lazy
    b, h, l, s = idx
    value = ctx.value(step_id, idx)
    score = ctx.value("scores", idx)
    mask = ctx.mask
    if mask is None:
        term = Term(_tx(f"scores[{b},{h},{l},{s}] = {fmt(score)}", f"分数[{b},{h},{l},{s}] = {fmt(score)}"), score,
                    (Source("scores", idx),))
        return _explanation(step_id, idx, value, _tx("no mask: masked_scores = scores", "无掩码：掩蔽后的分数 = 分数"),
                            [term], score,
                            _tx("Kept: this scenario has no mask (no valid lengths, not causal).",
                                "保留：此场景没有掩码（无有效长度，也不是因果）。"),
                            _tx(fmt(score), fmt(score)))
    fill = float(ctx.opts["fill_value"])
    m_en, m_zh, k_en, k_zh = _mask_reasons(ctx, b, l, s)
    msrc = Source("extra.mask", (b, l, s))
    if bool(mask[b, l, s]):
        term = Term(_tx(f"fill value = {fmt(fill)}", f"填充值 = {fmt(fill)}"), fill, (msrc,), masked=True)
        what = "d2l's -1e6" if fill == -1e6 else ("-inf, as Time-Series-Library" if fill == -math.inf else "the chosen fill")
        what_zh = "d2l 的 -1e6" if fill == -1e6 else ("-inf，同 Time-Series-Library" if fill == -math.inf else "所选填充值")
        return _explanation(
            step_id, idx, value, _tx("masked: masked_scores := fill value", "被掩蔽：掩蔽后的分数 := 填充值"),
            [term], fill,
            _tx(f"Replaced by the fill value {fmt(fill)} ({what}) because {' and '.join(m_en)}; the score {fmt(score)} is discarded.",
                f"被替换为填充值 {fmt(fill)}（{what_zh}），因为{'且'.join(m_zh)}；原分数 {fmt(score)} 被丢弃。"),
            _tx(fmt(fill), fmt(fill)), (Source("scores", idx),))
    term = Term(_tx(f"scores[{b},{h},{l},{s}] = {fmt(score)}", f"分数[{b},{h},{l},{s}] = {fmt(score)}"), score,
                (Source("scores", idx), msrc))
    return _explanation(
        step_id, idx, value, _tx("kept: masked_scores = scores", "保留：掩蔽后的分数 = 分数"), [term], score,
        _tx(f"Kept: {' and '.join(k_en)}.", f"保留：{'且'.join(k_zh)}。"), _tx(fmt(score), fmt(score)))


# ---- softmax -----------------------------------------------------------------------------------

def _lazy_row(ctx: _Ctx, b: int, h: int, l: int) -> bool:
    return ctx.opts.get("scoring") == "prob_sparse" and not bool(ctx.raw("extra.selected")[b, h, l])


def _lazy_weight_text(ctx: _Ctx, h: int, l: int, S: int) -> tuple[str, str]:
    if ctx.opts.get("causal"):
        return (f"query {l} of head {h + 1} was not selected by ProbSparse (not in the top-u by M), so it is never scored: "
                f"as in Informer its output is the cumulative sum of V up to position {l}, i.e. weight 1 for every key s ≤ {l} and 0 after.",
                f"第 {h + 1} 头的查询 {l} 未被 ProbSparse 选中（不在 M 的前 u 名），所以从未打分："
                f"同 Informer，它的输出是 V 到位置 {l} 的累加和，即 s ≤ {l} 的键权重为 1，其后为 0。")
    return (f"query {l} of head {h + 1} was not selected by ProbSparse (not in the top-u by M), so it is never scored: "
            f"its output is the mean of V over all {S} keys, i.e. weight 1/S = 1/{S} for every key.",
            f"第 {h + 1} 头的查询 {l} 未被 ProbSparse 选中（不在 M 的前 u 名），所以从未打分："
            f"它的输出是所有 {S} 个键上 V 的平均，即每个键权重 1/S = 1/{S}。")


def _weights(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, h, l, s = idx
    value = ctx.value(step_id, idx)
    S = ctx.raw(step_id).shape[-1]
    if _lazy_row(ctx, b, h, l):
        w = (1.0 if s <= l else 0.0) if ctx.opts.get("causal") else 1.0 / S
        en, zh = _lazy_weight_text(ctx, h, l, S)
        rule = ("1 if s ≤ l else 0", "s ≤ l 时为 1，否则为 0") if ctx.opts.get("causal") else (f"1/S = 1/{S}", f"1/S = 1/{S}")
        term = Term(_tx(f"effective weight = {rule[0]} = {fmt(w)}", f"有效权重 = {rule[1]} = {fmt(w)}"), w,
                    (Source("extra.selected", (b, h, l)),))
        return _explanation(step_id, idx, value,
                            _tx("lazy query: effective weight (no softmax)", "惰性查询：有效权重（无 softmax）"),
                            [term], w, _tx(en[0].upper() + en[1:], zh), _tx(fmt(w), fmt(w)),
                            (Source("extra.sparsity", (b, h, l)),))
    row = ctx.a("masked_scores")[b, h, l]
    mask = ctx.mask
    m = float(np.max(row))
    terms = []
    for j in range(S):
        x = float(row[j])
        with np.errstate(invalid="ignore", over="ignore"):
            e = float(np.exp(np.float64(x) - np.float64(m)))
        masked = bool(mask[b, l, j]) if mask is not None else False
        line = f"j={j}: exp({fmt(x)} − {fmt(m)}) = {fmt(e)}"
        terms.append(Term(_tx(line, line), e, (Source("masked_scores", (b, h, l, j)),), masked=masked))
    exps = [t.value for t in terms]
    denom = _fsum(exps)
    result = exps[s] / denom if denom != 0 else math.nan
    full = mask is not None and bool(np.all(mask[b, l]))
    fill = float(ctx.opts.get("fill_value", -1e6))
    if full and math.isfinite(fill):
        summ = _tx(f"Every key of this row is masked, so every score is the fill {fmt(fill)}: all exps are equal and the "
                   f"softmax is uniform, 1/S = 1/{S} over all keys, padding included (d2l's masked_softmax does the same).",
                   f"这一行的每个键都被掩蔽，所有分数都是填充值 {fmt(fill)}：各项 exp 相等，softmax 均匀分布，"
                   f"所有键（包括填充位置）权重都是 1/S = 1/{S}（d2l 的 masked_softmax 同样如此）。")
    elif full:
        summ = _tx("Every key of this row is masked with -inf: the row's maximum is -inf, exp(-inf − (-inf)) is NaN, "
                   "so every weight of this row is NaN (and so is its weighted sum).",
                   "这一行的每个键都被 -inf 掩蔽：行最大值为 -inf，exp(-inf − (-inf)) 为 NaN，"
                   "所以这一行的权重全是 NaN（加权和也是 NaN）。")
    else:
        n_masked = sum(t.masked for t in terms)
        extra_en = f" {n_masked} masked key(s) contribute exp(fill − max) = 0." if n_masked else ""
        extra_zh = f" {n_masked} 个被掩蔽的键贡献 exp(填充值 − 最大值) = 0。" if n_masked else ""
        summ = _tx(f"Softmax over the {S} keys of query {l} in head {h + 1}: exp of this key's score over the sum of the row's exps "
                   f"(the row maximum {fmt(m)} is subtracted first; it cancels).{extra_en}",
                   f"第 {h + 1} 头查询 {l} 在 {S} 个键上的 softmax：本键分数的 exp 除以整行 exp 之和"
                   f"（先减去行最大值 {fmt(m)}，它会约掉）。{extra_zh}")
    return _explanation(
        step_id, idx, value,
        _tx(f"A[{b},{h},{l},{s}] = exp(x_{s} − m) / Σ_j exp(x_j − m),  x = masked_scores[{b},{h},{l},:], m = max_j x_j",
            f"A[{b},{h},{l},{s}] = exp(x_{s} − m) / Σ_j exp(x_j − m)，x = 掩蔽后的分数[{b},{h},{l},:]，m = max_j x_j"),
        terms, result, summ,
        _tx(f"{fmt(exps[s])} / ({_sum_text(exps)}) = {fmt(exps[s])} / {fmt(denom)} = {fmt(result)}",
            f"{fmt(exps[s])} / ({_sum_text(exps)}) = {fmt(exps[s])} / {fmt(denom)} = {fmt(result)}"))


# ---- weighted sum, concat ------------------------------------------------------------------------

def _weighted_sum(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, l, h, d = idx
    A = ctx.a("attention_weights")[b, h, l]
    v = ctx.a("head_split.value")[b, :, h, d]
    mask = ctx.mask
    terms = []
    for j in range(A.shape[0]):
        p = float(A[j] * v[j])
        line = f"a[{j}]·v[{j}] = {fmt(A[j])} × {fmt(v[j])} = {fmt(p)}"
        terms.append(Term(_tx(line, line), p,
                          (Source("attention_weights", (b, h, l, j)), Source("head_split.value", (b, j, h, d))),
                          masked=bool(mask[b, l, j]) if mask is not None else False,
                          factors=(float(A[j]), float(v[j]))))
    vals = [t.value for t in terms]
    result = _fsum(vals)
    if _lazy_row(ctx, b, h, l):
        en, zh = _lazy_weight_text(ctx, h, l, A.shape[0])
        summ = _tx(f"{en[0].upper() + en[1:]} These are the terms the engine sums.", f"{zh}下面就是引擎相加的各项。")
    else:
        summ = _tx(f"Element {d} of head {h + 1}'s output for query {l}: the values of all keys weighted by query {l}'s attention weights.",
                   f"第 {h + 1} 头对查询 {l} 的输出的第 {d} 个元素：所有键的值按查询 {l} 的注意力权重加权求和。")
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _tx(f"out[{b},{l},{h},{d}] = Σ_s A[{b},{h},{l},s] · v[{b},s,{h},{d}]", f"输出[{b},{l},{h},{d}] = Σ_s A[{b},{h},{l},s] · v[{b},s,{h},{d}]"),
        terms, result, summ, _tx(f"{_sum_text(vals)} = {fmt(result)}", f"{_sum_text(vals)} = {fmt(result)}"))


def _concat(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, l, c = idx
    _, L, H, D = ctx.raw("weighted_sum").shape
    if ctx.opts.get("mix"):
        p = l * H * D + c  # position in the (H, L, D) block of batch b, read row-major
        h, rest = divmod(p, L * D)
        l_src, d = divmod(rest, D)
        summ = _tx(f"mix (Time-Series-Library's quirk): the (B, H, L, D) context is viewed as (B, L, H·D) without a transpose, "
                   f"so column {c} of row {l} is element {d} of head {h + 1} at position {l_src}"
                   + (" (another position!)." if l_src != l else "."),
                   f"mix（Time-Series-Library 的怪癖）：(B, H, L, D) 的上下文不转置直接 view 成 (B, L, H·D)，"
                   f"所以第 {l} 行第 {c} 列是第 {h + 1} 头位置 {l_src} 的第 {d} 个元素" + ("（另一个位置！）。" if l_src != l else "。"))
    else:
        h, d = divmod(c, D)
        l_src = l
        summ = _tx(f"Column {c} = h·{D}+d with index h = {h}, d = {d}: element {d} of head {h + 1}'s output for query {l} (heads side by side, nothing computed).",
                   f"第 {c} 列 = h·{D}+d（下标 h = {h}，d = {d}）：第 {h + 1} 头对查询 {l} 输出的第 {d} 个元素（多头并排，不做计算）。")
    src = Source("weighted_sum", (b, l_src, h, d))
    v = ctx.value("weighted_sum", src.index)
    term = Term(_tx(f"out[{b},{l_src},{h},{d}] = {fmt(v)}", f"输出[{b},{l_src},{h},{d}] = {fmt(v)}"), v, (src,))
    formula = (_tx("concat = out.transpose(1, 2).view(B, L, H·D) (mix)", "拼接 = out.transpose(1, 2).view(B, L, H·D)（mix）")
               if ctx.opts.get("mix") else _tx(f"concat[b,l,h·{D}+d] = out[b,l,h,d]", f"拼接[b,l,h·{D}+d] = 输出[b,l,h,d]"))
    return _explanation(step_id, idx, ctx.value(step_id, idx), formula, [term], v, summ, _tx(fmt(v), fmt(v)))


# ---- extras (the mask, ProbSparse's sample, sparsity measure and chosen queries) -----------------

def _sampled_scores(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, h, l, j = idx
    s = int(ctx.raw("extra.sample_index")[l, j])
    q = ctx.a("head_split.query")[b, l, h]
    k = ctx.a("head_split.key")[b, s, h]
    terms = [Term(_tx(f"q[{e}]·k[{e}] = {fmt(q[e])} × {fmt(k[e])} = {fmt(q[e] * k[e])}",
                      f"q[{e}]·k[{e}] = {fmt(q[e])} × {fmt(k[e])} = {fmt(q[e] * k[e])}"),
                  float(q[e] * k[e]), (Source("head_split.query", (b, l, h, e)), Source("head_split.key", (b, s, h, e))),
                  factors=(float(q[e]), float(k[e])))
             for e in range(q.shape[0])]
    vals = [t.value for t in terms]
    result = _fsum(vals)
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _tx(f"sampled[{b},{h},{l},{j}] = q_{l} · k_{s} (unscaled), s = sample_index[{l},{j}]",
            f"采样分数[{b},{h},{l},{j}] = q_{l} · k_{s}（未缩放），s = sample_index[{l},{j}]"),
        terms, result,
        _tx(f"Sample {j} of query {l} is key {s} (drawn by the seeded generator); its unscaled dot product in head {h + 1}.",
            f"查询 {l} 的第 {j} 个采样是键 {s}（由带种子的生成器抽取）；第 {h + 1} 头中未缩放的点积。"),
        _tx(f"{_sum_text(vals)} = {fmt(result)}", f"{_sum_text(vals)} = {fmt(result)}"),
        (Source("extra.sample_index", (l, j)),))


def _sparsity(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, h, l = idx
    row = ctx.a("extra.sampled_scores")[b, h, l]
    S = int(ctx.opts["S"])
    mx = float(np.max(row))
    terms = [Term(_tx(f"sample {j}: {fmt(x)}", f"采样 {j}：{fmt(x)}"), float(x), (Source("extra.sampled_scores", (b, h, l, j)),))
             for j, x in enumerate(row)]
    total = _fsum([t.value for t in terms])
    result = mx - total / S
    chosen = bool(ctx.raw("extra.selected")[b, h, l])
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _tx(f"M = max_j sampled_j − Σ_j sampled_j / S  (S = {S}, all keys, not the sample count)",
            f"M = max_j 采样分数_j − Σ_j 采样分数_j / S（S = {S}，全部键数，不是采样数）"),
        terms, result,
        _tx(f"The sparsity measure of query {l} in head {h + 1}: a peaked query (one large dot product) has a large M. "
            + ("It is among the chosen top-u queries." if chosen else "It is not among the chosen top-u queries."),
            f"第 {h + 1} 头查询 {l} 的稀疏度量：注意力集中（有一个很大的点积）的查询 M 较大。"
            + ("它在被选中的前 u 个查询之中。" if chosen else "它不在被选中的前 u 个查询之中。")),
        _tx(f"{fmt(mx)} − {fmt(total)} / {S} = {fmt(result)}", f"{fmt(mx)} − {fmt(total)} / {S} = {fmt(result)}"))


def _mask_cell(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, l, s = idx
    masked = bool(ctx.raw(step_id)[idx])
    m_en, m_zh, k_en, k_zh = _mask_reasons(ctx, b, l, s)
    v = 1.0 if masked else 0.0
    summ = (_tx(f"Masked: {' and '.join(m_en)}.", f"被掩蔽：{'且'.join(m_zh)}。") if masked
            else _tx(f"Not masked: {' and '.join(k_en)}.", f"未被掩蔽：{'且'.join(k_zh)}。"))
    term = Term(_tx("True" if masked else "False", "True" if masked else "False"), v, masked=masked)
    return _explanation(step_id, idx, v, step_registry.formula("extra.mask"), [term], v, summ,
                        _tx(str(masked), str(masked)))


def _fully_masked(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, l = idx
    row = ctx.raw("extra.mask")[b, l]
    S = len(row)
    terms = [Term(_tx(f"mask[{b},{l},{s}] = {bool(m)}", f"mask[{b},{l},{s}] = {bool(m)}"), 1.0 if m else 0.0,
                  (Source("extra.mask", (b, l, s)),), masked=bool(m)) for s, m in enumerate(row)]
    full = bool(np.all(row))
    result = 1.0 if full else 0.0
    cells = ", ".join(str(bool(m)) for m in row) if S <= 12 else f"{S} cells"
    fill = float(ctx.opts.get("fill_value", -1e6))
    if full and math.isfinite(fill):
        summ = _tx(f"Every key of query {l} (batch {b}) is masked, so every score of this row becomes the fill {fmt(fill)}: "
                   f"the softmax is uniform, 1/S = 1/{S} for every key, padding included (as d2l's masked_softmax).",
                   f"批次 {b} 查询 {l} 的每个键都被掩蔽，这一行的所有分数都变成填充值 {fmt(fill)}："
                   f"softmax 均匀分布，每个键（包括填充位置）权重都是 1/S = 1/{S}（同 d2l 的 masked_softmax）。")
    elif full:
        summ = _tx(f"Every key of query {l} (batch {b}) is masked with -inf: the softmax computes exp(-inf − (-inf)) = NaN, "
                   f"so this row's weights and its weighted sum are NaN.",
                   f"批次 {b} 查询 {l} 的每个键都被 -inf 掩蔽：softmax 计算 exp(-inf − (-inf)) = NaN，"
                   f"所以这一行的权重和加权和都是 NaN。")
    else:
        kept = [s for s, m in enumerate(row) if not m]
        shown = ", ".join(str(s) for s in kept[:6]) + (" …" if len(kept) > 6 else "")
        summ = _tx(f"Not fully masked: query {l} (batch {b}) still sees {len(kept)} of {S} keys ({shown}), so its softmax is an ordinary one.",
                   f"未被完全掩蔽：批次 {b} 查询 {l} 仍能看到 {S} 个键中的 {len(kept)} 个（{shown}），所以它的 softmax 是普通的。")
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _tx(f"fully_masked[{b},{l}] = all_s mask[{b},{l},s]", f"fully_masked[{b},{l}] = mask[{b},{l},s] 对所有 s 全为 True"),
        terms, result, summ, _tx(f"all({cells}) = {full}", f"all({cells}) = {full}"))


def _sample_index(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    l, j = idx
    L, n = ctx.raw(step_id).shape
    S, seed = int(ctx.opts["S"]), ctx.opts["seed"]
    s = int(ctx.raw(step_id)[idx])
    term = Term(_tx(f"draw {j} of query {l}: key {s}", f"查询 {l} 的第 {j} 次抽取：键 {s}"), float(s))
    call = f"torch.randint({S}, ({L}, {n}), generator=torch.Generator().manual_seed({seed}))"
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _tx(f"sample_index = {call}; sample_index[{l},{j}] = the drawn number at position {l}·{n}+{j} = {l * n + j} (row-major, from 0)",
            f"sample_index = {call}；sample_index[{l},{j}] = 抽出的第 {l}·{n}+{j} = {l * n + j} 个数（按行优先，从 0 数起）"),
        [term], float(s),
        _tx(f"A random draw, not a computation: key {s} of 0 … {S - 1}, drawn uniformly (with replacement) by the generator "
            f"seeded with {seed}, as Informer's torch.randint. One draw is shared by every batch item and head; "
            f"the same seed gives the same keys.",
            f"这是随机抽取，不是计算：由种子为 {seed} 的生成器在 0 … {S - 1} 中均匀（有放回）抽到键 {s}，"
            f"同 Informer 的 torch.randint。所有批次和所有头共用这一次抽取；种子相同，抽到的键也相同。"),
        _tx(str(s), str(s)))


def _sample_count(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    l, s = idx
    draws = ctx.raw("extra.sample_index")[l]
    hits = [j for j, k in enumerate(draws) if int(k) == s]
    terms = [Term(_tx(f"draw {j}: sample_index[{l},{j}] = {s}", f"第 {j} 次抽取：sample_index[{l},{j}] = {s}"), 1.0,
                  (Source("extra.sample_index", (l, j)),)) for j in hits]
    count = float(len(hits))
    if hits:
        combine = _tx(" + ".join("1" for _ in hits) + f" = {len(hits)}", " + ".join("1" for _ in hits) + f" = {len(hits)}")
    else:
        combine = _tx("0 (no draw picked this key)", "0（没有一次抽到这个键）")
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _tx(f"count[{l},{s}] = #{{j : sample_index[{l},j] = {s}}}", f"count[{l},{s}] = #{{j : sample_index[{l},j] = {s}}}"),
        terms, count,
        _tx(f"Of query {l}'s {len(draws)} draws, {len(hits)} picked key {s}. The draws are with replacement, so a key can be "
            f"sampled more than once or never; row {l} adds up to n_sample = {len(draws)}.",
            f"查询 {l} 的 {len(draws)} 次抽取中有 {len(hits)} 次抽到键 {s}。抽取是有放回的，所以一个键可能被抽到多次，也可能一次都没有；"
            f"第 {l} 行之和为 n_sample = {len(draws)}。"),
        combine)


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
    next_en = f"; the largest M left out is {fmt(out)}" if out is not None else "; every query is chosen (full attention)"
    next_zh = f"；落选查询中最大的 M 是 {fmt(out)}" if out is not None else "；所有查询都被选中（即完整注意力）"
    term = Term(_tx(f"query {l}: M = {fmt(M[l])} (rank {rank} of {L})", f"查询 {l}：M = {fmt(M[l])}（{L} 个中排第 {rank}）"),
                float(l), (Source("extra.sparsity", (b, h, l)),))
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _tx(f"top_index[{b},{h},:] = topk(M[{b},{h},:], u = {u}, sorted=False).indices",
            f"top_index[{b},{h},:] = topk(M[{b},{h},:], u = {u}, sorted=False).indices"),
        [term], float(l),
        _tx(f"Entry {r} of head {h + 1}'s chosen queries is query {l}, whose M = {fmt(M[l])} ranks {rank} of {L} (1 = largest). "
            f"The u = {u} largest M are chosen (smallest chosen M = {fmt(low)}{next_en}); topk(sorted=False) does not "
            f"order them, so the entry's position is not a rank.",
            f"第 {h + 1} 头被选查询的第 {r} 项是查询 {l}，它的 M = {fmt(M[l])} 在 {L} 个中排第 {rank}。"
            f"M 最大的 u = {u} 个被选中（被选中的最小 M = {fmt(low)}{next_zh}）；topk(sorted=False) 不排序，"
            f"所以这一项的位置不是名次。"),
        _tx(str(l), str(l)))


def _selected(ctx: _Ctx, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, h, l = idx
    top = ctx.raw("extra.top_index")[b, h]
    M = ctx.a("extra.sparsity")[b, h]
    low, _ = _cut(M, top)
    hits = [r for r, t in enumerate(top) if int(t) == l]
    terms = [Term(_tx(f"top_index[{b},{h},{r}] = {l}", f"top_index[{b},{h},{r}] = {l}"), 1.0,
                  (Source("extra.top_index", (b, h, r)),)) for r in hits]
    chosen = bool(hits)
    listed = ", ".join(str(int(t)) for t in top[:12]) + (", …" if len(top) > 12 else "")
    if chosen:
        summ = _tx(f"Active: query {l} is entry {hits[0]} of head {h + 1}'s top-u list (its M = {fmt(M[l])} ≥ the smallest "
                   f"chosen M {fmt(low)}), so it gets full scores and a softmax.",
                   f"活跃：查询 {l} 是第 {h + 1} 头前 u 名列表的第 {hits[0]} 项（它的 M = {fmt(M[l])} ≥ 被选中的最小 M {fmt(low)}），"
                   f"所以它有完整的分数和 softmax。")
        combine = _tx(f"{l} ∈ top_index[{b},{h},:] → True", f"{l} ∈ top_index[{b},{h},:] → True")
    else:
        summ = _tx(f"Lazy: query {l} is not in head {h + 1}'s top-u list [{listed}] (its M = {fmt(M[l])}; the smallest "
                   f"chosen M = {fmt(low)}), so it is never scored and its output comes from V directly.",
                   f"惰性：查询 {l} 不在第 {h + 1} 头的前 u 名列表 [{listed}] 中（它的 M = {fmt(M[l])}；被选中的最小 M = {fmt(low)}），"
                   f"所以它从未打分，输出直接由 V 得到。")
        combine = _tx(f"{l} ∉ top_index[{b},{h},:] → False", f"{l} ∉ top_index[{b},{h},:] → False")
    return _explanation(
        step_id, idx, ctx.value(step_id, idx),
        _tx(f"selected[{b},{h},{l}] = ({l} ∈ top_index[{b},{h},:])", f"selected[{b},{h},{l}] = ({l} ∈ top_index[{b},{h},:])"),
        terms, 1.0 if chosen else 0.0, summ, combine, (Source("extra.sparsity", (b, h, l)),))

