"""Chinese and English: runtime switching, and a translation file that is complete and compiles."""
from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "translations" / "app_zh_CN.ts"
BIN = Path(sys.executable).parent


def _refresh_script():
    """resources/translations/update.py, whose `sources()` (every module under app/) lupdate reads."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("translations_update", TS.parent / "update.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SOURCES = _refresh_script().sources()


def _tool(name: str) -> str:
    exe = BIN / name
    if not exe.exists():
        found = shutil.which(name)
        if found is None:
            pytest.fail(f"{name} not found next to {sys.executable} or on PATH")
        return found
    return str(exe)


def _messages(ts: Path) -> list[tuple[str, str, ET.Element]]:
    root = ET.parse(ts).getroot()
    return [(ctx.findtext("name"), m.findtext("source"), m.find("translation"))
            for ctx in root.iter("context") for m in ctx.iter("message")]


def test_every_string_has_a_chinese_translation():
    msgs = _messages(TS)
    assert len(msgs) > 150
    bad = [(c, s) for c, s, t in msgs
           if t is None or not (t.text or "").strip() or t.get("type") in ("unfinished", "vanished", "obsolete")]
    assert bad == []
    # placeholders survive translation
    for _, src, t in msgs:
        for i in range(4):
            assert (f"{{{i}" in src) == (f"{{{i}" in t.text), (src, t.text)


@pytest.mark.slow
def test_the_ts_file_matches_the_sources_and_compiles(tmp_path):
    """lupdate on today's sources finds no string the committed .ts lacks; lrelease compiles it."""
    fresh = tmp_path / "app_zh_CN.ts"
    shutil.copy(TS, fresh)
    res = subprocess.run([_tool("pyside6-lupdate"), *SOURCES, "-ts", str(fresh), "-no-obsolete", "-locations", "none",
                          "-source-language", "en", "-target-language", "zh_CN"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    sources = {(c, s) for c, s, _ in _messages(fresh)}
    committed = {(c, s) for c, s, _ in _messages(TS)}
    assert sources - committed == set(), "run pyside6-lupdate and translate the new strings"
    assert committed - sources == set(), "the .ts holds strings the code no longer uses"
    qm = tmp_path / "app_zh_CN.qm"
    res = subprocess.run([_tool("pyside6-lrelease"), str(TS), "-qm", str(qm)], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0 and qm.stat().st_size > 0, res.stdout + res.stderr
    assert "0 unfinished" in res.stdout
    shipped = TS.with_suffix(".qm")
    assert shipped.exists() and shipped.read_bytes() == qm.read_bytes(), "recompile the committed .qm"


def test_switching_language_at_runtime(window, settings):
    assert window.file_menu.title() == "&File"
    window.set_language("zh")
    try:
        assert window.file_menu.title() == "文件(&F)"
        assert window.params.labels["n_heads"].text() == "头数 H"
        assert window.params.controls["n_heads"].toolTip().startswith("注意力头的个数")
        assert window.inputs.tabs.tabText(1) == "权重"
        assert window.view._lang == "zh"
        assert [a.text() for a in window.preset_menu.actions()][0] == __import__("resources").list_presets()[0][1]["zh"]
        assert settings.language() == "zh"
    finally:
        window.set_language("en")
    assert window.file_menu.title() == "&File"
    assert window.params.labels["n_heads"].text() == "Heads H"


def test_saved_language_is_used_at_start(make_window, settings):
    settings.set_language("zh")
    w = make_window()
    try:
        assert w.edit_menu.title() == "编辑(&E)"
    finally:
        w.set_language("en")


def test_switching_language_switches_the_catalogue_too(window):
    """The words the Qt-free code writes (attention.words) follow the window's language."""
    from attention import words

    window.set_language("zh")
    try:
        assert words.language() == "zh"
        assert words.text("step.attention_weights.title") == window.last_trace["attention_weights"].title["zh"]
        assert words.text("step.attention_weights.title") == "注意力权重（softmax）"
    finally:
        window.set_language("en")
    assert words.language() == "en" and words.text("step.attention_weights.title") == "Attention weights (softmax)"


def test_problem_lines_follow_the_language(window):
    window.params.controls["n_heads"].setValue(3)
    window.recompute.wait_idle()
    label = window.params.problem_labels["n_heads"]
    assert "do not divide" in label.text()
    window.set_language("zh")
    try:
        assert "不能整除" in label.text() and label.lines()[0].startswith("n_heads: 3 heads")
        assert "不能整除" in window.view.banner.text()
    finally:
        window.set_language("en")
    assert "do not divide" in label.text()


def test_undo_and_redo_speak_the_ui_language(window):
    """The Edit menu and the toolbar name the step Undo takes back, in Chinese too (Qt's own
    QUndoStack actions would write an English "Undo ..." back at every change)."""
    window.set_language("zh")
    try:
        assert window.undo_action.text() == "撤销(&U)" and not window.undo_action.isEnabled()
        model = window.inputs.editors["queries"].model
        assert model.setData(model.index(0, 1), "3.5")
        assert window.undo_action.isEnabled()
        assert window.undo_action.text().startswith("撤销“编辑单元格") and window.undo_action.text().endswith("(&U)")
        # the toolbar keeps one short word (a button that grew with the step's name moved the
        # buttons after it at every edit); its tooltip names the step, without the mnemonic
        button = window.toolbar.widgetForAction(window.undo_action)
        assert button.text() == "撤销"
        assert button.toolTip().startswith("撤销“编辑单元格") and "&" not in button.toolTip()
        width = button.sizeHint().width()
        assert model.setData(model.index(0, 2), "-12.25")
        assert button.text() == "撤销" and button.sizeHint().width() == width
        window.undo_action.trigger()
        window.undo_action.trigger()
        assert window.redo_action.text().startswith("重做“") and not window.undo_action.isEnabled()
        window.set_language("en")  # the step keeps the name it was given; the verb follows the UI
        assert window.redo_action.text().startswith("&Redo ") and window.undo_action.text() == "&Undo"
        assert button.text() == "Undo" and window.toolbar.widgetForAction(window.redo_action).text() == "Redo"
    finally:
        window.set_language("en")


#: texts that read the same in both languages: names, code, units
SAME_IN_BOTH = {"English", "CPU", "CUDA", "float32", "float64", "-inf", "-1e6", "softmax", "ProbSparse（Informer）"}
_CJK = __import__("re").compile(r"[\u4e00-\u9fff]")
_WORD = __import__("re").compile(r"[A-Za-z]{3,}")
#: a token of code or a formula (K.view(B,, W_q, d_model, 1/sqrt(d_k), ^T): not a word to translate
_CODE_TOKEN = __import__("re").compile(r"\S*[_=^(){}\[\]/.\d]\S*")


def english_left(root, actions) -> list[str]:
    """Texts visible in `root` (were it on screen) with an English word and no Chinese at all
    (names and code excepted)."""
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QDockWidget, QGroupBox, QLabel, QTabWidget, QWidget

    texts = []
    for a in actions:
        if a.isVisible():
            texts += [("action", a.text()), ("tip", a.toolTip())]
    for w in root.findChildren(QWidget):
        if not w.isVisibleTo(root):
            continue
        if isinstance(w, (QLabel, QAbstractButton)):
            texts.append((type(w).__name__, w.text()))
        if isinstance(w, QGroupBox):
            texts.append(("group", w.title()))
        if isinstance(w, QDockWidget):
            texts.append(("dock", w.windowTitle()))
        if isinstance(w, QTabWidget):
            texts += [("tab", w.tabText(i)) for i in range(w.count())]
        if isinstance(w, QComboBox):
            texts += [("combo", w.itemText(i)) for i in range(w.count())]
        if w.toolTip():
            texts.append(("tooltip", w.toolTip()))
    bad = []
    for kind, text in texts:
        plain = (text or "").replace("&", "").strip()
        words = _WORD.findall(_CODE_TOKEN.sub(" ", plain))  # the words left once code is taken out
        if plain in SAME_IN_BOTH or _CJK.search(plain) or not words:
            continue
        bad.append(f"{kind}: {plain!r}")
    return sorted(set(bad))


def _all_actions(window):
    """Every action a person can reach: the menu bar (all levels) and the toolbars."""
    from PySide6.QtWidgets import QToolBar

    out, todo = [], list(window.menuBar().actions())
    for bar in window.findChildren(QToolBar):
        todo += bar.actions()
    while todo:
        a = todo.pop()
        out.append(a)
        if a.menu() is not None:
            todo += a.menu().actions()
    return out


def test_no_english_left_on_screen_in_chinese(qtbot, window):
    """In Chinese, every visible word of the window — menus, toolbar, panels, the explain dock with
    a cell explained, the quiz and compare actions, the presentation slides — is Chinese."""
    from PySide6.QtWidgets import QApplication

    window.set_language("zh")
    try:
        tools = window.cell_tools
        tools.panel.show()
        window.view.pane("scores").click_cell(0, 1, 2)
        qtbot.wait(50)
        assert english_left(window, _all_actions(window)) == []
        view = window.presentation.view
        view.enter()
        qtbot.waitUntil(view.isVisible)
        for path, title in [p for p in __import__("resources").list_presets() if p[0].stem[:2] in ("01", "04", "07")]:
            window.open_preset(path, title)  # the toy, additive, ProbSparse: each kind's own slides
            window.recompute.recompute_now()
            window.recompute.wait_idle()
            for i, sid in enumerate(view.lesson_ids()):
                view.go_to(i)
                qtbot.wait(10)
                assert english_left(view, []) == [], (path.stem, sid)
        window.presentation.leave()
    finally:
        window.set_language("en")
        QApplication.processEvents()
