"""Soft-capping the scores (Gemma 2): s -> cap * tanh(s / cap).

Near 0 it is the identity (tanh x ~ x), large scores bend smoothly towards +-cap, so no single
key can take all the weight through one huge logit.  Gemma 2 applies it to the already scaled
scores (its scale is query_pre_attn_scalar ** -0.5, not d_k ** -0.5), before the mask is added.
The order of the operations is transformers' (divide, tanh, multiply), so a float64 run matches
its eager attention elementwise.  Shapes: any; in the engine (B, H, L, S).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from attention.datamodel.fields import Field

if TYPE_CHECKING:  # the registry imports this module before torch has loaded
    import torch


def softcap(scores: torch.Tensor, cap: float) -> torch.Tensor:
    """cap * tanh(scores / cap), elementwise.  cap > 0 (the caller's problems() check it)."""
    import torch

    if not cap > 0:
        raise ValueError(f"cap={cap} must be > 0")
    return torch.tanh(scores / cap) * cap


def gemma_scale(query_pre_attn_scalar: float) -> float:
    """Gemma 2/3's score scale, query_pre_attn_scalar ** -0.5 (it need not equal d_k)."""
    return query_pre_attn_scalar ** -0.5


def softcap_value(score: float, cap: float) -> float:
    """One cell, for explain: the same formula in Python floats."""
    return math.tanh(score / cap) * cap


# ---- the kind: a score modifier of the registry (attention/registry/kinds.py MODIFIERS) -------------
# One step before the mask, "softcap.scores" (B, H, L, S) = cap * tanh(s / cap) of the scores as read
# there (the scaled scores, or ALiBi's biased scores), standing for "scores": the mask fills the capped
# scores, as Gemma 2 adds its mask after the cap.  Gemma's own scale, query_pre_attn_scalar ** -0.5, is
# the scenario's scale (gemma_scale): the cap needs nothing else.

NAME = "softcap"


def cap_of(sc) -> float:
    from attention.datamodel import parts

    return float(parts.find(sc, "modifiers", NAME).get("cap", DEFAULT_CAP))


#: Gemma 2's attn_logit_softcapping
DEFAULT_CAP = 50.0


def scores_step(run, step_id: str):
    """softcap.scores (B, H, L, S): cap * tanh(scores / cap)."""
    return softcap(run.inputs["scores"], cap_of(run.sc))


class Softcap:
    """Soft-capping as a score modifier: its field, its step, its checks, explain and script."""

    name = NAME
    chain_rank = 1  # its place among the modifiers acting on the scores in turn: after ALiBi's bias, before the sinks
    in_panel = True  # the Parameters panel's "Position & modifiers" group offers it
    fields = (Field("modifiers.softcap.cap", "float", "field.softcap.cap", "field.softcap.cap.help",
                    default=DEFAULT_CAP, minimum=1e-6, maximum=1e6, group="modifiers"),)
    tiled = "read"  # the cap is applied to each tile's scores before the online softmax: read from the trace
    not_tiled_words = ""

    def __repr__(self) -> str:
        return f"<modifier {self.name}>"

    def records(self):
        from attention.datamodel import parts
        from attention.datamodel.step_record import StepRecord
        from attention.text import lesson as le

        return (StepRecord("softcap.scores", ("B", "H", "L", "S"), "signed", "step.softcap.scores.title",
                           "step.softcap.scores.formula", scores_step, parts.present("modifiers", NAME), explain_scores,
                           le._sentences, script_scores, ("scores",), before="masked_scores", stands_for="scores",
                           by_hand=("scores",), repeats=(("scores", "softcap_small"),)),)

    def memory_numbers(self, sc) -> int:
        """The numbers its step keeps: the capped scores (B, H, L, S)."""
        return sc.batch * sc.n_heads * sc.L * sc.S

    def part_problems(self, sc, part, path: str, kinds) -> list:
        from attention.datamodel.problem import Problem
        from attention.kinds.alibi import order_problems

        if kinds.scoring.tiled is None:  # ProbSparse: its lazy rows are never scored
            return [Problem("softcap_scoring", path, {"kind": sc.scoring})]
        return order_problems(sc, part, path, kinds)


SOFTCAP = Softcap()


def explain_scores(ctx, step_id: str, idx: tuple[int, ...]):
    """cap · tanh(score / cap), with the numbers."""
    from attention.text import explanation as ex

    b, h, l, s = idx
    src = ctx.reads("scores", before=step_id)
    score = ctx.value(src, idx)
    cap = _cap_in(ctx.opts)
    inner = score / cap
    t = math.tanh(inner)
    result = cap * t
    term = ex.Term(ex._same(f"{src}[{b},{h},{l},{s}] = {ex.fmt(score)}"), score, (ex.Source(src, idx),))
    squeeze = abs(score) - abs(result)
    return ex._explanation(
        step_id, idx, ctx.value(step_id, idx), ex._tx("explain.softcap.formula", b=b, h=h, l=l, s=s, cap=ex.fmt(cap)),
        [term], result,
        ex._tx("explain.softcap.summary", cap=ex.fmt(cap), score=ex.fmt(score), result=ex.fmt(result),
               squeeze=ex.fmt(squeeze)),
        ex._same(f"{ex.fmt(cap)} × tanh({ex.fmt(score)} / {ex.fmt(cap)}) = {ex.fmt(cap)} × tanh({ex.fmt(inner)}) = "
                 f"{ex.fmt(cap)} × {ex.fmt(t)} = {ex.fmt(result)}"))


def _cap_in(options) -> float:
    for p in options.get("modifiers", ()):
        if p.get("kind") == NAME:
            return float(p.get("cap", DEFAULT_CAP))
    return DEFAULT_CAP


def script_scores(plan, step_id: str) -> str:
    sc = plan.sc
    from attention.text import script as se

    return (se.section(plan, step_id) + f"softcap = {se._num(cap_of(sc))}  # Gemma 2: attn_logit_softcapping\n"
            + "scores = torch.tanh(scores / softcap) * softcap  # (B, H, L, S): near 0 unchanged, "
              "bent towards +-softcap\n"
            + se.show(step_id, "scores"))
