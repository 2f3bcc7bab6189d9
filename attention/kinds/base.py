"""The Protocols every kind of the registry (attention/registry/kinds.py) follows, one per family.

Why Protocols (as napari's slicing layers): the engine, explain, lessons, script export, the
panes and the editors ask a kind object what they need (its fields, its default scale, its
problems, its steps, its words, its hooks) instead of comparing its name; a new kind is then
one module that satisfies its family's Protocol, its words, and one line in the table.

Hooks are real function references.  Kind modules import nothing that loads torch at import
time (the window imports the registry before torch has loaded): torch-using math is imported
inside the compute functions.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional, Protocol, runtime_checkable

from attention.datamodel.fields import Field

if TYPE_CHECKING:  # annotations only
    import torch

    from attention.datamodel.problem import Problem
    from attention.datamodel.scenario import Scenario


@runtime_checkable
class ScoringKind(Protocol):
    """How a query and a key make a score (scaled dot, dot, d2l's additive, Informer's ProbSparse).

    The engine calls `compute_scores`, `compute_masked` and `compute_weights` for the three
    steps every trace has, with the engine's working state (`attention.compute.engine.Run`); a kind keeps
    its own intermediates there (`run.state`) and may compute extra steps (`extra_steps`, each a
    record of attention/registry/step_registry.py whose compute function the kind provides)."""

    name: str
    fields: tuple[Field, ...]  # the options this kind adds to a scenario (attention/datamodel/fields.py)
    extra_steps: tuple[str, ...]  # step ids only this kind computes (records in step_registry)
    formulas: Mapping[str, str]  # step id -> catalogue key of its formula, where this kind differs
    titles: Mapping[str, str]  # step id -> catalogue key of its title, where this kind differs
    weights_attr: Optional[str]  # the Scenario attribute holding this kind's own weights, or None
    weight_matrices: tuple[tuple[str, bool], ...]  # (name, one matrix per head) of each of those weights
    tiled: Optional[str]  # FlashAttention tiles: "dot", "read" (from the trace) or None (no row softmax)
    not_tiled_words: str  # catalogue key saying why there are no tiles, where tiled is None
    free_widths: bool  # query/key projections may have any width divisible by the heads
    grouped_kv: bool  # query heads may share key/value heads (n_kv_heads < n_heads)
    not_computed_steps: tuple[str, ...]  # steps whose NaN cells mean "never computed"

    def default_scale(self, sc: "Scenario") -> float: ...
    def parameters(self, sc: "Scenario", dev: "torch.device", dt: "torch.dtype") -> dict[str, "torch.Tensor"]: ...
    def parameter_paths(self, sc: "Scenario") -> tuple[str, ...]: ...
    def weight_problems(self, sc: "Scenario", check_values: bool) -> list["Problem"]: ...
    def option_problems(self, sc: "Scenario", errs: list["Problem"]) -> list["Problem"]: ...
    def stray_problems(self, sc: "Scenario") -> list["Problem"]: ...
    def memory_terms(self, sc: "Scenario") -> tuple[int, int]: ...
    def options(self, sc: "Scenario") -> dict[str, Any]: ...
    def compute_scores(self, run: Any) -> "torch.Tensor": ...
    def compute_masked(self, run: Any) -> "torch.Tensor": ...
    def compute_weights(self, run: Any) -> "torch.Tensor": ...
    def explain_cell(self, ctx: Any, step_id: str, idx: tuple[int, ...]) -> Any: ...
    def lazy_row(self, ctx: Any, b: int, h: int, l: int) -> bool: ...
    def lesson_keys(self, step_id: str, keys: list[str], v: dict[str, Any]) -> list[str]: ...
    def script(self, plan: Any, step_id: str) -> Optional[str]: ...  # plan: attention.kinds.plan.Plan
    def script_numbers(self, sc: "Scenario") -> str: ...
    def scale_why(self, sc: "Scenario") -> str: ...


@runtime_checkable
class MaskRule(Protocol):
    """One reason a key is hidden from a query (causal, valid lengths; windows and drawn masks later).

    True = masked, everywhere.  A rule builds its own part of the (B, L, S) mask; the engine ORs
    the parts of the rules that apply.  `reason` says, from a trace's options, why one cell is
    masked or kept by this rule (None: the rule does not apply to that trace)."""

    name: str
    fields: tuple[Field, ...]

    def applies(self, sc: "Scenario") -> bool: ...
    def applies_to(self, options: Mapping[str, Any]) -> bool: ...
    def mask(self, sc: "Scenario", B: int, L: int, S: int, dev: "torch.device") -> "torch.Tensor": ...
    def reason(self, options: Mapping[str, Any], b: int, l: int, s: int) -> Optional[tuple[bool, dict[str, str]]]: ...
    def script(self, sc: "Scenario") -> str: ...
    def problems(self, sc: "Scenario") -> list["Problem"]: ...


@runtime_checkable
class PositionEncoding(Protocol):
    """Positions written into q and k after the head split (RoPE): its own steps stand for the
    head-split queries and keys (`records()`)."""

    name: str
    fields: tuple[Field, ...]

    def records(self) -> tuple[Any, ...]: ...


@runtime_checkable
class ScoreModifier(Protocol):
    """A change made on the way to the weights: q and k normed (QK-norm), the scores biased (ALiBi),
    capped (soft-capping), a sink column in the softmax; also the options a scoring kind reads from a
    part (DSAttention's τ and Δ, Auto-Correlation's factor).  Its steps, if any: `records()`; the
    optional hooks (compute_weights, explain_cell, lesson_keys, script_step, memory_numbers ...) are
    asked for where a modifier computes or teaches a main step its own way."""

    name: str
    fields: tuple[Field, ...]


@runtime_checkable
class Block(Protocol):
    """A block around attention: steps computed after the output projection, as Time-Series-Library
    wraps its attention (its EncoderLayer's residuals, norms and feed-forward; Informer's distilling
    ConvLayer; Crossformer's router and dimension stage).  Not a score modifier: nothing before the
    output changes.  A scenario names one among its `modifiers` parts (the file format's family)."""

    name: str
    fields: tuple[Field, ...]

    def records(self) -> tuple[Any, ...]: ...  # its steps' records (attention.datamodel.step_record)
    def part_problems(self, sc: "Scenario", part: Any, path: str, kinds: Any) -> list["Problem"]: ...
    def script_after(self, plan: Any) -> str: ...  # its steps in the exported script, after the output
