"""View ▸ FlashAttention tiles…: the tiles dialog used as a person uses it (buttons, keys, clicks, the menu).

Expected numbers come from the trace's masked scores and weighted sum by plain numpy here (the
row maximum and the sum of exponentials over the keys reached so far), never from attention/teaching/tiles.py.
The scenario is the causal preset (L = S = 6, fill -1e6); default blocks 3 x 2: a 2 x 3 grid."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush

from attention import run, words
from attention.files import scenario_io
from resources import list_presets

pytestmark = pytest.mark.gui

CAUSAL = next(p for p, _ in list_presets() if p.name == "06_causal_self_attention.json")
SPARSE = next(p for p, _ in list_presets() if p.name == "07_informer_probsparse.json")


@pytest.fixture(scope="module")
def trace():
    return run(scenario_io.load(CAUSAL))


@pytest.fixture
def dialog(qtbot, trace):
    from app.teaching.tiles_view import TilesDialog

    d = TilesDialog()
    qtbot.addWidget(d)
    d.view.set_trace(trace)
    d.show()
    qtbot.waitExposed(d)
    d.view.plot.setFocus()
    return d


def shown(view, key: str) -> np.ndarray:
    m = view.tables[key].model()
    return np.array([[float(m.data(m.index(r, c)).replace("∞", "inf")) for c in range(m.columnCount())]
                     for r in range(m.rowCount())])


def by_hand(trace, upto_key: np.ndarray):
    """Row max and sum of exp over keys < upto_key[row] of head 1, batch item 1 (masked scores)."""
    s = trace.array("masked_scores")[0, 0]
    m, l_ = np.full(6, -np.inf), np.zeros(6)
    for r in range(6):
        if upto_key[r]:
            row = s[r, :upto_key[r]]
            m[r] = row.max()
            l_[r] = np.exp(row - m[r]).sum()
    return m, l_


def test_buttons_walk_the_tiles_in_flashattention2_order(qtbot, dialog, trace):
    view = dialog.view
    assert (view.block_q.value(), view.block_k.value()) == (3, 2)
    assert view.position.text() == "0 / 6"
    for _ in range(4):
        qtbot.mouseClick(view.forward_button, Qt.MouseButton.LeftButton)
    assert view.position.text() == "4 / 6"
    rect = view.cursor.rect()  # query block 2 (rows 3-5) x key block 1 (keys 0-1)
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (0, 3, 2, 3)
    m, l_ = by_hand(trace, np.array([6, 6, 6, 2, 2, 2]))  # block 1 finished; block 2 has seen keys 1-2
    np.testing.assert_allclose(shown(view, "m")[:, 0], m, rtol=1e-3)
    np.testing.assert_allclose(shown(view, "l")[:, 0], l_, rtol=1e-3)
    qtbot.mouseClick(view.back_button, Qt.MouseButton.LeftButton)
    assert view.position.text() == "3 / 6"
    m, _ = by_hand(trace, np.array([6, 6, 6, 0, 0, 0]))
    np.testing.assert_array_equal(np.isinf(shown(view, "m")[:, 0]), np.isinf(m))  # block 2 not started: -inf


def test_keys_step_and_end_shows_the_proof(qtbot, dialog, trace):
    view = dialog.view
    qtbot.keyClick(dialog, Qt.Key.Key_Right)
    qtbot.keyClick(dialog, Qt.Key.Key_Right)
    assert view.step == 2
    qtbot.keyClick(dialog, Qt.Key.Key_Left)
    assert view.step == 1
    assert not view.proof.isVisible()
    qtbot.keyClick(dialog, Qt.Key.Key_End)
    assert view.step == 6 and view.proof.isVisible()
    proof = view.proof.model()
    exact = trace.array("weighted_sum")[0, :, 0]  # (L, D) of head 1
    tiled = np.array([[float(proof.data(proof.index(r, c))) for c in range(0, proof.columnCount(), 2)]
                      for r in range(6)])
    np.testing.assert_allclose(tiled, exact, rtol=1e-3, atol=1e-4)
    assert "Largest difference from the engine's weighted sum" in view.proof_text.text()
    assert "At L = S = 32768" in view.proof_text.text()
    qtbot.keyClick(dialog, Qt.Key.Key_Home)
    assert view.step == 0 and view.position.text() == "0 / 6"


def test_skipped_tiles_are_hatched(dialog):
    view = dialog.view
    styles = {(t.q_block, t.k_block): item.brush().style() for t, item in zip(view.result.tiles, view._tile_items)}
    assert styles[(0, 2)] == Qt.BrushStyle.BDiagPattern  # queries 1-3 x keys 5-6: every cell masked
    assert all(style == QBrush().style() for key, style in styles.items() if key != (0, 2))


def test_clicking_a_running_value_explains_it(qtbot, dialog, trace):
    view = dialog.view
    view.go(2)
    table = view.tables["l"]
    index = table.model().index(1, 0)
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(index).center())
    text = view.explain_box.toPlainText()
    assert text.startswith("running sum ℓ of query 2 after query block 1 × key block 2")
    _, l_ = by_hand(trace, np.array([4, 4, 4, 0, 0, 0]))
    assert f"= {l_[1]:.4g}" in text


def test_play_runs_to_the_end_and_stops(qtbot, dialog):
    view = dialog.view
    view.speed.setValue(60)
    qtbot.mouseClick(view.play_button, Qt.MouseButton.LeftButton)
    assert view.play_button.text() == "Pause"
    qtbot.waitUntil(lambda: view.step == 6 and not view.timer.isActive(), timeout=5000)
    assert view.play_button.text() == "Play"


def test_a_new_block_size_retiles(dialog):
    view = dialog.view
    view.block_q.setValue(2)
    assert len(view.result.tiles) == 9 and view.position.text() == "0 / 9"


def test_prob_sparse_says_it_does_not_apply(dialog):
    view = dialog.view
    view.set_trace(run(scenario_io.load(SPARSE)))
    assert view.note.isVisible() and "does not apply to ProbSparse" in view.note.text()
    assert not view.forward_button.isEnabled()


def test_chinese_words(dialog):
    words.set_language("zh")
    dialog.retranslate()
    assert dialog.view.forward_button.text() == "前进 ▶" and dialog.windowTitle() == "FlashAttention 分块"


def test_the_view_menu_opens_it_on_the_windows_trace(qtbot, window):
    entries = {a.text(): a for a in window.view_menu.actions()}
    entries["FlashAttention tiles…"].trigger()
    dialog = window.tiles.dialog
    qtbot.waitExposed(dialog)
    assert dialog.view.trace is window.last_trace
    assert dialog.view.result.max_abs_diff < 1e-12


def test_quiz_hides_the_new_values_until_checked(qtbot, dialog, trace):
    view = dialog.view
    qtbot.mouseClick(view.quiz, Qt.MouseButton.LeftButton)
    assert view.quiz.isChecked()
    view.go(1)  # tile 1 (queries 1-3 x keys 1-2): asks m of query 1
    m = view.tables["m"].model()
    assert [m.data(m.index(r, 0)) for r in range(3)] == ["?", "?", "?"] and m.data(m.index(3, 0)) == "-∞"
    assert view.question.text() == "After this tile, what is m of query 1?"
    s = trace.array("masked_scores")[0, 0]
    want = max(s[0, 0], s[0, 1])  # by hand: the largest of the row's first two scores
    qtbot.keyClicks(view.answer, f"{want:.4g}")
    qtbot.mouseClick(view.check_button, Qt.MouseButton.LeftButton)
    assert view.feedback.text().startswith("Right: m = ")
    assert m.data(m.index(0, 0)) != "?" and "running maximum m of query 1" in view.explain_box.toPlainText()
    view.go(2)  # tile 2 asks ℓ of query 2
    assert view.question.text() == "After this tile, what is ℓ of query 2?"
    qtbot.keyClicks(view.answer, "abc")
    qtbot.mouseClick(view.check_button, Qt.MouseButton.LeftButton)
    assert "'abc' is not a number" in view.feedback.text()
    view.answer.clear()
    qtbot.keyClicks(view.answer, "123")
    qtbot.keyClick(view.answer, Qt.Key.Key_Return)
    assert view.feedback.text().startswith("Not quite: ℓ = ")


def test_f5_shows_one_tile_per_slide(qtbot, dialog, trace):
    view = dialog.view
    view.go(2)
    qtbot.keyClick(dialog, Qt.Key.Key_F5)
    slides = view.slides
    assert slides is not None and slides.isVisible() and slides.index == 2
    assert slides.title.text().startswith("batch item 1, head 1, tile 2 of 6")
    scores = slides.scores.model()
    assert scores.rowCount() == 3 and scores.columnCount() == 2  # the tile's own 3 x 2 block
    assert scores.headerData(0, Qt.Orientation.Horizontal) == "key 3"
    qtbot.waitUntil(slides.isActiveWindow)  # the full-screen slides take the keys
    qtbot.keyClick(slides, Qt.Key.Key_Right)
    assert slides.index == 3 and "skipped" in slides.body.text() and not slides.running.isVisible()
    qtbot.keyClick(slides, Qt.Key.Key_End)
    assert slides.title.text() == "Proof: O / ℓ beside the engine's weighted sum"
    assert "Largest difference" in slides.body.text()
    qtbot.keyClick(slides, Qt.Key.Key_Escape)
    assert not slides.isVisible()


def test_the_worksheet_button_writes_both_pages(qtbot, dialog, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(tmp_path))
    qtbot.mouseClick(dialog.view.worksheet_button, Qt.MouseButton.LeftButton)
    assert (tmp_path / "tiles_worksheet.html").exists() and (tmp_path / "tiles_answer_key.html").exists()
    assert "tiles_worksheet.html" in dialog.view.status.text()


def test_before_the_first_tile_the_lesson_is_shown(dialog):
    assert dialog.view.explain_box.toPlainText().startswith("Why tiles?")


def test_block_sizes_keep_the_grid_followable(dialog):
    import dataclasses

    from attention import Scenario

    rng = np.random.default_rng(0)
    sc = dataclasses.replace(scenario_io.load(CAUSAL), queries=rng.normal(size=(1, 100, 4)),
                             keys=rng.normal(size=(1, 70, 4)), values=rng.normal(size=(1, 70, 4)), causal=False,
                             query_tokens=None, key_tokens=None)
    assert isinstance(sc, Scenario)
    view = dialog.view
    view.set_trace(run(sc))
    view.block_q.setValue(1)
    view.block_k.setValue(1)
    assert (view.block_q.value(), view.block_k.value()) == (4, 3)  # ceil(100 / 32), ceil(70 / 32)
    assert view.result.n_q <= 32 and view.result.n_k <= 32


def test_the_dialog_follows_the_windows_next_scenario(qtbot, window):
    window.tiles.open()
    dialog = window.tiles.dialog
    title = next(t for p, t in list_presets() if p == CAUSAL)
    window.open_preset(CAUSAL, title)
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: dialog.view.trace is window.last_trace)
    assert dialog.view.result.shape[2:4] == (6, 6) and dialog.view.result.max_abs_diff < 1e-12
    window.open_preset(SPARSE, next(t for p, t in list_presets() if p == SPARSE))
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: dialog.view.trace is window.last_trace)
    assert dialog.view.note.isVisible() and "ProbSparse" in dialog.view.note.text()


def test_f5_in_the_dialog_opens_its_slides_not_the_windows_presentation(qtbot, window):
    dialog = window.tiles.open()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    qtbot.keyClick(dialog, Qt.Key.Key_F5)
    assert dialog.view.slides is not None and dialog.view.slides.isVisible()
    assert not window.presentation.view.isVisible()
    dialog.view.slides.close()


@pytest.mark.parametrize("text, value, right", [
    ("1.493", 1.4931, True), ("1.49", 1.4931, False), ("-inf", -np.inf, True), ("−∞", -np.inf, True),
    ("0.7071", 0.70710678, True), ("1e6", 1e6, True)])
def test_quiz_answers_count_when_they_read_the_same_to_four_digits(text, value, right):
    from app.teaching.tiles_quiz import is_right, read_answer

    got = read_answer(text)
    assert got is not None and is_right(got, value) is right


def test_quiz_text_that_is_no_number_is_not_judged():
    from app.teaching.tiles_quiz import read_answer

    assert read_answer("one") is None and read_answer("") is None
