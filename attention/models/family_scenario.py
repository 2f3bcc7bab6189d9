"""A Hugging Face decoder layer (attention/models/families.py's FamilyLayer) as a version-2 Scenario.

This is the import mapping of the modern kinds: each convention the family reader wrote out becomes
the kind part the engine computes it with (attention/kinds/, names fixed by the kinds' contract), so
that `engine.run` of the scenario reproduces transformers' own eager attention (tests/models/
test_import_modern.py, golden files of tests/models/golden_modern/):

====================  =====================================================================================
FamilyLayer           Scenario
====================  =====================================================================================
q/k/v/o weights+bias  projections query/key/value/out (nn.Linear layout, biases where the family has them)
n_heads, n_kv_heads   n_heads, n_kv_heads (None when equal), d_keys = d_values = head_dim
scale                 scale (Gemma: query_pre_attn_scalar^-1/2; else head_dim^-1/2)
causal, window        causal=True; masks Part("window", {"size": W}) on the layers that slide
rope                  positions Part("rope", base, fraction, pairing, offset 0; frequencies when the config
                      rescales them: llama3 / linear)
qk_norm               modifiers Part("qk_norm", style qwen3 (w) or gemma3 (1 + w, the stored w), eps, weights)
alibi_slopes          modifiers Part("alibi", slopes None = BLOOM's formula, form "key" as transformers)
softcap               modifiers Part("softcap", {"cap": c}) (Gemma 2)
====================  =====================================================================================

Not carried: BLOOM's module adds its input back (dense(out) + residual); the scenario's output is the
attention's own (the notes say so).  Position ids are 0..L-1 plus the rope part's `offset`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from attention.datamodel.parts import Part
from attention.datamodel.scenario import Projection, Scenario
from attention.kinds.dot_product import SCALED_DOT
from attention.models.families import FamilyLayer, Rope, bloom_slopes


def rope_part(rope: Rope, head_dim: int, offset: int = 0) -> Part:
    """Part("rope"): the rotated share of each head and, for scaled RoPE, the frequencies themselves."""
    fraction = rope.rotary_dims / head_dim
    if int(head_dim * fraction) != rope.rotary_dims:  # 2/3 * 3 < 2 in floating point: nudge inside the dim
        fraction = (rope.rotary_dims + 0.5) / head_dim
    values = {"base": float(rope.base), "fraction": float(fraction), "pairing": rope.pairing, "offset": int(offset)}
    if rope.rope_type != "default":  # llama3 / linear: the rescaled frequencies, as the config makes them
        values["frequencies"] = np.asarray(rope.inv_freq, dtype=np.float64)
    return Part("rope", values)


def modifier_parts(d: FamilyLayer) -> tuple[Part, ...]:
    """QK-norm (before RoPE), ALiBi, soft-cap: in the engine's order."""
    out = []
    if d.qk_norm is not None:
        n = d.qk_norm
        shift = 1.0 if n.plus_one else 0.0  # Gemma stores w and multiplies by 1 + w: the part holds w
        out.append(Part("qk_norm", {"style": "gemma3" if n.plus_one else "qwen3", "eps": float(n.eps),
                                    "query_weight": np.asarray(n.q_scale, dtype=np.float64) - shift,
                                    "key_weight": np.asarray(n.k_scale, dtype=np.float64) - shift}))
    if d.alibi_slopes is not None:
        slopes = np.asarray(d.alibi_slopes, dtype=np.float64)
        same = slopes.shape == (d.n_heads,) and np.array_equal(slopes, bloom_slopes(d.n_heads))
        out.append(Part("alibi", {"slopes": None if same else slopes, "form": "key"}))
    if d.softcap is not None:
        out.append(Part("softcap", {"cap": float(d.softcap)}))
    return tuple(out)


def kinds_used(d: FamilyLayer) -> tuple[str, ...]:
    """The kind names a layer's scenario uses, for lists and notes ("rope", "qk_norm", "window" ...)."""
    names = ["causal"] if d.causal else []
    if d.n_kv_heads != d.n_heads:
        names.append("gqa" if d.n_kv_heads > 1 else "mqa")
    names += ["rope"] if d.rope is not None else []
    names += [p.kind for p in modifier_parts(d)]
    names += ["window"] if d.window is not None else []
    return tuple(names)


def to_scenario(d: FamilyLayer, queries: np.ndarray, *, valid_lens: Optional[np.ndarray] = None,
                query_tokens: Optional[tuple] = None, title: Optional[dict] = None, notes: Optional[dict] = None,
                dtype: str = "float32", offset: int = 0) -> Scenario:
    """The scenario running layer `d` as self-attention on `queries` (B, L, d_model)."""
    queries = np.asarray(queries, dtype=np.float64)
    if queries.ndim != 3 or queries.shape[2] != d.d_model:
        raise ValueError(f"{d.prefix}: inputs of shape {queries.shape}; expected (B, L, {d.d_model})")

    def proj(w, b) -> Projection:
        return Projection(np.asarray(w, dtype=np.float64), None if b is None else np.asarray(b, dtype=np.float64))

    return Scenario(
        queries=queries, keys=queries, values=queries, n_heads=d.n_heads,
        n_kv_heads=None if d.n_kv_heads == d.n_heads else d.n_kv_heads,
        d_keys=d.head_dim, d_values=d.head_dim,
        projections={"query": proj(d.q_weight, d.q_bias), "key": proj(d.k_weight, d.k_bias),
                     "value": proj(d.v_weight, d.v_bias), "out": proj(d.o_weight, d.o_bias)},
        scoring=SCALED_DOT.name, scale=float(d.scale), causal=bool(d.causal), valid_lens=valid_lens,
        fill_value=float("-inf"), dtype=dtype,
        positions=(rope_part(d.rope, d.head_dim, offset),) if d.rope is not None else (),
        modifiers=modifier_parts(d),
        masks=(Part("window", {"size": int(d.window)}),) if d.window is not None else (),
        title=title or {"en": d.prefix, "zh": d.prefix}, notes=notes or {"en": "", "zh": ""},
        query_tokens=query_tokens, key_tokens=query_tokens,
    )
