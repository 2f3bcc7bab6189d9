"""Controls generated from Field records: any records (a kind's own) get labelled controls with
their words, ranges and "auto"; one edit per change, none from syncing; the Parameters panel's
plain options are exactly the scenario's records."""
from __future__ import annotations

import math

import pytest
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QWidget

from app.editing.field_controls import FieldControls
from app.editing.parameter_panel import SCORINGS, ParameterPanel
from app.editing.wide_spin import ExactDoubleSpinBox, WideSpinBox
from app.pipeline.document import Document
from app.viewmodel import edits, field_values
from attention import words
from attention.datamodel.fields import Field
from attention.registry.fields import SCENARIO_FIELDS

#: a made-up kind's options, borrowing existing words: what a new kind passes to the builder
WINDOW = Field("scoring.window", "int", "field.factor", "field.factor.help", minimum=1, maximum=64, nullable=True)
CAP = Field("scoring.cap", "float", "field.scale", "field.scale.help", nullable=True)
SINK = Field("scoring.sink", "bool", "field.mix", "field.mix.help", default=False)
PAIRS = Field("scoring.pairs", "choice", "field.device", "field.device.help", default="cpu", choices=("cpu", "cuda"),
              choice_words=("field.device.cpu", "field.device.cuda"))
FILL = Field("scoring.fill", "float", "field.fill_value", "field.fill_value.help", default=-1e6,
             choices=(-1e6, -math.inf))
KIND = (WINDOW, CAP, SINK, PAIRS, FILL)


@pytest.fixture
def english():
    before = words.language()
    words.set_language("en")
    yield
    words.set_language(before)


@pytest.fixture
def built(qtbot, english):
    owner = QWidget()
    qtbot.addWidget(owner)
    values = {"window": 3, "cap": None, "sink": False, "pairs": "cpu", "fill": -1e6}
    got: list[tuple[str, object]] = []
    fc = FieldControls(owner, lambda f, v: got.append((f.name, v)), current=lambda: None,
                       offered={"pairs": lambda: ("cpu",)}, read=lambda sc, f: values[f.name],
                       auto=lambda sc, f: 0.25)
    fc.add(QFormLayout(owner), KIND)
    fc.retranslate()
    fc.sync(None)
    return fc, values, got


def test_each_type_gets_its_widget_range_and_words(built):
    fc, _, got = built
    c = fc.controls
    assert isinstance(c["window"], WideSpinBox) and isinstance(c["sink"], QCheckBox)
    assert isinstance(c["pairs"], QComboBox) and isinstance(c["fill"], QComboBox)
    assert isinstance(fc.number_boxes["cap"], ExactDoubleSpinBox)
    assert (c["window"].minimum(), c["window"].maximum()) == (0, 64)  # 0 = auto
    assert c["window"].specialValueText() == "auto" and c["window"].value() == 3
    assert fc.labels["window"].text() == "Factor c" and c["window"].toolTip().startswith("ProbSparse: samples")
    assert fc.auto_boxes["cap"].isChecked() and not fc.number_boxes["cap"].isEnabled()
    assert fc.number_boxes["cap"].value() == 0.25  # auto shows the value it stands for
    assert [c["fill"].itemText(i) for i in range(c["fill"].count())] == ["-1e6", "-inf"]
    assert [c["pairs"].itemText(i) for i in range(c["pairs"].count())] == ["CPU"]
    assert sorted(fc.problem_labels) == sorted(f.name for f in KIND)
    assert got == []  # building and syncing edit nothing


def test_one_edit_per_change_with_the_typed_value(built):
    fc, _, got = built
    fc.controls["window"].setValue(5)
    fc.controls["window"].setValue(0)  # the step below the minimum: auto
    fc.auto_boxes["cap"].setChecked(False)  # unticked: starts from the automatic value
    fc.controls["sink"].setChecked(True)
    fc.controls["fill"].setCurrentIndex(1)
    assert got == [("window", 5), ("window", None), ("cap", 0.25), ("sink", True), ("fill", -math.inf)]


def test_sync_shows_a_value_not_offered_and_edits_nothing(built):
    fc, values, got = built
    values.update(pairs="cuda", fill=-1e9, window=None, cap=2.0)
    fc.sync(None)
    pairs, fill = fc.controls["pairs"], fc.controls["fill"]
    assert pairs.currentText() == "CUDA (not available here)"
    assert fill.currentText() == "-1e9" and fill.count() == 3
    assert fc.controls["window"].text() == "auto"
    assert not fc.auto_boxes["cap"].isChecked() and fc.number_boxes["cap"].value() == 2.0
    assert got == []


def test_words_follow_the_catalogue_language(built):
    fc, _, _ = built
    words.set_language("zh")
    fc.retranslate()
    assert fc.labels["window"].text() == "采样因子 c" and fc.controls["window"].specialValueText() == "自动"
    assert fc.auto_boxes["cap"].text() == "自动"
    assert fc.controls["pairs"].itemText(0) == "CPU"


def test_a_field_added_twice_is_refused(built):
    fc, _, _ = built
    with pytest.raises(ValueError):
        fc.add(QFormLayout(QWidget()), [WINDOW])


# ---- the Parameters panel ------------------------------------------------------------------------
@pytest.fixture
def panel(qtbot, english):
    doc = Document(edits.fresh_scenario())
    p = ParameterPanel(doc)
    qtbot.addWidget(p)
    return p


def test_the_panels_plain_options_are_the_records(panel):
    generated = set(panel.fields.fields)
    assert generated == {f.name for f in SCENARIO_FIELDS}
    for f in SCENARIO_FIELDS:
        assert panel.labels[f.name].text() == words.text(f.label)
        assert panel.controls[f.name].toolTip() == words.text(f.help)


def test_one_undo_command_per_edit_with_the_catalogues_words(panel):
    doc, stack = panel.doc, panel.doc.undo_stack
    panel.controls["n_heads"].setValue(1)
    panel.controls["d_keys"].setValue(2)
    panel.controls["causal"].setChecked(True)
    panel.controls["fill_value"].setCurrentIndex(1)
    assert [stack.text(i) for i in range(stack.count())] == [
        "Change heads to 1", "Change d_keys per head", "Change causal mask", "Change fill value"]
    assert (doc.scenario.n_heads, doc.scenario.d_keys, doc.scenario.causal) == (1, 2, True)
    assert doc.scenario.fill_value == -math.inf
    panel.controls["d_keys"].setValue(0)  # back to auto
    assert doc.scenario.d_keys is None and stack.count() == 5


def test_a_kinds_options_show_while_it_is_chosen(panel):
    for kind in ("prob_sparse", "additive", "dot"):
        panel.controls["scoring"].setCurrentIndex(SCORINGS.index(kind))
        assert panel.doc.scenario.scoring == kind
        for other, box in panel.kind_boxes.items():
            assert box.isHidden() == (other != kind), (kind, other)
        for kind_of in panel.kind_boxes:
            for f in field_values.fields_for_scoring(kind_of):
                assert panel.controls[f.name].isVisibleTo(panel) == (kind_of == kind), (kind, f.name)


def test_cuda_is_offered_once_known(panel, monkeypatch):
    """Start-up forces a sync when torch has loaded: the scenario is unchanged, the devices not."""
    from app.editing import parameter_panel

    combo = panel.controls["device"]
    monkeypatch.setattr(parameter_panel, "available_devices", lambda: ("cpu",))
    panel.sync(force=True)
    assert [combo.itemText(i) for i in range(combo.count())] == ["CPU"]
    monkeypatch.setattr(parameter_panel, "available_devices", lambda: ("cpu", "cuda"))
    panel.sync()  # nothing changed in the scenario: skipped
    assert combo.count() == 1
    panel.sync(force=True)
    assert [combo.itemText(i) for i in range(combo.count())] == ["CPU", "CUDA"] and combo.currentText() == "CPU"


def test_a_nullable_int_reads_auto_on_its_first_sync(qtbot, english):
    """The spin box starts at its minimum (the "auto" step): the first sync of None changes no
    value, so the box must show "auto" as soon as the words are set, not "0"."""
    owner = QWidget()
    qtbot.addWidget(owner)
    fc = FieldControls(owner, lambda f, v: None, current=lambda: None, read=lambda sc, f: None,
                       auto=lambda sc, f: 0.25)
    fc.add(QFormLayout(owner), (WINDOW,))
    fc.retranslate()
    fc.sync(None)
    assert fc.controls["window"].text() == "auto"
    words.set_language("zh")
    fc.retranslate()
    assert fc.controls["window"].text() == words.text("field.auto") != "auto"
