"""Attention modules written out in plain torch for the import tests, with the state-dict key layouts
of the libraries they stand for.  Each forward is the library's own computation, written here
independently of the engine, so "imported scenario == module forward" is a real check.

- Time-Series-Library: its FullAttention + AttentionLayer from resources/training/tsl_style.py (the
  one copy of TSL's layers), inside an encoder (`encoder.attn_layers.i.attention`) and a decoder
  (`decoder.layers.i.{self,cross}_attention`).
- BERT: BertSelfAttention / BertSelfOutput / BertAttention (`bert.encoder.layer.i.attention.…`).
- GPT-2: Conv1D (weight (in, out)), GPT2Attention with fused c_attn (`transformer.h.i.attn.…`),
  and an MLP whose c_fc/c_proj must not be mistaken for attention.
"""
from __future__ import annotations

import math
from typing import Optional

import torch
from torch import nn

import resources.training.tsl_style as tsl

# ---- Time-Series-Library: its own modules (resources/training/tsl_style.py) ----------------------

class FullAttention(tsl.FullAttention):
    """TSL's FullAttention as the import tests compare it: no dropout, attention weights returned."""

    def __init__(self, mask_flag: bool = True, scale: Optional[float] = None):
        super().__init__(mask_flag, scale=scale, attention_dropout=0.0, output_attention=True)


AttentionLayer = tsl.AttentionLayer


class TSLTransformer(nn.Module):
    """TSL's Transformer without embeddings' details: `e_layers` encoder layers and one decoder layer
    (causal self-attention, cross-attention), with TSL's module names."""

    def __init__(self, d_model: int = 16, n_heads: int = 4, e_layers: int = 2, d_keys: Optional[int] = None):
        super().__init__()
        self.enc_embedding = nn.Linear(3, d_model)
        self.encoder = tsl.Encoder(
            [tsl.EncoderLayer(AttentionLayer(FullAttention(False), d_model, n_heads, d_keys=d_keys), d_model,
                              2 * d_model) for _ in range(e_layers)],
            norm_layer=nn.LayerNorm(d_model))
        self.decoder = tsl.Decoder([tsl.DecoderLayer(AttentionLayer(FullAttention(True), d_model, n_heads),
                                                     AttentionLayer(FullAttention(False), d_model, n_heads),
                                                     d_model, 2 * d_model)])
        self.projection = nn.Linear(d_model, 1)


# ---- BERT -----------------------------------------------------------------------------------------

class BertSelfAttention(nn.Module):
    def __init__(self, hidden: int, heads: int):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)

    def forward(self, x):
        B, L, D = x.shape

        def split(t):
            return t.view(B, L, self.heads, self.head_dim).transpose(1, 2)  # (B, H, L, hd)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        probs = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.head_dim), dim=-1)
        context = (probs @ v).transpose(1, 2).reshape(B, L, D)
        return context, probs


class BertSelfOutput(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.dense = nn.Linear(hidden, hidden)
        self.LayerNorm = nn.LayerNorm(hidden)


class BertAttention(nn.Module):
    def __init__(self, hidden: int, heads: int):
        super().__init__()
        self.self = BertSelfAttention(hidden, heads)
        self.output = BertSelfOutput(hidden)

    def forward(self, x):
        """The attention output before dropout, residual and LayerNorm (= the engine's `output`)."""
        context, probs = self.self(x)
        return self.output.dense(context), probs


class BertLayer(nn.Module):
    def __init__(self, hidden: int, heads: int):
        super().__init__()
        self.attention = BertAttention(hidden, heads)
        self.intermediate = nn.Linear(hidden, 2 * hidden)


class BertEncoder(nn.Module):
    def __init__(self, hidden: int, heads: int, layers: int):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(hidden, heads) for _ in range(layers)])


class BertModel(nn.Module):
    def __init__(self, hidden: int = 24, heads: int = 6, layers: int = 2):
        super().__init__()
        self.embeddings = nn.Embedding(50, hidden)
        self.encoder = BertEncoder(hidden, heads, layers)


class BertForSomething(nn.Module):
    """`bert.` prefix, as BertForSequenceClassification's state dict has."""

    def __init__(self, **kw):
        super().__init__()
        self.bert = BertModel(**kw)
        self.classifier = nn.Linear(self.bert.embeddings.embedding_dim, 2)


# ---- GPT-2 ----------------------------------------------------------------------------------------

class Conv1D(nn.Module):
    """transformers' Conv1D: a linear layer with its weight stored (in, out)."""

    def __init__(self, nf: int, nx: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.2)
        self.bias = nn.Parameter(torch.randn(nf) * 0.1)

    def forward(self, x):
        return x @ self.weight + self.bias


class GPT2Attention(nn.Module):
    def __init__(self, E: int, heads: int, layer_idx: int = 0, by_layer: bool = False):
        super().__init__()
        self.E, self.heads, self.layer_idx, self.by_layer = E, heads, layer_idx, by_layer
        self.c_attn = Conv1D(3 * E, E)
        self.c_proj = Conv1D(E, E)

    def forward(self, x):
        B, L, E = x.shape
        q, k, v = self.c_attn(x).split(E, dim=2)

        def split(t):
            return t.view(B, L, self.heads, E // self.heads).transpose(1, 2)

        q, k, v = split(q), split(k), split(v)
        w = q @ k.transpose(-1, -2) / math.sqrt(v.shape[-1])
        if self.by_layer:
            w = w / float(self.layer_idx + 1)
        causal = torch.tril(torch.ones(L, L, dtype=torch.bool))
        w = torch.where(causal, w, torch.finfo(w.dtype).min)
        probs = torch.softmax(w, dim=-1)
        return self.c_proj((probs @ v).transpose(1, 2).reshape(B, L, E)), probs


class GPT2MLP(nn.Module):
    def __init__(self, E: int):
        super().__init__()
        self.c_fc = Conv1D(4 * E, E)
        self.c_proj = Conv1D(E, 4 * E)


class GPT2Block(nn.Module):
    def __init__(self, E: int, heads: int, layer_idx: int, by_layer: bool):
        super().__init__()
        self.ln_1 = nn.LayerNorm(E)
        self.attn = GPT2Attention(E, heads, layer_idx, by_layer)
        self.mlp = GPT2MLP(E)


class GPT2Model(nn.Module):
    def __init__(self, E: int = 16, heads: int = 4, layers: int = 2, by_layer: bool = False):
        super().__init__()
        self.wte = nn.Embedding(30, E)
        self.h = nn.ModuleList([GPT2Block(E, heads, i, by_layer) for i in range(layers)])


class GPT2LMHead(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.transformer = GPT2Model(**kw)
