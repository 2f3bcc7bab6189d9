"""app.viewmodel.edits (no Qt): resizing keeps what fits and keeps the scenario runnable."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import resources
from app.editing.problems import control_key
from app.viewmodel import edits
from app.viewmodel.matrix_ref import set_array
from attention import Scenario, problems
from attention.files import scenario_io


@pytest.fixture(scope="module")
def toy() -> Scenario:
    return scenario_io.load(resources.list_presets()[0][0])


@pytest.mark.slow
@settings(max_examples=40)
@given(B=st.integers(1, 3), L=st.integers(2, 7), S=st.integers(2, 7), d=st.integers(1, 8), H=st.integers(1, 8),
       dk=st.sampled_from([None, 1, 3]), scoring=st.sampled_from(["scaled_dot", "dot", "additive", "prob_sparse"]))
def test_parameter_changes_keep_a_runnable_scenario(toy, B, L, S, d, H, dk, scoring):
    sc = edits.with_sizes(toy, batch=B, L=L, S=S, d_model=d, key_width=d, value_width=d)
    sc = edits.with_fields(sc, n_heads=H, d_keys=dk, d_values=dk)
    sc = edits.with_scoring(sc, scoring)
    lines = problems(sc)
    if dk is None and d % H:
        assert [control_key(x) for x in lines] == ["n_heads"]
    else:
        assert lines == []
    assert np.array_equal(sc.queries[:1, :min(L, 4), :min(d, 4)], toy.queries[:1, :min(L, 4), :min(d, 4)])


def test_resize_pads_with_zeros_and_keeps_values():
    a = np.arange(6.0).reshape(2, 3)
    assert edits.resize(a, (3, 2)).tolist() == [[0, 1], [3, 4], [0, 0]]
    assert edits.resize(a, (2, 3)) is a


def test_heads_that_do_not_divide_leave_weights_alone(toy):
    sc = edits.with_fields(toy, n_heads=3)
    assert sc.projection("query").weight is toy.projection("query").weight
    back = edits.with_fields(sc, n_heads=2)
    assert problems(back) == []


def test_free_output_width_survives(toy):
    out = toy.projection("out")
    sc = set_array(toy, "projections.out.weight", np.ones((6, 4)))
    sc = set_array(sc, "projections.out.bias", np.zeros(6))
    grown = edits.with_sizes(sc, d_model=8, key_width=8, value_width=8)
    assert grown.projection("out").weight.shape == (6, 8)  # rows chosen by the user stay
    assert out.weight.shape == (4, 4)
    plain = edits.with_sizes(toy, d_model=8, key_width=8, value_width=8)
    assert plain.projection("out").weight.shape == (8, 8)  # rows that were d_model follow it
    assert problems(plain) == []


def test_valid_length_modes(toy):
    sc = edits.with_valid_mode(toy, "batch")
    assert sc.valid_lens.tolist() == [4.0]
    sc = edits.with_valid_mode(sc, "row")
    assert sc.valid_lens.tolist() == [[4.0] * 4]
    sc = edits.with_sizes(sc, batch=2, L=5)
    assert sc.valid_lens.shape == (2, 5) and sc.valid_lens[1].tolist() == [4.0] * 5
    assert edits.with_valid_mode(sc, "none").valid_lens is None


def test_switching_a_projection_on_gives_an_identity_like_weight(toy):
    sc = edits.with_projection(toy, "query", False)
    assert sc.projection("query") is None
    sc = edits.with_fields(sc, d_keys=3)
    sc = edits.with_projection(sc, "query", True)
    assert np.array_equal(sc.projection("query").weight, np.eye(6, 4))
    lin = edits.with_projection(edits.with_projection(toy, "key", False), "key", True, init="linear", seed=3)
    w = lin.projection("key").weight
    assert np.all(np.abs(w) <= 0.5) and len(np.unique(w)) == w.size  # uniform(-1/sqrt(4), 1/sqrt(4))


def test_control_keys():
    assert control_key("n_heads: 3 heads do not divide") == "n_heads"
    assert control_key("valid_lens[1]: expected a length") == "valid_lens"
    assert control_key("projections.query.weight: expected shape [4, 4], got [4, 3]") == "projections.query"
    assert control_key("additive.W_q: expected shape") == "additive"
    assert control_key("key_tokens: expected 4 labels") == "keys"
    assert control_key("no field here") == ""


def test_fresh_scenario_runs():
    sc = edits.fresh_scenario()
    assert problems(sc) == [] and (sc.L, sc.S, sc.d_model, sc.n_heads) == (3, 3, 4, 2)
    assert sc.projections == {}


def test_new_token_labels_continue_the_pattern(toy):
    assert toy.query_tokens == ("t1", "t2", "t3", "t4")
    sc = edits.with_sizes(toy, L=6, S=2)
    assert sc.query_tokens == ("t1", "t2", "t3", "t4", "t5", "t6") and sc.key_tokens == ("t1", "t2")
    words = edits.conform(dataclasses.replace(toy, query_tokens=("I", "love", "cats", "!"),
                                              queries=np.zeros((1, 5, 4))), toy)
    assert words.query_tokens == ("I", "love", "cats", "!", "q4")
