"""Time-Series-Library layers beyond AttentionLayer(Full/ProbAttention), for attention.capture.

Families (duck-typed by module and class names, TSL is never imported):

- "tsl_ds": AttentionLayer(DSAttention) of Non-stationary Transformer.  τ and Δ are arguments of
  the call (AttentionLayer.forward(..., tau, delta) hands them to DSAttention), so they are recorded
  from the call itself: τ (B, 1) -> the part's τ (B,), Δ (B, S).  Scoring "ds_attention" with the
  "destationary" part (attention/kinds/ds_attention.py).
- "tsl_autocorr": Autoformer's AutoCorrelationLayer(AutoCorrelation).  Same four projections;
  scoring "autocorrelation" with its part (the correlation's `factor`, and the path the module took:
  training when `inner_correlation.training`, else inference).  AutoCorrelation has no dropout in its
  forward, so a module in training mode is recorded (its lags are shared by the whole batch, so
  `items` may not pick a part of such a batch).
- "tsl_encoder": a whole Transformer_EncDec.EncoderLayer (Informer, Transformer, PatchTST,
  iTransformer, Non-stationary): its AttentionLayer (Full, Prob or DSAttention) plus the layer's
  residual, LayerNorms and kernel-1 convolutions as the encoder-layer part
  (attention/kinds/tsl_encoder.py); the module's output is compared with extra.norm_second.
  Recorded only when named (it is a layer around attention, not an attention module).
- "tsl_two_stage": Crossformer's TwoStageAttentionLayer, recorded whole when named: its input x
  (b, D, seg, d) as D·seg tokens (variable by variable), time_attention's projections as the
  scenario's, everything else (the router, dim_sender, dim_receiver, norm1..4, MLP1/2) in the
  two-stage part (attention/kinds/tsl_two_stage.py); the module's output (b, D, seg, d) is
  compared with extra.tsa_output.  Its three attentions, plain AttentionLayer(FullAttention)
  calls, may still be named one by one (time_attention, dim_sender, dim_receiver).
- Informer's distilling: an EncoderLayer `P.attn_layers.i` whose Encoder has `conv_layers[i]`
  (distil=True) is recorded with the ConvLayer that TSL's Encoder.forward runs right after it on
  its output (x = attn_layer(x); x = conv_layer(x)): the distil part (attention/kinds/tsl_distil.py),
  compared with the ConvLayer's output at extra.distil_pool.  The last layer has no ConvLayer.

Token labels: PatchTST patches ("patch 3 · t 16–31") and Crossformer segments come from the
PatchEmbedding's own call (the series length it received, patch_len, stride, padding), iTransformer
variates from DataEmbedding_inverted's call (the variables and time features it received; names
from capture's `variates`).  A recorded call whose token count is not the embedding's is left
unlabelled.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import torch
import torch.nn.functional as F
from torch import nn

from attention.datamodel import time_labels
from attention.datamodel.parts import Part
from attention.kinds import autocorrelation as ac
from attention.kinds import ds_attention as ds
from attention.kinds.tsl_distil import DISTIL
from attention.kinds.tsl_encoder import ENCODER_LAYER
from attention.words import text

DS, AUTOCORR, ENCODER, TWO_STAGE = "tsl_ds", "tsl_autocorr", "tsl_encoder", "tsl_two_stage"
#: families recorded only when named (layers around attention)
WHOLE = (ENCODER, TWO_STAGE)
#: families whose call becomes a scenario here
FAMILIES = (DS, AUTOCORR, ENCODER, TWO_STAGE)
#: the inner attentions an EncoderLayer may hold
ENCODER_INNER = ("FullAttention", "ProbAttention", "DSAttention")
#: Crossformer's stages, by the TwoStageAttentionLayer's attribute names
STAGES = ("time_attention", "dim_sender", "dim_receiver")
LAYER_NORM_EPS = 1e-5  # attention/ops/encoder_layer.py's LayerNorm
BATCH_NORM_EPS = 1e-5  # attention/kinds/tsl_distil.py's BatchNorm1d


# ---- what a module is ------------------------------------------------------------------------

def _projections(m: nn.Module) -> bool:
    return all(isinstance(getattr(m, f"{n}_projection", None), nn.Linear) for n in ("query", "key", "value", "out"))


def is_attention_layer(m: Any) -> bool:
    """TSL's AttentionLayer: four projections, `inner_attention` and `n_heads`."""
    return (isinstance(m, nn.Module) and _projections(m) and isinstance(getattr(m, "inner_attention", None), nn.Module)
            and isinstance(getattr(m, "n_heads", None), int))


def is_autocorrelation_layer(m: nn.Module) -> bool:
    return (_projections(m) and isinstance(getattr(m, "inner_correlation", None), nn.Module)
            and isinstance(getattr(m, "n_heads", None), int))


def _conv1(c: Any) -> bool:
    return isinstance(c, nn.Conv1d) and tuple(c.kernel_size) == (1,)


def is_encoder_layer(m: nn.Module) -> bool:
    """Transformer_EncDec.EncoderLayer: attention, conv1/conv2 (kernel 1), norm1/norm2."""
    return (is_attention_layer(getattr(m, "attention", None)) and _conv1(getattr(m, "conv1", None))
            and _conv1(getattr(m, "conv2", None)) and isinstance(getattr(m, "norm1", None), nn.LayerNorm)
            and isinstance(getattr(m, "norm2", None), nn.LayerNorm))


def is_two_stage(m: nn.Module) -> bool:
    return (all(is_attention_layer(getattr(m, s, None)) for s in STAGES)
            and isinstance(getattr(m, "router", None), torch.Tensor))


def inner_name(m: nn.Module) -> str:
    return type(getattr(m, "inner_attention", getattr(m, "inner_correlation", None))).__name__


def family(m: nn.Module) -> Optional[str]:
    """One of this module's families, or None (a plain AttentionLayer is capture.py's "tsl")."""
    if is_attention_layer(m) and inner_name(m) == "DSAttention":
        return DS
    if is_autocorrelation_layer(m):
        return AUTOCORR
    if is_encoder_layer(m):
        return ENCODER
    if is_two_stage(m):
        return TWO_STAGE
    return None


def attention_of(m: nn.Module, fam: str) -> nn.Module:
    """The module whose four projections the scenario runs."""
    return m.attention if fam == ENCODER else m


def module_problems(path: str, m: nn.Module, fam: str) -> list[str]:
    """Reasons a module of these families cannot be recorded exactly (checked before any call)."""
    if fam == AUTOCORR and inner_name(m) != "AutoCorrelation":
        return [text("capture.tsl.inner_correlation", path=path, inner=inner_name(m))]
    if fam == TWO_STAGE:
        return two_stage_problems(path, m)
    if fam != ENCODER:
        return []
    inner = inner_name(m.attention)
    if inner not in ENCODER_INNER:
        return [text("capture.inner", path=f"{path}.attention", inner=inner)]
    if activation(m) is None:
        return [text("capture.tsl.activation", path=path, got=getattr(m.activation, "__name__", repr(m.activation)))]
    for norm in ("norm1", "norm2"):
        eps = float(getattr(m, norm).eps)
        if eps != LAYER_NORM_EPS:
            return [text("capture.tsl.norm_eps", path=f"{path}.{norm}", eps=eps, want=LAYER_NORM_EPS)]
    return []


def activation(m: nn.Module) -> Optional[str]:
    """"relu" / "gelu" for TSL's `F.relu if activation == "relu" else F.gelu` (or the nn modules)."""
    a = getattr(m, "activation", None)
    if a is F.relu or isinstance(a, nn.ReLU):
        return "relu"
    if a is F.gelu or (isinstance(a, nn.GELU) and a.approximate == "none"):
        return "gelu"
    return None


def two_stage_problems(path: str, m: nn.Module) -> list[str]:
    """What the two-stage part cannot hold: another inner attention than FullAttention (unmasked,
    default scale), heads that differ between the stages, LayerNorm eps, MLPs not Linear-GELU-Linear."""
    heads = m.time_attention.n_heads
    for s in STAGES:
        a = getattr(m, s)
        inner = a.inner_attention
        if (type(inner).__name__ != "FullAttention" or getattr(inner, "mask_flag", False)
                or getattr(inner, "scale", None)):
            return [text("capture.tsl.two_stage_inner", path=f"{path}.{s}", inner=type(inner).__name__)]
        if a.n_heads != heads:
            return [text("capture.tsl.two_stage_heads", path=f"{path}.{s}", heads=a.n_heads, want=heads)]
    for i in range(1, 5):
        norm = getattr(m, f"norm{i}", None)
        if not isinstance(norm, nn.LayerNorm) or float(norm.eps) != LAYER_NORM_EPS:
            return [text("capture.tsl.norm_eps", path=f"{path}.norm{i}", eps=getattr(norm, "eps", "?"),
                         want=LAYER_NORM_EPS)]
    for i in (1, 2):
        mlp = getattr(m, f"MLP{i}", None)
        ok = (isinstance(mlp, nn.Sequential) and len(mlp) == 3 and isinstance(mlp[0], nn.Linear)
              and isinstance(mlp[1], nn.GELU) and mlp[1].approximate == "none" and isinstance(mlp[2], nn.Linear))
        if not ok:
            return [text("capture.tsl.two_stage_mlp", path=f"{path}.MLP{i}")]
    return []


def expand_two_stage(path: str, m: nn.Module) -> list[tuple[str, nn.Module]]:
    """A TwoStageAttentionLayer named is recorded whole (one scenario, the two-stage part); its
    three AttentionLayers are recorded one by one only when they are named themselves."""
    return [(path, m)]


# ---- Informer's distilling ConvLayer after an encoder layer --------------------------------------

def is_conv_layer(m: Any) -> bool:
    """TSL's ConvLayer: downConv (Conv1d), norm (BatchNorm1d), activation, maxPool."""
    return (isinstance(m, nn.Module) and isinstance(getattr(m, "downConv", None), nn.Conv1d)
            and isinstance(getattr(m, "norm", None), nn.BatchNorm1d)
            and isinstance(getattr(m, "maxPool", None), nn.Module))


def distil_conv_of(modules: dict[str, nn.Module], path: str) -> Optional[tuple[str, nn.Module]]:
    """(path, ConvLayer) that TSL's Encoder runs after encoder layer `path` (`E.attn_layers.i` ->
    `E.conv_layers.i`), or None (no distilling, or the last layer)."""
    parts = path.split(".")
    if len(parts) < 2 or parts[-2] != "attn_layers" or not parts[-1].isdigit():
        return None
    enc_path = ".".join(parts[:-2])
    convs = getattr(modules.get(enc_path), "conv_layers", None)
    i = int(parts[-1])
    if not isinstance(convs, nn.ModuleList) or i >= len(convs):
        return None
    return (f"{enc_path}.conv_layers.{i}" if enc_path else f"conv_layers.{i}"), convs[i]


def conv_problems(path: str, m: nn.Module) -> list[str]:
    """The ConvLayer must be TSL's exactly: Conv1d(C, C, 3, padding 2, circular), BatchNorm1d with
    running statistics (eps 1e-5), ELU(1), MaxPool1d(3, 2, 1)."""
    c, norm, pool, act = m.downConv, m.norm, m.maxPool, getattr(m, "activation", None)
    ok = (tuple(c.kernel_size) == (3,) and tuple(c.padding) == (2,) and c.padding_mode == "circular"
          and tuple(c.stride) == (1,) and tuple(c.dilation) == (1,) and c.groups == 1
          and c.in_channels == c.out_channels and norm.running_mean is not None
          and float(norm.eps) == BATCH_NORM_EPS and isinstance(act, nn.ELU) and float(act.alpha) == 1.0
          and isinstance(pool, nn.MaxPool1d) and pool.kernel_size in (3, (3,)) and pool.stride in (2, (2,))
          and pool.padding in (1, (1,)) and pool.dilation in (1, (1,)) and not pool.ceil_mode)
    return [] if ok else [text("capture.tsl.conv_layer", path=path)]


def distil_weights(m: nn.Module) -> dict[str, torch.Tensor]:
    """The ConvLayer's tensors at the call, as the distil part names them."""
    c, n = m.downConv, m.norm
    bias = c.bias if c.bias is not None else torch.zeros(c.out_channels)
    return {"conv_weight": _cpu(c.weight), "conv_bias": _cpu(bias), "running_mean": _cpu(n.running_mean),
            "running_var": _cpu(n.running_var),
            "norm_weight": _cpu(n.weight if n.weight is not None else torch.ones(n.num_features)),
            "norm_bias": _cpu(n.bias if n.bias is not None else torch.zeros(n.num_features))}


def distil_part(weights: dict[str, torch.Tensor]) -> "PartFn":
    return lambda _sel: Part(DISTIL.name, {k: v.detach().double().numpy() for k, v in weights.items()})


def stage_of(modules: dict[str, nn.Module], path: str) -> Optional[tuple[str, str]]:
    """(stage, the TwoStageAttentionLayer's path) when `path` is one of its three attentions."""
    if "." not in path:
        return None
    parent, leaf = path.rsplit(".", 1)
    return (leaf, parent) if leaf in STAGES and is_two_stage(modules.get(parent)) else None


# ---- what a call holds beyond capture.py's record ------------------------------------------------

def _cpu(t: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    return None if t is None else t.detach().to("cpu", copy=True)


def encoder_weights(m: nn.Module) -> dict[str, Optional[torch.Tensor]]:
    """The EncoderLayer's conv and LayerNorm tensors, as the encoder-layer part names them."""
    return {"conv1_weight": _cpu(m.conv1.weight[..., 0]), "conv1_bias": _cpu(m.conv1.bias),
            "conv2_weight": _cpu(m.conv2.weight[..., 0]), "conv2_bias": _cpu(m.conv2.bias),
            "norm1_weight": _cpu(m.norm1.weight), "norm1_bias": _cpu(m.norm1.bias),
            "norm2_weight": _cpu(m.norm2.weight), "norm2_bias": _cpu(m.norm2.bias)}


def facts_at_call(m: nn.Module, fam: str) -> dict[str, Any]:
    """Copied in the pre-hook with the weights: the module's state at that very call."""
    if fam == ENCODER:
        return {"encoder": encoder_weights(m), "activation": activation(m),
                "dropout": float(getattr(getattr(m, "dropout", None), "p", 0.0) or 0.0)}
    if fam == AUTOCORR:
        inner = m.inner_correlation
        return {"factor": float(inner.factor), "training": bool(inner.training)}
    if fam == TWO_STAGE:
        drops = [getattr(getattr(m, "dropout", None), "p", 0.0)] + [
            getattr(getattr(getattr(m, s).inner_attention, "dropout", None), "p", 0.0) for s in STAGES]
        return {"state": {k: _cpu(v) for k, v in m.state_dict().items()}, "dropout": float(max(drops))}
    return {}


def two_stage_part(state: dict[str, torch.Tensor], variables: int) -> "PartFn":
    """The two-stage part from the layer's own state_dict at the call (tsl_two_stage.from_state_dict)."""
    from attention.kinds import tsl_two_stage

    values, _ = tsl_two_stage.from_state_dict(state, variables)
    return lambda _sel: Part(tsl_two_stage.NAME, values)


# ---- embeddings: where token labels come from ------------------------------------------------------

def _is_patch_embedding(m: nn.Module) -> bool:
    pad = getattr(m, "padding_patch_layer", None)
    return (isinstance(getattr(m, "patch_len", None), int) and isinstance(getattr(m, "stride", None), int)
            and isinstance(pad, nn.Module) and hasattr(pad, "padding"))


def _is_inverted_embedding(m: nn.Module) -> bool:
    return type(m).__name__ == "DataEmbedding_inverted" and isinstance(getattr(m, "value_embedding", None), nn.Linear)


def embedding_hooks(model: nn.Module, seen: dict[str, Any]) -> list[Any]:
    """Pre-hooks that note the shapes the model's patch / inverted embeddings receive (read only)."""
    handles = []
    for _, m in model.named_modules():
        if _is_patch_embedding(m):
            def patches(mod: nn.Module, args: tuple) -> None:
                x = args[0] if args else None
                if isinstance(x, torch.Tensor) and x.dim() == 3:  # (B, n_vars, seq_len)
                    pad = mod.padding_patch_layer.padding
                    seen["patches"] = {"seq_len": int(x.shape[-1]), "n_vars": int(x.shape[1]),
                                       "patch_len": int(mod.patch_len), "stride": int(mod.stride),
                                       "padding": int(pad[-1] if isinstance(pad, (tuple, list)) else pad)}
            handles.append(m.register_forward_pre_hook(patches))
        elif _is_inverted_embedding(m):
            def variates(_mod: nn.Module, args: tuple) -> None:
                x = args[0] if args else None
                mark = args[1] if len(args) > 1 else None
                if isinstance(x, torch.Tensor) and x.dim() == 3:  # (B, T, N), marks (B, T, n_marks)
                    seen["variates"] = {"n_vars": int(x.shape[-1]),
                                        "n_marks": int(mark.shape[-1]) if isinstance(mark, torch.Tensor) else 0}
            handles.append(m.register_forward_pre_hook(variates))
    return handles


def _patch_tokens(p: dict, n: int, noun: str) -> Optional[tuple]:
    try:
        labels = time_labels.patch_labels(p["seq_len"], p["patch_len"], p["stride"], p["padding"], noun=noun)
    except ValueError:
        return None
    return tuple(labels) if len(labels) == n else None


def _variate_tokens(seen: dict, n: int, names: Optional[list[str]]) -> Optional[tuple]:
    v = seen.get("variates")
    if v is None or v["n_vars"] + v["n_marks"] != n:
        return None
    use = names if names is not None and len(names) == v["n_vars"] else None
    return tuple(time_labels.variate_labels(v["n_vars"], use, v["n_marks"]))


def _router_tokens(n: int) -> tuple:
    return tuple(text("tsl.router_slot", i=i + 1) for i in range(n))


def _plain_variates(n: int, names: Optional[list[str]]) -> tuple:
    use = names if names is not None and len(names) == n else None
    return tuple(time_labels.variate_labels(n, use))


def tokens(facts: dict, seen: dict, L: int, S: int,
           names: Optional[list[str]]) -> tuple[Optional[tuple], Optional[tuple]]:
    """(query_tokens, key_tokens) for a recorded call of L queries and S keys, or None each."""
    stage = facts.get("stage")
    p = seen.get("patches")
    if facts.get("variables"):  # a whole TwoStageAttentionLayer: token v·seg + s
        D = int(facts["variables"])
        seg = _patch_tokens(p, L // D, "segment") if p else None
        if seg is None or L % D:
            return None, None
        v = _plain_variates(D, names)
        both = tuple(f"{v[i]} · {seg[j]}" for i in range(D) for j in range(L // D))
        return both, both
    if stage == "time_attention":
        seg = _patch_tokens(p, L, "segment") if p else None
        return seg, seg
    if stage == "dim_sender":
        return _router_tokens(L), _plain_variates(S, names)
    if stage == "dim_receiver":
        return _plain_variates(L, names), _router_tokens(S)
    if p is not None and L == S:
        patch = _patch_tokens(p, L, "patch")
        if patch is not None:
            return patch, patch
    if L == S:
        v = _variate_tokens(seen, L, names)
        if v is not None:
            return v, v
    return None, None


# ---- calls -> the scenario's parts ----------------------------------------------------------------

PartFn = Callable[[Optional[torch.Tensor]], Part]  # the batch items kept (None: all) -> the part


def destationary_part(tau: Optional[torch.Tensor], delta: Optional[torch.Tensor]) -> Optional[PartFn]:
    """τ and Δ as DSAttention received them: τ (B, 1) -> (B,), Δ (B, S); None when the call passed
    neither (the library then uses 1 and 0, as the engine does without the part)."""
    if tau is None and delta is None:
        return None

    def part(sel: Optional[torch.Tensor]) -> Part:
        values = {}
        if tau is not None:
            t = tau.detach().double().reshape(tau.shape[0], -1)  # (B, 1)
            values["tau"] = (t if sel is None else t[sel]).reshape(-1).numpy()
        if delta is not None:
            d = delta.detach().double()
            values["delta"] = (d if sel is None else d[sel]).numpy()
        return Part(ds.PART, values)
    return part


def autocorrelation_part(factor: float, training: bool) -> PartFn:
    return lambda _sel: Part(ac.NAME, {"factor": float(factor),
                                                 "path": "training" if training else "inference"})


def encoder_part(weights: dict[str, Optional[torch.Tensor]], act: str) -> PartFn:
    """The encoder-layer part: kernel axes already dropped; a conv without bias gets zeros."""
    def part(_sel: Optional[torch.Tensor]) -> Part:
        values: dict[str, Any] = {"activation": act}
        for name, t in weights.items():
            if t is None and name.startswith("conv"):
                rows = weights[name.replace("bias", "weight")].shape[0]
                t = torch.zeros(rows, dtype=torch.float64)
            if t is not None:
                values[name] = t.detach().double().numpy()
        return Part(ENCODER_LAYER.name, values)
    return part
