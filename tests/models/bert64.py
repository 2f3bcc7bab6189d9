"""A float64 BERT encoder in numpy, written apart from attention.models.bert: the tests' reference for
sentence pairs (tests/models/test_minilm_pair.py, tests/gui/test_model_view_defects.py).

BERT's forward as the paper and transformers' BertModel define it (eval mode): embeddings word + position +
token type, LayerNorm; per layer softmax(QK^T / sqrt(d_k)) V, output dense, residual + LayerNorm, erf-GELU
feed-forward, residual + LayerNorm.  One sequence, no padding.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch


def read_state_dict(folder: Path) -> dict[str, np.ndarray]:
    """The checkpoint's tensors as numpy arrays (read with safetensors' own numpy reader)."""
    from safetensors import safe_open

    with safe_open(str(Path(folder) / "model.safetensors"), "np") as f:
        return {k: f.get_tensor(k) for k in f.keys()}


def _erf(x: np.ndarray) -> np.ndarray:
    return torch.erf(torch.from_numpy(x)).numpy()  # float64 in, float64 out


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def reference_forward(sd: dict[str, np.ndarray], ids, types, heads: int = 12):
    """BERT's encoder in float64 numpy on one sequence -> (hidden states entering each layer + the output,
    attention weights (H, L, L) per layer)."""
    g = {k: v.astype(np.float64) for k, v in sd.items()}
    ids, types = np.asarray(ids), np.asarray(types)
    L = len(ids)
    x = g["embeddings.word_embeddings.weight"][ids] + g["embeddings.position_embeddings.weight"][:L] \
        + g["embeddings.token_type_embeddings.weight"][types]  # (L, D)
    x = _layer_norm(x, g["embeddings.LayerNorm.weight"], g["embeddings.LayerNorm.bias"])
    hidden, weights = [x], []
    k = 0
    while f"encoder.layer.{k}.attention.self.query.weight" in g:
        p = f"encoder.layer.{k}."

        def lin(v, name, p=p):
            return v @ g[p + name + ".weight"].T + g[p + name + ".bias"]

        D = x.shape[1]
        dk = D // heads
        q, kk, v = (lin(x, f"attention.self.{r}").reshape(L, heads, dk).transpose(1, 0, 2)
                    for r in ("query", "key", "value"))  # (H, L, dk)
        s = q @ kk.transpose(0, 2, 1) / math.sqrt(dk)  # (H, L, L)
        e = np.exp(s - s.max(-1, keepdims=True))
        w = e / e.sum(-1, keepdims=True)
        weights.append(w)
        ctx = (w @ v).transpose(1, 0, 2).reshape(L, D)
        x = _layer_norm(x + lin(ctx, "attention.output.dense"), g[p + "attention.output.LayerNorm.weight"],
                        g[p + "attention.output.LayerNorm.bias"])
        up = lin(x, "intermediate.dense")
        x = _layer_norm(x + lin(0.5 * up * (1 + _erf(up / math.sqrt(2))), "output.dense"),
                        g[p + "output.LayerNorm.weight"], g[p + "output.LayerNorm.bias"])
        hidden.append(x)
        k += 1
    return hidden, weights
