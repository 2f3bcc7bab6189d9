"""The Parameters panel's "Position & modifiers" group: a check box per offered kind adds or removes
its part as one undo command; its fields edit the part (one undo command each); the numbers the
engine then computes agree with references written here (numpy rotations, ALiBi's distances,
cap·tanh); the words come from the catalogue in both languages."""
from __future__ import annotations

import numpy as np
import pytest

from app.editing.parameter_panel import ParameterPanel
from app.pipeline.document import Document
from app.viewmodel import edits, field_values
from attention import problems, run, words
from attention.datamodel.parts import Part


@pytest.fixture
def english():
    before = words.language()
    words.set_language("en")
    yield
    words.set_language(before)


@pytest.fixture
def panel(qtbot, english):
    doc = Document(edits.fresh_scenario())
    p = ParameterPanel(doc)
    qtbot.addWidget(p)
    return p


def _key(p: ParameterPanel, kind: str) -> tuple[str, str]:
    return next(k for k in p.parts.checks if k[1] == kind)


def _rotate(x: np.ndarray, base: float) -> np.ndarray:
    """x (B, N, H, d): column j and j + d/2 turned as a plane by angle n·base^(-2j/d) (halves pairing)."""
    B, N, H, d = x.shape
    out = x.astype(np.float64).copy()
    for j in range(d // 2):
        for n in range(N):
            a = n * base ** (-2.0 * j / d)
            c, s = np.cos(a), np.sin(a)
            u, v = x[:, n, :, j].astype(np.float64), x[:, n, :, j + d // 2].astype(np.float64)
            out[:, n, :, j], out[:, n, :, j + d // 2] = c * u - s * v, s * u + c * v
    return out


def test_rope_tick_edit_undo_untick(panel):
    doc, rope = panel.doc, _key(panel, "rope")
    panel.controls["n_heads"].setValue(1)  # head width 4: two pairs, the second turns at n·base^(-1/2)
    assert "rope.query" not in run(doc.scenario)
    panel.parts.checks[rope].setChecked(True)
    assert doc.scenario.positions == (Part("rope", {}),)
    assert not panel.parts.boxes[rope].isHidden()
    t = run(doc.scenario)
    q = t.array("head_split.query")
    np.testing.assert_allclose(t.array("rope.query"), _rotate(q, 10000.0), rtol=0, atol=1e-6)
    before = t.array("rope.query").copy()

    spin = panel.parts.controls[rope].controls["base"]
    assert spin.value() == 10000.0
    spin.setValue(3.0)  # a small base: the pairs turn fast
    assert doc.scenario.positions[0].values["base"] == 3.0
    t = run(doc.scenario)
    np.testing.assert_allclose(t.array("rope.query"), _rotate(q, 3.0), rtol=0, atol=1e-6)
    assert np.abs(t.array("rope.query") - before).max() > 1e-3

    doc.undo_stack.undo()
    assert doc.scenario.positions == (Part("rope", {}),) and spin.value() == 10000.0
    np.testing.assert_allclose(run(doc.scenario).array("rope.query"), before, rtol=0, atol=0)
    doc.undo_stack.redo()
    assert doc.scenario.positions[0].values["base"] == 3.0 and spin.value() == 3.0
    np.testing.assert_allclose(run(doc.scenario).array("rope.query"), _rotate(q, 3.0), rtol=0, atol=1e-6)

    panel.parts.checks[rope].setChecked(False)
    assert doc.scenario.positions == () and panel.parts.boxes[rope].isHidden()
    assert "rope.query" not in run(doc.scenario)
    doc.undo_stack.undo()  # the removal was one command
    assert doc.scenario.positions[0].values["base"] == 3.0 and panel.parts.checks[rope].isChecked()


def _slopes(H: int) -> np.ndarray:
    """BLOOM's slopes for a power-of-two head count: 2^(-8 h / H), h = 1..H."""
    return np.array([2.0 ** (-8.0 * h / H) for h in range(1, H + 1)])


def test_alibi_tick_and_form(panel):
    doc, alibi = panel.doc, _key(panel, "alibi")
    panel.parts.checks[alibi].setChecked(True)
    assert [p.kind for p in doc.scenario.modifiers] == ["alibi"]
    t = run(doc.scenario)
    sc = doc.scenario
    H, L, S = sc.n_heads, sc.L, sc.S
    raw = t.array("scores")  # (B, H, L, S) before the bias
    bias = np.array([[[_slopes(H)[h] * s for s in range(S)] for _ in range(L)] for h in range(H)])
    np.testing.assert_allclose(t.array("alibi.scores"), raw + bias[None], rtol=0, atol=1e-6)

    combo = panel.parts.controls[alibi].controls["form"]
    combo.setCurrentIndex(combo.findData("relative"))
    assert doc.scenario.modifiers[0].values["form"] == "relative"
    rel = np.array([[[_slopes(H)[h] * (s - l) for s in range(S)] for l in range(L)] for h in range(H)])
    np.testing.assert_allclose(run(doc.scenario).array("alibi.scores"), raw + rel[None], rtol=0, atol=1e-6)
    doc.undo_stack.undo()
    assert doc.scenario.modifiers == (Part("alibi", {}),) and combo.currentData() == "key"
    panel.parts.checks[alibi].setChecked(False)
    assert doc.scenario.modifiers == ()
    doc.undo_stack.undo()
    assert [p.kind for p in doc.scenario.modifiers] == ["alibi"]


def test_softcap_tick_edit_undo(panel):
    doc, cap = panel.doc, _key(panel, "softcap")
    panel.parts.checks[cap].setChecked(True)
    spin = panel.parts.controls[cap].controls["cap"]
    spin.setValue(0.5)
    t = run(doc.scenario)
    s = t.array("scores")
    np.testing.assert_allclose(t.array("softcap.scores"), 0.5 * np.tanh(s.astype(np.float64) / 0.5), rtol=0,
                               atol=1e-6)
    doc.undo_stack.undo()
    assert "cap" not in doc.scenario.modifiers[0].values
    doc.undo_stack.undo()
    assert doc.scenario.modifiers == () and not panel.parts.checks[cap].isChecked()
    doc.undo_stack.redo()
    assert panel.parts.checks[cap].isChecked()


def test_window_starts_with_a_size_and_problems_show_under_the_control(panel):
    doc, win = panel.doc, _key(panel, "window")
    panel.parts.checks[win].setChecked(True)
    size = doc.scenario.masks[0].values["size"]
    assert size >= 1 and panel.parts.controls[win].controls["size"].value() == size
    lines = ["masks[0].size: made up for the test", "n_heads: another"]
    rest = panel.show_problems(lines)
    assert panel.parts.controls[win].problem_labels["size"].problems() == [lines[0]]
    assert lines[0] not in rest


def test_the_group_is_generated_and_names_no_kind():
    offered = [k for _, k in field_values.panel_kinds()]
    assert offered == ["rope", "alibi", "softcap", "window"]  # the kinds that say in_panel
    source = open("app/editing/part_controls.py", encoding="utf-8").read()
    assert not any(f'"{k}"' in source for k in offered)


def test_words_in_chinese(panel):
    words.set_language("zh")
    panel.retranslate()
    assert panel.parts.title() == "位置与修饰"
    assert panel.parts.checks[_key(panel, "rope")].text() == "RoPE（旋转位置编码）"
    assert panel.parts.checks[_key(panel, "window")].text() == "滑动窗口"
    words.set_language("en")
    panel.retranslate()
    assert panel.parts.title() == "Position & modifiers"


def test_a_parts_real_problem_shows_under_its_field(panel):
    doc, rope = panel.doc, _key(panel, "rope")
    panel.parts.checks[rope].setChecked(True)
    panel.parts.controls[rope].controls["fraction"].setValue(0.5)  # head width 2: one rotated column, no pair
    lines = problems(doc.scenario)
    assert [p.path for p in lines] == ["positions[0].fraction"]
    rest = panel.show_problems(lines)
    assert rest == [] and panel.parts.controls[rope].problem_labels["fraction"].problems() == lines
    panel.parts.checks[rope].setChecked(False)  # its control is gone: the window's bar would say it
    assert panel.show_problems(lines) == lines
