"""One decoder attention layer of a Hugging Face family, described without transformers and without Qt.

`read_attention(path, layer)` opens a Hugging Face folder (config.json + model.safetensors, its sharded
index, or pytorch_model.bin; a plain state dict works too with `config=` given) and returns a
`FamilyLayer`: the neutral description the engine's kinds are wired from.  Every number a family
hides in its code is written out here, so that a float64 reference (tests/models/test_families_golden.py)
fed only from this record reproduces transformers' own eager attention (golden files made by
tests/models/make_golden_modern.py with transformers 5.24.0).

What each family does (read from transformers 5.24's modeling code):

=============  ===========================================================================================
llama          q/k/v/o_proj, GQA (query head h reads kv head h // (H / H_kv)), RoPE on the whole head,
               rope_type default / linear / llama3 (frequencies rescaled by band), scale head_dim^-1/2.
mistral        as llama + `sliding_window` on every layer (None: no window).
qwen2          as llama + q/k/v biases; a window only on layers `layer_types` marks "sliding_attention"
               (old configs: use_sliding_window and layer index >= max_window_layers).
qwen3          as qwen2 (no biases unless attention_bias) + QK-norm: RMSNorm(head_dim) of each head's q and k,
               weight multiplies, BEFORE RoPE.
gemma2         scale query_pre_attn_scalar^-1/2 (not head_dim); soft-cap cap*tanh(s/cap) after scaling and
               before the mask; windows per `layer_types` (old configs: even layers 0, 2, ... slide).
gemma3         QK-norm with (1 + w) multipliers (Gemma's RMSNorm stores w around 0); scale as gemma2;
               NO soft-cap (its attention ignores attn_logit_softcapping); RoPE base and scaling per layer
               type (sliding layers: rope_local_base_freq, full layers: rope_theta + rope_scaling);
               old configs: layer i slides unless (i + 1) % sliding_window_pattern == 0.
gpt_neox       fused `query_key_value` laid out per head: rows (H, 3, head_dim) = q_h, k_h, v_h; partial
               rotary: the first int(head_dim * rotary_pct) dims of each head rotate; `dense` out.
phi            q/k/v_proj + `dense`, all with biases; partial rotary (partial_rotary_factor).
bloom          fused per head (H, 3, head_dim) as gpt_neox; ALiBi, no RoPE: slopes from BLOOM's formula,
               transformers adds slope * (key position) to the scaled scores (the same softmax as
               slope * (key - query)); the module returns dense(out) + residual (residual_added).
falcon         multi_query: rows (H + 2, head_dim) = H query heads, then ONE k and ONE v head;
               new_decoder_architecture: rows (H_kv, H/H_kv + 2, head_dim) = per group its query heads,
               then its k, then its v; neither: per head (H, 3, head_dim).  RoPE; alibi=True refused.
=============  ===========================================================================================

Every family here rotates in *halves* (transformers' rotate_half: dim i pairs with dim i + rot/2 inside the
rotated part).  Meta's reference Llama and GPT-J pair *adjacent* dims (2i, 2i+1); a checkpoint converted
by transformers has its q/k rows permuted so that halves reproduce Meta's numbers, so the pairing belongs to
the weights' layout, and this reader says which one the weights expect.

Every refusal is a CheckpointError naming the config field or the tensor (catalogue keys
models.error.family_*, both languages).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np

from attention.datamodel import limits
from attention.datamodel.problem import Phrase
from attention.models.checkpoint import CheckpointError, TensorSource
from attention.models.readers import open_source

#: model_type (config.json) -> family name used below.
FAMILIES: dict[str, str] = {
    "llama": "llama", "mistral": "mistral", "qwen2": "qwen2", "qwen3": "qwen3", "gemma2": "gemma2",
    "gemma3_text": "gemma3", "gemma3": "gemma3", "gpt_neox": "gpt_neox", "phi": "phi", "bloom": "bloom",
    "falcon": "falcon", "RefinedWeb": "falcon", "RefinedWebModel": "falcon",
}
#: transformers 5.24's config defaults where a config.json leaves a key out (a key present with null stays
#: null: Mistral's "sliding_window": null means no window, its absence means 4096).  Only for keys that have
#: no alias: head counts of BLOOM/Falcon come as n_head or num_attention_heads, so they get no default.
DEFAULTS: dict[str, dict[str, Any]] = {
    "mistral": {"sliding_window": 4096},
    "gemma2": {"num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "hidden_size": 2304,
               "sliding_window": 4096, "query_pre_attn_scalar": 256, "attn_logit_softcapping": 50.0},
    "gemma3": {"num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "hidden_size": 2304,
               "sliding_window": 4096, "query_pre_attn_scalar": 256},
}
#: RoPE variants whose only effect is on the frequencies (cos/sin multiplier 1).
ROPE_TYPES = ("default", "linear", "llama3")
FUSED = ("gpt_neox", "bloom", "falcon")  # one query_key_value tensor; the rest have q/k/v_proj


@dataclass(frozen=True)
class Rope:
    """Rotary position embedding as the family applies it to each head's q and k (after QK-norm).

    The first `rotary_dims` dims of a head rotate, the rest pass through.  With pairing "halves", dim i
    (i < rotary_dims/2) pairs with dim i + rotary_dims/2, both turned by angle position * inv_freq[i]:
    x' = x*cos - y*sin, y' = y*cos + x*sin.  With "adjacent", dims 2i and 2i+1 pair instead."""

    base: float  # rope_theta
    rotary_dims: int  # even, <= head_dim
    pairing: str  # "halves" (transformers, GPT-NeoX) or "adjacent" (Meta's reference, GPT-J)
    inv_freq: np.ndarray  # (rotary_dims/2,) float64 radians per position, after rope scaling
    rope_type: str = "default"  # "default", "linear" (frequencies / factor) or "llama3" (by band)
    factor: float = 1.0  # the scaling factor of "linear" / "llama3"


@dataclass(frozen=True)
class QKNorm:
    """RMS norm over head_dim of every head's q and k, before RoPE: x / sqrt(mean(x^2) + eps) * scale."""

    q_scale: np.ndarray  # (head_dim,) the multiplier actually applied (Gemma: 1 + stored weight)
    k_scale: np.ndarray
    eps: float
    plus_one: bool  # True where the file stores w and the model multiplies by (1 + w) (Gemma)


@dataclass(frozen=True)
class FamilyLayer:
    """One decoder self-attention layer, every hidden convention written out (float64, nn.Linear layout).

    Shapes: q_weight (H*hd, E), k_weight and v_weight (H_kv*hd, E), o_weight (E, H*hd); biases (out,) or None.
    Order of work: project; split heads; QK-norm; RoPE; scores q.k * scale; + ALiBi bias
    slope_h * (k - q); soft-cap; mask (causal, window: query l sees key s only if l - window < s <= l);
    softmax; weights @ v (kv head h // (H / H_kv) for query head h); concat; o projection."""

    family: str
    model_type: str
    layer: int
    prefix: str  # tensor-name prefix of this layer's attention, e.g. "model.layers.0.self_attn"
    n_heads: int
    n_kv_heads: int
    head_dim: int
    d_model: int
    q_weight: np.ndarray
    k_weight: np.ndarray
    v_weight: np.ndarray
    o_weight: np.ndarray
    q_bias: Optional[np.ndarray]
    k_bias: Optional[np.ndarray]
    v_bias: Optional[np.ndarray]
    o_bias: Optional[np.ndarray]
    scale: float  # multiplies q.k (head_dim^-1/2, or query_pre_attn_scalar^-1/2 for Gemma)
    rope: Optional[Rope]
    alibi_slopes: Optional[np.ndarray]  # (H,) ALiBi slopes, bias slope * (k - q) added after scaling
    window: Optional[int]  # sliding window W: a query sees its last W keys, itself included
    softcap: Optional[float]  # cap * tanh(scores / cap) after scaling (and ALiBi), before the mask
    qk_norm: Optional[QKNorm]
    causal: bool = True
    residual_added: bool = False  # the module's own output is dense(out) + its input (BLOOM)
    layer_type: Optional[str] = None  # "sliding_attention" / "full_attention" where the config names it

    @property
    def groups(self) -> int:
        """Query heads per key/value head."""
        return self.n_heads // self.n_kv_heads


# ---- entry points ----------------------------------------------------------------------------------

def read_attention(path_or_source, layer: int = 0, config: Optional[dict] = None) -> FamilyLayer:
    """Describe decoder layer `layer`'s attention of the model at `path_or_source` (a folder, a weights file
    or an open TensorSource).  `config` stands in for a missing config.json (a plain state dict)."""
    source = path_or_source if isinstance(path_or_source, TensorSource) else open_source(Path(path_or_source))
    cfg = dict(config if config is not None else source.config)
    where = source.path.name
    if not cfg:
        raise CheckpointError("models.error.family_no_config", path=where)
    model_type = str(cfg.get("model_type", ""))
    if model_type == "gemma3" and isinstance(cfg.get("text_config"), dict):
        cfg = dict(cfg["text_config"], model_type="gemma3_text")
    family = FAMILIES.get(model_type)
    if family is None:
        raise CheckpointError("models.error.family_unknown", path=where, value=model_type or "(none)",
                              known=", ".join(sorted(set(FAMILIES))))
    reader = _Reader(source, {**DEFAULTS.get(family, {}), **cfg}, where, family, model_type)
    return reader.layer(int(layer))


def layer_facts(source: TensorSource, layer: int) -> dict:
    """Config-only facts of decoder layer `layer` (see _Reader.facts); a CheckpointError as read_attention."""
    cfg = dict(source.config)
    model_type = str(cfg.get("model_type", ""))
    if model_type == "gemma3" and isinstance(cfg.get("text_config"), dict):
        cfg = dict(cfg["text_config"], model_type="gemma3_text")
    family = FAMILIES.get(model_type)
    if family is None:
        raise CheckpointError("models.error.family_unknown", path=source.path.name, value=model_type or "(none)",
                              known=", ".join(sorted(set(FAMILIES))))
    return _Reader(source, {**DEFAULTS.get(family, {}), **cfg}, source.path.name, family, model_type).facts(layer)


def family_of(config: dict) -> Optional[str]:
    """The family a config.json names (FAMILIES), or None."""
    model_type = str(config.get("model_type", ""))
    if model_type == "gemma3" and isinstance(config.get("text_config"), dict):
        model_type = "gemma3_text"
    return FAMILIES.get(model_type)


def layer_prefixes(source: TensorSource, family: str) -> dict[int, str]:
    """Decoder layer index -> its attention's tensor-name prefix, by the family's names."""
    return _layer_prefixes(source.keys(), family)


def layer_count(path_or_source, config: Optional[dict] = None) -> int:
    """How many decoder layers' attention the file holds (by tensor names)."""
    source = path_or_source if isinstance(path_or_source, TensorSource) else open_source(Path(path_or_source))
    cfg = dict(config if config is not None else source.config)
    family = FAMILIES.get(str(cfg.get("model_type", "")), "llama")  # an unknown type: counted as split q/k/v
    return len(_layer_prefixes(source.keys(), family))


# ---- tensor names ----------------------------------------------------------------------------------

_SPLIT_KEY = re.compile(r"^(?P<p>(?:.*\.)?layers\.(?P<i>\d+)\.self_attn)"
                        r"\.(?:q_proj|k_proj|v_proj|o_proj|dense)\.weight$")
_FUSED_KEY = re.compile(r"^(?P<p>(?:.*\.)?(?:layers|h)\.(?P<i>\d+)\.(?:attention|self_attention))"
                        r"\.query_key_value\.weight$")


def _layer_prefixes(keys: list[str], family: str) -> dict[int, str]:
    """Layer index -> attention prefix.  Where several towers match (a multimodal Gemma 3's vision encoder),
    the language model's names win."""
    pattern = _FUSED_KEY if family in FUSED else _SPLIT_KEY
    found: dict[int, list[str]] = {}
    for key in keys:
        m = pattern.match(key)
        if m:
            found.setdefault(int(m.group("i")), [])
            if m.group("p") not in found[int(m.group("i"))]:
                found[int(m.group("i"))].append(m.group("p"))
    if any("language_model" in p for ps in found.values() for p in ps):
        found = {i: [p for p in ps if "language_model" in p] for i, ps in found.items()}
    return {i: sorted(ps, key=len)[0] for i, ps in sorted(found.items()) if ps}


# ---- the reader --------------------------------------------------------------------------------------

class _Reader:
    """Config look-ups with transformers' defaults, and the tensors of one layer."""

    def __init__(self, source: TensorSource, cfg: dict, where: str, family: str, model_type: str):
        self.source, self.cfg, self.where, self.family, self.model_type = source, cfg, where, family, model_type

    # -- config helpers
    def get(self, *names: str, default: Any = None) -> Any:
        for name in names:
            if self.cfg.get(name) is not None:
                return self.cfg[name]
        return default

    def number(self, name: str, value: Any, positive: bool = True, field: Any = None) -> float:
        """A finite number (positive unless told), within `field`'s range where the value becomes a
        scenario field (a kind's Field: so the import never writes what the loader refuses)."""
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or (positive and value <= 0):
            raise self.refuse(name, value, Phrase("range_positive") if positive else Phrase("range_finite"))
        bad = None if field is None else limits.outside_field(field, value)
        if bad is not None:
            raise self.refuse(name, value, bad)
        return float(value)

    def whole(self, name: str, value: Any, minimum: int = 1, field: Any = None) -> int:
        """A whole number from `minimum` to INT_MAX (every size's bound), or `field`'s own range."""
        bad = limits.outside(value, minimum, limits.INT_MAX) if field is None else limits.outside_field(field, value)
        if bad is not None:
            raise self.refuse(name, value, bad)
        return int(value)

    def refuse(self, field: str, value: Any, expected: Any) -> CheckpointError:
        return CheckpointError("models.error.family_field", path=self.where, field=field, value=limits.shown(value),
                               expected=expected)

    def sizes(self, index: int) -> tuple[int, int, int, int]:
        """(H, H_kv, head_dim, d_model) from the config, each within its bound, and checked against the
        shapes layer `index`'s tensors are stored with (the header: nothing is read) before anything is
        computed from them: a head_dim of 2^30 in a 17 KB folder must not make RoPE's 2^29 frequencies."""
        H = self.whole("num_attention_heads", self.get("num_attention_heads", "n_head", "num_heads"))
        E = self.whole("hidden_size", self.get("hidden_size", "n_embed", "d_model"))
        hd_cfg = None if self.family in FUSED else self.get("head_dim")
        if hd_cfg is None and E // H < 1:
            raise self.refuse("num_attention_heads", H, Phrase("range_most", {"name": "hidden_size", "high": E}))
        hd = E // H if hd_cfg is None else self.whole("head_dim", hd_cfg)
        if self.family in FUSED:
            n_kv = self.fused_layout(H)[0]
        else:
            n_kv = self.whole("num_key_value_heads", self.get("num_key_value_heads", default=H))
        prefix = _layer_prefixes(self.source.keys(), self.family).get(index)
        fused = f"{prefix}.query_key_value.weight"
        if prefix is None or fused in self.source.keys():  # fused rows: checked by their layout (recognise, fused)
            return H, n_kv, hd, E
        for key, heads, name in ((f"{prefix}.q_proj.weight", H, "num_attention_heads"),
                                 (f"{prefix}.k_proj.weight", n_kv, "num_key_value_heads")):
            stored = tuple(self.source.shape(key)) if key in self.source.keys() else None
            if stored is None or len(stored) != 2:
                continue  # a missing or odd tensor is named where it is read
            if stored[1] != E:
                raise self.stored("hidden_size", E, key, stored)
            if stored[0] != heads * hd:  # which of the two is wrong the file cannot say: both are named
                field = name if hd_cfg is None and name == "num_attention_heads" else f"{name} × head_dim"
                value = heads if field == name else f"{heads} × {hd} = {heads * hd}"
                raise self.stored(field, value, key, stored)
        return H, n_kv, hd, E

    def stored(self, field: str, value: Any, tensor: str, shape: tuple) -> CheckpointError:
        """The config's size does not fit the shape the file stores a tensor with."""
        return CheckpointError("models.error.stored_size", path=self.where, where="config.json", field=field,
                               value=value if isinstance(value, str) else limits.shown(value), tensor=tensor,
                               shape="×".join(map(str, shape)))

    def tensor(self, key: str) -> np.ndarray:
        if key not in self.source.keys():
            raise CheckpointError("models.error.family_tensor", path=self.where, tensor=key, family=self.family)
        return self.source.read(key)

    def maybe(self, key: str) -> Optional[np.ndarray]:
        return self.source.read(key) if key in self.source.keys() else None

    # -- the layer
    def layer(self, index: int) -> FamilyLayer:
        prefixes = _layer_prefixes(self.source.keys(), self.family)
        if index not in prefixes:
            raise CheckpointError("models.error.family_layer", path=self.where, layer=index,
                                  found=", ".join(str(i) for i in prefixes) or "-", family=self.family)
        prefix = prefixes[index]
        H, _, _, E = self.sizes(index)
        if self.family in FUSED:
            parts = self.fused(prefix, H, E)
        else:
            parts = self.split(prefix, H, E)
        n_kv, hd = parts["n_kv"], parts["head_dim"]
        layer_type = self.layer_type(index)
        rope = self.rope(hd, H, E, layer_type)
        return FamilyLayer(
            family=self.family, model_type=self.model_type, layer=index, prefix=prefix, n_heads=H, n_kv_heads=n_kv,
            head_dim=hd, d_model=E, q_weight=parts["q"][0], k_weight=parts["k"][0], v_weight=parts["v"][0],
            o_weight=parts["o"][0], q_bias=parts["q"][1], k_bias=parts["k"][1], v_bias=parts["v"][1],
            o_bias=parts["o"][1], scale=self.scale(hd), rope=rope, alibi_slopes=self.alibi(H),
            window=self.window(layer_type), softcap=self.softcap(), qk_norm=self.qk_norm(prefix, hd),
            causal=self.causal(), residual_added=self.family == "bloom", layer_type=layer_type)

    def split(self, prefix: str, H: int, E: int) -> dict:
        """Separate q/k/v/o projections (llama-like, phi)."""
        out_name = "dense" if self.family == "phi" else "o_proj"
        q = self.tensor(f"{prefix}.q_proj.weight")
        k = self.tensor(f"{prefix}.k_proj.weight")
        hd_cfg = self.get("head_dim")
        hd = self.whole("head_dim", hd_cfg) if hd_cfg is not None else E // H
        if q.shape != (H * hd, E):
            raise CheckpointError("models.error.family_shape", path=self.where, tensor=f"{prefix}.q_proj.weight",
                                  shape=str(tuple(q.shape)), expected=f"({H}·{hd}, {E})")
        n_kv_cfg = self.get("num_key_value_heads", default=H)
        n_kv = self.whole("num_key_value_heads", n_kv_cfg)
        if H % n_kv or k.shape != (n_kv * hd, E):
            raise CheckpointError("models.error.family_shape", path=self.where, tensor=f"{prefix}.k_proj.weight",
                                  shape=str(tuple(k.shape)), expected=f"({n_kv}·{hd}, {E}), {H} % {n_kv} = 0")
        return {"n_kv": n_kv, "head_dim": hd,
                "q": (q, self.maybe(f"{prefix}.q_proj.bias")),
                "k": (k, self.maybe(f"{prefix}.k_proj.bias")),
                "v": (self.tensor(f"{prefix}.v_proj.weight"), self.maybe(f"{prefix}.v_proj.bias")),
                "o": (self.tensor(f"{prefix}.{out_name}.weight"), self.maybe(f"{prefix}.{out_name}.bias"))}

    def fused(self, prefix: str, H: int, E: int) -> dict:
        """query_key_value split into q, k, v rows (nn.Linear layout), by the family's layout."""
        key = f"{prefix}.query_key_value.weight"
        w, b = self.tensor(key), self.maybe(f"{prefix}.query_key_value.bias")
        hd = E // H
        n_kv, layout = self.fused_layout(H)
        rows = {"per_head": 3 * H * hd, "multi_query": (H + 2) * hd, "grouped": (H + 2 * n_kv) * hd}[layout]
        if w.shape != (rows, E) or (b is not None and b.shape != (rows,)) or H % n_kv:
            raise CheckpointError("models.error.family_shape", path=self.where, tensor=key, shape=str(tuple(w.shape)),
                                  expected=f"({rows}, {E}) [{layout}]")
        q, k, v = _unfuse(w, layout, H, n_kv, hd)
        qb = kb = vb = None
        if b is not None:
            qb, kb, vb = (part[:, 0] for part in _unfuse(b[:, None], layout, H, n_kv, hd))
        return {"n_kv": n_kv, "head_dim": hd, "q": (q, qb), "k": (k, kb), "v": (v, vb),
                "o": (self.tensor(f"{prefix}.dense.weight"), self.maybe(f"{prefix}.dense.bias"))}

    def fused_layout(self, H: int) -> tuple[int, str]:
        """(key/value heads, row layout) of a fused query_key_value, from the config alone."""
        if self.family != "falcon":
            return H, "per_head"
        if self.get("alibi", default=False):
            raise CheckpointError("models.error.falcon_alibi", path=self.where)
        new_arch = bool(self.get("new_decoder_architecture", default=self.model_type == "RefinedWeb"))
        if new_arch:
            return self.whole("num_kv_heads", self.get("num_kv_heads", "n_head_kv", default=H)), "grouped"
        if bool(self.get("multi_query", default=True)):
            return 1, "multi_query"
        return H, "per_head"

    def facts(self, index: int) -> dict:
        """What the config alone says of layer `index` (no tensor read): heads, widths, scale, window,
        soft-cap, RoPE, ALiBi, QK-norm.  For lists of a big model's layers, which must not read weights."""
        H, n_kv, hd, E = self.sizes(index)
        layer_type = self.layer_type(index)
        if self.family in ("qwen3", "gemma3"):
            self.qk_eps()  # listed as importable only if its QK-norm's eps is
        return {"family": self.family, "n_heads": H, "n_kv_heads": n_kv, "head_dim": hd, "d_model": E,
                "scale": self.scale(hd), "sliding_window": self.window(layer_type), "logit_cap": self.softcap(),
                "rotary": self.rope(hd, H, E, layer_type), "linear_bias": self.family == "bloom",
                "normed_qk": self.family in ("qwen3", "gemma3"), "layer_type": layer_type, "causal": self.causal()}

    def layer_type(self, index: int) -> Optional[str]:
        types = self.cfg.get("layer_types")
        if isinstance(types, list) and types:
            if index >= len(types) or types[index] not in ("sliding_attention", "full_attention"):
                raise self.refuse(f"layer_types[{index}]", types[index] if index < len(types) else None,
                                  "sliding_attention or full_attention")
            return types[index]
        if self.family == "gemma2":
            return "sliding_attention" if (index + 1) % 2 else "full_attention"
        if self.family == "gemma3":
            pattern = self.whole("sliding_window_pattern", self.get("sliding_window_pattern",
                                                                    "_sliding_window_pattern", default=6))
            return "sliding_attention" if (index + 1) % pattern else "full_attention"
        if self.family in ("qwen2", "qwen3"):
            if self.get("use_sliding_window", default=False) and self.get("sliding_window") is not None:
                first = self.whole("max_window_layers", self.get("max_window_layers", default=28), minimum=0)
                return "sliding_attention" if index >= first else "full_attention"
            return "full_attention"
        return None

    def window(self, layer_type: Optional[str]) -> Optional[int]:
        value = self.get("sliding_window")
        from attention.kinds.window import WINDOW

        if self.family == "mistral":
            return None if value is None else self.whole("sliding_window", value, field=WINDOW.fields[0])
        if self.family in ("qwen2", "qwen3") and not self.get("use_sliding_window", default=False):
            return None
        if self.family in ("qwen2", "qwen3", "gemma2", "gemma3") and layer_type == "sliding_attention":
            if value is None:
                return None
            return self.whole("sliding_window", value, field=WINDOW.fields[0])
        return None

    def scale(self, hd: int) -> float:
        if self.family in ("gemma2", "gemma3"):
            return self.number("query_pre_attn_scalar", self.get("query_pre_attn_scalar", default=256)) ** -0.5
        return hd ** -0.5

    def softcap(self) -> Optional[float]:
        if self.family != "gemma2":  # Gemma 3's attention never passes attn_logit_softcapping on
            return None
        from attention.kinds.softcap import SOFTCAP

        value = self.cfg.get("attn_logit_softcapping")
        return None if value is None else self.number("attn_logit_softcapping", value, field=SOFTCAP.fields[0])

    def causal(self) -> bool:
        if self.get("use_bidirectional_attention", default=False):
            raise self.refuse("use_bidirectional_attention", True, "false (decoder layers import causal)")
        return True

    def alibi(self, H: int) -> Optional[np.ndarray]:
        return bloom_slopes(H) if self.family == "bloom" else None

    def qk_norm(self, prefix: str, hd: int) -> Optional[QKNorm]:
        if self.family == "phi" and self.get("qk_layernorm", default=False):
            raise self.refuse("qk_layernorm", True, "false (a LayerNorm with bias on q and k is not a kind yet)")
        if self.family not in ("qwen3", "gemma3"):
            return None
        q, k = self.tensor(f"{prefix}.q_norm.weight"), self.tensor(f"{prefix}.k_norm.weight")
        for key, w in ((f"{prefix}.q_norm.weight", q), (f"{prefix}.k_norm.weight", k)):
            if w.shape != (hd,):
                raise CheckpointError("models.error.family_shape", path=self.where, tensor=key,
                                      shape=str(tuple(w.shape)), expected=f"({hd},)")
        eps = self.qk_eps()
        plus_one = self.family == "gemma3"
        return QKNorm(q + 1.0 if plus_one else q, k + 1.0 if plus_one else k, eps, plus_one)

    def qk_eps(self) -> float:
        """QK-norm's epsilon (rms_norm_eps), within the qk_norm part's own range."""
        from attention.kinds.qk_norm import FIELDS as QK_FIELDS

        eps_field = next(f for f in QK_FIELDS if f.name == "eps")
        return self.number("rms_norm_eps", self.get("rms_norm_eps", default=1e-6), field=eps_field)

    def rope(self, hd: int, H: int, E: int, layer_type: Optional[str]) -> Optional[Rope]:
        if self.family == "bloom":
            return None
        from attention.kinds.rope import FIELDS as ROPE_FIELDS

        field = {f.name: f for f in ROPE_FIELDS}
        params = self.rope_params(layer_type)
        base = self.number("rope_theta", params["rope_theta"], field=field["base"])
        fraction = self.number("partial_rotary_factor", params.get("partial_rotary_factor", 1.0),
                               field=field["fraction"])
        dims = int(hd * fraction)
        if dims < 2 or dims > hd or dims % 2:
            raise self.refuse("partial_rotary_factor", fraction,
                              f"a fraction of head_dim {hd} giving an even number of dims, 2..{hd}")
        rope_type = str(params.get("rope_type", params.get("type", "default")))
        if rope_type not in ROPE_TYPES:
            raise self.refuse("rope_parameters.rope_type", rope_type, " / ".join(ROPE_TYPES))
        inv = 1.0 / base ** (np.arange(0, dims, 2, dtype=np.float64) / dims)
        factor = 1.0
        if rope_type in ("linear", "llama3"):  # transformers' own rule: a scaling factor is at least 1
            factor = self.number("rope_parameters.factor", params.get("factor"))
            if factor < 1:
                raise self.refuse("rope_parameters.factor", factor, Phrase("range_at_least", {"minimum": 1}))
        if rope_type == "linear":
            inv = inv / factor
        elif rope_type == "llama3":
            inv = self.llama3(inv, factor, params)
        return Rope(base=base, rotary_dims=dims, pairing="halves", inv_freq=inv, rope_type=rope_type,
                    factor=factor)

    def rope_params(self, layer_type: Optional[str]) -> dict:
        """rope_theta, partial_rotary_factor, rope_type (+ factor...) from new- or old-style configs."""
        new = self.cfg.get("rope_parameters")
        if isinstance(new, dict) and layer_type in new and isinstance(new[layer_type], dict):
            new = new[layer_type]  # nested per layer type (Gemma 3)
        elif isinstance(new, dict) and any(isinstance(v, dict) for v in new.values()):
            new = new.get("full_attention") if isinstance(new.get("full_attention"), dict) else None
        params: dict = dict(new) if isinstance(new, dict) else {}
        if self.family == "gemma3" and not params:
            sliding = layer_type == "sliding_attention"
            theta = self.get("rope_local_base_freq", default=10000.0) if sliding else self.get(
                "rope_theta", default=1_000_000.0)
            params = {"rope_theta": theta}
            scaling = self.cfg.get("rope_scaling")
            if not sliding and isinstance(scaling, dict):
                params.update(scaling)
        elif not params:
            scaling = self.cfg.get("rope_scaling")
            params = dict(scaling) if isinstance(scaling, dict) else {}
        params.setdefault("rope_theta", self.get("rope_theta", "rotary_emb_base", default=10000.0))
        default_fraction = {"gpt_neox": 0.25, "phi": 0.5}.get(self.family, 1.0)
        params.setdefault("partial_rotary_factor", self.get("partial_rotary_factor", "rotary_pct",
                                                            default=default_fraction))
        return params

    def llama3(self, inv: np.ndarray, factor: float, params: dict) -> np.ndarray:
        """Llama 3.1's band rescaling: long wavelengths / factor, short kept, the band between smoothed."""
        low = self.number("rope_parameters.low_freq_factor", params.get("low_freq_factor"))
        high = self.number("rope_parameters.high_freq_factor", params.get("high_freq_factor"))
        if high <= low:  # the band between them is smoothed by (.. - low) / (high - low): none, or upside down
            raise self.refuse("rope_parameters.high_freq_factor", high,
                              Phrase("range_more", {"name": "low_freq_factor", "low": low}))
        old = self.number("rope_parameters.original_max_position_embeddings",
                          params.get("original_max_position_embeddings"))
        wavelen = 2 * math.pi / inv
        scaled = np.where(wavelen > old / low, inv / factor, inv)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < old / high) & ~(wavelen > old / low)
        return np.where(medium, smoothed, scaled)


def _unfuse(w: np.ndarray, layout: str, H: int, n_kv: int, hd: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of a fused query_key_value (rows, in) -> q (H*hd, in), k and v (n_kv*hd, in)."""
    cols = w.shape[1]
    if layout == "per_head":  # (H, 3, hd): q_h, k_h, v_h for each head in turn
        r = w.reshape(H, 3, hd, cols)
        return r[:, 0].reshape(H * hd, cols), r[:, 1].reshape(H * hd, cols), r[:, 2].reshape(H * hd, cols)
    if layout == "multi_query":  # (H + 2, hd): all query heads, then the one k, then the one v
        return w[:H * hd], w[H * hd:(H + 1) * hd], w[(H + 1) * hd:]
    g = H // n_kv  # grouped: (n_kv, g + 2, hd): each group's g query heads, its k, its v
    r = w.reshape(n_kv, g + 2, hd, cols)
    return r[:, :g].reshape(H * hd, cols), r[:, g].reshape(n_kv * hd, cols), r[:, g + 1].reshape(n_kv * hd, cols)


def bloom_slopes(n_heads: int) -> np.ndarray:
    """BLOOM's ALiBi slopes (Press et al.): for the largest power of two p <= H, 2^(-8i/p), i = 1..p; the
    remaining heads take every other slope of 2p heads: 2^(-4i/p), i = 1, 3, 5, ..."""
    p = 2 ** math.floor(math.log2(n_heads))
    slopes = [2.0 ** (-8.0 * i / p) for i in range(1, p + 1)]
    extra = [2.0 ** (-4.0 * i / p) for i in range(1, 2 * min(p, n_heads - p), 2)]
    return np.array(slopes + extra, dtype=np.float64)
