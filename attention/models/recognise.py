"""Which attention layers a weights file holds, told by key pattern and shape alone.

`find_layers(source)` reads only names and shapes (for safetensors: the header) and returns one
`Found` per attention layer, in file order.  `read_layer(source, found)` then reads just that
layer's tensors and maps them onto `LayerWeights` (nn.Linear layout, weight (out, in)).

Families (the prefix before each pattern is free: `module.`, `bert.`, `model.`, `state_dict.` …):

- Time-Series-Library AttentionLayer: `P.{query,key,value,out}_projection.{weight,bias}`
  (encoder `encoder.attn_layers.i.attention`, decoder `decoder.layers.i.{self,cross}_attention`;
  decoder self-attention is causal, as TSL's FullAttention(mask_flag=True) there).
- nn.MultiheadAttention: `P.in_proj_weight` (3E, E) packed q|k|v and `P.in_proj_bias`, or
  `P.{q,k,v}_proj_weight` (kdim/vdim), with `P.out_proj.{weight,bias}`.
- BERT family: `P.attention.self.{query,key,value}` + `P.attention.output.dense`; DistilBERT's
  `P.attention.{q,k,v,out}_lin`.
- GPT-2: `P.c_attn` in Conv1D layout (in, out) = (E, 3E) fused q|k|v, `P.c_proj` (E, E); causal.

- Hugging Face decoders whose config.json names their family (attention/models/families.py: Llama,
  Mistral, Qwen2/3, Gemma 2/3, GPT-NeoX, Phi, BLOOM, Falcon): described from the config and tensor
  names (`extra["facts"]`), read and mapped at import by attention/models/family_scenario.py.

Layers the engine cannot reproduce exactly are listed with the reason (a catalogue key), never
imported: without a config, Llama-style `q_proj/k_proj/v_proj/o_proj` (rotary positions; grouped-query
attention when k/v are narrower than q), fused `query_key_value` (GPT-NeoX/Falcon rotary, BLOOM ALiBi),
T5 `SelfAttention/EncDecAttention.{q,k,v,o}` (relative-position bias), BERT with relative
positions or RoFormer's rotary, and nn.MultiheadAttention with add_bias_kv.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Optional

import attention.words as words
from attention.datamodel.problem import Phrase
from attention.models.checkpoint import TensorSource
from attention.models.layer import ROLES, LayerWeights

#: config.json / checkpoint entries that give the head count, in the order they are trusted.
HEAD_KEYS = ("num_attention_heads", "n_head", "n_heads", "num_heads", "nhead", "n_heads_attn")
#: Hugging Face model types whose attention uses rotary position embeddings.
ROTARY_TYPES = {"llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3", "phi3", "gpt_neox",
                "gptj", "falcon", "roformer", "olmo", "olmo2", "stablelm", "starcoder2", "cohere", "persimmon",
                "phi", "codegen", "esm", "deepseek_v2", "deepseek_v3", "granite", "internlm2", "smollm3"}
ALIBI_TYPES = {"bloom", "mpt", "baichuan"}
RELATIVE_POSITIONS = {"relative_key", "relative_key_query"}


@dataclass(frozen=True)
class Part:
    """Where one weight or bias lives: a tensor name, and which slice of it (fused layouts)."""

    key: str
    start: Optional[int] = None  # slice along the output axis (packed q|k|v)
    stop: Optional[int] = None
    conv1d: bool = False  # stored (in, out): slice the columns, then transpose to (out, in)


@dataclass(frozen=True)
class Found:
    """One attention layer as the file holds it: enough to list it, and to read it later."""

    name: str  # as `main.py import --layer` takes it (a `module.` prefix dropped)
    family: str  # "tsl", "mha", "bert", "gpt2"; for unsupported ones "llama", "t5", "fused"
    weights: dict[str, Part]  # role -> the weight's Part (empty for unsupported layers)
    biases: dict[str, Part]
    shapes: dict[str, tuple[int, ...]]  # "query.weight" -> (out, in) (nn.Linear layout); or raw keys
    n_heads: Optional[int] = None  # from config.json / the checkpoint's own config, if it says
    causal: bool = False
    cross: bool = False  # keys/values come from another sequence (decoder cross-attention, kdim/vdim)
    reasons: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()  # catalogue keys + args
    extra: dict = field(default_factory=dict)  # scale facts (GPT-2), layer index

    @property
    def supported(self) -> bool:
        return not self.reasons

    def reason(self, lang: Optional[str] = None) -> str:
        """Why it cannot be imported, in words ('' when it can)."""
        from attention.datamodel.problem import rendered

        sep = "；" if words.normalize(lang) == "zh" else "; "
        return sep.join(words.text(key, lang, **rendered(dict(args), lang)) for key, args in self.reasons)

    @property
    def d_model(self) -> int:
        return self.shapes["query.weight"][1]

    def widths(self) -> dict[str, int]:
        """Input widths of queries, keys, values (they differ for kdim/vdim attention)."""
        return {"queries": self.shapes["query.weight"][1], "keys": self.shapes["key.weight"][1],
                "values": self.shapes["value.weight"][1]}

    def head_choices(self) -> list[int]:
        if self.extra.get("heads_fixed"):  # a decoder family's query and key/value heads come from its config
            return [self.n_heads] if self.n_heads else []
        dk, dv = self.shapes["query.weight"][0], self.shapes["value.weight"][0]
        return [h for h in range(1, dk + 1) if dk % h == 0 and dv % h == 0]

    def shape_text(self) -> str:
        """'query (64, 32) + bias, key (64, 32) + bias, …' for lists and dialogs."""
        if not self.supported:
            return ", ".join(f"{k} {_shape(s)}" for k, s in self.shapes.items())
        parts = []
        for role in ROLES:
            bias = f"+{self.shapes[role + '.bias'][0]}" if role + ".bias" in self.shapes else ""
            parts.append(f"{role} {_shape(self.shapes[role + '.weight'])}{bias}")
        return ", ".join(parts)


def _shape(s: tuple[int, ...]) -> str:
    return "(" + "×".join(str(n) for n in s) + ")"


# ---- finding ------------------------------------------------------------------------------------

_OPT = r"^(?:(?P<p>.*)\.)?"
_PATTERNS: dict[str, re.Pattern] = {
    "tsl": re.compile(_OPT + r"(?P<r>query|key|value|out)_projection\.(?P<t>weight|bias)$"),
    "mha": re.compile(_OPT + r"(?P<r>in_proj_weight|in_proj_bias|q_proj_weight|k_proj_weight|v_proj_weight"
                             r"|out_proj\.weight|out_proj\.bias|bias_k|bias_v)$"),
    "bert": re.compile(_OPT + r"attention\.(?P<r>self\.query|self\.key|self\.value|output\.dense"
                              r"|self\.distance_embedding|q_lin|k_lin|v_lin|out_lin)\.(?P<t>weight|bias)$"),
    "gpt2": re.compile(_OPT + r"(?P<r>c_attn|c_proj)\.(?P<t>weight|bias)$"),
    "llama": re.compile(_OPT + r"(?P<r>q_proj|k_proj|v_proj|o_proj)\.(?P<t>weight|bias)$"),
    "fused": re.compile(_OPT + r"(?P<r>query_key_value|Wqkv)\.(?P<t>weight|bias)$"),
    "t5": re.compile(_OPT + r"(?P<blk>SelfAttention|EncDecAttention)\.(?P<r>q|k|v|o|relative_attention_bias)\.weight$"),
}


#: (source, layers found) -> the layers as a family module reads them (tsl_models.refine)
Refine = Callable[[TensorSource, list["Found"]], list["Found"]]


def find_layers(source: TensorSource, refine: Optional[Refine] = None) -> list[Found]:
    """Every attention layer in the file: in module order for a torch state dict, in natural name
    order (layer 2 before layer 10) where the file keeps no order (safetensors).  `refine`: a
    family module's closer reading of what was found (importing passes tsl_models.refine: which
    Time-Series-Library model, whole encoder layers), applied before the order is set."""
    groups: dict[tuple[str, str], dict[str, str]] = {}  # (family, prefix) -> {role tag: key}
    for key in source.keys():
        for family, pattern in _PATTERNS.items():
            m = pattern.match(key)
            if not m:
                continue
            prefix = m.group("p") or ""
            if family == "bert":
                prefix = f"{prefix}.attention" if prefix else "attention"
            if family == "t5":
                prefix = f"{prefix}.{m.group('blk')}" if prefix else m.group("blk")
            tag = m.group("r") + ("." + m.group("t") if "t" in m.groupdict() and m.group("t") else "")
            groups.setdefault((family, prefix), {})[tag] = key
            break
    heads = _configured_heads(source)
    found = _decoder_layers(source)  # Llama, Qwen, Gemma, GPT-NeoX, Phi, BLOOM, Falcon ... by their config
    taken = {f.extra["prefix"] for f in found}
    for (family, prefix), tags in groups.items():
        if prefix in taken:
            continue
        layer = _BUILDERS[family](source, prefix, tags, heads)
        if layer is not None:
            found.append(layer)
    if refine is not None:
        found = refine(source, found)
    if not source.ordered:  # safetensors list names alphabetically: layer 10 would come before layer 2
        found.sort(key=lambda f: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", f.name)])
    return found


def _display(prefix: str) -> str:
    name = prefix[len("module."):] if prefix.startswith("module.") else prefix
    return name or "attention"


def _configured_heads(source: TensorSource) -> Optional[int]:
    """The head count config.json (or a config dict saved beside the weights) states, if one."""
    for key in HEAD_KEYS:
        value = source.config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    seen = {v for k, v in source.values.items() if k.rsplit(".", 1)[-1] in HEAD_KEYS
            and isinstance(v, int) and not isinstance(v, bool) and v > 0}
    return seen.pop() if len(seen) == 1 else None


def _fits(heads: Optional[int], shapes: dict) -> Optional[int]:
    if heads is None:
        return None
    dk, dv = shapes["query.weight"][0], shapes["value.weight"][0]
    return heads if dk % heads == 0 and dv % heads == 0 else None


def _config_reasons(source: TensorSource) -> list[tuple[str, tuple]]:
    """Position schemes a Hugging Face config names that a plain scenario cannot express."""
    cfg = source.config
    kind = str(cfg.get("model_type", "")).lower()
    reasons = []
    rotary = "rope_theta" in cfg or "rotary_dim" in cfg or cfg.get("position_embedding_type") == "rotary"
    if kind in ROTARY_TYPES or rotary:
        reasons.append(("models.reason.rotary", ()))
    if kind in ALIBI_TYPES or cfg.get("alibi") or cfg.get("position_embedding_type") == "alibi":
        reasons.append(("models.reason.alibi", ()))
    if cfg.get("position_embedding_type") in RELATIVE_POSITIONS:
        reasons.append(("models.reason.relative", (("kind", str(cfg["position_embedding_type"])),)))
    return reasons


def _linear(source: TensorSource, tags: dict, names: dict[str, str]) -> Optional[tuple[dict, dict, dict]]:
    """Separate nn.Linear weights per role (`names`: role -> tag stem); None if any weight is missing."""
    weights, biases, shapes = {}, {}, {}
    for role in ROLES:
        wkey = tags.get(names[role] + ".weight")
        if wkey is None or len(source.shape(wkey)) != 2:
            return None
        weights[role] = Part(wkey)
        shapes[role + ".weight"] = source.shape(wkey)
        bkey = tags.get(names[role] + ".bias")
        if bkey is not None:
            biases[role] = Part(bkey)
            shapes[role + ".bias"] = source.shape(bkey)
    return weights, biases, shapes


def _shape_reasons(shapes: dict) -> list[tuple[str, tuple]]:
    """Widths that do not chain: q and k must agree, out must take v's width, biases their weight's."""
    q, k, v, o = (shapes[r + ".weight"] for r in ROLES)
    bad = []
    if q[0] != k[0]:
        bad.append(("models.reason.qk_width", (("q", str(q[0])), ("k", str(k[0])))))
    if o[1] != v[0]:
        bad.append(("models.reason.out_width", (("v", str(v[0])), ("o", str(o[1])))))
    for role in ROLES:
        b = shapes.get(role + ".bias")
        if b is not None and b != (shapes[role + ".weight"][0],):
            bad.append(("models.reason.bias_shape", (("role", role), ("shape", _shape(b)))))
    return bad


def _tsl(source, prefix, tags, heads) -> Optional[Found]:
    got = _linear(source, tags, {r: r for r in ROLES})
    if got is None:
        return None
    weights, biases, shapes = got
    leaf = prefix.rsplit(".", 1)[-1]
    decoder = ".decoder." in f".{prefix}." or prefix.startswith("decoder")
    return Found(_display(prefix), "tsl", weights, biases, shapes, _fits(heads, shapes),
                 causal=decoder and leaf == "self_attention", cross=leaf == "cross_attention",
                 reasons=tuple(_shape_reasons(shapes)))


def _mha(source, prefix, tags, heads) -> Optional[Found]:
    out_w = tags.get("out_proj.weight")
    if out_w is None:
        return None
    E = source.shape(out_w)[0]
    weights: dict[str, Part] = {"out": Part(out_w)}
    shapes: dict[str, tuple] = {"out.weight": source.shape(out_w)}
    if "in_proj_weight" in tags:
        packed = source.shape(tags["in_proj_weight"])
        if len(packed) != 2 or packed[0] != 3 * E:
            raw = {"in_proj_weight": packed, "out_proj.weight": shapes["out.weight"]}
            return Found(_display(prefix), "mha", {}, {}, raw,
                         reasons=(("models.reason.packed_shape", (("shape", _shape(packed)), ("e", str(E)))),))
        for i, role in enumerate(("query", "key", "value")):
            weights[role] = Part(tags["in_proj_weight"], i * E, (i + 1) * E)
            shapes[role + ".weight"] = (E, packed[1])
    elif all(f"{r}_proj_weight" in tags for r in "qkv"):
        for r, role in zip("qkv", ("query", "key", "value"), strict=True):
            weights[role] = Part(tags[f"{r}_proj_weight"])
            shapes[role + ".weight"] = source.shape(tags[f"{r}_proj_weight"])
    else:
        return None
    biases: dict[str, Part] = {}
    if "in_proj_bias" in tags:
        for i, role in enumerate(("query", "key", "value")):
            biases[role] = Part(tags["in_proj_bias"], i * E, (i + 1) * E)
            shapes[role + ".bias"] = (E,)
        if source.shape(tags["in_proj_bias"]) != (3 * E,):
            return None
    if "out_proj.bias" in tags:
        biases["out"] = Part(tags["out_proj.bias"])
        shapes["out.bias"] = source.shape(tags["out_proj.bias"])
    reasons = _shape_reasons(shapes)
    if "bias_k" in tags or "bias_v" in tags:
        reasons.append(("models.reason.bias_kv", ()))
    width = shapes["query.weight"][1]
    cross = shapes["key.weight"][1] != width or shapes["value.weight"][1] != width
    return Found(_display(prefix), "mha", weights, biases, shapes, _fits(heads, shapes), cross=cross,
                 reasons=tuple(reasons))


def _bert(source, prefix, tags, heads) -> Optional[Found]:
    if "self.query.weight" in tags:
        names = {"query": "self.query", "key": "self.key", "value": "self.value", "out": "output.dense"}
    else:
        names = {"query": "q_lin", "key": "k_lin", "value": "v_lin", "out": "out_lin"}
    got = _linear(source, tags, names)
    if got is None:
        return None
    weights, biases, shapes = got
    reasons = _shape_reasons(shapes) + _config_reasons(source)
    if "self.distance_embedding.weight" in tags and not any(k == "models.reason.relative" for k, _ in reasons):
        reasons.append(("models.reason.relative", (("kind", "distance_embedding"),)))
    return Found(_display(prefix), "bert", weights, biases, shapes, _fits(heads, shapes),
                 causal=bool(source.config.get("is_decoder", False)), reasons=tuple(reasons))


def _gpt2(source, prefix, tags, heads) -> Optional[Found]:
    if "c_attn.weight" not in tags or "c_proj.weight" not in tags:
        return None  # an MLP's c_fc/c_proj, not attention
    fused, proj = source.shape(tags["c_attn.weight"]), source.shape(tags["c_proj.weight"])
    if len(fused) != 2 or fused[1] != 3 * fused[0] or len(proj) != 2:
        return Found(_display(prefix), "gpt2", {}, {}, {"c_attn.weight": fused, "c_proj.weight": proj},
                     reasons=(("models.reason.conv1d_shape", (("shape", _shape(fused)),)),))
    E = fused[0]
    weights = {role: Part(tags["c_attn.weight"], i * E, (i + 1) * E, conv1d=True)
               for i, role in enumerate(("query", "key", "value"))}
    weights["out"] = Part(tags["c_proj.weight"], conv1d=True)
    shapes = {f"{role}.weight": (E, E) for role in ("query", "key", "value")}
    shapes["out.weight"] = (proj[1], proj[0])
    biases = {}
    if "c_attn.bias" in tags:
        biases = {role: Part(tags["c_attn.bias"], i * E, (i + 1) * E)
                  for i, role in enumerate(("query", "key", "value"))}
        shapes.update({f"{role}.bias": (E,) for role in ("query", "key", "value")})
    if "c_proj.bias" in tags:
        biases["out"] = Part(tags["c_proj.bias"])
        shapes["out.bias"] = source.shape(tags["c_proj.bias"])
    cfg = source.config
    index = re.search(r"(\d+)(?!.*\d)", prefix)
    extra = {"scaled": bool(cfg.get("scale_attn_weights", True)),
             "layer_index": int(index.group(1)) if index else 0,
             "by_layer": bool(cfg.get("scale_attn_by_inverse_layer_idx", False))}
    return Found(_display(prefix), "gpt2", weights, biases, shapes, _fits(heads, shapes), causal=True,
                 reasons=tuple(_shape_reasons(shapes) + _config_reasons(source)), extra=extra)


def _llama(source, prefix, tags, heads) -> Optional[Found]:
    if not all(f"{r}.weight" in tags for r in ("q_proj", "k_proj", "v_proj", "o_proj")):
        return None
    shapes = {tag: source.shape(key) for tag, key in tags.items()}
    reasons = [r for r in _config_reasons(source) if r[0] != "models.reason.relative"]
    if not reasons:
        reasons.append(("models.reason.rotary", ()))
    q, k = shapes["q_proj.weight"][0], shapes["k_proj.weight"][0]
    if k < q:
        reasons.append(("models.reason.gqa", (("k", str(k)), ("q", str(q)))))
    return Found(_display(prefix), "llama", {}, {}, shapes, heads, reasons=tuple(reasons))


def _fused(source, prefix, tags, heads) -> Optional[Found]:
    if not any(t.endswith(".weight") for t in tags):
        return None
    shapes = {tag: source.shape(key) for tag, key in tags.items()}
    reasons = [r for r in _config_reasons(source) if r[0] != "models.reason.relative"]
    return Found(_display(prefix), "fused", {}, {}, shapes, heads,
                 reasons=tuple(reasons or [("models.reason.fused_positions", ())]))


def _t5(source, prefix, tags, heads) -> Optional[Found]:
    """T5 adds a learned relative-position bias to every layer's scores (layer 0 holds it, the rest share it)."""
    if not all(t in tags for t in ("q", "k", "v", "o")):
        return None
    shapes = {f"{t}.weight": source.shape(tags[t]) for t in ("q", "k", "v", "o")}
    return Found(_display(prefix), "t5", {}, {}, shapes, heads,
                 reasons=(("models.reason.t5_relative", ()),))


def _decoder_layers(source: TensorSource) -> list[Found]:
    """The attention layers of a Hugging Face decoder family its config names (attention/models/families.py),
    described from the config and the tensor names alone: each is importable with its kinds (RoPE, QK-norm,
    ALiBi, soft-cap, window, shared key/value heads), or listed with the config field that stops it."""
    from attention.models import families
    from attention.models.checkpoint import CheckpointError

    family = families.family_of(source.config)
    if family is None:
        return []
    keys = set(source.keys())
    out = []
    for index, prefix in families.layer_prefixes(source, family).items():
        extra = {"prefix": prefix, "layer_index": index, "decoder": family, "heads_fixed": True}
        try:
            facts = families.layer_facts(source, index)
        except CheckpointError as e:
            out.append(Found(_display(prefix), f"hf_{family}", {}, {}, {}, None, causal=True,
                             reasons=((e.key, tuple((k, v if isinstance(v, Phrase) else str(v))
                                                    for k, v in e.args_.items())),), extra=extra))
            continue
        H, Hkv, hd, E = facts["n_heads"], facts["n_kv_heads"], facts["head_dim"], facts["d_model"]
        shapes = {"query.weight": (H * hd, E), "key.weight": (Hkv * hd, E), "value.weight": (Hkv * hd, E),
                  "out.weight": (E, H * hd)}
        bad = _decoder_shape_problem(source, prefix, H, Hkv, hd, E)
        if bad is not None:  # the config's head counts and widths must be the tensors' (read from the header)
            out.append(Found(_display(prefix), f"hf_{family}", {}, {}, {}, None, causal=True,
                             reasons=(bad,), extra=extra))
            continue
        fused = f"{prefix}.query_key_value.bias" in keys
        for role, name, width in (("query", "q_proj", H * hd), ("key", "k_proj", Hkv * hd),
                                  ("value", "v_proj", Hkv * hd)):
            if fused or f"{prefix}.{name}.bias" in keys:
                shapes[f"{role}.bias"] = (width,)
        if f"{prefix}.o_proj.bias" in keys or f"{prefix}.dense.bias" in keys:
            shapes["out.bias"] = (E,)
        out.append(Found(_display(prefix), f"hf_{family}", {}, {}, shapes, H, causal=True,
                         extra=dict(extra, facts=facts)))
    return out


def _decoder_shape_problem(source: TensorSource, prefix: str, H: int, Hkv: int, hd: int, E: int):
    """The reason (catalogue key, args) when a tensor's stored shape is not what the config's sizes make."""
    keys = set(source.keys())
    fused = f"{prefix}.query_key_value.weight"
    want = {fused: ((H + 2 * Hkv) * hd, E)} if fused in keys else {  # per head, multi-query, grouped alike
        f"{prefix}.q_proj.weight": (H * hd, E), f"{prefix}.k_proj.weight": (Hkv * hd, E),
        f"{prefix}.v_proj.weight": (Hkv * hd, E)}
    for key, shape in want.items():
        got = source.shape(key) if key in keys else None
        if H % Hkv or got != shape:
            return ("models.reason.config_shape", (("tensor", key), ("shape", _shape(got or ())),
                                                   ("expected", _shape(shape)), ("heads", str(H)),
                                                   ("kv", str(Hkv))))
    return None


_BUILDERS = {"tsl": _tsl, "mha": _mha, "bert": _bert, "gpt2": _gpt2, "llama": _llama, "fused": _fused, "t5": _t5}


# ---- reading --------------------------------------------------------------------------------------

def read_layer(source: TensorSource, found: Found) -> LayerWeights:
    """Read only this layer's tensors (each stored tensor once) into nn.Linear layout."""
    if not found.supported:
        raise ValueError(f"{found.name}: {found.reason('en')}")
    cache: dict[str, object] = {}

    def get(part: Optional[Part]):
        if part is None:
            return None
        if part.key not in cache:
            cache[part.key] = source.read(part.key)
        t = cache[part.key]
        if part.conv1d:  # (in, out): the role's columns, transposed to (out, in)
            cols = t[..., part.start:part.stop] if part.start is not None else t
            return cols.T.copy() if cols.ndim == 2 else cols.copy()
        return (t[part.start:part.stop] if part.start is not None else t).copy()

    projections = {role: (get(found.weights[role]), get(found.biases.get(role))) for role in ROLES}
    return LayerWeights(name=found.name, family=found.family, projections=projections, n_heads=found.n_heads,
                        causal=found.causal, extra=dict(found.extra, cross=found.cross))
