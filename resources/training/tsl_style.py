"""A Time-Series-Library-style encoder in plain torch: module and parameter names as TSL's
(DataEmbedding with a circular-conv TokenEmbedding (kernel 1, see there) and a sinusoid PositionalEmbedding,
AttentionLayer(FullAttention), EncoderLayer with 1x1 convolutions, Encoder), so the trained
state_dict reads like a TSL checkpoint and attention.capture records it as one."""
from __future__ import annotations

import math

import torch
from torch import nn


class PositionalEmbedding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 5000):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).float().unsqueeze(1)
        div_term = (torch.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model)).exp()
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pe[:, :x.size(1)]  # (1, L, d_model)


class TokenEmbedding(nn.Module):
    """TSL's circular Conv1d value embedding.  kernel_size 1 here (TSL uses 3): with 3, the days
    t-8 and t-6 also carry x[t-7], and a head can smear its weight over the three of them; with
    1 each token holds its own day only, so "one period back" is one key."""

    def __init__(self, c_in: int, d_model: int, kernel_size: int = 1):
        super().__init__()
        self.tokenConv = nn.Conv1d(c_in, d_model, kernel_size=kernel_size, padding=kernel_size // 2,
                                   padding_mode="circular", bias=False)
        nn.init.kaiming_normal_(self.tokenConv.weight, mode="fan_in", nonlinearity="leaky_relu")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.tokenConv(x.permute(0, 2, 1)).transpose(1, 2)  # (B, L, c_in) -> (B, L, d_model)


class DataEmbedding(nn.Module):
    """TSL's DataEmbedding without the time-feature part (the task has no calendar)."""

    def __init__(self, c_in: int, d_model: int, dropout: float = 0.1):
        super().__init__()
        self.value_embedding = TokenEmbedding(c_in, d_model)
        self.position_embedding = PositionalEmbedding(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.value_embedding(x) + self.position_embedding(x))


class FullAttention(nn.Module):
    def __init__(self, mask_flag: bool = False, attention_dropout: float = 0.1, output_attention: bool = False):
        super().__init__()
        self.mask_flag, self.scale, self.output_attention = mask_flag, None, output_attention
        self.dropout = nn.Dropout(attention_dropout)

    def forward(self, queries, keys, values, attn_mask, tau=None, delta=None):
        B, L, H, E = queries.shape
        scores = torch.einsum("blhe,bshe->bhls", queries, keys)  # (B, H, L, S)
        if self.mask_flag:
            causal = torch.ones(L, L, dtype=torch.bool, device=queries.device).triu(1)
            scores = scores.masked_fill(causal, float("-inf"))
        A = self.dropout(torch.softmax(scores / math.sqrt(E), dim=-1))
        V = torch.einsum("bhls,bshd->blhd", A, values)  # (B, L, H, D)
        return V.contiguous(), (A if self.output_attention else None)


class AttentionLayer(nn.Module):
    def __init__(self, attention: nn.Module, d_model: int, n_heads: int):
        super().__init__()
        d = d_model // n_heads
        self.inner_attention = attention
        self.query_projection = nn.Linear(d_model, d * n_heads)
        self.key_projection = nn.Linear(d_model, d * n_heads)
        self.value_projection = nn.Linear(d_model, d * n_heads)
        self.out_projection = nn.Linear(d * n_heads, d_model)
        self.n_heads = n_heads

    def forward(self, queries, keys, values, attn_mask, tau=None, delta=None):
        B, L, _ = queries.shape
        S, H = keys.shape[1], self.n_heads
        q = self.query_projection(queries).view(B, L, H, -1)
        k = self.key_projection(keys).view(B, S, H, -1)
        v = self.value_projection(values).view(B, S, H, -1)
        out, attn = self.inner_attention(q, k, v, attn_mask, tau=tau, delta=delta)
        return self.out_projection(out.view(B, L, -1)), attn


class EncoderLayer(nn.Module):
    def __init__(self, attention: nn.Module, d_model: int, d_ff: int, dropout: float = 0.1):
        super().__init__()
        self.attention = attention
        self.conv1 = nn.Conv1d(d_model, d_ff, kernel_size=1)
        self.conv2 = nn.Conv1d(d_ff, d_model, kernel_size=1)
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, attn_mask=None, tau=None, delta=None):
        new_x, attn = self.attention(x, x, x, attn_mask=attn_mask, tau=tau, delta=delta)
        x = self.norm1(x + self.dropout(new_x))
        y = self.dropout(torch.nn.functional.gelu(self.conv1(x.transpose(-1, 1))))
        y = self.dropout(self.conv2(y).transpose(-1, 1))
        return self.norm2(x + y), attn


class Encoder(nn.Module):
    def __init__(self, attn_layers: list[nn.Module], norm_layer: nn.Module):
        super().__init__()
        self.attn_layers = nn.ModuleList(attn_layers)
        self.norm = norm_layer

    def forward(self, x, attn_mask=None):
        attns = []
        for layer in self.attn_layers:
            x, attn = layer(x, attn_mask=attn_mask)
            attns.append(attn)
        return self.norm(x), attns
