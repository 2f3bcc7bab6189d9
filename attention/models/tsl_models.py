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
| Crossformer | `*.router` beside `time_attention`, `dim_sender`, `dim_receiver` | the three stages; TSA listed |
| PatchTST | `patch_embedding.value_embedding.weight` (d_model, patch_len) | patch token labels |
| iTransformer | `enc_embedding.value_embedding.weight` (d_model, seq_len), no tokenConv | variate token labels |
| Informer | `encoder.conv_layers.*.downConv` (distilling) or the setting's name | whole encoder layers use ProbSparse |

In a file whose model is told, every TSL EncoderLayer (`P.attention.*` + `P.conv1`, `P.conv2`, `P.norm1`,
`P.norm2`) is also listed whole ("tsl_encoder"): its attention plus the encoder_layer part
(attention/kinds/tsl_encoder.py).  TSL's plain Transformer is told only by a saved config or the
setting's folder name (its keys are Informer's without distilling).

τ and Δ (Non-stationary) are computed from the raw series at each forward, so a state dict cannot
hold them: the scenario uses τ = 1, Δ = 0 and its notes say so (attention.capture records real ones).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Optional

import numpy as np

from attention import time_labels, words
from attention.kinds import autocorrelation as ac
from attention.kinds import ds_attention as ds
from attention.kinds.prob_sparse import PROB_SPARSE
from attention.models.checkpoint import CheckpointError, TensorSource
from attention.models.layer import to_scenario
from attention.models.recognise import Found, read_layer
from attention.parts import Part
from attention.scenario import Scenario

DS, AUTOCORR, ENCODER, TWO_STAGE, FOURIER = "tsl_ds", "tsl_autocorr", "tsl_encoder", "tsl_two_stage", "tsl_fourier"
#: families this module imports (recognise.py's "tsl" stays importing.py's)
FAMILIES = (DS, AUTOCORR, ENCODER)
STAGES = ("time_attention", "dim_sender", "dim_receiver")
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
                out.append(Found(_name(parent), TWO_STAGE, {}, {}, {"router": source.shape(f"{parent}.router")},
                                 reasons=(("models.reason.tsl_two_stage", ()),), extra={"model": model}))
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


def _name(prefix: str) -> str:
    return prefix[len("module."):] if prefix.startswith("module.") else prefix


def _attention(source: TensorSource, f: Found, model: Optional[str], prefix: str, extra: dict) -> Found:
    if model == "Nonstationary_Transformer":
        return dataclasses.replace(f, family=DS, extra=extra)
    if model == "FEDformer":
        return dataclasses.replace(f, family=FOURIER, reasons=(("models.reason.tsl_fourier", ()),), extra=extra)
    if model == "Autoformer":
        extra["factor"] = float(_setting(source, "factor", DEFAULT_FACTOR))
        # AutoCorrelation(mask_flag=True) masks nothing; keys are aligned to the queries' length
        return dataclasses.replace(f, family=AUTOCORR, causal=False, cross=False, extra=extra)
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
    bad = _encoder_shape_problem(source, parent, f.shapes["out.weight"][0])
    return dataclasses.replace(f, name=_name(parent), family=ENCODER, extra=extra,
                               reasons=(bad,) if bad else f.reasons)


def _encoder_shape_problem(source: TensorSource, parent: str, d: int) -> Optional[tuple]:
    """The reason (naming the tensor) when the layer's convs and norms do not chain with d_model `d`
    (read from the header, before any tensor)."""
    conv1 = source.shape(f"{parent}.conv1.weight")
    d_ff = conv1[0] if conv1 else 0
    want = {"conv1.weight": (d_ff, d, 1), "conv1.bias": (d_ff,), "conv2.weight": (d, d_ff, 1), "conv2.bias": (d,),
            "norm1.weight": (d,), "norm1.bias": (d,), "norm2.weight": (d,), "norm2.bias": (d,)}
    for name, shape in want.items():
        got = tuple(source.shape(f"{parent}.{name}"))
        if got != shape:
            return ("models.reason.tsl_shape", (("tensor", f"{_name(parent)}.{name}"), ("shape", _text(got)),
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
    return out


# ---- importing --------------------------------------------------------------------------------------

def generated_inputs(source: TensorSource, found: Found, tokens: int, seed: int) -> dict[str, np.ndarray]:
    """Seeded standard-normal inputs; Crossformer's dim_sender takes the file's own router (segment 1)
    as its queries, dim_receiver reads `factor` router slots; Auto-Correlation is self-attention."""
    import torch

    g = torch.Generator().manual_seed(int(seed))
    d = found.widths()["queries"]
    x = torch.randn(1, tokens, d, generator=g, dtype=torch.float64).numpy()
    stage = found.extra.get("stage")
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
                 inputs_name: Optional[str]) -> Scenario:
    """The scenario of a TSL layer of these families (and a plain one with TSL token labels)."""
    given = inputs is not None
    inputs = dict(inputs) if given else generated_inputs(source, found, tokens, seed)
    layer = read_layer(source, found)
    args = {"file": source.path.name, "layer": found.name, "heads": heads}
    n = inputs["queries"].shape[1]
    q_tokens, k_tokens = (inputs.get("query_tokens"), inputs.get("key_tokens")) if given else \
        token_labels(found, n, inputs["keys"].shape[1])
    notes = {}
    for lang in words.LANGS:
        how = (words.text("models.notes.inputs_given", lang, path=inputs_name or "") if given
               else words.text("models.notes.inputs_random", lang, seed=seed, tokens=n))
        said = [words.text("models.notes", lang, family=words.text(f"models.family.{found.family}", lang),
                           inputs=how, **args)]
        notes[lang] = " ".join(said + _family_notes(found, lang))
    sc = to_scenario(layer, inputs["queries"], inputs["keys"], inputs["values"], n_heads=heads,
                     valid_lens=inputs.get("valid_lens"), query_tokens=q_tokens, key_tokens=k_tokens,
                     title={lang: words.text("models.title", lang, **args) for lang in words.LANGS}, notes=notes)
    sc = dataclasses.replace(sc, **_family_options(source, found, sc))
    _refuse_problems(found, sc)
    return sc


def _family_notes(found: Found, lang: str) -> list[str]:
    e = found.extra
    inner = e.get("inner")
    out = []
    if found.family == DS or inner == "ds":
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
    if e.get("stage") == "dim_sender":
        out.append(words.text("models.notes.tsl_router", lang))
    elif e.get("stage"):
        out.append(words.text("models.notes.tsl_stage", lang, stage=e["stage"]))
    return out


def _family_options(source: TensorSource, found: Found, sc: Scenario) -> dict:
    """The scenario fields that make it this family: scoring, parts (τ/Δ, lags, the encoder layer)."""
    e = found.extra
    inner = e.get("inner")
    mods: list[Part] = []
    opts: dict[str, Any] = {}
    if found.family == DS or inner == "ds":
        opts["scoring"] = ds.NAME
        mods.append(Part(ds.PART, {"tau": np.ones(sc.batch), "delta": np.zeros((sc.batch, sc.S))}))
    if found.family == AUTOCORR:
        opts["scoring"] = ac.NAME
        mods.append(Part(ac.NAME, {"factor": float(e["factor"]), "path": "inference"}))
    if inner == "prob":
        opts.update(scoring=PROB_SPARSE.name, factor=int(e["factor"]), mix=True)
    if found.family == ENCODER:
        mods.append(_encoder_part(source, found))
    if mods:
        opts["modifiers"] = tuple(mods)
    return opts


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
    from attention.problem import render_lines
    from attention.scenario import problems

    errs = problems(sc, check_values=False)
    if errs:
        raise CheckpointError("models.error.tsl_problem", name=found.name, problem=render_lines(errs)[0])
