"""Presentation mode in the real window: F5 enters, presenter keys navigate, the slide shows
the engine's numbers, edits redraw it live, zoom grows the fonts, the texts follow the language."""
from __future__ import annotations

import math

import numpy as np
import pytest
from gui_helpers import enter_presentation, expected_matrices
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QApplication, QToolBar

import attention
from app.services import i18n
from app.viewmodel import lessons
from app.viewmodel.nowrap import plain
from attention import words
from attention.compute.trace import PIPELINE


def enter(qtbot, window):
    return enter_presentation(qtbot, window)


def key(qtbot, view, k, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(view, k, modifier)


def assert_output_is_engine(window, view):
    """The slide's output pane holds exactly the engine's numbers for its step."""
    window.recompute.wait_idle()
    trace = attention.run(window.document.scenario)
    sid = view.current_step()
    shown = view.output_pane().displayed_arrays()
    want = expected_matrices(trace, sid, 0)
    assert len(shown) == len(want)
    for s, w in zip(shown, want):
        w = w.astype(np.float32)
        nan = np.isnan(w)
        assert np.array_equal(np.asarray(s)[~nan], w[~nan]), sid


def test_f5_enters_and_escape_leaves_with_the_window_intact(qtbot, window):
    assert any(isinstance(t, QToolBar) and window.presentation.present_action in t.actions()
               for t in window.findChildren(QToolBar))
    scenario = window.document.scenario
    view = enter(qtbot, window)
    assert view.isFullScreen()
    assert view.lesson_ids() == list(PIPELINE)  # the toy has no mask and is not ProbSparse
    assert view.counter.text() == f"1 / {len(PIPELINE)}"
    key(qtbot, view, Qt.Key.Key_Escape)
    assert not view.isVisible()
    assert window.document.scenario is scenario and window.view.pane_ids()


def test_presenter_keys_navigate_within_bounds(qtbot, window):
    view = enter(qtbot, window)
    n = len(view.lesson_ids())
    key(qtbot, view, Qt.Key.Key_Left)  # before the first: stays
    assert view.index() == 0
    for k in (Qt.Key.Key_Right, Qt.Key.Key_PageDown, Qt.Key.Key_Space):
        before = view.index()
        key(qtbot, view, k)
        assert view.index() == before + 1, k
    assert view.counter.text() == f"4 / {n}"
    key(qtbot, view, Qt.Key.Key_Space, Qt.KeyboardModifier.ShiftModifier)
    assert view.index() == 2
    key(qtbot, view, Qt.Key.Key_PageUp)
    key(qtbot, view, Qt.Key.Key_Left)
    assert view.index() == 0
    key(qtbot, view, Qt.Key.Key_End)
    assert view.current_step() == "output" and view.counter.text() == f"{n} / {n}"
    key(qtbot, view, Qt.Key.Key_Right)  # past the last: stays
    assert view.index() == n - 1
    key(qtbot, view, Qt.Key.Key_Home)
    assert view.current_step() == "projection.query"
    # leaving and coming back keeps the slide
    key(qtbot, view, Qt.Key.Key_End)
    key(qtbot, view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is view)
    assert view.isVisible() and view.current_step() == "output"


def test_each_slide_shows_the_engine_numbers_its_inputs_and_text(qtbot, window):
    view = enter(qtbot, window)
    trace = attention.run(window.document.scenario)
    for i, sid in enumerate(view.lesson_ids()):
        view.go_to(i)
        assert_output_is_engine(window, view)
        assert plain(view.formula.text()) == trace[sid].formula["en"]
        assert view.explanation_text() == lessons.explanation(sid, window.last_trace.options)
        names = [p.step_id for p in view.input_panes()]
        assert names == lessons.inputs_of(sid, trace)
    view.go_to(view.lesson_ids().index("weighted_sum"))
    weights, values = view.input_panes()
    for pane, sid in ((weights, "attention_weights"), (values, "head_split.value")):
        for s, w in zip(pane.displayed_arrays(), expected_matrices(trace, sid, 0)):
            assert np.array_equal(s, w.astype(np.float32))
    view.go_to(0)  # a projection's inputs are the parameters: queries and W_q
    queries = view.input_panes()[0].displayed_arrays()[0]
    assert np.array_equal(queries, np.asarray(window.document.scenario.queries[0], np.float32))


def test_the_toy_scores_are_the_seed_numbers(qtbot, window):
    """Head 1 of the toy's scores is its Gram matrix over √2 (reference-semantics.md)."""
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("scores"))
    gram = np.array([[1, 0, 1, 2], [0, 1, 1, 0], [1, 1, 2, 2], [2, 0, 2, 4]], float)
    shown = view.output_pane().displayed_arrays()[0]
    assert np.allclose(shown, gram / math.sqrt(2), atol=1e-6)
    assert "0.7071 = 1/√2" in view.explanation_text()


def test_an_edit_and_undo_redraw_the_slide_live(qtbot, window):
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("output"))
    before = view.output_pane().displayed_arrays()[0].copy()
    model = window.inputs.editors["values"].model
    assert model.setData(model.index(0, 0), "100")  # an edit made in the window
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: not np.array_equal(view.output_pane().displayed_arrays()[0], before))
    assert_output_is_engine(window, view)
    assert view.current_step() == "output"
    key(qtbot, view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo, pressed in the slide show
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: np.array_equal(view.output_pane().displayed_arrays()[0], before))
    assert window.document.scenario.values[0, 0, 0] == 10
    assert_output_is_engine(window, view)


def test_a_mask_adds_its_slide_and_a_masked_row_is_explained(qtbot, window):
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("attention_weights"))
    window.params.controls["causal"].setChecked(True)
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: "extra.mask" in view.lesson_ids())
    ids = view.lesson_ids()
    assert ids.index("extra.mask") == ids.index("masked_scores") - 1
    assert view.current_step() == "attention_weights"  # the same step, at its new position
    assert_output_is_engine(window, view)
    assert "-1e6" in view.explanation_text()  # the fill value, written as in its cell (docs/numbers.md)


def test_zoom_keys_scale_fonts_and_cells(qtbot, window):
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("scores"))
    pane = view.output_pane()
    height = pane.canvas.minimumHeight()
    title_px = view.title.font().pixelSize()
    key(qtbot, view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom() > 1.25
    assert pane.canvas.minimumHeight() > height
    view.ensurePolished()
    assert view.title.font().pixelSize() > title_px
    key(qtbot, view, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    key(qtbot, view, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom() < 1.25
    assert pane.canvas.minimumHeight() < height
    assert_output_is_engine(window, view)


@pytest.fixture
def chinese():
    yield
    i18n.set_language("en")


def test_language_switch_retranslates_the_slide(qtbot, window, chinese):
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("attention_weights"))
    english = view.explanation_text()
    window.set_language("zh", remember=False)
    trace = window.last_trace
    # the text is the catalogue's Chinese now (the window set the catalogue's language with Qt's)
    assert view.explanation_text() == lessons.explanation("attention_weights", trace.options)
    assert view.title.text() == trace["attention_weights"].title["zh"]
    assert plain(view.formula.text()) == trace["attention_weights"].formula["zh"]
    first = words.text("lesson.attention_weights.softmax", "zh")
    assert view.explanation_text().startswith(first)
    window.set_language("en", remember=False)
    assert view.explanation_text() == english
    assert view.title.text() == "Attention weights (softmax)"


# ---- the edit drawer: the window's Parameters and Inputs beside the slide ---------------------------
def enter_at_1280(qtbot, window):
    """Presentation mode at a projector's 1280x720 (offscreen's full screen is 800x800)."""
    return enter_presentation(qtbot, window, (1280, 720))


def focus(qtbot, widget):
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus)


def test_e_and_the_edit_button_open_the_drawer_and_esc_gives_the_keys_back(qtbot, window):
    view = enter_at_1280(qtbot, window)
    full = view.slide.width()
    key(qtbot, view, Qt.Key.Key_E)
    drawer = view.drawer
    assert view.drawer_open() and drawer.isVisible() and view.edit_button.isChecked()
    assert drawer.params.doc is window.document and drawer.inputs.doc is window.document
    qtbot.waitUntil(lambda: view.slide.width() <= full - drawer.width())  # the slide makes room
    assert view.width() == 1280
    assert drawer.isAncestorOf(QApplication.focusWidget()) and not view.slide_keys_enabled()
    key(qtbot, QApplication.focusWidget(), Qt.Key.Key_Right)  # in the drawer: moves there, no slide turns
    assert view.index() == 0
    key(qtbot, QApplication.focusWidget(), Qt.Key.Key_Escape)  # back to the slide; the drawer stays
    assert view.isVisible() and view.drawer_open() and view.slide_keys_enabled()
    key(qtbot, view, Qt.Key.Key_Right)
    assert view.index() == 1
    key(qtbot, view, Qt.Key.Key_E)  # E on the slide closes it
    assert not view.drawer_open() and not view.edit_button.isChecked()
    qtbot.waitUntil(lambda: view.slide.width() == full)
    view.edit_button.click()  # and the button opens and closes it
    assert view.drawer_open() and not view.slide_keys_enabled()
    view.edit_button.click()
    assert not view.drawer_open() and view.slide_keys_enabled()
    key(qtbot, view, Qt.Key.Key_Right)
    assert view.index() == 2
    key(qtbot, view, Qt.Key.Key_Escape)  # Esc on the slide still leaves
    assert not view.isVisible()


def test_typing_heads_in_the_drawer_edits_and_never_turns_a_slide(qtbot, window):
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("head_split.query"))
    start = view.index()
    drawer = view.open_drawer()
    spin = drawer.params.controls["n_heads"]
    assert spin.value() == 2  # the toy: d_model 4, 2 heads
    steps = window.document.undo_stack.count()
    focus(qtbot, spin)
    # End, Backspace, 1, Return and Up are slide keys (last, previous, head 1, next, previous)
    for k in (Qt.Key.Key_End, Qt.Key.Key_Backspace):
        key(qtbot, spin, k)
    qtbot.keyClicks(spin, "1")
    key(qtbot, spin, Qt.Key.Key_Return)
    assert window.document.scenario.n_heads == 1
    assert view.index() == start and view.current_step() == "head_split.query" and view._focus == -1
    assert window.params.controls["n_heads"].value() == 1  # the window's own panel follows
    assert window.document.undo_stack.count() == steps + 1  # one edit, one undo step
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: len(view.output_pane().displayed_arrays()) == 1)
    assert_output_is_engine(window, view)
    key(qtbot, spin, Qt.Key.Key_Up)  # steps the spin box: back to 2 heads
    assert spin.value() == 2 and window.document.scenario.n_heads == 2 and view.index() == start
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: len(view.output_pane().displayed_arrays()) == 2)
    assert_output_is_engine(window, view)
    key(qtbot, spin, Qt.Key.Key_Up)  # 3 heads do not divide d_model = 4: said next to the control
    window.recompute.wait_idle()
    label = drawer.params.problem_labels["n_heads"]
    qtbot.waitUntil(label.isVisible)
    assert "n_heads: 3 heads do not divide d_model = 4" in label.text()
    assert window.params.problem_labels["n_heads"].lines() == label.lines()
    assert view.banner.isVisible() and view.output_pane()._stale
    key(qtbot, spin, Qt.Key.Key_Escape)  # the keys back to the slide (a spin box keeps Ctrl+Z for its text)
    assert view.slide_keys_enabled() and view.drawer_open()
    key(qtbot, view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: not view.banner.isVisible())
    assert window.document.scenario.n_heads == 2 and not label.isVisible() and spin.value() == 2
    assert_output_is_engine(window, view)
    key(qtbot, view, Qt.Key.Key_Right)
    assert view.index() == start + 1


def test_drawer_edits_reach_the_slide_the_window_and_undo(qtbot, window):
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("attention_weights"))
    drawer = view.open_drawer()
    steps = window.document.undo_stack.count()
    drawer.params.controls["causal"].setChecked(True)
    assert window.document.scenario.causal and window.params.controls["causal"].isChecked()
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: "extra.mask" in view.lesson_ids())
    assert view.current_step() == "attention_weights"
    assert_output_is_engine(window, view)
    weights = view.output_pane().displayed_arrays()[0]
    assert np.allclose(np.triu(weights, 1), 0)  # causal: no weight on a later key (plain numpy)
    # a cell of the drawer's queries editor, as the model receives it
    model = drawer.inputs.editors["queries"].model
    assert model.setData(model.index(1, 2), "5")
    assert window.document.scenario.queries[0, 1, 2] == 5
    mine = window.inputs.editors["queries"].model
    assert mine.data(mine.index(1, 2)) == model.data(model.index(1, 2))
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: view._trace is window.last_trace)
    assert_output_is_engine(window, view)
    # and a cell typed with real keys: 7 starts editing (not head 7), Return commits (not next slide)
    drawer.tabs.setCurrentWidget(drawer.inputs)
    table = drawer.inputs.editors["keys"].table
    focus(qtbot, table)
    table.setCurrentIndex(table.model().index(0, 0))
    qtbot.keyClicks(table, "7")
    key(qtbot, QApplication.focusWidget(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.document.scenario.keys[0, 0, 0] == 7)  # the delegate commits queued
    assert view.current_step() == "attention_weights"
    assert window.document.undo_stack.count() == steps + 3
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: view._trace is window.last_trace)
    assert_output_is_engine(window, view)
    for _ in range(3):  # Ctrl+Z in the drawer undoes the drawer's edits, newest first
        key(qtbot, QApplication.focusWidget(), Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    sc = window.document.scenario
    assert sc.keys[0, 0, 0] != 7 and sc.queries[0, 1, 2] != 5 and not sc.causal
    assert not drawer.params.controls["causal"].isChecked() and not window.params.controls["causal"].isChecked()
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: "extra.mask" not in view.lesson_ids())
    assert_output_is_engine(window, view)
    view.slide.setFocus()
    qtbot.waitUntil(view.slide_keys_enabled)
    key(qtbot, view, Qt.Key.Key_Right)
    assert view.current_step() == lessons.lesson_ids(window.last_trace)[view.index()] != "attention_weights"


def test_drawer_fonts_follow_the_zoom_and_its_words_the_language(qtbot, window, chinese):
    from test_language import english_left

    view = enter(qtbot, window)
    drawer = view.open_drawer()
    spin = drawer.params.controls["n_heads"]
    focus(qtbot, spin)
    spin.ensurePolished()
    px = spin.font().pixelSize()
    assert px >= 16  # the default zoom is 1.25: larger than the desk-top 13 px
    key(qtbot, spin, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)  # zoom keys stay on in the drawer
    spin.ensurePolished()
    assert view.zoom() > 1.25 and spin.font().pixelSize() > px
    assert drawer.inputs.editors["queries"].table.font().pixelSize() == spin.font().pixelSize()
    window.set_language("zh", remember=False)
    assert drawer.tabs.tabText(0) == QCoreApplication.translate("EditDrawer", "Parameters")
    assert english_left(drawer, []) == []


def test_the_head_split_text_speaks_of_the_heads_there_are(qtbot):
    """Several heads: the row is cut into H blocks of d_k columns (numbers from the options);
    one head: nothing is cut, and the text says so instead of 'the 1 heads'."""
    from app.viewmodel import lessons

    two = lessons.explanation("head_split.query", {"n_heads": 2, "d_keys": 3, "d_values": 5, "scoring": "scaled_dot"})
    assert "2 heads" in two and "blocks of 3 columns" in two
    one = lessons.explanation("head_split.value", {"n_heads": 1, "d_keys": 4, "d_values": 6, "scoring": "scaled_dot"})
    assert "1 heads" not in one and "all 6 columns" in one
