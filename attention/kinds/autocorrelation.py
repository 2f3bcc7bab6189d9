"""Autoformer's Auto-Correlation as separate pure steps, in Time-Series-Library's own order.

TSL's ``layers/AutoCorrelation.py`` (MIT, thuml), AutoCorrelation.forward on heads already split
by AutoCorrelationLayer, q (B, L, H, E), k (B, S, H, E), v (B, S, H, D):

1. align_lengths: L > S: keys and values get L - S zero steps appended (zeros shaped like the
   QUERIES, so the library needs E == D there); L <= S: keys and values cut to their first L steps.
2. correlation: per head and channel, over time (the library permutes to (B, H, E, L)):
       corr = irfft(rfft(q) * conj(rfft(k)))          (B, H, E, L')
   corr[..., tau] = sum_t q[(t + tau) mod L] · k[t]  (circular cross-correlation at lag tau).
   Quirk: irfft is called without n, so its length is L' = 2·(L // 2): L for even L, L - 1 for
   odd L, and for odd L the curve is not the exact circular correlation (the Nyquist-less
   spectrum is read back as an even-length signal) and lag L - 1 can never be picked.
3. mean over heads and channels: mean_corr (B, L') (the two means the library takes, dims 1, 1).
4. top-k lags, k = int(factor · ln L) (L = the aligned length; factor is the layer's, default 1):
     training (module.train()): one set of lags for the whole batch, the top k of the batch mean
         of mean_corr; each series keeps its own mean_corr values at those lags as its scores;
     inference (module.eval()): each series its own top k lags and scores (torch.topk, sorted).
5. lag_weights = softmax of the k scores (per series).
6. rolled copies of V: the copy for lag tau holds, at step t, v[(t + tau) mod L]:
   training: torch.roll(v, -tau, -1) (a roll to the LEFT, -tau: Autoformer#128's question);
   inference: the same values through gather on v repeated twice along time at index t + tau.
7. output[t] = sum_i lag_weights[i] · v[(t + lag_i) mod L]    (B, L, H, D)

So a step t of the output reads the values tau steps LATER (wrapping round the end): with the
correlation peaking at the period P, step t borrows the value one period ahead, which is the same
phase of the cycle.  `contributions` lists, for one output cell, each lag, the step it read, the
weight and the product: the numbers explain shows.

There is no scale, no softmax over keys and no mask (attn_mask is ignored; mask_flag unused).
With output_attention the module returns corr permuted to (B, L', H, E).

Shapes: B batch, L query steps, S key steps, H heads, E key width, D value width, k lags.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import torch

from attention import words
from attention.numbers import rounded


def align_lengths(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Keys and values to the queries' length L: zero-padded at the end when L > S, cut when L < S."""
    B, L, H, E = q.shape
    S, D = v.shape[1], v.shape[3]
    if L > S:
        if D != E:
            raise ValueError(f"with more queries than keys (L={L} > S={S}) the library pads values with "
                             f"zeros shaped like the queries: it needs d_values == d_keys (got {D} and {E})")
        zeros = torch.zeros(B, L - S, H, E, dtype=q.dtype, device=q.device)
        return torch.cat([k, zeros], dim=1), torch.cat([v, zeros], dim=1)
    return k[:, :L], v[:, :L]


def correlation(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """q, k (B, L, H, E) (k already aligned) -> corr (B, H, E, L'), L' = 2·(L // 2) (irfft without n)."""
    q_fft = torch.fft.rfft(q.permute(0, 2, 3, 1).contiguous(), dim=-1)  # (B, H, E, L // 2 + 1)
    k_fft = torch.fft.rfft(k.permute(0, 2, 3, 1).contiguous(), dim=-1)
    return torch.fft.irfft(q_fft * torch.conj(k_fft), dim=-1)


def curve_length(L: int) -> int:
    """Length of the correlation curve: irfft's default n, 2·(L // 2 + 1 - 1)."""
    return 2 * (L // 2)


def mean_correlation(corr: torch.Tensor) -> torch.Tensor:
    """(B, H, E, L') -> (B, L'): the mean over heads, then over channels (the library's two means)."""
    return corr.mean(dim=1).mean(dim=1)


def top_k(factor: float, L: int) -> int:
    """k = int(factor · ln L), truncated toward zero; refused when it exceeds the curve's length."""
    k = int(factor * math.log(L))
    if k > curve_length(L):
        raise ValueError(f"factor={factor} asks for {k} lags but a length-{L} series has only "
                         f"{curve_length(L)} on its correlation curve")
    return k


@dataclass(frozen=True)
class Lags:
    lags: torch.Tensor  # (B, k) int64, the same row for every series in training
    scores: torch.Tensor  # (B, k)  mean_corr at those lags
    shared: bool  # True: training path (lags from the batch mean)


def top_lags_training(mean_corr: torch.Tensor, k: int) -> Lags:
    """Training path: lags = top k of the batch-mean curve; each series' own values at them."""
    index = torch.topk(mean_corr.mean(dim=0), k, dim=-1)[1]  # (k,)
    scores = mean_corr[:, index]  # (B, k)
    return Lags(index.unsqueeze(0).expand(mean_corr.shape[0], k), scores, True)


def top_lags_inference(mean_corr: torch.Tensor, k: int) -> Lags:
    """Inference path: every series its own top k lags (sorted, largest first)."""
    scores, lags = torch.topk(mean_corr, k, dim=-1)  # (B, k) each
    return Lags(lags, scores, False)


def lag_weights(scores: torch.Tensor) -> torch.Tensor:
    """softmax over the k lag scores of each series: (B, k)."""
    return torch.softmax(scores, dim=-1)


def rolled(v: torch.Tensor, lags: torch.Tensor) -> torch.Tensor:
    """v (B, L, H, D), lags (B, k) -> (B, k, L, H, D): copy i of series b holds v[b, (t + lag) mod L].

    Written as an index (t + lag) mod L, the same numbers as the library's roll(-lag) (training)
    and its gather from v repeated twice (inference)."""
    B, L = v.shape[:2]
    t = torch.arange(L, device=v.device)  # (L,)
    src = (t[None, None, :] + lags[:, :, None]) % L  # (B, k, L)
    b = torch.arange(B, device=v.device)[:, None, None]
    return v[b, src]  # (B, k, L, H, D)


def aggregate(copies: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """copies (B, k, L, H, D), w (B, k) -> sum_i w[i] · copy_i: (B, L, H, D)."""
    return torch.einsum("bklhd,bk->blhd", copies, w)


@dataclass(frozen=True)
class AutoCorrelationParts:
    keys: torch.Tensor  # (B, L, H, E) aligned
    values: torch.Tensor  # (B, L, H, D) aligned
    corr: torch.Tensor  # (B, H, E, L')
    mean_corr: torch.Tensor  # (B, L')
    lags: Lags  # (B, k)
    weights: torch.Tensor  # (B, k)
    copies: torch.Tensor  # (B, k, L, H, D)
    output: torch.Tensor  # (B, L, H, D)


def autocorrelation(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, factor: float = 1.0,
                    training: bool = False) -> AutoCorrelationParts:
    """AutoCorrelation.forward with every step kept.  `training` picks the module's path
    (its self.training flag), not dropout: the layer has no dropout in its arithmetic."""
    keys, values = align_lengths(q, k, v)
    corr = correlation(q, keys)
    mean_corr = mean_correlation(corr)
    n = top_k(factor, values.shape[1])
    lags = top_lags_training(mean_corr, n) if training else top_lags_inference(mean_corr, n)
    w = lag_weights(lags.scores)
    copies = rolled(values, lags.lags)
    return AutoCorrelationParts(keys, values, corr, mean_corr, lags, w, copies, aggregate(copies, w))


@dataclass(frozen=True)
class Contribution:
    """One term of an output cell: weight · v[source] for one lag."""

    lag: int
    roll: int  # the library's torch.roll shift: -lag (a roll to the left)
    source: int  # (t + lag) mod L: the value step it read
    weight: float
    value: float
    product: float


def contributions(parts: AutoCorrelationParts, b: int, t: int, h: int, d: int) -> list[Contribution]:
    """The k terms that add up to output[b, t, h, d], in the lags' order (explain's table)."""
    L = parts.values.shape[1]
    out = []
    for i in range(parts.lags.lags.shape[1]):
        lag = int(parts.lags.lags[b, i])
        source = (t + lag) % L
        weight = float(parts.weights[b, i])
        value = float(parts.values[b, source, h, d])
        out.append(Contribution(lag, -lag, source, weight, value, weight * value))
    return out


def describe(term: Contribution, t: int, lang: Optional[str] = None) -> str:
    """One line of explain for a term of output step t (time steps as the series numbers them, from 0)."""
    return words.text("tsl.autocorr.term", lang, lag=term.lag, roll=term.roll, source=term.source, t=t,
                      weight=rounded(term.weight), value=rounded(term.value), product=rounded(term.product))
