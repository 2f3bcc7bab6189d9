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
from typing import Optional, Sequence, Union

import torch

from attention import words
from attention.encoder_layer import circular_conv_matmul
from attention.numbers import rounded

#: the model clamps the projector's log-tau here before exp ("avoid numerical overflow")
TAU_LOG_MAX = 80.0
#: added to the variance in the model's normalisation (biased variance)
STD_EPS = 1e-5

Factor = Union[torch.Tensor, float]


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
    return torch.einsum("blhe,bshe->bhls", q, k)


def destationary_scores(raw: torch.Tensor, tau4: Factor, delta4: Factor) -> torch.Tensor:
    """(B, H, L, S) q·k -> q·k·tau + delta, still unscaled (the library's order: times, then plus)."""
    return raw * tau4 + delta4


def causal_mask(L: int, S: int, device: Optional[torch.device] = None) -> torch.Tensor:
    """TriangularCausalMask as (L, S): True strictly above the diagonal.  The library builds it
    L×L, so it only fits S == L; a causal call with S != L fails there."""
    if S != L:
        raise ValueError(f"the library's causal mask is L×L: it needs as many keys as queries (L={L}, S={S})")
    return torch.ones(L, S, dtype=torch.bool, device=device).triu(1)


def masked_scores(scores: torch.Tensor, mask: Optional[torch.Tensor]) -> torch.Tensor:
    """Fill masked cells (True) of the UNSCALED de-stationary scores with -inf (the library's order)."""
    return scores if mask is None else scores.masked_fill(mask, float("-inf"))


def weights(scores: torch.Tensor, scale: float) -> torch.Tensor:
    """softmax(scale · scores) over keys: the scale multiplies tau·q·k AND delta."""
    return torch.softmax(scale * scores, dim=-1)


def weighted_sum(A: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """A (B, H, L, S), v (B, S, H, D) -> (B, L, H, D)."""
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
