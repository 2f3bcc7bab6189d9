"""Words a class reads (issue 20, items 5 and 7): counting from 1, the handout's header in its own
language, a handout in the other language that leaves the window's language alone."""
from __future__ import annotations

import operator
import re

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

import attention
import resources
from app.services import i18n
from app.teaching import handout
from app.viewmodel.pane_data import pane_data
from attention import words
from attention.files import scenario_io

MASKED = resources.scenarios_dir() / "03_d2l_masked_softmax.json"
ADDITIVE = resources.scenarios_dir() / "04_d2l_additive.json"
COMPARE = {">": operator.gt, ">=": operator.ge, "≥": operator.ge, "<": operator.lt, "<=": operator.le}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_mask_formula_read_with_the_column_labels_gives_the_mask(lang):
    sc = scenario_io.load(MASKED)  # valid lengths (2, 3): keys 1-2 kept in item 1, 1-3 in item 2
    trace = attention.run(sc)
    formula = trace["extra.mask"].formula[lang]
    m = re.search(r"\bs\s*(>=|≥|>|<=|<)\s*(valid_len|有效长度)", formula)
    assert m, formula
    compare = COMPARE[m.group(1)]
    for b, valid_len in enumerate(sc.valid_lens):
        data = pane_data(trace, "extra.mask", b)
        for c in range(data.layout.cols.size):
            s = int(data.layout.cols.tick(c))  # the label a person reads: 1, 2, 3, 4
            assert bool(data.block[0, 0, c]) == compare(s, int(valid_len)), (lang, b, s, formula)


def test_the_mask_lessons_count_keys_from_1():
    for key in ("lesson.extra.mask.d2l", "lesson.masked_scores.fill"):
        for lang in ("en", "zh"):
            text = words.text(key, lang, fill="-1e6") if "{fill}" in words.text(key, lang) else words.text(key, lang)
            assert "s ≤ " in text, (key, lang, text)


def test_the_handout_header_counts_from_1_and_names_the_scoring_in_chinese(qapp, tmp_path):
    sc = scenario_io.load(ADDITIVE)
    trace = attention.run(sc)
    page = handout.write_handout(sc, trace, tmp_path, lang="zh", batch=0).read_text(encoding="utf-8")
    setup = re.search(r'<p class="setup">(.*?)</p>', page).group(1)
    assert "批次第 1 项（共 2 项）" in setup, setup
    assert "加性" in setup and "additive" not in setup, setup
    en = handout.write_handout(sc, trace, tmp_path / "en", lang="en", batch=1).read_text(encoding="utf-8")
    setup = re.search(r'<p class="setup">(.*?)</p>', en).group(1)
    assert "batch item 2 of 2" in setup and "scoring: additive (d2l)" in setup, setup


class _LanguageChanges(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.count += 1
        return False


def test_a_handout_in_the_other_language_leaves_the_window_alone(qapp, tmp_path):
    sc = scenario_io.load(MASKED)
    trace = attention.run(sc)
    assert i18n.current_language() == "en"
    changes = _LanguageChanges()
    app = QApplication.instance()
    app.installEventFilter(changes)
    try:
        page = handout.write_handout(sc, trace, tmp_path, lang="zh").read_text(encoding="utf-8")
        QApplication.processEvents()
    finally:
        app.removeEventFilter(changes)
    assert changes.count == 0  # no translator was installed or removed: nothing was retranslated
    assert i18n.current_language() == "en"
    assert "第 1 步（共" in page and words.text("handout.footer", "zh") in page


_NOTATION = re.compile(r"[A-Za-z_\[\],^0-9()]+(?:-[A-Za-z]+)*|[=×·Σ+−\-/*.]")


def _symbols(formula: str) -> list[str]:
    """The operators of a formula: what two languages must write alike (words aside)."""
    return [t for t in _NOTATION.findall(formula) if t in {"=", "×", "·", "Σ", "+", "−", "-", "/", "*", "."}]


def test_english_and_chinese_formulas_use_one_notation():
    sparse = scenario_io.load(resources.scenarios_dir() / "07_informer_probsparse.json")
    for sc in (scenario_io.load(MASKED), scenario_io.load(ADDITIVE), sparse, attention.Scenario(
            queries=__import__("numpy").ones((1, 2, 2)), keys=__import__("numpy").ones((1, 2, 2)),
            values=__import__("numpy").ones((1, 2, 2)), n_heads=1)):
        trace = attention.run(sc)
        for sid in trace.ids:
            en, zh = trace[sid].formula["en"], trace[sid].formula["zh"]
            # the same operators in the same order: no "*" and "." in one, "×" and "·" in the other, and
            # no remark ("without a projection: Q = X_q") in one that the other lacks
            assert _symbols(en) == _symbols(zh), (sid, en, zh)
            assert " * " not in en and " . " not in en, (sid, en)


def test_the_additive_lesson_agrees_with_its_formula_on_the_scale():
    for lang, scale in (("en", "scale"), ("zh", "缩放系数")):  # the Chinese formula names it as its control does
        lesson = words.text("lesson.scores.additive_widths", lang)
        assert scale in lesson and f"× {scale}" in words.text("step.scores.formula.additive", lang), lesson
        assert "no scale is applied" not in lesson


# ---- item 7: errors a Chinese window shows are Chinese ----------------------------------------------
_CJK = re.compile(r"[\u4e00-\u9fff]")


def test_export_and_paste_errors_follow_the_window_language(qapp, tmp_path):
    import errno

    import numpy as np

    from app.viewmodel import clipboard, export_csv
    from app.viewmodel.export_errors import cannot_write

    trace = attention.run(attention.Scenario(queries=np.ones((1, 2, 2)), keys=np.ones((1, 2, 2)),
                                             values=np.ones((1, 2, 2)), n_heads=1))
    blocked = tmp_path / "a folder"
    blocked.mkdir()
    i18n.set_language("zh")
    try:
        with pytest.raises(OSError) as e:
            export_csv.step_to_csv(trace, "scores", 0, str(blocked))  # a folder where the file should go
        assert "CSV 文件" in str(e.value) and "cannot" not in str(e.value), str(e.value)
        line = cannot_write("png", "x.png", PermissionError(errno.EACCES, "Permission denied"))
        assert line == "x.png：无法写入 PNG 文件 (没有写入权限)"
        with pytest.raises(clipboard.ClipboardError) as e:
            clipboard.parse_table("1\tx\n2\t3")
        assert str(e.value).startswith("第 1 行第 2 列：") and _CJK.search(str(e.value)), str(e.value)
    finally:
        i18n.set_language("en")
    with pytest.raises(clipboard.ClipboardError, match="row 1, column 2: 'x' is not a number"):
        clipboard.parse_table("1\tx\n2\t3")


# ---- item 8: File > Export handout opens in the scenario's folder or Documents --------------------------
def test_the_handout_folder_dialog_never_opens_in_the_presets_folder(tmp_path, monkeypatch):
    from PySide6.QtCore import QStandardPaths

    docs = tmp_path / "Documents"
    docs.mkdir()
    monkeypatch.setattr(QStandardPaths, "writableLocation", lambda *_: str(docs))
    presets = str(resources.scenarios_dir())
    assert handout.export_start_dir(presets) == str(docs)  # a preset: the person's Documents
    own = tmp_path / "lessons"
    own.mkdir()
    assert handout.export_start_dir(str(own)) == str(own)  # a scenario of their own: its folder


# ---- item 8: a cell the class found shows its number on the by-hand sheet too ----------------------------
def test_an_answered_quiz_cell_shows_its_number_on_the_by_hand_sheet(qtbot, window):
    quiz = window.cell_tools.quiz
    window.by_hand.set_shown(True)
    quiz.hide_step("attention_weights")
    trace = window.last_trace
    weights = trace.array("attention_weights")  # (B, H, L, S)
    value = float(weights[0, 0, 1, 2])
    verdict = quiz.answer("attention_weights", (0, 0, 1, 2), repr(value))  # the right number, typed
    assert verdict.right
    for sheet in (window.by_hand.view, window.presentation.by_hand.sheet):
        if not sheet.cells:
            continue
        text = sheet.cells[("weights", 1, 2)][1].text()
        assert text != "?" and abs(float(text) - value) < 1e-3 * max(1.0, abs(value)), text
        others = {t.text() for (key, i, j), (_, t) in sheet.cells.items() if key == "weights" and (i, j) != (1, 2)}
        assert others == {"?"}  # only the found cell
    quiz.hide_step(None)


# ---- item 2: the handout's picture of a long row -------------------------------------------------------
def test_the_handout_draws_the_1x80_features_in_rows(qapp, tmp_path):
    from PySide6.QtGui import QImage

    from attention.registry import step_registry

    sc = scenario_io.load(ADDITIVE)
    trace = attention.run(sc)
    handout.write_handout(sc, trace, tmp_path, lang="en")
    sid = "extra.additive_features"
    image = QImage(str(tmp_path / handout.image_name(step_registry.in_order(trace.ids).index(sid), sid)))
    # it was a 4700 x 444 strip whose labels shrank to a quarter at page width
    assert image.width() / image.height() < 3, (image.width(), image.height())
    assert image.width() < 2000
