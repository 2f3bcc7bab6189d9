"""From a weights file to a Scenario: choose a layer, a head count and inputs; every refusal one line.

`main.py layers/import` and the window's File ▸ Import layer… both go through here, so the CLI
and the dialog list the same layers, pick the same defaults and refuse with the same words.

    source, layers = open_layers("model.safetensors")
    found = choose(source, layers, "encoder.layer.3.attention")
    scenario = import_layer(source, found, heads=12)   # inputs: seeded random, 6 tokens

A Time-Series-Library AttentionLayer's file cannot say which inner attention it ran (FullAttention and
ProbAttention have no weights): `asks_inner(found)` says the caller must ask, and `Inner` carries the
answer (`--scoring prob_sparse --factor F --mix`, or the dialog's choice).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

import attention.words as words
from attention.datamodel import numbers
from attention.datamodel.problem import elide
from attention.datamodel.scenario import Scenario
from attention.kinds.dot_product import SCALED_DOT
from attention.kinds.prob_sparse import PROB_SPARSE as PROB_SPARSE_KIND
from attention.models import tsl_models
from attention.models.checkpoint import CheckpointError, Notice, TensorSource, human_size
from attention.models.json_file import NAME_CHARS
from attention.models.layer import to_scenario
from attention.models.readers import open_source
from attention.models.recognise import Found, find_layers, read_layer
from attention.registry import kinds

#: Generated inputs: a handful of tokens, standard-normal features (as after a LayerNorm).
DEFAULT_TOKENS = 6
DEFAULT_SEED = 0
#: TSL's inner attentions as the engine's scoring kinds: FullAttention, ProbAttention.
FULL, PROB_SPARSE = SCALED_DOT.name, PROB_SPARSE_KIND.name
INNER_SCORINGS = (FULL, PROB_SPARSE)


@dataclass(frozen=True)
class Inner:
    """The inner attention a Time-Series-Library AttentionLayer ran, as the person answered.

    FullAttention is the scaled dot product; ProbAttention (Informer) is the prob_sparse kind with its
    factor c and `mix`: TSL's ProbAttention returns its context as (B, H, L, D) and AttentionLayer views
    it as (B, L, H·D) without a transpose, so TSL always mixes (Informer2020's encoder does not)."""

    scoring: str = FULL
    factor: int = 1  # TSL run.py's --factor default; ProbAttention only
    mix: bool = True  # ProbAttention only

    @property
    def sparse(self) -> bool:
        """ProbAttention: the prob_sparse kind, whose factor and mix apply."""
        return kinds.known_scoring(self.scoring) and kinds.scoring(self.scoring) is PROB_SPARSE_KIND


def asks_inner(found: Found) -> bool:
    """True where the file cannot say which inner attention ran (a TSL AttentionLayer)."""
    return found.family == "tsl"


def open_layers(path, notice: Optional[Notice] = None) -> tuple[TensorSource, list[Found]]:
    """Open a file or folder and list its attention layers (names and shapes only; nothing read)."""
    source = open_source(path, notice)
    return source, find_layers(source, tsl_models.refine)


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
    if match is None and wanted.isdigit():  # its place in `main.py layers`' list, counted from 1 as a person counts
        if not 1 <= int(wanted) <= len(layers):
            raise CheckpointError("models.error.layer_position", got=wanted, path=source.path.name, count=len(layers))
        match = layers[int(wanted) - 1]
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
    from attention.compute.check import memory_limit

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
    """attention.datamodel.scenario's estimate of the trace of this layer on `tokens` generated tokens."""
    from attention.compute.check import estimate_trace_bytes

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
                 tokens: int = DEFAULT_TOKENS, seed: int = DEFAULT_SEED, inputs_name: Optional[str] = None,
                 inner: Optional[Inner] = None, destationary: Optional[dict] = None) -> Scenario:
    """The scenario running `found` with its real weights (only its tensors are read).

    `inner`: for a TSL AttentionLayer, the inner attention it ran (None: FullAttention, as before the
    person was asked); its ProbAttention key sample is drawn from `seed`.
    `destationary`: τ and Δ for a DSAttention layer (tsl_models.destationary_problem's values; None: 1 and 0)."""
    H = heads_for(found, heads)
    if inner is not None:
        check_inner(found, inner, seed)
    given = inputs is not None
    if not given:
        check_tokens(found, H, tsl_models.token_count(found, tokens))
    if found.family in tsl_models.FAMILIES or found.extra.get("stage"):  # TSL kinds, Crossformer stages
        return tsl_models.import_layer(source, found, H, inputs if given else None, tokens, seed, inputs_name,
                                       destationary)
    inputs = dict(inputs) if given else generated_inputs(found, tokens, seed)
    if inner is not None and inner.sparse:
        check_prob_sparse_inputs(found, inputs, inputs_name)
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
    sc = dataclasses.replace(sc, scale=scale) if scale is not None else sc
    sc = with_inner(sc, inner, seed) if asks_inner(found) else sc
    return sc if given else tsl_models.labelled(found, sc)  # PatchTST patches, iTransformer variates


def check_inner(found: Found, inner: Inner, seed: int) -> None:
    """The answer fits the layer: only a TSL AttentionLayer has an inner attention to choose; ProbAttention's
    factor is 1 or more and its key sample's seed a scenario seed."""
    from attention.datamodel.fields import INT_MAX

    if inner.scoring not in INNER_SCORINGS or (inner.sparse and not asks_inner(found)):
        raise CheckpointError("inner.error.family", scoring=inner.scoring, name=found.name)
    if not inner.sparse:
        return
    if isinstance(inner.factor, bool) or not isinstance(inner.factor, int) or not 1 <= inner.factor <= INT_MAX:
        raise CheckpointError("inner.error.factor", most=INT_MAX, got=inner.factor)
    if not 0 <= int(seed) <= INT_MAX:
        raise CheckpointError("inner.error.seed", got=seed, most=INT_MAX)


def check_prob_sparse_inputs(found: Found, inputs: dict, inputs_name: Optional[str]) -> None:
    """ProbAttention needs 2+ queries and keys, no padding mask, and (causal) as many keys as queries."""
    L, S = inputs["queries"].shape[1], inputs["keys"].shape[1]
    if L < 2 or S < 2:
        raise CheckpointError("inner.error.tokens", L=L, S=S)
    if inputs.get("valid_lens") is not None:
        raise CheckpointError("inner.error.valid_lens", path=inputs_name or "")
    if found.causal and L != S:
        raise CheckpointError("inner.error.causal", name=found.name, L=L, S=S)


def with_inner(sc: Scenario, inner: Optional[Inner], seed: int) -> Scenario:
    """A TSL layer's scenario with the inner attention chosen (None: FullAttention), said in its notes."""
    if inner is not None and inner.sparse:
        sc = dataclasses.replace(sc, scoring=PROB_SPARSE, factor=int(inner.factor), mix=bool(inner.mix),
                                 seed=int(seed))
    notes = {lang: f"{sc.notes.get(lang, '')} {inner_note(inner, int(seed), lang)}".strip() for lang in words.LANGS}
    return dataclasses.replace(sc, notes=notes)


def inner_note(inner: Optional[Inner], seed: int, lang: Optional[str] = None) -> str:
    """The imported scenario's sentence on its inner attention (None: not asked, FullAttention assumed)."""
    if inner is None:
        return words.text("inner.notes.assumed", lang)
    if not inner.sparse:
        return words.text("inner.notes.full", lang)
    mix = words.text("inner.notes.mixed" if inner.mix else "inner.notes.unmixed", lang)
    return words.text("inner.notes.prob", lang, factor=inner.factor, mix=mix, seed=seed)


def inner_short(inner: Inner, lang: Optional[str] = None) -> str:
    """'ProbAttention (factor 3, heads and positions mixed)' for the CLI's line after the import."""
    if not inner.sparse:
        return words.text("inner.short.full", lang)
    mix = words.text("inner.short.mixed" if inner.mix else "inner.short.unmixed", lang)
    return words.text("inner.short.prob", lang, factor=inner.factor, mix=mix)


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
    if found.extra.get("model"):  # a Time-Series-Library model's layer
        return tsl_models.facts(found, lang)
    if not facts:
        return []
    out = []
    if facts["n_kv_heads"] != facts["n_heads"]:
        one = facts["n_kv_heads"] == 1
        out.append(words.text("models.list.kv_one" if one else "models.list.kv_heads", lang, kv=facts["n_kv_heads"]))
    rope = facts["rotary"]
    if rope is not None:
        pairing = words.text(f"field.rope.pairing.{rope.pairing}", lang)
        out.append(words.text("models.list.rope", lang, base=numbers.whole(rope.base), dims=rope.rotary_dims,
                              dim=facts["head_dim"], pairing=pairing))
        if rope.rope_type != "default":
            out.append(words.text("models.list.rope_scaled", lang, type=rope.rope_type,
                                  factor=numbers.rounded(rope.factor)))
    if facts["normed_qk"]:
        out.append(words.text("models.list.qk_norm", lang, style="1 + w" if facts["family"] == "gemma3" else "w"))
    if facts["linear_bias"]:
        out.append(words.text("models.list.alibi", lang))
    if facts["logit_cap"] is not None:
        out.append(words.text("models.list.softcap", lang, cap=numbers.rounded(facts["logit_cap"])))
    if facts["sliding_window"] is not None:
        out.append(words.text("models.list.window", lang, size=facts["sliding_window"]))
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
