"""Informer's ProbSparse attention as a scoring kind (the math: attention/ops/prob_sparse.py).

Only the n_top "active" queries are scored; the others ("lazy") take the mean of V (or its
cumulative sum when causal).  This module holds everything ProbSparse adds to the pipeline:
its fields (factor, mix, the recorded key sample), their problems, the six extra steps
(sample, counts, sampled scores, sparsity, chosen queries), scores / masked scores / weights as
ProbSparse computes them, and its explain, lesson and script.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from attention.datamodel import numbers
from attention.datamodel.fields import INT_MAX, Field, plain
from attention.kinds.dot_product import DotProduct
from attention.text.explanation import (
    Context,
    Explanation,
    P,
    Source,
    Term,
    _explanation,
    _fsum,
    _same,
    _sum_text,
    _tx,
    fmt,
)

NAME = "prob_sparse"
#: ProbSparse's steps, in the order Informer computes them (records in attention/registry/step_registry.py)
EXTRA_STEPS = ("extra.sample_index", "extra.sample_count", "extra.sampled_scores", "extra.sparsity",
               "extra.top_index", "extra.selected")


class ProbSparseKind(DotProduct):
    fields = (
        plain("scoring.factor", "int", default=5, minimum=1, maximum=INT_MAX, group="scoring",
              file_key=f"{NAME}.factor"),
        # the scenario's seed (it also draws generated additive weights), shown with ProbSparse
        # since its key sample is what it changes on screen
        plain("seed", "int", default=0, minimum=0, maximum=INT_MAX, group="scoring"),
        plain("scoring.mix", "bool", default=False, group="scoring", file_key=f"{NAME}.mix"),
        Field("scoring.sample_index", "matrix", "field.scoring.sample_index.label",
              "field.scoring.sample_index.help", nullable=True, group="scoring", file_key=f"{NAME}.sample_index"),
    )
    extra_steps = EXTRA_STEPS
    tiled = None  # the lazy rows are never scored (they take the mean of V): no row softmax to tile
    not_tiled_words = f"tiles.not_applicable.{NAME}"
    not_computed_steps = ("scores", "masked_scores")  # the lazy queries' rows are never scored (NaN)
    capture_mismatch = "capture.mismatch_prob"
    grouped_kv = False  # Informer's sampling and lazy rows are defined per head of its own keys

    def records(self) -> tuple:
        """The sample, the sparsity measure and the chosen queries, before the scores (Informer's order)."""
        from attention.datamodel.step_record import StepRecord
        from attention.text import lesson

        def active(sc, kinds) -> bool:  # the scenario's scoring kind is this one
            return kinds.scoring is self

        def extra(sid, dims, kind, compute, explain, inputs, **more):
            return StepRecord(sid, dims, kind, f"step.{sid}.title", f"step.{sid}.formula", compute, active,
                              explain, lesson._sentences, None, inputs, before="scores", **more)
        return (
            extra("extra.sample_index", ("L", "n_sample"), "index", select_step, _sample_index, (),
                  points_into="S", slide="never"),
            extra("extra.sample_count", ("L", "S"), "count", part_step, _sample_count, ("extra.sample_index",)),
            extra("extra.sampled_scores", ("B", "H", "L", "n_sample"), "signed", part_step, _sampled_scores,
                  ("head_split.query", "head_split.key"), by_hand=("scores",)),
            extra("extra.sparsity", ("B", "H", "L"), "signed", part_step, _sparsity, ("extra.sampled_scores",)),
            extra("extra.top_index", ("B", "H", "n_top"), "index", part_step, _top_index, ("extra.sparsity",),
                  points_into="L", slide="never"),
            extra("extra.selected", ("B", "H", "L"), "bool", part_step, _selected, ("extra.sparsity",)),
        )

    def __init__(self):
        super().__init__(NAME, scaled=True, formulas={"scores": f"step.scores.formula.{NAME}",
                                                      "attention_weights": f"step.attention_weights.formula.{NAME}"})

    # ---- the scenario ------------------------------------------------------------------------
    def option_problems(self, sc, errs: list) -> list:
        from attention.datamodel.problem import Problem
        from attention.datamodel.scenario import _got

        L, S = sc.L, sc.S
        out = []
        if isinstance(sc.factor, bool) or not isinstance(sc.factor, int) or sc.factor < 1:
            out.append(Problem("expected_int", "factor", {"minimum": 1, "got": _got(sc.factor)}))
        if L < 2 or S < 2:
            out.append(Problem("prob_sparse_small", "scoring", {"L": L, "S": S}))
        if sc.valid_lens is not None:
            out.append(Problem("prob_sparse_valid_lens", "valid_lens"))
        if sc.causal and L != S:
            out.append(Problem("prob_sparse_causal", "causal", {"L": L, "S": S}))
        if sc.sample_index is not None and not errs and not out:
            out += _sample_index_problems(sc, L, S)
        return out

    def stray_problems(self, sc) -> list:
        from attention.datamodel.problem import Problem

        if sc.mix:
            return [Problem("mix_only", "mix")]
        if sc.sample_index is not None:
            return [Problem("sample_index_only", "sample_index")]
        return []

    def memory_terms(self, sc) -> tuple[int, int]:
        return 0, sc.prob_sparse_sizes()[0]

    def options(self, sc) -> dict:
        n_sample, n_top = sc.prob_sparse_sizes()
        return {"n_sample": n_sample, "n_top": n_top}

    # ---- the engine ------------------------------------------------------------------------------
    def compute_scores(self, run):
        from attention.ops import prob_sparse as ps

        parts = run.state["parts"]
        top = ps.top_scores(run.inputs["head_split.query"], run.inputs["head_split.key"], parts, run.scale)
        run.state["top"] = top  # (B, H, n_top, S)
        return ps.not_computed(top, parts, run.sc.L)  # (B, H, L, S), lazy rows NaN

    def compute_masked(self, run):
        from attention.ops import prob_sparse as ps

        parts, mask = run.state["parts"], run.inputs.get("extra.mask")
        top_masked = ps.mask_top(run.state.pop("top"), mask, parts, run.sc.fill_value)
        run.state["top_masked"] = top_masked
        return run.inputs["scores"] if mask is None else ps.not_computed(top_masked, parts, run.sc.L)

    def compute_weights(self, run):
        from attention.ops import prob_sparse as ps

        return ps.effective_weights(run.state.pop("top_masked"), run.state["parts"], run.sc.L, run.sc.causal)

    # ---- explain, lessons, script ----------------------------------------------------------------
    def explain_cell(self, ctx, step_id: str, idx: tuple[int, ...]):
        if step_id in self.not_computed_steps:
            return explain_not_computed(ctx, step_id, idx)
        if step_id == "attention_weights" and self.lazy_row(ctx, *idx[:3]):
            return explain_lazy_weight(ctx, step_id, idx)
        return None

    def lazy_row(self, ctx, b: int, h: int, l: int) -> bool:
        return not bool(ctx.raw("extra.selected")[b, h, l])

    def lesson_keys(self, step_id: str, keys: list[str], v: dict) -> list[str]:
        keys = super().lesson_keys(step_id, keys, v)
        if step_id == "scores" and not v["scale_unknown"]:
            return keys + [f"lesson.scores.{NAME}"]
        if step_id == "attention_weights":
            return keys + [f"lesson.attention_weights.{NAME}"]
        return keys

    def script(self, plan, step_id: str):
        snippet = {"scores": script_scores, "masked_scores": script_masked, "attention_weights": script_weights}
        return snippet[step_id](plan, step_id) if step_id in snippet else None


PROB_SPARSE = ProbSparseKind()


def select_step(run, step_id: str):
    """extra.sample_index: draw (or take the recorded) key sample, measure every query's sparsity
    and choose the active ones; the other extras are parts of this one computation."""
    import torch

    from attention.ops import prob_sparse as ps

    sc = run.sc
    n_sample, n_top = sc.prob_sparse_sizes()
    recorded = None if sc.sample_index is None else torch.as_tensor(np.asarray(sc.sample_index, dtype=np.int64))
    parts = ps.select_queries(run.inputs["head_split.query"], run.inputs["head_split.key"], n_sample, n_top,
                              sc.seed, recorded)
    run.state["parts"] = parts
    return parts.sample_index


def part_step(run, step_id: str):
    """extra.sample_count, sampled_scores, sparsity, top_index, selected: the part of the
    selection `select_step` kept under that name."""
    return getattr(run.state["parts"], step_id.removeprefix("extra."))


def _sample_index_problems(sc, L: int, S: int) -> list:
    """A recorded key sample must be (L, n_sample) whole numbers in 0 ... S-1 (n_sample from factor and S)."""
    from attention.datamodel.problem import Problem, index_path
    from attention.datamodel.problem import shape as _shape

    idx = np.asarray(sc.sample_index)
    n_sample = sc.prob_sparse_sizes()[0]
    if idx.shape != (L, n_sample):
        return [Problem("sample_index_shape", "sample_index",
                        {"expected": _shape((L, n_sample)), "got": _shape(idx.shape)})]
    if idx.size and (not np.all(np.isfinite(idx)) or np.any(idx != np.round(idx))):
        return [Problem("sample_index_whole", "sample_index")]
    if idx.size and (idx.min() < 0 or idx.max() >= S):
        bad = tuple(int(i) for i in np.argwhere((idx < 0) | (idx >= S))[0])
        return [Problem("sample_index_range", index_path("sample_index", bad), {"last": S - 1, "got": int(idx[bad])})]
    return []


# ---- explain -------------------------------------------------------------------------------------

def lazy_weight_text(ctx, h: int, l: int, S: int) -> dict[str, str]:
    """What a lazy query's weights are: 1 up to l when causal (cumsum of V), else the mean 1/S."""
    from attention.text import explanation as ex

    if ctx.opts.get("causal"):
        return ex._tx("explain.lazy.causal", l=ex.P(l), h1=ex.P(h))
    return ex._tx("explain.lazy.mean", l=ex.P(l), h1=ex.P(h), S=S)


def explain_not_computed(ctx, step_id: str, idx: tuple[int, ...]):
    """A score of a query that was not selected was never computed (NaN); None for an active one."""
    from attention.text import explanation as ex

    b, h, l, s = idx
    if bool(ctx.raw("extra.selected")[b, h, l]):
        return None
    M = ctx.a("extra.sparsity")
    top = ctx.raw("extra.top_index")[b, h]
    floor = float(min(M[b, h, int(t)] for t in top))
    u = len(top)
    return ex._explanation(
        step_id, idx, ctx.value(step_id, idx), ex._tx("explain.lazy.formula"), [], math.nan,
        ex._tx("explain.lazy.summary", nan=ex.fmt(math.nan), l=ex.P(l), h1=ex.P(h), u=u, m=ex.fmt(M[b, h, l]),
               floor=ex.fmt(floor)),
        ex._same(ex.fmt(math.nan)),
        (ex.Source("extra.sparsity", (b, h, l)), ex.Source("extra.selected", (b, h, l))))


def explain_lazy_weight(ctx, step_id: str, idx: tuple[int, ...]):
    """The weight a lazy query really uses: 1/S (mean of V), or 1 up to l when causal (cumsum)."""
    from attention.text import explanation as ex

    b, h, l, s = idx
    S = ctx.raw(step_id).shape[-1]
    causal = ctx.opts.get("causal")
    w = (1.0 if s <= l else 0.0) if causal else 1.0 / S
    rule = ex._tx("explain.weights.causal_rule") if causal else ex._same(f"1/S = 1/{S}")
    term = ex.Term(ex._tx("explain.weights.effective_term", rule=rule, w=ex.fmt(w)), w,
                   (ex.Source("extra.selected", (b, h, l)),))
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), ex._tx("explain.weights.lazy_formula"), [term], w,
                           lazy_weight_text(ctx, h, l, S), ex._same(ex.fmt(w)),
                           (ex.Source("extra.sparsity", (b, h, l)),))


# ---- script --------------------------------------------------------------------------------------

def script_scores(plan, step_id: str) -> str:
    sc = plan.sc
    import torch  # only to write down the engine's draw of sampled keys

    from attention.text import script as se

    n_sample, n_top = sc.prob_sparse_sizes()
    gen = torch.Generator(device="cpu").manual_seed(int(sc.seed))
    idx = torch.randint(sc.S, (sc.L, n_sample), generator=gen).numpy()
    return se.section(plan, step_id) + f'''# ProbSparse (Informer): score only the most "peaked" queries
n_sample, n_top = {n_sample}, {n_top}  # factor c = {sc.factor}: c*ceil(ln S), c*ceil(ln L), clipped to S and L
# The keys sampled for each query, as the engine drew them:
#   torch.randint(S, (L, n_sample), generator=torch.Generator(device="cpu").manual_seed({int(sc.seed)}))
# (Informer draws the same after torch.manual_seed({int(sc.seed)})).  Written out so the script does not
# depend on torch's random number generator staying the same between versions.
sample_index = torch.tensor({se.literal(idx)})  # (L, n_sample)
qh, kh, vh = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # (B, H, L|S, d)
k_sample = kh[:, :, sample_index, :]  # (B, H, L, n_sample, d_k)
sampled_scores = (qh.unsqueeze(-2) @ k_sample.transpose(-2, -1)).squeeze(-2)  # (B, H, L, n_sample), unscaled
M = sampled_scores.max(-1).values - sampled_scores.sum(-1) / S  # sparsity measure, divided by the full S
top_index = M.topk(n_top, sorted=False).indices  # (B, H, n_top): the chosen ("active") queries
b_i = torch.arange(B)[:, None, None]
h_i = torch.arange(H)[None, :, None]
q_top = qh[b_i, h_i, top_index]  # (B, H, n_top, d_k)
top = (q_top @ kh.transpose(-2, -1)) * scale  # (B, H, n_top, S): scores of the chosen queries only
rows = top_index[..., None].expand(-1, -1, -1, S)  # where the chosen rows go in (B, H, L, S)
scores = torch.full((B, H, L, S), float("nan"), dtype=dtype)  # NaN: never computed
scores.scatter_(2, rows, top)
''' + se.show(step_id, "scores")


def script_masked(plan, step_id: str) -> str:
    sc = plan.sc
    from attention.kinds import mask_rules
    from attention.text import script as se

    masked = ("top_masked = top\nmasked_scores = scores  # no mask\n" if not sc.causal else
              "top_masked = top.masked_fill(mask[b_i, top_index], fill_value)  "
              "# the mask rows of the chosen queries\n"
              "masked_scores = torch.full((B, H, L, S), float(\"nan\"), dtype=dtype)\n"
              "masked_scores.scatter_(2, rows, top_masked)\n")
    return se.section(plan, step_id) + mask_rules.script(plan) + masked + se.show(step_id, "masked_scores")


def script_weights(plan, step_id: str) -> str:
    sc = plan.sc
    from attention.text import script as se

    lazy = ("lazy = torch.ones(L, S, dtype=dtype).tril()  "
            "# causal: a lazy query's output is the cumulative sum of V up to l\n"
            "base = lazy.expand(B, H, L, S).clone()\n" if sc.causal else
            "base = torch.full((B, H, L, S), 1.0 / S, dtype=dtype)  "
            "# a lazy query's output is the mean of V over all keys\n")
    return (se.section(plan, step_id)
            + "# softmax on the chosen rows; the weights the lazy rows really use\n" + lazy
            + "attention_weights = base.scatter_(2, rows, torch.softmax(top_masked, dim=-1))\n"
            + se.show(step_id, "attention_weights"))



# ---- explain: the sample, the sparsity measure and the chosen queries (records above) -------------

def _sampled_scores(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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


def _sparsity(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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


def _sample_index(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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


def _sample_count(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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


def _top_index(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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


def _selected(ctx: Context, step_id: str, idx: tuple[int, ...]) -> Explanation:
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
