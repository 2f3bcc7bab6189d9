"""The one table of kinds: every scoring, position encoding, score modifier, block around attention and
mask rule, by name.

Each kind is an object of its family's Protocol (attention/kinds/base.py) in a module of its own;
the rest of the code asks the kind object (`scoring(sc)`, `rules_for(sc)`) what it needs,
instead of comparing names.  Adding a kind: its module, its words (attention/words/), and one
entry below.  Nothing here imports torch (the window reads this table before torch has loaded).
"""
from __future__ import annotations

from typing import Any, Mapping, Union

from attention.datamodel import parts
from attention.datamodel.fields import plain
from attention.kinds.additive import ADDITIVE
from attention.kinds.alibi import ALIBI
from attention.kinds.autocorrelation import AUTOCORRELATION, AUTOCORRELATION_OPTIONS  # TSL: Autoformer
from attention.kinds.base import Block, MaskRule, PositionEncoding, ScoreModifier, ScoringKind
from attention.kinds.dot_product import DOT, SCALED_DOT
from attention.kinds.drawn import DRAWN
from attention.kinds.ds_attention import DESTATIONARY, DS_ATTENTION  # Time-Series-Library: Non-stationary
from attention.kinds.mask_rules import RULES
from attention.kinds.plan import Kinds
from attention.kinds.prob_sparse import PROB_SPARSE
from attention.kinds.pyramid import PYRAMID  # Time-Series-Library: Pyraformer
from attention.kinds.qk_norm import QK_NORM
from attention.kinds.rope import ROPE
from attention.kinds.sinks import SINKS
from attention.kinds.softcap import SOFTCAP
from attention.kinds.tsl_distil import DISTIL  # Time-Series-Library: Informer's distilling ConvLayer
from attention.kinds.tsl_encoder import ENCODER_LAYER  # Time-Series-Library: EncoderLayer
from attention.kinds.tsl_two_stage import TWO_STAGE, VARIABLES_RULE  # Time-Series-Library: Crossformer
from attention.kinds.window import WINDOW

#: name -> scoring kind, in the order a menu lists them
SCORING: dict[str, ScoringKind] = {k.name: k for k in (SCALED_DOT, DOT, ADDITIVE, PROB_SPARSE)}
SCORING[DS_ATTENTION.name] = DS_ATTENTION  # Time-Series-Library: Non-stationary Transformer
SCORING[AUTOCORRELATION.name] = AUTOCORRELATION  # Time-Series-Library: Autoformer
#: name -> position encoding (RoPE comes here)
POSITIONS: dict[str, PositionEncoding] = {k.name: k for k in (ROPE,)}
#: name -> score modifier (ALiBi, soft-capping, sinks come here)
MODIFIERS: dict[str, ScoreModifier] = {
    QK_NORM.name: QK_NORM,  # RMS norm of each head's q and k (before RoPE)
    ALIBI.name: ALIBI,  # a bias per head and key position, added to the scores before the mask
    SOFTCAP.name: SOFTCAP,  # cap * tanh(s / cap) after scaling (and after ALiBi's bias), before the mask
    SINKS.name: SINKS,  # a learned logit per head joins the softmax as an extra column
}
MODIFIERS[DESTATIONARY.name] = DESTATIONARY  # DSAttention's τ and Δ (read by its scoring kind)
MODIFIERS[AUTOCORRELATION_OPTIONS.name] = AUTOCORRELATION_OPTIONS  # Auto-Correlation's factor and path
#: name -> block around attention: steps after the output projection, as Time-Series-Library wraps its
#: attention (a scenario names them among its `modifiers` parts, the file format's family)
BLOCKS: dict[str, Block] = {
    ENCODER_LAYER.name: ENCODER_LAYER,  # TSL's EncoderLayer: residuals, norms, the feed-forward
    DISTIL.name: DISTIL,  # Informer's distilling ConvLayer: after the encoder layer's steps
    TWO_STAGE.name: TWO_STAGE,  # Crossformer's two-stage attention: the router and the dimension stage
}
#: name -> mask rule, in the order their parts are combined and their reasons said
MASK_RULES: dict[str, MaskRule] = {r.name: r for r in RULES + (WINDOW, DRAWN)}
MASK_RULES[PYRAMID.name] = PYRAMID  # Time-Series-Library: Pyraformer's pyramid
MASK_RULES[VARIABLES_RULE.name] = VARIABLES_RULE  # Crossformer's time stage: one variable's segments
#: the scoring of a scenario that names none
DEFAULT_SCORING: str = SCALED_DOT.name
#: the scoring choice of the Parameters panel, the schema and the docs: one entry per kind above
SCORING_FIELD = plain("scoring", "choice", default=DEFAULT_SCORING, choices=tuple(SCORING),
                      choice_words=tuple(f"field.scoring.{name}" for name in SCORING), group="scoring")


def scoring(which: Union[str, Any, None]) -> ScoringKind:
    """The scoring kind of a scenario, of trace options (a mapping with "scoring"), or of a name;
    KeyError for a name no kind has."""
    if which is None:
        return SCORING[DEFAULT_SCORING]
    if isinstance(which, str):
        return SCORING[which]
    if isinstance(which, dict):
        return SCORING[which.get("scoring") or DEFAULT_SCORING]
    return SCORING[which.scoring]


def known_scoring(name: Any) -> bool:
    return isinstance(name, str) and name in SCORING


def rules_for(sc: Any) -> tuple[MaskRule, ...]:
    """The mask rules that apply to scenario `sc`, in order."""
    return tuple(r for r in MASK_RULES.values() if r.applies(sc))


def modifiers(which: Any) -> tuple[ScoreModifier, ...]:
    """The score modifiers a scenario's parts (or a trace's options["modifiers"]) name, in their order.

    Where a modifier computes, explains, teaches or exports a main step its own way (sinks: the
    weights) or changes what reads them (the tiles, the note on fully masked rows), the code asks
    these objects for their optional hooks."""
    return _named(MODIFIERS, which.get("modifiers") if isinstance(which, dict) else getattr(which, "modifiers", ()))


def _named(table: dict, items) -> tuple:
    """The kinds of `table` that parts (Part objects or a trace's option dicts) name, in their order."""
    names = [p.get("kind") if isinstance(p, dict) else getattr(p, "kind", None) for p in items or ()]
    return tuple(table[n] for n in names if n in table)


def blocks(which: Any) -> tuple[Block, ...]:
    """The blocks around attention a scenario's parts (or a trace's options["modifiers"]) name, in their order."""
    return _named(BLOCKS, which.get("modifiers") if isinstance(which, dict) else getattr(which, "modifiers", ()))


def resolve(sc: Any) -> Kinds:
    """The kind objects scenario `sc` uses (its scoring kind must be a known one)."""
    return Kinds(scoring(sc), _named(POSITIONS, sc.positions), modifiers(sc), rules_for(sc), blocks(sc))


def of_options(options: dict) -> Kinds:
    """The kind objects a trace's options name (a trace read back from disk, with no scenario at hand)."""
    return Kinds(scoring(options), _named(POSITIONS, options.get("positions")), modifiers(options),
                 tuple(r for r in MASK_RULES.values() if r.applies_to(options)), blocks(options))


def owning_weights(path: str) -> Union[ScoringKind, None]:
    """The scoring kind whose own weights a field path names ('additive.W_q' -> additive), or None."""
    head = path.split(".", 1)[0].split("[", 1)[0]
    for kind in SCORING.values():
        if kind.weights_attr and head == kind.weights_attr:
            return kind
    return None



# ---- a scenario's parts: which kinds each family names, and the parts as trace options -------------

def of_family(family: str) -> Mapping[str, Any]:
    """The kinds a part of `family` ("positions", "modifiers", "masks") may name.  Mask rules kept
    in a scenario attribute of their own (`causal`, `valid_lens`: rule.attribute) are set there."""
    if family == "masks":
        return {n: r for n, r in MASK_RULES.items() if getattr(r, "attribute", None) is None}
    return {"positions": POSITIONS, "modifiers": {**MODIFIERS, **BLOCKS}}[family]


def part_options(sc: Any) -> dict[str, list[dict[str, Any]]]:
    """The parts as trace options (JSON-safe): family -> [{"kind": name, field: value, ...}], for
    the families the scenario uses."""
    out = {}
    for family in parts.FAMILIES:
        if not parts.of(sc, family):
            continue  # a trace names only the families its scenario uses
        known = of_family(family)
        out[family] = [{"kind": p.kind, **{f.name: parts.value(p, f) for f in known[p.kind].fields
                                           if f.type != "matrix"},
                        **_option_values(known[p.kind], p)} for p in parts.of(sc, family)]
    return out


def _option_values(kind: Any, part: parts.Part) -> dict[str, Any]:
    """What a kind keeps of a part's matrices in the trace's options (a drawn mask's painted
    cells: `kind.option_values(part)`), so explain can read them from the options alone."""
    extra = getattr(kind, "option_values", None)
    return extra(part) if extra is not None else {}

__all__ = ["BLOCKS", "DEFAULT_SCORING", "SCORING_FIELD", "MASK_RULES", "MODIFIERS", "POSITIONS", "SCORING", "blocks",
           "known_scoring",
           "modifiers", "of_family", "of_options", "part_options", "resolve", "rules_for", "owning_weights", "scoring"]
