"""Edit ▸ Mask editor… (app/editing/mask_painter.py): a person presses on a cell, drags across
others and releases; the stroke is one undo step; undo and redo bring the drawing back; the right
button, Shift and the Erase toggle erase; resizing L keeps what still fits.  Expected cells are
written out here; the engine's mask is checked against them."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from app.editing.mask_painter import MaskPainter
from app.pipeline.document import Document
from app.viewmodel import edits, mask_edits
from attention import Scenario, run
from attention.teaching import explain

LEFT, RIGHT = Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton
NONE, SHIFT = Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def painter(qtbot):
    rng = np.random.default_rng(0)
    doc = Document(Scenario(rng.normal(size=(2, 4, 4)), rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 4)),
                            n_heads=2))
    widget = MaskPainter(doc)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def _stroke(qtbot, p: MaskPainter, cells, button=LEFT, mods=NONE):
    """Press on the first cell, drag over the others, release on the last (as a hand does)."""
    canvas = p.canvas
    qtbot.mousePress(canvas, button, mods, canvas.cell_centre(*cells[0]))
    for cell in cells[1:]:
        qtbot.mouseMove(canvas, canvas.cell_centre(*cell))
        # QTest's mouseMove sends no buttons; the canvas follows the stroke it started on press
    qtbot.mouseRelease(canvas, button, mods, canvas.cell_centre(*cells[-1]))


def _drawn(p: MaskPainter) -> np.ndarray:
    d = mask_edits.drawing(p.doc.scenario)
    return np.zeros((p.doc.scenario.batch, p.doc.scenario.L, p.doc.scenario.S), bool) if d is None else d


def test_a_stroke_paints_its_cells_as_one_undo_step(qtbot, painter):
    _stroke(qtbot, painter, [(1, 0), (1, 1), (1, 2), (2, 2)])
    want = np.zeros((2, 4, 5), bool)
    want[0, 1, 0] = want[0, 1, 1] = want[0, 1, 2] = want[0, 2, 2] = True
    np.testing.assert_array_equal(_drawn(painter), want)
    stack = painter.doc.undo_stack
    assert stack.count() == 1 and "4" in stack.undoText()
    trace = run(painter.doc.scenario)
    np.testing.assert_array_equal(trace.array("extra.mask"), want)
    assert "painted" in explain.explain(trace, "extra.mask", (0, 1, 1)).summary["en"]
    np.testing.assert_array_equal(painter.canvas.mask, want[0])  # the grid shows the drawing
    stack.undo()
    assert not _drawn(painter).any() and not painter.canvas.mask.any()
    stack.redo()
    np.testing.assert_array_equal(_drawn(painter), want)


@pytest.mark.parametrize("how", ["right", "shift", "toggle"])
def test_erasing_by_right_button_shift_or_toggle(qtbot, painter, how):
    _stroke(qtbot, painter, [(0, 0), (0, 1), (0, 2)])
    if how == "toggle":
        painter.erase.setChecked(True)
    button, mods = (RIGHT, NONE) if how == "right" else (LEFT, SHIFT) if how == "shift" else (LEFT, NONE)
    _stroke(qtbot, painter, [(0, 1)], button, mods)
    assert _drawn(painter)[0, 0].tolist() == [True, False, True, False, False]
    assert painter.doc.undo_stack.count() == 2
    painter.doc.undo_stack.undo()
    assert _drawn(painter)[0, 0].tolist() == [True, True, True, False, False]


def test_each_batch_item_has_its_own_drawing(qtbot, painter):
    painter.batch.setValue(2)
    _stroke(qtbot, painter, [(3, 4)])
    d = _drawn(painter)
    assert d[1, 3, 4] and d.sum() == 1
    painter.batch.setValue(1)
    assert not painter.canvas.mask.any()
    painter.batch.setValue(2)
    painter.clear.click()
    assert not _drawn(painter).any() and painter.doc.undo_stack.count() == 2


def test_resizing_L_keeps_what_still_fits(qtbot, painter):
    _stroke(qtbot, painter, [(0, 4), (3, 0)])
    doc = painter.doc
    doc.replace(edits.with_sizes(doc.scenario, L=2), "L = 2")
    d = _drawn(painter)
    assert d.shape == (2, 2, 5) and d[0, 0, 4] and d.sum() == 1  # row 3 no longer fits
    assert painter.canvas.mask.shape == (2, 5)
    doc.replace(edits.with_sizes(doc.scenario, L=4, S=6), "L = 4, S = 6")
    d = _drawn(painter)
    assert d.shape == (2, 4, 6) and d[0, 0, 4] and d.sum() == 1  # grown back: new cells unmasked
    run(doc.scenario)  # the scenario stays runnable
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert _drawn(painter)[0, 3, 0]  # undoing the resize brings the cut row back


def test_a_stroke_outside_the_grid_changes_nothing(qtbot, painter):
    canvas = painter.canvas
    qtbot.mousePress(canvas, LEFT, NONE, canvas.cell_centre(0, 0) - canvas.cell_centre(1, 1))
    qtbot.mouseRelease(canvas, LEFT, NONE, canvas.cell_centre(0, 0) - canvas.cell_centre(1, 1))
    assert painter.doc.undo_stack.count() == 0


def test_the_window_paints_through_edit_draw_mask(window, qtbot, check_panes):
    """Edit ▸ Mask editor… in the real window: a stroke reaches the mask pane; Ctrl+Z's action undoes it."""
    action = window.mask_painter.action
    assert action in window.edit_menu.actions() and action.text() == "Mask editor…"
    action.trigger()
    painter = window.mask_painter.painter
    assert painter.isVisible()
    sc = window.document.scenario
    _stroke(qtbot, painter, [(0, 0), (0, 1)])
    want = np.zeros((sc.batch, sc.L, sc.S), bool)
    want[0, 0, :2] = True
    np.testing.assert_array_equal(_drawn(painter), want)
    check_panes(window)
    assert window.view.pane("extra.mask") is not None
    window.set_language("zh")
    assert action.text() == "掩码编辑器…" and painter.erase.text() == "擦除"
    window.undo_action.trigger()
    assert mask_edits.drawing(window.document.scenario) is None


def test_the_window_size_is_set_and_removed_as_undo_steps(qtbot, painter):
    stack = painter.doc.undo_stack
    painter.window.setValue(2)
    painter.window.setValue(3)  # as holding the arrow: one undo step
    assert mask_edits.window_size(painter.doc.scenario) == 3 and stack.count() == 1
    l, s = np.arange(4)[:, None], np.arange(5)[None, :]
    np.testing.assert_array_equal(run(painter.doc.scenario).array("extra.mask")[1], s <= l - 3)
    assert painter.window.text() == "3"
    painter.window.setValue(0)
    assert mask_edits.window_size(painter.doc.scenario) is None and painter.window.text() == "none"
    stack.undo()
    assert mask_edits.window_size(painter.doc.scenario) == 3 and painter.window.value() == 3
