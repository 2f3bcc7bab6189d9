"""d2l's additive attention as a scoring kind: score = w_v · tanh(W_q q + W_k k), per head.

Everything additive attention adds to the pipeline lives here: its field (hidden units), its
weights (the scenario's `additive` record: W_q, W_k, w_v per head) and their problems, the
hidden-features step (extra.additive_features), the score, and its explain, lesson and script.
"""
from __future__ import annotations

import math

from attention.datamodel.fields import INT_MAX, plain
from attention.kinds.dot_product import DotProduct

NAME = "additive"
#: the scenario attribute (and file section) holding the weights, and the weights' names in it
WEIGHTS = ("W_q", "W_k", "w_v")


class AdditiveKind(DotProduct):
    """Scores from a one-hidden-layer network; no scale by default (d2l)."""

    fields = (plain("scoring.hidden", "int", minimum=1, maximum=INT_MAX, group="scoring", file_key=f"{NAME}.hidden"),)
    extra_steps = ("extra.additive_features",)
    weights_attr = NAME
    tiled = "read"  # its scores are its own network's, not a product FlashAttention would fuse
    #: (name, one matrix per head) of each weight the editor offers: W_q and W_k are (H, N, width)
    weight_matrices = (("W_q", True), ("W_k", True), ("w_v", False))
    free_widths = True  # W_q and W_k map any query and key widths into the hidden space
    grouped_kv = False  # one W_k per query head: keys are not shared between heads

    def __init__(self):
        super().__init__(NAME, scaled=False, titles={"scores": f"step.scores.title.{NAME}"},
                         formulas={"scores": f"step.scores.formula.{NAME}"})

    def records(self) -> tuple:
        """d2l's hidden features, one L x S block per hidden unit (N*S: unit-major), before the scores."""
        from attention.datamodel.step_record import StepRecord
        from attention.text import lesson

        def active(sc, kinds) -> bool:  # the scenario's scoring kind is this one
            return kinds.scoring is self
        sid = "extra.additive_features"
        return (StepRecord(sid, ("B", "H", "L", "N*S"), "signed", f"step.{sid}.title", f"step.{sid}.formula",
                           features_step, active, explain_features, lesson._sentences, None,
                           ("head_split.query", "head_split.key"), before="scores"),)

    def parameters(self, sc, dev, dt) -> dict:
        from attention.ops.tensors import tensor

        a = sc.additive
        return {f"{NAME}.{n}": tensor(arr, dev, dt) for n, arr in zip(WEIGHTS, (a.W_q, a.W_k, a.w_v))}

    def parameter_paths(self, sc) -> tuple[str, ...]:
        return tuple(f"{NAME}.{n}" for n in WEIGHTS) if sc.additive is not None else ()

    def weight_problems(self, sc, check_values: bool) -> list:
        from attention.datamodel.problem import Problem
        from attention.datamodel.scenario import _got, _shape_problem, _value_problem

        a = sc.additive
        if a is None:
            return [Problem("additive_weights", NAME)]
        H, n = sc.n_heads, a.hidden
        if not isinstance(n, int) or n < 1:
            return [Problem("expected_int", f"{NAME}.hidden", {"minimum": 1, "got": _got(n)})]
        errs = []
        for name, arr, shape in zip(WEIGHTS, (a.W_q, a.W_k, a.w_v),
                                    ((H, n, sc.query_head_width), (H, n, sc.key_head_width), (H, n))):
            if arr.shape != shape:
                errs.append(_shape_problem(f"{NAME}.{name}", shape, arr.shape))
            elif check_values:
                bad = _value_problem(f"{NAME}.{name}", arr, sc.dtype)
                if bad is not None:
                    errs.append(bad)
        return errs

    def memory_terms(self, sc) -> tuple[int, int]:
        return (sc.additive.hidden if sc.additive is not None else 0), 0

    def options(self, sc) -> dict:
        return {"hidden": sc.additive.hidden}

    # ---- the engine ------------------------------------------------------------------------------
    def compute_scores(self, run):
        from attention.ops import steps

        features = run.state["additive_features"]  # (B, H, L, N, S), kept by the features step
        return steps.additive_scores(features, run.params[f"{NAME}.w_v"], run.scale)  # (B, H, L, S)

    # ---- explain, lessons, script ----------------------------------------------------------------
    def explain_cell(self, ctx, step_id: str, idx: tuple[int, ...]):
        return explain_score(ctx, step_id, idx) if step_id == "scores" else None

    def lesson_keys(self, step_id: str, keys: list[str], v: dict) -> list[str]:
        if step_id == "scores":
            return [f"lesson.scores.{NAME}", f"lesson.scores.{NAME}_widths"]
        return keys

    def script(self, plan, step_id: str):
        if step_id != "scores":
            return None
        from attention.text import script as se

        scale = ("scores = scores * scale  # an explicit scale\n" if plan.scale != 1.0
                 else "# additive attention is not scaled\n")
        return (se.section(plan, step_id)
                + "# d2l additive attention, per head\n"
                'fq = torch.einsum("blhe,hne->bhln", q, A_W_q)  # W_q q for every query: (B, H, L, hidden)\n'
                'fk = torch.einsum("bshe,hne->bhsn", k, A_W_k)  # W_k k for every key: (B, H, S, hidden)\n'
                "features = torch.tanh(fq[:, :, :, None, :] + fk[:, :, None, :, :])  # (B, H, L, S, hidden)\n"
                "scores = (features @ A_w_v[None, :, None, :, None]).squeeze(-1)  # w_v . features: (B, H, L, S)\n"
                + scale + se.show(step_id, "scores"))

    def script_numbers(self, sc) -> str:
        from attention.text import script as se

        a = sc.additive
        return (se.tensor_literal("A_W_q", a.W_q,
                                  f"additive W_q per head (H, hidden, query head width) = {tuple(a.W_q.shape)}")
                + se.tensor_literal("A_W_k", a.W_k,
                                    f"additive W_k per head (H, hidden, key head width) = {tuple(a.W_k.shape)}")
                + se.tensor_literal("A_w_v", a.w_v, f"additive w_v per head (H, hidden) = {tuple(a.w_v.shape)}"))


ADDITIVE = AdditiveKind()


def features_step(run, step_id: str):
    """extra.additive_features: tanh(W_q q + W_k k) for every head, query, hidden unit and key,
    kept in the trace as (B, H, L, N*S), a view: one L x S block per hidden unit."""
    from attention.ops import steps

    q, k = run.inputs["head_split.query"], run.inputs["head_split.key"]
    features = steps.additive_features(q, k, run.params[f"{NAME}.W_q"], run.params[f"{NAME}.W_k"])  # (B,H,L,N,S)
    run.state["additive_features"] = features
    B, H, L, N, S = features.shape
    return features.view(B, H, L, N * S)


def explain_score(ctx, step_id: str, idx: tuple[int, ...]):
    """One additive score: w_v · tanh(W_q q + W_k k), one term per hidden unit."""
    from attention.text import explanation as ex

    b, h, l, s = idx
    fmt, Term, Source = ex.fmt, ex.Term, ex.Source
    qid, kid = ctx.reads("head_split.query"), ctx.reads("head_split.key")  # rotated when RoPE is on
    q = ctx.a(qid)[b, l, h]
    k = ctx.a(kid)[b, s, h]
    Wq, Wk, wv = (ctx.param(f"{NAME}.{n}")[h] for n in WEIGHTS)
    scale = float(ctx.opts["scale"])
    terms = []
    for n in range(wv.shape[0]):
        fq = ex._fsum([float(Wq[n, e] * q[e]) for e in range(q.shape[0])])
        fk = ex._fsum([float(Wk[n, e] * k[e]) for e in range(k.shape[0])])
        arg = fq + fk
        th = math.tanh(arg)
        srcs = ([Source(f"{NAME}.W_q", (h, n, e)) for e in range(q.shape[0])]
                + [Source(qid, (b, l, h, e)) for e in range(q.shape[0])]
                + [Source(f"{NAME}.W_k", (h, n, e)) for e in range(k.shape[0])]
                + [Source(kid, (b, s, h, e)) for e in range(k.shape[0])]
                + [Source(f"{NAME}.w_v", (h, n))]
                + ([Source("extra.additive_features", (b, h, l, n * int(ctx.opts["S"]) + s))]
                   if ctx.has("extra.additive_features") else []))
        rest = (f"w_v[{n}] · tanh((W_q q)[{n}] + (W_k k)[{n}]) = {fmt(wv[n])} × "
                f"tanh({fmt(fq)} + {fmt(fk)} = {fmt(arg)}) = {fmt(wv[n])} × {fmt(th)} = {fmt(wv[n] * th)}")
        terms.append(Term(ex._tx("explain.additive.unit", n=n, rest=rest), float(wv[n]) * th, tuple(srcs),
                          factors=(float(wv[n]), th)))
    total = ex._fsum([t.value for t in terms])
    result = scale * total
    sums = ex._sum_text([t.value for t in terms])
    scaled = scale != 1.0
    combine = f"{fmt(scale)} × ({sums}) = {fmt(result)}" if scaled else f"{sums} = {fmt(total)}"
    return ex._explanation(
        step_id, idx, ctx.value(step_id, idx),
        ex._cat(ex._tx("explain.additive.formula", b=b, h=h, l=l, s=s), " × scale" if scaled else ""),
        terms, result,
        ex._tx("explain.additive.summary_scaled" if scaled else "explain.additive.summary",
               h1=ex.P(h), l=ex.P(l), s=ex.P(s), units=len(terms), scale=fmt(scale)),
        ex._same(combine))


def explain_features(ctx, step_id: str, idx: tuple[int, ...]):
    """One hidden feature of d2l's additive attention: column j = n * S + s (unit n, key s)."""
    from attention.text import explanation as ex

    b, h, l, j = idx
    fmt, Term, Source = ex.fmt, ex.Term, ex.Source
    S = int(ctx.opts["S"])
    n, s = divmod(j, S)
    qid, kid = ctx.reads("head_split.query"), ctx.reads("head_split.key")
    q = ctx.a(qid)[b, l, h]
    k = ctx.a(kid)[b, s, h]
    Wq, Wk = ctx.param(f"{NAME}.W_q")[h, n], ctx.param(f"{NAME}.W_k")[h, n]
    terms = []
    for sym, W, x, ref, pos in (("q", Wq, q, qid, (b, l, h)), ("k", Wk, k, kid, (b, s, h))):
        for e in range(x.shape[0]):
            p = float(W[e] * x[e])
            terms.append(Term(ex._same(f"W_{sym}[{n},{e}]·{sym}[{e}] = {fmt(W[e])} × {fmt(x[e])} = {fmt(p)}"), p,
                              (Source(f"{NAME}.W_{sym}", (h, n, e)), Source(ref, pos + (e,))),
                              factors=(float(W[e]), float(x[e]))))
    fq_vals = [t.value for t in terms[:q.shape[0]]]
    fk_vals = [t.value for t in terms[q.shape[0]:]]
    fq, fk = ex._fsum(fq_vals), ex._fsum(fk_vals)
    result = math.tanh(fq + fk)
    parts = ex._cat(ex._tx("explain.features.query_part", n=n, sum=ex._sum_text(fq_vals), v=fmt(fq)), "; ",
                    ex._tx("explain.features.key_part", n=n, sum=ex._sum_text(fk_vals), v=fmt(fk)), "; ",
                    f"tanh({fmt(fq)} + {fmt(fk)}) = tanh({fmt(fq + fk)}) = {fmt(result)}")
    return ex._explanation(
        step_id, idx, ctx.value(step_id, idx), ex._tx("explain.features.formula", b=b, h=h, l=l, n=n, s=s),
        terms, result,
        ex._tx("explain.features.summary", h1=ex.P(h), n=ex.P(n), l=ex.P(l), s=ex.P(s),
               units=ctx.param(f"{NAME}.w_v").shape[1]),
        parts)
