"""run(scenario) -> Trace: the one place attention is computed.

Orchestration only: `_run` walks the step records that are active for the scenario
(attention/registry/step_registry.py, in computing order) and calls each one's compute function with the
working state `Run`.  The arithmetic lives in steps.py, the scoring kinds (attention/kinds/) and
the mask rules (attention/kinds/mask_rules.py); what each step's axes index in its record.
"""
from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import torch

from attention.compute import threads
from attention.compute.check import check, problems
from attention.compute.trace import Step, Trace
from attention.datamodel import numbers
from attention.datamodel.problem import Phrase, Problem, index_path, literal
from attention.datamodel.scenario import PROJECTIONS, Scenario, ScenarioError, beyond_dtype
from attention.kinds.base import ScoringKind
from attention.kinds.plan import Kinds, Plan
from attention.ops.tensors import read_only, tensor
from attention.registry import step_registry


def resolve_device(name: str) -> torch.device:
    if name == "cuda":
        if not torch.cuda.is_available():
            raise ScenarioError([Problem("no_cuda", "device")])
        return torch.device("cuda")
    if name != "cpu":
        got = repr(name) if isinstance(name, str) else literal(name)
        raise ScenarioError([Problem("device_bad", "device", {"got": got})])
    return torch.device("cpu")


def resolve_dtype(name: str) -> torch.dtype:
    try:
        return {"float32": torch.float32, "float64": torch.float64}[name]
    except KeyError:
        raise ScenarioError([Problem("dtype_bad", "dtype", {"got": repr(name)})]) from None


def run(sc: Scenario, device: Optional[str] = None, dtype: Optional[str] = None) -> Trace:
    """Every intermediate of multi-head attention for `sc` (device/dtype override the scenario's)."""
    plan = check(sc, check_values=False)  # every number is checked on the tensors below
    if plan.problems:
        raise ScenarioError(problems(sc))
    return run_plan(plan, device, dtype)


def run_plan(plan: Plan, device: Optional[str] = None, dtype: Optional[str] = None) -> Trace:
    """The trace of a checked scenario: its plan's steps, in computing order (a plan with problems:
    ScenarioError).  The engine reads the plan alone: its kinds, steps, scale and sizes."""
    if plan.problems:
        raise ScenarioError(plan.problems)
    sc = plan.sc
    dev = resolve_device(device or sc.device)
    dt = resolve_dtype(dtype or sc.dtype)
    threads.use(work(sc))
    with torch.inference_mode():
        params = _parameters(plan, dev, dt)
        _check_finite(sc, params, dt, _sources(sc))
        return _run(plan, params, dev, dt)


def work(sc: Scenario) -> float:
    """About how many multiply-adds a trace of `sc` costs: the projections and the two products
    (threads.use picks the thread count by it)."""
    B, L, S, H, d = sc.batch, sc.L, sc.S, sc.n_heads, sc.d_model
    return B * (H * (sc.dk + sc.dv) * L * S + (L + 2 * S) * d * H * sc.dk + L * H * sc.dv * sc.d_out)


def _parameters(plan: Plan, dev: torch.device, dt: torch.dtype) -> dict[str, torch.Tensor]:
    """Every number of the scenario as a tensor: queries, keys, values, projection.*, additive.*."""
    sc = plan.sc
    params = {"queries": _t(sc.queries, dev, dt), "keys": _t(sc.keys, dev, dt), "values": _t(sc.values, dev, dt)}
    for name in PROJECTIONS:
        p = sc.projection(name)
        if p is not None:
            params[f"projection.{name}.weight"] = _t(p.weight, dev, dt)
            if p.bias is not None:
                params[f"projection.{name}.bias"] = _t(p.bias, dev, dt)
    params.update(plan.kinds.scoring.parameters(sc, dev, dt))  # the kind's own weights (additive.*)
    return params


def _sources(sc: Scenario) -> dict[str, np.ndarray]:
    """The scenario's arrays under their parameter names (queries, keys, values, projection.*)."""
    out = {"queries": sc.queries, "keys": sc.keys, "values": sc.values}
    for name in PROJECTIONS:
        p = sc.projection(name)
        if p is not None:
            out[f"projection.{name}.weight"] = p.weight
            if p.bias is not None:
                out[f"projection.{name}.bias"] = p.bias
    return out


#: (id, dtype) of read-only arrays already found finite in that dtype: their numbers cannot change,
#: so neither can the verdict (a model's weights, read again for every layer of every token).
_FINITE: dict[tuple[int, torch.dtype], weakref.ref] = {}


def _known_finite(a: np.ndarray, dt: torch.dtype) -> bool:
    ref = _FINITE.get((id(a), dt))
    return ref is not None and ref() is a


def _remember_finite(a: np.ndarray, dt: torch.dtype) -> None:
    key = (id(a), dt)
    _FINITE[key] = weakref.ref(a, lambda _, key=key: _FINITE.pop(key, None))  # forgotten with the array


def _check_finite(sc: Scenario, params: dict[str, torch.Tensor], dt: torch.dtype,
                  sources: Optional[dict[str, np.ndarray]] = None) -> None:
    """Refuse NaN or infinity in any number, scanning the converted tensors.

    This runs on every edit and on every layer of a model's forward, so the common case (all
    finite) is one sum per tensor: a sum is finite only if every term is (any inf or NaN makes
    it inf or NaN), and a reduction reads the tensor once with no temporary, where isfinite
    writes boolean temporaries the size of the tensor (about 20x slower on a 576 x 576 weight).
    A finite-but-huge float32 sum can overflow; then, as when a sum is not finite, each tensor
    is scanned cell by cell, which alone decides.  A value finite in the scenario but not after
    conversion is beyond float32's range: said so, rather than computing NaNs.  A read-only
    array of `sources` (the scenario's arrays by parameter name) once found finite in this dtype
    is not summed again (`_FINITE`)."""
    sources = sources or {}
    known = {n for n, a in sources.items() if _known_finite(a, dt)}
    if all(math.isfinite(t.sum()) for n, t in params.items() if n not in known):  # a 0-dim tensor: its float
        for n, a in sources.items():
            if n not in known and isinstance(a, np.ndarray) and read_only(a):
                _remember_finite(a, dt)
        return
    bad = [name for name, t in params.items() if not bool(torch.isfinite(t).all())]
    if not bad:  # only a sum overflowed: every number is finite
        return
    errs = problems(sc)
    if errs:
        raise ScenarioError(errs)
    dtype = str(dt).removeprefix("torch.")
    raise ScenarioError([beyond_dtype(name.replace("projection.", "projections."), dtype) for name in bad])


_t = tensor


def _fully_masked_warning(full: torch.Tensor, fill: float, code: Optional[str] = None,
                          shown: int = 6) -> Optional[Problem]:
    """A warning naming the query rows whose every key is masked (full (B, L) bool), or None.

    Such a row has no defined attention: a finite fill gives uniform weights over all keys
    (padding included, as d2l's masked_softmax), -inf gives NaN.  extra.fully_masked marks them."""
    where = full.nonzero()  # (n, 2): batch, query
    n = int(where.shape[0])
    if n == 0:
        return None
    rows = tuple(Phrase("masked_row", {"b": numbers.position(b), "l": numbers.position(q)})  # counted from 1
                 for b, q in where[:shown].tolist())
    if n > shown:
        rows += (Phrase("and_more", {"n": n - shown}),)
    code = code or ("fully_masked_uniform" if math.isfinite(fill) else "fully_masked_nan")  # a sink: its own
    have = Phrase("row_has" if n == 1 else "rows_have")
    return Problem(code, "attention_weights", {"n": n, "rows_have": have, "rows": rows, "fill": numbers.rounded(fill)})


#: The steps looked at, in order, to name where numbers first overflowed (masked_scores holds
#: the fill value, -inf included, by design).
_OVERFLOW_STEPS = ("projection.query", "projection.key", "projection.value", "scores", "attention_weights",
                   "weighted_sum", "concat", "output")
#: Per step: how the (B, L) rows of a fully masked query broadcast over it (B, H, L, S / B, L, H, D / B, L, X).
_ROW_AXES = {"attention_weights": (slice(None), None, slice(None), None),
             "weighted_sum": (slice(None), slice(None), None, None),
             "concat": (slice(None), slice(None), None), "output": (slice(None), slice(None), None)}
#: Words for the dims an overflowed cell is named by (attention/words/problems.py: problem.cell_<dim>;
#: any other dim is a column: problem.cell_column).  Positions count from 1, as everything a person reads.
_CELL_DIMS = ("B", "H", "L", "S")


def _not_finite(sid: str, t: torch.Tensor, masked_nan: Optional[torch.Tensor],
                selected: Optional[torch.Tensor]) -> torch.Tensor:
    """Where step `sid` holds inf or NaN the engine did not make on purpose: not the NaN rows of a
    fully masked query under a -inf fill (`masked_nan` (B, L)), nor ProbSparse's scores of the
    queries it never computed (`selected` (B, H, L) false)."""
    wrong = ~torch.isfinite(t)
    if masked_nan is not None and sid in _ROW_AXES:
        wrong &= ~masked_nan[_ROW_AXES[sid]]
    if selected is not None and sid == "scores":  # (B, H, L) rows, or (B, H, L, S) cells a kind scored
        wrong &= selected if selected.dim() == t.dim() else selected[..., None]
    return wrong


def _finite_without_looking(run: "Run", rec, finite: dict[str, bool]) -> bool:
    """Whether step `rec` is known to hold only finite numbers (or NaN the engine makes on purpose)
    from the steps it reads, so its numbers need no pass of their own (about a tenth of a trace's
    time at B=1 L=S=512 was such passes):

    - the concat of all-finite heads (the same numbers, rearranged);
    - the plain softmax (no kind or modifier of its own) of all-finite scores, masked with -inf or a
      fill finite in the trace's dtype: each row is exp(x - max) / sum, in [0, 1]; a row with every
      key masked under -inf is NaN by design (extra.fully_masked), which the warning does not count."""
    from attention.kinds.dot_product import DotProduct
    from attention.pipeline import step_compute

    if rec.id == "concat":
        return rec.compute is step_compute.concat and finite.get("weighted_sum") is True and (
            run.inputs["weighted_sum"] is run.values["weighted_sum"])
    if rec.id != "attention_weights" or rec.compute is not step_compute.attention_weights:
        return False
    kind = type(run.kind)
    fill = run.sc.fill_value
    return (finite.get("scores") is True and kind.compute_masked is DotProduct.compute_masked
            and kind.compute_weights is DotProduct.compute_weights
            and not any(hasattr(m, "compute_weights") for m in run.kinds.modifiers)
            and run.inputs.get("scores") is run.values.get("scores")
            and run.inputs.get("masked_scores") is run.values.get("masked_scores")
            and (fill == -math.inf or abs(fill) <= torch.finfo(run.dt).max))  # -1e40 is -inf in float32


def _overflow_warning(out: list[Step], masked_nan: Optional[torch.Tensor],
                      selected: Optional[torch.Tensor], dt: torch.dtype,
                      finite: Optional[dict[str, bool]] = None) -> Optional[Problem]:
    """A warning when finite inputs overflowed on the way (a float32 product beyond about 3.4e38,
    a float64 one beyond 1.8e308), naming the first step and cell where it happened, the cause
    (the dtype's range) and the query rows of the output it turned into inf or NaN; None when
    every step is finite (NaN the engine makes on purpose aside: `_not_finite`).

    This runs on every edit: a step is looked at cell by cell only when its sum is not finite
    (any inf or NaN makes it so; one reduction, no boolean temporary the size of the step).  `finite`:
    the verdicts `_run` reached while each step was still in cache (or without looking at it)."""
    steps = {s.id: s for s in out}
    finite = finite or {}
    for sid in _OVERFLOW_STEPS:
        t = steps[sid].tensor
        if finite.get(sid) or (sid not in finite and math.isfinite(t.sum())):  # a 0-dim tensor reads as its float
            continue
        wrong = _not_finite(sid, t, masked_nan, selected)
        if not bool(wrong.any()):
            continue
        first = tuple(int(i) for i in wrong.nonzero()[0].tolist())
        dims = steps[sid].dims
        parts = [Phrase(f"cell_{d}" if d in _CELL_DIMS else "cell_column", {"i": numbers.position(i)})
                 for d, i in zip(dims, first)]
        where = parts[-1]
        for part in reversed(parts[:-1]):  # "batch 0, head 1, query 0, key 3", commas in each language
            where = Phrase("cell_and", {"first": part, "rest": where})
        out_bad = _not_finite("output", steps["output"].tensor, masked_nan, selected).any(dim=-1)  # (B, L)
        rows = out_bad.nonzero()
        n_rows = int(rows.shape[0])
        if n_rows:
            shown = tuple(Phrase("masked_row", {"b": numbers.position(b), "l": numbers.position(q)})  # from 1
                          for b, q in rows[:6].tolist())
            if n_rows > 6:
                shown += (Phrase("and_more", {"n": n_rows - 6}),)
            effect = Phrase("overflow_row" if n_rows == 1 else "overflow_rows", {"n": n_rows, "rows": shown})
        else:
            effect = Phrase("overflow_output_finite")
        dtype = str(dt).removeprefix("torch.")
        return Problem("overflow", sid, {
            "n": int(wrong.sum()), "total": wrong.numel(), "dtype": dtype,
            "limit": numbers.rounded(float(torch.finfo(dt).max)),
            "index": index_path("", first), "where": where, "effect": effect,
            "advice": Phrase("overflow_smaller" if dt == torch.float64 else "overflow_use_float64")})
    return None


@dataclass
class Run:
    """The engine's working state for one trace: what every step's compute function reads."""

    plan: Plan  # the checked scenario: its kinds, steps, scale and sizes
    params: dict[str, torch.Tensor]  # the scenario's numbers as tensors (queries, projection.*, a kind's weights)
    dev: torch.device
    dt: torch.dtype
    values: dict[str, torch.Tensor] = field(default_factory=dict)  # step id -> tensor, as computed (the trace)
    # what a later step reads under a step id: that step, or the step that stands for it since
    # (a record's `stands_for`: e.g. rotated queries read in place of head_split.query)
    inputs: dict[str, torch.Tensor] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)  # a kind's intermediates (ProbSparse's selection ...)

    @property
    def sc(self) -> Scenario:
        return self.plan.sc

    @property
    def scale(self) -> float:
        """The resolved scale: the scenario's, or its scoring kind's default."""
        return self.plan.scale

    @property
    def kinds(self) -> Kinds:
        """The kind objects the scenario uses (its scoring kind, modifiers, mask rules ...)."""
        return self.plan.kinds

    @property
    def kind(self) -> ScoringKind:
        """The scenario's scoring kind."""
        return self.plan.kinds.scoring


def _run(plan: Plan, params: dict[str, torch.Tensor], dev: torch.device, dt: torch.dtype) -> Trace:
    sc, found = plan.sc, plan.kinds
    B, L, S, H = sc.batch, sc.L, sc.S, sc.n_heads
    kind = found.scoring
    run = Run(plan, params, dev, dt)
    finite: dict[str, bool] = {}  # step id -> every cell finite: looked at while the step is still in cache
    for rec in plan.records:  # in computing order: every input before the step that reads it
        t = rec.compute(run, rec.id)
        if rec.id in _OVERFLOW_STEPS:
            finite[rec.id] = _finite_without_looking(run, rec, finite) or math.isfinite(t.sum())
        run.values[rec.id] = run.inputs[rec.id] = t
        if rec.stands_for is not None:
            run.inputs[rec.stands_for] = t
    run.state.clear()
    run.inputs.clear()
    values = run.values
    named = {m.name for m in found.modifiers + found.blocks}
    mods = tuple(p.kind for p in sc.modifiers if p.kind in named)  # the parts' names, in their order
    # and the mask rules that write the mask's formula their own way (the pyramid)
    mods += tuple(r.name for r in found.rules if getattr(r, "formulas", None))
    out = [Step(r.id, values[r.id], r.dims, sc.scoring, mods) for r in step_registry.RECORDS if r.id in values]
    warnings: list[Problem] = []

    mask = values.get("extra.mask")
    masked_nan = None  # (B, L): rows NaN by design (every key masked, -inf fill)
    if mask is not None:
        full = values["extra.fully_masked"]  # (B, L)
        said = [m.fully_masked_code for m in found.modifiers if hasattr(m, "fully_masked_code")]
        warning = _fully_masked_warning(full, sc.fill_value, said[0] if said else None)
        if warning:
            warnings.append(warning)
        if not math.isfinite(sc.fill_value):
            masked_nan = full
    selected = values.get("extra.selected")  # (B, H, L): ProbSparse's computed rows
    if selected is None and hasattr(kind, "scored_cells"):  # Auto-Correlation: the cells it has a score for
        selected = kind.scored_cells(values)
    overflow = _overflow_warning(out, masked_nan, selected, dt, finite)
    if overflow:
        warnings.append(overflow)

    q, k = values["head_split.query"], values["head_split.key"]
    options = {
        "n_heads": H, "n_kv_heads": sc.kv_heads, "d_model": sc.d_model, "d_keys": sc.dk, "d_values": sc.dv,
        "query_head_width": q.shape[-1], "key_head_width": k.shape[-1],
        "scoring": sc.scoring, "scale": run.scale, "default_scale": plan.default_scale, "causal": sc.causal,
        "valid_lens": None if sc.valid_lens is None else np.asarray(sc.valid_lens).astype(int).tolist(),
        "fill_value": sc.fill_value, "factor": sc.factor, "seed": sc.seed, "mix": sc.mix,
        "sample_recorded": sc.sample_index is not None,
        "device": dev.type, "dtype": str(dt).removeprefix("torch."),
        "batch": B, "L": L, "S": S, "d_out": sc.d_out,
        "hidden": None,
    }
    options.update(kind.options(sc))  # what the scoring kind adds (additive: hidden; ProbSparse: n_sample, n_top)
    options.update(plan.part_options)  # the positions, modifiers and mask rules, when the scenario has some
    return Trace(tuple(out), options, params, tuple(warnings), plan)
