"""Presets 43/44 in the real window, as their notes say to use them: open 44 (the paper's full cross-attention),
pin it, open 43 (Time-Series-Library's ProbSparse) and show the difference: the picked rows of the weights show
0 and the lazy rows 1/24 minus the full weights (the pinned trace survives opening another preset)."""
from __future__ import annotations

import numpy as np

import attention
import resources

PRESETS = {p.name: (p, t) for p, t in resources.list_presets()}


def _open(window, name: str) -> None:
    assert window.open_preset(*PRESETS[name])
    window.recompute.recompute_now()
    window.recompute.wait_idle()


def test_pin_full_open_probsparse_and_the_difference_is_the_lazy_rows(window):
    compare = window.cell_tools.compare
    _open(window, "44_informer_cross_attention_full_paper.json")
    full = attention.run(window.document.scenario)
    assert compare.pin()
    _open(window, "43_informer_cross_attention_probsparse_vs_full.json")
    prob = attention.run(window.document.scenario)
    compare.diff_action.trigger()  # View ▸ Show difference to pinned
    pane = window.view.pane("attention_weights")
    assert pane.notice_text() is None
    selected = prob.array("extra.selected")[0]  # (H, L)
    full_w = full.array("attention_weights")[0]  # (H, L, S)
    for h in range(2):
        got = pane.data.block[h]
        assert np.abs(got[selected[h]]).max() < 1e-12  # picked rows: full attention, no difference
        np.testing.assert_allclose(got[~selected[h]], 1 / 24 - full_w[h][~selected[h]], atol=1e-12)
    assert np.abs(pane.data.block).max() > 0.05
