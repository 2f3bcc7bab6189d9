"""The one table of kinds: every scoring, position encoding, score modifier and mask rule, by name.

Each kind is an object of its family's Protocol (attention/kinds/base.py) in a module of its own;
the rest of the code asks the kind object (`scoring(sc)`, `rules_for(sc)`) what it needs,
instead of comparing names.  Adding a kind: its module, its words (attention/words/), and one
entry below.  Nothing here imports torch (the window reads this table before torch has loaded).
"""
from __future__ import annotations

from typing import Any, Union

from attention.fields import plain
from attention.kinds.additive import ADDITIVE
from attention.kinds.base import MaskRule, PositionEncoding, ScoreModifier, ScoringKind
from attention.kinds.dot_product import DOT, SCALED_DOT
from attention.kinds.mask_rules import RULES
from attention.kinds.prob_sparse import PROB_SPARSE
from attention.kinds.qk_norm import QK_NORM
from attention.kinds.rope import ROPE

#: name -> scoring kind, in the order a menu lists them
SCORING: dict[str, ScoringKind] = {k.name: k for k in (SCALED_DOT, DOT, ADDITIVE, PROB_SPARSE)}
#: name -> position encoding (RoPE comes here)
POSITIONS: dict[str, PositionEncoding] = {k.name: k for k in (ROPE,)}
#: name -> score modifier (ALiBi, soft-capping, sinks come here)
MODIFIERS: dict[str, ScoreModifier] = {k.name: k for k in (QK_NORM,)}
#: name -> mask rule, in the order their parts are combined and their reasons said
MASK_RULES: dict[str, MaskRule] = {r.name: r for r in RULES}
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


def owning_weights(path: str) -> Union[ScoringKind, None]:
    """The scoring kind whose own weights a field path names ('additive.W_q' -> additive), or None."""
    head = path.split(".", 1)[0].split("[", 1)[0]
    for kind in SCORING.values():
        if kind.weights_attr and head == kind.weights_attr:
            return kind
    return None


__all__ = ["DEFAULT_SCORING", "SCORING_FIELD", "MASK_RULES", "MODIFIERS", "POSITIONS", "SCORING", "known_scoring",
           "rules_for", "owning_weights", "scoring"]
