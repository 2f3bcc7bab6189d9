"""Editing in the real window: every change recomputes every pane from the engine, undo is
exact, refusals keep the old numbers, and problems appear next to the control that caused them."""
from __future__ import annotations

import numpy as np
from PySide6.QtGui import QGuiApplication

import attention
from attention.datamodel.scenario import same


def test_window_opens_on_the_toy_preset(window, check_panes):
    sc = window.document.scenario
    assert (sc.batch, sc.L, sc.S, sc.d_model, sc.n_heads) == (1, 4, 4, 4, 2)
    assert not window.isWindowModified()
    check_panes(window)


def test_typing_a_cell_recomputes_every_pane(window, check_panes):
    model = window.inputs.editors["queries"].model
    assert model.setData(model.index(0, 1), "3.5")
    window.recompute.wait_idle()
    assert window.document.scenario.queries[0, 0, 1] == 3.5
    assert window.isWindowModified()
    check_panes(window)


def test_heads_and_mask_changes_recompute(window, check_panes):
    p = window.params
    p.controls["n_heads"].setValue(1)
    check_panes(window)
    assert window.document.scenario.n_heads == 1
    p.controls["causal"].setChecked(True)
    check_panes(window)
    assert window.document.scenario.causal
    p.controls["valid_mode"].setCurrentIndex(1)  # one length per batch item
    vm = p.valid_editor.model
    assert vm.setData(vm.index(0, 0), "2")
    check_panes(window)
    assert window.document.scenario.valid_lens.tolist() == [2.0]
    p.controls["valid_mode"].setCurrentIndex(2)  # one length per query row
    assert vm.setData(vm.index(0, 3), "1")
    check_panes(window)
    assert window.document.scenario.valid_lens.tolist() == [[2.0, 2.0, 2.0, 1.0]]
    p.controls["fill_value"].setCurrentIndex(1)
    window.recompute.wait_idle()
    assert window.document.scenario.fill_value == -np.inf


def test_paste_is_one_undo_step(window, check_panes):
    editor = window.inputs.editors["keys"]
    before = window.document.scenario
    steps = window.document.undo_stack.count()
    editor.select_rect(1, 1, 1, 1)
    QGuiApplication.clipboard().setText("7\t8,5\r\n-9\t10\r\n")
    assert editor.paste()
    keys = window.document.scenario.keys[0]
    assert keys[1:3, 1:3].tolist() == [[7.0, 8.5], [-9.0, 10.0]]
    assert np.array_equal(np.delete(np.delete(keys, [1, 2], 0), [1, 2], 1),
                          np.delete(np.delete(before.keys[0], [1, 2], 0), [1, 2], 1))
    assert window.document.undo_stack.count() == steps + 1
    check_panes(window)
    window.document.undo_stack.undo()
    assert same(window.document.scenario, before)
    check_panes(window)


def test_bad_paste_changes_nothing(window):
    editor = window.inputs.editors["queries"]
    before = window.document.scenario
    editor.select_rect(0, 0, 1, 1)
    assert not editor.paste("1\t2\n3\n")
    assert window.document.scenario is before
    assert "row 2" in editor.message_label.text() and editor.message_label.isVisibleTo(window)


def test_undo_to_start_then_redo(window, check_panes):
    doc = window.document
    start = doc.scenario
    model = window.inputs.editors["values"].model
    model.setData(model.index(2, 3), "-4")
    window.params.controls["L"].setValue(6)
    window.params.controls["n_heads"].setValue(4)
    window.params.controls["causal"].setChecked(True)
    window.params.weight_checks["value"].setChecked(False)
    window.params.controls["scoring"].setCurrentIndex(1)  # plain dot product
    end = doc.scenario
    check_panes(window)
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()
    assert same(doc.scenario, start)
    assert not window.isWindowModified()
    check_panes(window)
    while doc.undo_stack.canRedo():
        doc.undo_stack.redo()
    assert same(doc.scenario, end)
    check_panes(window)


def test_typing_in_one_cell_merges_but_not_across_cells(window):
    doc = window.document
    model = window.inputs.editors["queries"].model
    n = doc.undo_stack.count()
    model.setData(model.index(1, 1), "5")
    model.setData(model.index(1, 1), "6")
    assert doc.undo_stack.count() == n + 1
    model.setData(model.index(1, 2), "6")
    assert doc.undo_stack.count() == n + 2
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.scenario.queries[0, 1, 1] == 1.0  # the toy's value, before both typings


def test_typing_back_the_old_value_leaves_no_step(window):
    doc = window.document
    model = window.inputs.editors["queries"].model
    model.setData(model.index(0, 0), "9")
    model.setData(model.index(0, 0), "1")  # the toy's original value
    assert doc.undo_stack.count() == 0
    assert not window.isWindowModified()


def test_bad_cells_are_refused_in_place(window):
    editor = window.inputs.editors["queries"]
    model = editor.model
    before = window.document.scenario
    for text in ("abc", "nan", "inf", "-inf", ""):
        assert not model.setData(model.index(0, 0), text)
        assert window.document.scenario is before
        assert editor.message_label.isVisibleTo(window)
        assert "old value is kept" in editor.message_label.text()
    assert window.document.undo_stack.count() == 0
    assert model.data(model.index(0, 0)) == "1"


def test_resizing_keeps_values_that_fit(window):
    p = window.params
    before = window.document.scenario
    p.controls["L"].setValue(6)
    sc = window.document.scenario
    assert sc.queries.shape == (1, 6, 4)
    assert np.array_equal(sc.queries[:, :4], before.queries) and not sc.queries[:, 4:].any()
    assert len(sc.query_tokens) == 6 and sc.query_tokens[:4] == before.query_tokens
    p.controls["d_model"].setValue(3)
    sc = window.document.scenario
    assert np.array_equal(sc.queries[:, :4, :3], before.queries[:, :, :3])
    p.controls["batch"].setValue(2)
    sc = window.document.scenario
    assert sc.batch == 2 and sc.keys.shape[0] == 2 and not sc.values[1].any()
    assert np.array_equal(sc.keys[0], before.keys[0])


def test_batch_selector_shows_that_item(window, check_panes):
    window.params.controls["batch"].setValue(2)
    window.inputs.batch.setValue(1)
    model = window.inputs.editors["queries"].model
    assert model.ref.index == 1
    model.setData(model.index(0, 0), "2.5")
    assert window.document.scenario.queries[1, 0, 0] == 2.5
    check_panes(window, batch=1)


def test_heads_that_do_not_divide_show_next_to_the_control(window):
    before = {sid: [a.copy() for a in window.view.displayed_arrays(sid)] for sid in window.view.pane_ids()}
    window.params.controls["n_heads"].setValue(3)
    window.recompute.wait_idle()
    label = window.params.problem_labels["n_heads"]
    assert label.isVisibleTo(window) and "n_heads" in label.text() and "divide" in label.text()
    assert window.view._stale and window.view.banner.isVisibleTo(window)
    for sid, arrays in before.items():
        assert all(np.array_equal(a, b) for a, b in zip(arrays, window.view.displayed_arrays(sid)))
    window.params.controls["n_heads"].setValue(4)
    window.recompute.wait_idle()
    assert not label.isVisibleTo(window) and not window.view._stale


def test_problems_map_to_their_controls(window):
    p = window.params
    p.controls["valid_mode"].setCurrentIndex(1)
    vm = p.valid_editor.model
    vm.setData(vm.index(0, 0), "9")  # above S = 4
    window.recompute.wait_idle()
    assert "valid_lens[0]" in p.problem_labels["valid_lens"].text()
    window.document.undo_stack.undo()
    p.weight_checks["query"].setChecked(False)
    p.controls["d_keys"].setValue(3)  # identity query needs H * d_keys = d_model
    window.recompute.wait_idle()
    assert "projections.query" in p.problem_labels["projections.query"].text()
    assert not p.problem_labels["n_heads"].text()


def test_additive_scoring_creates_its_weights(window, check_panes):
    window.params.controls["scoring"].setCurrentIndex(2)
    sc = window.document.scenario
    assert sc.scoring == "additive" and sc.additive is not None
    assert attention.problems(sc) == []
    check_panes(window)
    window.params.controls["hidden"].setValue(3)
    assert window.document.scenario.additive.W_q.shape[1] == 3
    check_panes(window)
    window.params.additive_buttons["W_k"].click()
    weights = window.inputs.editors["weights"].model
    assert weights.ref.path == "additive.W_k" and weights.rowCount() == 3


def test_weight_switch_and_editor(window, check_panes):
    p = window.params
    p.edit_buttons["out"].click()
    model = window.inputs.editors["weights"].model
    assert model.ref.path == "projections.out.weight" and model.rowCount() == 4
    model.setData(model.index(0, 1), "0.5")
    assert window.document.scenario.projection("out").weight[0, 1] == 0.5
    check_panes(window)
    p.bias_checks["out"].setChecked(False)
    assert window.document.scenario.projection("out").bias is None
    p.weight_checks["out"].setChecked(False)
    assert window.document.scenario.projection("out") is None
    check_panes(window)
    p.weight_checks["out"].setChecked(True)  # identity-like again
    w = window.document.scenario.projection("out").weight
    assert np.array_equal(w, np.eye(4))


def test_fill_actions(window):
    editor = window.inputs.editors["queries"]
    n = window.document.undo_stack.count()
    editor.fill("identity", whole=True)
    assert np.array_equal(window.document.scenario.queries[0], np.eye(4))
    editor.select_rect(0, 0, 2, 2)
    editor.fill("arange")
    assert window.document.scenario.queries[0, :2, :2].tolist() == [[0, 1], [2, 3]]
    editor.seed.setValue(7)
    editor.fill("normal", whole=True)
    a = window.document.scenario.queries.copy()
    editor.fill("zeros", whole=True)
    editor.fill("normal", whole=True)
    assert np.array_equal(window.document.scenario.queries, a)  # seeded: the same numbers again
    assert window.document.undo_stack.count() == n + 5


def test_background_compute_delivers_only_the_newest(window, check_panes):
    window.recompute.background_threshold = 0  # everything off the GUI thread
    model = window.inputs.editors["queries"].model
    for i in range(5):
        model.setData(model.index(i % 4, 0), str(i + 10))
        window.recompute.start()  # several requests in flight at once
    assert window.recompute.wait_idle()
    check_panes(window)


def test_delete_key_zeroes_the_selection(window, qtbot):
    from PySide6.QtCore import Qt

    editor = window.inputs.editors["values"]
    before = window.document.scenario.values.copy()
    editor.select_rect(0, 0, 2, 2)
    qtbot.keyClick(editor.table, Qt.Key.Key_Delete)
    after = window.document.scenario.values
    assert not after[0, :2, :2].any() and before[0, :2, :2].any()
    before[0, :2, :2] = 0
    assert np.array_equal(after, before) and window.document.undo_stack.count() == 1


def test_copy_writes_tsv(window):
    editor = window.inputs.editors["queries"]
    editor.select_rect(0, 0, 2, 4)
    editor.copy()
    assert QGuiApplication.clipboard().text() == "1\t0\t2\t1\n0\t1\t1\t2\n"


def test_excepthook_shows_the_error_and_keeps_the_work(window):
    import sys

    from app.startup.application import install_excepthook

    saved = sys.excepthook, __import__("threading").excepthook
    try:
        hook = install_excepthook(window.show_error)
        before = window.document.scenario
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            hook(*sys.exc_info())
        assert window.message_bar.isVisibleTo(window) and "RuntimeError: boom" in window.message_bar.lines()[0]
        assert window.document.scenario is before
    finally:
        sys.excepthook, __import__("threading").excepthook = saved


def test_a_problem_whose_control_is_hidden_goes_to_the_message_bar(window):
    import dataclasses

    window.document.load(dataclasses.replace(window.document.scenario, mix=True), None)  # mix without ProbSparse
    window.recompute.wait_idle()
    assert [line for line in window.message_bar.lines() if line.startswith("mix:")]
    assert window.view._stale


def test_worker_thread_errors_reach_the_window(window, qtbot):
    import sys
    import threading

    from app.startup.application import install_excepthook

    saved = sys.excepthook, threading.excepthook
    try:
        install_excepthook(window.show_error)

        def fail():
            raise ValueError("from a worker")

        t = threading.Thread(target=fail)
        t.start()
        t.join()
        qtbot.waitUntil(lambda: bool(window.message_bar.lines()), timeout=5000)
        assert "ValueError: from a worker" in window.message_bar.lines()[0]
    finally:
        sys.excepthook, threading.excepthook = saved
