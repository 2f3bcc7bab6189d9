"""A BERT-family encoder read from a local folder (config.json + model.safetensors), in plain torch.

Why here and not `transformers`: the explorer only needs what enters each attention layer (the
hidden states) and each layer's weights, and the whole forward pass is forty lines of torch.
`transformers` would add 120 MB and a second, hidden copy of the math the explorer exists to
show.  The tensors are read with the `safetensors` package (an optional extra, `.[models]`),
imported only when a folder is opened, so the engine imports without it.

The forward is the one BERT defines (eval mode, no dropout):
    h0 = LayerNorm(word[ids] + position[0..L-1] + token_type[type_ids])
    per layer:  a = Attention(h)  (as attention.compute.engine: scaled dot product, keys >= valid_len masked)
                h = LayerNorm(h + dense(a));  h = LayerNorm(h + out(gelu(intermediate(h))))
`forward` returns every hidden state entering a layer and every layer's attention weights, so a
model view and a chosen layer's scenario come from one pass.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import torch
import torch.nn.functional as F

from attention.compute import memory, threads
from attention.models import json_file
from attention.models.decoder import frozen
from attention.models.errors import ModelError
from attention.models.layer import LayerWeights

WEIGHTS_FILE = "model.safetensors"
CONFIG_FILE = "config.json"
#: model_type values whose checkpoints use BERT's key names and absolute positions
BERT_TYPES = ("bert",)
#: fill for masked (padding) keys; any large negative gives exactly 0 after the softmax
MASK_FILL = -1e6
#: The largest value each size in config.json may have (far above any BERT: bert-large has 24 layers,
#: 16 heads, 1024 wide, 30,522 words); beyond them a config is refused, naming the field, before
#: anything is built from it (a million layers would make a 16-million-name key list).
CONFIG_LIMITS = {"num_hidden_layers": 1024, "num_attention_heads": 4096, "hidden_size": 1 << 16,
                 "intermediate_size": 1 << 18, "vocab_size": 1 << 22, "max_position_embeddings": 1 << 20,
                 "type_vocab_size": 1 << 10, "pad_token_id": (1 << 22) - 1}
#: Characters of a config value quoted in a message.
QUOTE = 60


@dataclass(frozen=True)
class BertConfig:
    n_layers: int
    n_heads: int
    d_model: int
    d_ff: int
    vocab_size: int
    max_positions: int
    type_vocab_size: int
    layer_norm_eps: float
    hidden_act: str
    pad_token_id: int

    @classmethod
    def from_dict(cls, cfg: dict, where: str) -> "BertConfig":
        """Checks what the forward relies on; anything else in config.json is ignored."""
        kind = cfg.get("model_type")
        if kind not in BERT_TYPES:
            raise ModelError("model_not_bert", where=where, found=_short(kind))
        pos = cfg.get("position_embedding_type", "absolute")
        if pos != "absolute":
            raise ModelError("model_positions", where=where, found=_short(pos))
        act = cfg.get("hidden_act", "gelu")
        if not isinstance(act, str) or act not in ACTIVATIONS:
            raise ModelError("model_activation", where=where, found=_short(act), known=", ".join(ACTIVATIONS))
        _check_sizes(cfg, where)
        try:
            out = cls(n_layers=int(cfg["num_hidden_layers"]), n_heads=int(cfg["num_attention_heads"]),
                      d_model=int(cfg["hidden_size"]), d_ff=int(cfg["intermediate_size"]),
                      vocab_size=int(cfg["vocab_size"]), max_positions=int(cfg.get("max_position_embeddings", 512)),
                      type_vocab_size=int(cfg.get("type_vocab_size", 2)),
                      layer_norm_eps=float(cfg.get("layer_norm_eps", 1e-12)), hidden_act=act,
                      pad_token_id=int(cfg.get("pad_token_id", 0)))
        except KeyError as e:
            raise ModelError("model_config_key", where=where, key=e.args[0]) from None
        except (TypeError, ValueError):
            raise ModelError("model_config_bad", where=where) from None
        if out.n_heads < 1 or out.d_model % out.n_heads:
            raise ModelError("model_heads", where=where, heads=out.n_heads, d_model=out.d_model)
        return out


def _short(value):
    """A config value for a {found!r} placeholder: itself when short, else its repr cut to QUOTE characters."""
    from attention.datamodel.problem import elide

    if isinstance(value, str):
        return elide(value, QUOTE)
    return value if len(_quoted(value)) < QUOTE else _quoted(value)


def _quoted(value) -> str:
    """A config value as a message shows it: repr, at most QUOTE characters (a huge whole number by its size)."""
    from attention.datamodel.problem import count, elide

    if isinstance(value, int) and value.bit_length() > 200:
        return count(value)
    return elide(repr(value), QUOTE)


def _check_sizes(cfg: dict, where: str) -> None:
    """Every size is a whole number within CONFIG_LIMITS (checked before any int() or list is made)."""
    for name, most in CONFIG_LIMITS.items():
        value = cfg.get(name)
        if value is None:
            continue
        whole = isinstance(value, int) and not isinstance(value, bool)
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            whole = True
        least = 0 if name == "pad_token_id" else 1
        if not whole or not least <= value <= most:
            raise ModelError("model_config_field", where=where, field=name, got=_quoted(value), least=least,
                             most=most)


ACTIVATIONS = {
    "gelu": lambda x: F.gelu(x),  # exact erf GELU, as BERT's "gelu"
    "gelu_new": lambda x: F.gelu(x, approximate="tanh"),
    "relu": F.relu,
}


@dataclass(frozen=True)
class Forward:
    """One pass over a batch of token ids.

    hidden[k]: (B, L, d_model) float32, the hidden states entering layer k (hidden[n_layers] is
    the encoder's output); attentions: (n_layers, B, H, L, L) float32 attention weights."""

    hidden: list[np.ndarray]
    attentions: np.ndarray


class BertModel:
    """A loaded BERT-family encoder: its config and float32 tensors, keyed without a 'bert.' prefix."""

    def __init__(self, folder: Path, config: BertConfig, tensors: dict[str, torch.Tensor]):
        self.folder = folder
        self.config = config
        self.tensors = tensors
        self.name = folder.name if folder.name != "model" else folder.parent.name
        self._layer_cache: dict[int, LayerWeights] = {}

    # ---- loading -------------------------------------------------------------------------------
    @classmethod
    def load(cls, folder: str | Path) -> "BertModel":
        """Read config.json and model.safetensors of `folder`; ModelError (one line) when unusable."""
        folder = Path(folder)
        cfg_path, weights = folder / CONFIG_FILE, folder / WEIGHTS_FILE
        for path in (cfg_path, weights):
            if not path.is_file():
                raise ModelError("model_missing_file", folder=str(folder), file=path.name)
        try:
            cfg = json_file.read(cfg_path, str(cfg_path))
        except json_file.JsonFileError as e:
            raise ModelError(e.key, **e.args_) from None
        if not isinstance(cfg, dict):
            raise ModelError("model_config_bad", where=str(cfg_path))
        config = BertConfig.from_dict(cfg, str(cfg_path))
        tensors = _read_tensors(weights, config)
        return cls(folder, config, tensors)

    # ---- one layer as a record ---------------------------------------------------------------
    def layer_weights(self, k: int) -> LayerWeights:
        """Layer k's attention projections (query/key/value from attention.self, out = attention.output.dense).

        Made once per layer: every scenario of layer k (one per sentence edit, all kept by the
        undo stack) then shares the same float64 arrays instead of holding 4.7 MB of its own."""
        cache = self._layer_cache
        if k not in cache:
            cache[k] = self._layer_weights(k)
        return cache[k]

    def _layer_weights(self, k: int) -> LayerWeights:
        p = f"encoder.layer.{k}.attention."
        names = {"query": p + "self.query", "key": p + "self.key", "value": p + "self.value", "out": p + "output.dense"}
        projections = {role: (frozen(self.tensors[n + ".weight"]), frozen(self.tensors[n + ".bias"]))
                       for role, n in names.items()}  # read-only: the engine views them instead of copying
        return LayerWeights(name=f"encoder.layer.{k}.attention", family="bert", projections=projections,
                            n_heads=self.config.n_heads, extra={"layer": k, "folder": str(self.folder)})

    # ---- the forward pass --------------------------------------------------------------------
    @torch.no_grad()
    def forward(self, ids: np.ndarray, valid_lens: np.ndarray, type_ids: Optional[np.ndarray] = None,
                attend: Optional[Callable] = None) -> Forward:
        """ids (B, L) int; valid_lens (B,): keys at and after valid_lens[b] are padding.

        `attend(k, x, keep)` -> (output (B, L, D), weights (B, H, L, L)) computes layer k's attention in place of
        `_attention` (keep (B, S) True for a real key): attention.models.head_edits edits heads through it."""
        c, t = self.config, self.tensors
        ids_t = torch.as_tensor(np.asarray(ids), dtype=torch.long)  # (B, L)
        threads.use_for_model(int(np.asarray(ids).size), self.tensors)  # attention/compute/threads.py: the policy
        L = ids_t.shape[1]
        types = torch.zeros_like(ids_t) if type_ids is None else torch.as_tensor(np.asarray(type_ids), dtype=torch.long)
        x = (t["embeddings.word_embeddings.weight"][ids_t] + t["embeddings.position_embeddings.weight"][:L]
             + t["embeddings.token_type_embeddings.weight"][types])  # (B, L, D)
        x = self._norm(x, "embeddings.LayerNorm")
        keep = torch.arange(L)[None, :] < torch.as_tensor(np.asarray(valid_lens), dtype=torch.long)[:, None]  # (B, S)
        hidden, attentions = [x], []
        for k in range(c.n_layers):
            a, w = self._attention(x, keep, k) if attend is None else attend(k, x, keep)
            attentions.append(w)
            p = f"encoder.layer.{k}."
            x = self._norm(x + a, p + "attention.output.LayerNorm")
            inner = ACTIVATIONS[c.hidden_act](self._linear(x, p + "intermediate.dense"))  # (B, L, d_ff)
            x = self._norm(x + self._linear(inner, p + "output.dense"), p + "output.LayerNorm")
            hidden.append(x)
        return Forward([h.numpy() for h in hidden], torch.stack(attentions).numpy())

    def _attention(self, x: torch.Tensor, keep: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        """(output after attention.output.dense (B, L, D), weights (B, H, L, L)) of layer k."""
        B, L, _ = x.shape
        H = self.config.n_heads
        p = f"encoder.layer.{k}.attention."
        q, kk, v = (self._linear(x, p + f"self.{r}").view(B, L, H, -1).transpose(1, 2)  # (B, H, L, d_k)
                    for r in ("query", "key", "value"))
        scores = q @ kk.transpose(-1, -2) / math.sqrt(q.shape[-1])  # (B, H, L, L)
        scores = scores.masked_fill(~keep[:, None, None, :], MASK_FILL)
        w = torch.softmax(scores, dim=-1)
        ctx = (w @ v).transpose(1, 2).reshape(B, L, -1)  # (B, L, H*d_v)
        return self._linear(ctx, p + "output.dense"), w

    def _linear(self, x: torch.Tensor, name: str) -> torch.Tensor:
        return F.linear(x, self.tensors[name + ".weight"], self.tensors[name + ".bias"])

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        t = self.tensors
        return F.layer_norm(x, x.shape[-1:], t[name + ".weight"], t[name + ".bias"], self.config.layer_norm_eps)

    def nbytes(self) -> int:
        return sum(v.numel() * v.element_size() for v in self.tensors.values())


def needed_keys(config: BertConfig) -> list[str]:
    """Every tensor the forward reads, without any 'bert.' prefix."""
    keys = [f"embeddings.{n}.weight" for n in ("word_embeddings", "position_embeddings", "token_type_embeddings")]
    keys += ["embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias"]
    for k in range(config.n_layers):
        p = f"encoder.layer.{k}."
        for n in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                  "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"):
            keys += [p + n + ".weight", p + n + ".bias"]
    return keys


def expected_shapes(config: BertConfig) -> dict[str, tuple[int, ...]]:
    c = config
    D, F_ = c.d_model, c.d_ff
    shapes = {"embeddings.word_embeddings.weight": (c.vocab_size, D),
              "embeddings.position_embeddings.weight": (c.max_positions, D),
              "embeddings.token_type_embeddings.weight": (c.type_vocab_size, D)}
    for key in needed_keys(config):
        if key in shapes:
            continue
        if "intermediate.dense" in key:
            shapes[key] = (F_, D) if key.endswith("weight") else (F_,)
        elif key.endswith("output.dense.weight") and "attention" not in key:
            shapes[key] = (D, F_)
        elif key.endswith(".weight") and ("LayerNorm" not in key):
            shapes[key] = (D, D)
        else:
            shapes[key] = (D,)
    return shapes


def _read_tensors(path: Path, config: BertConfig) -> dict[str, torch.Tensor]:
    """The tensors `needed_keys` names, as float32, checked against the config's shapes."""
    try:
        from safetensors import SafetensorError, safe_open
    except ImportError:
        raise ModelError("model_needs_package", package="safetensors") from None
    if not json_file.regular_file(path):
        raise ModelError("model_missing_file", folder=str(path.parent), file=path.name)
    expected = expected_shapes(config)
    try:
        with safe_open(str(path), framework="pt") as f:
            available = set(f.keys())
            prefix = "bert." if "bert.embeddings.word_embeddings.weight" in available else ""
            missing = [k for k in needed_keys(config) if prefix + k not in available]
            if missing:
                raise ModelError("model_missing_tensor", where=str(path), key=missing[0],
                                            count=len(missing))
            for key, shape in expected.items():  # from the header: nothing is read yet
                found = tuple(f.get_slice(prefix + key).get_shape())
                if found != shape:
                    raise ModelError("model_tensor_shape", where=str(path), key=key, found=list(found),
                                     expected=list(shape))
            _check_memory(expected, str(path))
            tensors = {k: f.get_tensor(prefix + k).float() for k in needed_keys(config)}
    except (SafetensorError, OSError, RuntimeError) as e:
        raise ModelError("model_weights_unreadable", where=str(path), why=str(e).splitlines()[0]) from None
    return tensors


def _check_memory(shapes: dict[str, tuple[int, ...]], where: str) -> None:
    """The float32 tensors (and as much again while they are converted) must fit in the memory free now."""
    need = 2 * 4 * sum(math.prod(s) for s in shapes.values())
    free = memory.available_bytes()
    if need > free:
        from attention.models.checkpoint import human_size

        raise ModelError("model_memory", where=where, need=human_size(need), free=human_size(free))
