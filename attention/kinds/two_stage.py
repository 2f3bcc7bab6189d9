"""Crossformer's Two-Stage Attention (TSA) layer, step by step, as Time-Series-Library composes it.

TSL's ``layers/SelfAttention_Family.py`` (MIT, thuml), TwoStageAttentionLayer.forward on
x (b, D, seg, d) (D variables, seg segments per variable, d = d_model); every attention is an
AttentionLayer(FullAttention(mask_flag=False)) with n_heads heads, dropout the identity in eval:

  Cross-time stage (each variable on its own, attention across its segments):
    time_in  = x as (b·D, seg, d)                           row b·D + v
    time_enc = time_attention(time_in, time_in, time_in)
    dim_in   = norm1(time_in + time_enc)
    dim_in   = norm2(dim_in + MLP1(dim_in))                 MLP = Linear(d, d_ff), GELU, Linear(d_ff, d)
  Cross-dimension stage (each segment on its own, across variables, through a router):
    dim_send    = dim_in as (b·seg, D, d)                   row b·seg + s
    router      = the learnable (seg, factor, d) parameter, repeated per batch item:
                  row b·seg + s holds router[s] (einops '(repeat seg_num)': repeat outermost)
    dim_buffer  = dim_sender(router, dim_send, dim_send)    (b·seg, factor, d): the router's
                  `factor` vectors are the QUERIES, gathering from all D variables
    dim_receive = dim_receiver(dim_send, dim_buffer, dim_buffer)   (b·seg, D, d): each variable
                  reads back from the `factor` router slots
    dim_enc     = norm3(dim_send + dim_receive)
    dim_enc     = norm4(dim_enc + MLP2(dim_enc))
    out         = dim_enc as (b, D, seg, d)

The attention weights of the three attentions are kept here (the layer itself drops them):
time (b·D, H, seg, seg), sender (b·seg, H, factor, D), receiver (b·seg, H, D, factor).  The
variables meet only through the factor router slots: D·factor scores per segment instead of D².

AttentionLayer: query/key/value/out Linear layers with bias, heads the contiguous column blocks
(head h owns columns h·dk … (h+1)·dk - 1), scale 1/sqrt(dk), plain softmax, no mask.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import torch

from attention.ops.encoder_layer import activate, layer_norm

Linear = tuple[torch.Tensor, Optional[torch.Tensor]]  # weight (out, in), bias (out,)


def linear(x: torch.Tensor, p: Linear) -> torch.Tensor:
    weight, bias = p
    y = x @ weight.T
    return y + bias if bias is not None else y


@dataclass(frozen=True)
class AttentionWeights:
    """One AttentionLayer's four Linear layers and its head count."""

    query: Linear
    key: Linear
    value: Linear
    out: Linear
    n_heads: int


@dataclass(frozen=True)
class AttentionResult:
    weights: torch.Tensor  # (N, H, Lq, Lk)
    output: torch.Tensor  # (N, Lq, d)


def attention_layer(x_q: torch.Tensor, x_kv: torch.Tensor, w: AttentionWeights) -> AttentionResult:
    """AttentionLayer(FullAttention(mask_flag=False)) in eval: x_q (N, Lq, d), x_kv (N, Lk, d)."""
    N, Lq, _ = x_q.shape
    Lk = x_kv.shape[1]
    H = w.n_heads
    q = linear(x_q, w.query).view(N, Lq, H, -1)  # (N, Lq, H, dk)
    k = linear(x_kv, w.key).view(N, Lk, H, -1)
    v = linear(x_kv, w.value).view(N, Lk, H, -1)
    scale = 1.0 / math.sqrt(q.shape[-1])
    A = torch.softmax(scale * torch.einsum("nlhe,nshe->nhls", q, k), dim=-1)  # (N, H, Lq, Lk)
    ctx = torch.einsum("nhls,nshd->nlhd", A, v).reshape(N, Lq, -1)
    return AttentionResult(A, linear(ctx, w.out))


@dataclass(frozen=True)
class NormWeights:
    weight: torch.Tensor  # (d,)
    bias: torch.Tensor  # (d,)


@dataclass(frozen=True)
class MLPWeights:
    first: Linear  # (d_ff, d)
    second: Linear  # (d, d_ff)


def mlp(x: torch.Tensor, w: MLPWeights) -> torch.Tensor:
    """Linear -> GELU (exact, nn.GELU's default) -> Linear."""
    return linear(activate(linear(x, w.first), "gelu"), w.second)


@dataclass(frozen=True)
class TwoStageWeights:
    time_attention: AttentionWeights
    dim_sender: AttentionWeights
    dim_receiver: AttentionWeights
    router: torch.Tensor  # (seg, factor, d)
    norm1: NormWeights
    norm2: NormWeights
    norm3: NormWeights
    norm4: NormWeights
    mlp1: MLPWeights
    mlp2: MLPWeights


def cross_time_input(x: torch.Tensor) -> torch.Tensor:
    """(b, D, seg, d) -> (b·D, seg, d): one sequence per (batch item, variable)."""
    b, D, seg, d = x.shape
    return x.reshape(b * D, seg, d)


def cross_dim_input(dim_in: torch.Tensor, b: int) -> torch.Tensor:
    """(b·D, seg, d) -> (b·seg, D, d): one set of variables per (batch item, segment)."""
    bD, seg, d = dim_in.shape
    D = bD // b
    return dim_in.reshape(b, D, seg, d).permute(0, 2, 1, 3).reshape(b * seg, D, d)


def batch_router(router: torch.Tensor, b: int) -> torch.Tensor:
    """(seg, factor, d) -> (b·seg, factor, d): row b·seg + s is router[s]."""
    return router.repeat(b, 1, 1)


def output_layout(dim_enc: torch.Tensor, b: int) -> torch.Tensor:
    """(b·seg, D, d) -> (b, D, seg, d)."""
    bseg, D, d = dim_enc.shape
    seg = bseg // b
    return dim_enc.reshape(b, seg, D, d).permute(0, 2, 1, 3)


def add_norm(x: torch.Tensor, branch: torch.Tensor, norm: NormWeights) -> torch.Tensor:
    """norm(x + dropout(branch)), dropout the identity in eval."""
    return layer_norm(x + branch, norm.weight, norm.bias).out


@dataclass(frozen=True)
class TwoStageParts:
    time_in: torch.Tensor  # (b·D, seg, d)
    time: AttentionResult  # weights (b·D, H, seg, seg), output (b·D, seg, d)
    time_norm1: torch.Tensor  # (b·D, seg, d)
    dim_in: torch.Tensor  # (b·D, seg, d) after norm2
    dim_send: torch.Tensor  # (b·seg, D, d)
    router: torch.Tensor  # (b·seg, factor, d)
    sender: AttentionResult  # weights (b·seg, H, factor, D), output = dim_buffer (b·seg, factor, d)
    receiver: AttentionResult  # weights (b·seg, H, D, factor), output = dim_receive (b·seg, D, d)
    dim_norm3: torch.Tensor  # (b·seg, D, d)
    dim_enc: torch.Tensor  # (b·seg, D, d) after norm4
    output: torch.Tensor  # (b, D, seg, d)


def two_stage(x: torch.Tensor, w: TwoStageWeights) -> TwoStageParts:
    """TwoStageAttentionLayer.forward in eval, x (b, D, seg, d), every step kept."""
    b, D, seg, d = x.shape
    if tuple(w.router.shape[0::2]) != (seg, d):
        raise ValueError(f"router must have shape ({seg}, factor, {d}); got {tuple(w.router.shape)}")
    time_in = cross_time_input(x)
    time = attention_layer(time_in, time_in, w.time_attention)
    time_norm1 = add_norm(time_in, time.output, w.norm1)
    dim_in = add_norm(time_norm1, mlp(time_norm1, w.mlp1), w.norm2)
    dim_send = cross_dim_input(dim_in, b)
    router = batch_router(w.router, b)
    sender = attention_layer(router, dim_send, w.dim_sender)
    receiver = attention_layer(dim_send, sender.output, w.dim_receiver)
    dim_norm3 = add_norm(dim_send, receiver.output, w.norm3)
    dim_enc = add_norm(dim_norm3, mlp(dim_norm3, w.mlp2), w.norm4)
    return TwoStageParts(time_in, time, time_norm1, dim_in, dim_send, router, sender, receiver,
                         dim_norm3, dim_enc, output_layout(dim_enc, b))

