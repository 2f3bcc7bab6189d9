"""One decoder layer as an ordinary scenario, and the engine as a decoder's attention (the `Attend` hook).

Why: the explorer's promise is that what the window shows is the engine's own computation.  A decoder
layer (glassllm, SmolLM2, any Llama-family model) is grouped-query attention with RoPE under a causal
mask; with RoPE a kind of the table (a RoPE part) and n_kv_heads in the scenario, that layer is a plain
Scenario: the layer's RMS-normed input as queries, keys and values, its four projections without biases,
`n_kv_heads`, a RoPE part ({"base", "pairing"}) and the causal rule.  `engine.run` on it gives the same
attention weights and output as the decoder's own attention, so the model view can run every layer
through the engine (`engine_attend`) and a person can edit any number of one layer afterwards.

The decoder object is duck-typed (glassllm.GlassDecoder, llama.LlamaDecoder): `config` (n_layers,
n_heads, n_kv_heads, head_dim, d_model, rope_base), `attention_weights(k)` and `name`.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np
import torch

import attention.words as words
from attention.compute.engine import run
from attention.datamodel import numbers
from attention.datamodel.parts import Part
from attention.datamodel.scenario import Projection, Scenario
from attention.kinds.qk_norm import QK_NORM
from attention.kinds.rope import ROPE
from attention.kinds.window import WINDOW
from attention.models.decoder import Attend
from attention.models.errors import ModelError


def pairing_of(model: Any) -> str:
    """How the decoder pairs the dimensions it rotates: glassllm (GPT-J style) adjacent, Llama halves."""
    return getattr(model, "rope_pairing", None) or ("adjacent" if type(model).__name__ == "GlassDecoder"
                                                     else "halves")


def layer_scenario(model: Any, normed: np.ndarray, layer: int, tokens: Optional[Sequence[str]] = None,
                   start: int = 0, dtype: str = "float64", text: str = "") -> Scenario:
    """Layer `layer` of a decoder on `normed` (B, L, d), the RMS-normed residual entering it.

    `start` is the first token's position (RoPE's offset).  Layers are numbered from 1 in the words."""
    c = model.config
    if not 0 <= layer < c.n_layers:
        raise ModelError("model_layer_range", layer=layer, count=c.n_layers)
    x = np.asarray(normed, dtype=np.float64)  # (B, L, d)
    weights = model.attention_weights(layer)  # role -> (out, in) float64
    projections = {role: Projection(np.asarray(weights[role], dtype=np.float64), None)
                   for role in ("query", "key", "value", "out")}
    la = model.layer_attention(layer) if hasattr(model, "layer_attention") else None  # Llama, Gemma 3
    base = float(la.base) if la is not None else float(c.rope_base)
    rope = Part(ROPE.name, {"base": base, "pairing": pairing_of(model), "offset": int(start)})
    labels = tuple(tokens) if tokens is not None else None
    name = getattr(model, "title_name", lambda lang: model.name)  # Gemma 3 says when a teacher altered it
    title = {lang: words.text("model_layer_title", lang, model=name(lang), layer=layer + 1, count=c.n_layers)
             for lang in words.LANGS}
    note = getattr(model, "layer_note", None)
    notes = {lang: words.text("decoder_layer_notes", lang, model=name(lang), layer=layer + 1, text=text,
                              heads=c.n_heads, kv=c.n_kv_heads, d_model=c.d_model, base=numbers.whole(base),
                              pairing=words.text(f"decoder_pairing_{pairing_of(model)}", lang))
             + ("\n\n" + note(layer, lang) if note is not None else "")
             for lang in words.LANGS}
    return Scenario(queries=x, keys=x, values=x, n_heads=c.n_heads, n_kv_heads=c.n_kv_heads,
                    d_keys=c.head_dim, d_values=c.head_dim, projections=projections, causal=True,
                    positions=(rope,), modifiers=attention_parts(la), masks=window_parts(la),
                    scale=None if la is None else la.scale, dtype=dtype, title=title, notes=notes,
                    weights_note=weights_note(model), query_tokens=labels, key_tokens=labels)


def attention_parts(la: Any) -> tuple[Part, ...]:
    """QK-norm as the engine's kind (Gemma 3's style: 1 + w, the weights held as w), where the layer has it."""
    if la is None or la.q_norm is None:
        return ()
    q, k = (np.array(w.double().numpy(), dtype=np.float64) for w in (la.q_norm, la.k_norm))  # (head_dim,) each
    return (Part(QK_NORM.name, {"style": "gemma3", "eps": float(la.norm_eps), "query_weight": q, "key_weight": k}),)


def window_parts(la: Any) -> tuple[Part, ...]:
    """The sliding window (a local layer's), as the engine's mask rule."""
    return () if la is None or la.window is None else (Part(WINDOW.name, {"size": int(la.window)}),)


def weights_note(model: Any) -> dict[str, str]:
    """{"en", "zh"}: 'dequantized 4-bit (Q4_1)' for a model whose file stored its weights quantized (a GGUF's
    spec.bits), else empty: the scenario carries it to every place its weights show, and into its file."""
    spec = getattr(model, "spec", None)
    bits = getattr(spec, "bits", None)
    if bits is None:
        return {lang: "" for lang in words.LANGS}
    return {lang: words.text("gguf_weights_short", lang, bits=bits, kind=spec.storage) for lang in words.LANGS}


def engine_attend(model: Any, dtype: str = "float64") -> Attend:
    """The `Attend` hook that computes every layer with `engine.run` on its scenario."""

    def attend(k: int, h: torch.Tensor, start: int) -> tuple[torch.Tensor, torch.Tensor]:
        sc = layer_scenario(model, h.detach().double().numpy(), k, start=start, dtype=dtype)
        t = run(sc, device="cpu")
        out = torch.from_numpy(np.asarray(t.array("output"))).to(h.dtype)  # (B, L, d)
        w = torch.from_numpy(np.asarray(t.array("attention_weights"))).to(h.dtype)  # (B, H, L, L)
        return out, w

    return attend


def next_tokens(model: Any, logits: torch.Tensor, n: int = 10) -> list[tuple[int, str, float]]:
    """The n most likely tokens after the last position: softmax of the last row of logits (1, L, vocab)."""
    p = torch.softmax(logits[0, -1].double(), dim=-1)  # (vocab,)
    top = torch.topk(p, n)
    ids = [int(i) for i in top.indices]
    return list(zip(ids, model.token_labels(ids), [float(v) for v in top.values]))


def run_prompt(model: Any, ids: Sequence[int]):
    """The decoder's forward over `ids` in float64 with every layer computed by the engine (DecoderForward)."""
    return model.forward(list(ids), attend=engine_attend(model), dtype=torch.float64)
