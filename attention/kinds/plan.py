"""The kinds a scenario uses, looked up once, and the plan the steps' functions read.

Why: a kind's hooks (a modifier's checks, a step's `active` predicate, the lessons, the script)
sometimes need another kind of the same scenario (ALiBi asks whether the scoring kind scores every
row).  Looking it up by name would make every kind import the table that imports every kind; the
table (attention/registry/kinds.py) instead resolves the names once into `Kinds`, and what comes
after reads the objects.  `Plan` is a scenario with its kinds resolved.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from attention.datamodel.scenario import Scenario
    from attention.datamodel.step_record import StepRecord
    from attention.kinds.base import MaskRule, PositionEncoding, ScoreModifier, ScoringKind


@dataclass(frozen=True)
class Kinds:
    """The kind objects one scenario (or one trace's options) uses, in the table's order."""

    scoring: ScoringKind
    positions: tuple[PositionEncoding, ...] = ()  # the parts' position encodings (RoPE)
    modifiers: tuple[ScoreModifier, ...] = ()  # the parts' score modifiers and blocks around attention
    rules: tuple[MaskRule, ...] = ()  # the mask rules that apply (none: nothing is masked)


@dataclass(frozen=True)
class Plan:
    """A scenario with its kinds resolved and the steps of its trace: what the exported script's
    snippets read."""

    sc: Scenario
    kinds: Kinds
    records: tuple[StepRecord, ...] = ()  # the steps of its trace, in computing order
    scale: float = 1.0  # the number the scores are multiplied by: the scenario's, or its scoring kind's default

    def record(self, step_id: str) -> StepRecord:
        """The record of step `step_id` of this trace; KeyError for a step it does not have."""
        for r in self.records:
            if r.id == step_id:
                return r
        raise KeyError(step_id)
