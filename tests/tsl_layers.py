"""Time-Series-Library's attention layers rewritten for the tests (plain torch, same module and
parameter names, same arithmetic and call order as layers/SelfAttention_Family.py and
utils/masking.py, including ProbAttention's draw from the global generator and its bare
.squeeze()).  Independent of attention.capture: the capture must reproduce these modules."""
from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn


class TriangularCausalMask:
    def __init__(self, B: int, L: int, device="cpu"):
        self._mask = torch.triu(torch.ones([B, 1, L, L], dtype=torch.bool), diagonal=1).to(device)

    @property
    def mask(self) -> torch.Tensor:
        return self._mask


class ProbMask:
    def __init__(self, B: int, H: int, L: int, index: torch.Tensor, scores: torch.Tensor, device="cpu"):
        full = torch.ones(L, scores.shape[-1], dtype=torch.bool).to(device).triu(1)
        expanded = full[None, None, :].expand(B, H, L, scores.shape[-1])
        picked = expanded[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], index, :]
        self._mask = picked.view(scores.shape).to(device)

    @property
    def mask(self) -> torch.Tensor:
        return self._mask


class FullAttention(nn.Module):
    def __init__(self, mask_flag=True, factor=5, scale=None, attention_dropout=0.1, output_attention=False):
        super().__init__()
        self.scale, self.mask_flag, self.output_attention = scale, mask_flag, output_attention
        self.dropout = nn.Dropout(attention_dropout)

    def forward(self, queries, keys, values, attn_mask, tau=None, delta=None):
        B, L, H, E = queries.shape
        scale = self.scale or 1.0 / math.sqrt(E)
        scores = torch.einsum("blhe,bshe->bhls", queries, keys)
        if self.mask_flag:
            if attn_mask is None:
                attn_mask = TriangularCausalMask(B, L, device=queries.device)
            scores.masked_fill_(attn_mask.mask, -np.inf)
        A = self.dropout(torch.softmax(scale * scores, dim=-1))
        V = torch.einsum("bhls,bshd->blhd", A, values)
        return (V.contiguous(), A) if self.output_attention else (V.contiguous(), None)


class ProbAttention(nn.Module):
    def __init__(self, mask_flag=True, factor=5, scale=None, attention_dropout=0.1, output_attention=False):
        super().__init__()
        self.factor, self.scale, self.mask_flag = factor, scale, mask_flag
        self.output_attention = output_attention
        self.dropout = nn.Dropout(attention_dropout)

    def _prob_QK(self, Q, K, sample_k, n_top):
        B, H, L_K, E = K.shape
        _, _, L_Q, _ = Q.shape
        K_expand = K.unsqueeze(-3).expand(B, H, L_Q, L_K, E)
        index_sample = torch.randint(L_K, (L_Q, sample_k))  # the global generator, as TSL
        K_sample = K_expand[:, :, torch.arange(L_Q).unsqueeze(1), index_sample, :]
        Q_K_sample = torch.matmul(Q.unsqueeze(-2), K_sample.transpose(-2, -1)).squeeze()
        M = Q_K_sample.max(-1)[0] - torch.div(Q_K_sample.sum(-1), L_K)
        M_top = M.topk(n_top, sorted=False)[1]
        Q_reduce = Q[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], M_top, :]
        return torch.matmul(Q_reduce, K.transpose(-2, -1)), M_top

    def _initial_context(self, V, L_Q):
        B, H, L_V, D = V.shape
        if not self.mask_flag:
            mean = V.mean(dim=-2)
            return mean.unsqueeze(-2).expand(B, H, L_Q, mean.shape[-1]).clone()
        assert L_Q == L_V
        return V.cumsum(dim=-2)

    def _update_context(self, context, V, scores, index, L_Q):
        B, H, L_V, D = V.shape
        if self.mask_flag:
            scores.masked_fill_(ProbMask(B, H, L_Q, index, scores, device=V.device).mask, -np.inf)
        attn = torch.softmax(scores, dim=-1)
        context[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], index, :] = \
            torch.matmul(attn, V).type_as(context)
        return context, None

    def forward(self, queries, keys, values, attn_mask, tau=None, delta=None):
        B, L_Q, H, D = queries.shape
        _, L_K, _, _ = keys.shape
        queries, keys, values = queries.transpose(2, 1), keys.transpose(2, 1), values.transpose(2, 1)
        U_part = min(self.factor * int(np.ceil(np.log(L_K))), L_K)
        u = min(self.factor * int(np.ceil(np.log(L_Q))), L_Q)
        scores_top, index = self._prob_QK(queries, keys, sample_k=U_part, n_top=u)
        scores_top = scores_top * (self.scale or 1.0 / math.sqrt(D))
        context = self._initial_context(values, L_Q)
        context, attn = self._update_context(context, values, scores_top, index, L_Q)
        return context.contiguous(), attn  # (B, H, L, D): AttentionLayer views it without a transpose


class AttentionLayer(nn.Module):
    def __init__(self, attention, d_model, n_heads, d_keys=None, d_values=None):
        super().__init__()
        d_keys = d_keys or (d_model // n_heads)
        d_values = d_values or (d_model // n_heads)
        self.inner_attention = attention
        self.query_projection = nn.Linear(d_model, d_keys * n_heads)
        self.key_projection = nn.Linear(d_model, d_keys * n_heads)
        self.value_projection = nn.Linear(d_model, d_values * n_heads)
        self.out_projection = nn.Linear(d_values * n_heads, d_model)
        self.n_heads = n_heads

    def forward(self, queries, keys, values, attn_mask, tau=None, delta=None):
        B, L, _ = queries.shape
        _, S, _ = keys.shape
        H = self.n_heads
        queries = self.query_projection(queries).view(B, L, H, -1)
        keys = self.key_projection(keys).view(B, S, H, -1)
        values = self.value_projection(values).view(B, S, H, -1)
        out, attn = self.inner_attention(queries, keys, values, attn_mask, tau=tau, delta=delta)
        return self.out_projection(out.view(B, L, -1)), attn


class EncoderLayer(nn.Module):
    def __init__(self, attention, d_model, d_ff=None, dropout=0.1):
        super().__init__()
        d_ff = d_ff or 4 * d_model
        self.attention = attention
        self.conv1 = nn.Conv1d(d_model, d_ff, kernel_size=1)
        self.conv2 = nn.Conv1d(d_ff, d_model, kernel_size=1)
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, attn_mask=None, tau=None, delta=None):
        new_x, attn = self.attention(x, x, x, attn_mask=attn_mask, tau=tau, delta=delta)
        x = self.norm1(x + self.dropout(new_x))
        y = self.dropout(torch.relu(self.conv1(x.transpose(-1, 1))))
        y = self.dropout(self.conv2(y).transpose(-1, 1))
        return self.norm2(x + y), attn


class Encoder(nn.Module):
    def __init__(self, attn_layers, norm_layer=None):
        super().__init__()
        self.attn_layers = nn.ModuleList(attn_layers)
        self.norm = norm_layer

    def forward(self, x, attn_mask=None, tau=None, delta=None):
        attns = []
        for layer in self.attn_layers:
            x, attn = layer(x, attn_mask=attn_mask, tau=tau, delta=delta)
            attns.append(attn)
        return (self.norm(x) if self.norm is not None else x), attns


class Informer2020ProbAttention(ProbAttention):
    """Informer2020's ProbAttention returns its context as (B, L, H, D) ..."""

    def forward(self, queries, keys, values, attn_mask, tau=None, delta=None):
        context, attn = super().forward(queries, keys, values, attn_mask)
        return context.transpose(2, 1).contiguous(), attn


Informer2020ProbAttention.__name__ = "ProbAttention"  # as it is called in Informer2020


class Informer2020AttentionLayer(AttentionLayer):
    """... and its AttentionLayer transposes it back before the view only when mix=True."""

    def __init__(self, attention, d_model, n_heads, mix=False):
        super().__init__(attention, d_model, n_heads)
        self.mix = mix

    def forward(self, queries, keys, values, attn_mask):
        B, L, _ = queries.shape
        _, S, _ = keys.shape
        H = self.n_heads
        queries = self.query_projection(queries).view(B, L, H, -1)
        keys = self.key_projection(keys).view(B, S, H, -1)
        values = self.value_projection(values).view(B, S, H, -1)
        out, attn = self.inner_attention(queries, keys, values, attn_mask)
        if self.mix:
            out = out.transpose(2, 1).contiguous()
        return self.out_projection(out.view(B, L, -1)), attn
