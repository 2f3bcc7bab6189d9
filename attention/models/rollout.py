"""Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers").

Why: one layer's attention weights say where a token looks in that layer only; the residual
connection carries the rest.  Rollout models the residual as an identity half of each layer,
Ã_k = 0.5·A_k + 0.5·I (rows still sum to 1), and multiplies the layers through:

    R_1 = Ã_1,   R_k = Ã_k · R_{k-1}          (later layers on the left)

so R_k[i, j] is how much of input token j reaches position i after layer k.  A_k is the layer's
weights averaged over its heads, or one head's.  Everything here is Qt-free torch on the weights
the model forward already computed (the engine's `attention_weights` step), so nothing of
attention itself is computed again.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import torch


@dataclass(frozen=True)
class Rollout:
    """layers[k] (B, L, L): Ã of layer k; products[k] (B, L, L): R after layer k (0-based)."""

    layers: list[torch.Tensor]
    products: list[torch.Tensor]


def residual_mix(weights: torch.Tensor, head: Optional[int] = None) -> torch.Tensor:
    """Ã = 0.5·A + 0.5·I from one layer's weights (B, H, L, L): averaged over heads, or head `head`."""
    A = weights.mean(dim=1) if head is None else weights[:, head]  # (B, L, L)
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    return 0.5 * A + 0.5 * eye


def rollout(weights: Sequence[torch.Tensor], head: Optional[int] = None) -> Rollout:
    """Rollout through the layers of `weights` (one (B, H, L, L) tensor per layer, in order)."""
    layers = [residual_mix(w, head) for w in weights]
    products = [layers[0]]
    for mixed in layers[1:]:
        products.append(mixed @ products[-1])  # (B, L, L)
    return Rollout(layers, products)


def terms(r: Rollout, layer: int, b: int, i: int, j: int) -> list[tuple[int, float, float]]:
    """The sum behind products[layer][b, i, j]: (m, Ã_layer[b, i, m], R_{layer-1}[b, m, j]) per m.

    For the first layer there is no product: one term (j, Ã[b, i, j], 1)."""
    if layer == 0:
        return [(j, float(r.layers[0][b, i, j]), 1.0)]
    row, col = r.layers[layer][b, i], r.products[layer - 1][b, :, j]
    return [(m, float(row[m]), float(col[m])) for m in range(row.shape[0])]


def from_arrays(weights: Sequence, head: Optional[int] = None) -> Rollout:
    """Rollout of NumPy weights, one (H, L, L) array per layer (the model view's grid rows; B = 1)."""
    import numpy as np

    return rollout([torch.from_numpy(np.ascontiguousarray(w, dtype=np.float64))[None] for w in weights], head)
