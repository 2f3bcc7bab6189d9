"""Scenarios, expectations and set-ups shared by the window's tests.

`expected_matrices` cuts what a pane must show straight from the engine's array (one batch
item, one 2-D matrix per head, heads as columns for (H, L) steps, a column for a vector),
independently of the pane code.  `enter_presentation` (and the `presentation` fixture, which
tests/gui/conftest.py makes available to every GUI test) starts the slide show the way a person
does: the window shown and active, F5, the slides taking the keys."""
from __future__ import annotations

import math
from typing import Optional

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from attention import Projection, Scenario

TOKENS = ("t1", "t2", "t3", "t4")


def toy(**kw) -> Scenario:
    q = np.array([[[1, 0, 2, 1], [0, 1, 1, 2], [1, 1, 0, 1], [2, 0, 1, 0]]], float)
    v = np.array([[[10, 11, 20, 21], [12, 13, 22, 23], [14, 15, 24, 25], [16, 17, 26, 27]]], float)
    eye = Projection(np.eye(4), np.zeros(4))
    args = dict(queries=q, keys=q.copy(), values=v, n_heads=2, query_tokens=TOKENS, key_tokens=TOKENS,
                projections={n: eye for n in ("query", "key", "value", "out")})
    args.update(kw)
    return Scenario(**args)


def random_scenario(B=1, L=6, S=6, d=32, H=8, seed=1, **kw) -> Scenario:
    rng = np.random.default_rng(seed)
    pr = {n: Projection(rng.normal(size=(d, d)) / math.sqrt(d), rng.normal(size=d) * 0.1)
          for n in ("query", "key", "value", "out")}
    return Scenario(queries=rng.normal(size=(B, L, d)), keys=rng.normal(size=(B, S, d)),
                    values=rng.normal(size=(B, S, d)), n_heads=H, projections=pr, **kw)


def expected_matrices(trace, step_id: str, batch: int) -> list[np.ndarray]:
    arr = trace.array(step_id)
    dims = list(trace[step_id].dims)
    if "B" in dims:
        arr = np.take(arr, batch, axis=dims.index("B"))
        dims.remove("B")
    if "H" in dims and len(dims) == 3:
        h = dims.index("H")
        return [np.take(arr, i, axis=h) for i in range(arr.shape[h])]
    if len(dims) == 2:
        return [arr.T if dims[0] == "H" else arr]
    return [arr[:, None]]


def enter_presentation(qtbot, window, size: Optional[tuple[int, int]] = None):
    """Press F5 in the shown, active `window`; the slide view once it has the keys, resized to
    `size` (a projector's 1280 x 720, say; offscreen's full screen is 800 x 800) when given."""
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    view = window.presentation.view
    qtbot.keyClick(window, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is view)  # presenter keys go to the slide show
    if size is not None:
        view.resize(*size)
        qtbot.waitUntil(lambda: (view.width(), view.height()) == tuple(size))
    return view


@pytest.fixture
def presentation(qtbot):
    """presentation(window, size=None) -> the slide view (`enter_presentation`)."""
    return lambda window, size=None: enter_presentation(qtbot, window, size)
