"""Grouped-query / multi-query attention made visible: the Parameters panel's key/value heads
control (from its Field record), the K and V panes titled with the query heads that read each
key/value head, explain naming the head, and the by-hand sheet using the key/value head of the
query head it shows.  The head each query head reads is worked out here (h // (H / H_kv)), and the
presets' masks are written out cell by cell."""
from __future__ import annotations

import numpy as np
import pytest

from app.editing.parameter_panel import ParameterPanel
from app.pipeline.document import Document
from app.viewmodel import by_hand, edits
from app.viewmodel.pane_data import pane_data
from attention import Projection, Scenario, problems, run, words
from attention.files import scenario_io
from attention.teaching import explain
from resources import scenarios_dir


@pytest.fixture
def english():
    before = words.language()
    words.set_language("en")
    yield
    words.set_language(before)


def _gqa(kv: int) -> Scenario:
    rng = np.random.default_rng(kv)
    lin = lambda o, i: Projection(rng.normal(size=(o, i)))  # noqa: E731
    return Scenario(rng.normal(size=(1, 3, 4)), rng.normal(size=(1, 4, 4)), rng.normal(size=(1, 4, 4)), n_heads=4,
                    n_kv_heads=kv, d_keys=2, d_values=2,
                    projections={"query": lin(8, 4), "key": lin(2 * kv, 4), "value": lin(2 * kv, 4),
                                 "out": lin(4, 8)})


def test_the_key_value_heads_control_edits_and_resizes(qtbot, english):
    doc = Document(_gqa(4))
    panel = ParameterPanel(doc)
    qtbot.addWidget(panel)
    spin = panel.controls["n_kv_heads"]
    assert panel.labels["n_kv_heads"].text() == "Key/value heads H_kv" and spin.value() == 4
    spin.setValue(2)
    sc = doc.scenario
    assert sc.n_kv_heads == 2 and sc.projections["key"].weight.shape == (4, 4)
    assert sc.projections["value"].weight.shape == (4, 4) and sc.projections["query"].weight.shape == (8, 4)
    assert problems(sc) == [] and doc.undo_stack.undoText() == "Change key/value heads to 2"
    spin.setValue(3)  # does not divide 4: said, by the field
    assert [p.path for p in problems(doc.scenario)] == ["n_kv_heads"]
    spin.setValue(spin.minimum())  # "auto": one key/value head per query head
    assert doc.scenario.n_kv_heads is None and problems(doc.scenario) == []
    assert doc.scenario.projections["key"].weight.shape == (8, 4)


@pytest.mark.parametrize("kv", [1, 2])
def test_k_and_v_panes_name_the_query_heads_of_each_key_value_head(kv):
    trace = run(_gqa(kv))
    g = 4 // kv
    for sid in ("head_split.key", "head_split.value"):
        d = pane_data(trace, sid, 0)
        assert d.layout.n_matrices == kv
        assert [d.matrix_title(j, "en") for j in range(kv)] == [
            f"K/V head {j + 1} · query heads {j * g + 1}–{j * g + g}" for j in range(kv)]
        assert d.hover_text(0, 0, 0, "zh").startswith("键/值头 1 · 查询头 1–")
    q = pane_data(trace, "head_split.query", 0)
    if kv < 4:  # each query head says which key/value head it reads (h // (H / H_kv), counted from 1)
        assert [q.matrix_title(h, "en") for h in range(4)] == [f"Head {h + 1} · K/V {h // g + 1}" for h in range(4)]
    assert [q.matrix_title(h, "en", short=True) for h in range(4)] == ["Head 1", "Head 2", "Head 3", "Head 4"]


@pytest.mark.parametrize("kv", [1, 2])
def test_explain_and_by_hand_use_the_key_value_head_of_the_query_head(kv):
    trace = run(_gqa(kv))
    for h in range(4):
        j = h // (4 // kv)
        summary = explain.explain(trace, "scores", (0, h, 1, 2)).summary["en"]
        assert f"Query head {h + 1} reads key/value head {j + 1}" in summary
        plan = by_hand.plan(trace, 0, h, "en")
        np.testing.assert_array_equal(plan.blocks["kt"].values, trace.array("head_split.key")[0, :, j].T)
        np.testing.assert_array_equal(plan.blocks["v"].values, trace.array("head_split.value")[0, :, j])
        assert plan.blocks["kt"].title == f"Kᵀ, K/V head {j + 1} (query head {h + 1} reads it)"
        # the sheet's scores are Q · Kᵀ of the blocks it shows (scaled), as a student works them out
        scores = plan.blocks["q"].values @ plan.blocks["kt"].values / np.sqrt(2)
        np.testing.assert_allclose(plan.blocks["scores"].values, scores, rtol=1e-12, atol=1e-12)


def test_plain_heads_keep_their_titles():
    trace = run(_gqa(4))
    assert pane_data(trace, "head_split.key", 0).matrix_title(3, "en") == "Head 4"
    assert by_hand.plan(trace, 0, 3, "en").blocks["kt"].title == "Kᵀ, Head 4"


def test_the_presets():
    load = lambda name: scenario_io.load(scenarios_dir() / name)  # noqa: E731
    window = run(load("20_sliding_window.json")).array("extra.mask")[0]
    l, s = np.arange(6)[:, None], np.arange(6)[None, :]
    np.testing.assert_array_equal(window, (s > l) | (s < l - 2))  # causal, and a window of 3
    drawn = run(load("21_drawn_mask.json")).array("extra.mask")[0]
    want = np.zeros((6, 6), bool)
    want[:, [0, 4]] = True
    want[0, 0] = want[4, 4] = False  # each "the" still sees itself
    np.testing.assert_array_equal(drawn, want)
    for name, kv in (("22_grouped_query.json", 2), ("23_multi_query.json", 1)):
        sc = load(name)
        trace = run(sc)
        assert (sc.n_heads, sc.n_kv_heads) == (4, kv)
        assert trace.array("head_split.key").shape[2] == kv and trace.array("head_split.query").shape[2] == 4
    assert edits.with_fields(load("22_grouped_query.json"), n_kv_heads=1).projections["key"].weight.shape[0] == 2
