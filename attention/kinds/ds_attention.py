"""De-stationary attention (Non-stationary Transformer, TSL's DSAttention), step by step.

TSL's ``layers/SelfAttention_Family.py`` (MIT, thuml), DSAttention.forward, on heads already
split by AttentionLayer, q (B, L, H, E), k (B, S, H, E), v (B, S, H, D):

    scale = self.scale or 1 / sqrt(E)                   (an explicit 0 also becomes 1 / sqrt(E))
    tau   = 1.0 if None else tau.unsqueeze(1).unsqueeze(1)      (B, 1) -> (B, 1, 1, 1)
    delta = 0.0 if None else delta.unsqueeze(1).unsqueeze(1)    (B, S) -> (B, 1, 1, S)
    scores = einsum("blhe,bshe->bhls", q, k) * tau + delta       de-stationary, unscaled
    if mask_flag: scores[mask] = -inf  (TriangularCausalMask(B, L) when attn_mask is None)
    A = softmax(scale * scores)                                   (dropout: identity in eval)
    V = einsum("bhls,bshd->blhd", A, v)

So tau is one number per series (batch item), shared by all heads, queries and keys; delta is
one number per key, shared by all heads and queries.  The quirk: the scale multiplies the whole
de-stationary score, delta included, so what the softmax sees is
    scale·tau·(q·k) + scale·delta
(the paper writes softmax((tau·QKᵀ + 1·deltaᵀ) / sqrt(d_k)); the code agrees, but a reader of
"delta is added after the scaling" would be off by the factor `scale`).  Because delta is the
same for every query row, it only moves weight between keys; tau sharpens (> 1) or flattens (< 1).

The model learns them (models/Nonstationary_Transformer.py): x_raw (B, S_in, N) the raw series,
mean (B, 1, N) and std = sqrt(var_biased + 1e-5) (B, 1, N) its per-variable statistics;
    tau   = exp(clamp(Projector_tau(x_raw, std), max=80))      (B, 1)
    delta = Projector_delta(x_raw, mean)                        (B, S_in)
Projector: Conv1d(S_in -> 1, k=3, padding=1, circular, no bias) across the N variables (the time
steps are its channels), concatenated with the statistics to (B, 2N), then Linear+ReLU blocks and
a final bias-free Linear.  `series_stats` and `projector` below follow it.

Shapes: B batch, L queries, S keys, H heads, E query/key width, D value width, N variables.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

import attention.words as words
from attention.datamodel.fields import Field
from attention.datamodel.numbers import rounded
from attention.kinds.dot_product import DotProduct

if TYPE_CHECKING:  # torch loads when first computing: the registry is read before torch has loaded
    import torch

#: the model clamps the projector's log-tau here before exp ("avoid numerical overflow")
TAU_LOG_MAX = 80.0
#: added to the variance in the model's normalisation (biased variance)
STD_EPS = 1e-5

Factor = Union["torch.Tensor", float]


def scale_of(E: int, scale: Optional[float]) -> float:
    """`self.scale or 1/sqrt(E)`: None and 0 both give the default."""
    return scale or 1.0 / math.sqrt(E)


def shape_factors(tau: Optional[torch.Tensor], delta: Optional[torch.Tensor], B: int, S: int
                  ) -> tuple[Factor, Factor]:
    """The library's unsqueezes: tau (B, 1) -> (B, 1, 1, 1), delta (B, S) -> (B, 1, 1, S); None -> 1.0, 0.0.

    Other shapes are refused with a message naming the input (the library would broadcast a
    (B,) tau against the heads axis, which is not what anyone means)."""
    if tau is None:
        tau4: Factor = 1.0
    else:
        if tuple(tau.shape) != (B, 1):
            raise ValueError(f"tau must have shape ({B}, 1), one per series; got {tuple(tau.shape)}")
        tau4 = tau.unsqueeze(1).unsqueeze(1)  # (B, 1, 1, 1)
    if delta is None:
        delta4: Factor = 0.0
    else:
        if tuple(delta.shape) != (B, S):
            raise ValueError(f"delta must have shape ({B}, {S}), one per key; got {tuple(delta.shape)}")
        delta4 = delta.unsqueeze(1).unsqueeze(1)  # (B, 1, 1, S)
    return tau4, delta4


def raw_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """q (B, L, H, E), k (B, S, H, E) -> q·k (B, H, L, S), unscaled."""
    import torch

    return torch.einsum("blhe,bshe->bhls", q, k)


def destationary_scores(raw: torch.Tensor, tau4: Factor, delta4: Factor) -> torch.Tensor:
    """(B, H, L, S) q·k -> q·k·tau + delta, still unscaled (the library's order: times, then plus)."""
    return raw * tau4 + delta4


def causal_mask(L: int, S: int, device: Optional[torch.device] = None) -> torch.Tensor:
    """TriangularCausalMask as (L, S): True strictly above the diagonal.  The library builds it
    L×L, so it only fits S == L; a causal call with S != L fails there."""
    import torch

    if S != L:
        raise ValueError(f"the library's causal mask is L×L: it needs as many keys as queries (L={L}, S={S})")
    return torch.ones(L, S, dtype=torch.bool, device=device).triu(1)


def masked_scores(scores: torch.Tensor, mask: Optional[torch.Tensor]) -> torch.Tensor:
    """Fill masked cells (True) of the UNSCALED de-stationary scores with -inf (the library's order)."""
    return scores if mask is None else scores.masked_fill(mask, float("-inf"))


def weights(scores: torch.Tensor, scale: float) -> torch.Tensor:
    """softmax(scale · scores) over keys: the scale multiplies tau·q·k AND delta."""
    import torch

    return torch.softmax(scale * scores, dim=-1)


def weighted_sum(A: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """A (B, H, L, S), v (B, S, H, D) -> (B, L, H, D)."""
    import torch

    return torch.einsum("bhls,bshd->blhd", A, v)


def effective_delta(delta: torch.Tensor, scale: float) -> torch.Tensor:
    """What delta adds to the softmax's input: scale · delta (B, S) (the quirk, as a number)."""
    return scale * delta


@dataclass(frozen=True)
class DSParts:
    raw: torch.Tensor  # (B, H, L, S)   q·k
    scores: torch.Tensor  # (B, H, L, S) q·k·tau + delta
    masked: torch.Tensor  # (B, H, L, S) -inf where masked
    weights: torch.Tensor  # (B, H, L, S)
    output: torch.Tensor  # (B, L, H, D)
    scale: float


def ds_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                 tau: Optional[torch.Tensor] = None, delta: Optional[torch.Tensor] = None,
                 mask_flag: bool = False, attn_mask: Optional[torch.Tensor] = None,
                 scale: Optional[float] = None) -> DSParts:
    """DSAttention.forward in eval with every intermediate kept.

    attn_mask, when given, is a bool tensor broadcastable to (B, H, L, S) (True = masked); with
    mask_flag and no attn_mask the causal L×L mask is used; without mask_flag any mask is ignored."""
    B, L, H, E = q.shape
    S = k.shape[1]
    sc = scale_of(E, scale)
    tau4, delta4 = shape_factors(tau, delta, B, S)
    raw = raw_scores(q, k)
    scores = destationary_scores(raw, tau4, delta4)
    mask = None
    if mask_flag:
        mask = attn_mask if attn_mask is not None else causal_mask(L, S, q.device)
    masked = masked_scores(scores, mask)
    A = weights(masked, sc)
    return DSParts(raw, scores, masked, A, weighted_sum(A, v), sc)


# ---------------------------------------------------------------- where tau and delta come from


@dataclass(frozen=True)
class SeriesStats:
    mean: torch.Tensor  # (B, 1, N)
    std: torch.Tensor  # (B, 1, N)   sqrt(biased var + 1e-5)
    normalized: torch.Tensor  # (B, S_in, N)


def series_stats(x: torch.Tensor) -> SeriesStats:
    """The model's per-variable normalisation of x (B, S_in, N) (forecast(): before the embedding)."""
    import torch

    mean = x.mean(dim=1, keepdim=True)
    centred = x - mean
    std = torch.sqrt((centred ** 2).mean(dim=1, keepdim=True) + STD_EPS)
    return SeriesStats(mean, std, centred / std)


@dataclass(frozen=True)
class ProjectorWeights:
    conv_weight: torch.Tensor  # (1, S_in, 3), no bias
    linears: Sequence[tuple[torch.Tensor, Optional[torch.Tensor]]]  # (out, in) weight, bias; last has no bias


def projector(x: torch.Tensor, stats: torch.Tensor, w: ProjectorWeights) -> torch.Tensor:
    """Projector.forward: x (B, S_in, N) raw series, stats (B, 1, N) -> (B, O).

    The conv treats the S_in time steps as channels and slides (circularly, padding 1) along the
    N variables: a (B, N, S_in) input to the matrix-product conv below gives (B, N, 1)."""
    import torch

    from attention.ops.encoder_layer import circular_conv_matmul

    B = x.shape[0]
    conv = circular_conv_matmul(x.transpose(1, 2), w.conv_weight, None, pad=1).out  # (B, N, 1)
    h = torch.cat([conv.transpose(1, 2), stats], dim=1).reshape(B, -1)  # (B, 2N): conv row, then stats
    for i, (weight, bias) in enumerate(w.linears):
        h = h @ weight.T
        if bias is not None:
            h = h + bias
        if i < len(w.linears) - 1:
            h = torch.clamp(h, min=0)  # ReLU between the Linear layers, none after the last
    return h


def tau_from_log(log_tau: torch.Tensor) -> torch.Tensor:
    """tau = exp(clamp(log_tau, max=80)) (B, 1): positive, capped against overflow."""
    import torch

    return torch.exp(torch.clamp(log_tau, max=TAU_LOG_MAX))


def factors_passed(block: str, i: int, n_layers: int, distil: bool = False) -> tuple[bool, bool]:
    """(gets tau, gets delta) for attention layer i of a TSL block, as layers/Transformer_EncDec.py
    routes them: block "encoder" (distil: Informer's ConvLayers between the layers; then only the
    first layer gets delta and the last, after the convs, never does; without them every layer
    gets both), "decoder_self" (tau only) or "decoder_cross" (both; delta has one entry per
    encoder step, the cross-attention's keys)."""
    if block == "encoder":
        return True, (i == 0 and n_layers > 1) if distil else True
    if block == "decoder_self":
        return True, False
    if block == "decoder_cross":
        return True, True
    raise ValueError(f"block must be encoder, decoder_self or decoder_cross, got {block!r}")


def describe_cell(parts: DSParts, tau: Optional[torch.Tensor], delta: Optional[torch.Tensor],
                  b: int, h: int, l: int, s: int, lang: Optional[str] = None) -> str:
    """One score cell's arithmetic, the scale on delta spelt out (explain's line)."""
    t = float(tau[b, 0]) if tau is not None else 1.0
    d = float(delta[b, s]) if delta is not None else 0.0
    score = float(parts.scores[b, h, l, s])
    return words.text("tsl.ds.cell", lang, raw=rounded(float(parts.raw[b, h, l, s])), tau=rounded(t),
                      delta=rounded(d), score=rounded(score), scale=rounded(parts.scale),
                      scaled=rounded(parts.scale * score), scaled_delta=rounded(parts.scale * d))


# ---- the scoring kind "ds_attention" and its inputs, the part Part("destationary", {tau, delta}) -----
# The trace: extra.destationary = q·k·τ + Δ (the library's `scores`, unscaled), then
# scores = scale · extra.destationary (what the softmax sees: the scale multiplies Δ too), the mask
# (the scenario's fill; the library fills -inf) and the row softmax, as the dot-product kinds.

NAME = "ds_attention"
PART = "destationary"
STEP = "extra.destationary"


def _part(sc: Any):
    from attention.datamodel import parts

    return parts.find(sc, "modifiers", PART)


def tau_delta(sc: Any) -> tuple[Any, Any]:
    """(τ (B,), Δ (B, S)) as numpy float64: the part's, or the library's defaults 1 and 0 (None)."""
    import numpy as np

    p = _part(sc)
    tau = None if p is None else p.get("tau")
    delta = None if p is None else p.get("delta")
    tau = np.ones(sc.batch) if tau is None else np.asarray(tau, dtype=np.float64).reshape(-1)
    delta = np.zeros((sc.batch, sc.S)) if delta is None else np.asarray(delta, dtype=np.float64)
    return tau, delta


class Destationary:
    """τ (one per series) and Δ (one per key) of Non-stationary Transformer's DSAttention: the inputs
    the scoring kind "ds_attention" reads (a part, so that they need no attribute of their own)."""

    name = PART
    editable = ("tau", "delta")  # matrices the window's Inputs > Weights tab edits (app/viewmodel/matrix_ref.py)
    fields = (
        Field("modifiers.tau", "matrix", "field.modifiers.destationary.tau.label",
              "field.modifiers.destationary.tau.help", group="modifiers"),
        Field("modifiers.delta", "matrix", "field.modifiers.destationary.delta.label",
              "field.modifiers.destationary.delta.help", group="modifiers"),
    )

    def __repr__(self) -> str:
        return f"<modifier {self.name}>"

    def default_matrix(self, sc: Any, name: str):
        """What a left-out τ or Δ is (the library's 1.0 and 0.0), as the matrix the window edits."""
        import numpy as np

        return np.ones(sc.batch) if name == "tau" else np.zeros((sc.batch, sc.S))

    def part_problems(self, sc: Any, part: Any, path: str, kinds: Any) -> list:
        import numpy as np

        from attention.datamodel.problem import Problem, index_path
        from attention.datamodel.problem import shape as _shape

        if sc.scoring != NAME:
            return [Problem("destationary_scoring", path, {"scoring": NAME})]
        errs = []
        for f, want in ((self.fields[0], (sc.batch,)), (self.fields[1], (sc.batch, sc.S))):
            v = part.get(f.name)
            if v is None:
                continue
            arr = np.asarray(v, dtype=np.float64)
            if f.name == "tau" and arr.shape == (sc.batch, 1):
                arr = arr.reshape(-1)  # the library's (B, 1)
            if arr.shape != want:
                errs.append(Problem("destationary_shape", f"{path}.{f.name}",
                                    {"expected": _shape(want), "got": _shape(arr.shape)}))
            elif not np.all(np.isfinite(arr)):
                bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
                errs.append(Problem("expected_finite", index_path(f"{path}.{f.name}", bad), {"got": str(arr[bad])}))
            elif f.name == "tau" and np.any(arr <= 0):
                bad = tuple(int(i) for i in np.argwhere(arr <= 0)[0])
                errs.append(Problem("destationary_tau", index_path(f"{path}.tau", bad), {"got": repr(float(arr[bad]))}))
        return errs


class DSAttentionKind(DotProduct):
    """DSAttention: softmax(scale · (τ · q·k + Δ)), the mask on the de-stationary scores."""

    extra_steps = (STEP,)
    tiled = "read"  # a row softmax of the trace's masked scores (τ and Δ are not a product of tiles)
    grouped_kv = False  # the library's DSAttention has one key/value head per query head

    def __init__(self):
        super().__init__(NAME, scaled=True, titles={"scores": f"step.scores.title.{NAME}"},
                         formulas={"scores": f"step.scores.formula.{NAME}"})

    def records(self) -> tuple:
        from attention.datamodel.step_record import StepRecord
        from attention.text import lesson

        def active(sc, kinds) -> bool:  # the scenario's scoring kind is this one
            return kinds.scoring is self
        return (StepRecord(STEP, ("B", "H", "L", "S"), "signed", f"step.{STEP}.title", f"step.{STEP}.formula",
                           destationary_step, active, explain_destationary, lesson._sentences, None,
                           ("head_split.query", "head_split.key"), before="scores", by_hand=("scores",)),)

    def parameters(self, sc, dev, dt) -> dict:
        from attention.ops.tensors import tensor

        tau, delta = tau_delta(sc)
        return {f"{NAME}.tau": tensor(tau, dev, dt), f"{NAME}.delta": tensor(delta, dev, dt)}

    def stray_problems(self, sc) -> list:
        return []  # the part says itself when another scoring is chosen

    def options(self, sc) -> dict:
        return {"destationary": _part(sc) is not None}

    # ---- the engine ------------------------------------------------------------------------------
    def compute_scores(self, run):
        return run.scale * run.inputs[STEP]  # (B, H, L, S): the scale multiplies τ·q·k and Δ

    # ---- explain, lessons, script ----------------------------------------------------------------
    def explain_cell(self, ctx, step_id: str, idx: tuple[int, ...]):
        return explain_scaled(ctx, step_id, idx) if step_id == "scores" else None

    def lesson_keys(self, step_id: str, keys: list[str], v: dict) -> list[str]:
        if step_id == "scores":
            return [f"lesson.scores.{NAME}", f"lesson.scores.{NAME}_delta"]
        return keys

    def script(self, plan, step_id: str) -> Optional[str]:
        if step_id != "scores":
            return None
        from attention.text import script as se

        return (se.section(plan, step_id)
                + "# DSAttention (Non-stationary Transformer, TSL SelfAttention_Family.py)\n"
                'raw = torch.einsum("blhe,bshe->bhls", q, k)  # q . k, unscaled: (B, H, L, S)\n'
                "destationary = raw * DS_tau[:, None, None, None] + DS_delta[:, None, None, :]  "
                "# tau per series, delta per key\n"
                "scores = scale * destationary  # softmax(scale * scores) in the library: scale multiplies delta\n"
                + se.show(step_id, "scores"))

    def script_numbers(self, sc) -> str:
        from attention.text import script as se

        tau, delta = tau_delta(sc)
        return (se.tensor_literal("DS_tau", tau, f"tau, one per series (B,) = {tau.shape}")
                + se.tensor_literal("DS_delta", delta, f"delta, one per key (B, S) = {delta.shape}"))

    def scale_why(self, sc) -> str:
        return f"the library's default 1/sqrt(E) = 1/sqrt({sc.dk}), applied after tau and delta"


DS_ATTENTION = DSAttentionKind()
DESTATIONARY = Destationary()


def destationary_step(run, step_id: str):
    """extra.destationary: q·k·τ + Δ (B, H, L, S), unscaled, in the library's order (times, then plus)."""
    q, k = run.inputs["head_split.query"], run.inputs["head_split.key"]  # (B, L, H, E), (B, S, H, E)
    tau, delta = run.params[f"{NAME}.tau"], run.params[f"{NAME}.delta"]  # (B,), (B, S)
    return destationary_scores(raw_scores(q, k), tau[:, None, None, None], delta[:, None, None, :])


def explain_destationary(ctx, step_id: str, idx: tuple[int, ...]):
    """One de-stationary score: Σ_e q[e]·k[e], times τ of the series, plus Δ of the key."""
    from attention.text import explanation as ex

    b, h, l, s = idx
    q, k = ctx.a("head_split.query")[b, l, h], ctx.a("head_split.key")[b, s, h]
    tau, delta = float(ctx.param(f"{NAME}.tau")[b]), float(ctx.param(f"{NAME}.delta")[b, s])
    terms = [ex.Term(ex._same(f"q[{e}]·k[{e}] = {ex.fmt(q[e])} × {ex.fmt(k[e])} = {ex.fmt(q[e] * k[e])}"),
                     float(q[e] * k[e]),
                     (ex.Source("head_split.query", (b, l, h, e)), ex.Source("head_split.key", (b, s, h, e))),
                     factors=(float(q[e]), float(k[e])))
             for e in range(q.shape[0])]
    dot = ex._fsum([t.value for t in terms])
    result = dot * tau + delta
    terms.append(ex.Term(ex._same(f"Δ[{b},{s}] = {ex.fmt(delta)}"), delta, (ex.Source(f"{NAME}.delta", (b, s)),)))
    return ex._explanation(
        step_id, idx, ctx.value(step_id, idx), ex._tx("explain.destationary.formula", b=b, h=h, l=l, s=s), terms,
        result, ex._tx("explain.destationary.summary", b1=ex.P(b), s=ex.P(s), tau=ex.fmt(tau), delta=ex.fmt(delta)),
        ex._same(f"({ex._sum_text([t.value for t in terms[:-1]])}) × {ex.fmt(tau)} + {ex.fmt(delta)} = "
                 f"{ex.fmt(dot)} × {ex.fmt(tau)} + {ex.fmt(delta)} = {ex.fmt(result)}"),
        (ex.Source(f"{NAME}.tau", (b,)), ex.Source(f"{NAME}.delta", (b, s))))


def explain_scaled(ctx, step_id: str, idx: tuple[int, ...]):
    """A score the softmax sees: scale × (q·k·τ + Δ) = scale·τ·q·k + scale·Δ (the quirk, in numbers)."""
    from attention.text import explanation as ex

    b, h, l, s = idx
    d = float(ctx.raw(STEP)[idx])
    tau, delta = float(ctx.param(f"{NAME}.tau")[b]), float(ctx.param(f"{NAME}.delta")[b, s])
    scale = float(ctx.opts["scale"])
    raw = (d - delta) / tau
    term = ex.Term(ex._same(f"destationary[{b},{h},{l},{s}] = {ex.fmt(d)}"), d, (ex.Source(STEP, idx),))
    return ex._explanation(
        step_id, idx, ctx.value(step_id, idx), ex._tx("explain.ds_scores.formula", b=b, h=h, l=l, s=s), [term],
        scale * d,
        ex._tx("explain.ds_scores.summary", scale=ex.fmt(scale), tau=ex.fmt(tau), delta=ex.fmt(delta),
               scaled_delta=ex.fmt(scale * delta), raw=ex.fmt(raw), scaled_raw=ex.fmt(scale * tau * raw)),
        ex._same(f"{ex.fmt(scale)} × {ex.fmt(d)} = {ex.fmt(scale * d)}"),
        (ex.Source(f"{NAME}.tau", (b,)), ex.Source(f"{NAME}.delta", (b, s))))
