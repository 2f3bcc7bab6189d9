"""The Model dock fits any grid (issue 30, item 2): cells never below 12 px, labels that fit, a page that scrolls
where the dock is short, and dialogs sized to their screen.  Offscreen and quick; the real window at 1280 x 720
under a window manager is tests/screen/test_model_view_screen.py's."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QFontMetrics

from app.models_view.grid import GAP, LABEL_H, LABEL_W, MIN_CELL, ModelGrid
from app.models_view.page_scroll import PageScroll
from app.services import window_fit

pytestmark = pytest.mark.gui

#: the Model dock at 1280 x 720 under openbox (tests/screen/probe_model_view.py measured 276 x 591)
DOCK = QSize(276, 591)
#: SmolLM2, Gemma 3 270M, MiniLM, glassllm (layers x heads)
GRIDS = [(30, 9), (18, 4), (6, 12), (4, 4), (1, 1)]


def _grid(qtbot, layers: int, heads: int) -> tuple[PageScroll, ModelGrid]:
    grid = ModelGrid()
    grid.set_weights(np.random.default_rng(0).random((layers, heads, 5, 5)))
    page = PageScroll(grid)
    qtbot.addWidget(page)
    page.resize(DOCK)
    page.show()
    qtbot.waitExposed(page)
    qtbot.wait(10)
    return page, grid


@pytest.mark.parametrize("layers, heads", GRIDS)
def test_any_grid_fits_the_dock_or_scrolls_with_cells_of_12_px_at_least(qtbot, layers, heads):
    page, grid = _grid(qtbot, layers, heads)
    c = grid.cell_size()
    assert c >= MIN_CELL, (layers, heads, c)
    bottom = grid.cell_rect(layers - 1, heads - 1).bottom()
    bar = page.verticalScrollBar()
    if bottom > page.viewport().height():  # taller than the dock: the page has a bar that reaches the last layer
        assert bar.maximum() >= bottom - page.viewport().height(), (layers, heads, bar.maximum(), bottom)
    else:
        assert bar.maximum() == 0
    right = grid.cell_rect(0, heads - 1).right()
    assert right <= page.viewport().width() or page.horizontalScrollBar().maximum() > 0


@pytest.mark.parametrize("layers, heads", GRIDS)
def test_the_labels_fit_their_row_and_column(qtbot, layers, heads):
    """Every label drawn fits its cell's pitch: "H12" becomes "12", and every k-th where even that does not fit."""
    page, grid = _grid(qtbot, layers, heads)
    c, fm = grid.cell_size(), QFontMetrics(grid.font())
    texts, every = grid._label_every([f"H{h + 1}" for h in range(heads)], c + GAP)
    drawn = texts[::every]
    assert all(fm.horizontalAdvance(t) + 2 <= (c + GAP) * every for t in drawn), (c, drawn)
    assert all(t.endswith(str(h + 1)) for t, h in zip(drawn, range(0, heads, every)))  # counted from 1
    assert fm.height() <= c + GAP  # one layer label a row
    assert fm.horizontalAdvance(f"L{layers}") + 2 <= LABEL_W
    assert LABEL_H >= fm.height() - 2


def test_a_click_on_a_cell_names_that_cell(qtbot):
    page, grid = _grid(qtbot, 30, 9)
    got = []
    grid.cellClicked.connect(lambda layer, head: got.append((layer, head)))
    from PySide6.QtCore import Qt

    rect = grid.cell_rect(17, 4)
    page.ensureVisible(rect.center().x(), rect.center().y())
    qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=rect.center())
    assert got == [(17, 4)]


@pytest.mark.parametrize("screen, want", [
    (QRect(0, 0, 1280, 720), QSize(1100, 684)),  # the tiles dialog on a projector: its whole frame on screen
    (QRect(0, 0, 1366, 768), QSize(1100, 732)),
    (QRect(0, 0, 1920, 1080), QSize(1100, 760)),  # room: the preferred size
])
def test_a_dialog_is_sized_to_its_screen(screen, want):
    got = window_fit.dialog_size(screen, QSize(1100, 760))
    assert got == want
    frame = QRect(0, 0, got.width(), got.height()).marginsAdded(window_fit.FRAME_ALLOWANCE)
    assert frame.width() <= screen.width() and frame.height() <= screen.height()
    # a layout's least size is kept where the screen has room for it
    assert window_fit.dialog_size(screen, QSize(300, 200), QSize(500, 100)) == QSize(500, 200)
