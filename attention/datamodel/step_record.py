"""The record of one step of the trace: what the rest of the code needs to know about a step id.

Every record is declared beside the code it names (the main pipeline's in
attention/registry/step_registry.py, a kind's in its module's ``records()``); the registry joins
them into one step graph in computing order.  See attention/registry/step_registry.py for what
each field means.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

KINDS = ("signed", "weights", "bool", "count", "index")
SLIDE = ("always", "never", "when_true")

Compute = Callable[[Any, str], Any]  # (run: attention.compute.engine.Run, step_id) -> tensor


@dataclass(frozen=True)
class StepRecord:
    id: str
    dims: tuple[str, ...]
    kind: str
    title: str
    formula: str  # catalogue key; a scoring kind that computes the step otherwise has its own (kind.formulas)
    compute: Compute
    active: Callable[[Any], bool]  # (scenario) -> whether the step is in its trace
    explain: Callable  # (ctx, step_id, index) -> attention.text.explanation.Explanation
    lesson: Callable  # (step_id, options, values, lang) -> str
    script: Optional[Callable]  # (scenario, step_id) -> code; None: not in the exported script
    inputs: tuple[str, ...] = ()
    points_into: Optional[str] = None  # kind "index": the dim its values are positions of
    veiled: bool = False  # the pane draws extra.mask over it (masked cells veiled)
    before: Optional[str] = None  # an extra: the main step it is computed and shown just before (see ORDER)
    slide: str = "always"
    by_hand: tuple[str, ...] = ()  # blocks of the by-hand sheet that show this step's numbers
    stands_for: Optional[str] = None  # a step every later step reads this one in place of (see the docstring)
    repeats: tuple[tuple[str, str], ...] = ()  # (input, reason id): when this step can hold that input's numbers
    # (step, reason id): a step this one can be worked out from (sinks.mass = 1 - a row of the weights):
    # a quiz hiding this step hides that one too
    gives_away: tuple[tuple[str, str], ...] = ()

    @property
    def extra(self) -> bool:
        """Not part of the main pipeline: the mask and the kinds' intermediate results."""
        return self.id.startswith("extra.")

    def formula_key(self, scoring: Any = None) -> str:
        """The catalogue key of this step's formula as the scoring kind `scoring` computes it."""
        return scoring.formulas.get(self.id, self.formula) if scoring is not None else self.formula

    def title_key(self, scoring: Any = None) -> str:
        """The catalogue key of this step's title as the scoring kind `scoring` names it."""
        return scoring.titles.get(self.id, self.title) if scoring is not None else self.title
