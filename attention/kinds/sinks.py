"""Attention sinks (gpt-oss): each head h has one learned logit sink_h that joins every row's
softmax as an extra column and is dropped afterwards.  The sink takes part of the mass, so a
row's weights sum to 1 - sink_mass < 1: a query may attend to "nothing" instead of being forced
to spread a full unit of weight over keys it does not need.

Matches transformers' gpt_oss eager_attention_forward step by step: the (masked) scores and the
sink column are concatenated, the row maximum INCLUDING the sink is subtracted, softmax runs over
the S + 1 columns, and the sink column is dropped.  A row whose keys are all masked (-inf) is not
NaN here: the sink alone takes the whole mass and every key weight is 0.

Shapes: B batch, H heads, L queries, S keys; sinks (H,).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from attention.datamodel.fields import Field

if TYPE_CHECKING:  # the registry imports this module before torch has loaded
    import torch


def with_sink_column(masked_scores: torch.Tensor, sinks: torch.Tensor) -> torch.Tensor:
    """(B, H, L, S), (H,) -> (B, H, L, S + 1): the sink logit appended to every row of its head."""
    import torch

    B, H, L, S = masked_scores.shape
    col = sinks.to(masked_scores.dtype).reshape(1, H, 1, 1).expand(B, H, L, 1)
    return torch.cat([masked_scores, col], dim=-1)


def softmax_with_sink(masked_scores: torch.Tensor, sinks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, H, L, S), (H,) -> weights (B, H, L, S) and the sink's mass (B, H, L).

    weights + sink mass sums to 1 along each row; the weights alone sum to less."""
    import torch

    combined = with_sink_column(masked_scores, sinks)  # (B, H, L, S + 1)
    combined = combined - combined.max(dim=-1, keepdim=True).values  # the max includes the sink: finite
    probs = torch.softmax(combined, dim=-1)
    return probs[..., :-1], probs[..., -1]


def sink_mass(masked_scores: torch.Tensor, sinks: torch.Tensor) -> torch.Tensor:
    """(B, H, L): the share of each row the sink took, 1 / (1 + sum_s exp(score_s - sink_h))."""
    return softmax_with_sink(masked_scores, sinks)[1]


# ---- the kind: a score modifier of the registry (attention/registry/kinds.py MODIFIERS) -------------
# Sinks change the softmax itself: where a scenario has a sinks part, the attention_weights step is
# computed here (`compute_weights`, asked by attention/pipeline/step_compute.py) and explained, taught and
# exported here too (`explain_cell`, `lesson_keys`, `script`), and one step shows what the sink took:
# "sinks.mass" (B, H, L), so that a row's weights plus its sink mass sum to 1.  Whatever else reads the
# weights asks this object: the FlashAttention tiles (`tiled` None: refused, `not_tiled_words` says
# why), the engine's note on fully masked rows (`fully_masked_code`: the sink takes them whole, no
# NaN, no uniform row).  The logits used are kept in the trace's parameters ("sinks.logits", (H,)).

NAME = "sinks"
LOGITS = "sinks.logits"  # the trace parameter holding the logits used, (H,)


def logits_of(sc, dtype=None, device=None) -> "torch.Tensor":
    import numpy as np
    import torch

    from attention.datamodel import parts

    given = parts.find(sc, "modifiers", NAME).get("logits")
    return torch.as_tensor(np.asarray(given, dtype=np.float64), dtype=dtype or torch.float64, device=device)


def mass_step(run, step_id: str):
    """sinks.mass (B, H, L): the share of each row the sink took (computed with the weights)."""
    mass = run.state.pop("sinks.mass", None)
    if mass is None:
        mass = sink_mass(run.inputs["masked_scores"], logits_of(run.sc, run.dt, run.dev))
    return mass


class Sinks:
    """Attention sinks as a score modifier: its field, its step, the weights it computes its own way."""

    name = NAME
    chain_rank = 2  # among the modifiers acting on the scores in turn: last (the sink column joins them)
    fields = (Field("modifiers.sinks.logits", "matrix", "field.sinks.logits", "field.sinks.logits.help",
                    group="modifiers"),)
    tiled = None  # the weights are a softmax over S + 1 columns: not the row softmax the tiles compute
    not_tiled_words = "tiles.not_applicable.sinks"
    fully_masked_code = "fully_masked_sink"  # the engine's note on rows with every key masked
    formulas = {"attention_weights": "step.attention_weights.formula.sinks"}  # step id -> its formula here

    def __repr__(self) -> str:
        return f"<modifier {self.name}>"

    def records(self):
        from attention.datamodel import parts
        from attention.datamodel.step_record import StepRecord
        from attention.text import lesson as le

        return (StepRecord("sinks.mass", ("B", "H", "L"), "weights", "step.sinks.mass.title",
                           "step.sinks.mass.formula", mass_step, parts.present("modifiers", NAME), explain_mass,
                           le._sentences, script_mass, ("masked_scores",), before="weighted_sum",
                           gives_away=(("attention_weights", "sink_rest"),)),)

    def memory_numbers(self, sc) -> int:
        """The mass (B, H, L) kept, and the softmax's (B, H, L, S + 1) temporaries: the logits with the
        sink's column and their probabilities."""
        return sc.batch * sc.n_heads * sc.L * (1 + 2 * (sc.S + 1))

    def part_problems(self, sc, part, path: str, kinds) -> list:
        import numpy as np

        from attention.datamodel.problem import Problem
        from attention.datamodel.problem import shape as _shape
        from attention.kinds.alibi import order_problems

        if kinds.scoring.tiled is None:  # ProbSparse: its lazy rows take the mean of V, no softmax
            return [Problem("sinks_scoring", path, {"kind": sc.scoring})]
        if order_problems(sc, part, path, kinds):
            return order_problems(sc, part, path, kinds)
        given = part.get("logits")
        try:
            a = None if given is None else np.asarray(given, dtype=np.float64)
        except (TypeError, ValueError):
            a = np.zeros(0)
        if a is None or a.shape != (sc.n_heads,):
            got = "null" if a is None else _shape(a.shape)
            return [Problem("sinks_logits", f"{path}.logits", {"H": sc.n_heads, "got": got})]
        if not np.all(np.isfinite(a)):
            return [Problem("sinks_logits_finite", f"{path}.logits")]
        return []

    # ---- the weights, computed, explained, taught and exported here -------------------------------------
    def compute_weights(self, run):
        """attention_weights (B, H, L, S) with the sink column: rows sum to 1 - sinks.mass."""
        logits = logits_of(run.sc, run.dt, run.dev)  # (H,)
        run.params[LOGITS] = logits
        weights, mass = softmax_with_sink(run.inputs["masked_scores"], logits)
        run.state["sinks.mass"] = mass
        return weights

    def explain_cell(self, ctx, step_id: str, idx: tuple[int, ...]):
        if step_id == "attention_weights":
            return explain_weights(ctx, step_id, idx)
        if step_id == "extra.fully_masked" and bool(ctx.raw(step_id)[idx]):
            return explain_fully_masked(ctx, step_id, idx)
        return None

    def lesson_keys(self, step_id: str, keys: list[str], v: dict) -> list[str]:
        if step_id != "attention_weights":
            return keys
        kept = [k for k in keys if k == "lesson.attention_weights.shape"]  # "sum to 1" no longer holds
        return ["lesson.sinks.weights.column"] + kept + ["lesson.sinks.weights.less"]

    def script_step(self, plan, step_id: str):
        sc = plan.sc
        if step_id != "attention_weights":
            return None
        from attention.text import script as se

        return (se.section(plan, step_id, "softmax over [masked scores, sink]; the sink column dropped")
                + se.tensor_literal("sinks", np.asarray(sc_logits(sc)), "(H,) one learned logit per head (gpt-oss)")
                + "combined = torch.cat([masked_scores, sinks.reshape(1, H, 1, 1).expand(B, H, L, 1)], dim=-1)"
                  "  # (B, H, L, S + 1)\n"
                + "combined = combined - combined.max(dim=-1, keepdim=True).values  # the max includes the sink\n"
                + "probs = torch.softmax(combined, dim=-1)\n"
                + "attention_weights = probs[..., :-1]  # (B, H, L, S): each row sums to 1 - the sink's mass\n"
                + se.show(step_id, "attention_weights"))


def sc_logits(sc):
    import numpy as np

    from attention.datamodel import parts

    return np.asarray(parts.find(sc, "modifiers", NAME).get("logits"), dtype=np.float64)


SINKS = Sinks()


# ---- explain -------------------------------------------------------------------------------------------

def _row_terms(ctx, b: int, h: int, l: int):
    """The exponentials of row l (each key, then the sink), shifted by the row's maximum with the sink."""
    from attention.text import explanation as ex

    row = ctx.a("masked_scores")[b, h, l]
    sink = float(ctx.param(LOGITS)[h])
    mask = ctx.mask
    m = max(float(np.max(row, initial=-math.inf)), sink)
    terms = []
    for j, x in enumerate(row):
        with np.errstate(invalid="ignore", over="ignore"):
            e = float(np.exp(np.float64(x) - np.float64(m)))
        terms.append(ex.Term(ex._same(f"j={j}: exp({ex.fmt(float(x))} − {ex.fmt(m)}) = {ex.fmt(e)}"), e,
                             (ex.Source("masked_scores", (b, h, l, j)),),
                             masked=bool(mask[b, l, j]) if mask is not None else False))
    e = math.exp(sink - m)
    terms.append(ex.Term(ex._tx("explain.sinks.sink_term", h=h, x=ex.fmt(sink), m=ex.fmt(m), e=ex.fmt(e)), e,
                         (ex.Source(LOGITS, (h,)),)))
    return terms, m, sink


def explain_weights(ctx, step_id: str, idx: tuple[int, ...]):
    """exp(s − m) / (Σ_j exp(s_j − m) + exp(sink − m)): the softmax with the sink's column."""
    from attention.text import explanation as ex

    b, h, l, s = idx
    terms, m, sink = _row_terms(ctx, b, h, l)
    exps = [t.value for t in terms]
    denom = ex._fsum(exps)
    result = exps[s] / denom
    mass = exps[-1] / denom
    row_sum = 1.0 - mass
    return ex._explanation(
        step_id, idx, ctx.value(step_id, idx), ex._tx("explain.sinks.weights.formula", b=b, h=h, l=l, s=s), terms,
        result, ex._tx("explain.sinks.weights.summary", l=ex.P(l), h1=ex.P(h), sink=ex.fmt(sink), m=ex.fmt(m),
                       mass=ex.fmt(mass), rest=ex.fmt(row_sum)),
        ex._same(f"{ex.fmt(exps[s])} / ({ex._sum_text(exps)}) = {ex.fmt(exps[s])} / {ex.fmt(denom)} = "
                 f"{ex.fmt(result)}"))


def explain_mass(ctx, step_id: str, idx: tuple[int, ...]):
    """exp(sink − m) / (Σ_j exp(s_j − m) + exp(sink − m))."""
    from attention.text import explanation as ex

    b, h, l = idx
    terms, m, sink = _row_terms(ctx, b, h, l)
    exps = [t.value for t in terms]
    denom = ex._fsum(exps)
    result = exps[-1] / denom
    return ex._explanation(
        step_id, idx, ctx.value(step_id, idx), ex._tx("explain.sinks.mass.formula", b=b, h=h, l=l), terms, result,
        ex._tx("explain.sinks.mass.summary", l=ex.P(l), h1=ex.P(h), sink=ex.fmt(sink), mass=ex.fmt(result),
               rest=ex.fmt(1.0 - result)),
        ex._same(f"{ex.fmt(exps[-1])} / ({ex._sum_text(exps)}) = {ex.fmt(exps[-1])} / {ex.fmt(denom)} = "
                 f"{ex.fmt(result)}"))


def explain_fully_masked(ctx, step_id: str, idx: tuple[int, ...]):
    """A row with every key masked: under a sink it is neither uniform nor NaN -- the sink takes it."""
    from attention.datamodel import numbers
    from attention.text import explanation as ex

    b, l = idx
    row = ctx.raw("extra.mask")[b, l]
    terms = [ex.Term(ex._same(f"mask[{b},{l},{s}] = {numbers.flag(m)}"), 1.0 if m else 0.0,
                     (ex.Source("extra.mask", (b, l, s)),), masked=bool(m)) for s, m in enumerate(row)]
    return ex._explanation(
        step_id, idx, 1.0, ex._tx("explain.sinks.fully.formula", b=b, l=l), terms, 1.0,
        ex._tx("explain.sinks.fully.summary", l=ex.P(l), b=ex.P(b), fill=ex.fmt(float(ctx.opts.get("fill_value")))),
        ex._same(numbers.flag(True)))


# ---- the exported script -----------------------------------------------------------------------------

def script_mass(plan, step_id: str) -> str:
    from attention.text import script as se

    return (se.section(plan, step_id) + "sink_mass = probs[..., -1]  # (B, H, L): what the sink took from each row\n"
            + se.show(step_id, "sink_mass"))
