"""A quiz's hidden numbers stay hidden wherever a person can read them (issue 12, defect 1), and
the quiz says on screen how to answer, showing a found number in its cell (defect 15).

The hidden values are computed here with plain torch from the presets' own inputs (the hand
calculation preset: identity projections, scale 0.5; the d2l preset: Q = I, K = Xᵀ, V = I), and
every place is searched for them as the panes would print them."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from gui_helpers import enter_presentation
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

import resources
from app.teaching import handout
from app.teaching.quiz import LAYER, RIGHT_COLOUR, WRONG_COLOUR
from app.viewmodel import cell_format

X = torch.tensor([[2, 0, 1, 1], [0, 2, 1, 1], [2, 2, 0, 2]], dtype=torch.float64)  # hand calculation: Q = K inputs


def hand_weights() -> torch.Tensor:
    heads = X.view(3, 2, 2).transpose(0, 1)  # (H, L, 2): head h owns columns 2h, 2h+1
    return torch.softmax(0.5 * heads @ heads.transpose(1, 2), dim=-1)


def leak_strings(values) -> set[str]:
    out = set()
    for v in np.asarray(values, dtype=np.float64).ravel().tolist():
        out |= {cell_format.exact(v), cell_format.compact(v, 4), cell_format.compact(v, 3), f"{v:.4f}"}
    return {s for s in out if s not in ("0", "1", "2", "0.0000", "1.0000")}


def pane_texts(pane) -> list[str]:
    texts = [pane.title_text(), pane.hover.text()]
    n, rows, cols = pane.data.block.shape
    for m in range(n):
        texts += pane.heatmaps[m].overlay.labels() or []
        texts += [pane.hover_text(m, r, c) for r in range(rows) for c in range(cols)]
    return texts


def leaked(texts, leaks) -> list[str]:
    return [t for t in texts if any(s in t for s in leaks)]


def open_preset(window, name: str):
    path, title = next((p, t) for p, t in resources.list_presets() if p.name == name)
    assert window.open_preset(path, title)
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    return window


def hide_from_menu(window, step_id: str) -> None:
    """View ▸ Quiz: hide the numbers of ▸ <step>, as a person picks it."""
    quiz = window.cell_tools.quiz
    action = next(a for a in quiz.menu.actions() if a.text().endswith(f"({step_id})"))
    action.trigger()
    assert quiz.step_id == step_id


def enter_slides(qtbot, window):
    return enter_presentation(qtbot, window)


@pytest.fixture
def hand(window):
    return open_preset(window, "08_hand_calculation.json")


@pytest.fixture
def d2l(window):
    return open_preset(window, "03_d2l_masked_softmax.json")


# ---- defect 1: slides ----------------------------------------------------------------------------
def test_f5_hides_the_step_its_next_slide_zoom_and_drawer(qtbot, hand):
    hide_from_menu(hand, "attention_weights")
    leaks = leak_strings(hand_weights().numpy())
    view = enter_slides(qtbot, hand)
    try:
        view.go_to(view.lesson_ids().index("attention_weights"))
        out = view.output_pane()
        assert out.heatmaps[0].overlay.labels() == ["?"] * 9
        assert not leaked(pane_texts(out), leaks)
        assert not out.bar.isVisible()  # no colour scale to read the range off
        assert view.quiz_note.isVisible() and "hidden" in view.quiz_note.text()
        qtbot.keyClick(view, Qt.Key.Key_Right)  # the weighted sum: the weights are its input
        assert view.current_step() == "weighted_sum"
        inputs = {p.step_id: p for p in view.input_panes()}
        assert "attention_weights" in inputs
        assert set(inputs["attention_weights"].heatmaps[0].overlay.labels()) == {"?"}
        assert not leaked(pane_texts(inputs["attention_weights"]), leaks)
        for _ in range(3):
            qtbot.keyClick(view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)  # zoom in
        assert set(inputs["attention_weights"].heatmaps[0].overlay.labels()) == {"?"}
        qtbot.keyClick(view, Qt.Key.Key_E)  # the edit drawer: parameters and inputs, no step numbers
        assert view.drawer_open()
        drawer_texts = [w.text() for w in view.drawer.findChildren(QLabel)]
        for table in view.drawer.inputs.editors.values():
            model = table.table.model()
            drawer_texts += [str(model.index(r, c).data()) for r in range(model.rowCount())
                             for c in range(model.columnCount())]
        assert not leaked(drawer_texts, leaks)
    finally:
        view.leave()


def test_a_step_repeating_the_hidden_one_is_hidden_on_slides_and_in_the_window(qtbot, d2l):
    hide_from_menu(d2l, "attention_weights")
    trace = d2l.last_trace
    # the preset's V is the 4 × 4 identity, so weights @ V = weights: the weighted sum repeats them
    v = trace.parameters["values"].numpy()
    assert np.array_equal(v[0], np.eye(4)) and np.array_equal(v[1], np.eye(4))
    weights = torch.from_numpy(trace.array("attention_weights"))
    assert torch.allclose(weights[:, 0] @ torch.eye(4, dtype=torch.float64),
                          torch.from_numpy(trace.array("weighted_sum")[:, :, 0]))
    leaks = leak_strings(weights.numpy()[weights.numpy() > 0])
    bar = d2l.cell_tools.quiz.bar
    assert not bar.isHidden() and "V is the identity" in bar.text()
    for sid in ("weighted_sum", "concat", "output"):
        pane = d2l.view.pane(sid)
        assert not leaked(pane_texts(pane), leaks), sid
        assert "?" in pane.heatmaps[0].overlay.labels()
    view = enter_slides(qtbot, d2l)
    try:
        view.go_to(view.lesson_ids().index("output"))
        texts = pane_texts(view.output_pane()) + [t for p in view.input_panes() for t in pane_texts(p)]
        assert not leaked(texts, leaks)
        assert "V is the identity" in view.quiz_note.text()
    finally:
        view.leave()


# ---- defect 1: explain, export, handout ------------------------------------------------------------
def test_explaining_a_repeating_cell_prints_no_hidden_number(d2l):
    hide_from_menu(d2l, "attention_weights")
    weights = d2l.last_trace.array("attention_weights")
    leaks = leak_strings(weights[weights > 0])
    panel = d2l.cell_tools.panel
    d2l.view.pane("weighted_sum").click_cell(0, 0, 0)
    assert panel.selection[0] == "weighted_sum"
    assert not leaked([panel.explanation_text(), panel.where.text()], leaks)
    assert "hidden as well" in panel.explanation_text()
    assert not panel.answer_edit.isEnabled()  # answers go to the quiz's own step


def test_csv_export_of_a_hidden_step_is_refused(hand, tmp_path):
    hide_from_menu(hand, "attention_weights")
    ids = list(hand.last_trace.ids)
    hand.ask_choice = lambda *a: ids.index("attention_weights")
    hand.ask_save_path = lambda *a: str(tmp_path / "w.csv")
    shown = []
    hand.show_messages = lambda title, lines, *a, **k: shown.append(title)
    hand.export_csv_action.trigger()
    assert not (tmp_path / "w.csv").exists()
    assert shown and "hidden by the quiz" in shown[0]
    hand.ask_choice = lambda *a: ids.index("scores")  # a step the quiz does not hide
    hand.export_csv_action.trigger()
    assert (tmp_path / "w.csv").exists()


def test_the_handout_made_during_a_quiz_hides_the_step(hand, tmp_path, monkeypatch):
    hide_from_menu(hand, "attention_weights")
    leaks = leak_strings(hand_weights().numpy())
    drawn = {}
    real = handout.export_pane_image

    def spy(view, sid, path):
        drawn[sid] = pane_texts(view.pane(sid))
        real(view, sid, path)

    monkeypatch.setattr(handout, "export_pane_image", spy)
    hand.handout.ask_folder = lambda: str(tmp_path / "ho")
    hand.handout.handout_action.trigger()
    page = (tmp_path / "ho" / handout.HTML_NAME).read_text(encoding="utf-8")
    assert set(drawn) == set(hand.last_trace.ids)
    assert not leaked(drawn["attention_weights"], leaks)
    assert "?" in drawn["attention_weights"]
    assert leaked(drawn["weighted_sum"], leak_strings(hand.last_trace.array("weighted_sum")))  # others keep theirs
    assert 'class="quiz"' in page and "are hidden" in page
    hand.cell_tools.quiz.off_action.trigger()  # quiz off: the next handout shows every number
    drawn.clear()
    hand.handout.handout_action.trigger()
    assert leaked(drawn["attention_weights"], leaks)


# ---- defect 15: the instruction, and a found number in its cell ---------------------------------------
def test_the_quiz_says_how_to_answer_in_both_languages(hand):
    bar = hand.cell_tools.quiz.bar
    assert bar.isHidden()
    hide_from_menu(hand, "scores")
    assert not bar.isHidden() and "Double-click a ?" in bar.text()
    hand.set_language("zh")
    try:
        assert "双击" in bar.text() and "Double-click" not in bar.text()
    finally:
        hand.set_language("en")
    hand.cell_tools.quiz.off_action.trigger()
    assert bar.isHidden()


def test_a_right_answer_shows_its_number_and_a_wrong_one_does_not(hand):
    quiz, panel = hand.cell_tools.quiz, hand.cell_tools.panel
    hide_from_menu(hand, "attention_weights")
    pane = hand.view.pane("attention_weights")
    w = hand_weights()
    pane.click_cell(0, 0, 1)
    panel.answer_edit.setText(f"{float(w[0, 0, 1]) + 0.2:.4f}")  # wrong
    panel.check_button.click()
    assert panel.verdict.property("right") is False and "Not quite" in panel.verdict.text()
    assert cell_format.compact(float(w[0, 0, 1]), 4) not in panel.verdict.text()
    assert pane.heatmaps[0].overlay.labels()[1] == "?"
    assert pane.marks(LAYER) == {(0, 0, 1): WRONG_COLOUR}
    panel.answer_edit.setText(f"{float(w[0, 0, 1]):.4f}")  # right
    panel.check_button.click()
    assert panel.verdict.property("right") is True
    labels = pane.heatmaps[0].overlay.labels()
    assert labels[1] == cell_format.compact(float(w[0, 0, 1]), 4)
    assert labels[:1] + labels[2:] == ["?"] * 8  # only that cell
    assert pane.marks(LAYER) == {(0, 0, 1): RIGHT_COLOUR}
    assert quiz.step_id == "attention_weights"
