"""From a weights file to a Scenario: choose a layer, a head count and inputs; every refusal one line.

`main.py layers/import` and the window's File ▸ Import layer… both go through here, so the CLI
and the dialog list the same layers, pick the same defaults and refuse with the same words.

    source, layers = open_layers("model.safetensors")
    found = choose(source, layers, "encoder.layer.3.attention")
    scenario = import_layer(source, found, heads=12)   # inputs: seeded random, 6 tokens
"""
from __future__ import annotations

import dataclasses
import math
from typing import Optional

import numpy as np

from attention import numbers, words
from attention.models.checkpoint import CheckpointError, Notice, TensorSource, human_size, open_source
from attention.models.json_file import NAME_CHARS
from attention.models.layer import to_scenario
from attention.models.recognise import Found, find_layers, read_layer
from attention.problem import elide
from attention.scenario import Scenario

#: Generated inputs: a handful of tokens, standard-normal features (as after a LayerNorm).
DEFAULT_TOKENS = 6
DEFAULT_SEED = 0


def open_layers(path, notice: Optional[Notice] = None) -> tuple[TensorSource, list[Found]]:
    """Open a file or folder and list its attention layers (names and shapes only; nothing read)."""
    source = open_source(path, notice)
    return source, find_layers(source)


def list_header(source: TensorSource, count: int, lang: Optional[str] = None) -> str:
    """The line above a file's layers ("model.pt: 1 attention layer (PyTorch state dict)"): English
    needs a singular form; Chinese has none, so both its ids read the same."""
    key = "models.list.header_one" if count == 1 else "models.list.header"
    kind = words.text(f"models.kind.{source.kind}", lang, **getattr(source, "kind_args", {}))
    return words.text(key, lang, path=source.path.name, count=count, kind=kind)


def nothing_found(source: TensorSource) -> CheckpointError:
    keys = source.keys()
    first = ", ".join(elide(k, NAME_CHARS) for k in keys[:3]) + (", …" if len(keys) > 3 else "")
    return CheckpointError("models.error.no_layers", path=source.path.name, count=len(keys), first=first or "-")


def choose(source: TensorSource, layers: list[Found], name: Optional[str]) -> Found:
    """The layer `name` names (its listed name, with or without `module.`, or its list index);
    without a name, the only importable layer there is."""
    if not layers:
        raise nothing_found(source)
    if name is None:
        usable = [f for f in layers if f.supported]
        if len(usable) == 1:
            return usable[0]
        if not usable:
            only = layers[0]
            raise CheckpointError("models.error.unsupported", name=only.name, reason=only.reason())
        raise CheckpointError("models.error.choose_layer", path=source.path.name, count=len(usable))
    wanted = name.strip()
    wanted = wanted[len("module."):] if wanted.startswith("module.") else wanted
    match = next((f for f in layers if f.name == wanted), None)
    if match is None and wanted.isdigit() and int(wanted) < len(layers):
        match = layers[int(wanted)]
    if match is None:
        names = ", ".join(elide(f.name, NAME_CHARS) for f in layers[:6]) + (", …" if len(layers) > 6 else "")
        raise CheckpointError("models.error.no_such_layer", name=elide(name, NAME_CHARS), path=source.path.name,
                              names=names)
    if not match.supported:
        raise CheckpointError("models.error.unsupported", name=match.name, reason=match.reason())
    return match


def heads_for(found: Found, heads: Optional[int]) -> int:
    """The head count to use: the one asked for, else the file's; one line if neither fits."""
    choices = found.head_choices()
    if heads is None:
        if found.n_heads is None:
            raise CheckpointError("models.error.heads_needed", name=found.name, choices=_list(choices))
        return found.n_heads
    if heads not in choices and found.extra.get("heads_fixed"):
        raise CheckpointError("models.error.heads_fixed", heads=heads, name=found.name, fixed=found.n_heads)
    if heads not in choices:
        raise CheckpointError("models.error.heads_bad", heads=heads, name=found.name, choices=_list(choices))
    return heads


def generated_inputs(found: Found, tokens: int = DEFAULT_TOKENS, seed: int = DEFAULT_SEED) -> dict[str, np.ndarray]:
    """Seeded standard-normal inputs of the widths the layer takes: (1, tokens, width) each.
    Self-attention gets one sequence for queries, keys and values; cross-attention (or kdim/vdim)
    a second, two tokens longer, for keys and values."""
    import torch

    g = torch.Generator().manual_seed(int(seed))
    w = found.widths()
    queries = torch.randn(1, tokens, w["queries"], generator=g, dtype=torch.float64).numpy()
    if not found.cross:
        return {"queries": queries, "keys": queries, "values": queries}
    S = tokens + 2
    if w["keys"] == w["values"]:
        memory = torch.randn(1, S, w["keys"], generator=g, dtype=torch.float64).numpy()
        return {"queries": queries, "keys": memory, "values": memory}
    return {"queries": queries, "keys": torch.randn(1, S, w["keys"], generator=g, dtype=torch.float64).numpy(),
            "values": torch.randn(1, S, w["values"], generator=g, dtype=torch.float64).numpy()}


def check_tokens(found: Found, heads: int, tokens: int) -> None:
    """Refuse a token count whose trace could not fit in memory, from the shapes alone, before any
    input is generated (`--tokens 100000000` ran 37 s into a MemoryError)."""
    from attention.scenario import memory_limit

    limit = memory_limit()
    need = _trace_bytes(found, heads, tokens)
    if need <= limit:
        return
    low, high = 1, tokens  # the largest count that fits: need grows with tokens
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if _trace_bytes(found, heads, mid) <= limit else (low, mid - 1)
    raise CheckpointError("models.error.tokens_many", got=f"{tokens:,}", size=human_size(need),
                          free=human_size(limit), most=f"{low:,}")


def _trace_bytes(found: Found, heads: int, tokens: int) -> int:
    """attention.scenario's estimate of the trace of this layer on `tokens` generated tokens."""
    from attention.scenario import estimate_trace_bytes

    w = found.widths()
    S = tokens + 2 if found.cross else tokens
    dk, dv = found.shapes["query.weight"][0] // heads, found.shapes["value.weight"][0] // heads
    return estimate_trace_bytes(1, tokens, S, heads, dk, dv, w["queries"], w["keys"], w["values"],
                                found.shapes["out.weight"][0])


def inputs_from(found: Found, scenario: Scenario, where: str) -> dict:
    """Queries/keys/values (and tokens, valid lengths) of another scenario, if their widths fit."""
    w = found.widths()
    for field, arr in (("queries", scenario.queries), ("keys", scenario.keys), ("values", scenario.values)):
        if arr.shape[-1] != w[field]:
            raise CheckpointError("models.error.inputs_width", path=where, field=field, got=arr.shape[-1],
                                  name=found.name, want=w[field])
    return {"queries": scenario.queries, "keys": scenario.keys, "values": scenario.values,
            "valid_lens": scenario.valid_lens, "query_tokens": scenario.query_tokens,
            "key_tokens": scenario.key_tokens}


def import_layer(source: TensorSource, found: Found, heads: Optional[int] = None, inputs: Optional[dict] = None,
                 tokens: int = DEFAULT_TOKENS, seed: int = DEFAULT_SEED, inputs_name: Optional[str] = None) -> Scenario:
    """The scenario running `found` with its real weights (only its tensors are read)."""
    H = heads_for(found, heads)
    given = inputs is not None
    if not given:
        check_tokens(found, H, tokens)
    inputs = dict(inputs) if given else generated_inputs(found, tokens, seed)
    if found.extra.get("decoder"):
        return _decoder_scenario(source, found, inputs, seed, inputs_name if given else None)
    layer = read_layer(source, found)
    file_name = source.path.name
    args = {"file": file_name, "layer": found.name, "heads": H}
    family = {lang: words.text(f"models.family.{found.family}", lang) for lang in words.LANGS}
    n_tokens = inputs["queries"].shape[1]
    how = {lang: (words.text("models.notes.inputs_given", lang, path=inputs_name or "") if given
                  else words.text("models.notes.inputs_random", lang, seed=seed, tokens=n_tokens))
           for lang in words.LANGS}
    sc = to_scenario(
        layer, inputs["queries"], inputs["keys"], inputs["values"], n_heads=H,
        valid_lens=inputs.get("valid_lens"), query_tokens=inputs.get("query_tokens"),
        key_tokens=inputs.get("key_tokens"),
        title={lang: words.text("models.title", lang, **args) for lang in words.LANGS},
        notes={lang: words.text("models.notes", lang, family=family[lang], inputs=how[lang], **args)
               for lang in words.LANGS},
    )
    scale = gpt2_scale(found, H)
    return dataclasses.replace(sc, scale=scale) if scale is not None else sc


def _decoder_scenario(source: TensorSource, found: Found, inputs: dict, seed: int,
                      inputs_name: Optional[str]) -> Scenario:
    """A Hugging Face decoder layer (families.py) with its kinds as the scenario's parts: self-attention on
    the queries of `inputs` (a decoder layer reads one sequence), positions 0..L-1."""
    from attention.models import families, family_scenario

    d = families.read_attention(source, found.extra["layer_index"])
    n_tokens = inputs["queries"].shape[1]
    args = {"file": source.path.name, "layer": found.name, "heads": d.n_heads}
    notes = {}
    for lang in words.LANGS:
        how = (words.text("models.notes.inputs_given", lang, path=inputs_name) if inputs_name is not None
               else words.text("models.notes.inputs_random", lang, seed=seed, tokens=n_tokens))
        said = [words.text("models.notes", lang, family=words.text(f"models.family.{found.family}", lang),
                           inputs=how, **args),
                words.text("models.notes.kinds", lang, kinds=", ".join(kind_facts(found, lang)))]
        if d.residual_added:
            said.append(words.text("models.notes.residual", lang))
        notes[lang] = " ".join(said)
    return family_scenario.to_scenario(
        d, inputs["queries"], valid_lens=inputs.get("valid_lens"), query_tokens=inputs.get("query_tokens"),
        title={lang: words.text("models.title", lang, **args) for lang in words.LANGS}, notes=notes)


def kind_facts(found: Found, lang: Optional[str] = None) -> list[str]:
    """What a decoder layer's scenario will hold, in words: shared key/value heads, RoPE, QK-norm, ALiBi,
    soft-cap, window, a scale other than 1/sqrt(head_dim) ([] for other layers)."""
    facts = found.extra.get("facts")
    if not facts:
        return []
    out = []
    if facts["n_kv_heads"] != facts["n_heads"]:
        one = facts["n_kv_heads"] == 1
        out.append(words.text("models.list.kv_one" if one else "models.list.kv_heads", lang, kv=facts["n_kv_heads"]))
    rope = facts["rope"]
    if rope is not None:
        pairing = words.text(f"field.rope.pairing.{rope.pairing}", lang)
        out.append(words.text("models.list.rope", lang, base=numbers.whole(rope.base), dims=rope.rotary_dims,
                              dim=facts["head_dim"], pairing=pairing))
        if rope.rope_type != "default":
            out.append(words.text("models.list.rope_scaled", lang, type=rope.rope_type,
                                  factor=numbers.rounded(rope.factor)))
    if facts["qk_norm"]:
        out.append(words.text("models.list.qk_norm", lang, style="1 + w" if facts["family"] == "gemma3" else "w"))
    if facts["alibi"]:
        out.append(words.text("models.list.alibi", lang))
    if facts["softcap"] is not None:
        out.append(words.text("models.list.softcap", lang, cap=numbers.rounded(facts['softcap'])))
    if facts["window"] is not None:
        out.append(words.text("models.list.window", lang, size=facts["window"]))
    if not math.isclose(facts["scale"], facts["head_dim"] ** -0.5, rel_tol=1e-12):
        out.append(words.text("models.list.scale", lang, scale=numbers.rounded(facts['scale'])))
    return out


def gpt2_scale(found: Found, heads: int) -> Optional[float]:
    """GPT-2's config can turn the 1/sqrt(d) scale off or divide it by the layer number; None = default."""
    extra = found.extra
    if found.family != "gpt2" or (extra.get("scaled", True) and not extra.get("by_layer", False)):
        return None
    head_dim = found.shapes["query.weight"][0] // heads
    scale = 1.0 / math.sqrt(head_dim) if extra.get("scaled", True) else 1.0
    return scale / (extra.get("layer_index", 0) + 1) if extra.get("by_layer", False) else scale


def _list(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)
