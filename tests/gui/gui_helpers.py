"""Scenarios, expectations and set-ups shared by the window's tests.

`expected_matrices` cuts what a pane must show straight from the engine's array (one batch
item, one 2-D matrix per head, heads as columns for (H, L) steps, a column for a vector),
independently of the pane code.  `enter_presentation` (and the `presentation` fixture, which
tests/gui/conftest.py makes available to every GUI test) starts the slide show the way a person
does: the window shown and active, F5, the slides taking the keys.  `choose_in_popup` clicks an entry of the
right-click menu a test is about to open (its exec() holds the test until the entry is clicked)."""
from __future__ import annotations

import math
from typing import Callable, Optional

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMenu

from attention import Projection, Scenario

TOKENS = ("t1", "t2", "t3", "t4")


def close_popups() -> None:
    for _ in range(5):
        w = QApplication.activePopupWidget()
        if w is None:
            return
        w.close()


def choose_in_popup(qtbot, pick: Callable, chosen: list) -> None:
    """Once the popup menu opened next is up (tried 30 ms apart: a loaded machine may take a while), click the
    entry pick(menu) -> (the menu holding it, the action) names, and append the action to `chosen`.  A disabled
    entry is clicked too (nothing happens, as for a person) and the menu then closed; a menu still open after
    10 s is closed, so a test never hangs."""
    tries = [150]

    def click() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            tries[0] -= 1
            if tries[0] > 0:
                QTimer.singleShot(30, click)
            return
        where, action = pick(menu)
        chosen.append(action)
        qtbot.mouseClick(where, Qt.MouseButton.LeftButton, pos=where.actionGeometry(action).center())
        if not action.isEnabled():
            close_popups()

    QTimer.singleShot(30, click)
    QTimer.singleShot(10_000, close_popups)


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
