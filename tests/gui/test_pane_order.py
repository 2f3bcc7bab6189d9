"""Defect 14: the Steps region and the slides show the steps in one order, the pipeline's.

The expected orders are written out here by hand (what Informer and d2l compute first), not taken
from attention/registry/step_registry.py; the registry's ORDER is checked against them too."""
from __future__ import annotations

import pytest

from app.panes.steps_view import StepsView
from app.viewmodel import lessons
from attention import run
from attention.files import scenario_io
from attention.registry import step_registry
from resources import scenarios_dir

pytestmark = pytest.mark.gui

MAIN = ["projection.query", "projection.key", "projection.value", "head_split.query", "head_split.key",
        "head_split.value", "scores", "masked_scores", "attention_weights", "weighted_sum", "concat", "output"]


def _with(before: str, extras: list[str], base: list[str] = MAIN) -> list[str]:
    i = base.index(before)
    return base[:i] + extras + base[i:]


MASKED = _with("weighted_sum", ["extra.fully_masked"], _with("masked_scores", ["extra.mask"]))
PROB_SPARSE = _with("scores", ["extra.sample_index", "extra.sample_count", "extra.sampled_scores", "extra.sparsity",
                               "extra.top_index", "extra.selected"])
#: additive scoring: the hidden features tanh(W_q q + W_k k) come before the scores they sum into
ADDITIVE = _with("scores", ["extra.additive_features"], MASKED)

#: one preset of each kind: scoring function, with and without a mask
KINDS = {
    "01_tsl_toy.json": MAIN,                        # scaled dot, no mask
    "03b_d2l_masked_softmax_2d.json": MASKED,       # dot, 2-D valid lengths
    "04_d2l_additive.json": ADDITIVE,               # additive, valid lengths
    "06_causal_self_attention.json": MASKED,        # scaled dot, causal
    "07_informer_probsparse.json": PROB_SPARSE,     # ProbSparse: sampling and selection before the scores
}


#: the score modifiers: ALiBi's bias and biased scores, then the cap, after the scores and before the mask;
#: the sink's mass after the weights it was computed with
MODIFIED = ["alibi.bias", "alibi.scores", "softcap.scores"]


def test_the_registry_order_is_the_pipeline_order():
    tsl_scores = ["extra.destationary", "extra.correlation", "extra.mean_correlation", "extra.top_lags",
                  "extra.lag_weights"]  # DSAttention's, then Auto-Correlation's, before the scores
    encoder = ["extra.residual_attention", "extra.norm_first", "extra.ffn_hidden", "extra.ffn_out",
               "extra.residual_ffn", "extra.norm_second",  # TSL's EncoderLayer, after the output
               "extra.distil_conv", "extra.distil_norm", "extra.distil_elu",  # then Informer's distilling
               "extra.distil_pool",  # ConvLayer
               "extra.tsa_time_norm", "extra.tsa_time_mlp_hidden", "extra.tsa_time_mlp", "extra.tsa_dim_in",
               "extra.tsa_router_scores", "extra.tsa_router_weights", "extra.tsa_buffer",  # Crossformer's two
               "extra.tsa_receive_scores", "extra.tsa_receive_weights", "extra.tsa_receive",  # stages
               "extra.tsa_dim_norm", "extra.tsa_dim_mlp_hidden", "extra.tsa_dim_mlp", "extra.tsa_output"]
    assert list(step_registry.ORDER) == _with(
        "weighted_sum", ["extra.fully_masked", "extra.rolled_values", "sinks.mass"], _with(
            "masked_scores", MODIFIED + ["extra.mask"], _with("scores", tsl_scores, _with(
                "extra.sample_index", ["extra.additive_features"], _with(
                    "extra.sample_index", ["qk_norm.query", "rope.query", "qk_norm.key", "rope.key"],
                    PROB_SPARSE))))) + encoder
    assert step_registry.in_order(["output", "extra.mask", "scores", "no.such.step"]) == [
        "scores", "extra.mask", "output", "no.such.step"]


@pytest.mark.parametrize("name", list(KINDS))
def test_steps_region_draws_panes_in_pipeline_order_like_the_slides(qtbot, name):
    sc = scenario_io.load(scenarios_dir() / name)
    trace = run(sc)
    view = StepsView()
    qtbot.addWidget(view)
    view.resize(1400, 900)
    view.show()
    view.show_trace(trace, sc)
    assert view.pane_ids() == KINDS[name]
    assert view.pane_ids() == step_registry.in_order(trace.ids)
    # the order a person sees: the panes' places in the list's layout, top to bottom
    laid = [view._list.itemAt(i).widget().step_id for i in range(view._list.count())]
    assert laid == KINDS[name]
    # the slides show a subset of the steps, in the same order
    slides = lessons.lesson_ids(trace)
    assert slides == [sid for sid in view.pane_ids() if sid in slides]
    assert "output" == slides[-1] == view.pane_ids()[-1]
