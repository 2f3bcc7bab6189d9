"""Undo memory is capped (issue 13, soak): past `Document.undo_budget` bytes the oldest steps go,
the newest stay exact (undo and redo through them give the very scenarios of before), the
saved state is remembered while its step is kept, and the window's Undo texts follow."""
from __future__ import annotations

import numpy as np

from app.pipeline.document import UNDO_BYTES
from attention.scenario import same


def test_the_cap_is_stated_and_sane():
    assert 64 * 2**20 <= UNDO_BYTES <= 1024 * 2**20


def test_oldest_steps_go_newest_stay_exact(window):
    doc = window.document
    doc.undo_budget = 2000  # bytes: a whole-matrix fill of the 4 x 4 queries holds 2 * 128
    editor = window.inputs.editors["queries"]
    states = [doc.scenario]
    for i in range(30):
        editor.seed.setValue(i)
        editor.fill("normal", whole=True)
        states.append(doc.scenario)
        assert doc.undo_bytes() <= doc.undo_budget
    kept = doc.undo_stack.count()
    assert 1 <= kept < 30 and kept == doc.undo_budget // 256
    assert doc.scenario is states[-1]  # trimming never swapped the scenario on screen
    for back in range(1, kept + 1):
        window.undo_action.trigger()
        assert same(doc.scenario, states[-1 - back]), back
    assert not window.undo_action.isEnabled()  # the dropped steps are gone, not half-there
    for _fwd in range(kept):
        window.redo_action.trigger()
    assert same(doc.scenario, states[-1])
    assert window.isWindowModified()  # the saved state was dropped: never "clean" again by undo


def test_the_saved_state_survives_a_trim_when_its_step_is_kept(window, tmp_path):
    doc = window.document
    doc.undo_budget = 1500
    editor = window.inputs.editors["values"]
    for i in range(10):
        editor.seed.setValue(i)
        editor.fill("uniform", whole=True)
    window.ask_save_path = lambda *a: str(tmp_path / "s.json")
    assert window.save_as()
    saved = doc.scenario
    editor.fill("ones", whole=True)
    editor.fill("zeros", whole=True)  # pushes trigger trims; the saved step is among the newest
    assert doc.undo_bytes() <= doc.undo_budget and window.isWindowModified()
    window.undo_action.trigger()
    window.undo_action.trigger()
    assert same(doc.scenario, saved) and not window.isWindowModified()


def test_resizing_a_large_scenario_keeps_the_history_within_the_cap(window):
    doc = window.document
    doc.undo_budget = 4 * 2**20
    c = window.params.controls
    c["d_model"].setValue(256)
    c["L"].setValue(512)
    for L in range(513, 540):
        c["L"].setValue(L)  # each step a new (1, L, 256) queries array: ~1 MB
        c["S"].setValue(L)
        assert doc.undo_bytes() <= doc.undo_budget
    assert doc.scenario.L == 539 and doc.undo_stack.count() >= 1
    window.undo_action.trigger()
    assert doc.scenario.S == 538
    assert np.array_equal(doc.scenario.queries.shape, (1, 539, 256))
