"""The recompute worker gets what the view shows (batch item, pictures) inside each request."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import attention
from app.panes import prepared

pytestmark = pytest.mark.gui


def _two_item_scenario():
    from app.viewmodel.edits import fresh_scenario

    sc = fresh_scenario()
    rng = np.random.default_rng(3)
    grow = lambda a: np.concatenate([a, rng.normal(size=a.shape)], axis=0)  # noqa: E731
    return dataclasses.replace(sc, queries=grow(sc.queries), keys=grow(sc.keys), values=grow(sc.values))


def test_the_worker_prepares_the_batch_item_named_in_the_request(qtbot):
    from app.pipeline.document import Document
    from app.pipeline.recompute import Recomputer

    sc = _two_item_scenario()
    assert sc.batch == 2
    asked = []

    def hints() -> prepared.DisplayHints:
        asked.append(True)
        return prepared.DisplayHints(batch=1)

    doc = Document(sc)
    rec = Recomputer(doc, hints=hints)
    rec.background_threshold = -1  # every request goes to the worker
    got = []
    rec.ready.connect(lambda trace, scenario, _s: got.append(trace))
    try:
        rec.recompute_now()
        assert asked, "the hints are asked for when the request is made"
        (trace,) = got
        ready = prepared.claim(trace, 1)
        assert ready is not None and prepared.claim(trace, 0) is None  # batch 1, as the request said
        want = attention.run(sc).array("attention_weights")[1]
        assert np.allclose(ready.picture("attention_weights").raw, want)
    finally:
        rec.shutdown()


def test_the_window_sends_the_batch_item_it_shows(window, check_panes):
    window.document.apply(_two_item_scenario())
    window.recompute.recompute_now()
    window.inputs.batch.setValue(1)
    assert window.view.display_hints().batch == 1
    drawn = window.view.display_hints().drawn
    assert set(drawn) == set(window.view.pane_ids())
    window.recompute.background_threshold = -1
    model = window.inputs.editors["queries"].model
    model.setData(model.index(0, 0), "2.5")
    window.recompute.recompute_now()
    trace = window.view.current_trace()
    assert prepared.claim(trace, 1) is not None  # made on the worker for the item on screen
    check_panes(window, batch=1)


def test_the_worker_hands_the_panes_in_sight_over_first_and_makes_the_rest_after(window, qtbot, check_panes):
    """A big trace: the worker makes the pictures of the panes in sight, hands the trace over (the
    window repaints those), then makes the others; the catch-up draws each as it is ready, and at
    the end every pane shows the engine's numbers."""
    from gui_helpers import random_scenario

    window.resize(1600, 1000)
    window.show()
    qtbot.waitExposed(window)
    window.recompute.background_threshold = -1  # every request goes to the worker
    window.document.apply(random_scenario(L=128, S=128, d=32, H=8, seed=5))
    window.recompute.recompute_now()
    qtbot.waitUntil(lambda: all(window.view.is_current(s) for s in window.view.pane_ids()), timeout=20000)
    hints = window.view.display_hints()
    ids = window.view.pane_ids()
    assert hints.first and set(hints.first) < set(ids)  # some panes in sight, not all of them
    model = window.inputs.editors["queries"].model
    model.setData(model.index(0, 0), "2.5")
    window.recompute.wait_idle()  # the trace is handed over: the panes in sight show it
    trace = window.view.current_trace()
    ready = prepared.claim(trace, 0)
    assert isinstance(ready, prepared.LazyPreparedTrace)
    for sid in hints.first:
        assert ready.has(sid) and window.view.is_current(sid), sid
    qtbot.waitUntil(lambda: all(window.view.is_current(s) for s in ids), timeout=20000)
    qtbot.waitUntil(lambda: not ready.making, timeout=20000)
    assert all(ready.has(s) for s in trace.ids)
    assert ready.picture("attention_weights").qimages is not None  # colour-mapped by the worker
    check_panes(window)
