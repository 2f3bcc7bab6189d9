"""Issue 17 item 2 for a single causal layer: View ▸ KV cache of this layer, used as a person does it on preset 06
and on a layer brought in with File ▸ Import layer… (a Time-Series-Library decoder's causal self-attention).
Its next token is its next input row: Next token reads one more row through the cache, the panes show the cached K
and V and the new query's weight row, and the check against the full recomputation is shown.

Numbers come from a float64 causal attention written here (preset 06: no projections) and from the imported
module's own forward on the rows read so far (tests/models/import_modules.py's TSL Transformer)."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch
from PySide6.QtCore import Qt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from import_modules import GPT2LMHead  # noqa: E402

PRESETS = Path(__file__).parents[2] / "resources" / "scenarios"


def _shown(w, qtbot):
    w.show()
    qtbot.waitExposed(w)
    return w


def _open_dock(w):
    action = w.models.layer_cache.action
    assert action in w.view_menu.actions() and action.text() == "KV cache of this layer"
    action.trigger()
    dock = w.models.layer_cache.dock
    assert dock.isVisible()
    return dock


def _next(qtbot, dock) -> None:
    qtbot.mouseClick(dock.cache.next_button, Qt.MouseButton.LeftButton)


def _causal_reference(x: np.ndarray, heads: int) -> np.ndarray:
    """Float64 causal self-attention weights (H, L, L) of x (L, d), no projections, scale 1/sqrt(E)."""
    L, d = x.shape
    E = d // heads
    w = np.zeros((heads, L, L))
    for h in range(heads):
        q = x[:, h * E:(h + 1) * E]
        for i in range(L):
            s = np.array([q[i] @ q[j] / np.sqrt(E) for j in range(i + 1)])
            e = np.exp(s - s.max())
            w[h, i, :i + 1] = e / e.sum()
    return w


def test_preset_06_reads_row_by_row_through_the_cache(window, qtbot):
    w = _shown(window, qtbot)
    w.open_preset(PRESETS / "06_causal_self_attention.json", {"en": "06", "zh": "06"})
    w.recompute.wait_idle()
    dock = _open_dock(w)
    sc = w.document.scenario
    L = sc.L
    ref = _causal_reference(sc.queries[0], sc.n_heads)
    assert dock.state.text().startswith(f"Rows 1–1 of {L} are in the cache; Next token reads row 2")
    assert dock.cache.next_button.isEnabled() and not dock.cache.mode.isVisible()
    assert dock.cache.row_label.text().startswith("Press Next token")
    w.view.set_focus_head(1)  # head 2 (its own key/value head: no grouping)
    for k in range(1, L):
        _next(qtbot, dock)
        E = sc.d_model // sc.n_heads
        np.testing.assert_allclose(dock.cache.keys.values, sc.keys[0, :k + 1, E:2 * E], rtol=0, atol=1e-12)
        np.testing.assert_allclose(dock.cache.row.values[0], ref[1, k, :k + 1], rtol=0, atol=1e-12)
        assert dock.cache.row_label.text().startswith(f"New query '{sc.query_tokens[k]}' (position {k + 1})")
        check = dock.cache.check.text()
        assert check.startswith("Cached decoding vs full recomputation: largest difference ")
        assert float(check.split("difference ")[1].split()[0]) <= 1e-6
    assert dock.state.text() == f"All {L} rows have been read through the cache; an edit starts again from row 1."
    assert not dock.cache.next_button.isEnabled()
    w.set_language("zh")
    try:
        assert dock.state.text() == f"全部 {L} 行都已经经缓存读取；任何编辑都会从第 1 行重新开始。"
        assert w.models.layer_cache.action.text() == "本层的 KV 缓存"
    finally:
        w.set_language("en")
    # an edit starts again from row 1
    w.document.replace(dataclasses.replace(sc, queries=sc.queries * 1.5), "scale the queries")
    w.recompute.wait_idle()
    assert dock.state.text().startswith(f"Rows 1–1 of {L}") and dock.cache.next_button.isEnabled()


def test_a_layer_without_a_causal_mask_says_why_not(window, qtbot):
    w = _shown(window, qtbot)
    w.open_preset(next(PRESETS.glob("01_*.json")), {"en": "01", "zh": "01"})
    w.recompute.wait_idle()
    dock = _open_dock(w)
    assert dock.state.text().startswith("Next token through a KV cache needs a causal layer")
    assert not dock.cache.next_button.isEnabled() and dock.cache.keys.isHidden()
    w.set_language("zh")
    try:
        assert dock.state.text().startswith("经 KV 缓存生成下一个词元需要因果层")
    finally:
        w.set_language("en")


def test_an_imported_gpt2_layer_reads_its_next_row_through_the_cache(window, qtbot, tmp_path):
    torch.manual_seed(0)
    model = GPT2LMHead(E=8, heads=2, layers=1).eval()
    path = tmp_path / "gpt2.pt"
    torch.save(model.state_dict(), path)
    w = _shown(window, qtbot)
    w.import_layer.ask_path = lambda: str(path)
    w.import_layer.action.trigger()
    dialog = w.import_layer.dialog
    tree = dialog.tree
    row = next(i for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).text(0) == "transformer.h.0.attn")
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton,
                     pos=tree.visualItemRect(tree.topLevelItem(row)).center())
    dialog.heads.setFocus()
    qtbot.keyClicks(dialog.heads, "2")
    dialog.tokens.selectAll()
    qtbot.keyClicks(dialog.tokens, "5")
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    w.recompute.wait_idle()
    sc = w.document.scenario
    assert sc.causal and sc.L == 5 and sc.n_heads == 2
    dock = _open_dock(w)
    x = torch.as_tensor(sc.queries, dtype=torch.float32)
    attn = model.transformer.h[0].attn
    E = 8
    for k in range(1, 5):
        _next(qtbot, dock)
        with torch.no_grad():  # the module itself on rows 0 .. k: row k is what the cached step must give
            want_out, want_w = attn(x[:, :k + 1])
            want_k = x[0, :k + 1] @ attn.c_attn.weight[:, E:2 * E] + attn.c_attn.bias[E:2 * E]
        np.testing.assert_allclose(dock.cache.row.values[0], want_w[0, 0, k].numpy(), rtol=0, atol=1e-5)
        np.testing.assert_allclose(dock.cache.keys.values, want_k[:, :E // 2].numpy(), rtol=0, atol=1e-5)
        np.testing.assert_allclose(w.models.layer_cache.cache.output[0, 0], want_out[0, k].numpy(), rtol=0,
                                   atol=1e-5)
        assert float(dock.cache.check.text().split("difference ")[1].split()[0]) <= 1e-6
    assert not dock.cache.next_button.isEnabled()
