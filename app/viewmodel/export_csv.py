"""The numbers of one step for one batch item as CSV.  Qt-free (usable from the CLI and tests).

Layout (the same matrices the Steps panes show, see app/viewmodel/pane_data.py):
- a 2-D step: a header row (corner cell "rows \\ columns", then one label per column), then one
  row per matrix row, its label in the first column;
- a per-head step (scores, head_split.*, ...): one such block per head, each preceded by a line
  "head 1", "head 2", ... and separated by an empty line.
Labels are the scenario's tokens where it has them (query_tokens for queries, key_tokens for
keys), indices otherwise.  Numbers are written at full precision by `attention.datamodel.numbers.machine`
(the shortest digits that read back exactly, e.g. ``0.7071067811865476``, ``-1e6``), NaN as "NaN",
infinities as "inf" / "-inf", booleans as "True" / "False"; `float()` reads every number back to
the identical value.
"""
from __future__ import annotations

import csv
import io
from typing import Any, Optional

import numpy as np

from app.viewmodel.export_errors import cannot_write
from app.viewmodel.pane_data import Axis, PaneData, pane_data, tokens_of
from attention.compute.trace import Trace
from attention.datamodel import numbers


def _header_label(axis: Axis, i: int) -> str:
    if axis.dim == "flag":
        return axis.name("en")
    return axis.tick(i)


def _cell(value: Any, kind: str) -> str:
    if kind == "bool":
        return numbers.flag(bool(value))
    if kind in ("count", "index") and not np.isnan(value):
        return numbers.whole(value)
    return numbers.machine(value)


def _write_matrix(w, data: PaneData, m: int) -> None:
    lay = data.layout
    corner = f"{lay.rows.name('en')} \\ {lay.cols.name('en')}"
    w.writerow([corner] + [_header_label(lay.cols, c) for c in range(lay.cols.size)])
    mat = data.block[m]
    for r in range(lay.rows.size):
        w.writerow([lay.rows.tick(r)] + [_cell(v, lay.kind) for v in mat[r].tolist()])


def step_csv_text(trace: Trace, step_id: str, batch: int = 0, labels: Optional[Any] = None) -> str:
    """The CSV text step_to_csv writes (see the module docstring for the layout)."""
    if step_id not in trace:
        raise ValueError(f"step: no step {step_id!r} in this trace (steps: {', '.join(trace.ids)})")
    qt, kt = tokens_of(labels)
    data = pane_data(trace, step_id, batch, qt, kt)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if data.layout.per_head:
        for m in range(data.layout.n_matrices):
            if m:
                w.writerow([])
            w.writerow([f"head {numbers.position(m)}"])
            _write_matrix(w, data, m)
    else:
        _write_matrix(w, data, 0)
    return buf.getvalue()


def step_to_csv(trace: Trace, step_id: str, batch: int, path: str, labels: Optional[Any] = None) -> None:
    """Write step `step_id` of `trace`, batch item `batch`, to `path` as CSV (UTF-8).

    labels: None (index labels), a Scenario (its query_tokens / key_tokens) or a mapping
    {"L": query labels, "S": key labels}.  Raises ValueError for an unknown step or batch item
    and OSError (with the path) when the file cannot be written."""
    text = step_csv_text(trace, step_id, batch, labels)
    try:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    except OSError as e:
        raise OSError(cannot_write("csv", path, e)) from e
