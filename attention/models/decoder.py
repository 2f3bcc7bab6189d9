"""What one pass of a decoder language model hands the explorer, and the pieces every such decoder shares.

A decoder here is the pre-norm stack used by glassllm, Llama, SmolLM2 and kin:

    x0 = E[ids]
    per layer k:  h = RMSNorm(x) ; x = x + Attention_k(h) ; x = x + SwiGLU(RMSNorm(x))
    logits = RMSNorm(x) @ W_out^T          (W_out = E where the embeddings are tied)

The explorer needs more than the logits: the residual stream entering each layer and the normed input
each attention reads (so the engine can replay that layer as a scenario), each layer's attention output and
weights (the model view's grid), and the logits.  `DecoderForward` is that record, the same for every
decoder; `Attend` is the hook through which the engine computes each attention layer.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import torch


@dataclass(frozen=True)
class DecoderForward:
    """One pass over one sequence.

    resid[k] (1, L, d) the residual stream entering layer k (resid[n_layers]: after the last);
    normed[k] (1, L, d) RMSNorm(resid[k]): what layer k's attention reads as queries, keys, values;
    attn_out[k] (1, L, d) layer k's attention output; weights[k] (1, H, L, S) its attention weights (S = L, or
    with a KV cache the cached positions + L); logits (1, L, vocab)."""

    resid: list[torch.Tensor]
    normed: list[torch.Tensor]
    attn_out: list[torch.Tensor]
    weights: list[torch.Tensor]
    logits: torch.Tensor


#: One attention layer: (layer, normed input (1, L, d), first position) -> (output (1, L, d), weights (1, H, L, L)).
Attend = Callable[[int, torch.Tensor, int], tuple[torch.Tensor, torch.Tensor]]


def rms_norm(x: torch.Tensor, gamma: torch.Tensor, eps: float) -> torch.Tensor:
    """x / sqrt(mean(x²) + eps) * gamma over the last dim.  x (..., d), gamma (d,)."""
    return x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + eps) * gamma


def swiglu(x: torch.Tensor, W1: torch.Tensor, W3: torch.Tensor, W2: torch.Tensor) -> torch.Tensor:
    """(SiLU(x W1ᵀ) ⊙ x W3ᵀ) W2ᵀ with nn.Linear-layout weights: W1 = gate (f, d), W3 = up (f, d), W2 = down (d, f)."""
    return (torch.nn.functional.silu(x @ W1.T) * (x @ W3.T)) @ W2.T


def frozen(a: np.ndarray | torch.Tensor) -> np.ndarray:
    """A read-only float64 copy of `a` that nothing else holds.

    Why read-only: the engine views (does not copy) a read-only array already in its run's dtype and remembers
    it was found finite (attention.ops.tensors.tensor, attention.compute.engine._known_finite); an edit in the
    window writes a fresh copy (app.viewmodel.matrix_ref.MatrixRef.with_block), so a shared model weight is
    never changed."""
    if isinstance(a, torch.Tensor):
        a = a.detach().cpu().numpy()
    out = np.array(a, dtype=np.float64, copy=True, order="C")
    out.setflags(write=False)
    return out


class KeptWeights:
    """Each layer's attention projections as read-only float64 arrays (role -> (out, in)), made on first use.

    `keep` is how many layers stay made (the last ones asked for; None: all).  A decoder's scenarios of one
    layer (every prompt edit, every token, the undo steps) then share one set of arrays instead of holding
    copies, and the engine reads them without copying (see `frozen`).  SmolLM2's are 7 MB a layer in float64
    (212 MB for all 30), so a GGUF decoder keeps the few layers a person has open; glassllm's 4 layers are
    1.5 MB and all stay.  Safe from two threads (the window's worker and GUI thread both build scenarios)."""

    def __init__(self, make: Callable[[int], dict[str, np.ndarray | torch.Tensor]], keep: Optional[int] = None):
        self._make, self._keep = make, keep
        self._kept: OrderedDict[int, dict[str, np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, k: int) -> dict[str, np.ndarray]:
        """Layer k's projections: a new dict each call, holding the same read-only arrays."""
        with self._lock:
            w = self._kept.get(k)
            if w is not None:
                self._kept.move_to_end(k)
                return dict(w)
        w = {role: frozen(a) for role, a in self._make(k).items()}  # outside the lock: 10 ms for a SmolLM2 layer
        with self._lock:
            w = self._kept.setdefault(k, w)  # another thread may have made it meanwhile: theirs is shared
            self._kept.move_to_end(k)
            while self._keep is not None and len(self._kept) > self._keep:
                self._kept.popitem(last=False)
        return dict(w)

    @property
    def layers(self) -> list[int]:
        """The layers whose arrays are made now, least recently asked first."""
        with self._lock:
            return list(self._kept)
