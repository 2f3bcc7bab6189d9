"""GGUF files (llama.cpp's format) read with the `gguf` package, dequantized, seen under Hugging Face names.

`GGUFSource(path)` is a TensorSource: its keys are the Hugging Face Llama names, its tensors the file's
dequantized float32 values (gguf's own `quants.dequantize`: Q4_1, Q8_0, K-quants, ...), its `config` a
Hugging Face llama config.json built from the metadata.  So `families.read_attention(source, k)` describes a
GGUF layer as it does a Hugging Face folder, and `gguf_model.load(path)` returns the whole model as a
`LlamaDecoder` with the tokenizer from the file's metadata (gguf_tokenizer.py).

Names (llama.cpp -> Hugging Face):

    token_embd.weight          model.embed_tokens.weight          (vocab, d)
    blk.N.attn_norm.weight     model.layers.N.input_layernorm.weight
    blk.N.attn_{q,k,v}.weight  model.layers.N.self_attn.{q,k,v}_proj.weight   q/k rows un-permuted (below)
    blk.N.attn_output.weight   model.layers.N.self_attn.o_proj.weight
    blk.N.ffn_norm.weight      model.layers.N.post_attention_layernorm.weight
    blk.N.ffn_{gate,up,down}   model.layers.N.mlp.{gate,up,down}_proj.weight
    output_norm.weight         model.norm.weight
    output.weight              lm_head.weight                      (absent: tied to token_embd)

GGUF shapes list the fastest dim first (ne0 = in-features); the dequantized array is (out, in) already.

RoPE layout: llama.cpp's converter (convert_hf_to_gguf.py, LlamaModel.permute) reorders the rows of q and k
of every head from Hugging Face's halves layout (dim i turns with dim i + E/2) into adjacent pairs (2i, 2i+1),
which llama.cpp's rotation uses:  gguf = hf.reshape(n, 2, E/2, d).swapaxes(1, 2).  `unpermute` undoes it as
transformers' GGUF loader does (n = H for q, H_kv for k), so the weights and q/k dims shown are the Hugging
Face model's, and RoPE pairs halves (families.Rope pairing "halves").

Refused, naming the key or tensor (catalogue models.error.gguf_*): an architecture other than llama, rope
scaling, partial rotary, mixture of experts, biases, per-frequency RoPE factors, a tensor type gguf cannot
dequantize, a tokenizer other than byte-level BPE with a known pre-split.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any, Optional

import numpy as np

from attention.datamodel import limits
from attention.datamodel.problem import Phrase
from attention.models.checkpoint import CheckpointError, TensorSource, human_size

PIP_NAME = "gguf==0.19.0"
ARCHITECTURES = ("llama",)
#: tokenizer arrays read whole only for the tokenizer (49k strings each)
BIG_ARRAYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.merges", "tokenizer.ggml.token_type", "tokenizer.ggml.scores")

_LAYER_NAMES = {"attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
                "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj",
                "ffn_norm": "post_attention_layernorm", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
                "ffn_down": "mlp.down_proj"}
_TOP_NAMES = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}
_BLOCK = re.compile(r"^blk\.(\d+)\.([a-z_]+)\.(weight|bias)$")
_TOP = re.compile(r"^([a-z_]+)\.(weight|bias)$")


def hf_name(gguf_name: str) -> Optional[str]:
    """'blk.3.attn_q.weight' -> 'model.layers.3.self_attn.q_proj.weight'; None for a name a Llama does not have."""
    m = _BLOCK.match(gguf_name)
    if m and m.group(2) in _LAYER_NAMES:
        return f"model.layers.{m.group(1)}.{_LAYER_NAMES[m.group(2)]}.{m.group(3)}"
    m = _TOP.match(gguf_name)
    if m and m.group(1) in _TOP_NAMES:
        return f"{_TOP_NAMES[m.group(1)]}.{m.group(2)}"
    return None


def unpermute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """Undo llama.cpp's q/k row order: per head, rows (E/2, 2) -> (2, E/2).  w (n_heads * E, d)."""
    rows, cols = w.shape
    return w.reshape(n_heads, rows // n_heads // 2, 2, cols).swapaxes(1, 2).reshape(rows, cols)


def quant_bits(kind: str) -> Optional[int]:
    """'Q4_1' -> 4, 'IQ2_XS' -> 2, 'TQ1_0' -> 1; None for float types (F32, F16, BF16, F64)."""
    m = re.match(r"^(?:I|T)?Q(\d)", kind)
    return int(m.group(1)) if m else None


class GGUFSource(TensorSource):
    """A GGUF file as a TensorSource with Hugging Face Llama names and a config.json built from its metadata."""

    def __init__(self, path: Path):
        super().__init__(Path(path), "gguf")
        where = self.path.name
        try:
            import gguf
        except ImportError:  # the `models` extra is not installed
            raise CheckpointError("models.error.gguf_package", path=where, pip=PIP_NAME) from None
        self._gguf = gguf
        _check_magic(self.path)
        try:
            self._reader = _plain_reader(gguf)(str(self.path), "r")
        except (ValueError, OSError, KeyError, IndexError, TypeError, NotImplementedError) as e:
            size = human_size(self.path.stat().st_size)  # a cut-short download shows here as an odd numpy error
            raise CheckpointError("models.error.gguf_bad", path=where,
                                  detail=f"{size}, cut short or damaged: {_first_line(e)}") from None
        self.meta: dict[str, Any] = {k: _value(f) for k, f in self._reader.fields.items() if k not in BIG_ARRAYS}
        self._by_hf: dict[str, Any] = {}
        for t in self._reader.tensors:
            name = hf_name(t.name)
            if name is None or name.endswith(".bias"):
                raise self._refuse_tensor(t.name)
            self._by_hf[name] = t
        self.config = _config(self.meta, where, len(self._field("tokenizer.ggml.tokens") or []) or None,
                              tied="lm_head.weight" not in self._by_hf)
        self._check_sizes()
        self.storage, self.bits = self._storage()
        # the listing's "GGUF file (llama.cpp), Q4_1 weights dequantized from 4-bit" (importing.list_header)
        self.kind = "gguf" if self.bits is None else "gguf_quantized"
        self.kind_args = {"storage": self.storage, "bits": self.bits}

    # -- TensorSource
    def keys(self) -> list[str]:
        return list(self._by_hf)

    def shape(self, key: str) -> tuple[int, ...]:
        return tuple(int(n) for n in reversed(self._by_hf[key].shape))  # GGUF lists ne0 (in-features) first

    def dtype(self, key: str) -> str:
        return self._by_hf[key].tensor_type.name

    def _tensor(self, key: str):
        """The dequantized float32 values (out, in), q/k rows in Hugging Face order."""
        import torch

        t = self._by_hf[key]
        try:
            w = np.asarray(self._gguf.quants.dequantize(t.data, t.tensor_type), dtype=np.float32)
            w = w.reshape(self.shape(key))
        except NotImplementedError:
            raise CheckpointError("models.error.gguf_quant", path=self.path.name, tensor=t.name,
                                  kind=t.tensor_type.name, version=_gguf_version()) from None
        except (ValueError, IndexError) as e:  # its blocks do not fill its shape: a cut-short or damaged file
            raise CheckpointError("models.error.gguf_bad", path=self.path.name,
                                  detail=f"{t.name}: {_first_line(e)}") from None
        heads = {"q_proj": "num_attention_heads", "k_proj": "num_key_value_heads"}.get(key.split(".")[-2])
        if heads is not None and key.startswith("model.layers."):
            n = self.config[heads]
            if w.shape[0] % (2 * n):
                raise CheckpointError("models.error.family_shape", path=self.path.name, tensor=t.name,
                                      shape=str(w.shape), expected=f"rows a multiple of 2 x {n} heads")
            w = unpermute(w, n)
        w = np.ascontiguousarray(w)
        return torch.from_numpy(w if w.flags.writeable else w.copy())  # gguf's arrays may view the read-only map

    # -- metadata
    def _check_sizes(self) -> None:
        """The metadata's sizes against the shapes the file stores its tensors with (the header; nothing
        is dequantized): every size the model is built from is then bounded by the file itself."""
        cfg, arch = self.config, self.meta.get("general.architecture")
        blocks = {int(name.split(".")[2]) for name in self._by_hf if name.startswith("model.layers.")}
        if cfg["num_hidden_layers"] != len(blocks):
            raise CheckpointError("models.error.gguf_key", path=self.path.name, field=f"{arch}.block_count",
                                  value=limits.shown(cfg["num_hidden_layers"]),
                                  expected=Phrase("blocks_held", {"n": len(blocks)}))
        d, hd = cfg["hidden_size"], cfg["head_dim"]
        explicit = f"{arch}.attention.key_length" in self.meta
        checks = (("model.embed_tokens.weight", (cfg["vocab_size"], d), ("vocab_size", "embedding_length")),
                  ("model.layers.0.self_attn.q_proj.weight", (cfg["num_attention_heads"] * hd, d),
                   ("attention.key_length" if explicit else "attention.head_count", "embedding_length")),
                  ("model.layers.0.self_attn.k_proj.weight", (cfg["num_key_value_heads"] * hd, d),
                   ("attention.head_count_kv", "embedding_length")),
                  ("model.layers.0.mlp.gate_proj.weight", (cfg["intermediate_size"], d),
                   ("feed_forward_length", "embedding_length")))
        value = {"vocab_size": cfg["vocab_size"], "embedding_length": d, "attention.key_length": hd,
                 "attention.head_count": cfg["num_attention_heads"],
                 "attention.head_count_kv": cfg["num_key_value_heads"],
                 "feed_forward_length": cfg["intermediate_size"]}
        for key, want, names in checks:
            if key not in self._by_hf:
                continue  # named when the model reads it
            got = self.shape(key)
            for axis in (1, 0):  # the width first: a wrong embedding_length shows in every tensor
                if len(got) == 2 and got[axis] != want[axis]:
                    raise self._stored(names[axis], value[names[axis]], self._by_hf[key].name, got)

    def _stored(self, key: str, value: Any, tensor: str, shape: tuple) -> CheckpointError:
        arch = self.meta.get("general.architecture")
        return CheckpointError("models.error.stored_size", path=self.path.name, where="metadata", field=f"{arch}.{key}",
                               value=limits.shown(value), tensor=tensor, shape="×".join(map(str, shape)))

    def _field(self, key: str) -> Any:
        f = self._reader.fields.get(key)
        return None if f is None else _value(f)

    def tokenizer_metadata(self) -> dict[str, Any]:
        """Every tokenizer.* key, the big arrays included."""
        out = {k: v for k, v in self.meta.items() if k.startswith("tokenizer.")}
        out.update({k: self._field(k) for k in BIG_ARRAYS if k in self._reader.fields})
        return out

    def _storage(self) -> tuple[str, Optional[int]]:
        """How the layers' matrices are stored ('Q4_1', or 'Q4_K/Q6_K' when mixed) and their bits if quantized."""
        kinds = Counter(t.tensor_type.name for name, t in self._by_hf.items()
                        if name.startswith("model.layers.") and len(t.shape) == 2)
        names = [k for k, _ in kinds.most_common()] or ["F32"]
        bits = [b for b in (quant_bits(k) for k in names) if b is not None]
        return "/".join(names), (min(bits) if bits else None)

    def _refuse_tensor(self, name: str) -> CheckpointError:
        key = ("models.error.gguf_bias" if name.endswith(".bias") else
               "models.error.gguf_rope_freqs" if name.startswith("rope_freqs") else "models.error.gguf_tensor")
        return CheckpointError(key, path=self.path.name, tensor=name, arch="llama")


def _plain_reader(gguf):
    """gguf's GGUFReader reading through a plain ndarray view of its memory map.

    Every slice of an np.memmap runs numpy's Python-level memmap hooks (__array_finalize__); the reader slices
    once per metadata part, about a million times for SmolLM2's 49k-token vocabulary and merges (12 s on a busy
    machine).  A plain view of the same mapping reads the same bytes without the hooks (the memmap stays
    referenced as the view's base, so the file stays mapped)."""

    class PlainReader(gguf.GGUFReader):
        @property
        def data(self):
            return self._plain

        @data.setter
        def data(self, value):
            self._plain = value.view(np.ndarray)

    return PlainReader


# ---- metadata -> config.json ------------------------------------------------------------------------

def _config(meta: dict[str, Any], where: str, n_tokens: Optional[int], tied: bool) -> dict[str, Any]:
    """A Hugging Face llama config.json from the metadata, every value checked (the key named when wrong)."""
    arch = meta.get("general.architecture")
    if arch not in ARCHITECTURES:
        raise CheckpointError("models.error.gguf_architecture", path=where, value=repr(arch),
                              known=", ".join(ARCHITECTURES))

    whole, positive, refuse = meta_checks(meta, arch, where)

    d, H = whole("embedding_length"), whole("attention.head_count")
    H_kv = whole("attention.head_count_kv", H)
    if H % H_kv:
        raise refuse("attention.head_count_kv", H_kv, f"a divisor of attention.head_count {H}")
    hd = whole("attention.key_length", d // H if d % H == 0 else None)
    if meta.get(f"{arch}.attention.value_length", hd) != hd:
        raise refuse("attention.value_length", meta[f"{arch}.attention.value_length"],
                     Phrase("equal_to", {"value": hd, "name": "key_length"}))
    if meta.get(f"{arch}.rope.dimension_count", hd) != hd:
        raise refuse("rope.dimension_count", meta[f"{arch}.rope.dimension_count"], Phrase("whole_head", {"value": hd}))
    scaling = meta.get(f"{arch}.rope.scaling.type", "none")
    if scaling != "none":
        raise refuse("rope.scaling.type", scaling, "none (scaled RoPE is not reproduced)")
    if meta.get(f"{arch}.expert_count", 0):
        raise refuse("expert_count", meta[f"{arch}.expert_count"], "0 (mixture of experts is not reproduced)")
    vocab = meta.get(f"{arch}.vocab_size", n_tokens)
    if f"{arch}.vocab_size" in meta:
        vocab = whole("vocab_size")
    elif not isinstance(vocab, int) or vocab < 1:
        raise CheckpointError("models.error.gguf_key", path=where, field="tokenizer.ggml.tokens", value=repr(vocab),
                              expected="a vocabulary of at least one token")
    return {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": d,
            "num_attention_heads": H, "num_key_value_heads": H_kv, "head_dim": hd,
            "num_hidden_layers": whole("block_count"), "intermediate_size": whole("feed_forward_length"),
            "rms_norm_eps": positive("attention.layer_norm_rms_epsilon"),
            "rope_theta": positive("rope.freq_base", 10000.0, field=_rope_base()),
            "max_position_embeddings": whole("context_length"),
            "vocab_size": vocab, "tie_word_embeddings": tied, "attention_bias": False}


def meta_checks(meta: dict[str, Any], arch: str, where: str):
    """(whole, positive, refuse) for metadata `{arch}.{key}`: `whole(key, default)` a size, a whole number from 1 to
    INT_MAX (attention/datamodel/limits.py, like every size the project reads); `positive(key, default, field)` a
    positive number, within `field`'s range where it becomes a scenario field (RoPE's base); `refuse(key, value,
    expected)` the error naming the key (models.error.gguf_key).  The Llama reader's and Gemma 3's
    (attention.models.gemma3)."""

    def refuse(key: str, value: Any, expected: Any) -> CheckpointError:
        return CheckpointError("models.error.gguf_key", path=where, field=f"{arch}.{key}", value=limits.shown(value),
                               expected=expected)

    def whole(key: str, default: Any = None) -> int:
        value = meta.get(f"{arch}.{key}", default)
        bad = limits.outside(value, 1, limits.INT_MAX)
        if bad is not None:
            raise refuse(key, value, bad)
        return int(value)

    def positive(key: str, default: Any = None, field: Any = None) -> float:
        value = meta.get(f"{arch}.{key}", default)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < float("inf"):
            raise refuse(key, value, Phrase("range_positive"))
        bad = None if field is None else limits.outside_field(field, value)
        if bad is not None:
            raise refuse(key, value, bad)
        return float(value)

    return whole, positive, refuse


def _rope_base():
    """RoPE's base as a scenario holds it (attention/kinds/rope.py): the import never writes what the loader refuses."""
    from attention.kinds.rope import FIELDS

    return next(f for f in FIELDS if f.name == "base")


def _value(field) -> Any:
    """A metadata field as a plain Python value (str, int, float, bool or a list of them)."""
    try:
        return field.contents()
    except (ValueError, IndexError, TypeError, UnicodeDecodeError):
        return None


def _check_magic(path: Path) -> None:
    if not path.is_file():
        raise CheckpointError("models.error.missing", path=str(path))
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError as e:
        raise CheckpointError("models.error.gguf_bad", path=path.name, detail=_first_line(e)) from None
    if head != b"GGUF":
        raise CheckpointError("models.error.gguf_bad", path=path.name, detail=f"starts with {head!r}, not b'GGUF'")


def _gguf_version() -> str:
    try:
        from importlib.metadata import version

        return version("gguf")
    except Exception:  # noqa: BLE001 - only for the message
        return "?"


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return (text[0][:160] if text else type(e).__name__)
