"""ALiBi (attention with linear biases, Press et al. 2022): no position embedding at all; each head h
adds slope_h times a key position to its (scaled) scores, so far-away keys lose weight linearly.

Slopes.  BLOOM's formula, as transformers' build_alibi_tensor: for n heads take the largest power
of two c <= n; the first c slopes are base ** 1 .. base ** c with base = 2 ** (-8 / c) (a
geometric series starting at 2 ** (-8/c)); when n is not a power of two, the remaining n - c heads
take the odd powers 1, 3, 5, .. of 2 ** (-8 / (2c)) (every other slope of the 2c-head series).
transformers builds the base as a float32 tensor and raises it to int32 powers in float32;
hf_float32=True reproduces those float32 slopes (then cast), the default computes in float64.
For a power-of-two n of 8 or fewer heads the slopes are exact powers of two and both agree; for
others they differ: the float32 base's rounding is raised to the k-th power, so slope k is off by
up to about k * 6e-8 relative (2e-6 at 32 heads), which a float64 comparison with transformers sees.

The bias, two equivalent forms (a per-row constant apart, which softmax ignores):
  "key"      bias[h, l, s] = slope_h * s         what BLOOM adds (query-independent, (H, 1, S))
  "relative" bias[h, l, s] = slope_h * (s - l)   the paper's form: 0 on the diagonal, -slope_h
                                                 per step back (a distance penalty)
They differ by slope_h * l in row l, so the attention weights (and outputs) are the same under
any mask; only the scores step shows a different number.  The default is "key" so that the
scores step equals what the imported model itself computes (capture, golden files); explain can
still say the relative story ("the same as -slope x distance, up to the row's constant").
With padding BLOOM's key positions are (cumsum(keep) - 1) * keep: a key's position counts only
kept keys before it (left padding shifts them); key_positions() gives those.

Shapes: B batch, H heads, L queries, S keys.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

from attention.datamodel.fields import Field

if TYPE_CHECKING:  # the registry imports this module before torch has loaded
    import torch

Form = Literal["key", "relative"]
FORMS: tuple[Form, ...] = ("key", "relative")


def _series(n: int, dtype: torch.dtype, hf_float32: bool) -> torch.Tensor:
    """Slopes of BLOOM's formula, step by step as build_alibi_tensor: (n,)."""
    import torch

    c = 2 ** math.floor(math.log2(n))  # closest power of two <= n
    work = torch.float32 if hf_float32 else torch.float64
    base = torch.tensor(2 ** (-(2 ** -(math.log2(c) - 3))), dtype=work)  # 2 ** (-8 / c)
    slopes = torch.pow(base, torch.arange(1, 1 + c, dtype=torch.int32))  # (c,)
    if c != n:
        extra_base = torch.tensor(2 ** (-(2 ** -(math.log2(2 * c) - 3))), dtype=work)  # 2 ** (-8 / 2c)
        remaining = min(c, n - c)
        extra = torch.pow(extra_base, torch.arange(1, 1 + 2 * remaining, 2, dtype=torch.int32))  # odd powers
        slopes = torch.cat([slopes, extra])
    return slopes.to(dtype)


def bloom_slopes(n_heads: int, dtype: "torch.dtype | None" = None, hf_float32: bool = False) -> torch.Tensor:
    """(H,) BLOOM's default slopes for n_heads heads (any n >= 1, powers of two or not)."""
    import torch

    if n_heads < 1:
        raise ValueError(f"n_heads={n_heads} must be >= 1")
    return _series(n_heads, torch.float64 if dtype is None else dtype, hf_float32)


def key_positions(keep: torch.Tensor) -> torch.Tensor:
    """keep (B, S) bool (True = a real key) -> (B, S) BLOOM's positions (cumsum(keep) - 1) * keep:
    each kept key's index among the kept keys, 0 at padding."""
    import torch

    k = keep.to(torch.int64)
    return (k.cumsum(dim=-1) - 1) * k


def alibi_bias(slopes: torch.Tensor, L: int, S: int, form: Form = "key",
               key_pos: torch.Tensor | None = None, hf_float32: bool = False) -> torch.Tensor:
    """The bias added to the scaled scores: slopes (H,) -> (1, H, L, S), or (B, H, L, S) when
    key_pos (B, S) is given (BLOOM's padded positions; "key" form only).

    Shaped as the scores (the "key" form as a broadcast view over L, no copy) so the trace can
    show it as a step.  hf_float32: transformers multiplies slope by position in float32 and casts
    the product; the default multiplies in the slopes' dtype."""
    import torch

    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, not {form!r}")
    if form == "relative" and key_pos is not None:
        raise ValueError("key positions (padding) apply to the 'key' form only")
    dt, dev, H = slopes.dtype, slopes.device, slopes.shape[0]
    work = torch.float32 if hf_float32 else dt
    m = slopes.to(work)
    if form == "relative":
        dist = torch.arange(S, device=dev)[None, :] - torch.arange(L, device=dev)[:, None]  # (L, S): s - l
        return (m[:, None, None] * dist.to(work)).to(dt)[None]  # (1, H, L, S)
    if key_pos is None:
        key_pos = torch.arange(S, device=dev)[None, :]  # (1, S)
    bias = (m[None, :, None, None] * key_pos.to(work)[:, None, None, :]).to(dt)  # (B or 1, H, 1, S)
    return bias.expand(bias.shape[0], H, L, S)


def add_bias(scores: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """scores (B, H, L, S) + bias (1 or B, H, L, S): the visible 'biased scores' step, before the mask."""
    return scores + bias


# ---- the kind: a score modifier of the registry (attention/registry/kinds.py MODIFIERS) -------------
# Two steps, both before the mask: "alibi.bias" (H, L, S), slope_h times the key's position (or the
# distance s - l), and "alibi.scores" (B, H, L, S), the scores plus that bias, which every later step
# reads in place of "scores" (stands_for): the mask then fills the biased scores.  The slopes used are
# kept in the trace's parameters ("alibi.slopes", (H,)) so explain can name each head's slope.

NAME = "alibi"
SLOPES = "alibi.slopes"  # the trace parameter holding the slopes used, (H,)


def _part(sc):
    from attention.datamodel import parts

    return parts.find(sc, "modifiers", NAME)


def slopes_of(sc, dtype=None, device=None) -> "torch.Tensor":
    """(H,) the scenario's slopes: the part's own, or BLOOM's formula for its query heads."""
    import numpy as np
    import torch

    given = _part(sc).get("slopes")
    if given is None:
        return bloom_slopes(sc.n_heads, dtype).to(device)
    return torch.as_tensor(np.asarray(given, dtype=np.float64), dtype=dtype or torch.float64, device=device)


def form_of(sc) -> str:
    return _part(sc).get("form", "key")


def bias_step(run, step_id: str):
    """alibi.bias (H, L, S): slope_h * s ("key") or slope_h * (s - l) ("relative")."""
    sc = run.sc
    slopes = slopes_of(sc, run.dt, run.dev)  # (H,)
    run.params[SLOPES] = slopes
    return alibi_bias(slopes, sc.L, sc.S, form_of(sc))[0].contiguous()  # (H, L, S)


def scores_step(run, step_id: str):
    """alibi.scores (B, H, L, S): the scores (as read here: scaled, or a step standing for them) plus the bias."""
    return add_bias(run.inputs["scores"], run.inputs["alibi.bias"][None])


class Alibi:
    """ALiBi as a score modifier: its fields, its two steps, its checks, explain and script."""

    name = NAME
    chain_rank = 0  # its place among the modifiers acting on the scores in turn: its bias is added to the scores first
    in_panel = True  # the Parameters panel's "Position & modifiers" group offers it
    fields = (
        Field("modifiers.alibi.slopes", "matrix", "field.alibi.slopes", "field.alibi.slopes.help", nullable=True,
              group="modifiers"),
        Field("modifiers.alibi.form", "choice", "field.alibi.form", "field.alibi.form.help", default="key",
              choices=FORMS, choice_words=tuple(f"field.alibi.form.{f}" for f in FORMS), group="modifiers"),
    )
    tiled = "read"  # FlashAttention adds the bias inside the kernel: the tiles read the biased scores
    not_tiled_words = ""

    def __repr__(self) -> str:
        return f"<modifier {self.name}>"

    def records(self):
        from attention.datamodel import parts
        from attention.datamodel.step_record import StepRecord
        from attention.text import lesson as le

        active = parts.present("modifiers", NAME)
        return (
            StepRecord("alibi.bias", ("H", "L", "S"), "signed", "step.alibi.bias.title", "step.alibi.bias.formula",
                       bias_step, active, explain_bias, le._sentences, script_bias, (), before="alibi.scores"),
            StepRecord("alibi.scores", ("B", "H", "L", "S"), "signed", "step.alibi.scores.title",
                       "step.alibi.scores.formula", scores_step, active, explain_scores, le._sentences, script_scores,
                       ("scores", "alibi.bias"), before="masked_scores", stands_for="scores", by_hand=("scores",),
                       repeats=(("scores", "alibi_zero"),)),
        )

    def memory_numbers(self, sc) -> int:
        """The numbers its steps keep: the bias (H, L, S) and the biased scores (B, H, L, S)."""
        return sc.n_heads * sc.L * sc.S * (1 + sc.batch)

    def part_problems(self, sc, part, path: str, kinds) -> list:
        """Slopes one finite number per query head; a scoring whose scores are all computed."""
        import numpy as np

        from attention.datamodel.problem import Problem
        from attention.datamodel.problem import shape as _shape

        errs = order_problems(sc, part, path, kinds)
        if kinds.scoring.tiled is None:  # ProbSparse: its lazy rows are never scored, nothing to bias
            errs.append(Problem("alibi_scoring", path, {"kind": sc.scoring}))
        given = part.get("slopes")
        if given is not None:
            try:
                a = np.asarray(given, dtype=np.float64)
            except (TypeError, ValueError):
                return errs + [Problem("alibi_slopes", f"{path}.slopes", {"H": sc.n_heads, "got": "?"})]
            if a.shape != (sc.n_heads,):
                errs.append(Problem("alibi_slopes", f"{path}.slopes", {"H": sc.n_heads, "got": _shape(a.shape)}))
            elif not np.all(np.isfinite(a)):
                errs.append(Problem("alibi_slopes_finite", f"{path}.slopes"))
        return errs


ALIBI = Alibi()


def order_problems(sc, part, path: str, kinds) -> list:
    """A modifier listed in another order than the engine applies them is named: the modifiers that act
    on the scores one after the other (each reads what the one before wrote) say their place
    (`chain_rank`: ALiBi's bias, then the cap, then the sinks), and the steps are computed once each, in
    that order, whatever the list says (one listed twice: attention.compute.check.repeats)."""
    from attention.datamodel.problem import Problem

    chained = [m for m in kinds.modifiers if hasattr(m, "chain_rank")]  # only these act on the scores in turn
    order = [m.name for m in sorted({m.name: m for m in chained}.values(), key=lambda m: m.chain_rank)]
    if [m.name for m in chained] != order:
        return [Problem("modifier_order", path, {"order": ", ".join(order)})]
    return []


# ---- explain (attention/teaching/explain.py's records and words) ---------------------------------------------

def _position_text(form: str, l: int, s: int) -> str:
    return f"{s}" if form == "key" else f"({s} − {l})"


def explain_bias(ctx, step_id: str, idx: tuple[int, ...]):
    from attention.text import explanation as ex

    h, l, s = idx
    slope = float(ctx.param(SLOPES)[h])
    form = _form_in(ctx.opts)
    pos = s if form == "key" else s - l
    value = ctx.value(step_id, idx)
    result = slope * pos
    term = ex.Term(ex._same(f"slope[{h}] × {_position_text(form, l, s)} = {ex.fmt(slope)} × {pos} = {ex.fmt(result)}"),
                   result, (ex.Source(SLOPES, (h,)),), factors=(slope, float(pos)))
    return ex._explanation(
        step_id, idx, value, ex._tx(f"explain.alibi.bias.formula.{form}", h=h, l=l, s=s), [term], result,
        ex._tx(f"explain.alibi.bias.summary.{form}", h1=ex.P(h), l=ex.P(l), s=ex.P(s), slope=ex.fmt(slope),
               pos=pos),
        ex._same(f"{ex.fmt(slope)} × {_position_text(form, l, s)} = {ex.fmt(result)}"))


def explain_scores(ctx, step_id: str, idx: tuple[int, ...]):
    """score + slope · position = the biased score."""
    from attention.text import explanation as ex

    b, h, l, s = idx
    src = ctx.reads("scores", before=step_id)
    score = ctx.value(src, idx)
    bias = ctx.value("alibi.bias", (h, l, s))
    slope = float(ctx.param(SLOPES)[h])
    form = _form_in(ctx.opts)
    terms = [ex.Term(ex._same(f"{src}[{b},{h},{l},{s}] = {ex.fmt(score)}"), score, (ex.Source(src, idx),)),
             ex.Term(ex._same(f"alibi.bias[{h},{l},{s}] = {ex.fmt(slope)} × {_position_text(form, l, s)} = "
                              f"{ex.fmt(bias)}"), bias, (ex.Source("alibi.bias", (h, l, s)),),
                     factors=(slope, float(s if form == "key" else s - l)))]
    result = score + bias
    return ex._explanation(
        step_id, idx, ctx.value(step_id, idx), ex._tx(f"explain.alibi.scores.formula.{form}", b=b, h=h, l=l, s=s),
        terms, result,
        ex._tx("explain.alibi.scores.summary", l=ex.P(l), s=ex.P(s), h1=ex.P(h), slope=ex.fmt(slope)),
        ex._same(f"{ex.fmt(score)} + {ex.fmt(bias)} = {ex.fmt(result)}"))


def _form_in(options) -> str:
    for p in options.get("modifiers", ()):
        if p.get("kind") == NAME:
            return p.get("form", "key")
    return "key"


# ---- the exported script -----------------------------------------------------------------------------

def script_bias(plan, step_id: str) -> str:
    sc = plan.sc
    import numpy as np

    from attention.text import script as se

    given = _part(sc).get("slopes")
    if given is None:
        slopes = ("# BLOOM's slopes: for n heads take c = the largest power of two <= n; head i < c gets\n"
                  "# 2 ** (-8 (i + 1) / c), the others the odd powers of 2 ** (-8 / (2c))\n"
                  "c = 2 ** math.floor(math.log2(H))\n"
                  "alibi_slopes = [2 ** (-8 * (i + 1) / c) for i in range(c)]\n"
                  "alibi_slopes += [2 ** (-8 * (2 * i + 1) / (2 * c)) for i in range(min(c, H - c))]\n"
                  "alibi_slopes = torch.tensor(alibi_slopes, dtype=torch.float64).to(dtype)  # (H,)\n")
    else:
        slopes = se.tensor_literal("alibi_slopes", np.asarray(given, dtype=np.float64), "(H,) one slope per head")
    if form_of(sc) == "key":
        pos = "pos = torch.arange(S, dtype=dtype)[None, :].expand(L, S)  # (L, S): the key's position s\n"
    else:
        pos = "pos = (torch.arange(S)[None, :] - torch.arange(L)[:, None]).to(dtype)  # (L, S): s - l\n"
    return (se.section(plan, step_id) + "import math\n" + slopes + pos
            + "alibi_bias = alibi_slopes[:, None, None] * pos  # (H, L, S)\n" + se.show(step_id, "alibi_bias"))


def script_scores(plan, step_id: str) -> str:
    from attention.text import script as se

    return (se.section(plan, step_id)
            + "scores = scores + alibi_bias[None]  # (B, H, L, S): the mask below reads the biased scores\n"
            + se.show(step_id, "scores"))
