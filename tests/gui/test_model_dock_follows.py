"""Issue 17 item 5, the data loss, tried as the researcher did: MiniLM open, File ▸ Open a scenario file,
edit a number, click a cell of the (still MiniLM) grid.  Before: the document silently became MiniLM's
layer under the old file name and Ctrl+S overwrote the user's file.  Now: opening the file detaches the
dock; the click asks Save / Discard / Cancel; Cancel keeps the file open and edited; Discard opens the
layer as a new, untitled document; Ctrl+S never writes the layer into the user's file."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from attention.files import scenario_io
from attention.models import bundled

pytestmark = pytest.mark.gui


class Asked:
    """Stands for the Save / Discard / Cancel box: counts the questions and answers `answer`."""

    def __init__(self, answer):
        self.answer, self.count = answer, 0

    def __call__(self):
        self.count += 1
        return self.answer


@pytest.fixture
def edited_file(window, qtbot, tmp_path):
    """MiniLM opened from the File menu, then File ▸ Open of a scenario file, then one number edited."""
    if bundled.folder() is None:
        pytest.skip(bundled.install_hint("en"))
    w = window
    w.show()
    qtbot.waitExposed(w)
    w.models.bundled_action.trigger()
    w.recompute.wait_idle()
    assert w.models.dock.isVisible() and w.models.attached
    path = tmp_path / "mine.json"
    scenario_io.save(w.document.scenario.__class__(np.eye(3)[None], np.eye(3)[None], np.eye(3)[None], n_heads=1),
                     path)
    original = path.read_bytes()
    w.ask_open_path = lambda: str(path)
    w.open_action.trigger()  # File ▸ Open...
    w.recompute.wait_idle()
    assert w.document.path == path
    model = w.inputs.editors["queries"].model
    assert model.setData(model.index(0, 1), "7")  # the person types 7 into a cell
    w.recompute.wait_idle()
    assert w.document.is_modified()
    return w, path, original


def _click_grid(w, qtbot, layer: int, head: int) -> None:
    w.models.dock.show()  # View ▸ Model view brings the detached dock back
    grid = w.models.panel.grid
    qtbot.waitUntil(lambda: grid.cell_size() > 4)
    qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=grid.cell_rect(layer, head).center())
    w.recompute.wait_idle()


def test_opening_a_file_detaches_the_dock(edited_file):
    w, path, _ = edited_file
    assert not w.models.attached
    assert not w.models.dock.isVisible()  # the dock follows the open document
    assert not w.models.panel.detached.isHidden()
    assert "not this model's layer" in w.models.panel.detached.text()


def test_cancel_keeps_the_edited_file(edited_file, qtbot):
    w, path, original = edited_file
    w.ask_save_changes = asked = Asked(QMessageBox.StandardButton.Cancel)
    _click_grid(w, qtbot, 2, 3)
    assert asked.count == 1
    assert w.document.path == path and w.document.is_modified()
    assert w.document.scenario.queries[0, 0, 1] == 7.0
    assert path.read_bytes() == original


def test_discard_opens_the_layer_untitled_and_ctrl_s_never_writes_the_file(edited_file, qtbot):
    w, path, original = edited_file
    w.ask_save_changes = asked = Asked(QMessageBox.StandardButton.Discard)
    _click_grid(w, qtbot, 2, 3)
    assert asked.count == 1
    assert w.document.path is None  # never the previous file name
    assert "mine.json" not in w.windowTitle()
    assert "layer 3" in w.windowTitle()
    assert w.document.scenario.n_heads == 12 and w.models.attached
    assert w.models.dock.isVisible() and w.models.panel.detached.isHidden()
    saved_as = []
    w.ask_save_path = lambda *a: saved_as.append(a) or None  # Ctrl+S of an untitled document asks for a name
    qtbot.keyClick(w, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert saved_as, "Ctrl+S on the layer must ask for a file name"
    assert path.read_bytes() == original


def test_save_writes_the_users_edit_to_the_file_then_opens_the_layer(edited_file, qtbot):
    w, path, _ = edited_file
    w.ask_save_changes = Asked(QMessageBox.StandardButton.Save)
    _click_grid(w, qtbot, 0, 0)
    on_disk = json.loads(path.read_text())
    assert scenario_io.load(path).queries[0, 0, 1] == 7.0 and on_disk  # the user's edit, not MiniLM's layer
    assert scenario_io.load(path).n_heads == 1
    assert w.document.path is None and w.document.scenario.n_heads == 12


def test_a_head_picked_in_the_detached_dock_leaves_the_files_panes(edited_file, qtbot):
    w, _, _ = edited_file
    focus = w.view.focus_head()
    box = w.models.panel.head_box
    w.models.dock.show()
    box.activated.emit(box.findData(4))  # the person picks Head 5 in the dock
    assert w.view.focus_head() == focus
    assert w.document.scenario.n_heads == 1


def test_a_sentence_typed_in_the_detached_dock_leaves_the_file_alone(edited_file, qtbot):
    w, path, _ = edited_file
    before = w.document.scenario
    w.models.dock.show()
    w.models.panel.set_sentences_text("A different sentence.")
    w.models.panel.commit_sentences()
    qtbot.waitUntil(lambda: w.models.is_idle())
    assert w.document.scenario is before and w.document.path == path
    assert w.models.session.sentences == ("A different sentence.",)
