"""Every word of the Chinese window is Chinese (issue 30, item 3): a walk over every widget, menu, tooltip, pane
title, formula, axis name, painted cell and lesson text of every preset, of the docks, the Explain panel and the
bundled models, that fails on any English word left (tests/gui/window_words.py says what counts as one: symbols,
identifiers, names of papers and libraries, and the data typed in are not) and on any step named by its internal
id in prose instead of by the words on its chip.  Qt's own dialogs speak Chinese too (Qt's translations)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import window_words as ww
from PySide6.QtWidgets import QFileDialog, QTreeView, QWidget

import resources
from app.services import i18n
from attention.registry import step_registry
from attention.teaching import lessons

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "resources" / "translations"


def _english_in(texts: list[tuple[str, str]], data: set[str]) -> list[str]:
    ids = list(step_registry.BY_ID)
    found = []
    for where, text in texts:
        words_found = ww.english(text, data)
        named = ww.step_ids_named(text, ids)
        if words_found or named:
            found.append(f"{where}: {words_found + ['id ' + s for s in named]} in {ww.plain(text)[:120]!r}")
    return found


def _chinese(window, qtbot):
    window.resize(1600, 1000)
    window.show()
    qtbot.waitExposed(window)
    window.lang_actions["zh"].trigger()
    assert i18n.current_language() == "zh"


def test_no_english_word_in_the_chinese_window_with_any_preset(window, qtbot):
    _chinese(window, qtbot)
    data = ww.all_preset_data()
    found: list[str] = []
    for action in window.preset_menu.actions():  # File ▸ Open preset ▸ ..., as a person opens them
        action.trigger()
        window.recompute.wait_idle()
        trace = window.last_trace
        texts = ww.window_texts(window)
        texts += [(f"lesson of {sid}", lessons.explanation(sid, trace.options, "zh")) for sid in trace.ids]
        found += [f"{action.statusTip()}: {f}" for f in _english_in(texts, data)]
    assert len(window.preset_menu.actions()) == len(resources.list_presets())
    assert found == [], f"{len(found)} English words or step ids:\n" + "\n".join(sorted(set(found))[:80])


def test_no_english_word_in_the_docks_the_explain_panel_and_the_models(window, qtbot):
    _chinese(window, qtbot)
    for action in (window.cell_tools.panel_action, window.token_lines.action, window.what_if.action,
                   window.by_hand.action, window.models.layer_cache.action):
        if not action.isChecked():
            action.trigger()
    window.recompute.wait_idle()
    window.view.pane("scores").click_cell(0, 0, 1)  # the Explain panel explains a cell
    window.recompute.wait_idle()
    data = ww.all_preset_data()
    found = [f"docks: {f}" for f in _english_in(ww.window_texts(window), data)]
    models = window.models
    for action in (models.glassllm_action, models.bundled_action):
        if not action.isVisible():
            continue
        action.trigger()
        qtbot.waitUntil(lambda: models.session is not None and models.is_idle(), timeout=120_000)
        window.recompute.wait_idle()
        session = models.session
        if getattr(session, "is_decoder", False):
            models.panel.cache.next_button.click()
            qtbot.waitUntil(models.is_idle, timeout=60_000)
            window.recompute.wait_idle()
        typed = data | set(session.tokens()) | {w for s in session.sentences for w in s.split()}
        found += [f"{session.label}: {f}" for f in _english_in(ww.window_texts(window), typed)]
    assert found == [], f"{len(found)} English words or step ids:\n" + "\n".join(sorted(set(found))[:80])


@pytest.mark.parametrize("mode", ["open", "save", "folder"])
def test_qts_own_file_dialog_speaks_chinese(qapp, qtbot, tmp_path, mode):
    """Qt's own file dialog (no desktop's: what Xvfb, a projector's Linux box and DontUseNativeDialog get):
    "Look in:", "Files of type:" and the list's "Folder" came in English, the file PySide6 ships lacking Qt 6's
    new mnemonics and file kinds; "JSON document" follows the locale, which follows the window."""
    (tmp_path / "lessons").mkdir()
    (tmp_path / "toy.json").write_text("{}", encoding="utf-8")
    i18n.set_language("zh")
    try:
        d = QFileDialog(None, "场景", str(tmp_path), "场景文件 (*.json)")
        d.setOption(QFileDialog.Option.DontUseNativeDialog)
        if mode == "save":
            d.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        elif mode == "folder":
            d.setFileMode(QFileDialog.FileMode.Directory)
        d.show()
        qapp.processEvents()
        view = d.findChild(QTreeView, "treeView")
        model, root = view.model(), view.rootIndex()
        qtbot.waitUntil(lambda: model.rowCount(view.rootIndex()) >= (1 if mode == "folder" else 2))
        root = view.rootIndex()
        kinds = [model.index(r, 2, root).data() for r in range(model.rowCount(root))]  # the Type column
        texts = [(where, t) for w in [d, *d.findChildren(QWidget)] if w.isVisible() or w is d
                 for where, t in ww.widget_texts(w)] + [("file kind", k) for k in kinds]
        found = [(where, t, ww.english(t)) for where, t in texts if ww.english(t)]
        labels = [w.text() for w in d.findChildren(QWidget) if w.inherits("QLabel") and w.isVisible()]
        d.close()
    finally:
        i18n.set_language("en")
    assert found == []
    assert any(t.startswith("查找范围") for t in labels) and any(t.startswith("文件类型") for t in labels), labels
    assert "文件夹" in kinds and (mode == "folder" or "JSON 文档" in kinds), kinds


@pytest.mark.slow  # runs pyside6-lrelease
def test_the_extra_qt_translation_compiles_to_the_committed_qm(tmp_path):
    ts = TRANSLATIONS / "qtbase_extra_zh_CN.ts"
    lrelease = Path(sys.executable).parent / "pyside6-lrelease"
    qm = tmp_path / "extra.qm"
    res = subprocess.run([str(lrelease), str(ts), "-qm", str(qm)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "0 unfinished" in res.stdout, res.stdout + res.stderr
    assert qm.read_bytes() == ts.with_suffix(".qm").read_bytes(), "recompile qtbase_extra_zh_CN.qm"
