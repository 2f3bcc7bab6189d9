"""Time-Series-Library checkpoints: which TSL model a state dict is, and its layers as scenarios.

TSL saves `model.state_dict()` as checkpoints/<setting>/checkpoint.pth, where the setting names the
model (`long_term_forecast_ETTh1_96_96_Autoformer_ETTh1_ftM_sl96_...`).  recognise.py finds every
AttentionLayer by its `*_projection` keys; `refine` then says which model's layer each is, from
the keys first (they are certain), then a saved config's `model`, then the setting's folder name:

| model | told by | layers |
| --- | --- | --- |
| Nonstationary_Transformer | `tau_learner.*`, `delta_learner.*` | AttentionLayer(DSAttention) -> "tsl_ds" |
| Autoformer | `encoder.norm.layernorm.*` (my_Layernorm), bias-free `conv1` | AutoCorrelationLayer -> "tsl_autocorr" |
| FEDformer | `*.inner_correlation.*` (Fourier / wavelet weights) | listed, not importable |
| Crossformer | `*.router` beside `time_attention`, `dim_sender`, `dim_receiver` | whole TSA + its 3 stages |
| PatchTST | `patch_embedding.value_embedding.weight` (d_model, patch_len) | patch token labels |
| iTransformer | `enc_embedding.value_embedding.weight` (d_model, seq_len), no tokenConv | variate token labels |
| Informer | `encoder.conv_layers.*.downConv` (distilling) or the setting's name | ProbSparse; + "distil" part |

In a file whose model is told, every TSL EncoderLayer (`P.attention.*` + `P.conv1`, `P.conv2`, `P.norm1`,
`P.norm2`) is also listed whole ("tsl_encoder"): its attention plus the encoder_layer part
(attention/kinds/tsl_encoder.py).  TSL's plain Transformer is told only by a saved config or the
setting's folder name (its keys are Informer's without distilling).

A whole Crossformer TwoStageAttentionLayer P (`P.router` (seg, factor, d) + its three attentions,
norm1..4, MLP1, MLP2) is one scenario: time_attention's projections, the rest in the "two_stage"
part (attention/kinds/tsl_two_stage.from_state_dict), tokens D variables × seg segments (D from
`enc_pos_embedding` (1, D, seg, d) or a saved `enc_in`, else from --tokens / --inputs).

Informer's Encoder runs `E.conv_layers.i` on the output of `E.attn_layers.i` (all but the last
layer): that whole encoder layer gets the "distil" part from the ConvLayer's tensors too (BatchNorm's
running statistics: the model in eval()).

τ and Δ (Non-stationary) are computed from the raw series at each forward, so a state dict cannot
hold them: the scenario uses τ = 1, Δ = 0 unless `--tau` / `--delta` give them, and its notes say
which (attention.capture records real ones).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Optional

import numpy as np

import attention.words as words
from attention.datamodel import time_labels
from attention.datamodel.parts import Part
from attention.datamodel.scenario import Scenario
from attention.kinds import autocorrelation as ac
from attention.kinds import ds_attention as ds
from attention.kinds.prob_sparse import PROB_SPARSE
from attention.models.checkpoint import CheckpointError, TensorSource
from attention.models.layer import to_scenario
from attention.models.recognise import Found, read_layer

DS, AUTOCORR, ENCODER, TWO_STAGE, FOURIER = "tsl_ds", "tsl_autocorr", "tsl_encoder", "tsl_two_stage", "tsl_fourier"
#: families this module imports (recognise.py's "tsl" stays importing.py's)
FAMILIES = (DS, AUTOCORR, ENCODER, TWO_STAGE)
STAGES = ("time_attention", "dim_sender", "dim_receiver")
#: a TwoStageAttentionLayer's tensors besides its three attentions' projections
TWO_STAGE_TENSORS = ("router",) + tuple(f"norm{i}.{wb}" for i in range(1, 5) for wb in ("weight", "bias")) + \
    tuple(f"MLP{i}.{j}.{wb}" for i in (1, 2) for j in (0, 2) for wb in ("weight", "bias"))
#: Informer's ConvLayer tensors, as the "distil" part names them
DISTIL_TENSORS = {"conv_weight": "downConv.weight", "conv_bias": "downConv.bias", "running_mean": "norm.running_mean",
                  "running_var": "norm.running_var", "norm_weight": "norm.weight", "norm_bias": "norm.bias"}
MODELS = ("Nonstationary_Transformer", "Autoformer", "FEDformer", "Informer", "Transformer", "Crossformer",
          "PatchTST", "iTransformer")
#: run.py's defaults, used where the file does not say
DEFAULT_FACTOR = 1
DEFAULT_ACTIVATION = "gelu"
PATCHTST_STRIDE = 8  # models/PatchTST.py Model(configs, patch_len=16, stride=8): exp passes only configs
CROSSFORMER_SEG_LEN = 12
_SETTING = re.compile(r"_(" + "|".join(sorted(MODELS, key=len, reverse=True)) + r")_")


# ---- which model ---------------------------------------------------------------------------------

def model_of(source: TensorSource) -> Optional[str]:
    """The TSL model a state dict belongs to, or None."""
    keys = source.keys()
    ends = lambda suffix: any(k.endswith(suffix) for k in keys)  # noqa: E731
    has = lambda part: any(part in k for k in keys)  # noqa: E731
    if has("tau_learner.") and has("delta_learner."):
        return "Nonstationary_Transformer"
    if has(".inner_correlation."):
        return "FEDformer"
    if ends(".router") and has(".time_attention.query_projection."):
        return "Crossformer"
    if has("patch_embedding.value_embedding.weight"):
        return "PatchTST"
    if has("conv_layers.0.downConv.weight"):
        return "Informer"
    if has("encoder.norm.layernorm.weight") or has(".trend_projection."):
        return "Autoformer"
    said = _said_model(source)
    if said is not None:
        return said
    if has("enc_embedding.value_embedding.weight") and not has("value_embedding.tokenConv"):
        return "iTransformer"
    return None


def _said_model(source: TensorSource) -> Optional[str]:
    """A saved config's `model`, else TSL's setting folder name (checkpoints/<setting>/checkpoint.pth)."""
    saved = [v for k, v in source.values.items() if k.rsplit(".", 1)[-1] == "model"]
    for value in (source.config.get("model"), *saved):
        if isinstance(value, str) and value in MODELS:
            return value
    for part in reversed(source.path.resolve().parts[:-1]):
        found = _SETTING.search(f"_{part}_")
        if found:
            return found.group(1)
    return None


def _setting(source: TensorSource, name: str, default: Any) -> Any:
    """A run.py argument saved beside the weights (config.json or an `args` dict), else its default
    (also for a value of another type than the default's: a file's words are never trusted)."""
    value = source.config.get(name)
    if value is None:
        value = next((v for k, v in source.values.items() if k.rsplit(".", 1)[-1] == name), None)
    if default is None:
        return value if isinstance(value, str) else None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e6
    return value if ok else default


def _dim(source: TensorSource, key: Optional[str], axis: int, ndim: int) -> Optional[int]:
    """One size of a tensor of `ndim` axes, None for a tensor of another rank (a hostile file)."""
    if key is None:
        return None
    shape = source.shape(key)
    return int(shape[axis]) if len(shape) == ndim else None


# ---- listing ---------------------------------------------------------------------------------------

def _prefix(f: Found) -> str:
    return f.weights["query"].key[: -len(".query_projection.weight")]


def refine(source: TensorSource, found: list[Found]) -> list[Found]:
    """recognise.py's TSL layers told apart by model, with whole encoder layers and Crossformer's
    two-stage layers listed before their attention."""
    if not any(f.family == "tsl" for f in found):
        return found
    model = model_of(source)
    keys = set(source.keys())
    out: list[Found] = []
    listed: set[str] = set()
    for f in found:
        if f.family != "tsl":
            out.append(f)
            continue
        prefix = _prefix(f)
        parent, leaf = prefix.rsplit(".", 1) if "." in prefix else ("", prefix)
        extra = dict(f.extra, model=model, prefix=prefix)
        if leaf in STAGES and f"{parent}.router" in keys and len(source.shape(f"{parent}.router")) == 3:
            if parent not in listed:
                listed.add(parent)
                out.append(_two_stage(source, found, parent, model, keys))
            extra.update(stage=leaf, router=f"{parent}.router")
            out.append(dataclasses.replace(f, extra=extra, cross=leaf != "time_attention"))
            continue
        extra.update(_token_facts(source, model, keys))
        one = _attention(source, f, model, prefix, extra)
        whole = _encoder_layer(source, one, parent, leaf, keys, model) if one.supported else None
        if whole is not None:
            out.append(whole)
        out.append(one)
    return out


def _two_stage(source: TensorSource, found: list[Found], parent: str, model: Optional[str], keys: set) -> Found:
    """The whole TwoStageAttentionLayer `parent`: time_attention's projections as the scenario's, the
    router, the other two attentions, norms and MLPs read at import (the two_stage part)."""
    seg, factor, _ = source.shape(f"{parent}.router")
    time = next((f for f in found if f.family == "tsl" and _prefix(f) == f"{parent}.time_attention"), None)
    extra = {"model": model, "two_stage": parent, "seg": int(seg), "factor": int(factor),
             "variables": _variables(source, keys)}
    need = [f"{parent}.{n}" for n in TWO_STAGE_TENSORS] + [f"{parent}.{a}.{r}_projection.{wb}" for a in STAGES[1:]
                                                           for r in ("query", "key", "value", "out")
                                                           for wb in ("weight", "bias")]
    missing = next((k for k in need if k not in keys), None)
    if time is None or missing is not None:
        tensor = _name(missing or f"{parent}.time_attention")
        return Found(_name(parent), TWO_STAGE, {}, {}, {"router": (seg, factor, _)}, extra=extra,
                     reasons=(("models.reason.tsl_missing", (("tensor", tensor),)),))
    return dataclasses.replace(time, name=_name(parent), family=TWO_STAGE, causal=False, cross=False, extra=extra)


def _variables(source: TensorSource, keys: set) -> Optional[int]:
    """Crossformer's variable count D: enc_pos_embedding (1, D, seg, d), else a saved enc_in."""
    key = next((k for k in keys if k.endswith("enc_pos_embedding")), None)
    D = _dim(source, key, 1, 4)
    if D:
        return D
    saved = _setting(source, "enc_in", 0)
    return int(saved) if saved and float(saved).is_integer() else None


def _name(prefix: str) -> str:
    return prefix[len("module."):] if prefix.startswith("module.") else prefix


def _attention(source: TensorSource, f: Found, model: Optional[str], prefix: str, extra: dict) -> Found:
    if model == "Nonstationary_Transformer":
        return dataclasses.replace(f, family=DS, extra=extra)
    if model == "FEDformer":
        return dataclasses.replace(f, family=FOURIER, reasons=(("models.reason.tsl_fourier", ()),), extra=extra)
    if model == "Autoformer":
        extra["factor"] = float(_setting(source, "factor", DEFAULT_FACTOR))
        # AutoCorrelation(mask_flag=True) masks nothing; the decoder's cross_attention reads the encoder
        # (S steps, aligned by the library to the queries' L: cut, or zero steps appended)
        cross = prefix.rsplit(".", 1)[-1] == "cross_attention"
        return dataclasses.replace(f, family=AUTOCORR, causal=False, cross=cross, extra=extra)
    return dataclasses.replace(f, extra=extra)


def _encoder_layer(source: TensorSource, f: Found, parent: str, leaf: str, keys: set,
                   model: Optional[str]) -> Optional[Found]:
    """The whole Transformer_EncDec.EncoderLayer around `f` (`parent.attention`), when the file has it."""
    names = ("conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "norm1.weight", "norm1.bias",
             "norm2.weight", "norm2.bias")
    if model is None or leaf != "attention" or not parent or any(f"{parent}.{n}" not in keys for n in names):
        return None  # listed only for a model told (a plain file keeps its one-layer-per-attention list)
    if f"{parent}.norm3.weight" in keys:  # a DecoderLayer
        return None
    inner = {"Nonstationary_Transformer": "ds", "Informer": "prob"}.get(model or "", "full")
    act = _setting(source, "activation", None)
    extra = dict(f.extra, encoder=parent, inner=inner, factor=int(_setting(source, "factor", DEFAULT_FACTOR)),
                 activation=act)
    if act is not None and act != "relu":  # TSL: F.relu if activation == "relu" else F.gelu (any other word)
        extra["activation"] = "gelu"
    conv = _distil_conv(parent, keys)
    if conv is not None:
        extra["distil"] = conv
    bad = _encoder_shape_problem(source, parent, f.shapes["out.weight"][0], conv)
    return dataclasses.replace(f, name=_name(parent), family=ENCODER, extra=extra,
                               reasons=(bad,) if bad else f.reasons)


def _distil_conv(parent: str, keys: set) -> Optional[str]:
    """`E.conv_layers.i` when the file has Informer's ConvLayer after encoder layer `E.attn_layers.i`."""
    head, _, i = parent.rpartition(".")
    if not i.isdigit() or not (head == "attn_layers" or head.endswith(".attn_layers")):
        return None
    conv = f"{head[: -len('attn_layers')]}conv_layers.{i}"
    return conv if all(f"{conv}.{n}" in keys for n in DISTIL_TENSORS.values()) else None


def _encoder_shape_problem(source: TensorSource, parent: str, d: int, conv: Optional[str] = None) -> Optional[tuple]:
    """The reason (naming the tensor) when the layer's convs and norms (and the distilling ConvLayer
    after it) do not chain with d_model `d` (read from the header, before any tensor)."""
    conv1 = source.shape(f"{parent}.conv1.weight")
    d_ff = conv1[0] if conv1 else 0
    want = {f"{parent}.{n}": s for n, s in (
        ("conv1.weight", (d_ff, d, 1)), ("conv1.bias", (d_ff,)), ("conv2.weight", (d, d_ff, 1)), ("conv2.bias", (d,)),
        ("norm1.weight", (d,)), ("norm1.bias", (d,)), ("norm2.weight", (d,)), ("norm2.bias", (d,)))}
    if conv is not None:
        want |= {f"{conv}.{n}": ((d, d, 3) if n == "downConv.weight" else (d,)) for n in DISTIL_TENSORS.values()}
    for key, shape in want.items():
        got = tuple(source.shape(key))
        if got != shape:
            return ("models.reason.tsl_shape", (("tensor", _name(key)), ("shape", _text(got)),
                                                ("expected", _text(shape))))
    return None


def _text(shape: tuple) -> str:
    return "(" + "×".join(str(n) for n in shape) + ")"


def _token_facts(source: TensorSource, model: Optional[str], keys: set) -> dict:
    if model == "PatchTST":
        key = next(k for k in keys if k.endswith("patch_embedding.value_embedding.weight"))
        d_model, patch_len = _dim(source, key, 0, 2), _dim(source, key, 1, 2)
        if not d_model or not patch_len:
            return {}
        return {"patch_len": patch_len, "stride": PATCHTST_STRIDE, "n_patches": _patchtst_count(source, keys, d_model)}
    if model == "iTransformer":
        steps = _dim(source, next((k for k in keys if k.endswith("enc_embedding.value_embedding.weight")), None), 1, 2)
        return {"steps": steps} if steps else {}
    return {}


def _patchtst_count(source: TensorSource, keys: set, d_model: int) -> Optional[int]:
    """The patches the model makes: its head's input width is d_model · patch_num."""
    width = _dim(source, next((k for k in keys if k.endswith("head.linear.weight")), None), 1, 2)
    return None if width is None or width % d_model else width // d_model


def facts(found: Found, lang: Optional[str] = None) -> list[str]:
    """What `main.py layers` says of a TSL layer beyond its heads."""
    e = found.extra
    out = [words.text("models.tsl.model", lang, model=e["model"])] if e.get("model") else []
    if e.get("stage"):
        out.append(words.text("models.tsl.stage", lang, stage=e["stage"]))
    if e.get("patch_len"):
        out.append(words.text("models.tsl.patches", lang, patch_len=e["patch_len"], stride=e["stride"],
                              n=e.get("n_patches") or "?"))
    if e.get("steps"):
        out.append(words.text("models.tsl.variates", lang, steps=e["steps"]))
    if found.family == ENCODER:
        if e.get("inner") == "prob":
            out.append(words.text("models.tsl.prob_sparse", lang, factor=e["factor"]))
        out.append(words.text("models.tsl.activation", lang, activation=e.get("activation") or DEFAULT_ACTIVATION))
        if e.get("distil"):
            out.append(words.text("models.tsl.distil", lang, conv=_name(e["distil"])))
    if found.family == TWO_STAGE:
        key = "models.tsl.two_stage" if e.get("variables") else "models.tsl.two_stage_open"
        out.append(words.text(key, lang, variables=e.get("variables"), seg=e["seg"], factor=e["factor"]))
    return out


def token_count(found: Found, tokens: int) -> int:
    """The generated token count: a whole TwoStageAttentionLayer's is D·seg when the file tells D."""
    e = found.extra
    return e["variables"] * e["seg"] if found.family == TWO_STAGE and e.get("variables") else tokens


# ---- importing --------------------------------------------------------------------------------------

def generated_inputs(source: TensorSource, found: Found, tokens: int, seed: int) -> dict[str, np.ndarray]:
    """Seeded standard-normal inputs; Crossformer's dim_sender takes the file's own router (segment 1)
    as its queries, dim_receiver reads `factor` router slots; Auto-Correlation is self-attention."""
    import torch

    g = torch.Generator().manual_seed(int(seed))
    d = found.widths()["queries"]
    x = torch.randn(1, tokens, d, generator=g, dtype=torch.float64).numpy()
    stage = found.extra.get("stage")
    if found.family == AUTOCORR and found.cross:  # Autoformer's decoder: L = label_len + pred_len > the encoder's S
        dk, dv = found.shapes["query.weight"][0], found.shapes["value.weight"][0]
        S = max(1, tokens - 2) if dk == dv else tokens + 2  # zeros join the values only when d_v == d_k
        memory = torch.randn(1, S, found.widths()["keys"], generator=g, dtype=torch.float64).numpy()
        return {"queries": x, "keys": memory, "values": memory}
    if stage == "dim_sender":
        router = np.asarray(source.read(found.extra["router"]), dtype=np.float64)[:1]  # (1, factor, d)
        return {"queries": router, "keys": x, "values": x}
    if stage == "dim_receiver":
        factor = source.shape(found.extra["router"])[1]
        slots = torch.randn(1, factor, d, generator=g, dtype=torch.float64).numpy()
        return {"queries": x, "keys": slots, "values": slots}
    return {"queries": x, "keys": x, "values": x}


def token_labels(found: Found, L: int, S: int) -> tuple[Optional[tuple], Optional[tuple]]:
    """(query_tokens, key_tokens) for generated inputs: patches, segments, variates, router slots."""
    e = found.extra
    stage = e.get("stage")
    router = lambda n: tuple(words.text("tsl.router_slot", i=i + 1) for i in range(n))  # noqa: E731
    if found.family == TWO_STAGE:
        seg = e["seg"]
        if L != S or L % seg:
            return None, None
        v, t = time_labels.variate_labels(L // seg), time_labels.segment_labels(seg * CROSSFORMER_SEG_LEN,
                                                                                CROSSFORMER_SEG_LEN)
        both = tuple(f"{a} · {b}" for a in v for b in t)
        return both, both
    if stage == "dim_sender":
        return router(L), tuple(time_labels.variate_labels(S))
    if stage == "dim_receiver":
        return tuple(time_labels.variate_labels(L)), router(S)
    if stage == "time_attention":
        seg = tuple(time_labels.segment_labels(L * CROSSFORMER_SEG_LEN, CROSSFORMER_SEG_LEN))
        return seg, seg
    if e.get("patch_len") and L == S and L >= 2:
        seq_len = (L - 2) * e["stride"] + e["patch_len"]  # L patches: (seq_len - patch_len) // stride + 2
        patches = tuple(time_labels.patch_labels(seq_len, e["patch_len"], e["stride"]))
        return (patches, patches) if len(patches) == L else (None, None)
    if e.get("steps") and L == S:
        v = tuple(time_labels.variate_labels(L))
        return v, v
    return None, None


def labelled(found: Found, sc: Scenario) -> Scenario:
    """A plain AttentionLayer's scenario with PatchTST / iTransformer token labels (None: as it was)."""
    q_tokens, k_tokens = token_labels(found, sc.L, sc.S)
    return sc if q_tokens is None else dataclasses.replace(sc, query_tokens=q_tokens, key_tokens=k_tokens)


def import_layer(source: TensorSource, found: Found, heads: int, inputs: Optional[dict], tokens: int, seed: int,
                 inputs_name: Optional[str], destationary: Optional[dict] = None) -> Scenario:
    """The scenario of a TSL layer of these families (and a plain one with TSL token labels).
    `destationary`: τ and Δ given for a DSAttention layer ({"tau": float, "delta": float or S floats})."""
    given = inputs is not None
    inputs = dict(inputs) if given else generated_inputs(source, found, token_count(found, tokens), seed)
    n = inputs["queries"].shape[1]
    if found.family == TWO_STAGE and n % found.extra["seg"]:
        raise CheckpointError("models.error.tsl_two_stage_tokens", name=found.name, seg=found.extra["seg"], got=n)
    S = inputs["keys"].shape[1]
    if destationary and isinstance(destationary["delta"], list) and len(destationary["delta"]) != S:
        raise CheckpointError("models.error.delta", got=destationary["delta_text"], S=S)
    layer = read_layer(source, found)
    args = {"file": source.path.name, "layer": found.name, "heads": heads}
    q_tokens, k_tokens = (inputs.get("query_tokens"), inputs.get("key_tokens")) if given else \
        token_labels(found, n, inputs["keys"].shape[1])
    notes = {}
    for lang in words.LANGS:
        how = (words.text("models.notes.inputs_given", lang, path=inputs_name or "") if given
               else words.text("models.notes.inputs_random", lang, seed=seed, tokens=n))
        said = [words.text("models.notes", lang, family=words.text(f"models.family.{found.family}", lang),
                           inputs=how, **args)]
        notes[lang] = " ".join(said + _family_notes(found, lang, n, destationary))
    sc = to_scenario(layer, inputs["queries"], inputs["keys"], inputs["values"], n_heads=heads,
                     valid_lens=inputs.get("valid_lens"), query_tokens=q_tokens, key_tokens=k_tokens,
                     title={lang: words.text("models.title", lang, **args) for lang in words.LANGS}, notes=notes)
    sc = dataclasses.replace(sc, **_family_options(source, found, sc, destationary))
    _refuse_problems(found, sc)
    return sc


def _family_notes(found: Found, lang: str, n: int, destationary: Optional[dict]) -> list[str]:
    e = found.extra
    inner = e.get("inner")
    out = []
    if found.family == DS and found.causal:  # TSL's DecoderLayer: self_attention(..., tau=tau, delta=None)
        out.append(words.text("models.notes.tsl_ds_self_given", lang, tau=f"{destationary['tau']:g}")
                   if destationary else words.text("models.notes.tsl_ds_self", lang))
    elif (found.family == DS or inner == "ds") and destationary:
        delta = destationary["delta"]
        out.append(words.text("models.notes.tsl_ds_given", lang, tau=f"{destationary['tau']:g}",
                              delta=f"{delta:g}" if isinstance(delta, float) else ", ".join(f"{x:g}" for x in delta)))
    elif found.family == DS or inner == "ds":
        out.append(words.text("models.notes.tsl_ds", lang))
    if found.family == AUTOCORR:
        out.append(words.text("models.notes.tsl_autocorr", lang, factor=f"{e['factor']:g}"))
    if inner == "prob":
        out.append(words.text("models.notes.tsl_prob", lang, factor=e["factor"]))
    if found.family == ENCODER:
        act = e.get("activation") or DEFAULT_ACTIVATION
        out.append(words.text("models.notes.tsl_encoder", lang, activation=act))
        if not e.get("activation"):
            out.append(words.text("models.notes.tsl_activation_default", lang))
    if e.get("distil"):
        out.append(words.text("models.notes.tsl_distil", lang, conv=_name(e["distil"])))
    if found.family == TWO_STAGE:
        out.append(words.text("models.notes.tsl_two_stage", lang, variables=n // e["seg"], seg=e["seg"]))
    if e.get("stage") == "dim_sender":
        out.append(words.text("models.notes.tsl_router", lang))
    elif e.get("stage"):
        out.append(words.text("models.notes.tsl_stage", lang, stage=e["stage"]))
    return out


def _family_options(source: TensorSource, found: Found, sc: Scenario, destationary: Optional[dict] = None) -> dict:
    """The scenario fields that make it this family: scoring, parts (τ/Δ, lags, the encoder layer,
    the distilling ConvLayer, the two-stage layer)."""
    e = found.extra
    inner = e.get("inner")
    mods: list[Part] = []
    opts: dict[str, Any] = {}
    if found.family == DS or inner == "ds":
        opts["scoring"] = ds.NAME
        tau, delta = (destationary["tau"], destationary["delta"]) if destationary else (1.0, 0.0)
        mods.append(Part(ds.PART, {"tau": np.full(sc.batch, float(tau)),
                                   "delta": np.broadcast_to(np.asarray(delta, dtype=np.float64),
                                                            (sc.batch, sc.S)).copy()}))
    if found.family == AUTOCORR:
        opts["scoring"] = ac.NAME
        mods.append(Part(ac.NAME, {"factor": float(e["factor"]), "path": "inference"}))
    if inner == "prob":
        opts.update(scoring=PROB_SPARSE.name, factor=int(e["factor"]), mix=True)
    if found.family == ENCODER:
        mods.append(_encoder_part(source, found))
    if e.get("distil"):
        mods.append(Part("distil", {name: np.asarray(source.read(f"{e['distil']}.{key}"), dtype=np.float64)
                                    for name, key in DISTIL_TENSORS.items()}))
    if found.family == TWO_STAGE:
        from attention.kinds import tsl_two_stage

        values, _ = tsl_two_stage.from_state_dict(_Under(source, e["two_stage"]), sc.L // e["seg"])
        mods.append(Part(tsl_two_stage.NAME, values))
    if mods:
        opts["modifiers"] = tuple(mods)
    return opts


class _Under:
    """The file's tensors under `prefix.`, read one by one as from_state_dict asks (a state_dict view)."""

    def __init__(self, source: TensorSource, prefix: str):
        self.source, self.prefix = source, prefix

    def __getitem__(self, name: str):
        return self.source.read(f"{self.prefix}.{name}")


def destationary_problem(found: Found, tau: Optional[str], delta: Optional[str], S: Optional[int] = None
                         ) -> tuple[Optional[dict], Optional[CheckpointError]]:
    """(τ/Δ values, None) or (None, the error naming the option) from `--tau` / `--delta` text.
    Δ: one number for every key, or S numbers separated by commas (S checked at import)."""
    if tau is None and delta is None:
        return None, None
    if found.family != DS and found.extra.get("inner") != "ds":
        return None, CheckpointError("models.error.tau_layer", name=found.name)
    if delta is not None and found.family == DS and found.causal:
        # TSL's DecoderLayer: self_attention(x, x, x, attn_mask=x_mask, tau=tau, delta=None)
        return None, CheckpointError("models.error.delta_decoder_self", name=found.name)
    t = 1.0
    if tau is not None:
        try:
            t = float(tau)
        except ValueError:
            t = float("nan")
        if not (np.isfinite(t) and t > 0):
            return None, CheckpointError("models.error.tau", got=tau)
    d: Any = 0.0
    if delta is not None:
        try:
            vals = [float(x) for x in delta.split(",")]
        except ValueError:
            vals = [float("nan")]
        bad = not all(np.isfinite(vals)) or (len(vals) > 1 and S is not None and len(vals) != S)
        if bad:
            return None, CheckpointError("models.error.delta", got=delta, S=S if S is not None else "S")
        d = vals[0] if len(vals) == 1 else vals
    return {"tau": t, "delta": d, "delta_text": delta}, None


def _encoder_part(source: TensorSource, found: Found) -> Part:
    p = found.extra["encoder"]
    values: dict[str, Any] = {"activation": found.extra.get("activation") or DEFAULT_ACTIVATION}
    for name in ("conv1", "conv2", "norm1", "norm2"):
        for t in ("weight", "bias"):
            arr = np.asarray(source.read(f"{p}.{name}.{t}"), dtype=np.float64)
            values[f"{name}_{t}"] = arr[..., 0] if arr.ndim == 3 else arr  # Conv1d (out, in, 1)
    return Part("encoder_layer", values)


def _refuse_problems(found: Found, sc: Scenario) -> None:
    """A scenario the kinds refuse (an odd Auto-Correlation length, a conv of another width) as one line."""
    from attention.compute.check import problems
    from attention.datamodel.problem import render_lines

    errs = problems(sc, check_values=False)
    if errs:
        raise CheckpointError("models.error.tsl_problem", name=found.name, problem=render_lines(errs)[0])
