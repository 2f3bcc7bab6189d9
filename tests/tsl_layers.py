"""Time-Series-Library's layers for the capture tests: TSL's own modules live in one place,
resources/training/tsl_style.py (plain torch, TSL's names and arithmetic, independent of the
engine); here are only the Informer2020 variants the capture must also recognise."""
from __future__ import annotations

from resources.training.tsl_style import (  # noqa: F401 (re-exported for the tests)
    AttentionLayer,
    Decoder,
    DecoderLayer,
    Encoder,
    EncoderLayer,
    FullAttention,
    ProbAttention,
    ProbMask,
    TriangularCausalMask,
)


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
