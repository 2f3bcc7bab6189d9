"""The scenario: every number and option that goes into one attention layer.

A `Scenario` is plain data (numpy float64 arrays and Python scalars): no torch, no Qt, no I/O.
The GUI edits it (via `dataclasses.replace`), the file loader builds it, the engine reads it.
`problems(scenario)` lists everything the engine could not run, one `attention.datamodel.problem.Problem`
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
from dataclasses import dataclass, field
from typing import Iterable, Optional, Union

import numpy as np

from attention.datamodel.numbers import rounded
from attention.datamodel.problem import Phrase, Problem, as_problems, elide, literal, render_lines
from attention.datamodel.problem import shape as _shape

PROJECTIONS = ("query", "key", "value", "out")
DEVICES = ("cpu", "cuda")
DTYPES = ("float32", "float64")
#: The largest float32 (torch.finfo(torch.float32).max), without importing torch.
FLOAT32_MAX = float(np.finfo(np.float32).max)


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
    # The composed scenario's generic parts (attention/datamodel/parts.py): each a kind's name and its field
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
    # gives it and no token labels gets dated step labels (time_labels.date_labels).  None: no dates.
    time_axis: Optional[dict] = None
    query_tokens: Optional[tuple] = None
    key_tokens: Optional[tuple] = None
    # Where the numbers came from in the file this was loaded from (attention.files.scenario_io): a
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

    def prob_sparse_sizes(self) -> tuple[int, int]:
        """(n_sample, n_top) = (c*ceil(ln S), c*ceil(ln L)), each clipped to S and L, as Informer."""
        c = int(self.factor)
        n_sample = min(c * int(math.ceil(math.log(self.S))), self.S)
        n_top = min(c * int(math.ceil(math.log(self.L))), self.L)
        return n_sample, n_top


# ---- semantic checks -------------------------------------------------------------------------


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
