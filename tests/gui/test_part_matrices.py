"""Issue 18, item 1 (and 3's router): a part's matrices the kind lists as `editable` are edited in the
Inputs panel's Weights tab like any weight: DSAttention's τ (one per series) and Δ (one per key),
Crossformer's router.  Every edit is one undo step; a bad value (text, NaN, τ ≤ 0) is refused with
a message naming the field (its path in the file), and the old number kept."""
from __future__ import annotations

import numpy as np
import pytest

from app.editing.inputs_panel import InputsPanel
from app.pipeline.document import Document
from attention import run, words
from attention.files import scenario_io
from resources import scenarios_dir

pytestmark = pytest.mark.gui


@pytest.fixture
def english():
    before = words.language()
    words.set_language("en")
    yield
    words.set_language(before)


def _panel(qtbot, preset: str) -> tuple[Document, InputsPanel]:
    doc = Document(scenario_io.load(scenarios_dir() / preset))
    panel = InputsPanel(doc)
    qtbot.addWidget(panel)
    return doc, panel


def _open(panel: InputsPanel, path: str):
    combo = panel.weight_combo
    i = combo.findData(path)
    assert i >= 0, [combo.itemData(j) for j in range(combo.count())]
    combo.setCurrentIndex(i)
    return panel.editors["weights"].model


def test_tau_and_delta_are_weights_to_edit_with_undo(qtbot, english):
    doc, panel = _panel(qtbot, "31_tsl_nonstationary_ds_attention.json")
    entries = [panel.weight_combo.itemText(i) for i in range(panel.weight_combo.count())]
    assert any("τ" in t for t in entries) and any("Δ" in t for t in entries)
    tau = _open(panel, "modifiers.destationary.tau")
    assert (tau.rowCount(), tau.columnCount()) == (1, 2)  # one per series
    assert "τ" in panel.editors["weights"].caption.text()
    before = run(doc.scenario).array("attention_weights")
    assert tau.setData(tau.index(0, 1), "1.5")
    assert doc.scenario.modifiers[0].get("tau").tolist() == [2.5, 1.5]
    after = run(doc.scenario)
    assert not np.allclose(after.array("attention_weights")[1], before[1])  # series 2 re-weighed
    assert np.array_equal(after.array("attention_weights")[0], before[0])
    doc.undo_stack.undo()
    assert doc.scenario.modifiers[0].get("tau").tolist() == [2.5, 0.4]
    delta = _open(panel, "modifiers.destationary.delta")
    assert (delta.rowCount(), delta.columnCount()) == (2, 6)  # (B, S): one per key
    assert delta.setData(delta.index(0, 3), "-2")
    assert doc.scenario.modifiers[0].get("delta")[0, 3] == -2.0
    doc.undo_stack.undo()
    assert doc.scenario.modifiers[0].get("delta")[0, 3] == 0.0


@pytest.mark.parametrize("typed,why", [("-1", "must be positive"), ("0", "must be positive"),
                                       ("abc", "not a finite number"), ("nan", "not a finite number")])
def test_bad_tau_is_refused_naming_the_field(qtbot, english, typed, why):
    doc, panel = _panel(qtbot, "31_tsl_nonstationary_ds_attention.json")
    tau = _open(panel, "modifiers.destationary.tau")
    said = []
    tau.rejected.connect(said.append)
    old = doc.scenario
    assert not tau.setData(tau.index(0, 0), typed)
    assert doc.scenario is old and doc.undo_stack.count() == 0
    (message,) = said
    assert "modifiers[0].tau" in message and why in message


def test_bad_tau_is_refused_in_chinese_too(qtbot, monkeypatch):
    from app.editing import problems

    monkeypatch.setattr(problems, "language", lambda: "zh")  # the window's language (it sets both)
    before = words.language()
    words.set_language("zh")
    try:
        doc, panel = _panel(qtbot, "31_tsl_nonstationary_ds_attention.json")
        tau = _open(panel, "modifiers.destationary.tau")
        said = []
        tau.rejected.connect(said.append)
        assert not tau.setData(tau.index(0, 0), "-3")
        assert "modifiers[0].tau" in said[0] and "必须为正" in said[0]
    finally:
        words.set_language(before)


def test_the_crossformer_router_is_an_editable_matrix(qtbot, english):
    doc, panel = _panel(qtbot, "37_tsl_crossformer_two_stage.json")
    router = _open(panel, "modifiers.two_stage.router")
    assert (router.rowCount(), router.columnCount()) == (6, 4)  # seg · factor rows, d_model columns
    before = run(doc.scenario)
    assert router.setData(router.index(2, 0), "3")  # segment 2, slot 1
    after = run(doc.scenario)
    w0, w1 = before.array("extra.tsa_router_weights"), after.array("extra.tsa_router_weights")
    assert not np.allclose(w0[:, :, 2], w1[:, :, 2]) and np.array_equal(w0[:, :, 0], w1[:, :, 0])
    said = []
    router.rejected.connect(said.append)
    assert not router.setData(router.index(0, 0), "inf")
    assert "modifiers[0].router" in said[0]
    doc.undo_stack.undo()
    assert np.array_equal(run(doc.scenario).array("extra.tsa_router_weights"), w0)


def test_a_pasted_bad_tau_shows_its_problem_under_the_matrix(qtbot, english):
    """A paste is not checked cell by cell: the scenario's problem (naming the field) shows under the
    editor of that matrix, and undo takes the paste back."""
    from app.editing.problems import group_by_control
    from attention import problems

    doc, panel = _panel(qtbot, "31_tsl_nonstationary_ds_attention.json")
    tau = _open(panel, "modifiers.destationary.tau")
    doc.set_block(tau.ref, 0, 0, np.array([[-1.0, 2.0]]), "Paste")
    found = problems(doc.scenario)
    assert [p.path for p in found] == ["modifiers[0].tau[0]"]
    panel.show_problems(group_by_control(found))
    label = panel.problem_labels["weights"]
    assert not label.isHidden() and "τ must be positive" in label.lines()[0]
    doc.undo_stack.undo()
    assert problems(doc.scenario) == []


def test_a_left_out_delta_is_shown_as_the_librarys_zeros_and_written_when_edited(qtbot, english):
    import dataclasses

    from attention.datamodel.parts import Part

    sc = scenario_io.load(scenarios_dir() / "31_tsl_nonstationary_ds_attention.json")
    doc = Document(dataclasses.replace(sc, modifiers=(Part("destationary", {"tau": sc.modifiers[0].get("tau")}),)))
    panel = InputsPanel(doc)
    qtbot.addWidget(panel)
    delta = _open(panel, "modifiers.destationary.delta")
    assert delta.matrix().shape == (2, 6) and not delta.matrix().any()  # the library's Δ = 0
    assert delta.setData(delta.index(1, 5), "3")
    assert doc.scenario.modifiers[0].get("delta")[1].tolist() == [0, 0, 0, 0, 0, 3.0]
    assert np.array_equal(run(doc.scenario).array("attention_weights"), run(sc).array("attention_weights"))
    doc.undo_stack.undo()  # the cell back to the library's 0 (written out now: the same numbers)
    assert not np.asarray(doc.scenario.modifiers[0].get("delta")).any()
