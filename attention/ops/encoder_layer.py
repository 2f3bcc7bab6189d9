"""The encoder layer around attention, as Time-Series-Library writes it, one pure step at a time.

TSL's ``layers/Transformer_EncDec.py`` (MIT, thuml) composes, after AttentionLayer's output
projection (``new_x``, (B, L, d_model)):

    x  = x + dropout(new_x)                 residual_add     (dropout: identity in eval)
    x  = norm1(x)                           layer_norm       (LayerNorm(d_model), eps 1e-5)
    y  = dropout(act(conv1(x^T)))           conv1x1 + activate (conv1: d_model -> d_ff, k = 1)
    y  = dropout(conv2(y)^T)                conv1x1          (conv2: d_ff -> d_model, k = 1)
    out = norm2(x + y)                      residual_add + layer_norm

``act`` is F.relu when activation == "relu", otherwise F.gelu (exact, erf form): any other
string, "gelu" included, gives gelu.  A kernel-1 Conv1d is a per-position matrix product,
``x @ Wᵀ + b`` with W the (C_out, C_in) slice of the (C_out, C_in, 1) weight.

Informer's distilling ``ConvLayer`` (same file), between encoder layers, on (B, L, C):

    Conv1d(C, C, kernel_size=3, padding=2, padding_mode="circular")   L -> L + 2 (sic: padding 2
                                                                       on each side, kernel 3)
    BatchNorm1d(C)                      eval: (x - running_mean) / sqrt(running_var + eps) * γ + β
    ELU (alpha 1)
    MaxPool1d(kernel_size=3, stride=2, padding=1)                     L + 2 -> floor((L + 1) / 2) + 1

so 96 steps become 49 (not 48), 49 become 26: the library's length after distilling.  The conv
is written here as a matrix product of the unfolded (circularly padded) input with the weight
reshaped to (C_out, C_in·K), so explain can show which input steps and channels made a cell.

Shapes: B batch, L time steps, C channels (d_model), F d_ff.  Everything float (float64 in tests).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch

import attention.words as words
from attention.datamodel.numbers import rounded

#: nn.LayerNorm's and nn.BatchNorm1d's default eps (TSL never changes them in these layers)
EPS = 1e-5


# ---------------------------------------------------------------- LayerNorm, residual, conv k=1


@dataclass(frozen=True)
class LayerNormParts:
    """Every term of one LayerNorm, kept for explain: out = (x - mean) * inv_std * weight + bias."""

    mean: torch.Tensor  # (..., 1)   mean over the last axis
    var: torch.Tensor  # (..., 1)    biased variance (divides by C, as nn.LayerNorm)
    inv_std: torch.Tensor  # (..., 1)  1 / sqrt(var + eps)
    normalized: torch.Tensor  # (..., C)  (x - mean) * inv_std
    out: torch.Tensor  # (..., C)


def _affine(normalized: torch.Tensor, weight: Optional[torch.Tensor], bias: Optional[torch.Tensor]) -> torch.Tensor:
    """A norm's learned scale and shift, each where the layer has one (elementwise_affine / affine)."""
    out = normalized
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def layer_norm(x: torch.Tensor, weight: Optional[torch.Tensor], bias: Optional[torch.Tensor],
               eps: float = EPS) -> LayerNormParts:
    """LayerNorm over the last axis with its mean and (biased) variance terms kept."""
    mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # (..., 1), divides by C
    inv_std = torch.rsqrt(var + eps)
    normalized = (x - mean) * inv_std
    out = _affine(normalized, weight, bias)
    return LayerNormParts(mean, var, inv_std, normalized, out)


def residual_add(x: torch.Tensor, branch: torch.Tensor) -> torch.Tensor:
    """x + dropout(branch); dropout is the identity in eval, which is the only mode we show."""
    return x + branch


def conv1x1(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor]) -> torch.Tensor:
    """(B, L, C_in) -> (B, L, C_out): a kernel-1 Conv1d is x @ Wᵀ + b at every position.

    `weight` is the Conv1d's (C_out, C_in, 1) tensor or already its (C_out, C_in) matrix."""
    w = weight[..., 0] if weight.dim() == 3 else weight  # (C_out, C_in)
    if weight.dim() == 3 and weight.shape[-1] != 1:
        raise ValueError(f"conv weight has kernel size {weight.shape[-1]}, expected 1")
    y = x @ w.T  # (B, L, C_out)
    return y + bias if bias is not None else y


def activate(x: torch.Tensor, activation: str) -> torch.Tensor:
    """TSL's choice: relu for "relu", gelu (exact erf form) for every other string."""
    if activation == "relu":
        return torch.clamp(x, min=0)
    return 0.5 * x * (1.0 + torch.erf(x / 2.0 ** 0.5))


@dataclass(frozen=True)
class EncoderLayerParts:
    added1: torch.Tensor  # (B, L, C)  x + new_x
    norm1: LayerNormParts  # out: (B, L, C)
    hidden_pre: torch.Tensor  # (B, L, F)  conv1 before the activation
    hidden: torch.Tensor  # (B, L, F)      after the activation
    ffn: torch.Tensor  # (B, L, C)         conv2
    added2: torch.Tensor  # (B, L, C)      norm1 + ffn
    norm2: LayerNormParts  # out: (B, L, C), the layer's output


@dataclass(frozen=True)
class EncoderLayerWeights:
    conv1_weight: torch.Tensor  # (F, C, 1)
    conv1_bias: torch.Tensor  # (F,)
    conv2_weight: torch.Tensor  # (C, F, 1)
    conv2_bias: torch.Tensor  # (C,)
    norm1_weight: torch.Tensor  # (C,)
    norm1_bias: torch.Tensor  # (C,)
    norm2_weight: torch.Tensor  # (C,)
    norm2_bias: torch.Tensor  # (C,)
    activation: str = "relu"


def encoder_layer(x: torch.Tensor, new_x: torch.Tensor, w: EncoderLayerWeights) -> EncoderLayerParts:
    """x (B, L, C) the layer's input, new_x (B, L, C) AttentionLayer's output -> every step after."""
    added1 = residual_add(x, new_x)
    n1 = layer_norm(added1, w.norm1_weight, w.norm1_bias)
    hidden_pre = conv1x1(n1.out, w.conv1_weight, w.conv1_bias)  # (B, L, F)
    hidden = activate(hidden_pre, w.activation)
    ffn = conv1x1(hidden, w.conv2_weight, w.conv2_bias)  # (B, L, C)
    added2 = residual_add(n1.out, ffn)
    n2 = layer_norm(added2, w.norm2_weight, w.norm2_bias)
    return EncoderLayerParts(added1, n1, hidden_pre, hidden, ffn, added2, n2)


# ---------------------------------------------------------------- Informer's distilling ConvLayer

#: ConvLayer's fixed hyper-parameters (not configurable in the library)
DISTIL_KERNEL = 3
DISTIL_PAD = 2
POOL_KERNEL, POOL_STRIDE, POOL_PAD = 3, 2, 1


def circular_pad(x: torch.Tensor, pad: int) -> torch.Tensor:
    """(B, C, L) -> (B, C, L + 2·pad): wrap `pad` steps from each end around (padding_mode="circular")."""
    L = x.shape[-1]
    if pad > L:
        raise ValueError(f"circular padding {pad} needs at least {pad} time steps, got {L}")
    idx = torch.arange(-pad, L + pad, device=x.device) % L  # (L + 2·pad,)
    return x[..., idx]


def unfold_patches(xp: torch.Tensor, kernel: int) -> torch.Tensor:
    """(B, C, Lp) padded input -> (B, L_out, C·K) rows, column c·K + j = xp[c, t + j] (stride 1).

    The column order matches a Conv1d weight (C_out, C_in, K) flattened to (C_out, C_in·K)."""
    B, C, Lp = xp.shape
    L_out = Lp - kernel + 1
    t = torch.arange(L_out, device=xp.device)[:, None] + torch.arange(kernel, device=xp.device)[None, :]
    patches = xp[:, :, t]  # (B, C, L_out, K)
    return patches.permute(0, 2, 1, 3).reshape(B, L_out, C * kernel)


@dataclass(frozen=True)
class ConvMatmul:
    """A Conv1d as one matrix product: out[b, t, :] = patches[b, t, :] @ matrixᵀ + bias."""

    padded: torch.Tensor  # (B, C_in, L + 2·pad)
    patches: torch.Tensor  # (B, L_out, C_in·K)
    matrix: torch.Tensor  # (C_out, C_in·K)
    out: torch.Tensor  # (B, L_out, C_out)


def circular_conv_matmul(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
                         pad: int) -> ConvMatmul:
    """x (B, L, C_in), weight (C_out, C_in, K) -> Conv1d(padding=pad, padding_mode="circular")."""
    C_out, C_in, K = weight.shape
    xp = circular_pad(x.transpose(1, 2), pad)  # (B, C_in, L + 2·pad)
    patches = unfold_patches(xp, K)  # (B, L_out, C_in·K)
    matrix = weight.reshape(C_out, C_in * K)
    out = patches @ matrix.T
    if bias is not None:
        out = out + bias
    return ConvMatmul(xp, patches, matrix, out)


@dataclass(frozen=True)
class BatchNormParts:
    """Eval BatchNorm1d: out = (x - running_mean) * inv_std * weight + bias, per channel."""

    inv_std: torch.Tensor  # (C,)  1 / sqrt(running_var + eps)
    normalized: torch.Tensor  # (B, L, C)
    out: torch.Tensor  # (B, L, C)


def batch_norm_eval(x: torch.Tensor, running_mean: torch.Tensor, running_var: torch.Tensor,
                    weight: Optional[torch.Tensor], bias: Optional[torch.Tensor],
                    eps: float = EPS) -> BatchNormParts:
    """x (B, L, C): the running statistics, never the batch's own (eval mode)."""
    inv_std = torch.rsqrt(running_var + eps)
    normalized = (x - running_mean) * inv_std
    out = _affine(normalized, weight, bias)
    return BatchNormParts(inv_std, normalized, out)


def elu(x: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    """x where x > 0, alpha·(exp(x) - 1) elsewhere (nn.ELU's default alpha 1)."""
    return torch.where(x > 0, x, alpha * torch.expm1(x))


def pooled_length(L: int) -> int:
    """MaxPool1d(3, 2, 1) output length: floor((L + 2 - 3) / 2) + 1."""
    return (L + 2 * POOL_PAD - POOL_KERNEL) // POOL_STRIDE + 1


def distilled_length(L: int) -> int:
    """Length after ConvLayer: the conv adds 2 steps (kernel 3, padding 2), the pool halves."""
    return pooled_length(L + 2 * DISTIL_PAD - DISTIL_KERNEL + 1)


def max_pool(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """x (B, L, C) -> (values (B, L', C), argmax (B, L', C) input step that won).

    Window t covers input steps 2t - 1, 2t, 2t + 1 (padding counts as -inf, never wins); a tie
    goes to the earliest step, as torch's kernel keeps the first maximum it meets."""
    B, L, C = x.shape
    L_out = pooled_length(L)
    pad = torch.full((B, POOL_PAD, C), float("-inf"), dtype=x.dtype, device=x.device)
    xp = torch.cat([pad, x, pad], dim=1)  # (B, L + 2, C)
    t = (torch.arange(L_out, device=x.device) * POOL_STRIDE)[:, None] + torch.arange(POOL_KERNEL, device=x.device)
    windows = xp[:, t, :]  # (B, L', K, C)
    values, which = windows.max(dim=2)  # first maximum on ties
    argmax = t[torch.arange(L_out, device=x.device)[None, :, None], which] - POOL_PAD  # back to input steps
    return values, argmax


@dataclass(frozen=True)
class DistilParts:
    conv: ConvMatmul  # out: (B, L + 2, C)
    norm: BatchNormParts  # out: (B, L + 2, C)
    activated: torch.Tensor  # (B, L + 2, C)
    pooled: torch.Tensor  # (B, L', C), the layer's output
    pool_argmax: torch.Tensor  # (B, L', C) index into the L + 2 activated steps


@dataclass(frozen=True)
class DistilWeights:
    conv_weight: torch.Tensor  # (C, C, 3)
    conv_bias: torch.Tensor  # (C,)
    running_mean: torch.Tensor  # (C,)
    running_var: torch.Tensor  # (C,)
    norm_weight: torch.Tensor  # (C,)
    norm_bias: torch.Tensor  # (C,)


def distil(x: torch.Tensor, w: DistilWeights) -> DistilParts:
    """Informer's ConvLayer in eval: x (B, L, C) -> (B, floor((L + 1) / 2) + 1, C), every step kept."""
    if w.conv_weight.shape[-1] != DISTIL_KERNEL:
        raise ValueError(f"distilling conv weight has kernel {w.conv_weight.shape[-1]}, expected 3")
    conv = circular_conv_matmul(x, w.conv_weight, w.conv_bias, DISTIL_PAD)
    norm = batch_norm_eval(conv.out, w.running_mean, w.running_var, w.norm_weight, w.norm_bias)
    activated = elu(norm.out)
    pooled, argmax = max_pool(activated)
    return DistilParts(conv, norm, activated, pooled, argmax)


# ---------------------------------------------------------------- explain lines
# Time steps are written as the code indexes them (from 0), like the time labels; channels are
# not named in these lines.


def _join(steps: list[int]) -> str:
    return ", ".join(str(s) for s in steps)


def describe_layer_norm(x: torch.Tensor, parts: LayerNormParts, weight: Optional[torch.Tensor],
                        bias: Optional[torch.Tensor], row: tuple[int, ...], c: int,
                        lang: Optional[str] = None) -> str:
    """One LayerNorm cell: the row's mean and variance, then the cell's own arithmetic."""
    at = (*row, c)
    return words.text("tsl.norm.cell", lang, mean=rounded(float(parts.mean[(*row, 0)])),
                      var=rounded(float(parts.var[(*row, 0)])), n=x.shape[-1], x=rounded(float(x[at])),
                      normalized=rounded(float(parts.normalized[at])),
                      gamma=rounded(float(weight[c])) if weight is not None else "1",
                      beta=rounded(float(bias[c])) if bias is not None else "0", out=rounded(float(parts.out[at])))


def conv_sources(L: int, t: int, pad: int = DISTIL_PAD, kernel: int = DISTIL_KERNEL) -> list[int]:
    """The input steps output step t of the circular conv reads, tap by tap: (t + j - pad) mod L."""
    return [(t + j - pad) % L for j in range(kernel)]


def wrapped_sources(L: int, t: int, pad: int = DISTIL_PAD, kernel: int = DISTIL_KERNEL) -> list[int]:
    """Those of conv_sources that came from the other end of the series (circular padding)."""
    return [(t + j - pad) % L for j in range(kernel) if not 0 <= t + j - pad < L]


def describe_conv_cell(conv: ConvMatmul, bias: Optional[torch.Tensor], L: int, b: int, t: int, c: int,
                       lang: Optional[str] = None) -> list[str]:
    """Output step t, channel c of a circular conv: what it sums, and which steps wrapped round."""
    K = conv.patches.shape[-1] // conv.padded.shape[1]
    pad = (conv.padded.shape[-1] - L) // 2
    steps = conv_sources(L, t, pad, K)
    lines = [words.text("tsl.conv.cell", lang, t=t, bias=rounded(float(bias[c])) if bias is not None else "0",
                        n=conv.padded.shape[1], k=K, steps=_join(steps), out=rounded(float(conv.out[b, t, c])))]
    wrapped = wrapped_sources(L, t, pad, K)
    if wrapped:
        lines.append(words.text("tsl.conv.wrapped", lang, steps=_join(wrapped)))
    return lines


def describe_pool_cell(parts: DistilParts, b: int, t: int, c: int, lang: Optional[str] = None) -> str:
    """Pooled step t, channel c: the (up to three) conv steps it compared and the one that won."""
    n = parts.activated.shape[1]
    steps = [s for s in range(POOL_STRIDE * t - POOL_PAD, POOL_STRIDE * t - POOL_PAD + POOL_KERNEL) if 0 <= s < n]
    return words.text("tsl.pool.cell", lang, steps=_join(steps), value=rounded(float(parts.pooled[b, t, c])),
                      winner=int(parts.pool_argmax[b, t, c]))
