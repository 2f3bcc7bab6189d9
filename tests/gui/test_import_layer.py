"""File ▸ Import layer… in the real window, as a person uses it: the menu item, the file dialog
(replaced), the layer list with its greyed unsupported rows, the head-count picker, Import."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from safetensors.torch import save_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from import_modules import BertModel, TSLTransformer  # noqa: E402


def _mixed_checkpoint(tmp_path) -> tuple[Path, TSLTransformer]:
    """A TSL model plus one Llama-style (rotary) layer that must be listed greyed."""
    torch.manual_seed(0)
    model = TSLTransformer(d_model=8, n_heads=2, e_layers=1).eval()
    state = dict(model.state_dict())
    for r, rows in (("q", 8), ("k", 4), ("v", 4), ("o", 8)):
        state[f"extra.layers.0.self_attn.{r}_proj.weight"] = torch.randn(rows, 8)
    path = tmp_path / "mixed.pt"
    torch.save(state, path)
    return path, model


def _menu_action(window):
    return next(a for a in window.file_menu.actions() if a.text() == window.import_layer.action.text())


def _click_row(qtbot, tree, row: int) -> None:
    item = tree.topLevelItem(row)
    rect = tree.visualItemRect(item)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_import_a_decoder_layer_through_the_menu_and_dialog(window, qtbot, tmp_path, check_panes):
    path, model = _mixed_checkpoint(tmp_path)
    window.import_layer.ask_path = lambda: str(path)
    action = _menu_action(window)
    actions = window.file_menu.actions()
    assert actions.index(action) == actions.index(window.open_action) + 1  # right after Open…
    assert action.text() == "&Import layer..."
    action.trigger()
    dialog = window.import_layer.dialog
    assert dialog.isVisible()
    assert dialog.header.text() == "mixed.pt: 4 attention layers (PyTorch state dict)"
    tree = dialog.tree
    names = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert names == ["encoder.attn_layers.0.attention", "decoder.layers.0.self_attention",
                     "decoder.layers.0.cross_attention", "extra.layers.0.self_attn"]
    assert tree.topLevelItem(0).text(3) == "query (8×8)+8, key (8×8)+8, value (8×8)+8, out (8×8)+8"
    greyed = tree.topLevelItem(3)
    assert not greyed.flags() & Qt.ItemFlag.ItemIsSelectable
    assert "rotary" in greyed.text(2) and "grouped-query" in greyed.toolTip(0)

    assert dialog.chosen().name == "encoder.attn_layers.0.attention"
    _click_row(qtbot, tree, 3)  # a greyed row cannot be imported; it says why
    assert dialog.chosen() is None and not dialog.import_button.isEnabled() and not dialog.heads.isEnabled()
    assert dialog.heads_note.text().startswith("rotary position embeddings")
    _click_row(qtbot, tree, 1)
    assert dialog.chosen().name == "decoder.layers.0.self_attention"
    assert [dialog.heads.itemText(i) for i in range(dialog.heads.count())] == ["1", "2", "4", "8"]
    assert dialog.heads.currentText() == "8"  # the file does not say; 8 (TSL's default) divides 8
    assert "does not say" in dialog.heads_note.text()
    dialog.heads.setFocus()
    qtbot.keyClicks(dialog.heads, "2")
    assert dialog.head_count() == 2
    dialog.tokens.selectAll()
    qtbot.keyClicks(dialog.tokens, "5")
    # a TSL state dict cannot say FullAttention from ProbAttention: Import waits for the answer
    assert dialog.inner_box.isVisible() and dialog.inner.currentIndex() == -1
    assert not dialog.import_button.isEnabled() and dialog.import_button.toolTip().startswith("Choose the inner")
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and window.document.scenario.queries.shape != (1, 5, 8)
    dialog.inner.setFocus()
    qtbot.keyClicks(dialog.inner, "F")  # FullAttention
    assert dialog.import_button.isEnabled() and not dialog.factor.isEnabled() and not dialog.mix.isEnabled()
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)

    sc = window.document.scenario
    assert (sc.n_heads, sc.causal, sc.queries.shape, sc.scoring) == (2, True, (1, 5, 8), "scaled_dot")
    assert "Inner attention: FullAttention, as chosen on import" in sc.notes["en"]
    assert window.windowTitle().startswith("decoder.layers.0.self_attention (mixed.pt)")
    assert window.document.path is None and not window.isWindowModified()
    x = torch.as_tensor(sc.queries, dtype=torch.float32)
    with torch.no_grad():
        want_out, want_w = model.decoder.layers[0].self_attention(x, x, x)
    window.recompute.recompute_now()
    np.testing.assert_allclose(window.last_trace["output"].numpy(), want_out.numpy(), atol=1e-5, rtol=0)
    np.testing.assert_allclose(window.last_trace["attention_weights"].numpy(), want_w.numpy(), atol=1e-5, rtol=0)
    check_panes(window)


def test_heads_come_from_config_json_in_a_hugging_face_folder(window, qtbot, tmp_path):
    torch.manual_seed(1)
    folder = tmp_path / "tiny-bert"
    folder.mkdir()
    save_file({k: v.contiguous() for k, v in BertModel(hidden=12, heads=3, layers=2).state_dict().items()},
              str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"model_type": "bert", "num_attention_heads": 3}))
    window.import_layer.ask_path = lambda: str(folder / "config.json")  # a folder is picked by its config.json
    _menu_action(window).trigger()
    dialog = window.import_layer.dialog
    assert dialog.tree.topLevelItemCount() == 2 and dialog.heads.currentText() == "3"
    assert dialog.heads_note.text() == "From the model's configuration."
    _click_row(qtbot, dialog.tree, 1)
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    sc = window.document.scenario
    assert sc.n_heads == 3 and sc.title["en"] == "encoder.layer.1.attention (tiny-bert)"


def test_import_asks_before_dropping_unsaved_work_and_cancel_keeps_it(window, qtbot, tmp_path):
    path, _ = _mixed_checkpoint(tmp_path)
    asked_path = []
    window.import_layer.ask_path = lambda: asked_path.append(1) or str(path)
    model = window.inputs.editors["queries"].model
    model.setData(model.index(0, 0), "4.5")
    edited = window.document.scenario
    window.ask_save_changes = lambda: QMessageBox.StandardButton.Cancel
    _menu_action(window).trigger()
    assert asked_path == [] and window.document.scenario is edited and window.isWindowModified()

    window.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
    _menu_action(window).trigger()
    dialog = window.import_layer.dialog
    qtbot.mouseClick(dialog.buttons.button(dialog.buttons.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    assert not dialog.isVisible() and window.document.scenario is edited


def test_a_bad_file_is_one_message_and_changes_nothing(window, tmp_path):
    bad = tmp_path / "broken.safetensors"
    bad.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"a\": 1")
    window.import_layer.ask_path = lambda: str(bad)
    before = window.document.scenario
    _menu_action(window).trigger()
    assert window.document.scenario is before
    assert window.import_layer.dialog is None
    assert "broken.safetensors" in window.message_bar.title()
    assert len(window.message_bar.lines()) == 1 and window.message_bar.lines()[0].startswith("broken.safetensors:")


def test_a_fifo_named_pt_is_one_message_and_does_not_hang(window, tmp_path):
    """Issue 21: File ▸ Import layer… on a FIFO named .pt blocked the window forever."""
    import os
    import threading

    fifo = tmp_path / "pipe.pt"
    os.mkfifo(fifo)

    def unblock():  # if the window opens the FIFO, a writer that closes at once lets it go on
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass

    timer = threading.Timer(5, unblock)
    timer.start()
    try:
        window.import_layer.ask_path = lambda: str(fifo)
        _menu_action(window).trigger()
    finally:
        timer.cancel()
    assert window.message_bar.lines()[0].startswith("pipe.pt: not a regular file")


def test_a_file_with_one_layer_says_so_in_the_singular(window, tmp_path):
    path = tmp_path / "one.pt"
    torch.save(torch.nn.MultiheadAttention(8, 2).state_dict(), path)
    window.import_layer.ask_path = lambda: str(path)
    window.import_layer.action.trigger()
    dialog = window.import_layer.dialog
    assert dialog.header.text().startswith("one.pt: 1 attention layer (")
    dialog.reject()


def test_menu_and_dialog_in_chinese(window, qtbot, tmp_path):
    path, _ = _mixed_checkpoint(tmp_path)
    window.set_language("zh")
    try:
        assert window.import_layer.action.text().startswith("导入层")
        window.import_layer.ask_path = lambda: str(path)
        window.import_layer.action.trigger()
        dialog = window.import_layer.dialog
        assert dialog.windowTitle() == "导入层"
        assert dialog.import_button.text() == "导入"
        assert "个注意力层" in dialog.header.text()
        assert "旋转位置编码" in dialog.tree.topLevelItem(3).text(2)
        assert dialog.tree.headerItem().text(0) == "层"
        dialog.reject()
        bad = tmp_path / "code.pt"
        bad.write_bytes(b"plain text")
        window.import_layer.ask_path = lambda: str(bad)
        window.import_layer.action.trigger()
        assert "导入" in window.message_bar.title() and "应为" in window.message_bar.lines()[0]
    finally:
        window.set_language("en")


def test_the_file_dialog_picks_a_model_folder_or_a_file(window, qtbot, tmp_path):
    """The real file dialog (no replacement): Open on a Hugging Face folder picks the folder; on a
    file, the file.  Driven from a timer while the menu action waits in the dialog, as a person would."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QDialogButtonBox, QLineEdit

    torch.manual_seed(2)
    folder = tmp_path / "tiny-bert"
    folder.mkdir()
    save_file({k: v.contiguous() for k, v in BertModel(hidden=12, heads=3, layers=1).state_dict().items()},
              str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"num_attention_heads": 3}))
    seen = []

    def choose_folder():
        dialog = QApplication.activeModalWidget()
        try:
            seen.append(type(dialog).__name__)
            dialog.setDirectory(str(tmp_path))  # the person goes to the folder that holds it
            qtbot.keyClicks(dialog.findChild(QLineEdit, "fileNameEdit"), folder.name)  # and types its name
            dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Open).click()
        finally:
            if dialog is not None and dialog.isVisible():  # never leave the test waiting in exec()
                dialog.reject()

    QTimer.singleShot(100, choose_folder)
    window.import_layer.action.trigger()
    assert seen == ["WeightsFileDialog"]
    dialog = window.import_layer.dialog
    assert dialog.isVisible() and dialog.source.path == folder and dialog.heads.currentText() == "3"
    dialog.reject()

    single = tmp_path / "single.pt"
    torch.save(TSLTransformer(d_model=8, n_heads=2, e_layers=1).encoder.attn_layers[0].attention.state_dict(), single)

    def choose_file():
        d = QApplication.activeModalWidget()
        try:
            d.setDirectory(str(tmp_path))
            qtbot.keyClicks(d.findChild(QLineEdit, "fileNameEdit"), single.name)
            d.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Open).click()
        finally:
            if d is not None and d.isVisible():
                d.reject()

    QTimer.singleShot(100, choose_file)
    window.import_layer.action.trigger()
    assert window.import_layer.dialog.source.path == single
    window.import_layer.dialog.reject()


def test_a_hugging_face_decoder_folder_imports_with_its_kinds(window, qtbot, check_panes):
    """Gemma 2 (golden folder of tests/models): the dialog lists each layer with its shared key/value heads,
    RoPE, soft-cap and window; the heads come from the config only; the imported scenario holds the
    kinds and the window's trace matches a plain-torch reference written in tests/models."""
    from test_families_golden import reference

    from attention.models.families import read_attention

    folder = Path(__file__).resolve().parents[1] / "models" / "golden_modern" / "gemma2"
    window.import_layer.ask_path = lambda: str(folder)
    _menu_action(window).trigger()
    dialog = window.import_layer.dialog
    tree = dialog.tree
    assert dialog.header.text() == "gemma2: 2 attention layers (Hugging Face folder)"
    assert tree.topLevelItem(0).text(1) == "Gemma 2 decoder attention (Hugging Face)"
    facts = tree.topLevelItem(0).text(2)
    assert facts.startswith("4 heads, causal, 2 key/value heads, RoPE (base 10000, 8 of 8 dims")
    assert "soft-cap 5" in facts and "window 4" in facts and "window" not in tree.topLevelItem(1).text(2)
    assert dialog.chosen().name == "model.layers.0.self_attn" and dialog.import_button.isEnabled()
    assert [dialog.heads.itemText(i) for i in range(dialog.heads.count())] == ["4"]
    assert dialog.heads_note.text() == "From the model's configuration."
    dialog.tokens.selectAll()
    qtbot.keyClicks(dialog.tokens, "7")
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)

    sc = window.document.scenario
    assert (sc.n_heads, sc.kv_heads, sc.causal, sc.queries.shape) == (4, 2, True, (1, 7, 32))
    assert [p.kind for p in sc.positions + sc.modifiers + sc.masks] == ["rope", "softcap", "window"]
    window.recompute.recompute_now()
    want_out, want_w, _ = reference(read_attention(folder, 0), sc.queries, np.arange(7)[None])
    np.testing.assert_allclose(window.last_trace["output"].numpy(), want_out.numpy(), atol=1e-4, rtol=0)
    np.testing.assert_allclose(window.last_trace["attention_weights"].numpy(), want_w.numpy(), atol=1e-5, rtol=0)
    check_panes(window)


def test_a_prob_attention_checkpoint_asks_and_imports_as_tsl_ran_it(window, qtbot, tmp_path, monkeypatch, check_panes):
    """An Informer checkpoint (TSL's AttentionLayer(ProbAttention)): the file dialog (replaced: it answers with
    the file), the question answered as a person does (ProbAttention, factor 2, mix left ticked), Import; the
    window's trace is the module's own output after torch.manual_seed(seed), the sample its first draw."""
    from app.models_view import import_layer as il
    from resources.training.tsl_style import AttentionLayer, ProbAttention

    torch.manual_seed(12)
    module = AttentionLayer(ProbAttention(False, 2, attention_dropout=0.0), 8, 2).eval()
    path = tmp_path / "informer.pth"
    torch.save({f"encoder.attn_layers.0.attention.{k}": v for k, v in module.state_dict().items()}, path)
    monkeypatch.setattr(il.WeightsFileDialog, "exec", lambda self: 1)
    monkeypatch.setattr(il.WeightsFileDialog, "selectedFiles", lambda self: [str(path)])
    _menu_action(window).trigger()
    dialog = window.import_layer.dialog
    assert dialog.isVisible() and dialog.chosen().name == "encoder.attn_layers.0.attention"
    assert dialog.inner_question.text().startswith("A Time-Series-Library state dict holds only the projections")
    assert not dialog.import_button.isEnabled()
    dialog.heads.setFocus()
    qtbot.keyClicks(dialog.heads, "2")
    dialog.tokens.selectAll()
    qtbot.keyClicks(dialog.tokens, "10")
    dialog.inner.setFocus()
    qtbot.keyClicks(dialog.inner, "P")  # ProbAttention
    assert dialog.factor.isEnabled() and dialog.mix.isEnabled() and dialog.mix.isChecked()
    assert "run.py default is 1" in dialog.factor.toolTip() and "without a transpose" in dialog.mix.toolTip()
    dialog.factor.selectAll()
    qtbot.keyClicks(dialog.factor, "2")
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)

    sc = window.document.scenario
    assert (sc.scoring, sc.factor, sc.mix, sc.n_heads, sc.L) == ("prob_sparse", 2, True, 2, 10)
    assert "ProbAttention (ProbSparse, factor 2)" in sc.notes["en"]
    x = torch.as_tensor(sc.queries)
    torch.manual_seed(sc.seed)
    with torch.no_grad():
        want, _ = module.double()(x, x, x, None)
    window.recompute.recompute_now()
    np.testing.assert_allclose(window.last_trace["output"].numpy(), want.numpy(), atol=1e-5, rtol=0)
    from attention import run  # the scenario itself, in float64: the 1e-6 of the issue
    assert np.abs(run(sc, dtype="float64")["output"].numpy() - want.numpy()).max() <= 1e-6
    check_panes(window)


def test_the_question_in_chinese_and_not_asked_for_other_families(window, qtbot, tmp_path):
    path, _ = _mixed_checkpoint(tmp_path)
    window.set_language("zh")
    try:
        window.import_layer.ask_path = lambda: str(path)
        window.import_layer.action.trigger()
        dialog = window.import_layer.dialog
        assert dialog.inner_box.isVisible() and "文件说不出" in dialog.inner_question.text()
        assert dialog.inner.placeholderText() == "请选择：文件里看不出来"
        dialog.reject()
    finally:
        window.set_language("en")
    mha = tmp_path / "mha.pt"
    torch.save(torch.nn.MultiheadAttention(8, 2).state_dict(), mha)
    window.import_layer.ask_path = lambda: str(mha)
    window.import_layer.action.trigger()
    dialog = window.import_layer.dialog
    assert not dialog.inner_box.isVisible() and dialog.import_button.isEnabled()
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    assert window.document.scenario.scoring == "scaled_dot" and "Inner attention" not in \
        window.document.scenario.notes["en"]
