"""Editing a weight of a decoder layer in the window: the model's weights are shared read-only arrays
(attention.models.decoder.KeptWeights), so the edit writes a new array and the model's stays as it was.
The edited layer's weights are checked against glassllm's own NumPy forward with the same weight changed."""
from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from app.viewmodel.matrix_ref import MatrixRef

glassllm = pytest.importorskip("glassllm")

pytestmark = pytest.mark.gui


def _their_layer0(prompt: str, row: int, col: int, value: float) -> np.ndarray:
    """glassllm's layer-0 attention weights (H, L, L) with W_Q (in, out) at [col, row] set to `value`."""
    with resources.as_file(resources.files("glassllm") / "weights" / "en.npz") as path:
        net = glassllm.GlassLM.load(path, dtype=np.float64)
    _, tok = glassllm.load_pretrained("en")
    net.blocks[0].attn.W_Q.data[col, row] = value  # nn.Linear (out, in)[row, col] is glassllm's (in, out)[col, row]
    tracer = glassllm.Tracer()
    net.forward(list(tok.encode(prompt)), trace=tracer)
    return tracer.get("attn.softmax", layer=0).value


def test_editing_a_query_weight_makes_a_new_array_and_leaves_the_model(window, qtbot, check_panes):
    window.show()
    qtbot.waitExposed(window)
    window.models.glassllm_action.trigger()
    window.recompute.wait_idle()
    s = window.models.session
    kept = s.model.attention_weights(0)["query"]
    before = kept.copy()
    sc = window.document.scenario
    assert sc.projections["query"].weight is kept and not kept.flags.writeable
    value = float(kept[1, 2]) + 0.75
    window.document.set_cell(MatrixRef("projections.query.weight"), 1, 2, value)
    window.recompute.wait_idle()
    edited = window.document.scenario.projections["query"].weight
    assert edited is not kept and edited[1, 2] == value
    np.testing.assert_array_equal(kept, before)  # the model's array is untouched ...
    assert s.model.attention_weights(0)["query"] is kept  # ... and still the one its scenarios share
    theirs = _their_layer0(s.sentences[0], 1, 2, value)
    np.testing.assert_allclose(window.last_trace.array("attention_weights")[0], theirs, rtol=0, atol=1e-12)
    check_panes(window)
    window.document.undo_stack.undo()
    window.recompute.wait_idle()
    assert window.document.scenario.projections["query"].weight[1, 2] == before[1, 2]
