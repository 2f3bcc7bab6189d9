"""Explain one cell of a main step: the arithmetic that produced that exact number, term by term.

One function per step of the main pipeline (and the mask): a projection's dot product plus bias,
which projected column a head-split cell was cut from, q·k times the scale, why a score was
masked and by which fill, the softmax of a row, the weighted sum of values, where a concat cell
came from (TSL's `mix` quirk included), which mask cells make a row fully masked.  A kind's own
steps are explained in its module; attention.teaching.explain picks the explainer of a cell.
"""
from __future__ import annotations

import math

import numpy as np

import attention.words as words
from attention.datamodel import numbers
from attention.kinds.prob_sparse import lazy_weight_text
from attention.text.explanation import (
    Context,
    Explanation,
    P,
    Source,
    Term,
    _cat,
    _explanation,
    _fsum,
    _joined,
    _same,
    _sum_text,
    _tx,
    fmt,
)

# ---- projections ---------------------------------------------------------------------------------

_PROJ = {  # name -> (input ref, input symbol, weight symbol, bias symbol, output symbol)
    "query": ("queries", "X_q", "W_q", "b_q", "Q"),
    "key": ("keys", "X_k", "W_k", "b_k", "K"),
    "value": ("values", "X_v", "W_v", "b_v", "V"),
    "out": ("concat", "concat", "W_o", "b_o", "Y"),
}


def _projection(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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

def _head_split(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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


# ---- scores --------------------------------------------------------------------------------------

def _scores(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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


def _kv_group(ctx: Context, h: int) -> dict[str, str]:
    """Grouped-query / multi-query attention: which key/value head query head h reads, and the
    group of query heads sharing it ("" when every query head has its own)."""
    H = int(ctx.opts.get("n_heads") or 1)
    kv = int(ctx.opts.get("n_kv_heads") or H)
    if kv == H:
        return _same("")
    g, j = H // kv, ctx.kv_head(h)
    return _tx("explain.scores.kv_group", h1=P(h), j1=P(j), h=h, j=j, H=H, kv=kv, g=g,
               first=P(j * g), last=P(j * g + g - 1))


# ---- masks ---------------------------------------------------------------------------------------

def _mask_reasons(ctx: Context, b: int, l: int, s: int) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(why masked, why kept) for key s of query l in batch item b: each mask rule's reason."""
    from attention.kinds import mask_rules

    return mask_rules.reasons(ctx.kinds.rules, ctx.opts, b, l, s)


def _masked_scores(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:

    b, h, l, s = idx
    value = ctx.value(step_id, idx)
    src = ctx.reads("scores", before=step_id)  # ALiBi's biased scores, a cap's ...
    score = ctx.value(src, idx)
    mask = ctx.mask
    if src != "scores":
        return _masked_read(ctx, step_id, idx, src, score, value)
    if mask is None:
        term = Term(_tx("explain.masked.score_term", b=b, h=h, l=l, s=s, v=fmt(score)), score, (Source("scores", idx),))
        return _explanation(step_id, idx, value, _tx("explain.masked.no_mask_formula"), [term], score,
                            _tx("explain.masked.no_mask_summary"), _same(fmt(score)))
    why_masked, why_kept = _mask_reasons(ctx, b, l, s)
    msrc = Source("extra.mask", (b, l, s))
    if bool(mask[b, l, s]):
        return _masked_fill(ctx, step_id, idx, value, score, src, msrc, why_masked)
    term = Term(_tx("explain.masked.score_term", b=b, h=h, l=l, s=s, v=fmt(score)), score,
                (Source("scores", idx), msrc))
    return _explanation(
        step_id, idx, value, _tx("explain.masked.kept_formula"), [term], score,
        _tx("explain.masked.kept_summary", why=_joined(why_kept)), _same(fmt(score)))


def _masked_fill(ctx: Context, step_id: str, idx: tuple[int, ...], value: float, score: float, src: str,
                 msrc: Source, why_masked: list[dict[str, str]]) -> Explanation:
    """A masked cell: the fill value stands where the score read from `src` was (the mask's reasons said)."""
    fill = float(ctx.opts["fill_value"])
    term = Term(_tx("explain.masked.fill_term", v=fmt(fill)), fill, (msrc,), masked=True)
    what = _tx("explain.masked.fill_d2l" if fill == -1e6 else
               "explain.masked.fill_tsl" if fill == -math.inf else "explain.masked.fill_chosen")
    return _explanation(
        step_id, idx, value, _tx("explain.masked.masked_formula"), [term], fill,
        _tx("explain.masked.masked_summary", fill=fmt(fill), what=what, why=_joined(why_masked), score=fmt(score)),
        _same(fmt(fill)), (Source(src, idx),))


def _masked_read(ctx: Context, step_id: str, idx: tuple[int, ...], src: str, score: float,
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
        return _masked_fill(ctx, step_id, idx, value, score, src, msrc, why_masked)
    return _explanation(step_id, idx, value, _tx("explain.masked.kept_formula"), [term_of(msrc)], score,
                        _tx("explain.masked.kept_summary", why=_joined(why_kept)), _same(fmt(score)))


# ---- softmax -------------------------------------------------------------------------------------

def _weights(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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

def _weighted_sum(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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


def _concat(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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


# ---- the mask's cells and fully masked rows ------------------------------------------------------

def _mask_cell(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
    b, l, s = idx
    masked = bool(ctx.raw(step_id)[idx])
    why_masked, why_kept = _mask_reasons(ctx, b, l, s)
    v = 1.0 if masked else 0.0
    summ = (_tx("explain.mask_cell.masked", why=_joined(why_masked)) if masked
            else _tx("explain.mask_cell.kept", why=_joined(why_kept)))
    term = Term(_same(numbers.flag(masked)), v, masked=masked)
    return _explanation(step_id, idx, v, _tx("step.extra.mask.formula"), [term], v, summ,
                        _same(numbers.flag(masked)))


def _fully_masked(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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
