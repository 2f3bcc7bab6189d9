"""What one pane shows, cut out of a Trace for one batch item.  Qt-free (the CSV export uses it).

Every step becomes one or more 2-D matrices with named axes:
- the batch axis B is indexed away (`batch`);
- a step with heads and two more axes (head_split.*, scores, masked_scores, attention_weights,
  weighted_sum, sampled_scores) becomes one matrix per head, shown as small multiples;
- a step with heads and one more axis (sparsity M, selected, top_index) becomes one matrix with
  the heads as columns;
- a vector (fully_masked) becomes one column.
Axes are described by the engine's dim names, so a label always says what it indexes.  What kind
of numbers a step holds, what an index step points into and which steps the mask veils come
from the step's record (attention/registry/step_registry.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from app.viewmodel import cell_format, pane_text
from attention import words
from attention.compute.trace import Step, Trace
from attention.datamodel import numbers
from attention.registry import step_registry

PER_HEAD_KINDS = ("signed", "weights")


@dataclass(frozen=True)
class Axis:
    """One axis of a displayed matrix: which dim it indexes, its size and its labels."""

    dim: str
    size: int
    tokens: Optional[tuple[str, ...]] = None
    group: int = 0  # features of H heads side by side: columns per head (head boundaries)

    def name(self, lang: str) -> str:
        return pane_text.dim_name(self.dim, lang)

    def number(self, i: int) -> str:
        """Index i as a person counts along this axis: a position from 1 (attention.datamodel.numbers.position), an
        amount (a lag: 0 is no shift, pane_text.AMOUNT_DIMS) as itself."""
        return str(int(i)) if self.dim in pane_text.AMOUNT_DIMS else numbers.position(i)

    def tick(self, i: int) -> str:
        """Short tick label: the token where there is one (elided), else the position, counted
        from 1 as everything a person reads (attention.datamodel.numbers.position; heads "h1", "h2"), or the
        amount (lags 0, 1, 2, ...)."""
        if self.tokens is not None:
            return pane_text.elide(self.tokens[i], pane_text.TICK_CHARS)
        if self.dim == "H":
            return f"h{numbers.position(i)}"
        if self.dim == "N*S" and self.group:  # the key within its hidden unit's block
            return numbers.position(i % self.group)
        if self.dim == "flag":
            return ""
        return self.number(i)

    def describe(self, i: int, lang: str) -> str:
        """Hover phrase for index i, counted from 1: 'query 3 “t3”', 'feature 4 (head 2, #2)', 'head 2'."""
        noun = pane_text.dim_noun(self.dim, lang)
        if self.dim == "H":
            return pane_text.head_name(i, lang)
        if self.dim == "flag":
            return ""
        text = words.text("pane.position", lang, noun=noun, i=self.number(i))
        if self.tokens is not None:
            text += f" “{pane_text.elide(self.tokens[i], pane_text.HOVER_CHARS)}”"
        if self.group and self.dim == "N*S":  # additive features: blocks of S keys, one per hidden unit
            part = pane_text.ui("unit_part", lang, n=numbers.position(i // self.group),
                                s=numbers.position(i % self.group))
            text += f" ({part})"
        elif self.group:
            part = pane_text.ui("head_part", lang, h=numbers.position(i // self.group),
                                i=numbers.position(i % self.group))
            text += f" ({part})"
        return text


@dataclass(frozen=True)
class Layout:
    """The structure of a pane.  Equal layouts can be redrawn in place with setImage only."""

    step_id: str
    kind: str  # "signed" | "weights" | "bool" | "count" | "index"
    rows: Axis
    cols: Axis
    n_matrices: int
    per_head: bool


@dataclass(frozen=True)
class PaneData:
    layout: Layout
    step: Step
    batch: int
    block: np.ndarray  # (n_matrices, rows, cols), the trace's numbers for this batch item
    masked: Optional[np.ndarray]  # (rows, cols) bool, True = masked, shared by all matrices
    mask_style: Optional[str]  # "veil" (scores, weights) | "hatch" (the mask itself) | None
    nan_label: str  # cell text for NaN: "n/c" (ProbSparse never computed it) or "NaN"
    value_axis: Optional[Axis]  # for index steps: the axis the values point into
    fill_value: Optional[float] = None  # what masked scores were replaced by
    kv_group: int = 1  # grouped-query attention: query heads per key/value head of this step's matrices
    reads_kv: int = 1  # grouped-query attention: query heads per key/value head, on a step of query heads

    def matrix_title(self, m: int, lang: str, short: bool = False) -> str:
        """The title of matrix m: its head ("Head 2"); under grouped-query attention a query head
        says which key/value head it reads ("Head 3 · K/V 2") and a shared key/value head which
        query heads read it ("K/V head 1 · query heads 1–2"); "" when the matrices are not heads.
        `short`: the head alone ("Head 3", "K/V head 1"), for a small picture beside the result."""
        if not self.layout.per_head:
            return ""
        if self.reads_kv > 1 and not short:
            return words.text("pane.head_reads_kv", lang, n=numbers.position(m), j=numbers.position(m // self.reads_kv))
        if self.kv_group == 1:
            return pane_text.head_name(m, lang)
        if short:
            return words.text("pane.kv_head_short", lang, j=numbers.position(m))
        g = self.kv_group
        return words.text("pane.kv_head", lang, j=numbers.position(m), first=numbers.position(m * g),
                          last=numbers.position(m * g + g - 1))

    def matrices(self) -> list[np.ndarray]:
        return [self.block[i] for i in range(self.block.shape[0])]

    @property
    def kind(self) -> str:
        return self.layout.kind

    def shape_text(self, lang: str) -> str:
        dims = "(" + ", ".join(self.step.dims) + ")"
        sizes = "(" + ", ".join(str(n) for n in self.step.shape) + ")"
        if "B" in self.step.dims:
            return pane_text.ui("shape", lang, dims=dims, sizes=sizes, b=numbers.position(self.batch))
        return pane_text.ui("shape_nobatch", lang, dims=dims, sizes=sizes)

    def cell_text(self, m: int, r: int, c: int, digits: int = 4) -> str:
        """What the cell prints (compact)."""
        v = self.block[m, r, c]
        if self.kind == "bool":
            return cell_format.compact_bool(v)
        if np.isnan(v):
            return self.nan_label
        if self.kind in ("count", "index"):
            return cell_format.compact_int(v)
        return cell_format.compact(v, digits)

    def cell_texts(self, m: int, digits: int = 4) -> list[str]:
        """What every cell of matrix m prints, row-major: `cell_text` for the whole matrix,
        reading the numbers once (a painted pane needs all of them)."""
        return self._texts(self.block[m].ravel().tolist(), digits)

    def sample_texts(self, m: int, digits: int = 4, first: int = 2) -> list[str]:
        """What a few cells of matrix m print: the first `first`, the smallest and the largest.
        Enough to prove that no number fits a small cell without formatting them all
        (cell_overlay.TextFit); never used to choose a size that does fit."""
        flat = self.block[m].ravel()
        values = flat[:first].tolist()
        finite = flat[np.isfinite(flat)]
        if finite.size:
            values += [float(finite.min()), float(finite.max())]
        return self._texts(values, digits)

    def _texts(self, values: list, digits: int) -> list[str]:
        kind = self.kind
        if kind == "bool":
            return [cell_format.compact_bool(v) for v in values]
        nan = self.nan_label
        if kind in ("count", "index"):
            return [nan if v != v else cell_format.compact_int(v) for v in values]
        return cell_format.compact_many(values, digits, nan)

    def hover_text(self, m: int, r: int, c: int, lang: str) -> str:
        """Index, labels and the exact value of one cell (full precision), e.g.
        'Head 2 · query 1 “t2”, key 3 “t4” = 0.7071067811865476'."""
        lay = self.layout
        where = lay.rows.describe(r, lang)
        col = lay.cols.describe(c, lang)
        if col:
            where = words.text("pane.cell", lang, row=where, column=col)
        text = f"{where} = {self.value_phrase(m, r, c, lang)}"
        if lay.per_head:
            text = f"{self.matrix_title(m, lang)} · {text}"
        return text

    def value_phrase(self, m: int, r: int, c: int, lang: str) -> str:
        v = self.block[m, r, c]
        kind = self.kind
        if kind == "bool":
            word = pane_text.ui("true" if v else "false", lang)
            if self.step.id == "extra.mask":
                word += f" ({pane_text.ui('masked_flag' if v else 'not_masked_flag', lang)})"
            return word
        if np.isnan(v):
            return pane_text.ui("not_computed" if self.nan_label == cell_format.NOT_COMPUTED else "nan", lang)
        if kind == "index" and self.value_axis is not None and 0 <= int(v) < self.value_axis.size:
            # the cell holds the code's index (the trace's number); the hover names the position
            return pane_text.ui("index_value", lang, index=int(v), where=self.value_axis.describe(int(v), lang))
        if kind == "count":
            return f"{int(v)} ({pane_text.ui('times_sampled', lang, n=int(v))})"
        text = cell_format.exact(v)
        if self.masked is not None and self.mask_style == "veil" and self.masked[r, c]:
            key = "masked" if self.step.id == "masked_scores" else "masked_weight"
            text += f" ({pane_text.ui(key, lang)})"
        return text


CHUNK = 1 << 16


def same_numbers(a: Optional[np.ndarray], b: Optional[np.ndarray]) -> bool:
    """Bitwise the same array (so NaN equals NaN), stopping at the first differing chunk:
    an edit usually changes early rows, so a 1024 x 1024 change is found in microseconds."""
    if a is b:
        return True
    if a is None or b is None or a.shape != b.shape or a.dtype != b.dtype:
        return False
    fa, fb = a.reshape(-1), b.reshape(-1)  # a copy only for non-contiguous views
    for i in range(0, fa.size, CHUNK):
        if fa[i:i + CHUNK].tobytes() != fb[i:i + CHUNK].tobytes():
            return False
    return True


def step_kind(step: Step) -> str:
    """The kind its record gives (signed, weights, bool, count, index); a parameter shown as a
    pane has no record: its numbers are signed."""
    rec = step_registry.BY_ID.get(step.id)
    if rec is not None:
        return rec.kind
    return "bool" if step.numpy().dtype == np.bool_ else "signed"


def veiled(step_id: str) -> bool:
    """Whether extra.mask is drawn over this step's pane (its record says so)."""
    rec = step_registry.BY_ID.get(step_id)
    return rec is not None and rec.veiled


def _tokens(tokens: Optional[Sequence], n: int) -> Optional[tuple[str, ...]]:
    if tokens is None or len(tokens) != n:
        return None
    return tuple(str(t) for t in tokens)


def axis_for(dim: str, size: int, query_tokens=None, key_tokens=None, n_heads: int = 1, n_keys: int = 0) -> Axis:
    if dim == "L":
        return Axis("L", size, _tokens(query_tokens, size))
    if dim == "S":
        return Axis("S", size, _tokens(key_tokens, size))
    if dim == "N*S" and n_keys > 0 and size % n_keys == 0:  # one block of the S keys per hidden unit
        keys = _tokens(key_tokens, n_keys)
        return Axis(dim, size, None if keys is None else keys * (size // n_keys), n_keys)
    if dim in ("H*dk", "H*dv") and n_heads > 1 and size % n_heads == 0:
        return Axis(dim, size, None, size // n_heads)
    return Axis(dim, size)


def pane_data(trace: Trace, step_id: str, batch: int = 0, query_tokens=None, key_tokens=None) -> PaneData:
    """Cut step `step_id` of `trace` for batch item `batch` into displayable matrices."""
    step = trace[step_id]
    n_batch = int(trace.options.get("batch", 1))
    if not 0 <= batch < n_batch:
        raise ValueError(f"batch: expected a batch item between 0 and {n_batch - 1}, got {batch}")
    arr = step.numpy()
    dims = list(step.dims)
    if "B" in dims:
        arr = arr[(slice(None),) * dims.index("B") + (batch,)]  # a view, no copy
        dims.remove("B")
    H = int(trace.options.get("n_heads", 1))
    ax = lambda d, n: axis_for(d, n, query_tokens, key_tokens, H, int(trace.options.get("S", 0)))  # noqa: E731
    per_head = "H" in dims and len(dims) == 3
    if per_head:
        hpos = dims.index("H")
        block = np.moveaxis(arr, hpos, 0)
        rest = [d for d in dims if d != "H"]
        rows, cols = ax(rest[0], block.shape[1]), ax(rest[1], block.shape[2])
    elif len(dims) == 2:
        if dims[0] == "H":  # (H, L) or (H, n_top): heads become columns
            arr, dims = arr.T, dims[::-1]
        block = arr[None]
        rows, cols = ax(dims[0], arr.shape[0]), ax(dims[1], arr.shape[1])
    elif len(dims) == 1:
        block = arr[None, :, None]
        rows, cols = ax(dims[0], arr.shape[0]), Axis("flag", 1)
    else:
        raise ValueError(f"{step_id}: cannot show a step with dims {step.dims} as a matrix")
    if step_id in ("concat", "output") and trace.options.get("mix"):
        rows = Axis("rows_mixed", rows.size)
    kind = step_kind(step)
    masked, style = None, None
    if veiled(step_id) and "extra.mask" in trace:
        masked, style = trace.array("extra.mask")[batch], "veil"
    elif step_id == "extra.mask":
        masked, style = block[0], "hatch"
    never_computed = step_id in trace.kinds.scoring.not_computed_steps
    nan_label = cell_format.NOT_COMPUTED if never_computed else cell_format.NAN_TEXT
    rec = step_registry.BY_ID.get(step_id)
    points_into = rec.points_into if rec is not None else None
    value_axis = ax(points_into, _index_range(trace, points_into)) if points_into else None
    layout = Layout(step_id, kind, rows, cols, block.shape[0], per_head)
    fill = trace.options.get("fill_value")
    kv = int(trace.options.get("n_kv_heads") or H)
    shared = per_head and step_id in _KV_STEPS and 0 < kv < H and block.shape[0] == kv
    reads = per_head and not shared and 0 < kv < H and block.shape[0] == H
    return PaneData(layout, step, batch, block, masked, style, nan_label, value_axis,
                    None if fill is None else float(fill), H // kv if shared else 1, H // kv if reads else 1)


#: the steps whose heads are the key/value heads (fewer than the query heads under grouped-query attention)
_KV_STEPS = ("head_split.key", "head_split.value")


def _index_range(trace: Trace, dim: str) -> int:
    return int(trace.options[dim])  # "S" or "L": the number of keys or queries


def tokens_of(scenario) -> tuple[Optional[tuple], Optional[tuple]]:
    """(query_tokens, key_tokens) of a Scenario, a mapping {"L": ..., "S": ...} or None."""
    if scenario is None:
        return None, None
    if isinstance(scenario, dict):
        return scenario.get("L", scenario.get("query_tokens")), scenario.get("S", scenario.get("key_tokens"))
    return getattr(scenario, "query_tokens", None), getattr(scenario, "key_tokens", None)


def _matrix_axes(dims: list[str]) -> tuple[Optional[int], Optional[int], Optional[int]]:
    """(matrix axis, row axis, column axis) of a step's dims without B, as pane_data lays them
    out (None: no such axis; a vector has no column axis)."""
    if "H" in dims and len(dims) == 3:
        h = dims.index("H")
        rest = [i for i in range(3) if i != h]
        return h, rest[0], rest[1]
    if len(dims) == 2:
        return (None, 1, 0) if dims[0] == "H" else (None, 0, 1)
    if len(dims) == 1:
        return None, 0, None
    raise ValueError(f"cannot show a step with dims {tuple(dims)} as a matrix")


def cell_index(step: Step, batch: int, m: int, r: int, c: int) -> tuple[int, ...]:
    """The full index into `step.tensor` (batch axis included where it has one) of cell (r, c) of
    matrix m as `pane_data` shows it: the inverse of how a pane cuts a step."""
    dims = list(step.dims)
    has_b = "B" in dims
    b_pos = dims.index("B") if has_b else -1
    rest = [d for d in dims if d != "B"]
    mat, row, col = _matrix_axes(rest)
    index = [0] * len(rest)
    if mat is not None:
        index[mat] = m
    index[row] = r
    if col is not None:
        index[col] = c
    if has_b:
        index.insert(b_pos, batch)
    return tuple(int(i) for i in index)


def cell_position(step: Step, index: tuple[int, ...]) -> tuple[int, int, int, int]:
    """(batch, m, r, c) of a full index into `step.tensor`: where a pane draws that number."""
    dims = list(step.dims)
    if len(index) != len(dims):
        raise ValueError(f"{step.id}: expected an index of {len(dims)} numbers {tuple(dims)}, got {tuple(index)}")
    idx = list(index)
    batch = idx.pop(dims.index("B")) if "B" in dims else 0
    rest = [d for d in dims if d != "B"]
    mat, row, col = _matrix_axes(rest)
    return (int(batch), 0 if mat is None else int(idx[mat]), int(idx[row]), 0 if col is None else int(idx[col]))
