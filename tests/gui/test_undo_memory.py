"""Undo memory is capped (issue 13, soak): past `Document.undo_budget` bytes the oldest steps go,
the newest stay exact (undo and redo through them give the very scenarios of before), the
saved state is remembered while its step is kept, and the window's Undo texts follow."""
from __future__ import annotations

import numpy as np

from app.pipeline.document import UNDO_BYTES
from attention.datamodel.scenario import same


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


# ---- a real model's sentence and prompt edits keep token ids, not tensors (issue 17 item 6) ----------------

PLAIN = (str, int, float, bool, type(None))


def _plain_values(obj, path: str = "state") -> list[str]:
    """Where `obj` holds anything but plain values (str, numbers, None, tuples of them, dataclasses of
    them): an array, a tensor, a run or any other object an undo step would keep alive."""
    import dataclasses

    if isinstance(obj, PLAIN):
        return []
    if isinstance(obj, tuple):
        return [p for i, x in enumerate(obj) for p in _plain_values(x, f"{path}[{i}]")]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [p for f in dataclasses.fields(obj) for p in _plain_values(getattr(obj, f.name), f"{path}.{f.name}")]
    return [f"{path}: {type(obj).__name__}"]


def _model_steps(doc):
    """(command, state before, state after) of every undo step that carries a model view's state."""
    stack = doc.undo_stack
    out = []
    for i in range(stack.count()):
        c = stack.command(i)
        if getattr(c, "companion", None) is not None:
            (before, _), (after, _) = c.companion[1], c.companion[2]
            out.append((c, before, after))
    return out


def _assert_steps_hold_no_tensors(doc, count: int, shared_weights: bool = False) -> None:
    """Every model step's states are plain values and count no bytes, and the step holds no scenario
    itself (it makes the layer again from the states: issue 29); with `shared_weights` (a layer's
    projections shared by every scenario of it) each scenario's queries, keys and values are one array."""
    import gc

    steps = _model_steps(doc)
    assert len(steps) == count
    gc.collect()
    for c, before, after in steps:
        assert _plain_values(before) == [] and _plain_values(after) == [], c.text()
        assert c.companion_bytes == 0
        assert c.nbytes() == 0, c.text()  # no arrays: the hidden states are the model's to make again
        assert not any(type(v).__name__ == "Scenario" for v in vars(c).values()), c.text()  # held weakly
        if shared_weights:
            assert c.old.keys is c.old.queries and c.new.values is c.new.queries


def test_sentence_edits_keep_sentences_not_runs_and_undo_recomputes_them_exactly(window, check_panes):
    """Six MiniLM sentence edits: every undo step's model state is plain values (sentences, pickers),
    and undoing all of them (the older ones past the session's few kept runs are run again) shows the
    very grid and scenario each edit showed."""
    from attention.datamodel.scenario import same
    from attention.models import bundled

    if bundled.folder() is None:
        import pytest
        pytest.skip(bundled.install_hint("en"))
    tools = window.models
    assert tools.open_bundled()
    window.recompute.wait_idle()
    shown = [(tools.session.grid().copy(), window.document.scenario)]
    for i in range(6):
        tools.set_sentences((f"Sentence number {i} is about a cat and {i + 2} dogs.",))
        window.recompute.wait_idle()
        shown.append((tools.session.grid().copy(), window.document.scenario))
    _assert_steps_hold_no_tensors(window.document, 6, shared_weights=True)
    for grid, scenario in reversed(shown[:-1]):
        window.undo_action.trigger()
        window.recompute.wait_idle()
        assert window.document.scenario is scenario
        assert np.array_equal(tools.session.grid(), grid)  # the run computed again is the very same
        assert tools.session.scenario().queries.tobytes() == scenario.queries.tobytes()
        assert same(tools.session.scenario(), scenario)
    check_panes(window)
    for _ in range(6):
        window.redo_action.trigger()
    window.recompute.wait_idle()
    assert np.array_equal(tools.session.grid(), shown[-1][0])


def test_prompt_edits_and_next_tokens_keep_token_ids_not_tensors(window):
    """glassllm: two prompt edits and two Next tokens keep ids and text only; undoing past the kept runs
    gives the very weights again (a generated text need not tokenize back to its ids: the ids are kept)."""
    import pytest
    pytest.importorskip("glassllm")
    tools = window.models
    assert tools.open_glassllm()
    window.recompute.wait_idle()
    s = tools.session
    shown = [(tuple(s.run.ids), s.grid().copy())]
    for prompt in ("Alice was beginning to get", "The Queen said to the Hatter"):
        tools.set_sentences((prompt,))
        shown.append((tuple(s.run.ids), s.grid().copy()))
    for _ in range(2):
        tools.next_token()
        shown.append((tuple(s.run.ids), s.grid().copy()))
    window.recompute.wait_idle()
    _assert_steps_hold_no_tensors(window.document, 4)
    for ids, grid in reversed(shown[:-1]):
        window.undo_action.trigger()
        assert tuple(s.run.ids) == ids and np.array_equal(s.grid(), grid)
    window.recompute.wait_idle()


def test_undo_makes_a_dropped_layer_again_with_the_very_numbers(window):
    """Nothing but the undo history remembers the earlier sentences' layers (issue 29: the history keeps
    token ids, not tensors): undoing past the session's kept runs makes each layer again from its
    sentence, with byte-identical hidden states, the same tokens and the same weights."""
    import gc

    from attention.models import bundled

    if bundled.folder() is None:
        import pytest
        pytest.skip(bundled.install_hint("en"))
    tools = window.models
    assert tools.open_bundled()
    window.recompute.wait_idle()
    sc = window.document.scenario
    shown = [(sc.queries.tobytes(), sc.query_tokens, id(sc.projection("query").weight))]
    for i in range(6):
        tools.set_sentences((f"A sentence of {i} words about {i + 3} owls.",))
        window.recompute.wait_idle()
        sc = window.document.scenario
        shown.append((sc.queries.tobytes(), sc.query_tokens, id(sc.projection("query").weight)))
    del sc
    gc.collect()
    for queries, tokens, weight in reversed(shown[:-1]):
        window.undo_action.trigger()
        window.recompute.wait_idle()
        now = window.document.scenario
        assert now.queries.tobytes() == queries and now.query_tokens == tokens
        assert id(now.projection("query").weight) == weight  # the layer's shared weights, not a copy
    for _ in range(6):
        window.redo_action.trigger()
    window.recompute.wait_idle()
    assert window.document.scenario.queries.tobytes() == shown[-1][0]
