"""Issue 17, the sentence pair's loose ends, tried as a person does it with MiniLM open: the Sentence box's label
says what its lines become once "a pair" is chosen (English and Chinese), and the rollout heatmap follows the
A / B filter as the grid does (rows from A, columns from B), its hover and explain naming the full product.

Numbers come from a float64 BERT written apart from the app (tests/models/bert64.py) and a rollout written out
with loops here; the token ids of the pair are transformers' own (tests/models/minilm_pair_golden.npz)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from attention.datamodel.numbers import rounded
from attention.models import bundled

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from bert64 import read_state_dict, reference_forward  # noqa: E402

pytestmark = pytest.mark.gui
GOLDEN = Path(__file__).resolve().parents[1] / "models" / "minilm_pair_golden.npz"


@pytest.fixture
def opened(window, qtbot):
    if bundled.folder() is None:
        pytest.skip(bundled.install_hint("en"))
    w = window
    w.show()
    qtbot.waitExposed(w)
    w.resize(1600, 900)
    w.models.bundled_action.trigger()
    w.recompute.wait_idle()
    qtbot.waitUntil(lambda: w.models.panel.grid.cell_size() > 4)
    return w


def _type(w, qtbot, text: str) -> None:
    panel = w.models.panel
    before = w.document.scenario
    panel.box.setFocus()
    panel.box.selectAll()
    qtbot.keyClicks(panel.box, text.replace("\n", "\r"))
    qtbot.waitUntil(lambda: w.document.scenario is not before and w.models.is_idle(), timeout=20000)
    w.recompute.wait_idle()


def _pick(qtbot, combo, steps: int = 1, up: bool = False) -> None:
    combo.setFocus()
    for _ in range(steps):
        qtbot.keyClick(combo, Qt.Key.Key_Up if up else Qt.Key.Key_Down)


def _rollout_by_hand(weights, last: int) -> np.ndarray:
    """Abnar & Zuidema with loops: per layer 0.5·(mean over heads) + 0.5·I, later layers on the left."""
    R = None
    for k in range(last + 1):
        A = weights[k].mean(axis=0)
        n = A.shape[0]
        mixed = [[0.5 * A[i, j] + (0.5 if i == j else 0.0) for j in range(n)] for i in range(n)]
        R = mixed if R is None else [[sum(mixed[i][m] * R[m][j] for m in range(n)) for j in range(n)]
                                     for i in range(n)]
    return np.array(R)


def _move(grid, pos: QPoint) -> None:
    QApplication.sendEvent(grid, QMouseEvent(QEvent.Type.MouseMove, QPointF(pos), QPointF(grid.mapToGlobal(pos)),
                                             Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                                             Qt.KeyboardModifier.NoModifier))


def test_the_sentence_box_label_says_what_a_pair_does(opened, qtbot):
    w = opened
    panel = w.models.panel
    batch_label = "Sentences (one per line; two make a padded batch):"
    assert panel.box_label.text() == batch_label
    _type(w, qtbot, "the cat sat on the mat\nit was tired")
    _pick(qtbot, panel.two_box)  # Two sentences as: a pair
    qtbot.waitUntil(lambda: w.models.session.is_pair() and w.models.is_idle(), timeout=20000)
    w.recompute.wait_idle()
    assert "two make a padded batch" not in panel.box_label.text()
    assert panel.box_label.text() == "Sentences (two lines: sentence A, then sentence B of one pair):"
    w.set_language("zh")
    assert panel.box_label.text() == "句子（两行：一个句子对的句子 A，然后句子 B）："
    _pick(qtbot, panel.two_box, up=True)  # back to a batch
    qtbot.waitUntil(lambda: not w.models.session.is_pair() and w.models.is_idle(), timeout=20000)
    w.recompute.wait_idle()
    assert panel.box_label.text() == "句子（每行一句；两句组成一个补齐的批次）："
    w.set_language("en")
    assert panel.box_label.text() == batch_label


def test_the_rollout_heatmap_follows_the_a_b_filter(opened, qtbot):
    from app.viewmodel import rollout_view

    w = opened
    panel = w.models.panel
    g = np.load(GOLDEN)
    _type(w, qtbot, f"{g['text_a']}\n{g['text_b']}")
    _pick(qtbot, panel.two_box)  # a pair
    qtbot.waitUntil(lambda: w.models.session.is_pair() and w.models.is_idle(), timeout=20000)
    w.recompute.wait_idle()
    s = w.models.session
    start, n = int(np.argmax(g["type_ids"])), len(g["ids"])
    _, weights = reference_forward(read_state_dict(bundled.folder()), g["ids"], g["type_ids"])
    weights = [np.asarray(a, dtype=np.float64) for a in weights]  # (H, n, n) per layer
    _pick(qtbot, panel.layer_box, 2)  # Layer 3
    w.recompute.wait_idle()
    assert s.layer == 2
    _pick(qtbot, panel.show_box)  # Show: Rollout
    assert panel.rollout.isVisible() and not panel.grid.isVisible()
    want = _rollout_by_hand(weights, 2)  # (n, n)
    np.testing.assert_allclose(rollout_view.heatmap(s), want, rtol=0, atol=1e-5)
    _pick(qtbot, panel.filter_box, 2)  # All -> A → A -> A → B
    assert panel.filter_box.currentText() == "A → B"
    shown = rollout_view.heatmap(s)
    assert shown.shape == (start, n - start)
    np.testing.assert_allclose(shown, want[:start, start:], rtol=0, atol=1e-5)
    grid = panel.rollout
    assert (grid._n, grid._cols) == (start, n - start)
    # hover and click row 2 (A: the), column 1 (B: it): the explain gives R3[2, start + 1], summed over all tokens
    r, c = 1, 0
    qtbot.waitUntil(lambda: grid.cell_size() > 4)
    rect = grid.cell_rect(0, 0)
    pos = QPoint(rect.x() + int((c + 0.5) * rect.width() / (n - start)),
                 rect.y() + int((r + 0.5) * rect.height() / start))
    _move(grid, pos)
    qtbot.waitUntil(lambda: panel.hover.text() != "")
    assert "A: the ← B: it" in panel.hover.text() and panel.hover.text().endswith(rounded(want[1, start]))
    qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=pos)
    text = panel.rollout_explain.text()
    assert f"R3[2, {start + 1}]" in text and rounded(want[1, start]) in text and "A: the ← B: it" in text
    assert "averaged over the heads" in text
    w.set_language("zh")
    panel.rollout.pointClicked.emit(0, 0, r, c)
    assert f"R3[2, {start + 1}]" in panel.rollout_explain.text() and "A: the ← B: it" in panel.rollout_explain.text()
    w.set_language("en")
    _pick(qtbot, panel.filter_box)  # B → A
    np.testing.assert_allclose(rollout_view.heatmap(s), want[start:, :start], rtol=0, atol=1e-5)
