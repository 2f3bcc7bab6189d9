"""The scenario: every number and option that goes into one attention layer.

A `Scenario` is plain data (numpy float64 arrays and Python scalars): no torch, no Qt, no I/O.
The GUI edits it (via `dataclasses.replace`), the file loader builds it, the engine reads it.
`problems(scenario)` lists everything the engine could not run, one `attention.problem.Problem`
per problem (a code, the field path it concerns, the arguments of its sentence), so that a window
can show it next to the control that caused it, in its own language.

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
from typing import Any, Iterable, Optional, Union

import numpy as np

from attention.datamodel.numbers import rounded
from attention.datamodel.problem import Phrase, Problem, as_problems, count, elide, literal, render_lines
from attention.datamodel.problem import shape as _shape

PROJECTIONS = ("query", "key", "value", "out")
DEVICES = ("cpu", "cuda")
DTYPES = ("float32", "float64")
#: The largest float32 (torch.finfo(torch.float32).max), without importing torch.
FLOAT32_MAX = float(np.finfo(np.float32).max)


def __getattr__(name: str) -> Any:
    """SCORINGS: the scoring kinds' names, from the one table (attention/kinds/), read on first use
    (the kinds' modules read this one)."""
    if name == "SCORINGS":
        from attention.registry import kinds

        return tuple(kinds.SCORING)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ScenarioError(ValueError):
    """Bad input.  `problems` holds one `Problem` per problem (code, field path, arguments);
    `lines` renders them in the current language, at most MAX_LINES of them (the last one then
    says how many more there are).  `omitted` counts problems found but not kept (a file with
    200,000 unknown fields keeps the first few hundred)."""

    def __init__(self, problems: Iterable[Union[Problem, str]], omitted: int = 0):
        self.problems: tuple[Problem, ...] = tuple(as_problems(problems))
        self.omitted = int(omitted)
        super().__init__("\n".join(render_lines(self.problems, "en", omitted=self.omitted)))

    @property
    def lines(self) -> list[str]:
        return render_lines(self.problems, omitted=self.omitted)


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
    scale: Optional[float] = None  # None -> the scoring kind's default (1/sqrt(d_keys) or 1)
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
    # key/value heads (grouped-query attention; 1: multi-query): query head h reads key/value
    # head h // (n_heads // n_kv_heads), as SDPA's enable_gqa and Hugging Face's repeat_kv.
    # None: one per query head.
    n_kv_heads: Optional[int] = None
    # The composed scenario's generic parts (attention/parts.py): each a kind's name and its field
    # values, so that a new kind needs no attribute of its own here.
    positions: tuple = ()  # position encodings (RoPE ...), applied in order
    modifiers: tuple = ()  # score modifiers (ALiBi, soft-capping, sinks ...), applied in order
    masks: tuple = ()  # mask rules beyond `causal` and `valid_lens` (windows, drawn masks ...)
    # Teaching material; never read by the engine.
    title: dict = field(default_factory=lambda: {"en": "", "zh": ""})
    notes: dict = field(default_factory=lambda: {"en": "", "zh": ""})
    # Where the weights came from, said wherever they show (Parameters > Projections, Inputs > Weights, the
    # projection panes): "dequantized 4-bit (Q4_1)" for a layer of a quantized GGUF file; "" says nothing.
    weights_note: dict = field(default_factory=lambda: {"en": "", "zh": ""})
    # Tokens that are time: {"start": "2016-07-01 00:00", "freq": "h"} (TSL's --freq letters); a file that
    # gives it and no token labels gets dated step labels (attention.time_labels.date_labels).  None: no dates.
    time_axis: Optional[dict] = None
    query_tokens: Optional[tuple] = None
    key_tokens: Optional[tuple] = None
    # Where the numbers came from in the file this was loaded from (attention.scenario_io): a
    # matrix's file path -> the generator object that made it, or scenario_io.DRAWN for additive
    # weights the file left to the seed.  Edits keep it (dataclasses.replace) and saving writes a
    # recipe again only while the matrix is still bitwise what the recipe makes, so a stale entry
    # can never change a number.  Not part of a scenario's identity: never compared or hashed.
    recipes: dict = field(default_factory=dict, compare=False, repr=False)

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
    def kv_heads(self) -> int:
        """The number of key/value heads (n_kv_heads, or n_heads when it is None)."""
        return int(self.n_kv_heads) if self.n_kv_heads is not None else self.n_heads

    @property
    def query_head_width(self) -> int:
        p = self.projection("query")
        width = p.weight.shape[0] if p is not None else self.d_model
        return width // max(self.n_heads, 1)

    @property
    def key_head_width(self) -> int:
        p = self.projection("key")
        width = p.weight.shape[0] if p is not None else self.keys.shape[2]
        return width // max(self.kv_heads, 1)

    @property
    def d_out(self) -> int:
        p = self.projection("out")
        return int(p.weight.shape[0]) if p is not None else self.n_heads * self.dv

    def resolved_scale(self) -> float:
        """The number the scores are multiplied by (an explicit 0 is honoured)."""
        return float(self.scale) if self.scale is not None else self.default_scale()

    def default_scale(self) -> float:
        """The scale when none is set, the scoring kind's: 1/√d_keys for scaled dot and ProbSparse, else 1."""
        from attention.registry import kinds

        return kinds.scoring(self).default_scale(self)

    def prob_sparse_sizes(self) -> tuple[int, int]:
        """(n_sample, n_top) = (c*ceil(ln S), c*ceil(ln L)), each clipped to S and L, as Informer."""
        c = int(self.factor)
        n_sample = min(c * int(math.ceil(math.log(self.S))), self.S)
        n_top = min(c * int(math.ceil(math.log(self.L))), self.L)
        return n_sample, n_top


# ---- semantic checks -------------------------------------------------------------------------

#: Refuse traces whose tensors would need more than this many bytes (estimated before
#: allocating anything).  Default: the memory free now (attention.memory), at most 60% of physical
#: memory; override with AE_MEMORY_LIMIT (bytes).
def memory_limit() -> int:
    from attention.compute import memory

    env = os.environ.get("AE_MEMORY_LIMIT")
    if env:
        return int(float(env))
    return min(int(0.6 * memory.physical_bytes()), memory.available_bytes())


def estimate_trace_bytes(
    B: int, L: int, S: int, H: int, dk: int, dv: int, d_q: int, d_k: int, d_v: int,
    d_out: int, hidden: int = 0, itemsize: int = 8, n_sample: int = 0,
) -> int:
    """Upper estimate of the bytes a trace keeps (plus the largest temporary)."""
    bhls = B * H * L * S
    per_row = B * (L * (d_q + 3 * H * dk + 2 * H * dv + d_out) + S * (d_k + d_v + 4 * H * max(dk, dv)))
    temp = B * H * L * S * hidden if hidden else 0  # additive: tanh features (B,H,L,hidden,S), kept in the trace
    temp += B * H * L * n_sample * (dk + 1)  # prob_sparse: sampled keys (B,H,L,n_sample,dk) and scores
    return itemsize * (4 * bhls + per_row + temp)


def _all_finite(a: np.ndarray) -> bool:
    """No NaN or infinity in `a`.  A finite sum proves it without a boolean temporary the size of
    `a` (any NaN or infinity makes the sum non-finite); only an overflowing sum needs the full check."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(a)):
            return True
    return bool(np.all(np.isfinite(a)))


def _shape_problem(path: str, expected, got) -> Problem:
    return Problem("shape", path, {"expected": _shape(expected), "got": _shape(got)})


def _r(v) -> str:
    """A Python value as the engine quotes it (repr), never long, never failing on a huge int."""
    if isinstance(v, int) and not isinstance(v, bool):
        return literal(v)
    return elide(repr(v))


def _got(v) -> Phrase:
    return Phrase("got_literal", {"v": _r(v)})


def _value_problem(path: str, a: np.ndarray, dtype: str) -> Optional[Problem]:
    """NaN or infinity in `a`, or (for a float32 scenario) a number float32 cannot hold: the one
    check the loader, `validate`, the engine and the window share."""
    if not _all_finite(a):
        return Problem("not_finite", path)
    if dtype == "float32" and a.size and float(np.max(np.abs(a))) > FLOAT32_MAX:
        return beyond_dtype(path, "float32")
    return None


def beyond_dtype(path: str, dtype: str) -> Problem:
    limit = FLOAT32_MAX if dtype == "float32" else float(np.finfo(np.float64).max)
    return Problem("beyond_dtype", path, {"dtype": dtype, "limit": rounded(limit)})  # 3.403e38, as the overflow warning


def problems(sc: Scenario, check_values: bool = True) -> list[Problem]:
    """Everything that stops the engine from running `sc`, one `Problem` per problem.

    check_values=False skips the scan of every number for NaN, infinity and float32's range: the
    engine scans the tensors it converts anyway (cheaper than a second pass over the numpy arrays)
    and asks again with check_values=True only when that scan finds something."""
    errs: list[Problem] = []
    for name, arr in (("queries", sc.queries), ("keys", sc.keys), ("values", sc.values)):
        if arr.ndim != 3:
            errs.append(Problem("expected_3d", name, {"ndim": arr.ndim}))
        elif 0 in arr.shape:
            errs.append(Problem("empty_dimension", name, {"shape": _shape(arr.shape)}))
        elif check_values:
            bad = _value_problem(name, arr, sc.dtype)
            if bad is not None:
                errs.append(bad)
    if errs:
        return errs
    B, L, d_q = sc.queries.shape
    _, S, d_kin = sc.keys.shape
    if sc.keys.shape[0] != B:
        errs.append(Problem("batch_differs", "keys", {"batch": sc.keys.shape[0], "queries": B}))
    if sc.values.shape[0] != B:
        errs.append(Problem("batch_differs", "values", {"batch": sc.values.shape[0], "queries": B}))
    if sc.values.shape[1] != S:
        errs.append(Problem("positions", "values", {"n": sc.values.shape[1], "S": S}))
    from attention.registry import kinds

    if not kinds.known_scoring(sc.scoring):
        choices = ", ".join(kinds.SCORING)
        errs.append(Problem("scoring_unknown", "scoring", {"kind": _r(sc.scoring), "choices": choices}))
        return errs
    kind = kinds.scoring(sc)
    H = sc.n_heads
    if not isinstance(H, int) or isinstance(H, bool) or H < 1:
        errs.append(Problem("expected_int", "n_heads", {"minimum": 1, "got": _got(H)}))
        return errs
    for fld in ("d_keys", "d_values"):
        v = getattr(sc, fld)
        if v is not None and (not isinstance(v, int) or v < 1):
            errs.append(Problem("expected_int_or_null", fld, {"minimum": 1, "got": _got(v)}))
    kv = sc.n_kv_heads
    if kv is not None and (isinstance(kv, bool) or not isinstance(kv, int) or kv < 1):
        errs.append(Problem("expected_int_or_null", "n_kv_heads", {"minimum": 1, "got": _got(kv)}))
    elif kv is not None and H % kv:
        errs.append(Problem("kv_heads_divide", "n_kv_heads", {"kv": kv, "H": H}))
    elif kv is not None and kv != H and not kind.grouped_kv:
        errs.append(Problem("kv_heads_kind", "n_kv_heads", {"kv": kv, "H": H, "kind": _r(sc.scoring)}))
    if errs:
        return errs
    if (sc.d_keys is None or sc.d_values is None) and d_q % H:
        which = [f for f in ("d_keys", "d_values") if getattr(sc, f) is None]
        names = which[0] if len(which) == 1 else Phrase("both", {"a": which[0], "b": which[1]})
        errs.append(Problem("heads_divide", "n_heads", {"H": H, "d_model": d_q, "which": names}))
        return errs
    dk, dv, Hkv = sc.dk, sc.dv, sc.kv_heads
    errs += _projection_problems(sc, "query", d_q, H * dk, not kind.free_widths, check_values)
    errs += _projection_problems(sc, "key", d_kin, Hkv * dk, not kind.free_widths, check_values, Hkv)
    errs += _projection_problems(sc, "value", sc.values.shape[2], Hkv * dv, True, check_values, Hkv)
    out = sc.projection("out")
    if out is not None:
        if out.weight.ndim != 2 or out.weight.shape[1] != H * dv:
            rows = out.weight.shape[0] if out.weight.ndim == 2 else d_q
            errs.append(_shape_problem("projections.out.weight", [rows, H * dv], out.weight.shape))
        elif out.bias is not None and out.bias.shape != (out.weight.shape[0],):
            errs.append(_shape_problem("projections.out.bias", [out.weight.shape[0]], out.bias.shape))
        elif check_values:
            for path, a in (("projections.out.weight", out.weight), ("projections.out.bias", out.bias)):
                bad = None if a is None else _value_problem(path, a, sc.dtype)
                if bad is not None:
                    errs.append(bad)
                    break
    if not errs:
        errs += kind.weight_problems(sc, check_values)  # the kind's own weights (additive's W_q, W_k, w_v)
    for rule in kinds.MASK_RULES.values():
        errs += rule.problems(sc)
    errs += kind.option_problems(sc, errs)  # the kind's own options (ProbSparse's factor, sample ...)
    from attention.datamodel import parts

    errs += parts.problems(sc)  # the generic parts: known kinds, values their fields allow
    for other in kinds.SCORING.values():
        if other is not kind:
            errs += other.stray_problems(sc)  # another kind's option set: it would mean nothing here
    if sc.scale is not None and (isinstance(sc.scale, bool) or not isinstance(sc.scale, numbers.Real)
                                 or not math.isfinite(sc.scale)):
        errs.append(Problem("expected_number_or_null", "scale", {"got": _got(sc.scale)}))
    if (isinstance(sc.fill_value, bool) or not isinstance(sc.fill_value, numbers.Real)
            or not (sc.fill_value == -math.inf or math.isfinite(sc.fill_value))):
        errs.append(Problem("fill_bad", "fill_value", {"got": _r(sc.fill_value)}))
    if sc.device not in DEVICES:
        errs.append(Problem("device_bad", "device", {"got": _r(sc.device)}))
    if sc.dtype not in DTYPES:
        errs.append(Problem("dtype_bad", "dtype", {"got": _r(sc.dtype)}))
    for name, toks, n in (("query_tokens", sc.query_tokens, L), ("key_tokens", sc.key_tokens, S)):
        if toks is not None and len(toks) != n:
            code = "query_labels" if name[0] == "q" else "key_labels"
            errs.append(Problem(code, name, {"n": n, "got": len(toks)}))
    if not errs:
        hidden, n_sample = kind.memory_terms(sc)
        itemsize = 4 if sc.dtype == "float32" else 8
        need = estimate_trace_bytes(B, L, S, H, dk, dv, d_q, d_kin, sc.values.shape[2], sc.d_out,
                                    hidden, itemsize, n_sample)
        # the numbers a score modifier's steps keep (ALiBi's bias and biased scores, a sink's column ...)
        need += itemsize * sum(m.memory_numbers(sc) for m in kinds.modifiers(sc) if hasattr(m, "memory_numbers"))
        limit = memory_limit()
        if need > limit:
            errs.append(Problem("sizes", "sizes", {"need": _gib(need), "limit": _gib(limit)}))
    return errs


def _gib(n: int) -> str:
    """Bytes in GiB with one decimal; sizes beyond what a float holds are said by their size."""
    return f"{n / 2**30:.1f}" if n.bit_length() < 1000 else count(n // 2**30)


def _projection_problems(sc: Scenario, name: str, in_width: int, out_width: int, dims_fixed: bool,
                         check_values: bool = True, heads: Optional[int] = None) -> list[Problem]:
    """`heads`: the heads this projection is split into (the key/value heads for K and V)."""
    p = sc.projection(name)
    path = f"projections.{name}"
    H = sc.n_heads if heads is None else heads
    grouped = heads is not None and heads != sc.n_heads
    src = {"query": "queries", "key": "keys", "value": "values"}[name]
    if p is None:
        if dims_fixed and in_width != out_width:
            knob = "d_values" if name == "value" else "d_keys"
            fix = in_width // H if in_width % H == 0 else Phrase("a_divisor")
            code = "identity_width_kv" if grouped else "identity_width"
            return [Problem(code, path, {"src": src, "width": in_width, "knob": knob, "H": H,
                                                     "per_head": out_width // H, "out": out_width, "fix": fix})]
        if not dims_fixed and in_width % H:
            return [Problem("identity_divisible", path, {"src": src, "width": in_width, "H": H})]
        return []
    w = p.weight
    expected_out = out_width if dims_fixed else (w.shape[0] if w.ndim == 2 and w.shape[0] % H == 0 else out_width)
    if w.ndim != 2 or w.shape != (expected_out, in_width):
        return [_shape_problem(f"{path}.weight", [expected_out, in_width], w.shape)]
    if check_values:
        bad = _value_problem(f"{path}.weight", w, sc.dtype)
        if bad is not None:
            return [bad]
    if p.bias is not None:
        if p.bias.shape != (w.shape[0],):
            return [_shape_problem(f"{path}.bias", [w.shape[0]], p.bias.shape)]
        if check_values:
            bad = _value_problem(f"{path}.bias", p.bias, sc.dtype)
            if bad is not None:
                return [bad]
    return []


def same(a: Scenario, b: Scenario) -> bool:
    """Exact equality of two scenarios, arrays compared element by element (NaN-free by design)."""
    import dataclasses

    def eq(x, y) -> bool:
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            return (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.shape == y.shape
                    and bool(np.array_equal(x, y)))
        if dataclasses.is_dataclass(x) and dataclasses.is_dataclass(y):
            return type(x) is type(y) and all(eq(getattr(x, f.name), getattr(y, f.name))
                                              for f in dataclasses.fields(x) if f.compare)
        if isinstance(x, dict) and isinstance(y, dict):
            keys = {k for k, v in x.items() if v is not None} | {k for k, v in y.items() if v is not None}
            return all(eq(x.get(k), y.get(k)) for k in keys)
        if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
            return len(x) == len(y) and all(eq(i, j) for i, j in zip(x, y))
        return x == y

    return eq(a, b)
