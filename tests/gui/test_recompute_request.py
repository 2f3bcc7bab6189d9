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
