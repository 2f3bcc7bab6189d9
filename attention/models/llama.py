"""A Llama-family decoder (Llama, SmolLM2, ...) run in plain torch from any TensorSource with Hugging Face names.

    x0 = E[ids]                                              (1, L, d)
    per layer k:  h = RMSNorm(x)                              what attention k reads
                  x = x + o_proj(Attention(q_proj h, k_proj h, v_proj h))
                  x = x + down(SiLU(gate RMSNorm(x)) ⊙ up RMSNorm(x))
    logits = RMSNorm(x) @ W_outᵀ                             W_out = E when tied (no lm_head.weight)

Attention: H query heads of head_dim E, H_kv key/value heads (query head h reads kv head h // (H / H_kv)),
RoPE in *halves* (dim i turns with dim i + E/2 by position · base^(-2i/E); the Hugging Face layout: a GGUF's
q/k rows are un-permuted on reading, see gguf_model.py), scale E^-1/2, causal softmax.

Loaded from a GGUF file by gguf_model.load, or from a Hugging Face Llama folder by `load_folder` below.

Why not transformers: the explorer needs the residual stream entering each layer and the engine computing each
attention (the `attend` hook), in float32 for speed or float64 for checks, without a 1 GB dependency.  The
master copy is float32 (what a GGUF's dequantized blocks are, exactly); `forward(dtype=float64)` casts per layer.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import numpy as np
import torch

import attention.words as words
from attention.compute import threads
from attention.datamodel import numbers
from attention.kinds import qk_norm
from attention.models.checkpoint import CheckpointError, TensorSource, check_finite
from attention.models.decoder import Attend, DecoderForward, KeptWeights, rms_norm
from attention.models.decoder_block import BlockStyle, BlockWeights, LayerAttention, run_layers
from attention.models.errors import ModelError

#: Hugging Face names of layer k's tensors, by role.
LAYER_TENSORS = {
    "attn_norm": "model.layers.{k}.input_layernorm.weight", "q": "model.layers.{k}.self_attn.q_proj.weight",
    "k": "model.layers.{k}.self_attn.k_proj.weight", "v": "model.layers.{k}.self_attn.v_proj.weight",
    "o": "model.layers.{k}.self_attn.o_proj.weight", "ffn_norm": "model.layers.{k}.post_attention_layernorm.weight",
    "gate": "model.layers.{k}.mlp.gate_proj.weight", "up": "model.layers.{k}.mlp.up_proj.weight",
    "down": "model.layers.{k}.mlp.down_proj.weight",
}
EMBED, FINAL_NORM, LM_HEAD = "model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"
#: layers whose float64 attention weights stay made for the engine (the open layer and the last few opened):
#: SmolLM2's are 7 MB a layer, 212 MB for all 30 (the float32 master copy is 540 MB)
KEPT_LAYERS = 4


@dataclass(frozen=True)
class LlamaSpec:
    """The sizes and conventions of one Llama-family decoder, and how its weights were stored.

    `storage` names the file's format of the large weights ("Q4_1", "F16", ...); `bits` is set where they were
    quantized and dequantized to float32 on reading (4 for Q4_1): every number shown then is a dequantized one,
    and `weights_label()` says so wherever the weights show."""

    name: str
    vocab_size: int
    d_model: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    ffn_dim: int
    rope_base: float
    eps: float
    context_length: int
    tied: bool  # the output projection is the token embedding
    storage: str = "F32"
    bits: Optional[int] = None

    @property
    def max_len(self) -> int:
        """glassllm's name for the longest sequence (GlassConfig.max_len)."""
        return self.context_length

    def weights_label(self, lang: Optional[str] = None) -> str:
        """'Q4_1 weights, dequantized from 4-bit' / 'F32 weights' in the catalogue's words."""
        if self.bits is None:
            return words.text("models.weights.plain", lang, kind=self.storage)
        return words.text("models.weights.dequantized", lang, kind=self.storage, bits=self.bits)

    def summary(self, lang: Optional[str] = None) -> str:
        """One line for a title, a tooltip or the CLI: sizes, attention layout and how the weights were stored."""
        return words.text("models.llama.summary", lang, name=self.name, layers=self.n_layers, heads=self.n_heads,
                          kv=self.n_kv_heads, head_dim=self.head_dim, base=numbers.whole(self.rope_base),
                          context=self.context_length, weights=self.weights_label(lang))

    @staticmethod
    def from_config(cfg: dict[str, Any], name: str, storage: str = "F32", bits: Optional[int] = None,
                    tied: Optional[bool] = None) -> "LlamaSpec":
        """From a Hugging Face llama config.json dict (already checked for kinds and ranges)."""
        H = int(cfg["num_attention_heads"])
        return LlamaSpec(
            name=name, vocab_size=int(cfg["vocab_size"]), d_model=int(cfg["hidden_size"]),
            n_layers=int(cfg["num_hidden_layers"]), n_heads=H, n_kv_heads=int(cfg.get("num_key_value_heads") or H),
            head_dim=int(cfg.get("head_dim") or int(cfg["hidden_size"]) // H),
            ffn_dim=int(cfg["intermediate_size"]), rope_base=float(cfg.get("rope_theta", 10000.0)),
            eps=float(cfg.get("rms_norm_eps", 1e-6)), context_length=int(cfg.get("max_position_embeddings", 2048)),
            tied=bool(cfg.get("tie_word_embeddings", False)) if tied is None else tied, storage=storage, bits=bits)


@dataclass
class KVCache:
    """What the reference attention keeps of the positions already read, per layer: keys after RoPE and values,
    each (1, S, H_kv, E), before the GQA repeat.  `forward(new_ids, cache=c)` reads only the new positions, attends
    over the S cached ones plus themselves, and appends theirs."""

    keys: list[torch.Tensor] = field(default_factory=list)
    values: list[torch.Tensor] = field(default_factory=list)

    @property
    def length(self) -> int:
        return int(self.keys[0].shape[1]) if self.keys else 0


class LlamaDecoder:
    """The loaded model: spec, float32 tensors by Hugging Face name, tokenizer (encode / token_labels)."""

    def __init__(self, spec: LlamaSpec, tensors: dict[str, torch.Tensor], tokenizer=None,
                 config: Optional[dict[str, Any]] = None, path: Optional[Path] = None):
        self.spec = spec
        self.tensors = tensors
        self.tokenizer = tokenizer
        self.hf_config = dict(config or {})  # the Hugging Face config.json the weights came with (or were read as)
        self.path = path or Path(spec.name)
        self.name = spec.name
        self._attention = KeptWeights(self._attention_tensors, keep=KEPT_LAYERS)

    @property
    def config(self) -> LlamaSpec:
        """The spec under the name glassllm.GlassDecoder uses (n_layers, n_heads, n_kv_heads, d_model, head_dim,
        vocab_size, max_len, rope_base, eps), so the window can hold either decoder."""
        return self.spec

    @classmethod
    def from_source(cls, source: TensorSource, spec: LlamaSpec, tokenizer=None) -> "LlamaDecoder":
        """Every tensor the forward needs, read once into float32; CheckpointError names a missing or misshapen one."""
        tensors = {}
        for key, shape in expected_shapes(spec).items():
            if key == LM_HEAD and spec.tied:
                continue
            if key not in source.keys():
                raise CheckpointError("models.error.family_tensor", path=source.path.name, tensor=key, family="llama")
            if tuple(source.shape(key)) != shape:  # from the header, before reading
                raise CheckpointError("models.error.family_shape", path=source.path.name, tensor=key,
                                      shape=str(tuple(source.shape(key))), expected=str(shape))
            t = source._tensor(key)  # (out, in) nn.Linear layout, or (d,) for a norm
            check_finite(source.path.name, key, t)
            source.reads.append(key)
            tensors[key] = t.to(torch.float32).contiguous()
        return cls(spec, tensors, tokenizer, source.config, source.path)  # the source (a file reader) is let go

    # ---- tokens ------------------------------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text))

    def token_texts(self, ids: list[int]) -> list[str]:
        return list(self.tokenizer.token_texts(ids))

    def token_labels(self, ids: list[int]) -> list[str]:
        return list(self.tokenizer.token_labels(ids))

    # ---- one layer -----------------------------------------------------------------------------
    def attention_weights(self, k: int) -> dict[str, np.ndarray]:
        """Layer k's projections, nn.Linear layout (out, in), float64 (dequantized values, exactly): read-only
        arrays made once and shared by every call while the layer is among the last KEPT_LAYERS asked for
        (decoder.KeptWeights; the engine views them instead of copying)."""
        return self._attention(k)

    def _attention_tensors(self, k: int) -> dict[str, torch.Tensor]:
        return {role: self.tensors[LAYER_TENSORS[name].format(k=k)]
                for role, name in (("query", "q"), ("key", "k"), ("value", "v"), ("out", "o"))}

    def attention_layer(self, k: int):
        """Layer k's attention as families.FamilyLayer (the neutral description the engine's kinds are wired from),
        read by families.py from the tensors held here, as it reads a Hugging Face folder."""
        from attention.models.families import read_attention

        return read_attention(_HeldTensors(self.path, self.tensors, self.hf_config), k)

    # ---- the forward pass ----------------------------------------------------------------------
    @torch.no_grad()
    def forward(self, ids: list[int], attend: Optional[Attend] = None, dtype: torch.dtype = torch.float32,
                start: int = 0, cache: Optional[KVCache] = None, last_logits: bool = False, from_layer: int = 0,
                resid: Optional[torch.Tensor] = None) -> DecoderForward:
        """Every residual state, every layer's attention and the logits for one sequence `ids` (with `last_logits`
        only the last position's, (1, 1, vocab): all the next token needs; the output projection, vocab x d a
        position, is ~20% of a 16-token SmolLM2 pass).

        `attend` computes one attention layer (the model view passes the engine); the default is
        `reference_attention`, written here so the forward can be checked on its own.  With `cache` (reference
        attention only) `ids` are the positions after the cached ones: start is the cache's length, the weights
        are (1, H, L, cache length + L), and the cache grows by L.  With `from_layer` and `resid` (B, L, d), the
        residual entering that layer (a record's resid[from_layer]), the layers before it are not run again and the
        record's lists begin at that layer (attention.models.head_map recomputes only the layers after a knocked
        head)."""
        s = self.spec
        if cache is not None:
            if attend is not None or from_layer:
                raise ValueError("a KVCache is kept by the reference attention; an attend hook keeps its own")
            if cache.keys and cache.keys[0].dtype != dtype:
                raise ValueError(f"the cache holds {cache.keys[0].dtype}; this pass asks for {dtype}")
            start = cache.length
        if not ids:
            raise ModelError("models.prompt.empty")
        if start < 0 or start + len(ids) > s.context_length:
            raise ModelError("models.prompt.too_long", n=start + len(ids), limit=s.context_length)
        bad = [i for i in ids if not 0 <= int(i) < s.vocab_size]
        if bad:
            raise ModelError("models.prompt.bad_id", id=bad[0], vocab=s.vocab_size)
        attend = attend or (lambda k, h, first: self.reference_attention(k, h, first, cache))
        threads.use_for_model(len(ids), self.tensors)  # attention/compute/threads.py: the policy
        x = self._embed(ids, dtype) if resid is None else resid.to(dtype)  # (1, L, d) / (B, L, d)
        resid, normed, outs, weights, x = run_layers(s.n_layers, x, lambda k: self._block(k, dtype), self.style,
                                                     attend, start, first=from_layer)
        resid.append(x)
        logits = self._output(x[:, -1:] if last_logits else x, dtype)  # (1, L or 1, vocab)
        return DecoderForward(resid, normed, outs, weights, logits)

    # ---- the pieces a forward is made of (a Gemma 3 decoder, attention.models.gemma3, has its own) -------------
    @property
    def style(self) -> BlockStyle:
        """What every layer does around its attention: pre-norm, SwiGLU, RMSNorm times w."""
        return BlockStyle(self.spec.eps)

    def _embed(self, ids: list[int], dtype: torch.dtype) -> torch.Tensor:
        """E[ids] (1, L, d)."""
        return self.tensors[EMBED][torch.as_tensor(ids)][None].to(dtype)

    def _block(self, k: int, dtype: torch.dtype) -> BlockWeights:
        t = self._layer(k, dtype)
        return BlockWeights(t["attn_norm"], t["ffn_norm"], t["gate"], t["up"], t["down"])

    def _output(self, x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        """logits (1, n, vocab) = RMSNorm(x) @ W_outᵀ (W_out = E when tied)."""
        out = self.tensors[EMBED] if self.spec.tied else self.tensors[LM_HEAD]  # (vocab, d)
        return rms_norm(x, self.tensors[FINAL_NORM].to(dtype), self.spec.eps) @ out.to(dtype).T

    def _layer(self, k: int, dtype: torch.dtype) -> dict[str, torch.Tensor]:
        return {role: self.tensors[name.format(k=k)].to(dtype) for role, name in LAYER_TENSORS.items()}

    def layer_attention(self, k: int) -> LayerAttention:
        """How layer k's attention is computed beyond its four projections: one RoPE base for every layer,
        scale head_dim^-1/2, no window, no QK-norm (a Gemma 3 decoder differs layer by layer)."""
        return LayerAttention(self.spec.rope_base)

    def reference_attention(self, k: int, h: torch.Tensor, start: int = 0,
                            cache: Optional[KVCache] = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The layer's attention written out: GQA, QK-norm where the layer has it, RoPE in halves at the layer's
        base, scale head_dim^-1/2 (or the layer's), the causal mask and the layer's window, softmax.

        h (B, L, d) -> output (B, L, d), weights (B, H, L, S): S = L, or cached + L with `cache` (extended here)."""
        s = self.spec
        la = self.layer_attention(k)
        t = {role: self.tensors[LAYER_TENSORS[role].format(k=k)].to(h.dtype) for role in ("q", "k", "v", "o")}
        B, L, _ = h.shape
        E = s.head_dim
        q = (h @ t["q"].T).view(B, L, s.n_heads, E)  # (B, L, H, E)
        kk = (h @ t["k"].T).view(B, L, s.n_kv_heads, E)  # (B, L, Hkv, E)
        v = (h @ t["v"].T).view(B, L, s.n_kv_heads, E)
        if la.q_norm is not None:  # each head's row over its RMS, times 1 + w (Gemma 3), before RoPE
            q = qk_norm.rms_norm(q, la.q_norm.to(h.dtype), la.norm_eps, "gemma3")
            kk = qk_norm.rms_norm(kk, la.k_norm.to(h.dtype), la.norm_eps, "gemma3")
        cos, sin, mask = self._tables(start, L, h.dtype, cached=cache is not None, base=la.base, window=la.window)
        q, kk = rope_halves(q, cos, sin), rope_halves(kk, cos, sin)
        if cache is not None:  # (B, S, Hkv, E): the cached positions, then these
            if len(cache.keys) > k:
                kk, v = torch.cat([cache.keys[k], kk], dim=1), torch.cat([cache.values[k], v], dim=1)
                cache.keys[k], cache.values[k] = kk, v
            else:
                cache.keys.append(kk)
                cache.values.append(v)
        rep = s.n_heads // s.n_kv_heads
        kk = kk.repeat_interleave(rep, dim=2)  # query head h reads kv head h // rep
        v = v.repeat_interleave(rep, dim=2)
        sc = torch.einsum("blhe,bshe->bhls", q, kk)  # (B, H, L, S)
        sc = sc / math.sqrt(E) if la.scale is None else sc * la.scale
        sc = sc.masked_fill(mask, -math.inf)
        w = torch.softmax(sc, dim=-1)
        ctx = torch.einsum("bhls,bshe->blhe", w, v).reshape(B, L, s.n_heads * E)
        return ctx @ t["o"].T, w

    def _tables(self, start: int, L: int, dtype: torch.dtype, cached: bool = False, base: Optional[float] = None,
                window: Optional[int] = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """RoPE's cos and sin (1, L, 1, E/2) at `base` (None: the spec's) and the mask (L, S): causal, and with a
        window W also every key W or more positions back; the same for all layers of a pass that share them.

        Without a cache S = L (keys at the queries' positions); with one S = start + L (keys from position 0)."""
        base = self.spec.rope_base if base is None else base
        key = (start, L, dtype, cached, base, window)
        memo = getattr(self, "_tables_cache", None) or {}  # key -> tables: one dict, replaced whole (threads)
        if key not in memo:
            pos = torch.arange(start, start + L, dtype=torch.float64)
            cos, sin = rope_tables(pos, self.spec.head_dim, base, dtype)
            S = start + L if cached else L
            query_at = torch.arange(L)[:, None] + (start if cached else 0)  # (L, 1) in the keys' numbering
            keys = torch.arange(S)[None, :]
            mask = keys > query_at  # True = masked (a later key)
            if window is not None:
                mask = mask | (keys <= query_at - window)  # too far back: only l - W < s <= l are seen
            memo = {**(memo if len(memo) < 8 else {}), key: (cos, sin, mask)}
            self._tables_cache = memo
        return memo[key]

    def next_tokens(self, logits: torch.Tensor, n: int = 10) -> list[tuple[int, str, float]]:
        """The n most likely next tokens after the last position: (id, label, probability)."""
        p = torch.softmax(logits[0, -1].double(), dim=-1)  # (vocab,)
        top = torch.topk(p, n)
        ids = [int(i) for i in top.indices]
        return list(zip(ids, self.token_labels(ids), [float(v) for v in top.values]))


def load_folder(path: str | Path) -> LlamaDecoder:
    """A Hugging Face Llama folder (config.json, model.safetensors or its shards, tokenizer.json) as a LlamaDecoder.

    The attention of layer 0 is read by families.py first, so every config convention (rope_parameters or
    rope_theta, head_dim, GQA) is the one the layer importer uses; what this forward does not compute is refused,
    naming the config field: another model_type, scaled RoPE, biases, an activation other than SiLU."""
    from attention.models.families import read_attention
    from attention.models.gguf_tokenizer import GGUFTokenizer
    from attention.models.readers import open_source

    source = open_source(Path(path))
    cfg, where = source.config, source.path.name

    def refuse(name: str, value: Any, expected: Any) -> CheckpointError:
        from attention.datamodel import limits

        return CheckpointError("models.error.family_field", path=where, field=name, value=limits.shown(value),
                               expected=expected)

    if cfg.get("model_type") != "llama":
        raise refuse("model_type", cfg.get("model_type"), "llama")
    layer = read_attention(source, 0)
    if layer.rope is None or layer.rope.rope_type != "default" or layer.rope.rotary_dims != layer.head_dim:
        raise refuse("rope_parameters", cfg.get("rope_parameters", cfg.get("rope_scaling")),
                     "plain RoPE over the whole head (no scaling)")
    for name in ("attention_bias", "mlp_bias"):
        if cfg.get(name):
            raise refuse(name, cfg[name], "false")
    if cfg.get("hidden_act", "silu") != "silu":
        raise refuse("hidden_act", cfg.get("hidden_act"), "silu")
    from attention.datamodel import limits
    from attention.datamodel.problem import Phrase
    from attention.models.families import layer_prefixes

    for name in ("num_hidden_layers", "intermediate_size", "vocab_size"):
        bad = limits.outside(cfg.get(name), 1, limits.INT_MAX)
        if bad is not None:
            raise refuse(name, cfg.get(name), bad)
    held = len(layer_prefixes(source, "llama"))  # the layers the weights hold bound the layers built
    if cfg["num_hidden_layers"] != held:
        raise refuse("num_hidden_layers", cfg["num_hidden_layers"], Phrase("layers_held", {"n": held}))
    storage = source.dtype(LAYER_TENSORS["q"].format(k=0)).replace("torch.", "")
    spec = LlamaSpec.from_config({**cfg, "rope_theta": layer.rope.base, "head_dim": layer.head_dim},
                                 source.path.name, storage=storage)
    tokenizer = None
    tokenizer_file = source.path / "tokenizer.json"
    if tokenizer_file.is_file():
        from tokenizers import Tokenizer

        try:
            backend = Tokenizer.from_file(str(tokenizer_file))
        except Exception as e:  # noqa: BLE001 - the Rust side raises a bare Exception for any unreadable file
            raise CheckpointError("models.error.config_bad", path="tokenizer.json",
                                  detail=str(e).splitlines()[0] if str(e) else type(e).__name__) from None
        tokenizer = GGUFTokenizer(backend, None, None, False, False, post_process=True)
    return LlamaDecoder.from_source(source, spec, tokenizer)


class _HeldTensors(TensorSource):
    """The decoder's own float32 tensors seen as a TensorSource (no file is read again)."""

    def __init__(self, path: Path, tensors: dict[str, torch.Tensor], config: dict[str, Any]):
        super().__init__(path, "folder")
        self._tensors, self.config = tensors, config

    def keys(self) -> list[str]:
        return list(self._tensors)

    def shape(self, key: str) -> tuple[int, ...]:
        return tuple(self._tensors[key].shape)

    def dtype(self, key: str) -> str:
        return "float32"

    def _tensor(self, key: str):
        return self._tensors[key]


def rope_tables(pos: torch.Tensor, E: int, base: float, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin (1, L, 1, E/2) of the angles pos·base^(-2i/E), i < E/2, computed in float64.  pos (L,) float64."""
    inv = base ** (-torch.arange(0, E, 2, dtype=torch.float64) / E)  # (E/2,)
    ang = pos[:, None] * inv[None]  # (L, E/2)
    return torch.cos(ang).to(dtype)[None, :, None], torch.sin(ang).to(dtype)[None, :, None]


def rope_halves(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate dim i with dim i + E/2 of each head (transformers' rotate_half layout).  x (B, L, H, E)."""
    E = x.shape[-1]
    a, b = x[..., : E // 2], x[..., E // 2:]
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)


def expected_shapes(spec: LlamaSpec) -> dict[str, tuple[int, ...]]:
    """Every tensor name the forward reads, with its nn.Linear-layout shape."""
    d, f, E = spec.d_model, spec.ffn_dim, spec.head_dim
    shapes: dict[str, tuple[int, ...]] = {EMBED: (spec.vocab_size, d), FINAL_NORM: (d,), LM_HEAD: (spec.vocab_size, d)}
    per_layer = {"attn_norm": (d,), "q": (spec.n_heads * E, d), "k": (spec.n_kv_heads * E, d),
                 "v": (spec.n_kv_heads * E, d), "o": (d, spec.n_heads * E), "ffn_norm": (d,),
                 "gate": (f, d), "up": (f, d), "down": (d, f)}
    for k in range(spec.n_layers):
        for role, shape in per_layer.items():
            shapes[LAYER_TENSORS[role].format(k=k)] = shape
    return shapes
