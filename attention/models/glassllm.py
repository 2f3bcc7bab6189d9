"""glassllm's trained English decoder (PyPI `glassllm==0.1.0`, MIT, NumPy only), run in plain torch.

The package ships 1.6 MB of float16 weights: 4 layers, d_model 128, 4 query heads sharing 2
key/value heads, RoPE on adjacent pairs (base 10000), RMSNorm, SwiGLU, tied embeddings, and a
1024-token BPE tokenizer.  Its own forward is NumPy; this module runs the same forward in torch
so the explorer can hand each layer's real input to the engine (one scenario per layer):

    x0 = E[ids]
    per layer:  h = RMSNorm(x) ; x = x + Attention(h) ; x = x + SwiGLU(RMSNorm(x))
    logits = RMSNorm(x) @ E^T

glassllm multiplies activations by weights on the right (x @ W, W (in, out)); the explorer's
projections are nn.Linear-style (out, in), so every weight is transposed once on load.  Why not
import glassllm's own classes for the forward: they carry an autograd tape, and the explorer
needs float64 on demand and the hidden states entering each layer.  The package is still the
source of the weights and the tokenizer (`load_pretrained`), and tests pin this forward to its
Tracer layer by layer.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
import torch

from attention.compute import threads
from attention.kinds import rope
from attention.models.decoder import Attend, DecoderForward, KeptWeights, rms_norm, swiglu  # noqa: F401
from attention.models.errors import ModelError
from attention.models.token_text import visible

PACKAGE = "glassllm"
PIP_NAME = "glassllm==0.1.0"
LABEL = "glassllm"
LANGUAGE = "en"  # the bundled English model (the package also ships a Portuguese one)


@dataclass(frozen=True)
class GlassConfig:
    vocab_size: int
    d_model: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    max_len: int
    rope_base: float
    eps: float

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads


def available() -> bool:
    try:
        __import__(PACKAGE)
    except ImportError:
        return False
    return True


class GlassDecoder:
    """The loaded model: config, nn.Linear-layout tensors (float64 master copy), tokenizer."""

    def __init__(self, config: GlassConfig, tensors: dict[str, torch.Tensor], tokenizer):
        self.config = config
        self.tensors = tensors  # float64; names as glassllm's, weights transposed to (out, in)
        self.tokenizer = tokenizer
        self.name = LABEL
        self._attention = KeptWeights(self._attention_tensors)  # all 4 layers: 1.5 MB

    @classmethod
    def load(cls) -> "GlassDecoder":
        """The package's English weights and tokenizer; ModelError when the package is missing."""
        try:
            import glassllm
        except ImportError:
            raise ModelError("model_glassllm_missing", pip=PIP_NAME) from None
        model, tokenizer = glassllm.load_pretrained(LANGUAGE)
        c = model.cfg
        config = GlassConfig(c.vocab_size, c.d_model, c.n_layers, c.n_heads, c.n_kv_heads, c.max_len,
                             float(c.rope_base), float(c.eps))
        tensors = {}
        for name, p in model.named_parameters().items():
            a = torch.from_numpy(np.asarray(p.data, dtype=np.float64))
            # x @ W with W (in, out) -> nn.Linear weight (out, in); E and the norms' gammas stay as they are
            tensors[name] = a.T.contiguous() if a.ndim == 2 and name != "E" else a
        return cls(config, tensors, tokenizer)

    # ---- tokens ------------------------------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text))

    def token_texts(self, ids: list[int]) -> list[str]:
        """Each token as the tokenizer spells it (a newline is "\\n"): what files and JSON carry."""
        return list(self.tokenizer.tokens(ids))

    def token_labels(self, ids: list[int]) -> list[str]:
        """What each token reads as, spaces shown as the tokenizer marks them (▁), a newline as ↵ and any other
        invisible character visibly (attention.models.token_text)."""
        return [visible(t) for t in self.token_texts(ids)]

    # ---- one layer's weights -------------------------------------------------------------------
    def attention_weights(self, k: int) -> dict[str, np.ndarray]:
        """Layer k's projections, nn.Linear layout (out, in), float64, without biases: read-only arrays made
        once and shared by every call (decoder.KeptWeights; the engine views them instead of copying)."""
        return self._attention(k)

    def _attention_tensors(self, k: int) -> dict[str, torch.Tensor]:
        p = f"blocks.{k}.attn."
        return {role: self.tensors[p + name] for role, name in
                (("query", "W_Q"), ("key", "W_K"), ("value", "W_V"), ("out", "W_O"))}

    # ---- the forward pass ----------------------------------------------------------------------
    @torch.no_grad()
    def forward(self, ids: list[int], attend: Optional[Attend] = None, dtype: torch.dtype = torch.float64,
                start: int = 0, from_layer: int = 0, resid: Optional[torch.Tensor] = None) -> DecoderForward:
        """Every residual state, every layer's attention and the logits for one sequence `ids`.

        `attend` computes one attention layer (the model view passes the engine); the default is
        `reference_attention`, written here so the forward can be checked on its own.  With `from_layer` and
        `resid` (B, L, d), the residual entering that layer, the layers before it are not run again and the
        record's lists begin at that layer (as llama.LlamaDecoder.forward)."""
        c = self.config
        if not ids:
            raise ModelError("model_no_tokens")
        if start < 0 or start + len(ids) > c.max_len:
            raise ModelError("model_too_long", n=start + len(ids), limit=c.max_len)
        attend = attend or (lambda k, h, s: self.reference_attention(k, h, s))
        threads.use_for_model(len(ids), self.tensors)  # attention/compute/threads.py: the policy
        t = {n: v.to(dtype) for n, v in self.tensors.items()}
        x = t["E"][torch.as_tensor(ids)][None] if resid is None else resid.to(dtype)  # (1, L, d) / (B, L, d)
        resid, normed, outs, weights = [], [], [], []
        for k in range(from_layer, c.n_layers):
            p = f"blocks.{k}."
            resid.append(x)
            h = rms_norm(x, t[p + "norm1.gamma"], c.eps)  # (1, L, d)
            normed.append(h)
            a, w = attend(k, h, start)
            outs.append(a)
            weights.append(w)
            x = x + a
            x = x + swiglu(rms_norm(x, t[p + "norm2.gamma"], c.eps),
                           t[p + "ffn.W1"], t[p + "ffn.W3"], t[p + "ffn.W2"])
        resid.append(x)
        logits = rms_norm(x, t["norm_f.gamma"], c.eps) @ t["E"].T  # (1, L, vocab)
        return DecoderForward(resid, normed, outs, weights, logits)

    def reference_attention(self, k: int, h: torch.Tensor, start: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
        """glassllm's attention written out: GQA, RoPE on adjacent pairs, causal softmax."""
        c = self.config
        W = {role: w.to(h.dtype) for role, w in self._attention_tensors(k).items()}
        B, L, _ = h.shape
        E = c.head_dim
        q = (h @ W["query"].T).view(B, L, c.n_heads, E)  # (B, L, H, E)
        kk = (h @ W["key"].T).view(B, L, c.n_kv_heads, E)  # (B, L, Hkv, E)
        v = (h @ W["value"].T).view(B, L, c.n_kv_heads, E)
        # glassllm's RoPE is the rope kind's "adjacent" pairing (pairs 2i, 2i+1; theta_i = base^(-2i/E))
        q = rope.rotate(q, base=c.rope_base, pairing="adjacent", offset=start)
        kk = rope.rotate(kk, base=c.rope_base, pairing="adjacent", offset=start)
        rep = c.n_heads // c.n_kv_heads
        kk = kk.repeat_interleave(rep, dim=2)  # query head h reads kv head h // rep
        v = v.repeat_interleave(rep, dim=2)
        s = torch.einsum("blhe,bshe->bhls", q, kk) / math.sqrt(E)  # (B, H, L, S)
        s = s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), -math.inf)
        w = torch.softmax(s, dim=-1)
        ctx = torch.einsum("bhls,bshe->blhe", w, v).reshape(B, L, c.n_heads * E)
        return ctx @ W["out"].T, w
