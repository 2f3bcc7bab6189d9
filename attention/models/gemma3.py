"""Gemma 3 (the bundled 270M Q4_K_M GGUF, or any gemma3 GGUF) run in plain torch: local and global layers.

    x0 = E[ids] · √d                                                   (1, L, d)     embeddings scaled
    per layer k:  h = N(x)                                              what attention k reads
                  x = x + N(o_proj(Attention_k(h)))                     sandwich norms around attention
                  x = x + N(down(GELU_tanh(gate N(x)) ⊙ up N(x)))        ... and around the FFN (GeGLU)
    logits = N(x) @ Eᵀ                                                  tied embeddings
    N = RMSNorm times (1 + w)  (Gemma keeps w around 0)

Attention_k: 4 query heads share 1 key/value head (MQA) of head_dim 256; QK-norm (each head's q and k row over
its RMS, times 1 + w) before RoPE in halves; scores scaled by query_pre_attn_scalar^-1/2 = 256^-1/2; causal.
Layers 6, 12, 18 (every 6th) are *global*: RoPE base 1,000,000, every earlier token seen.  The other 15 are
*local*: RoPE base 10,000 and a sliding window of 512 (query l sees keys l - 512 < s <= l).

The layout is attention.models.llama's (LlamaDecoder: the same forward loop, decoder_block.run_layers, and the
same reference attention with its KV cache); this class says what differs: the sandwich norms and GeGLU
(`style`), each layer's base, window and QK-norm (`layer_attention`), and an embedding kept as the file stores
it (quantized_rows: Q8_0 blocks, 189 MB instead of 671 MB of float32, rows and logits dequantized in blocks).

From the GGUF (gguf_header, dequantized by gguf), names as transformers' Gemma3 uses them:

    token_embd.weight            model.embed_tokens.weight (kept quantized)   output: tied to it
    blk.N.attn_norm              model.layers.N.input_layernorm.weight
    blk.N.attn_{q,k,v,output}    model.layers.N.self_attn.{q,k,v,o}_proj.weight   rows as in transformers:
                                 llama.cpp's Gemma converter does not permute q/k (unlike its Llama one)
    blk.N.attn_{q,k}_norm        model.layers.N.self_attn.{q,k}_norm.weight
    blk.N.post_attention_norm    model.layers.N.post_attention_layernorm.weight
    blk.N.ffn_norm               model.layers.N.pre_feedforward_layernorm.weight
    blk.N.ffn_{gate,up,down}     model.layers.N.mlp.{gate,up,down}_proj.weight
    blk.N.post_ffw_norm          model.layers.N.post_feedforward_layernorm.weight
    output_norm                  model.norm.weight

llama.cpp's converter stores every Gemma RMSNorm weight as 1 + w; transformers' GGUF loader subtracts 1 on reading
(Gemma2TensorProcessor, used for gemma3 too).  So does `load`, in float32 as transformers: the weights held here
are transformers' w, and N multiplies by 1 + w in the pass's dtype.  What the file does not say is taken as
transformers' Gemma3TextConfig takes it: local RoPE base 10,000, every 6th layer global, query_pre_attn_scalar 256
(tests/models/golden_gemma3.npz, made with transformers' own loading, pins all three).

The teaching control: `with_window(W)` is the same model with its local layers' window narrowed (the weights are
shared, nothing is copied); its name says it is altered and what its own window is, so every title, note and
caption that names the model says so.
"""
from __future__ import annotations

import dataclasses
import math
import weakref
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np
import torch

import attention.words as words
from attention.datamodel import numbers
from attention.models.checkpoint import CheckpointError
from attention.models.decoder_block import BlockStyle, BlockWeights, LayerAttention, norm
from attention.models.llama import LAYER_TENSORS, LlamaDecoder, LlamaSpec
from attention.models.quantized_rows import DenseRows, Q8Rows

ARCHITECTURE = "gemma3"
LABEL = "Gemma 3 270M"
#: transformers' Gemma3TextConfig where the GGUF says nothing (default_theta["local"], sliding_window_pattern,
#: query_pre_attn_scalar); the bundled file's config.json upstream says the same
LOCAL_BASE, PATTERN, QUERY_PRE_ATTN_SCALAR = 10_000.0, 6, 256
#: Gemma 3's tensor names beyond a Llama's, by role (LAYER_TENSORS holds q, k, v, o; their names are the same)
GEMMA_TENSORS = {
    "attn_norm": "model.layers.{k}.input_layernorm.weight", "q_norm": "model.layers.{k}.self_attn.q_norm.weight",
    "k_norm": "model.layers.{k}.self_attn.k_norm.weight",
    "post_attn_norm": "model.layers.{k}.post_attention_layernorm.weight",
    "ffn_norm": "model.layers.{k}.pre_feedforward_layernorm.weight",
    "post_ffn_norm": "model.layers.{k}.post_feedforward_layernorm.weight",
    "gate": LAYER_TENSORS["gate"], "up": LAYER_TENSORS["up"], "down": LAYER_TENSORS["down"],
}
FINAL_NORM = "model.norm.weight"
#: GGUF block tensor -> role above (q, k, v, o: LAYER_TENSORS)
_GGUF_ROLES = {"attn_norm": "attn_norm", "attn_q": "q", "attn_k": "k", "attn_v": "v", "attn_output": "o",
               "attn_q_norm": "q_norm", "attn_k_norm": "k_norm", "post_attention_norm": "post_attn_norm",
               "ffn_norm": "ffn_norm", "ffn_gate": "gate", "ffn_up": "up", "ffn_down": "down",
               "post_ffw_norm": "post_ffn_norm"}


@dataclass(frozen=True)
class Gemma3Spec(LlamaSpec):
    """A Gemma 3 decoder's sizes.  `rope_base` is the global layers' base; `is_global[k]` says which layers are;
    `window` is the local layers' window now, `own_window` the model's own (they differ once a teacher narrows it)."""

    rope_local_base: float = LOCAL_BASE
    window: int = 512
    own_window: int = 512
    is_global: tuple[bool, ...] = ()
    query_pre_attn_scalar: float = QUERY_PRE_ATTN_SCALAR

    @property
    def altered(self) -> bool:
        return self.window != self.own_window

    def base_of(self, k: int) -> float:
        return self.rope_base if self.is_global[k] else self.rope_local_base

    def window_of(self, k: int) -> Optional[int]:
        return None if self.is_global[k] else self.window

    def global_layers(self) -> list[int]:
        """The global layers, numbered from 0."""
        return [k for k, g in enumerate(self.is_global) if g]

    def layer_kind(self, k: int, lang: Optional[str] = None) -> str:
        """'global (RoPE base 1,000,000)' or 'local (window 512, RoPE base 10,000)'."""
        if self.is_global[k]:
            return words.text("gemma.layer.global", lang, base=numbers.grouped(self.rope_base))
        return words.text("gemma.layer.local", lang, window=numbers.grouped(self.window),
                          base=numbers.grouped(self.rope_local_base))

    def layer_tag(self, k: int, lang: Optional[str] = None) -> str:
        """The grid's short row mark: 'G' / 'L' (全 / 局)."""
        return words.text("gemma.tag.global" if self.is_global[k] else "gemma.tag.local", lang)

    def pattern_line(self, lang: Optional[str] = None) -> str:
        """Which layers are local and which global, numbered from 1, with each one's window and base."""
        glob = ", ".join(str(k + 1) for k in self.global_layers())
        text = words.text("gemma.pattern", lang, n_local=len(self.is_global) - len(self.global_layers()),
                          window=numbers.grouped(self.window), local_base=numbers.grouped(self.rope_local_base),
                          globals=glob, global_base=numbers.grouped(self.rope_base))
        return text + (" " + self.altered_line(lang) if self.altered else "")

    def legend(self, lang: Optional[str] = None) -> str:
        """The model view's key to its row marks: ● global layers, ○ local layers, each with its base and window."""
        glob = ", ".join(str(k + 1) for k in self.global_layers())
        return words.text("gemma.legend", lang, globals=glob, global_base=numbers.grouped(self.rope_base),
                          n_local=len(self.is_global) - len(self.global_layers()),
                          window=numbers.grouped(self.window), local_base=numbers.grouped(self.rope_local_base))

    def legend_short(self, lang: Optional[str] = None) -> str:
        """The same key in one short line (the dock's width): '● global: 6, 12, 18 · ○ local: window 512'."""
        return words.text("gemma.legend_short", lang, globals=", ".join(str(k + 1) for k in self.global_layers()),
                          window=numbers.grouped(self.window))

    def altered_line(self, lang: Optional[str] = None) -> str:
        return words.text("gemma.altered", lang, window=numbers.grouped(self.window),
                          own=numbers.grouped(self.own_window))

    def summary(self, lang: Optional[str] = None) -> str:
        return words.text("gemma.summary", lang, name=self.name, layers=self.n_layers, heads=self.n_heads,
                          kv=self.n_kv_heads, head_dim=self.head_dim, pattern=self.pattern_line(lang),
                          weights=self.weights_label(lang))

    def weights_note(self, lang: Optional[str] = None) -> str:
        """The long note on a layer's weights: the file's mix of block kinds, dequantized."""
        return words.text("gemma.weights_note", lang, kind=self.storage, kinds=self.block_kinds)

    block_kinds: str = ""  # the layers' block kinds, most used first ("Q5_0, Q4_K, Q6_K, Q8_0")


class Gemma3Decoder(LlamaDecoder):
    """The loaded model: spec, float32 layer tensors by transformers' names (norms as w), the embedding kept
    quantized (`embedding`: Q8Rows), the tokenizer (gemma3_tokenizer)."""

    spec: Gemma3Spec

    def __init__(self, spec: Gemma3Spec, tensors: dict[str, torch.Tensor], embedding, tokenizer=None,
                 path: Optional[Path] = None, _shared=None):
        super().__init__(spec, tensors, tokenizer, hf_config(spec), path)
        self.embedding = embedding
        if _shared is not None:  # with_window: the same weights, the same kept float64 arrays
            self._attention = _shared._attention
        self.name = spec.name if not spec.altered else words.text("gemma.altered_name", "en", name=spec.name,
                                                                   window=spec.window)

    # ---- the teaching control ---------------------------------------------------------------------
    def with_window(self, window: Optional[int]) -> "Gemma3Decoder":
        """This model with its local layers' window set to `window` (None: its own); weights shared."""
        w = self.spec.own_window if window is None else int(window)
        if w < 1:
            raise ValueError(f"window={w} must be >= 1")
        if w == self.spec.window:
            return self
        spec = dataclasses.replace(self.spec, window=w)
        return Gemma3Decoder(spec, self.tensors, self.embedding, self.tokenizer, self.path, _shared=self)

    @property
    def own(self) -> "Gemma3Decoder":
        return self.with_window(None)

    def title_name(self, lang: Optional[str] = None) -> str:
        """What a title calls the model in `lang`: its name, and 'altered: local window 4 (its own: 512)'."""
        s = self.spec
        if not s.altered:
            return s.name
        return words.text("gemma.altered_name", lang, name=s.name, window=numbers.grouped(s.window))

    # ---- what differs from a Llama ---------------------------------------------------------------------
    @property
    def style(self) -> BlockStyle:
        return BlockStyle(self.spec.eps, act="gelu_tanh", sandwich=True, plus_one=True)

    def _embed(self, ids: list[int], dtype: torch.dtype) -> torch.Tensor:
        """E[ids] · √d (1, L, d): transformers' scale, a buffer made in float32, cast to the pass's dtype."""
        scale = torch.tensor(math.sqrt(self.spec.d_model), dtype=torch.float32).to(dtype)
        return (self.embedding.rows(torch.as_tensor(ids), dtype) * scale)[None]

    def _block(self, k: int, dtype: torch.dtype) -> BlockWeights:
        t = {role: self.tensors[name.format(k=k)].to(dtype) for role, name in GEMMA_TENSORS.items()}
        return BlockWeights(t["attn_norm"], t["ffn_norm"], t["gate"], t["up"], t["down"], t["post_attn_norm"],
                            t["post_ffn_norm"])

    def _output(self, x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        """logits (1, n, vocab) = N(x) @ Eᵀ, the quantized embedding dequantized a block of rows at a time."""
        h = norm(x, self.tensors[FINAL_NORM].to(dtype), self.style)  # (1, n, d)
        return self.embedding.logits(h[0])[None]

    def layer_attention(self, k: int) -> LayerAttention:
        s = self.spec
        return LayerAttention(s.base_of(k), s.window_of(k), s.query_pre_attn_scalar ** -0.5,
                              self.tensors[GEMMA_TENSORS["q_norm"].format(k=k)],
                              self.tensors[GEMMA_TENSORS["k_norm"].format(k=k)], s.eps)

    def layer_note(self, k: int, lang: Optional[str] = None) -> str:
        """What a layer's scenario notes add for Gemma: local or global, QK-norm, the scale, MQA."""
        s = self.spec
        return words.text("gemma.layer_note", lang, layer=k + 1, kind=s.layer_kind(k, lang), heads=s.n_heads,
                          kv=s.n_kv_heads, head_dim=s.head_dim, scalar=numbers.grouped(s.query_pre_attn_scalar),
                          altered=(" " + s.altered_line(lang)) if s.altered else "")


def hf_config(spec: Gemma3Spec) -> dict[str, Any]:
    """transformers' Gemma3TextConfig of the model, as config.json would hold it (families.read_attention reads it)."""
    return {"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "hidden_size": spec.d_model,
            "num_attention_heads": spec.n_heads, "num_key_value_heads": spec.n_kv_heads, "head_dim": spec.head_dim,
            "num_hidden_layers": spec.n_layers, "intermediate_size": spec.ffn_dim, "rms_norm_eps": spec.eps,
            "rope_theta": spec.rope_base, "rope_local_base_freq": spec.rope_local_base,
            "sliding_window": spec.window, "query_pre_attn_scalar": spec.query_pre_attn_scalar,
            "layer_types": ["full_attention" if g else "sliding_attention" for g in spec.is_global],
            "max_position_embeddings": spec.context_length, "vocab_size": spec.vocab_size,
            "tie_word_embeddings": True, "hidden_activation": "gelu_pytorch_tanh", "attention_bias": False}


# ---- reading a GGUF --------------------------------------------------------------------------------------

#: models already read, by file identity (device, inode, size, mtime): opening the same file again (a second
#: window, File ▸ Gemma 3 again, a test) shares the loaded weights while anything still holds them
_LOADED: "weakref.WeakValueDictionary[tuple, Gemma3Decoder]" = weakref.WeakValueDictionary()


def load(path: str | Path, name: str = LABEL) -> Gemma3Decoder:
    """The whole model of a gemma3 GGUF file; CheckpointError naming the key, tensor or byte that is wrong."""
    from attention.models import gemma3_tokenizer
    from attention.models.gguf_header import GGUFHeader

    path = Path(path)
    try:
        st = path.stat()
        identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, name)
    except OSError:
        identity = None
    model = _LOADED.get(identity) if identity else None
    if model is not None:
        return model
    header = GGUFHeader(path)
    try:
        spec = spec_from_meta(header, name)
        # the tokenizer first: its 515k merges are Python objects for a moment (~200 MB), gone before the weights come
        tokenizer = gemma3_tokenizer.build(header.meta, path.name)
        tensors = _layer_tensors(header, spec)
        embedding = _embedding(header, spec)
    finally:
        header.close()
    if tokenizer_size(tokenizer) != spec.vocab_size:
        raise CheckpointError("gguf.error.vocab", path=path.name, tokens=tokenizer_size(tokenizer),
                              rows=spec.vocab_size)
    model = Gemma3Decoder(spec, tensors, embedding, tokenizer, path)
    if identity:
        _LOADED[identity] = model
    return model


def tokenizer_size(tokenizer) -> int:
    return int(tokenizer.backend.get_vocab_size(with_added_tokens=True))


def spec_from_meta(header, name: str) -> Gemma3Spec:
    """The sizes and the local / global pattern from the metadata, every value checked (the key named)."""
    meta, where = header.meta, header.path.name
    arch = meta.get("general.architecture")
    if arch != ARCHITECTURE:
        raise CheckpointError("models.error.gguf_architecture", path=where, value=repr(arch), known=ARCHITECTURE)

    from attention.models.gguf_source import _rope_base, meta_checks, quant_bits

    whole, positive, refuse = meta_checks(meta, arch, where)
    d, H, n = whole("embedding_length"), whole("attention.head_count"), whole("block_count")
    H_kv = whole("attention.head_count_kv", H)
    if H % H_kv:
        raise refuse("attention.head_count_kv", H_kv, f"a divisor of attention.head_count {H}")
    E = whole("attention.key_length", d // H)
    if whole("attention.value_length", E) != E:
        raise refuse("attention.value_length", meta[f"{arch}.attention.value_length"], f"{E} (= key_length)")
    window = whole("attention.sliding_window")
    pattern = meta.get(f"{arch}.attention.sliding_window_pattern", PATTERN)
    if isinstance(pattern, np.ndarray) and pattern.dtype == bool and pattern.shape == (n,):
        is_global = tuple(not bool(p) for p in pattern)  # newer converters: per layer, True = sliding
    elif isinstance(pattern, (int, np.integer)) and not isinstance(pattern, bool) and pattern >= 1:
        is_global = tuple((k + 1) % int(pattern) == 0 for k in range(n))
    else:
        raise refuse("attention.sliding_window_pattern", pattern, f"a whole number >= 1 or {n} booleans")
    kinds = Counter(t.kind for t in header.tensors.values() if t.name.startswith("blk.") and len(t.shape) == 2)
    bits = [b for b in (quant_bits(k) for k in kinds) if b is not None]
    file_type = _FILE_TYPES.get(meta.get("general.file_type"))
    storage = file_type or "/".join(k for k, _ in kinds.most_common()) or "F32"
    tokens = meta.get("tokenizer.ggml.tokens")
    vocab = len(tokens) if isinstance(tokens, list) else 0
    return Gemma3Spec(
        name=name, vocab_size=vocab, d_model=d, n_layers=n, n_heads=H, n_kv_heads=H_kv, head_dim=E,
        ffn_dim=whole("feed_forward_length"), rope_base=positive("rope.freq_base", 1_000_000.0, field=_rope_base()),
        eps=positive("attention.layer_norm_rms_epsilon"), context_length=whole("context_length"), tied=True,
        storage=storage, bits=min(bits) if bits else None, rope_local_base=LOCAL_BASE, window=window,
        own_window=window, is_global=is_global, block_kinds=", ".join(k for k, _ in kinds.most_common()))


#: llama.cpp's general.file_type numbers of the usual mixes (llama_ftype)
_FILE_TYPES = {0: "F32", 1: "F16", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 12: "Q3_K_M", 14: "Q4_K_S", 15: "Q4_K_M",
               16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 32: "BF16"}


def expected_tensors(spec: Gemma3Spec) -> dict[str, tuple[str, tuple[int, ...]]]:
    """GGUF name -> (transformers' name, nn.Linear-layout shape) of every layer tensor and the final norm."""
    d, f, E = spec.d_model, spec.ffn_dim, spec.head_dim
    shapes = {"attn_norm": (d,), "q": (spec.n_heads * E, d), "k": (spec.n_kv_heads * E, d),
              "v": (spec.n_kv_heads * E, d), "o": (d, spec.n_heads * E), "q_norm": (E,), "k_norm": (E,),
              "post_attn_norm": (d,), "ffn_norm": (d,), "gate": (f, d), "up": (f, d), "down": (d, f),
              "post_ffn_norm": (d,)}
    names = {**GEMMA_TENSORS, **{r: LAYER_TENSORS[r] for r in ("q", "k", "v", "o")}}
    out = {"output_norm.weight": (FINAL_NORM, (d,))}
    for k in range(spec.n_layers):
        for g, role in _GGUF_ROLES.items():
            out[f"blk.{k}.{g}.weight"] = (names[role].format(k=k), shapes[role])
    return out


def _layer_tensors(header, spec: Gemma3Spec) -> dict[str, torch.Tensor]:
    """Every layer tensor dequantized to float32 (out, in); norms as transformers holds them: file - 1."""
    from attention.models.gguf_header import dequantize

    where = header.path.name
    wanted = expected_tensors(spec)
    known = set(wanted) | {"token_embd.weight", "output.weight"}
    extra = sorted(set(header.tensors) - known)
    if extra:
        raise CheckpointError("models.error.gguf_tensor", path=where, tensor=extra[0], arch=ARCHITECTURE)
    tensors = {}
    for gguf_name, (hf, shape) in wanted.items():
        info = header.tensors.get(gguf_name)
        if info is None:
            raise CheckpointError("models.error.family_tensor", path=where, tensor=gguf_name, family=ARCHITECTURE)
        if tuple(reversed(info.shape)) != shape:
            raise CheckpointError("models.error.family_shape", path=where, tensor=gguf_name,
                                  shape=str(tuple(reversed(info.shape))), expected=str(shape))
        w = dequantize(header, gguf_name, shape)
        header.forget(gguf_name)  # its bytes are read: the file's pages need not stay in memory
        if not np.isfinite(w).all():
            raise CheckpointError("gguf.error.not_finite", path=where, tensor=gguf_name)
        if gguf_name.endswith("norm.weight"):
            w = w - np.float32(1.0)  # llama.cpp stored 1 + w; float32, as transformers subtracts
        tensors[hf] = torch.from_numpy(w)
    return tensors


def _embedding(header, spec: Gemma3Spec):
    """token_embd as Q8Rows (kept quantized) when it is Q8_0, else dequantized whole (DenseRows)."""
    from attention.models.gguf_header import dequantize

    where, name = header.path.name, "token_embd.weight"
    info = header.tensors.get(name)
    if info is None:
        raise CheckpointError("models.error.family_tensor", path=where, tensor=name, family=ARCHITECTURE)
    shape = (spec.vocab_size, spec.d_model)
    if tuple(reversed(info.shape)) != shape:
        raise CheckpointError("models.error.family_shape", path=where, tensor=name,
                              shape=str(tuple(reversed(info.shape))), expected=str(shape))
    if "output.weight" in header.tensors:
        raise CheckpointError("models.error.gguf_tensor", path=where, tensor="output.weight", arch=ARCHITECTURE)
    if info.kind == "Q8_0":
        rows = Q8Rows.from_blocks(header.raw(name), *shape)
        header.forget(name)
        bad = ~torch.isfinite(rows.scales)
    else:
        rows = DenseRows(torch.from_numpy(dequantize(header, name, shape)))
        bad = ~torch.isfinite(rows.w)
    if bool(bad.any()):
        raise CheckpointError("gguf.error.not_finite", path=where, tensor=name)
    return rows
