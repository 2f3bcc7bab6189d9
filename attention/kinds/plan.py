"""The kinds a scenario uses, looked up once, and the frozen plan everything after checking reads.

Why: a kind's hooks (a modifier's checks, a step's `active` predicate, the lessons, the script)
sometimes need another kind of the same scenario (ALiBi asks whether the scoring kind scores every
row).  Looking it up by name would make every kind import the table that imports every kind; the
table (attention/registry/kinds.py) instead resolves the names once into `Kinds`, and what comes
after reads the objects.  `Plan` is a checked scenario with its kinds, steps and sizes resolved.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Optional

if TYPE_CHECKING:  # annotations only
    from attention.datamodel.problem import Problem
    from attention.datamodel.scenario import Scenario
    from attention.datamodel.step_record import StepRecord
    from attention.kinds.base import Block, MaskRule, PositionEncoding, ScoreModifier, ScoringKind


@dataclass(frozen=True)
class Kinds:
    """The kind objects one scenario (or one trace's options) uses, in the table's order."""

    scoring: ScoringKind
    positions: tuple[PositionEncoding, ...] = ()  # the parts' position encodings (RoPE)
    modifiers: tuple[ScoreModifier, ...] = ()  # the parts' score modifiers (ALiBi, the cap, sinks, QK-norm ...)
    rules: tuple[MaskRule, ...] = ()  # the mask rules that apply (none: nothing is masked)
    blocks: tuple[Block, ...] = ()  # the blocks around attention (TSL's encoder layer, distil, router)


@dataclass(frozen=True)
class Plan:
    """A checked scenario, resolved once (attention.compute.check.check): its problems, and when
    it has none, the kind objects it uses, the steps of its trace in computing order, the sizes
    their shapes are made of, its scale and the memory its trace will need.  The engine, explain,
    the exported script and the window read this instead of looking a kind up by name again
    (as napari's slicing takes a frozen request that carries what it needs)."""

    sc: Scenario
    kinds: Optional[Kinds] = None  # None: it has problems
    records: tuple[StepRecord, ...] = ()  # the steps of its trace, in computing order
    scale: float = 1.0  # the number the scores are multiplied by: the scenario's, or its scoring kind's default
    default_scale: float = 1.0  # its scoring kind's scale, what `scale` is when the scenario sets none
    sizes: Mapping[str, int] = field(default_factory=dict)  # B, L, S, H, H_kv, dk, dv, d_out, ... (check.sizes)
    memory_bytes: int = 0  # the estimate of what its trace keeps, checked against the memory free
    part_options: Mapping[str, list] = field(default_factory=dict)  # its parts as trace options (JSON-safe)
    problems: tuple[Problem, ...] = ()  # what stops the engine from running it; empty: it runs

    @property
    def ok(self) -> bool:
        """No problem: the engine can run it."""
        return not self.problems

    @property
    def step_ids(self) -> tuple[str, ...]:
        """The ids of its trace's steps, in computing order."""
        return tuple(r.id for r in self.records)

    def record(self, step_id: str) -> StepRecord:
        """The record of step `step_id` of this trace; KeyError for a step it does not have."""
        for r in self.records:
            if r.id == step_id:
                return r
        raise KeyError(step_id)
