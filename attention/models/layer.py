"""One trained attention layer's weights, whatever file or module they came from.

Every importer maps its own layout (Time-Series-Library `*_projection`, nn.MultiheadAttention's
packed `in_proj_weight`, BERT's `query/key/value`, GPT-2's fused Conv1D `c_attn`) onto this
record in nn.Linear layout, weight (out, in), so there is one mapping to a Scenario for all of
them.  A layer the engine cannot reproduce exactly (rotary positions, grouped-query attention,
ALiBi, relative-position biases) carries the reason in `unsupported` instead of being imported
wrongly.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from attention.datamodel.scenario import Projection, Scenario
from attention.kinds.dot_product import SCALED_DOT

#: The projections of one layer, in the order the engine applies them.
ROLES: tuple[str, ...] = ("query", "key", "value", "out")


@dataclass(frozen=True)
class LayerWeights:
    """nn.Linear-layout weights (out, in) and biases (out,) of one multi-head attention layer.

    `projections` maps each of ROLES to (weight, bias or None) as float64 numpy arrays.
    `n_heads` comes from the checkpoint's config where it has one; None means the user picks
    among the divisors of the query projection's width.  `causal` is True for decoder
    self-attention that a causal mask belongs to (GPT-2, TSL decoder self-attention)."""

    name: str  # where the layer sits in its file, e.g. "encoder.layer.3.attention"
    family: str  # "tsl", "mha", "bert", "gpt2"
    projections: dict[str, tuple[np.ndarray, Optional[np.ndarray]]]
    n_heads: Optional[int] = None
    causal: bool = False
    unsupported: Optional[str] = None  # why the engine cannot reproduce it exactly, in words
    extra: dict = field(default_factory=dict)  # family-specific facts (layer index, config keys)

    @property
    def d_model(self) -> int:
        """The width the layer's queries come in with (the query projection's input width)."""
        return int(self.projections["query"][0].shape[1])

    @property
    def inner_width(self) -> int:
        """H * d_k: the query projection's output width, which the head count must divide."""
        return int(self.projections["query"][0].shape[0])

    def head_choices(self) -> list[int]:
        """Head counts the layer allows: divisors of both H*d_k and H*d_v."""
        dk_total = self.inner_width
        dv_total = int(self.projections["value"][0].shape[0])
        return [h for h in range(1, dk_total + 1) if dk_total % h == 0 and dv_total % h == 0]

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Every tensor's shape, for the import dialog and `main.py layers`."""
        out: dict[str, tuple[int, ...]] = {}
        for role in ROLES:
            w, b = self.projections[role]
            out[f"{role}.weight"] = tuple(w.shape)
            if b is not None:
                out[f"{role}.bias"] = tuple(b.shape)
        return out


def to_scenario(layer: LayerWeights, queries: np.ndarray, keys: Optional[np.ndarray] = None,
                values: Optional[np.ndarray] = None, n_heads: Optional[int] = None, *,
                causal: Optional[bool] = None, valid_lens: Optional[np.ndarray] = None,
                fill_value: float = float("-inf"), query_tokens: Optional[tuple] = None,
                key_tokens: Optional[tuple] = None, title: Optional[dict] = None,
                notes: Optional[dict] = None, dtype: str = "float32") -> Scenario:
    """The scenario that runs `layer` on the given inputs: scaled dot product, 1/sqrt(d_k).

    queries (B, L, d_model); keys and values (B, S, d_model) default to the queries
    (self-attention).  d_keys / d_values follow from the projections' widths and the head
    count, as in every family this module knows.  Raises ValueError (in words) for a layer
    marked unsupported or a head count that does not divide the widths."""
    if layer.unsupported:
        raise ValueError(f"{layer.name}: cannot be reproduced exactly: {layer.unsupported}")
    H = int(n_heads or layer.n_heads or 0)
    if H not in layer.head_choices():
        raise ValueError(f"{layer.name}: {H} heads do not divide the projection widths "
                         f"(choose one of {layer.head_choices()})")
    keys = queries if keys is None else keys
    values = keys if values is None else values
    projections = {role: Projection(np.asarray(w, dtype=np.float64),
                                    None if b is None else np.asarray(b, dtype=np.float64))
                   for role, (w, b) in layer.projections.items()}
    return Scenario(
        queries=np.asarray(queries, dtype=np.float64), keys=np.asarray(keys, dtype=np.float64),
        values=np.asarray(values, dtype=np.float64), n_heads=H,
        d_keys=layer.inner_width // H, d_values=int(layer.projections["value"][0].shape[0]) // H,
        projections=projections, scoring=SCALED_DOT.name,
        causal=layer.causal if causal is None else causal, valid_lens=valid_lens,
        fill_value=fill_value, dtype=dtype,
        title=title or {"en": layer.name, "zh": layer.name}, notes=notes or {"en": "", "zh": ""},
        query_tokens=query_tokens, key_tokens=key_tokens,
    )
