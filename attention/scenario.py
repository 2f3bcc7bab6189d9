"""The scenario: every number and option that goes into one attention layer.

A `Scenario` is plain data (numpy float64 arrays and Python scalars): no torch, no Qt, no I/O.
The GUI edits it (via `dataclasses.replace`), the file loader builds it, the engine reads it.
`problems(scenario)` lists everything the engine could not run, one line per problem, each
starting with the field path it concerns (``n_heads: ...``) so that a window can show it next
to the control that caused it.

Conventions (see docs/scenario-format.md):
- d_model is the width of the queries; d_keys / d_values default to d_model // n_heads, as in
  the Time-Series-Library ``AttentionLayer``.
- A projection is an ``nn.Linear``-style weight (out, in) with an optional bias, or ``None``
  (identity, as in d2l's scoring functions: then the input width must already be H * d).
"""
from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field
from typing import Literal, Optional

import numpy as np

SCORINGS = ("scaled_dot", "dot", "additive", "prob_sparse")
Scoring = Literal["scaled_dot", "dot", "additive", "prob_sparse"]
PROJECTIONS = ("query", "key", "value", "out")
DEVICES = ("cpu", "cuda")
DTYPES = ("float32", "float64")


class ScenarioError(ValueError):
    """Bad input.  `lines` holds one message per problem, each starting with a field path."""

    def __init__(self, lines: list[str]):
        self.lines = list(lines)
        super().__init__("\n".join(self.lines))


@dataclass(frozen=True)
class Projection:
    """An nn.Linear layer: y = x @ weight.T + bias.  weight (out, in), bias (out,) or None."""

    weight: np.ndarray
    bias: Optional[np.ndarray] = None


@dataclass(frozen=True)
class Additive:
    """d2l AdditiveAttention weights, one set per head (all bias-free, as in d2l).

    W_q (H, hidden, query head width), W_k (H, hidden, key head width), w_v (H, hidden).
    """

    hidden: int
    W_q: np.ndarray
    W_k: np.ndarray
    w_v: np.ndarray


@dataclass(frozen=True)
class Scenario:
    queries: np.ndarray  # (B, L, d_q)
    keys: np.ndarray  # (B, S, d_k_in)
    values: np.ndarray  # (B, S, d_v_in)
    n_heads: int = 1
    d_keys: Optional[int] = None  # None -> d_model // n_heads
    d_values: Optional[int] = None  # None -> d_model // n_heads
    projections: dict = field(default_factory=dict)  # name -> Projection; missing/None = identity
    scoring: str = "scaled_dot"
    scale: Optional[float] = None  # None -> 1/sqrt(d_keys) (scaled_dot, prob_sparse) or 1
    additive: Optional[Additive] = None
    causal: bool = False
    valid_lens: Optional[np.ndarray] = None  # (B,) or (B, L); key s >= len is masked
    fill_value: float = -1e6
    factor: int = 5  # prob_sparse c
    seed: int = 0  # prob_sparse key sampling (and generated additive weights)
    mix: bool = False  # prob_sparse: TSL's view of (B,H,L,D) as (B,L,H*D) without transpose
    # prob_sparse: the key sample itself (L, n_sample) int, e.g. recorded from a real model's
    # forward (attention.capture); None -> drawn from `seed`.  Replaces the seeded draw when set.
    sample_index: Optional[np.ndarray] = None
    device: str = "cpu"
    dtype: str = "float64"
    # Teaching material; never read by the engine.
    title: dict = field(default_factory=lambda: {"en": "", "zh": ""})
    notes: dict = field(default_factory=lambda: {"en": "", "zh": ""})
    query_tokens: Optional[tuple] = None
    key_tokens: Optional[tuple] = None

    # ---- sizes ---------------------------------------------------------------------------
    @property
    def batch(self) -> int:
        return int(self.queries.shape[0])

    @property
    def L(self) -> int:
        return int(self.queries.shape[1])

    @property
    def S(self) -> int:
        return int(self.keys.shape[1])

    @property
    def d_model(self) -> int:
        return int(self.queries.shape[2])

    def projection(self, name: str) -> Optional[Projection]:
        return self.projections.get(name)

    @property
    def dk(self) -> int:
        """Per-head query/key width used by the dot-product kinds."""
        return int(self.d_keys) if self.d_keys else self.d_model // max(self.n_heads, 1)

    @property
    def dv(self) -> int:
        return int(self.d_values) if self.d_values else self.d_model // max(self.n_heads, 1)

    @property
    def query_head_width(self) -> int:
        p = self.projection("query")
        width = p.weight.shape[0] if p is not None else self.d_model
        return width // max(self.n_heads, 1)

    @property
    def key_head_width(self) -> int:
        p = self.projection("key")
        width = p.weight.shape[0] if p is not None else self.keys.shape[2]
        return width // max(self.n_heads, 1)

    @property
    def d_out(self) -> int:
        p = self.projection("out")
        return int(p.weight.shape[0]) if p is not None else self.n_heads * self.dv

    def resolved_scale(self) -> float:
        """The number the scores are multiplied by (an explicit 0 is honoured)."""
        return float(self.scale) if self.scale is not None else self.default_scale()

    def default_scale(self) -> float:
        """The scale when none is set: 1/√d_keys for scaled dot and ProbSparse, else 1."""
        if self.scoring in ("scaled_dot", "prob_sparse"):
            return 1.0 / math.sqrt(self.dk)
        return 1.0

    def prob_sparse_sizes(self) -> tuple[int, int]:
        """(n_sample, n_top) = (c*ceil(ln S), c*ceil(ln L)), each clipped to S and L, as Informer."""
        c = int(self.factor)
        n_sample = min(c * int(math.ceil(math.log(self.S))), self.S)
        n_top = min(c * int(math.ceil(math.log(self.L))), self.L)
        return n_sample, n_top


# ---- semantic checks -------------------------------------------------------------------------

#: Refuse traces whose tensors would need more than this many bytes (estimated before
#: allocating anything).  Default: 60% of physical memory; override with AE_MEMORY_LIMIT (bytes).
def memory_limit() -> int:
    env = os.environ.get("AE_MEMORY_LIMIT")
    if env:
        return int(float(env))
    try:
        return int(0.6 * os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def estimate_trace_bytes(
    B: int, L: int, S: int, H: int, dk: int, dv: int, d_q: int, d_k: int, d_v: int,
    d_out: int, hidden: int = 0, itemsize: int = 8, n_sample: int = 0,
) -> int:
    """Upper estimate of the bytes a trace keeps (plus the largest temporary)."""
    bhls = B * H * L * S
    per_row = B * (L * (d_q + 3 * H * dk + 2 * H * dv + d_out) + S * (d_k + d_v + 4 * H * max(dk, dv)))
    temp = B * H * L * S * hidden if hidden else 0  # additive: tanh features (B,H,L,S,hidden)
    temp += B * H * L * n_sample * (dk + 1)  # prob_sparse: sampled keys (B,H,L,n_sample,dk) and scores
    return itemsize * (4 * bhls + per_row + temp)


def _all_finite(a: np.ndarray) -> bool:
    """No NaN or infinity in `a`.  A finite sum proves it without a boolean temporary the size of
    `a` (any NaN or infinity makes the sum non-finite); only an overflowing sum needs the full check."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(a)):
            return True
    return bool(np.all(np.isfinite(a)))


def _shape_line(path: str, expected, got) -> str:
    return f"{path}: expected shape {list(expected)}, got {list(got)}"


def problems(sc: Scenario, check_values: bool = True) -> list[str]:
    """Everything that stops the engine from running `sc`, one line per problem.

    check_values=False skips the scan of every number for NaN and infinity: the engine scans
    the tensors it converts anyway (cheaper than a second pass over the numpy arrays) and asks
    again with check_values=True only when that scan finds something."""
    errs: list[str] = []
    for name, arr in (("queries", sc.queries), ("keys", sc.keys), ("values", sc.values)):
        if arr.ndim != 3:
            errs.append(f"{name}: expected a 3-D array (batch, positions, features), got {arr.ndim}-D")
        elif 0 in arr.shape:
            errs.append(f"{name}: every dimension must be at least 1, got shape {list(arr.shape)}")
        elif check_values and not _all_finite(arr):
            errs.append(f"{name}: every number must be finite (found NaN or infinity)")
    if errs:
        return errs
    B, L, d_q = sc.queries.shape
    _, S, d_kin = sc.keys.shape
    if sc.keys.shape[0] != B:
        errs.append(f"keys: batch size {sc.keys.shape[0]} differs from queries' {B}")
    if sc.values.shape[0] != B:
        errs.append(f"values: batch size {sc.values.shape[0]} differs from queries' {B}")
    if sc.values.shape[1] != S:
        errs.append(f"values: {sc.values.shape[1]} positions, expected S = {S} (one value per key)")
    if sc.scoring not in SCORINGS:
        errs.append(f"scoring: unknown kind {sc.scoring!r}; expected one of {', '.join(SCORINGS)}")
        return errs
    H = sc.n_heads
    if not isinstance(H, int) or H < 1:
        errs.append(f"n_heads: expected a whole number >= 1, got {H!r}")
        return errs
    for fld in ("d_keys", "d_values"):
        v = getattr(sc, fld)
        if v is not None and (not isinstance(v, int) or v < 1):
            errs.append(f"{fld}: expected a whole number >= 1 or null (default d_model // n_heads), got {v!r}")
    if errs:
        return errs
    if (sc.d_keys is None or sc.d_values is None) and d_q % H:
        which = " and ".join(f for f in ("d_keys", "d_values") if getattr(sc, f) is None)
        errs.append(
            f"n_heads: {H} heads do not divide d_model = {d_q} (the queries' width), which {which} "
            f"default to; choose a head count that divides {d_q} or set {which}"
        )
        return errs
    dk, dv = sc.dk, sc.dv
    additive = sc.scoring == "additive"
    errs += _projection_problems(sc, "query", d_q, H * dk, not additive, check_values)
    errs += _projection_problems(sc, "key", d_kin, H * dk, not additive, check_values)
    errs += _projection_problems(sc, "value", sc.values.shape[2], H * dv, True, check_values)
    out = sc.projection("out")
    if out is not None:
        if out.weight.ndim != 2 or out.weight.shape[1] != H * dv:
            errs.append(_shape_line("projections.out.weight", [out.weight.shape[0] if out.weight.ndim == 2 else d_q, H * dv], out.weight.shape))
        elif out.bias is not None and out.bias.shape != (out.weight.shape[0],):
            errs.append(_shape_line("projections.out.bias", [out.weight.shape[0]], out.bias.shape))
        elif check_values and not _all_finite(out.weight):
            errs.append("projections.out.weight: every number must be finite (found NaN or infinity)")
        elif check_values and out.bias is not None and not _all_finite(out.bias):
            errs.append("projections.out.bias: every number must be finite (found NaN or infinity)")
    if additive and not errs:
        errs += _additive_problems(sc, check_values)
    errs += _mask_problems(sc, B, L, S)
    if sc.scoring == "prob_sparse":
        if isinstance(sc.factor, bool) or not isinstance(sc.factor, int) or sc.factor < 1:
            errs.append(f"factor: expected a whole number >= 1, got {sc.factor!r}")
        if L < 2 or S < 2:
            errs.append(f"scoring: prob_sparse needs at least 2 queries and 2 keys (ln 1 = 0 samples), got L = {L}, S = {S}")
        if sc.valid_lens is not None:
            errs.append("valid_lens: prob_sparse does not support valid lengths (neither Informer nor Time-Series-Library defines them); remove valid_lens or pick another scoring kind")
        if sc.causal and L != S:
            errs.append(f"causal: causal prob_sparse needs L == S (the lazy rows are a cumulative sum over positions), got L = {L}, S = {S}")
        if sc.sample_index is not None and not errs:
            errs += _sample_index_problems(sc, L, S)
    elif sc.mix:
        errs.append("mix: only meaningful for prob_sparse (Time-Series-Library's head/position mixing); set it to false")
    elif sc.sample_index is not None:
        errs.append("sample_index: only meaningful for prob_sparse (the recorded key sample); remove it")
    if sc.scale is not None and (isinstance(sc.scale, bool) or not isinstance(sc.scale, numbers.Real)
                                 or not math.isfinite(sc.scale)):
        errs.append(f"scale: expected a finite number or null, got {sc.scale!r}")
    if (isinstance(sc.fill_value, bool) or not isinstance(sc.fill_value, numbers.Real)
            or not (sc.fill_value == -math.inf or math.isfinite(sc.fill_value))):
        errs.append(f"fill_value: expected a finite number or -inf, got {sc.fill_value!r}")
    if sc.device not in DEVICES:
        errs.append(f"device: expected 'cpu' or 'cuda', got {sc.device!r}")
    if sc.dtype not in DTYPES:
        errs.append(f"dtype: expected 'float32' or 'float64', got {sc.dtype!r}")
    for name, toks, n in (("query_tokens", sc.query_tokens, L), ("key_tokens", sc.key_tokens, S)):
        if toks is not None and len(toks) != n:
            errs.append(f"{name}: expected {n} labels (one per {'query' if name[0] == 'q' else 'key'}), got {len(toks)}")
    if not errs:
        hidden = sc.additive.hidden if (additive and sc.additive is not None) else 0
        n_sample = sc.prob_sparse_sizes()[0] if sc.scoring == "prob_sparse" else 0
        need = estimate_trace_bytes(B, L, S, H, dk, dv, d_q, d_kin, sc.values.shape[2], sc.d_out,
                                    hidden, 4 if sc.dtype == "float32" else 8, n_sample)
        limit = memory_limit()
        if need > limit:
            errs.append(
                f"sizes: this trace would need about {need / 2**30:.1f} GiB, more than the "
                f"{limit / 2**30:.1f} GiB allowed; reduce B, L, S or n_heads"
            )
    return errs


def _projection_problems(sc: Scenario, name: str, in_width: int, out_width: int, dims_fixed: bool,
                         check_values: bool = True) -> list[str]:
    p = sc.projection(name)
    path = f"projections.{name}"
    H = sc.n_heads
    src = {"query": "queries", "key": "keys", "value": "values"}[name]
    if p is None:
        if dims_fixed and in_width != out_width:
            knob = "d_values" if name == "value" else "d_keys"
            return [
                f"{path}: absent (identity) needs the {src}' width {in_width} to equal n_heads * {knob} = "
                f"{H} * {out_width // H} = {out_width}; give a weight or set {knob} to {in_width // H if in_width % H == 0 else 'a divisor'}"
            ]
        if not dims_fixed and in_width % H:
            return [f"{path}: absent (identity) needs the {src}' width {in_width} to be divisible by n_heads = {H}"]
        return []
    w = p.weight
    expected_out = out_width if dims_fixed else (w.shape[0] if w.ndim == 2 and w.shape[0] % H == 0 else out_width)
    if w.ndim != 2 or w.shape != (expected_out, in_width):
        return [_shape_line(f"{path}.weight", [expected_out, in_width], w.shape)]
    if check_values and not _all_finite(w):
        return [f"{path}.weight: every number must be finite (found NaN or infinity)"]
    if p.bias is not None:
        if p.bias.shape != (w.shape[0],):
            return [_shape_line(f"{path}.bias", [w.shape[0]], p.bias.shape)]
        if check_values and not _all_finite(p.bias):
            return [f"{path}.bias: every number must be finite (found NaN or infinity)"]
    return []


def _additive_problems(sc: Scenario, check_values: bool = True) -> list[str]:
    a = sc.additive
    if a is None:
        return ["additive: the additive kind needs its weights (hidden, W_q, W_k, w_v)"]
    H, n = sc.n_heads, a.hidden
    if not isinstance(n, int) or n < 1:
        return [f"additive.hidden: expected a whole number >= 1, got {n!r}"]
    errs = []
    for name, arr, shape in (
        ("W_q", a.W_q, (H, n, sc.query_head_width)),
        ("W_k", a.W_k, (H, n, sc.key_head_width)),
        ("w_v", a.w_v, (H, n)),
    ):
        if arr.shape != shape:
            errs.append(_shape_line(f"additive.{name}", shape, arr.shape))
        elif check_values and not _all_finite(arr):
            errs.append(f"additive.{name}: every number must be finite (found NaN or infinity)")
    return errs


def _sample_index_problems(sc: Scenario, L: int, S: int) -> list[str]:
    """A recorded key sample must be (L, n_sample) whole numbers in 0 ... S-1 (n_sample from factor and S)."""
    idx = np.asarray(sc.sample_index)
    n_sample = sc.prob_sparse_sizes()[0]
    if idx.shape != (L, n_sample):
        return [f"sample_index: expected shape [{L}, {n_sample}] (one row of sampled keys per query; n_sample = "
                f"factor * ceil(ln S)), got {list(idx.shape)}; remove it to draw the sample from seed"]
    if idx.size and (not np.all(np.isfinite(idx)) or np.any(idx != np.round(idx))):
        return ["sample_index: expected whole numbers (key positions)"]
    if idx.size and (idx.min() < 0 or idx.max() >= S):
        bad = tuple(int(i) for i in np.argwhere((idx < 0) | (idx >= S))[0])
        return [f"sample_index{list(bad)}: expected a key position between 0 and S - 1 = {S - 1}, got {int(idx[bad])}"]
    return []


def _mask_problems(sc: Scenario, B: int, L: int, S: int) -> list[str]:
    v = sc.valid_lens
    if v is None:
        return []
    if v.ndim == 1 and v.shape != (B,) or v.ndim == 2 and v.shape != (B, L) or v.ndim not in (1, 2):
        return [f"valid_lens: expected shape [{B}] (one length per batch item) or [{B}, {L}] (one per query row), got {list(v.shape)}"]
    errs = []
    if not np.all(np.isfinite(v)) or np.any(v != np.round(v)):
        errs.append("valid_lens: expected whole numbers")
    elif np.any(v < 0):
        idx = tuple(int(i) for i in np.argwhere(v < 0)[0])
        errs.append(f"valid_lens{list(idx)}: expected a length between 0 and S = {S}, got {int(v[idx])}")
    elif np.any(v > S):
        idx = tuple(int(i) for i in np.argwhere(v > S)[0])
        errs.append(f"valid_lens{list(idx)}: expected a length between 0 and S = {S}, got {int(v[idx])}")
    return errs


def same(a: Scenario, b: Scenario) -> bool:
    """Exact equality of two scenarios, arrays compared element by element (NaN-free by design)."""
    import dataclasses

    def eq(x, y) -> bool:
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            return isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.shape == y.shape and bool(np.array_equal(x, y))
        if dataclasses.is_dataclass(x) and dataclasses.is_dataclass(y):
            return type(x) is type(y) and all(eq(getattr(x, f.name), getattr(y, f.name)) for f in dataclasses.fields(x))
        if isinstance(x, dict) and isinstance(y, dict):
            keys = {k for k, v in x.items() if v is not None} | {k for k, v in y.items() if v is not None}
            return all(eq(x.get(k), y.get(k)) for k in keys)
        if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
            return len(x) == len(y) and all(eq(i, j) for i, j in zip(x, y))
        return x == y

    return eq(a, b)
