"""The trace: every intermediate tensor of one attention call, under a fixed step id.

Everything the window, the CLI, the exports and the tests show is read from a `Trace`; nothing
recomputes attention anywhere else.  Step ids and their dims are a public contract, documented
in docs/trace-format.md; each step's record (dims, kind, title, formula, ...) is in
attention/registry/step_registry.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import numpy as np

from attention.kinds.plan import Kinds, Plan
from attention.registry import step_registry

if TYPE_CHECKING:  # annotations only: the window imports this module before torch is loaded
    import torch

#: The main pipeline, in order.  Every step's dims, kind and words: attention/registry/step_registry.py.
PIPELINE: tuple[str, ...] = step_registry.PIPELINE


@dataclass(frozen=True)
class Step:
    id: str
    tensor: torch.Tensor
    dims: tuple[str, ...]
    scoring: Optional[str] = None  # the trace's scoring function: some steps' formulas depend on it
    #: the trace's score modifiers (one may compute a step its way: sinks' weights) and the mask rules
    #: that write the mask's formula their own way (the pyramid)
    modifiers: tuple[str, ...] = ()

    @property
    def title(self) -> dict[str, str]:
        """{language: title}, as the trace's scoring function names this step (its record, the catalogue)."""
        return step_registry.title(self.id, self.scoring)

    @property
    def formula(self) -> dict[str, str]:
        """{language: formula}, as the trace's scoring function (or a modifier of it) computes this step."""
        return step_registry.formula(self.id, self.scoring, self.modifiers)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.tensor.shape)

    def numpy(self) -> np.ndarray:
        """A CPU numpy view (zero-copy on CPU).  Treat as read-only.

        `tensor` is a numpy array already in a trace read back from disk (attention.files.trace_cache)."""
        if isinstance(self.tensor, np.ndarray):
            return self.tensor
        return self.tensor.detach().cpu().numpy()


@dataclass(frozen=True)
class Trace:
    """Ordered steps plus the resolved options and parameters that produced them."""

    steps: tuple[Step, ...]
    options: dict  # every resolved option (n_heads, d_keys, scale used, ...)
    parameters: dict[str, torch.Tensor]  # queries, keys, values, projection.*.weight/bias, additive.*
    warnings: tuple = field(default=())  # attention.datamodel.problem.Problem each: notes on a trace that ran
    # the checked scenario it was computed from (attention.kinds.plan.Plan); None for a trace read back from disk
    plan: Optional[Plan] = field(default=None, compare=False, repr=False)

    def __getitem__(self, step_id: str) -> Step:
        for s in self.steps:
            if s.id == step_id:
                return s
        raise KeyError(step_id)

    def __contains__(self, step_id: str) -> bool:
        return any(s.id == step_id for s in self.steps)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.steps)

    def array(self, step_id: str) -> np.ndarray:
        return self[step_id].numpy()

    @property
    def kinds(self) -> Kinds:
        """The kind objects of this trace: its plan's, or (a trace read back from disk, which has no
        plan) those its options name, looked up in the table once."""
        if self.plan is not None:
            return self.plan.kinds
        from attention.registry import kinds

        return kinds.of_options(self.options)
