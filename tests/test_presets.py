"""The bundled presets: each loads, runs, is bilingual, and shows what its notes promise."""
from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from attention import run
from attention.files import scenario_io
from resources import list_presets, scenarios_dir, schema_path

PRESETS = {p.name: p for p, _ in list_presets()}


def _trace(name: str):
    sc = scenario_io.load(PRESETS[name])
    return sc, run(sc)


def test_presets_are_listed_in_teaching_order():
    names = list(PRESETS)
    assert names == sorted(names) and names[0] == "01_tsl_toy.json" and len(names) >= 8
    assert all(p.parent == scenarios_dir() for p in PRESETS.values())
    assert schema_path().is_file()


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_loads_runs_and_is_bilingual(name):
    sc, trace = _trace(name)
    assert trace.ids[:12] == ("projection.query", "projection.key", "projection.value", "head_split.query",
                              "head_split.key", "head_split.value", "scores", "masked_scores",
                              "attention_weights", "weighted_sum", "concat", "output")
    assert np.isfinite(trace.array("output")).all()
    weights = trace.array("attention_weights")
    sink = trace.array("sinks.mass") if "sinks.mass" in trace else 0.0  # a sink takes part of each row
    np.testing.assert_allclose(weights.sum(-1) + sink, 1.0, atol=1e-12)
    for field in (sc.title, sc.notes):
        assert field["en"].strip() and field["zh"].strip()
        assert re.search(r"[\u4e00-\u9fff]", field["zh"])  # really Chinese
    en = len(re.findall(r"[.!?](?:\s|$)", sc.notes["en"]))
    zh = len(re.findall(r"[。！？]", sc.notes["zh"]))
    assert 2 <= en <= 5 and 2 <= zh <= 5, (en, zh)
    assert trace.warnings == ()


def test_toy_projection_and_head_split_match_the_seed():
    sc, trace = _trace("01_tsl_toy.json")
    assert (sc.batch, sc.L, sc.S, sc.d_model, sc.n_heads, sc.dk, sc.dv) == (1, 4, 4, 4, 2, 2, 2)
    assert sc.dtype == "float64" and sc.scoring == "scaled_dot"
    for name in ("query", "key", "value", "out"):
        assert np.array_equal(sc.projection(name).weight, np.eye(4))
        assert np.array_equal(sc.projection(name).bias, np.zeros(4))
    assert trace.array("projection.query")[0, 0].tolist() == [1, 0, 2, 1]  # q1 = q1_in * Wq
    assert trace.array("head_split.query")[0, 0].tolist() == [[1, 0], [2, 1]]  # head1, head2


def test_toy_matches_torch_multihead_attention():
    """Independent reference: nn.MultiheadAttention with the toy's identity weights."""
    sc, trace = _trace("01_tsl_toy.json")
    mha = torch.nn.MultiheadAttention(4, 2, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.eye(4).repeat(3, 1))
        mha.in_proj_bias.zero_()
        mha.out_proj.weight.copy_(torch.eye(4))
        mha.out_proj.bias.zero_()
        q, v = torch.as_tensor(sc.queries), torch.as_tensor(sc.values)
        out, w = mha(q, q, v, average_attn_weights=False)
    np.testing.assert_allclose(trace.array("output"), out.numpy(), atol=1e-12)
    np.testing.assert_allclose(trace.array("attention_weights"), w.numpy(), atol=1e-12)


def test_real_config_has_eight_heads_of_width_four():
    sc, trace = _trace("02_tsl_real_config.json")
    assert (sc.d_model, sc.n_heads, sc.dk, sc.dv) == (32, 8, 4, 4)
    assert trace["head_split.query"].shape == (1, sc.L, 8, 4)
    assert sc.query_tokens is not None and len(sc.query_tokens) == sc.L
    assert np.array_equal(sc.queries, sc.keys) and np.array_equal(sc.keys, sc.values)  # self-attention


def _nonzeros(weights: np.ndarray) -> list:
    return (weights[:, 0] != 0).sum(-1).tolist()  # (B, L) for head 0


def test_masked_softmax_1d_keeps_two_then_three_keys():
    sc, trace = _trace("03_d2l_masked_softmax.json")
    scores = trace.array("scores")[:, 0]
    np.testing.assert_array_equal(scores, sc.keys.transpose(0, 2, 1))  # the scores ARE the (2, 2, 4) X
    assert scores.shape == (2, 2, 4) and (scores >= 0).all() and (scores < 1).all()  # like torch.rand
    weights = trace.array("attention_weights")
    assert _nonzeros(weights) == [[2, 2], [3, 3]]
    np.testing.assert_array_equal(trace.array("output"), weights[:, 0])  # identity values


def test_masked_softmax_2d_pattern_and_one_hot_row():
    sc, trace = _trace("03b_d2l_masked_softmax_2d.json")
    weights = trace.array("attention_weights")
    assert _nonzeros(weights) == sc.valid_lens.tolist() == [[1, 3], [2, 4]]
    assert weights[0, 0, 0].tolist() == [1.0, 0.0, 0.0, 0.0]
    # Independent: the same scores through a plain masked softmax in numpy.
    scores = sc.keys.transpose(0, 2, 1)
    masked = np.where(np.arange(4)[None, None, :] < sc.valid_lens[:, :, None], scores, -1e6)
    expected = np.exp(masked - masked.max(-1, keepdims=True))
    np.testing.assert_allclose(weights[:, 0], expected / expected.sum(-1, keepdims=True), atol=1e-15)


def test_d2l_additive_output_is_the_mean_of_the_valid_values():
    sc, trace = _trace("04_d2l_additive.json")
    assert (sc.queries.shape, sc.keys.shape, sc.values.shape) == ((2, 1, 20), (2, 10, 2), (2, 10, 4))
    assert sc.additive.hidden == 8 and sc.valid_lens.tolist() == [2, 6]
    out = torch.as_tensor(trace.array("output"))
    torch.testing.assert_close(out, torch.tensor([[[2.0, 3, 4, 5]], [[10.0, 11, 12, 13]]], dtype=torch.float64))
    values = np.arange(40.0).reshape(10, 4)
    np.testing.assert_allclose(trace.array("output")[:, 0], [values[:2].mean(0), values[:6].mean(0)], atol=1e-12)


def test_translation_alignment_is_mostly_diagonal():
    sc, trace = _trace("05_translation_cross_attention.json")
    assert sc.query_tokens == ("我", "喜欢", "机器", "学习")
    assert sc.key_tokens == ("I", "love", "machine", "learning")
    w = trace.array("attention_weights")[0, 0]
    assert w.argmax(-1).tolist() == [0, 1, 2, 3]
    assert (np.diag(w) > 0.6).all()


def test_causal_preset_hides_the_future():
    sc, trace = _trace("06_causal_self_attention.json")
    assert sc.causal and sc.query_tokens == sc.key_tokens and 5 <= sc.L <= 6
    w = trace.array("attention_weights")
    assert (w[..., np.triu_indices(sc.L, 1)[0], np.triu_indices(sc.L, 1)[1]] == 0).all()
    assert (w[0, :, 0, 0] == 1).all()
    np.testing.assert_allclose(trace.array("output")[0, 0], sc.values[0, 0])


def test_prob_sparse_preset_selects_fewer_queries_than_it_has():
    sc, trace = _trace("07_informer_probsparse.json")
    n_sample, n_top = sc.prob_sparse_sizes()
    assert sc.scoring == "prob_sparse" and sc.n_heads == 2 and 8 <= sc.d_model <= 16 and 24 <= sc.L <= 32
    assert n_top < sc.L
    selected = trace.array("extra.selected")
    assert (selected.sum(-1) == n_top).all()
    lazy_rows = np.isnan(trace.array("scores")).all(-1)
    assert np.array_equal(lazy_rows, ~selected)
    np.testing.assert_allclose(trace.array("attention_weights")[~selected], 1.0 / sc.S)


def test_hand_calculation_preset_works_out_on_paper():
    """08: whole-number scores and weights from e^0, e, e² only (worked by hand below)."""
    sc, trace = _trace("08_hand_calculation.json")
    assert (sc.batch, sc.L, sc.S, sc.d_model, sc.n_heads, sc.dk, sc.dv) == (1, 3, 3, 4, 2, 2, 2)
    scores = trace.array("scores")[0]
    assert scores.tolist() == [[[2, 0, 2], [0, 2, 2], [2, 2, 4]], [[1, 1, 1], [1, 1, 1], [1, 1, 2]]]
    e = np.e
    w = trace.array("attention_weights")[0]
    np.testing.assert_allclose(w[0, 0], np.array([e**2, 1, e**2]) / (2 * e**2 + 1), atol=1e-12)
    np.testing.assert_allclose(w[0, 2], np.array([1, 1, e**2]) / (2 + e**2), atol=1e-12)
    np.testing.assert_allclose(w[1, :2], 1 / 3, atol=1e-15)
    np.testing.assert_allclose(w[1, 2], np.array([1, 1, e]) / (2 + e), atol=1e-12)
    out = trace.array("output")[0]
    np.testing.assert_allclose(out[:2, 2:], 2.0, atol=1e-12)  # the mean of head 2's values
    a = w[0, 0]  # head 1 of row 1: v rows [1, 0], [0, 1], [1, 1]
    np.testing.assert_allclose(out[0, :2], [a[0] + a[2], a[1] + a[2]], atol=1e-12)
