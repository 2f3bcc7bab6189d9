"""Overflow is said in the window, as a fully masked row is (issue 12, defect 12): a number typed
into the toy's queries that is finite but whose score is not, turns a row of weights into NaN; the
message bar names the step, the cell and the cause, in English and in Chinese."""
from __future__ import annotations

import numpy as np


def test_typing_a_number_whose_score_overflows_shows_why_the_row_is_nan(window):
    model = window.inputs.editors["queries"].model
    model.setData(model.index(0, 0), "1.7e308")  # finite in float64; times key 3's 2 / sqrt(2), not
    window.recompute.wait_idle()
    trace = window.last_trace
    assert window.document.scenario.queries[0, 0, 0] == 1.7e308
    assert np.isnan(trace.array("attention_weights")[0, 0, 0]).all()  # the NaN row the issue saw
    (line,) = [x for x in window.message_bar.lines() if "overflow" in x]
    assert line.startswith("scores: ") and "overflow the float64 range" in line
    assert "[0][0][0][3] (batch 1, head 1, query 1, key 4)" in line and "(batch 1, query 1)" in line
    (problem,) = [p for p in window.message_bar.problems() if getattr(p, "code", "") == "overflow"]
    assert "超出了 float64 的范围" in problem.text("zh") and "键 4" in problem.text("zh")
    window.set_language("zh")
    assert "超出了 float64 的范围" in window.message_bar.label.text()
