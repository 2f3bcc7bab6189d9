"""Compare: pin a trace, change something, and every pane shows current − pinned on one shared
symmetric colour scale; a pane whose shape changed says so in words; unpin restores.

The expected differences come from two engine runs subtracted here (and, for the scores, from
the toy's inputs by hand); the panes' numbers are read from what they draw."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from gui_helpers import expected_matrices

import attention
from app.viewmodel.edits import with_fields

TOY_Q = np.array([[1, 0, 2, 1], [0, 1, 1, 2], [1, 1, 0, 1], [2, 0, 1, 0]], float)


def change(window, **fields) -> None:
    window.document.replace(with_fields(window.document.scenario, **fields), "change")
    window.recompute.recompute_now()
    window.recompute.wait_idle()


@pytest.fixture
def compare(window):
    return window.cell_tools.compare


def test_difference_panes_show_current_minus_pinned(window, compare):
    view = window.view
    old_sc = window.document.scenario
    assert compare.pin()
    change(window, scoring="dot")
    compare.diff_action.trigger()  # View ▸ Show difference to pinned
    assert compare.lens.enabled
    old, new = attention.run(old_sc), attention.run(window.document.scenario)
    for sid in new.ids:
        pane = view.pane(sid)
        assert pane.notice_text() is None, sid
        want = [a - b for a, b in zip(expected_matrices(new, sid, 0), expected_matrices(old, sid, 0))]
        got = pane.data.block
        for m, w in enumerate(want):
            np.testing.assert_allclose(got[m], w, atol=1e-12, err_msg=sid)
            np.testing.assert_allclose(pane.displayed_arrays()[m], w, atol=1e-6, err_msg=sid)
    # by hand: unscaled − scaled scores = (1 − 1/√2) q·k; head 1 of query 0 and key 2: [1, 0]·[1, 1] = 1
    assert view.pane("scores").data.block[0, 0, 2] == pytest.approx(1 - 1 / math.sqrt(2), abs=1e-12)
    assert view.pane("projection.query").data.block.max() == 0  # untouched steps: no difference
    # one symmetric scale for every pane, wide enough for the largest change
    levels = {view.pane(sid).levels() for sid in new.ids}
    assert len(levels) == 1
    lo, hi = levels.pop()
    assert lo == -hi and hi >= max(float(np.abs(view.pane(s).data.block).max()) for s in new.ids)
    assert hi == compare.lens.limits[1]
    # the hover says all three numbers
    text = view.pane("scores").hover_text(0, 0, 2)
    now, pinned = new.array("scores")[0, 0, 0, 2], old.array("scores")[0, 0, 0, 2]
    said = re.search(r"= (\S+) \(now (\S+), pinned (\S+)\)$", text)
    assert said, text  # every digit: each number reads back to the very float
    assert [float(x) for x in said.groups()] == [float(now - pinned), float(now), float(pinned)]
    assert "pinned" in view.pane("scores").title_text()


def test_a_changed_shape_is_said_in_words(window, compare):
    view = window.view
    compare.pin()
    compare.diff_action.setChecked(True)
    change(window, n_heads=4)  # toy d_model 4: heads of width 1
    split = view.pane("head_split.query")
    assert (split.notice_text() is not None and "(1, 4, 2, 2)" in split.notice_text()
            and "(1, 4, 4, 1)" in split.notice_text())
    assert split.canvas.isHidden()
    # the projections keep their shape: a difference (zero, the heads do not change them)
    proj = view.pane("projection.query")
    assert proj.notice_text() is None and not proj.canvas.isHidden()
    assert np.all(proj.data.block == 0)
    window.set_language("zh")
    try:
        assert "形状已改变" in split.notice_text()
    finally:
        window.set_language("en")


def test_a_mask_switched_on_keeps_the_scale_readable(window, compare):
    view = window.view
    old_sc = window.document.scenario
    compare.pin()
    change(window, causal=True)
    compare.show_difference(True)
    new, old = attention.run(window.document.scenario), attention.run(old_sc)
    assert "extra.mask" in new.ids and "extra.mask" not in old.ids
    assert "not in the pinned" in view.pane("extra.mask").notice_text()
    w_diff = new.array("attention_weights") - old.array("attention_weights")
    np.testing.assert_allclose(view.pane("attention_weights").data.block[0], w_diff[0, 0], atol=1e-12)
    # masked scores differ by about -1e6 where the mask bites: those cells must not set the scale
    lo, hi = view.pane("scores").levels()
    assert hi < 10 and hi >= np.abs(w_diff).max()


def test_unpin_restores_every_pane(window, compare, check_panes):
    compare.pin()
    change(window, scoring="dot")
    compare.show_difference(True)
    assert window.view.pane("scores").data.block.max() > 0
    compare.unpin_action.trigger()
    assert compare.pinned is None and not compare.diff_action.isChecked() and not compare.diff_action.isEnabled()
    check_panes(window)
    assert "pinned" not in window.view.pane("scores").title_text()


def test_show_difference_without_a_pin_says_so(window, compare):
    messages = []
    compare.message.connect(messages.append)
    compare.show_difference(True)
    assert not compare.lens.enabled and messages and "Pin" in messages[-1]


def test_the_explain_panel_follows_the_difference_view(window, compare):
    panel = window.cell_tools.panel
    compare.pin()
    change(window, scoring="dot")
    window.view.pane("scores").click_cell(0, 0, 2)
    assert "pinned" not in panel.where.text()
    compare.show_difference(True)
    assert "pinned" in panel.where.text()  # the pane's own hover words: difference, now, pinned
