"""Record the attention layers of your own model, during your own forward pass, as scenario files.

    from attention.capture import capture
    with capture(model, ["encoder.attn_layers.0.attention"], "captures") as rec:
        model(x_enc, x_mark_enc, x_dec, x_mark_dec)
    rec.files      # [Path("captures/encoder.attn_layers.0.attention.call1.json")]

Why hooks and not a second forward: the layer's inputs are whatever the user's code hands it
(embeddings, earlier layers, their masks), so the only faithful record is the call itself.  A
forward pre-hook (with kwargs) clones the call's arguments and the layer's weights at that
moment; a forward hook keeps its output.  Nothing in the hooks changes a tensor, draws a random
number or raises, so the model computes exactly what it would without the capture; the hooks are
removed when the block ends, also when the forward raises (then nothing is written).

Only when the block ends are the calls turned into scenarios, through the one mapping of a trained
layer (`attention.models.layer.LayerWeights` + `to_scenario`).  Each scenario is run by the engine
and compared with the module's own output (check=True): a call the engine would not reproduce is
refused, with the reason, and nothing is written.  Files are named by module path and call number
(`<path>.call<n>.json`), never overwrite an existing file unless asked, and nothing else is written.

Families (duck-typed, no import of their libraries):
- Time-Series-Library `AttentionLayer` (query/key/value/out_projection, inner_attention, n_heads)
  with `FullAttention` (mask_flag -> causal) or `ProbAttention` (its key sample is recorded: TSL
  draws it with torch.randint from the global generator, so the capture keeps the generator state
  before the call and replays the one draw into `sample_index`; TSL views the context without a
  transpose, so `mix` is on; Informer2020's AttentionLayer carries its own `mix`).
- Time-Series-Library's DSAttention (τ and Δ from the call), Autoformer's AutoCorrelationLayer (any
  L and S), whole EncoderLayers (with Informer's distilling ConvLayer after them) and Crossformer's
  whole TwoStageAttentionLayer, with patch / segment / variate token labels from the model's
  embeddings: attention/capture/tsl.py.
- `torch.nn.MultiheadAttention` (packed or separate projections, batch_first or not, unbatched,
  need_weights either way, NestedTensor inputs from nn.TransformerEncoder's fast path).
- Hugging Face BERT self-attention (query/key/value Linear + num_attention_heads; the sibling
  `output.dense` of its parent BertAttention becomes the out projection, so the engine's `concat`
  is the module's output and `output` is the dense layer's, before dropout, residual and LayerNorm).
- Hugging Face Llama-family attention (LlamaAttention, MistralAttention, Qwen2/Qwen3Attention,
  Gemma2/Gemma3Attention: q/k/v/o_proj + `config` + `layer_idx`), when transformers is in use: the
  module's weights and config go through the same reader and mapping as `main.py import`
  (attention/models/families.py, family_scenario.py), so RoPE, shared key/value heads, QK-norm,
  soft-caps and windows become the scenario's parts; RoPE starts at the call's position_ids.
Masks: causal triangles and padding at the end of a row become `causal` and `valid_lens`; anything
else is refused with the reason.
"""
from __future__ import annotations

import dataclasses
import inspect
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence, Union

import numpy as np
import torch
from torch import nn

from attention.capture import tsl as capture_tsl
from attention.datamodel.numbers import rounded
from attention.datamodel.scenario import Scenario
from attention.files import scenario_io
from attention.kinds.autocorrelation import NAME as AC_NAME
from attention.kinds.ds_attention import NAME as DS_NAME
from attention.kinds.mask_rules import causal_part, length_part
from attention.kinds.prob_sparse import PROB_SPARSE
from attention.kinds.tsl_distil import DISTIL
from attention.models.checkpoint import TensorSource
from attention.models.layer import LayerWeights, to_scenario
from attention.registry import kinds
from attention.words import text

#: A float mask value at or below this hides its key: exp(-1e9 + score) is exactly 0 in float32
#: and float64 for any score below 1e8, so it acts as -inf (HF BERT adds finfo.min).
HIDE_AT_OR_BELOW = -1e9


class CaptureError(ValueError):
    """A module or call the engine cannot reproduce exactly; `lines` holds one reason each."""

    def __init__(self, lines: list[str]):
        self.lines = list(lines)
        super().__init__("\n".join(self.lines))


# ---- what a module is ------------------------------------------------------------------------

def _is_bert_self(m: nn.Module) -> bool:
    return (all(isinstance(getattr(m, n, None), nn.Linear) for n in ("query", "key", "value"))
            and isinstance(getattr(m, "num_attention_heads", None), int))


def _is_tsl(m: nn.Module) -> bool:
    return (all(isinstance(getattr(m, f"{n}_projection", None), nn.Linear) for n in ("query", "key", "value", "out"))
            and isinstance(getattr(m, "inner_attention", None), nn.Module)
            and isinstance(getattr(m, "n_heads", None), int))


#: Hugging Face model types whose attention module is Llama-like (q/k/v/o_proj, position_embeddings)
HF_DECODERS = ("llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3", "gemma3_text")


def _is_hf_decoder(m: nn.Module) -> bool:
    """A transformers LlamaAttention-like module (duck-typed: transformers is never imported here)."""
    config = getattr(m, "config", None)
    return (all(isinstance(getattr(m, f"{n}_proj", None), nn.Linear) for n in "qkvo")
            and isinstance(getattr(m, "layer_idx", None), int) and hasattr(config, "to_dict")
            and getattr(config, "model_type", None) in HF_DECODERS)


def family(m: nn.Module) -> Optional[str]:
    """"tsl", "mha", "bert", "hf", capture_tsl's "tsl_ds", "tsl_autocorr", "tsl_encoder",
    "tsl_two_stage", or None: which mapping records `m`."""
    if isinstance(m, nn.MultiheadAttention):
        return "mha"
    if _is_hf_decoder(m):
        return "hf"
    tsl_family = capture_tsl.family(m)
    if tsl_family is not None:
        return tsl_family
    if _is_tsl(m):
        return "tsl"
    if _is_bert_self(m):
        return "bert"
    return None


def attention_modules(model: nn.Module, whole_layers: bool = False) -> list[tuple[str, str]]:
    """(path, family) of every attention module in `model` that capture can record, in module order;
    with whole_layers, also the layers around attention that it records when named (a TSL
    EncoderLayer, Crossformer's TwoStageAttentionLayer)."""
    return [(name, fam) for name, m in model.named_modules()
            if (fam := family(m)) is not None and (whole_layers or fam not in capture_tsl.WHOLE)]


# ---- one recorded call -----------------------------------------------------------------------

def _clone(x: Any) -> Any:
    """Tensors detached and copied (the caller may change them in place later); TSL mask objects
    keep only their boolean tensor; everything else as is."""
    if isinstance(x, torch.Tensor):  # on the CPU: a GPU model's memory is not held by the record
        return x.detach().clone() if x.is_nested else x.detach().to("cpu", copy=True)
    mask = getattr(x, "mask", None)  # TSL TriangularCausalMask / ProbMask: a property holding the tensor
    if isinstance(mask, torch.Tensor):
        return _MaskObject(mask.detach().to("cpu", copy=True))
    if isinstance(x, (tuple, list)):
        return type(x)(_clone(v) for v in x)
    return x


@dataclass
class _MaskObject:
    mask: torch.Tensor


@dataclass
class Call:
    """Everything one call of one module handed the engine's mapping, cloned at call time."""

    path: str
    number: int  # 1, 2, ... per module
    family: str
    module: nn.Module
    args: dict[str, Any]  # the forward's arguments by name (positional and keyword alike)
    weights: dict[str, tuple[torch.Tensor, Optional[torch.Tensor]]]  # role -> (weight, bias), nn.Linear layout
    training: bool
    output: Optional[torch.Tensor] = None
    rng_state: Optional[torch.Tensor] = None  # ProbAttention: the CPU generator just before its draw
    facts: dict[str, Any] = field(default_factory=dict)


def _cpu(t: torch.Tensor) -> torch.Tensor:
    return t.detach().to("cpu", copy=True)


def _linear(m: nn.Linear) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
    return _cpu(m.weight), None if m.bias is None else _cpu(m.bias)


def _bound(m: nn.Module, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The call's arguments by parameter name, whatever mix of positions and keywords was used."""
    try:
        b = inspect.signature(m.forward).bind_partial(*args, **kwargs)
    except TypeError:  # an unusual signature: fall back to positions as _0, _1, ...
        return {**{f"_{i}": a for i, a in enumerate(args)}, **kwargs}
    out = dict(b.arguments)
    for name, p in inspect.signature(m.forward).parameters.items():
        if p.kind is inspect.Parameter.VAR_KEYWORD and name in out:
            out.update(out.pop(name))
    return out


def _weights(path: str, m: nn.Module, fam: str, parent: Optional[nn.Module]) -> dict:
    if fam == "hf":  # every tensor of the module (projections, QK-norm weights), by its state-dict name
        return {name: (_cpu(t), None) for name, t in m.state_dict().items()}
    if fam == capture_tsl.TWO_STAGE:  # the time stage is the scenario's attention
        return {r: _linear(getattr(m.time_attention, f"{r}_projection")) for r in ("query", "key", "value", "out")}
    if fam == "tsl" or fam in (capture_tsl.DS, capture_tsl.AUTOCORR, capture_tsl.ENCODER):
        a = capture_tsl.attention_of(m, fam)
        return {r: _linear(getattr(a, f"{r}_projection")) for r in ("query", "key", "value", "out")}
    if fam == "mha":
        E = m.embed_dim
        if m._qkv_same_embed_dim:
            w = _cpu(m.in_proj_weight)
            ws = (w[:E], w[E:2 * E], w[2 * E:])
        else:
            ws = tuple(_cpu(getattr(m, f"{r}_proj_weight")) for r in ("q", "k", "v"))
        b = None if m.in_proj_bias is None else _cpu(m.in_proj_bias)
        bs = (None, None, None) if b is None else (b[:E], b[E:2 * E], b[2 * E:])
        out = {r: (ws[i], bs[i]) for i, r in enumerate(("query", "key", "value"))}
        out["out"] = _linear(m.out_proj)
        return out
    out = {r: _linear(getattr(m, r)) for r in ("query", "key", "value")}
    dense = getattr(getattr(parent, "output", None), "dense", None)
    if isinstance(dense, nn.Linear) and dense.in_features == out["value"][0].shape[0]:
        out["out"] = _linear(dense)
    return out


# ---- masks -> causal + valid lengths ---------------------------------------------------------

def _hidden(mask: torch.Tensor, keep_is_true: bool = False) -> Optional[torch.Tensor]:
    """Boolean "hidden" of a bool or additive float mask; None when a float value is neither
    0 nor a hiding value (a score bias, which the engine has no place for)."""
    if mask.dtype == torch.bool:
        return ~mask if keep_is_true else mask
    m = mask.detach().double()
    hide = m <= HIDE_AT_OR_BELOW
    if not bool(((m == 0) | hide).all()):
        return None
    return hide


def causal_and_lengths(hidden: torch.Tensor) -> Optional[tuple[bool, Optional[np.ndarray]]]:
    """(causal, valid_lens (B,) or (B, L) or None) that hide exactly `hidden` (B, L, S), or None.

    A causal reading is tried first (a teacher would rather see "causal" than one length per
    row), then plain lengths; the first that rebuilds the mask exactly wins."""
    B, L, S = hidden.shape
    tri = causal_part(L, S)  # (1, L, S): the causal rule's part
    for causal in (True, False):
        rest = hidden & ~tri if causal else hidden
        if causal and not bool((hidden | ~tri).all()):
            continue  # some key above the diagonal is visible: not causal
        first = torch.where(rest.any(-1), rest.float().argmax(-1), torch.full((B, L), S))  # (B, L)
        rebuilt = length_part(first, L, S)  # the valid-lengths rule's part, one length per row
        if causal:
            rebuilt = rebuilt | tri
        if not torch.equal(rebuilt, hidden):
            continue
        lens = first.numpy().astype(np.int64)  # (B, L)
        if causal:
            # `lens` is each row's first hidden key beyond the causal triangle (S: none).  A length
            # c shows in row l only when c <= l, so one length per item fits when every row agrees.
            rows = np.arange(L)[None, :]
            one = lens.min(axis=1)  # (B,)
            if (np.where(one[:, None] <= rows, one[:, None], S) == lens).all():
                return causal, (None if (one == S).all() else one)
        if (lens == S).all():
            return causal, None
        if (lens == lens[:, :1]).all():
            return causal, lens[:, 0].copy()
        return causal, lens
    return None


# ---- the capture -----------------------------------------------------------------------------

class Recorder:
    """What a `capture` block recorded: `calls` during the block, `scenarios` and `files` after."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.scenarios: list[tuple[str, Scenario]] = []  # (file stem, scenario)
        self.files: list[Path] = []


class capture:  # noqa: N801 - used as a context manager, named like one
    """Record every call of the named attention modules of `model` inside the `with` block.

    names: module paths as `model.named_modules()` spells them (None = every module capture can
      record; a BertAttention parent or a TSL inner attention is pointed to the right module).
    out_dir: folder for the scenario files (made if missing); None keeps the scenarios in
      `recorder.scenarios` and writes nothing.
    items: batch items to keep (default all), e.g. [0] for a small file from a large batch.
    max_calls: record at most this many calls per module (e.g. in a training loop).
    check: run each scenario through the engine and refuse it unless it reproduces the module's
      own output (relative 1e-4 in float32, 1e-6 for Time-Series-Library modules, 1e-9 in float64).
    overwrite: replace existing files of the same name (otherwise refused, nothing written).
    dtype: the scenarios' dtype; default the dtype the module computed in.
    variates: names of the series' variables, for iTransformer / Crossformer token labels."""

    def __init__(self, model: nn.Module, names: Optional[Union[str, Sequence[str]]] = None,
                 out_dir: Optional[Union[str, Path]] = None, *, items: Optional[Sequence[int]] = None,
                 max_calls: Optional[int] = None, check: bool = True, overwrite: bool = False,
                 dtype: Optional[str] = None, variates: Optional[Sequence[str]] = None) -> None:
        self.model = model
        self.variates = None if variates is None else [str(v) for v in variates]
        self._seen: dict[str, Any] = {}  # what the model's embeddings received (capture_tsl)
        self.names = [names] if isinstance(names, str) else names
        self.out_dir = None if out_dir is None else Path(out_dir)
        self.items = None if items is None else [int(i) for i in items]
        self.max_calls = max_calls
        self.check = check
        self.overwrite = overwrite
        self.dtype = dtype
        self.recorder = Recorder()
        self._handles: list[Any] = []

    # -- entering: resolve the names, attach the hooks ---------------------------------------
    def __enter__(self) -> Recorder:
        targets = self._targets()
        try:
            for path, module in targets:
                self._attach(path, module)
            self._handles += capture_tsl.embedding_hooks(self.model, self._seen)
        except BaseException:
            self._detach()
            raise
        return self.recorder

    def _targets(self) -> list[tuple[str, nn.Module]]:
        modules = dict(self.model.named_modules())
        if self.names is None:
            return [(p, modules[p]) for p, _ in attention_modules(self.model)]
        if not self.names:
            raise CaptureError([text("capture.no_module")])
        found = ", ".join(p or "(the model itself)" for p, _ in attention_modules(self.model)) or "-"
        out, errs = [], []
        for path in self.names:
            m = modules.get(path)
            if m is None:
                errs.append(text("capture.unknown_name", path=path, found=found))
                continue
            inner_self = getattr(m, "self", None)
            if family(m) is None and isinstance(inner_self, nn.Module) and _is_bert_self(inner_self):
                path, m = f"{path}.self" if path else "self", inner_self  # a BertAttention parent
            parent_path = path.rsplit(".", 1)[0] if "." in path else ""
            parent = modules.get(parent_path) if path else None
            if family(m) is None and parent is not None and _is_tsl(parent) and parent.inner_attention is m:
                errs.append(text("capture.inner_name", path=path, parent=parent_path or "(the model itself)"))
                continue
            if family(m) is None:
                errs.append(text("capture.unsupported", path=path or "model", kind=type(m).__name__))
                continue
            for p, sub in (capture_tsl.expand_two_stage(path, m) if family(m) == capture_tsl.TWO_STAGE
                           else [(path, m)]):
                errs += self._module_problems(p, sub)
                out.append((p, sub))
        if errs:
            raise CaptureError(errs)
        return out

    def _module_problems(self, path: str, m: nn.Module) -> list[str]:
        fam, path = family(m), path or "model"
        if fam in capture_tsl.FAMILIES:
            errs = capture_tsl.module_problems(path, m, fam)
            conv = capture_tsl.distil_conv_of(dict(self.model.named_modules()), path) if fam == capture_tsl.ENCODER \
                else None
            if conv is not None and not errs:
                errs = (capture_tsl.conv_problems(*conv) if capture_tsl.is_conv_layer(conv[1])
                        else [text("capture.tsl.conv_layer", path=conv[0])])
            return errs
        if fam == "tsl":
            inner = type(m.inner_attention).__name__
            if inner not in ("FullAttention", "ProbAttention"):
                return [text("capture.inner", path=path, inner=inner)]
            if inner == "FullAttention" and getattr(m, "mix", False):
                return [text("capture.mix_full", path=path)]
        if fam == "mha" and (m.bias_k is not None or m.add_zero_attn):
            return [text("capture.bias_kv", path=path)]
        if fam == "bert":
            kind = getattr(m, "position_embedding_type", "absolute") or "absolute"
            if kind != "absolute":
                return [text("capture.relative", path=path, kind=kind)]
        return []

    def _attach(self, path: str, m: nn.Module) -> None:
        fam = family(m)
        modules = dict(self.model.named_modules())
        parent = modules.get(path.rsplit(".", 1)[0] if "." in path else "") if path else None
        count = [0]
        pending: list[Call] = []
        stage = capture_tsl.stage_of(modules, path)  # one of a TwoStageAttentionLayer's attentions

        def pre(mod: nn.Module, args: tuple, kwargs: dict) -> None:
            count[0] += 1
            if self.max_calls is not None and count[0] > self.max_calls:
                pending.append(None)  # type: ignore[arg-type]  # keeps pre/post paired
                return
            with torch.no_grad():
                call = Call(path, count[0], fam, mod, {k: _clone(v) for k, v in _bound(mod, args, kwargs).items()},
                            _weights(path, mod, fam, parent), mod.training)
            if fam == "hf":  # a cache is filled by this very call: its length is read now
                call.facts["cached"] = _cached_length(call.args, mod)
            call.facts.update(capture_tsl.facts_at_call(mod, fam))
            if stage is not None:
                call.facts["stage"] = stage[0]
            pending.append(call)

        def post(mod: nn.Module, args: tuple, kwargs: dict, output: Any) -> None:
            call = pending.pop() if pending else None
            if call is None:
                return
            first = output[0] if isinstance(output, (tuple, list)) else output
            call.output = _clone(first) if isinstance(first, torch.Tensor) else None
            self.recorder.calls.append(call)

        self._handles.append(m.register_forward_pre_hook(pre, with_kwargs=True))
        self._handles.append(m.register_forward_hook(post, with_kwargs=True))
        conv = capture_tsl.distil_conv_of(modules, path) if fam == capture_tsl.ENCODER else None
        if conv is not None:
            self._attach_distil(path, conv[1])
        holder = m.attention if fam == capture_tsl.ENCODER else m
        if fam in ("tsl", capture_tsl.ENCODER) and type(holder.inner_attention).__name__ == "ProbAttention":
            def before_draw(_mod: nn.Module, _args: tuple, _kwargs: dict) -> None:
                if pending and pending[-1] is not None:  # get_rng_state copies; it draws nothing
                    pending[-1].rng_state = torch.get_rng_state()
            self._handles.append(holder.inner_attention.register_forward_pre_hook(before_draw, with_kwargs=True))

    def _attach_distil(self, path: str, conv: nn.Module) -> None:
        """Informer's Encoder runs conv_layers[i] on encoder layer i's output: that call of the ConvLayer
        joins the layer's last recorded call (only when its input IS that call's output)."""
        def after(mod: nn.Module, args: tuple, output: Any) -> None:
            mine = [c for c in self.recorder.calls if c.path == path]
            call = mine[-1] if mine else None
            x = args[0] if args else None
            if (call is None or DISTIL.name in call.facts or not isinstance(x, torch.Tensor)
                    or call.output is None or x.shape != call.output.shape
                    or not torch.equal(x.detach().cpu(), call.output)):
                return
            call.facts[DISTIL.name] = capture_tsl.distil_weights(mod)
            call.facts["distil_training"] = bool(mod.training)
            call.facts["distil_out"] = _clone(output)
        self._handles.append(conv.register_forward_hook(after))

    def _detach(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()

    # -- leaving: hooks off first, then scenarios, checks and files -------------------------
    def __exit__(self, exc_type, exc, tb) -> bool:
        self._detach()
        if exc_type is not None:
            return False  # the user's own error propagates; nothing is written
        rec = self.recorder
        errs: list[str] = []
        built: list[tuple[str, Scenario]] = []
        for call in rec.calls:
            try:
                sc, reference, step = _scenario(call, self.items, self.dtype)
                sc = _labelled(call, sc, self._seen, self.variates)
            except CaptureError as e:
                errs += e.lines
                continue
            if self.check:
                errs += _check(call, sc, reference, step)
            built.append((f"{call.path or 'model'}.call{call.number}", sc))
        if errs:
            raise CaptureError(errs)
        rec.scenarios = built
        if self.out_dir is not None and built:
            targets = [self.out_dir / f"{stem}.json" for stem, _ in built]
            taken = [t for t in targets if t.exists()] if not self.overwrite else []
            if taken:
                raise CaptureError([text("capture.exists", file=str(t)) for t in taken])
            self.out_dir.mkdir(parents=True, exist_ok=True)
            for (_, sc), target in zip(built, targets):
                scenario_io.save(sc, target)
                rec.files.append(target)
        return False


# ---- calls -> scenarios ----------------------------------------------------------------------

def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().to("cpu", torch.float64).numpy()


def _dtype_name(t: torch.Tensor) -> str:
    return "float64" if t.dtype == torch.float64 else "float32"


def _scenario(call: Call, items: Optional[list[int]], dtype: Optional[str]) -> tuple[Scenario, torch.Tensor, str]:
    """(scenario, the module's output as (B, L, width), the engine step it must equal)."""
    if call.family == "hf":
        return _hf(call, items, dtype)
    build: Callable = {"tsl": _tsl, "mha": _mha, "bert": _bert, capture_tsl.DS: _tsl_ds,
                       capture_tsl.AUTOCORR: _tsl_autocorr, capture_tsl.ENCODER: _tsl_encoder,
                       capture_tsl.TWO_STAGE: _tsl_two_stage}[call.family]
    q, k, v, hidden, options, reference, step = build(call)
    B = q.shape[0]
    sel = None
    if items is not None:
        for i in items:
            if not -B <= i < B:
                raise CaptureError([text("capture.items", item=i, call=call.number, path=call.path or "model", B=B)])
        sel = torch.tensor(items, dtype=torch.long)
        whole = sorted(i % B for i in items) == list(range(B))
        if call.facts.get("training") and call.family == capture_tsl.AUTOCORR and not whole:
            raise CaptureError([text("capture.tsl.autocorr_items", path=call.path or "model", call=call.number)])
        q, k, v = q[sel], k[sel], v[sel]
        reference = None if reference is None else reference[sel]
        hidden = None if hidden is None else hidden[sel]
    causal, lens = options.pop("causal", False), None
    if hidden is not None:
        if hidden.shape != (q.shape[0], q.shape[1], k.shape[1]):
            raise _mask_error(call, options.pop("mask_name", "mask"), "capture.mask_shape",
                              shape=list(hidden.shape), B=q.shape[0], L=q.shape[1], S=k.shape[1])
        read = causal_and_lengths(hidden)
        if read is None:
            raise _mask_error(call, options.pop("mask_name", "mask"), "capture.mask_pattern")
        causal, lens = read
    options.pop("mask_name", None)
    layer = LayerWeights(name=call.path, family=call.family,
                         projections={r: (_np(w), None if b is None else _np(b)) for r, (w, b) in call.weights.items()},
                         n_heads=options.pop("n_heads"), causal=causal)
    fam_key = options.pop("family_key")
    part_fns = options.pop("parts", ())
    if part_fns:  # capture_tsl's parts, cut to the kept batch items
        options["modifiers"] = tuple(f(sel) for f in part_fns)
    sc = to_scenario(layer, _np(q), _np(k), _np(v), causal=causal, valid_lens=lens, fill_value=float("-inf"),
                     title={lang: text("capture.title", lang, path=call.path or "model", call=call.number)
                            for lang in ("en", "zh")},
                     notes={lang: text("capture.notes", lang, family=text(fam_key, lang), call=call.number)
                            for lang in ("en", "zh")},
                     dtype=dtype or _dtype_name(q))
    if "out" not in layer.projections:
        sc = dataclasses.replace(sc, projections={r: p for r, p in sc.projections.items() if r != "out"})
    if options:
        sc = dataclasses.replace(sc, **options)
        if kinds.scoring(sc) is PROB_SPARSE and call.rng_state is not None:  # its key sample, replayed
            sc = dataclasses.replace(sc, sample_index=_replayed_sample(call.rng_state, sc))
    if call.family in capture_tsl.FAMILIES:  # the kinds' own limits (an odd Auto-Correlation length ...)
        _refuse_problems(call, sc)
    return sc, reference, step


def _refuse_problems(call: Call, sc: Scenario) -> None:
    from attention.compute.check import problems
    from attention.datamodel.problem import render_lines

    errs = problems(sc, check_values=False)
    if errs:
        raise CaptureError([text("capture.tsl.problem", path=call.path or "model", call=call.number, problem=line)
                            for line in render_lines(errs)])


def _replayed_sample(state: torch.Tensor, sc: Scenario) -> np.ndarray:
    """The (L, n_sample) keys ProbAttention drew: its first random draw, replayed from the CPU
    generator's state just before the call (a private generator; the user's stream is untouched)."""
    gen = torch.Generator(device="cpu")
    gen.set_state(state)
    n_sample, _ = sc.prob_sparse_sizes()
    return torch.randint(sc.S, (sc.L, n_sample), generator=gen).numpy().astype(np.int64)


def _mask_error(call: Call, which: str, detail_key: str, **args) -> CaptureError:
    return CaptureError([text("capture.mask", path=call.path or "model", call=call.number, which=which,
                              detail=text(detail_key, **args))])


def _dropout_error(call: Call, p: float) -> CaptureError:
    return CaptureError([text("capture.dropout", path=call.path or "model", call=call.number, p=p)])


def _tsl(call: Call):
    a = call.args
    names = list(a)
    q, k, v = (a.get(n, a.get(f"_{i}")) for i, n in enumerate(("queries", "keys", "values")))
    if q is None:  # unusual names: the first three positional arguments
        q, k, v = (a[n] for n in names[:3])
    attn_mask = a.get("attn_mask", a.get("_3"))
    inner = call.module.inner_attention
    prob = type(inner).__name__ == "ProbAttention"
    drop = getattr(getattr(inner, "dropout", None), "p", 0.0)
    if call.training and drop and not prob:
        raise _dropout_error(call, drop)
    opts: dict[str, Any] = {"n_heads": int(call.module.n_heads), "mask_name": "attn_mask",
                            "family_key": "capture.family.tsl_prob" if prob else "capture.family.tsl_full"}
    scale = getattr(inner, "scale", None)
    if scale:  # TSL: `self.scale or 1/sqrt(E)`, so 0 and None both mean the default
        opts["scale"] = float(scale)
    hidden = None
    if inner.mask_flag:
        if prob or attn_mask is None:
            opts["causal"] = True  # TriangularCausalMask / ProbMask, built inside the attention
        else:
            m = attn_mask.mask if hasattr(attn_mask, "mask") else attn_mask
            hidden = _hidden(m.reshape(m.shape[0], *m.shape[-2:]) if m.dim() == 4 else m)
            if hidden is None:
                raise _mask_error(call, "attn_mask", "capture.mask_values")
            hidden = hidden.expand(q.shape[0], q.shape[1], k.shape[1]) if hidden.dim() == 3 else hidden
    if prob:
        opts.update(scoring=PROB_SPARSE.name, factor=int(inner.factor), mix=bool(getattr(call.module, "mix", True)))
    return q, k, v, hidden, opts, call.output, "output"


def _tsl_ds(call: Call):
    """AttentionLayer(DSAttention): the FullAttention mapping + scoring ds_attention and the call's τ, Δ."""
    q, k, v, hidden, opts, out, step = _tsl(call)
    opts.update(scoring=DS_NAME, family_key="capture.family.tsl_ds")
    part = capture_tsl.destationary_part(call.args.get("tau"), call.args.get("delta"))
    opts["parts"] = () if part is None else (part,)
    return q, k, v, hidden, opts, out, step


def _tsl_autocorr(call: Call):
    """AutoCorrelationLayer: its projections, scoring autocorrelation; attn_mask is ignored by the library."""
    a = call.args
    q, k, v = (a.get(n, a.get(f"_{i}")) for i, n in enumerate(("queries", "keys", "values")))
    opts: dict[str, Any] = {"n_heads": int(call.module.n_heads), "family_key": "capture.family.tsl_autocorr",
                            "scoring": AC_NAME, "mask_name": "attn_mask",
                            "parts": (capture_tsl.autocorrelation_part(call.facts["factor"], call.facts["training"]),)}
    return q, k, v, None, opts, call.output, "output"


def _tsl_encoder(call: Call):
    """A whole EncoderLayer: its attention's call (x, x, x and the layer's mask, τ, Δ) mapped as that
    attention's family, then the encoder_layer part; the layer's output is extra.norm_second's."""
    if call.training and call.facts["dropout"]:
        raise _dropout_error(call, call.facts["dropout"])
    a = call.args
    x = a.get("x", a.get("_0"))
    inner = call.module.attention
    sub = dataclasses.replace(call, module=inner, args={"queries": x, "keys": x, "values": x,
                                                       "attn_mask": a.get("attn_mask"), "tau": a.get("tau"),
                                                       "delta": a.get("delta")})
    ds = type(inner.inner_attention).__name__ == "DSAttention"
    q, k, v, hidden, opts, _, _ = (_tsl_ds if ds else _tsl)(sub)
    opts["parts"] = tuple(opts.get("parts", ())) + (capture_tsl.encoder_part(call.facts["encoder"],
                                                                             call.facts["activation"]),)
    opts["family_key"] = "capture.family.tsl_encoder"
    if DISTIL.name not in call.facts:
        return q, k, v, hidden, opts, call.output, "extra.norm_second"
    if call.facts["distil_training"]:  # BatchNorm would use this batch's statistics, not the running ones
        raise CaptureError([text("capture.tsl.distil_training", path=call.path or "model", call=call.number)])
    opts["parts"] += (capture_tsl.distil_part(call.facts[DISTIL.name]),)
    opts["family_key"] = "capture.family.tsl_distil"
    return q, k, v, hidden, opts, call.facts["distil_out"], "extra.distil_pool"


def _tsl_two_stage(call: Call):
    """A whole TwoStageAttentionLayer: x (b, D, seg, d) as D·seg tokens (v·seg + s), time_attention's
    projections, the rest in the two_stage part; its output (b, D, seg, d) is extra.tsa_output's."""
    if call.training and call.facts["dropout"]:
        raise _dropout_error(call, call.facts["dropout"])
    a = call.args
    x = a.get("x", a.get("_0"))
    if not isinstance(x, torch.Tensor) or x.dim() != 4:
        raise CaptureError([text("capture.tsl.two_stage_input", path=call.path or "model", call=call.number,
                                 shape=list(getattr(x, "shape", ())))])
    b, D, seg, d = x.shape
    tokens = x.reshape(b, D * seg, d)
    out = call.output
    out = out.reshape(b, D * seg, out.shape[-1]) if isinstance(out, torch.Tensor) and out.dim() == 4 else out
    call.facts["variables"] = int(D)
    opts: dict[str, Any] = {"n_heads": int(call.module.time_attention.n_heads),
                            "family_key": "capture.family.tsl_two_stage",
                            "parts": (capture_tsl.two_stage_part(call.facts["state"], int(D)),)}
    return tokens, tokens, tokens, None, opts, out, "extra.tsa_output"


def _labelled(call: Call, sc: Scenario, seen: dict, variates: Optional[list[str]]) -> Scenario:
    """Token labels from the model's embeddings (patches, segments, variates, router slots) and, for a
    Crossformer stage, the notes saying which stage of the two it is."""
    q_tokens, k_tokens = capture_tsl.tokens(call.facts, seen, sc.L, sc.S, variates)
    if q_tokens is not None:
        sc = dataclasses.replace(sc, query_tokens=q_tokens, key_tokens=k_tokens)
    stage = call.facts.get("stage")
    if stage is not None:
        sc = dataclasses.replace(sc, notes={lang: f"{sc.notes[lang]} {text(f'capture.tsl.stage.{stage}', lang)}"
                                            for lang in ("en", "zh")})
    return sc


def _batch_first(x: torch.Tensor, batch_first: bool) -> torch.Tensor:
    if x.dim() == 2:
        return x.unsqueeze(0)  # unbatched (L, E)
    return x if batch_first else x.transpose(0, 1)


def _padded(x: torch.Tensor) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
    """A NestedTensor (nn.TransformerEncoder's fast path drops the padding) back to a padded
    (B, N, E) tensor and its lengths; a plain tensor as is."""
    if not getattr(x, "is_nested", False):
        return x, None
    parts = x.unbind()
    lens = torch.tensor([p.shape[0] for p in parts])
    return torch.nested.to_padded_tensor(x, 0.0).cpu(), lens


def _mha(call: Call):
    m: nn.MultiheadAttention = call.module
    a = call.args
    if call.training and m.dropout:
        raise _dropout_error(call, m.dropout)
    nested = bool(getattr(a["query"], "is_nested", False))
    q, _ = _padded(a["query"])
    k, k_lens = _padded(a["key"])
    v, _ = _padded(a["value"])
    unbatched = q.dim() == 2
    first = m.batch_first or nested  # a padded NestedTensor is always batch first
    q, k, v = (_batch_first(x, first) for x in (q, k, v))
    B, L, S = q.shape[0], q.shape[1], k.shape[1]
    hidden = torch.zeros(B, L, S, dtype=torch.bool)
    which = []
    kpm = a.get("key_padding_mask")
    if kpm is not None:
        which.append("key_padding_mask")
        h = _hidden(kpm.reshape(-1, S) if not unbatched else kpm.reshape(1, S))
        if h is None:
            raise _mask_error(call, "key_padding_mask", "capture.mask_values")
        hidden |= h[:, None, :]
    if k_lens is not None:
        hidden |= torch.arange(S)[None, None, :] >= k_lens[:, None, None]
    am = a.get("attn_mask")
    if am is not None:
        which.append("attn_mask")
        h = _hidden(am)
        if h is None:
            raise _mask_error(call, "attn_mask", "capture.mask_values")
        if h.dim() == 3:  # (B*H, L, S): one mask per item and head
            h = h.reshape(B, m.num_heads, L, S)
            if not bool((h == h[:, :1]).all()):
                raise _mask_error(call, "attn_mask", "capture.mask_heads")
            h = h[:, 0]
        hidden |= h
    elif a.get("is_causal"):
        hidden |= (torch.arange(S)[None, :] > torch.arange(L)[:, None])[None]
    out = call.output
    if out is not None:
        out, _ = _padded(out)
        out = _batch_first(out, first)
        if k_lens is not None:  # padding rows of a NestedTensor have no output: not compared
            out = out.clone()
            out[torch.arange(L)[None, :] >= k_lens[:, None]] = float("nan")
    opts = {"n_heads": m.num_heads, "mask_name": " + ".join(which) or "mask", "family_key": "capture.family.mha"}
    return q, k, v, (hidden if bool(hidden.any()) else None), opts, out, "output"


def _bert(call: Call):
    m = call.module
    a = call.args
    if call.training and getattr(getattr(m, "dropout", None), "p", 0.0):
        raise _dropout_error(call, m.dropout.p)
    if a.get("head_mask") is not None:
        raise CaptureError([text("capture.head_mask", path=call.path or "model", call=call.number)])
    for cache in ("past_key_value", "past_key_values"):
        c = a.get(cache)
        if c is not None and not (hasattr(c, "get_seq_length") and c.get_seq_length() == 0):
            raise CaptureError([text("capture.cache", path=call.path or "model", call=call.number)])
    x = a.get("hidden_states", a.get("_0"))
    enc = a.get("encoder_hidden_states")
    q, kv = x, (enc if enc is not None else x)
    mask = a.get("encoder_attention_mask") if enc is not None else a.get("attention_mask")
    B, L, S = q.shape[0], q.shape[1], kv.shape[1]
    hidden = None
    opts: dict[str, Any] = {"n_heads": int(m.num_attention_heads), "mask_name": "attention_mask",
                            "family_key": "capture.family.bert"}
    if mask is not None:
        h = _hidden(mask, keep_is_true=mask.dtype == torch.bool)
        if h is None:
            raise _mask_error(call, "attention_mask", "capture.mask_values")
        while h.dim() > 3:
            if h.shape[1] != 1:
                raise _mask_error(call, "attention_mask", "capture.mask_heads")
            h = h[:, 0]
        hidden = h.expand(B, L, S) if h.dim() == 3 else h
    elif getattr(m, "is_causal", False) and enc is None:
        opts["causal"] = True
    scaling = getattr(m, "scaling", None)
    head = int(getattr(m, "attention_head_size", call.weights["query"][0].shape[0] // m.num_attention_heads))
    if scaling is not None and not math.isclose(float(scaling), head ** -0.5, rel_tol=1e-12):
        opts["scale"] = float(scaling)
    step = "concat" if "out" in call.weights else "output"
    return q, kv, kv, hidden, opts, call.output, step


class _StateSource(TensorSource):
    """A module's recorded tensors under the names a Hugging Face file gives them, for families.py."""

    def __init__(self, name: str, tensors: dict[str, torch.Tensor]):
        super().__init__(Path(name), "torch")
        self._tensors = tensors

    def keys(self) -> list[str]:
        return list(self._tensors)

    def shape(self, key: str) -> tuple[int, ...]:
        return tuple(self._tensors[key].shape)

    def dtype(self, key: str) -> str:
        return str(self._tensors[key].dtype).replace("torch.", "")

    def _tensor(self, key: str):
        return self._tensors[key]


def _cached_length(args: dict, m: nn.Module) -> int:
    """Keys a transformers cache handed to this call already holds (0: a plain forward pass)."""
    for name in ("cache", "past_key_value", "past_key_values"):
        c = args.get(name)
        if c is None:
            continue
        try:
            return int(c.get_seq_length(m.layer_idx))
        except (AttributeError, TypeError, IndexError):
            return 1  # a cache it cannot read: refused as one
    return 0


def _hf(call: Call, items: Optional[list[int]], dtype: Optional[str]) -> tuple[Scenario, torch.Tensor, str]:
    """A Llama-family module's call: its config and weights read as a file's would be (families.py), then
    the import mapping; RoPE starts at the call's position_ids, the mask must be causal (+ the window)."""
    from attention.models import families, family_scenario
    from attention.models.checkpoint import CheckpointError

    m, a, where = call.module, call.args, call.path or "model"
    if call.training and float(getattr(m, "attention_dropout", 0.0) or 0.0):
        raise _dropout_error(call, float(m.attention_dropout))
    if call.facts.get("cached"):
        raise CaptureError([text("capture.cache", path=where, call=call.number)])
    prefix = f"model.layers.{m.layer_idx}.self_attn"
    source = _StateSource(where, {f"{prefix}.{name}": w for name, (w, _) in call.weights.items()})
    try:
        d = families.read_attention(source, m.layer_idx, config=m.config.to_dict())
    except CheckpointError as e:
        raise CaptureError([text("capture.hf_config", path=where, reason=e.line())]) from None
    x = a.get("hidden_states", a.get("_0"))
    pos, mask, out = a.get("position_ids"), a.get("attention_mask"), call.output
    B, L = x.shape[0], x.shape[1]
    if items is not None:
        for i in items:
            if not -B <= i < B:
                raise CaptureError([text("capture.items", item=i, call=call.number, path=where, B=B)])
        sel = torch.tensor(items, dtype=torch.long)
        x, out = x[sel], out[sel] if out is not None else None
        pos = pos[sel] if pos is not None and pos.shape[0] == B else pos
        mask = mask[sel] if mask is not None and mask.shape[0] == B else mask
    start = 0
    if pos is not None:
        rows = pos.reshape(-1, pos.shape[-1]).to(torch.long)
        start = int(rows[0, 0])
        if not bool((rows == start + torch.arange(L)).all()):
            raise CaptureError([text("capture.hf_positions", path=where, call=call.number)])
    sc = family_scenario.to_scenario(
        d, _np(x), offset=start, dtype=dtype or _dtype_name(x),
        title={lang: text("capture.title", lang, path=where, call=call.number) for lang in ("en", "zh")},
        notes={lang: text("capture.notes", lang, family=text("capture.family.hf", lang), call=call.number)
               for lang in ("en", "zh")})
    if mask is not None:
        hidden = _hidden(mask, keep_is_true=mask.dtype == torch.bool)
        li, si = torch.arange(L)[:, None], torch.arange(L)[None, :]
        want = si > li if d.window is None else (si > li) | (li - si >= d.window)  # (L, S) the rules' mask
        if hidden is None or hidden.shape[-2:] != (L, L) or not bool((hidden == want).all()):
            raise _mask_error(call, "attention_mask", "capture.mask_pattern")
    return sc, out, "output"


# ---- the check -------------------------------------------------------------------------------

#: Time-Series-Library modules are held to 1e-6 (relative to max(1, |output|)) in float32: measured
#: at most 3e-7 for d_model 512, 8 heads, 96 steps (bench/tsl_capture_accuracy.py prints the figures)
TSL_FLOAT32 = 1e-6
TSL_FAMILIES = ("tsl",) + capture_tsl.FAMILIES

def _check(call: Call, sc: Scenario, reference: Optional[torch.Tensor], step: str) -> list[str]:
    """Run the engine on the recorded scenario; refuse it unless it gives the module's output."""
    if reference is None:
        return []
    from attention.compute.engine import run  # imported here: the engine is only needed at the block's end

    got = run(sc).array(step)
    want = reference.detach().to("cpu", torch.float64).numpy()
    if got.shape != want.shape:
        diff, tol = math.inf, 0.0
    else:
        compared = ~np.isnan(want)  # NaN marks rows the module never computed (padding)
        scale = float(np.abs(want[compared]).max()) if compared.any() else 0.0
        f32 = TSL_FLOAT32 if call.family in TSL_FAMILIES else 1e-4
        rel = {torch.float64: 1e-9 if sc.dtype == "float64" else f32, torch.float32: f32}.get(reference.dtype, 1e-2)
        tol = rel * max(1.0, scale)  # float16 / bfloat16 modules keep about 3 digits
        d = np.abs(got - want)[compared]
        diff = float(np.nan_to_num(d, nan=math.inf).max()) if d.size else 0.0
    if diff <= tol:
        return []
    hint = text(kinds.scoring(sc).capture_mismatch)
    return [text("capture.mismatch", path=call.path or "model", call=call.number, diff=rounded(diff),
                 tol=rounded(tol), hint=hint)]


def files_of(paths: Iterable[Union[str, Path]]) -> list[Path]:
    """The scenario files among `paths`, sorted by module path then call number (for tools that
    open a capture folder)."""
    def key(p: Path) -> tuple[str, int]:
        m = re.match(r"(.*)\.call(\d+)$", p.stem)
        return (m.group(1), int(m.group(2))) if m else (p.stem, 0)
    return sorted((Path(p) for p in paths if str(p).endswith(".json")), key=key)
