"""A token label of a megabyte (issue 13 item 14): a scenario file may hold one and loads fine; the
heatmap keeps its size, and every place that shows the token (tick labels, hover text, the explain
panel, the matrix editor's row headers and their tooltips) shows it elided to a bounded length."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from resources import list_presets

pytestmark = pytest.mark.gui

PRESET = list_presets()[0][0]  # the toy: 4 tokens "t1".."t4" on both axes
HUGE = "wide" + "x" * 1_000_000  # what the heatmap once squeezed itself around
#: a tick label or header longer than this is not "elided to a sensible length"
LABEL_BOUND = 40
#: nor a hover / tooltip line (a cell names two tokens) longer than this
HOVER_BOUND = 600


def _write(tmp_path, name: str, token: str):
    doc = json.loads(PRESET.read_text(encoding="utf-8"))
    doc["query_tokens"][1] = token
    doc["key_tokens"][2] = token
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _geometry(window, path):
    """(plot width, plot height, the pane's natural width) of the attention-weights pane's first heatmap."""
    assert window.load_path(path)
    window.recompute.wait_idle()
    pane = window.view.pane("attention_weights")
    for _ in range(3):  # layouts settle over a few event-loop turns
        QApplication.processEvents()
    rect = pane.heatmaps[0].vb.sceneBoundingRect()
    return rect.width(), rect.height(), pane.sizeHint().width(), pane


def test_a_megabyte_token_is_elided_and_the_heatmap_keeps_its_size(window, qtbot, tmp_path):
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    w0, h0, hint0, _ = _geometry(window, _write(tmp_path, "short.json", "t2"))
    w1, h1, hint1, pane = _geometry(window, _write(tmp_path, "huge.json", HUGE))
    assert window.document.scenario.query_tokens[1] == HUGE  # the file's text is kept whole
    assert w0 > 20 and h0 > 20
    assert abs(w1 - w0) <= 0.1 * w0 and abs(h1 - h0) <= 0.1 * h0, ((w0, h0), (w1, h1))
    assert hint1 <= hint0 + 200, (hint0, hint1)  # the pane asks for no more room than a label's worth
    # the tick labels shown on both axes: bounded, and the start of the token still readable
    hm = pane.heatmaps[0]
    for axis in (hm.bottom, pane.left):
        labels = [text for _, text in axis._ticks]
        assert all(len(t) <= LABEL_BOUND for t in labels), [len(t) for t in labels]
    assert any(t.startswith("wide") for _, t in pane.left._ticks)
    assert len(hm.bottom._ticks) >= 2  # one long token does not take the other words off the axis
    # hover text (and the explain panel, which quotes it): bounded, naming the token's start
    text = pane.hover_text(0, 1, 2)
    assert "wide" in text and len(text) <= HOVER_BOUND
    # the explain panel, after a click on that cell
    panel = window.cell_tools.panel
    pane.click_cell(0, 1, 2)
    qtbot.waitUntil(lambda: panel.selection is not None)
    where = panel.where.text()
    assert "wide" in where and len(where) <= HOVER_BOUND + 200  # + the step's title and markup
    # the matrix editor's row headers and their tooltips
    model = window.inputs.editors["queries"].model
    header = model.headerData(1, Qt.Orientation.Vertical, Qt.ItemDataRole.DisplayRole)
    tip = model.headerData(1, Qt.Orientation.Vertical, Qt.ItemDataRole.ToolTipRole)
    assert header.startswith("2 wide") and len(header) <= LABEL_BOUND  # row index 1 is row 2 (from 1)
    assert tip.startswith("2 wide") and len(header) < len(tip) <= HOVER_BOUND
