"""File ▸ glassllm (bundled) used as a person does: the menu entry, the 4 × 4 grid, the layer as
editable steps computed by the engine, the next-token top 10, typing a prompt, a grid click.  Numbers
come from glassllm's own NumPy forward (its Tracer), not from this project's code."""
from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from attention.datamodel import numbers
from attention.models.token_text import visible

glassllm = pytest.importorskip("glassllm")

pytestmark = pytest.mark.gui


def _theirs(prompt: str):
    """glassllm's own float64 forward: (tokens, Tracer, probabilities of the next token)."""
    from importlib import resources
    with resources.as_file(resources.files("glassllm") / "weights" / "en.npz") as path:
        net = glassllm.GlassLM.load(path, dtype=np.float64)
    _, tok = glassllm.load_pretrained("en")
    ids = list(tok.encode(prompt))
    tracer = glassllm.Tracer()
    logits = net.forward(ids, trace=tracer).data[0][-1]
    p = np.exp(logits - logits.max())
    return list(tok.tokens(ids)), tracer, p / p.sum(), tok


@pytest.fixture
def opened(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    action = window.models.glassllm_action
    assert action in window.file_menu.actions() and action.text() == "glassllm (bundled)"
    action.trigger()
    window.recompute.wait_idle()
    return window


def test_glassllm_opens_with_its_grid_layer_and_next_token(opened, check_panes):
    w = opened
    s = w.models.session
    prompt = s.sentences[0]
    tokens, tracer, p, tok = _theirs(prompt)
    assert w.models.dock.isVisible()
    assert w.models.panel.box_label.text().startswith("Prompt")
    grid = s.grid()
    assert grid.shape == (4, 4, len(tokens), len(tokens))
    for k in range(4):
        np.testing.assert_allclose(grid[k], tracer.get("attn.softmax", layer=k).value, rtol=0, atol=1e-12)
    sc = w.document.scenario
    assert (sc.n_heads, sc.n_kv_heads, sc.causal) == (4, 2, True)
    assert sc.positions[0].kind == "rope" and sc.positions[0].values["pairing"] == "adjacent"
    assert sc.query_tokens == tuple(tokens)
    check_panes(w)
    weights = w.last_trace.array("attention_weights")[0]
    np.testing.assert_allclose(weights, tracer.get("attn.softmax", layer=0).value, rtol=0, atol=1e-12)
    best = np.argsort(p)[::-1][:10]
    text = w.models.panel.next_label.text()
    assert w.models.panel.next_label.isVisible() and text.startswith("Next token (top 10)")
    first = visible(tok.tokens([int(best[0])])[0])  # a newline token reads ↵ (attention.models.token_text)
    assert f"{first!r} {numbers.rounded(100 * p[best[0]])}%" in text  # one precision: attention.datamodel.numbers
    assert [label for label, _ in s.next_text()] == [visible(t) for t in tok.tokens([int(i) for i in best])]


def test_typing_a_prompt_and_clicking_layer_three(opened, qtbot, check_panes):
    w = opened
    panel = w.models.panel
    before = w.document.scenario
    panel.box.setFocus()
    panel.box.selectAll()
    qtbot.keyClicks(panel.box, "The Queen said")
    qtbot.waitUntil(lambda: w.document.scenario is not before and w.models.is_idle(), timeout=20000)
    w.recompute.wait_idle()
    tokens, tracer, p, _ = _theirs("The Queen said")
    assert w.document.scenario.query_tokens == tuple(tokens)
    grid = panel.grid
    qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=grid.cell_rect(2, 1).center())
    w.recompute.wait_idle()
    assert w.models.session.layer == 2
    np.testing.assert_allclose(w.last_trace.array("attention_weights")[0], tracer.get("attn.softmax", layer=2).value,
                               rtol=0, atol=1e-12)
    check_panes(w)
    assert w.view.focus_head() == 1


def test_an_empty_prompt_is_named(opened, qtbot):
    w = opened
    before = w.document.scenario
    w.models.panel.set_sentences_text("   ")
    w.models.panel.commit_sentences()
    assert "prompt" in w.models.panel.status.text()
    assert w.document.scenario is before


def _rollout_by_hand(tracer, last: int, head):
    """Abnar & Zuidema written out with loops: per layer 0.5·A + 0.5·I, later layers on the left."""
    R = None
    for k in range(last + 1):
        w = tracer.get("attn.softmax", layer=k).value  # (H, L, L)
        A = w.mean(axis=0) if head is None else w[head]
        n = A.shape[0]
        mixed = [[0.5 * A[i, j] + (0.5 if i == j else 0.0) for j in range(n)] for i in range(n)]
        if R is None:
            R = mixed
        else:
            R = [[sum(mixed[i][m] * R[m][j] for m in range(n)) for j in range(n)] for i in range(n)]
    return np.array(R)


def test_rollout_heatmap_hover_and_explain(opened, qtbot):
    w = opened
    panel = w.models.panel
    s = w.models.session
    tokens, tracer, _, _ = _theirs(s.sentences[0])
    panel.layer_box.activated.emit(3)  # Layer 4
    w.recompute.wait_idle()
    panel.show_box.setCurrentIndex(1)
    panel.show_box.activated.emit(1)  # Show: Rollout
    assert panel.rollout.isVisible() and not panel.grid.isVisible()
    want = _rollout_by_hand(tracer, 3, None)
    from app.viewmodel import rollout_view
    np.testing.assert_allclose(rollout_view.heatmap(s), want, rtol=0, atol=1e-12)
    i, j = len(tokens) - 1, 0
    grid = panel.rollout
    qtbot.waitUntil(lambda: grid.cell_size() > 4)
    c = grid.cell_size()
    pos = grid.cell_rect(0, 0).topLeft() + QPoint(int((j + 0.5) * c / len(tokens)), int((i + 0.5) * c / len(tokens)))
    # the offscreen test screen is narrower than the window with the dock: hand the heatmap Qt's move event
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    QApplication.sendEvent(grid, QMouseEvent(QMouseEvent.Type.MouseMove, QPointF(pos), QPointF(grid.mapToGlobal(pos)),
                                             Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                                             Qt.KeyboardModifier.NoModifier))
    qtbot.waitUntil(lambda: panel.hover.text() != "")
    assert panel.hover.text().endswith(f"  {numbers.rounded(want[i, j])}") and tokens[i] in panel.hover.text()
    qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=pos)
    text = panel.rollout_explain.text()
    assert panel.rollout_explain.isVisible()
    assert f"R4[{i + 1}, {j + 1}]" in text and f"= {numbers.rounded(want[i, j])}" in text
    assert "averaged over the heads" in text
    prev = _rollout_by_hand(tracer, 2, None)
    A = tracer.get("attn.softmax", layer=3).value.mean(axis=0)
    m = max(range(len(tokens)), key=lambda m: (0.5 * A[i, m] + (0.5 if m == i else 0)) * prev[m, j])
    assert f"[{i + 1}, {m + 1}]" in text.splitlines()[3]  # the largest term first
    a = 0.5 * A[i, m] + (0.5 if m == i else 0)
    term = f"= {numbers.rounded(a)} × {numbers.rounded(prev[m, j])} = {numbers.rounded(a * prev[m, j])}"
    assert text.splitlines()[3].endswith(term)
    panel.head_box.activated.emit(2)  # Head 2
    np.testing.assert_allclose(rollout_view.heatmap(s), _rollout_by_hand(tracer, 3, 1), rtol=0, atol=1e-12)
    assert not panel.rollout_explain.isVisible()  # the explain of the old heatmap is gone


def test_next_token_with_the_visible_kv_cache(opened, qtbot, check_panes):
    w = opened
    panel = w.models.panel
    s = w.models.session
    prompt = s.sentences[0]
    _, tracer, p, tok = _theirs(prompt)
    ids = list(tok.encode(prompt))
    assert panel.cache.isVisible() and panel.cache.next_button.text() == "Next token"
    panel.head_box.activated.emit(3)  # Head 3 (reads key/value head 2)
    panel.layer_box.activated.emit(1)  # Layer 2
    w.recompute.wait_idle()
    qtbot.mouseClick(panel.cache.next_button, Qt.MouseButton.LeftButton)
    w.recompute.wait_idle()
    best = int(np.argmax(p))
    assert list(s.run.ids) == ids + [best]
    assert panel.box.toPlainText() == tok.decode(ids + [best])
    _, full, _, _ = _theirs(tok.decode(ids + [best]))
    n = len(ids) + 1
    # the new query's row: glassllm's own full forward, last row, layer 2, head 3
    np.testing.assert_allclose(panel.cache.row.values[0], full.get("attn.softmax", layer=1).value[2, -1],
                               rtol=0, atol=1e-12)
    # cached K of key/value head 2: the layer's key projection of its normed inputs (before RoPE), by hand
    h = full.get("norm.attn", layer=1).value  # (n, d)
    Wk = s.model.tensors["blocks.1.attn.W_K"].numpy()  # (out, in)
    np.testing.assert_allclose(panel.cache.keys.values, (h @ Wk.T)[:, 32:64], rtol=0, atol=1e-12)
    assert panel.cache.keys.values.shape == (n, 32)
    # hover on the cached K's cell (row 2, column 3): the by-hand value in attention.datamodel.numbers' 4 digits
    keys = panel.cache.keys
    at = QPointF((2 + 0.5) * keys.width() / 32, (1 + 0.5) * keys.height() / n)
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    QApplication.sendEvent(keys, QMouseEvent(QMouseEvent.Type.MouseMove, at, keys.mapToGlobal(at),
                                             Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                                             Qt.KeyboardModifier.NoModifier))
    assert keys.toolTip() == f"[{keys.row_labels[1]}, 3] = {numbers.rounded((h @ Wk.T)[1, 32 + 2])}"
    assert "largest difference" in panel.cache.check.text()
    assert panel.minimumSizeHint().width() <= 240  # the cache panes do not widen the dock (main: 208 px)
    diff = panel.cache.check.text().split("difference ")[1].split()[0]
    assert float(diff) <= 1e-6
    assert re.fullmatch(r"0|\d(\.\d{1,3})?e-[1-9]\d*|0\.\d+", diff), diff  # numbers.rounded's spelling, not "1.00e-07"
    assert w.document.scenario.query_tokens[-1] == visible(tok.tokens([best])[0])
    check_panes(w)
    qtbot.keyClick(w.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo the token
    w.recompute.wait_idle()
    assert list(s.run.ids) == ids and panel.box.toPlainText() == prompt
    assert not panel.cache.row.isVisible()  # the cache panes belonged to the longer text


def test_seeded_sampling_from_the_dock_repeats(opened, qtbot):
    w = opened
    panel = w.models.panel
    s = w.models.session
    start = list(s.run.ids)
    panel.cache.mode.setCurrentIndex(1)
    assert panel.cache.seed.isEnabled()
    panel.cache.seed.setValue(11)
    qtbot.mouseClick(panel.cache.next_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.cache.next_button, Qt.MouseButton.LeftButton)
    first = list(s.run.ids)
    w.undo_action.trigger()
    w.undo_action.trigger()
    assert list(s.run.ids) == start
    qtbot.mouseClick(panel.cache.next_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.cache.next_button, Qt.MouseButton.LeftButton)
    assert list(s.run.ids) == first


def test_chinese(opened, qtbot):
    w = opened
    panel = w.models.panel
    qtbot.mouseClick(panel.cache.next_button, Qt.MouseButton.LeftButton)
    w.set_language("zh")
    try:
        assert w.models.glassllm_action.text() == "glassllm（内置）"
        assert panel.cache.next_button.text() == "下一个词元"
        assert panel.box_label.text().startswith("提示词")
        assert panel.next_label.text().startswith("下一个词元（前 10 个）")
        assert panel.cache.check.text().startswith("缓存解码与完整重算相比")
        assert "RoPE 底数 10000" in w.document.scenario.notes["zh"]
        panel.show_box.setCurrentIndex(1)
        panel.show_box.activated.emit(1)
        panel.explain_rollout(2, 0)
        assert panel.rollout_explain.text().startswith("注意力展开")
        assert panel.show_box.itemText(1) == "注意力展开（Abnar 与 Zuidema）"
    finally:
        w.set_language("en")
