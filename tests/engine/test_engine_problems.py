"""dtype and device handling, and the one-line messages of problems() for what cannot run."""
from __future__ import annotations

import dataclasses
import warnings
from fractions import Fraction

import numpy as np
import pytest
import torch
from engine_helpers import dot_reference, scenario

from attention import Additive, Projection, Scenario, ScenarioError, problems, run

KINDS = ["scaled_dot", "dot", "additive", "prob_sparse"]


def _of_kind(kind: str, rng, **options) -> Scenario:
    sc = scenario(rng, 2, 6, 6, 8, 2, scoring=kind, **options)
    if kind == "additive":
        sc = dataclasses.replace(sc, additive=Additive(3, rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4)),
                                                       rng.normal(size=(2, 3))))
    return sc


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("causal", [False, True])
def test_float32_agrees_with_float64(kind, causal):
    sc = _of_kind(kind, np.random.default_rng(1), causal=causal)
    a, b = run(sc, dtype="float64"), run(sc, dtype="float32")
    assert b["output"].tensor.dtype == torch.float32 and a["output"].tensor.dtype == torch.float64
    assert b.options["dtype"] == "float32"
    for step in ("scores", "attention_weights", "weighted_sum", "output"):
        np.testing.assert_allclose(b.array(step), a.array(step), rtol=1e-4, atol=1e-5, equal_nan=True)


def test_scenario_dtype_float32_is_used():
    sc = dataclasses.replace(_of_kind("scaled_dot", np.random.default_rng(2)), dtype="float32")
    tr = run(sc)
    assert all(s.tensor.dtype in (torch.float32, torch.bool, torch.int64) for s in tr.steps)
    want = dot_reference(sc, tr.options["scale"])["out"]
    np.testing.assert_allclose(tr.array("output"), want, rtol=1e-4, atol=1e-5)


def test_cuda_without_cuda_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    sc = _of_kind("scaled_dot", np.random.default_rng(3))
    for attempt in (lambda: run(dataclasses.replace(sc, device="cuda")), lambda: run(sc, device="cuda")):
        with pytest.raises(ScenarioError) as err:
            attempt()
        assert err.value.lines[0].startswith("device:") and "cuda" in err.value.lines[0].lower()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("kind", KINDS)
def test_cuda_matches_cpu(kind):
    sc = _of_kind(kind, np.random.default_rng(4), causal=True)
    a, b = run(sc, device="cpu"), run(sc, device="cuda")
    assert b["output"].tensor.device.type == "cuda"
    for step in ("attention_weights", "output"):
        np.testing.assert_allclose(b.array(step), a.array(step), rtol=1e-10, atol=1e-12)


def test_trace_owns_its_tensors():
    sc = _of_kind("scaled_dot", np.random.default_rng(5))
    sc = dataclasses.replace(sc, projections={})
    tr = run(sc)
    before = tr.array("projection.query").copy()
    sc.queries[0, 0, 0] += 1.0  # editing the scenario in place must not change a finished trace
    np.testing.assert_array_equal(tr.array("projection.query"), before)
    frozen = sc.queries.copy()
    frozen.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(dataclasses.replace(sc, queries=frozen))  # read-only arrays: no torch warning
    flipped = run(dataclasses.replace(sc, queries=sc.queries[:, ::-1]))  # a view with negative strides
    np.testing.assert_array_equal(flipped.array("projection.query"), sc.queries[:, ::-1])


# ---- problems() ------------------------------------------------------------------------------

def _toy(**options) -> Scenario:
    rng = np.random.default_rng(0)
    return Scenario(rng.normal(size=(2, 4, 4)), rng.normal(size=(2, 4, 4)), rng.normal(size=(2, 4, 4)),
                    **{"n_heads": 2, **options})


def _only_problem(sc: Scenario) -> str:
    errs = problems(sc)
    assert len(errs) == 1, errs
    with pytest.raises(ScenarioError) as err:
        run(sc)
    assert err.value.problems == tuple(errs)
    assert err.value.lines == [p.text("en") for p in errs]
    return errs[0].text("en")


def test_heads_must_divide_d_model_for_the_default_widths():
    line = _only_problem(_toy(n_heads=3))
    assert line.startswith("n_heads:") and "d_model = 4" in line
    assert problems(_toy(n_heads=3, d_keys=2, d_values=2,
                         projections={"query": Projection(np.ones((6, 4))), "key": Projection(np.ones((6, 4))),
                                      "value": Projection(np.ones((6, 4)))})) == []


@pytest.mark.parametrize("lens, start", [
    (np.array([1.0, -1.0]), "valid_lens[1] (batch item 2):"),  # the path from 0, the positions from 1
    (np.array([[1.0, 2.0, 5.0, 0.0], [1.0, 1.0, 1.0, 1.0]]), "valid_lens[0][2] (batch item 1, query 3):"),
    (np.array([1.0, 2.0, 3.0]), "valid_lens:"),
    (np.array([[1.0, 2.0]]), "valid_lens:"),
    (np.array([1.5, 2.0]), "valid_lens:"),
])
def test_bad_valid_lens(lens, start):
    line = _only_problem(_toy(valid_lens=lens))
    assert line.startswith(start)


def test_valid_lens_messages_name_the_bounds():
    assert "between 0 and S = 4, got -1" in _only_problem(_toy(valid_lens=np.array([1.0, -1.0])))
    assert "between 0 and S = 4, got 5" in _only_problem(_toy(valid_lens=np.array([5.0, 1.0])))
    assert "[2] (one length per batch item) or [2, 4]" in _only_problem(_toy(valid_lens=np.ones(3)))


def test_prob_sparse_refuses_valid_lens():
    line = _only_problem(_toy(scoring="prob_sparse", valid_lens=np.array([2.0, 3.0])))
    assert line.startswith("valid_lens:") and "prob_sparse" in line


def test_causal_prob_sparse_needs_L_equal_S():
    rng = np.random.default_rng(1)
    sc = Scenario(rng.normal(size=(1, 4, 4)), rng.normal(size=(1, 6, 4)), rng.normal(size=(1, 6, 4)),
                  n_heads=2, scoring="prob_sparse", causal=True)
    line = _only_problem(sc)
    assert line.startswith("causal:") and "L = 4, S = 6" in line
    assert problems(dataclasses.replace(sc, causal=False)) == []


def test_wrong_projection_shape_exact_text():
    line = _only_problem(_toy(projections={"query": Projection(np.ones((4, 3)))}))
    assert line == "projections.query.weight: expected shape [4, 4], got [4, 3]"


def test_wrong_bias_and_out_shapes():
    assert _only_problem(_toy(projections={"key": Projection(np.ones((4, 4)), np.ones(3))})).startswith(
        "projections.key.bias: expected shape [4]")
    assert _only_problem(_toy(projections={"out": Projection(np.ones((4, 5)))})).startswith(
        "projections.out.weight: expected shape")


def test_memory_estimate_refusal(monkeypatch):
    monkeypatch.setenv("AE_MEMORY_LIMIT", "4096")
    line = _only_problem(_toy())
    assert line.startswith("sizes:") and "GiB" in line
    monkeypatch.setenv("AE_MEMORY_LIMIT", str(1 << 30))
    assert problems(_toy()) == []


@pytest.mark.parametrize("field, value, start", [
    ("scale", float("nan"), "scale:"), ("scale", "big", "scale:"), ("fill_value", float("inf"), "fill_value:"),
    ("dtype", "float16", "dtype:"), ("device", "tpu", "device:"), ("scoring", "cosine", "scoring:"),
    ("mix", True, "mix:"),
])
def test_other_bad_options(field, value, start):
    assert _only_problem(_toy(**{field: value})).startswith(start)


def test_identity_value_projection_needs_matching_d_values():
    """Projections absent (d2l): the values keep their width, so d_values must say it (or divide it)."""
    rng = np.random.default_rng(2)
    sc = Scenario(rng.normal(size=(2, 1, 20)), rng.normal(size=(2, 10, 20)), rng.normal(size=(2, 10, 4)),
                  scoring="dot")
    line = _only_problem(sc)
    assert line.startswith("projections.value:") and "width 4" in line and "d_values to 4" in line
    assert problems(dataclasses.replace(sc, d_values=4)) == []


def test_numpy_scalars_are_numbers():
    assert problems(_toy(scale=np.float32(0.5), fill_value=np.float64(-1e6))) == []


@pytest.mark.parametrize("where, start", [
    ("queries", "queries:"), ("values", "values:"), ("projections.query.weight", "projections.query.weight:"),
    ("projections.out.weight", "projections.out.weight:"), ("projections.out.bias", "projections.out.bias:"),
])
def test_nan_anywhere_is_refused_by_name(where, start):
    rng = np.random.default_rng(3)
    eye = lambda: Projection(rng.normal(size=(4, 4)), rng.normal(size=4))  # noqa: E731
    sc = _toy(projections={"query": eye(), "out": eye()})
    if where in ("queries", "values"):
        arr = getattr(sc, where).copy()
        arr[1, 2, 3] = np.nan
        sc = dataclasses.replace(sc, **{where: arr})
    else:
        name, part = where.split(".")[1:]
        p = sc.projections[name]
        arr = getattr(p, part).copy()
        arr.flat[0] = np.inf
        sc = dataclasses.replace(sc, projections={**sc.projections, name: dataclasses.replace(p, **{part: arr})})
    assert _only_problem(sc).startswith(start)


def test_additive_nan_is_refused():
    sc = _of_kind("additive", np.random.default_rng(4))
    W_q = sc.additive.W_q.copy()
    W_q[1, 0, 0] = np.nan
    sc = dataclasses.replace(sc, additive=dataclasses.replace(sc.additive, W_q=W_q))
    assert _only_problem(sc).startswith("additive.W_q:")


def test_beyond_float32_range_is_refused_not_computed():
    sc = _toy()
    q = sc.queries.copy()
    q[0, 0, 0] = 1e39  # finite in float64, infinity in float32
    sc = dataclasses.replace(sc, queries=q)
    assert problems(sc) == []
    run(sc, dtype="float64")
    with pytest.raises(ScenarioError) as err:
        run(sc, dtype="float32")
    assert err.value.lines[0].startswith("queries:") and "float32" in err.value.lines[0]


def test_huge_but_representable_values_pass_the_scan():
    sc = _toy()
    q = np.full_like(sc.queries, 3e38)  # each fits float32, their sum overflows: checked one by one
    tr = run(dataclasses.replace(sc, queries=q, scoring="dot", scale=0.0), dtype="float32")
    assert np.isfinite(tr.array("projection.query")).all()


# ---- numbers that overflow on the way (issue 13 item 14) -------------------------------------------

def test_overflow_to_infinity_adds_a_warning_naming_the_first_step():
    """Finite float32 inputs whose dot products exceed float32's range: the trace runs, and its
    warnings say where the numbers first overflowed (computed here: 1e20 * 1e20 * 4 > 3.4e38)."""
    big = np.full((1, 2, 4), 1e20)
    sc = Scenario(big, big, np.ones((1, 2, 4)), dtype="float32", scale=1.0)
    trace = run(sc)
    scores = trace.array("scores")
    assert np.isinf(scores).all()  # the premise, from the engine's own step
    (warning,) = trace.warnings
    assert warning.code == "overflow" and warning.path == "scores"
    assert warning.text("en") == (
        "scores: 4 of 4 numbers overflow the float32 range (beyond ±3.403e38) and became inf or NaN, "
        "first at [0][0][0][0] (batch 1, head 1, query 1, key 1); "
        "so 2 query rows of the output are inf or NaN (batch 1, query 1; batch 1, query 2); "
        "use float64 or smaller numbers")
    assert "float32" in warning.text("zh") and warning.text("zh").startswith("scores：")
    assert run(dataclasses.replace(sc, dtype="float64")).warnings == ()


# ---- issue 12, defect 12: overflow says why the rows are NaN, in float32 and in float64 ------------

def _toy_with(q00: float, dtype: str) -> Scenario:
    """The toy with one query number replaced: in float64 1.7e308 is finite, and so is 3e38 in
    float32, but q . k / sqrt(2) with a key component of 2 overflows either range."""
    sc = _toy(dtype=dtype)
    q, k = sc.queries.copy(), sc.keys.copy()
    q[0, 0, 0] = q00
    k[0, :, 0] = [0.5, -0.25, 1.0, 2.0]  # head 1: only key 3 lifts q . k / sqrt(2) past the range
    return dataclasses.replace(sc, queries=q, keys=k)


@pytest.mark.parametrize("dtype, big, limit", [("float64", 1.7e308, "1.798e308"), ("float32", 3e38, "3.403e38")])
def test_an_overflow_that_makes_a_row_nan_is_said_with_its_step_cell_and_cause(dtype, big, limit):
    sc = _toy_with(big, dtype)
    trace = run(sc)
    finfo = np.finfo(dtype)
    # which cells overflow, worked out here: score (h, l=0, s) = scale * sum_e q[0, e] k[s, e] with |.| > max
    # exactly (fractions: no overflow of the reference itself), from the numbers as the dtype holds them
    q = [Fraction(float(x)) for x in sc.queries[0, 0].astype(dtype)]
    k = [[Fraction(float(x)) for x in row] for row in sc.keys[0].astype(dtype)]
    scale = Fraction(float(np.asarray(1 / np.sqrt(2), dtype=dtype)))
    over = [(h, s) for h in range(2) for s in range(4)
            if abs(scale * sum(q[e] * k[s][e] for e in (2 * h, 2 * h + 1))) > Fraction(float(finfo.max))]
    assert over and over[0][0] == 0  # the premise: head 1 (index 0) of query 0 overflows
    weights = trace.array("attention_weights")
    assert np.isnan(weights[0, 0, 0]).any()  # the row the issue saw turn into NaN
    overflow = [w for w in trace.warnings if w.code == "overflow"]
    assert len(overflow) == 1
    en, zh = overflow[0].text("en"), overflow[0].text("zh")
    total = trace.array("scores").size  # B * H * L * S
    assert en.startswith(f"scores: {len(over)} of {total} numbers overflow the {dtype} range (beyond ±{limit})")
    # the code's index from 0, then the positions a person reads, from 1
    assert f"first at [0][0][0][{over[0][1]}] (batch 1, head 1, query 1, key {over[0][1] + 1})" in en
    assert "1 query row of the output is inf or NaN (batch 1, query 1)" in en
    assert en.endswith("use smaller numbers" if dtype == "float64" else "use float64 or smaller numbers")
    assert zh.startswith(f"scores：有 {len(over)} / {total} 个数超出了 {dtype} 的范围")
    assert f"键 {over[0][1] + 1}" in zh and "批次 1 的查询 1" in zh


@pytest.mark.parametrize("dtype, big", [("float64", -1.7e308), ("float32", -3e38)])
def test_a_score_overflowing_to_minus_infinity_is_said_although_the_output_stays_finite(dtype, big):
    """-inf scores get weight 0: no NaN anywhere, but the scores pane shows -inf: say why."""
    trace = run(_toy_with(big, dtype))
    assert np.isfinite(trace.array("output")).all() and np.isneginf(trace.array("scores")).any()
    (warning,) = trace.warnings
    assert warning.path == "scores" and "the output is still finite" in warning.text("en")
    assert "输出仍然是有限数" in warning.text("zh")


def test_a_projection_that_overflows_is_named_by_its_column():
    sc = _toy_with(3e38, "float32")
    w = np.eye(4)
    w[1, 0] = 10.0  # projected column 1 = 10 * 3e38 > float32's max
    sc = dataclasses.replace(sc, projections={"query": Projection(w, None)})
    (warning,) = [w for w in run(sc).warnings if w.code == "overflow"]
    assert warning.path == "projection.query"
    assert "first at [0][0][1] (batch 1, query 1, column 2)" in warning.text("en")
    assert "第 2 列" in warning.text("zh")


def test_a_fully_masked_row_under_minus_infinity_is_not_called_an_overflow():
    sc = _toy(valid_lens=np.array([0.0, 4.0]), fill_value=-np.inf)
    assert [w.code for w in run(sc).warnings] == ["fully_masked_nan"]
    sparse = _toy(scoring="prob_sparse")
    assert run(sparse).warnings == ()  # its lazy rows' NaN scores are by design


def test_large_finite_numbers_whose_sum_overflows_still_run():
    """The finiteness check adds each tensor up first (a NaN or infinity makes the total non-finite);
    finite float32 numbers whose total overflows are looked at one by one and run."""
    sc = dataclasses.replace(_of_kind("dot", np.random.default_rng(4)), dtype="float32")
    big = np.full_like(sc.values, 3e38)  # finite in float32; their sum is not
    tr = run(dataclasses.replace(sc, values=big))  # not refused (later steps may overflow: that is the math)
    assert tr.parameters["values"].dtype == torch.float32 and bool(torch.isfinite(tr.parameters["values"]).all())
    bad = sc.values.copy()
    bad[0, 1, 2] = np.inf
    bad[1, 0, 0] = -np.inf  # inf + -inf: the total is NaN, still refused
    with pytest.raises(ScenarioError) as err:
        run(dataclasses.replace(sc, values=bad))
    assert "values" in str(err.value)
    w = sc.projections["query"].weight.copy()
    w[0, 0] = 1e39  # finite in the scenario, infinite in float32: named
    with pytest.raises(ScenarioError) as err:
        run(dataclasses.replace(sc, projections={**sc.projections, "query": Projection(w, None)}))
    assert "query" in str(err.value) and "float32" in str(err.value)
