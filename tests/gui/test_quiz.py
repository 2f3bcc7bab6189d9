"""Quiz: a hidden step shows "?" and no value anywhere (cells, colours, hover, colour bar); typed
answers are checked against the trace within the teacher's tolerance; "Show how" reveals one
cell; turning the quiz off restores the pane.

Right answers are computed here with plain torch from the hand-calculation preset's inputs
(identity projections: head h of a row is its columns 2h, 2h+1; scale 0.5)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

import resources
from app.teaching.quiz import LAYER, RIGHT_COLOUR, WRONG_COLOUR
from app.viewmodel import cell_format

X = torch.tensor([[2, 0, 1, 1], [0, 2, 1, 1], [2, 2, 0, 2]], dtype=torch.float64)  # the preset's queries = keys


def hand_weights() -> torch.Tensor:
    """(H, L, S) softmax(0.5 · q_h k_hᵀ) for the preset, written out here."""
    heads = X.view(3, 2, 2).transpose(0, 1)  # (H, L, 2)
    return torch.softmax(0.5 * heads @ heads.transpose(1, 2), dim=-1)


@pytest.fixture
def quiz_window(window):
    path, title = next((p, t) for p, t in resources.list_presets() if p.name == "08_hand_calculation.json")
    assert window.open_preset(path, title)
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    return window


def all_texts(pane) -> list[str]:
    """Every text the pane shows: labels, title, formula, hint line and each cell's hover."""
    texts = [pane.title_text(), pane.formula.text(), pane.hover.text(), pane.notice.text()]
    n, rows, cols = pane.data.block.shape
    for m in range(n):
        for digits in (4, 3, 2):
            texts += pane.heatmaps[m].overlay.labels(digits) or []
        texts += [pane.hover_text(m, r, c) for r in range(rows) for c in range(cols)]
    return texts


def value_strings(values: np.ndarray) -> set[str]:
    out = set()
    for v in values.ravel().tolist():
        out |= {cell_format.exact(v), cell_format.compact(v, 4), cell_format.compact(v, 3), repr(v)}
    return {s for s in out if s not in ("0", "1", "2")}  # digits that also appear in labels ("Head 1")


def test_a_hidden_step_shows_no_value_anywhere(quiz_window):
    view, quiz = quiz_window.view, quiz_window.cell_tools.quiz
    quiz.hide_step("attention_weights")
    pane = view.pane("attention_weights")
    assert pane.heatmaps[0].overlay.labels() == ["?"] * 9
    texts = all_texts(pane)
    leaks = value_strings(hand_weights().numpy())
    assert not [t for t in texts if any(s in t for s in leaks)]
    assert all("?" in pane.hover_text(m, r, c) for m in range(2) for r in range(3) for c in range(3))
    # the hover through the scene, as the mouse does
    text = pane.hover_at(pane.cell_scene_pos(1, 2, 2))
    assert text is not None and "?" in text and not any(s in text for s in leaks)
    # colours flat, colour bar hidden
    shown = pane.displayed_arrays()
    assert all(np.all(a == a.flat[0]) for a in shown) and shown[0].flat[0] == shown[1].flat[0]
    assert not pane.bar.isVisible()
    # other steps keep their numbers
    assert "?" not in (view.pane("scores").heatmaps[0].overlay.labels() or [])


def test_answers_are_checked_within_the_tolerance(quiz_window):
    view, quiz, panel = quiz_window.view, quiz_window.cell_tools.quiz, quiz_window.cell_tools.panel
    quiz.hide_step("attention_weights")
    panel.tolerance.setValue(0.01)
    w = hand_weights()
    pane = view.pane("attention_weights")
    pane.click_cell(0, 0, 0)  # head 1, query a, key a: e² / (2e² + 1)
    assert not panel.quiz_box.isHidden() and panel.answer_edit.isEnabled()
    panel.answer_edit.setText(f"{float(w[0, 0, 0]) + 0.005:.6f}")
    panel.check_answer()
    assert panel.verdict.property("right") is True
    assert pane.marks(LAYER) == {(0, 0, 0): RIGHT_COLOUR}
    panel.answer_edit.setText(f"{float(w[0, 0, 0]) + 0.03:.6f}")  # off by 0.03 > 0.01
    panel.check_answer()
    assert panel.verdict.property("right") is False
    assert pane.marks(LAYER) == {(0, 0, 0): WRONG_COLOUR}
    panel.tolerance.setValue(0.05)  # the teacher loosens it: the same answer is now right
    panel.check_answer()
    assert panel.verdict.property("right") is True
    # a fraction worked out on paper: head 2's first row is exactly 1/3 each
    pane.click_cell(1, 0, 2)
    panel.answer_edit.setText("1/3")
    panel.check_answer()
    assert panel.verdict.property("right") is True and abs(float(w[1, 0, 2]) - 1 / 3) < 1e-15
    assert pane.marks(LAYER) == {(0, 0, 0): RIGHT_COLOUR, (1, 0, 2): RIGHT_COLOUR}


def test_an_answer_that_is_not_a_number_changes_nothing(quiz_window):
    view, quiz, panel = quiz_window.view, quiz_window.cell_tools.quiz, quiz_window.cell_tools.panel
    quiz.hide_step("scores")
    view.pane("scores").click_cell(0, 1, 2)
    for bad in ("abc", "1/0", "", "0.5.5"):
        panel.answer_edit.setText(bad)
        panel.check_answer()
        assert panel.verdict.property("right") is None, bad
        assert ("not a number" in panel.verdict.text()) or ("Type a number" in panel.verdict.text()), bad
    assert not view.pane("scores").marks(LAYER)
    assert view.pane("scores").heatmaps[0].overlay.labels()[5] == "?"


def test_typing_into_a_double_clicked_cell(quiz_window, qtbot):
    view, quiz, panel = quiz_window.view, quiz_window.cell_tools.quiz, quiz_window.cell_tools.panel
    quiz_window.show()
    quiz_window.activateWindow()
    qtbot.waitUntil(lambda: quiz_window.isActiveWindow())
    quiz.hide_step("scores")
    pane = view.pane("scores")
    pane.click_cell(0, 2, 2)
    pane.click_cell(0, 2, 2, double=True)  # the second press of a double click: stays selected
    assert panel.selection == ("scores", (0, 0, 2, 2))
    qtbot.waitUntil(lambda: panel.answer_edit.hasFocus())
    heads = X.view(3, 2, 2)[:, 0]  # head 1 of each row
    score = float(0.5 * heads[2] @ heads[2])  # 0.5 · [2, 2]·[2, 2] = 4
    QTest.keyClicks(panel.answer_edit, str(int(score)))
    QTest.keyClick(panel.answer_edit, Qt.Key.Key_Return)
    assert panel.verdict.property("right") is True


def test_show_how_reveals_one_cell_and_its_explanation(quiz_window):
    view, quiz, panel = quiz_window.view, quiz_window.cell_tools.quiz, quiz_window.cell_tools.panel
    quiz.hide_step("attention_weights")
    pane = view.pane("attention_weights")
    pane.click_cell(1, 2, 2)
    w = float(hand_weights()[1, 2, 2])  # e / (2 + e)
    before = panel.explanation_text()
    assert before and f"{w:.4f}" not in before and "0.3679" not in before  # no terms (e^-1) nor result
    assert f"{w:.4f}" not in panel.where.text()
    panel.show_how()
    labels = pane.heatmaps[1].overlay.labels()
    assert labels[8] == cell_format.compact(w, 4)
    assert labels[:8] == ["?"] * 8 and pane.heatmaps[0].overlay.labels() == ["?"] * 9
    assert f"{w:.4f}" in panel.explanation_text().splitlines()[0]
    assert not panel.answer_edit.isEnabled()


def test_turning_the_quiz_off_restores_the_pane(quiz_window, check_panes):
    view, quiz = quiz_window.view, quiz_window.cell_tools.quiz
    actions = {a.text(): a for a in quiz.menu.actions()}
    hide = next(a for text, a in actions.items() if "(masked_scores)" in text)
    hide.trigger()
    assert quiz.step_id == "masked_scores"
    assert view.pane("masked_scores").heatmaps[0].overlay.labels()[0] == "?"
    quiz.off_action.trigger()
    assert quiz.step_id is None
    check_panes(quiz_window)
    assert view.pane("masked_scores").bar.isVisible()
    assert "?" not in view.pane("masked_scores").heatmaps[0].overlay.labels()


def test_an_edit_forgets_the_answers(quiz_window, qtbot):
    from app.viewmodel.matrix_ref import MatrixRef
    view, quiz, panel = quiz_window.view, quiz_window.cell_tools.quiz, quiz_window.cell_tools.panel
    quiz.hide_step("scores")
    view.pane("scores").click_cell(0, 0, 0)
    panel.answer_edit.setText("2")  # 0.5 · [2, 0]·[2, 0]
    panel.check_answer()
    assert view.pane("scores").marks(LAYER)
    quiz_window.document.set_cell(MatrixRef("queries", 0), 0, 0, 4.0)
    quiz_window.recompute.recompute_now()
    qtbot.waitUntil(lambda: not view.pane("scores").marks(LAYER))
    assert view.pane("scores").heatmaps[0].overlay.labels()[0] == "?"  # still hidden
