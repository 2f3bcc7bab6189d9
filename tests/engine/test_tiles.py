"""FlashAttention's tiles (attention/teaching/tiles.py) against attention computed here in float64 numpy.

The reference never calls attention/teaching/tiles.py: dot kinds through engine_helpers.dot_reference,
additive through `additive_reference` below (d2l's w_v . tanh(W_q q + W_k k))."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from engine_helpers import dot_reference, linear, mask_of, scenario, softmax
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import Additive, Scenario, run
from attention.compute import check
from attention.compute.trace import Step, Trace
from attention.teaching.tiles import TilesError, default_blocks, memory, method, tiled


def additive_reference(sc: Scenario) -> np.ndarray:
    """weighted_sum (B, L, H, D) of additive attention, by hand in float64."""
    P, H, a = sc.projections, sc.n_heads, sc.additive
    Q, K, V = linear(sc.queries, P.get("query")), linear(sc.keys, P.get("key")), linear(sc.values, P.get("value"))
    B, L, _ = Q.shape
    S = K.shape[1]
    q, k, v = Q.reshape(B, L, H, -1), K.reshape(B, S, H, -1), V.reshape(B, S, H, -1)
    fq = np.einsum("blhe,hne->bhln", q, a.W_q)
    fk = np.einsum("bshe,hne->bhsn", k, a.W_k)
    feats = np.tanh(fq[:, :, :, None, :] + fk[:, :, None, :, :])  # (B, H, L, S, N)
    scores = np.einsum("bhlsn,hn->bhls", feats, a.w_v) * check.resolved_scale(sc)
    masked = np.where(mask_of(B, L, S, sc.valid_lens, sc.causal)[:, None], sc.fill_value, scores)
    return np.einsum("bhls,bshd->blhd", softmax(masked), v)


def reference(sc: Scenario) -> np.ndarray:
    """The exact weighted sum (B, H, L, D), float64, computed independently of the engine and tiles."""
    sc64 = dataclasses.replace(sc, dtype="float64")
    if sc.scoring == "additive":
        ctx = additive_reference(sc64)
    else:
        ctx = dot_reference(sc64, check.resolved_scale(sc64))["ctx"]
    return ctx.transpose(0, 2, 1, 3)


def assert_matches(got: np.ndarray, want: np.ndarray, dtype: str) -> None:
    assert np.array_equal(np.isnan(got), np.isnan(want)), "NaN rows differ"
    ok = ~np.isnan(want)
    tol = 1e-12 if dtype == "float64" else 2e-4
    np.testing.assert_allclose(got[ok], want[ok], rtol=tol, atol=tol)


@st.composite
def cases(draw):
    kind = draw(st.sampled_from(["scaled_dot", "dot", "additive"]))
    B, L, S = draw(st.integers(1, 2)), draw(st.integers(1, 7)), draw(st.integers(1, 7))
    H, E, D = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mask = draw(st.sampled_from(["none", "lens1", "lens2", "causal", "lens1+causal", "lens2+causal"]))
    valid_lens = None
    if "lens1" in mask:
        valid_lens = rng.integers(0, S + 1, size=B).astype(float)  # 0: every row of that item masked
    elif "lens2" in mask:
        valid_lens = rng.integers(0, S + 1, size=(B, L)).astype(float)
    additive = None
    if kind == "additive":
        n = draw(st.integers(1, 3))
        additive = Additive(n, rng.normal(size=(H, n, E)), rng.normal(size=(H, n, E)), rng.normal(size=(H, n)))
    sc = scenario(rng, B, L, S, H * E, H, d_keys=E, d_values=D, scoring=kind, additive=additive,
                  causal="causal" in mask, valid_lens=valid_lens,
                  fill_value=draw(st.sampled_from([-1e6, -np.inf, -2.0])),
                  dtype=draw(st.sampled_from(["float64", "float32"])))
    return sc, draw(st.integers(1, 8)), draw(st.integers(1, 8))


@pytest.mark.slow
@settings(max_examples=150)
@given(cases())
def test_tiles_equal_exact_attention(case):
    sc, br, bc = case
    result = tiled(run(sc), br, bc)
    assert_matches(result.output, reference(sc), sc.dtype)
    assert result.max_abs_diff <= (1e-12 if sc.dtype == "float64" else 1e-5)
    assert len(result.tiles) == -(-sc.L // br) * -(-sc.S // bc)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("blocks", [(2, 3), (4, 4), (5, 7), (1, 1), (12, 12)])  # divide, do not, one, past L
def test_blocks_that_do_and_do_not_divide(dtype, blocks):
    rng = np.random.default_rng(3)
    sc = scenario(rng, 2, 8, 12, 6, 2, dtype=dtype, valid_lens=np.array([12.0, 5.0]))
    result = tiled(run(sc), *blocks)
    assert_matches(result.output, reference(sc), dtype)
    seen = np.zeros((8, 12), dtype=int)  # every cell in exactly one tile
    for t in result.tiles:
        seen[t.rows[0]:t.rows[1], t.cols[0]:t.cols[1]] += 1
    assert (seen == 1).all()


def test_walk_is_flashattention2_order():
    sc = scenario(np.random.default_rng(0), 1, 5, 7, 4, 2)
    result = tiled(run(sc), 2, 3)
    assert [(t.q_block, t.k_block) for t in result.tiles] == [(i, j) for i in range(3) for j in range(3)]
    assert [t.rows for t in result.tiles[::3]] == [(0, 2), (2, 4), (4, 5)]
    assert [t.cols for t in result.tiles[:3]] == [(0, 3), (3, 6), (6, 7)]


def test_running_values_after_a_row_block_are_the_rows_max_and_sum():
    rng = np.random.default_rng(1)
    sc = scenario(rng, 1, 6, 9, 4, 2, causal=True)
    ref = dot_reference(sc, check.resolved_scale(sc))
    masked = ref["masked"]  # (B, H, L, S)
    result = tiled(run(sc), 3, 4)
    for i in range(result.n_q):
        last = result.tile(i, result.n_k - 1)
        r0, r1 = last.rows
        m = masked[:, :, r0:r1].max(axis=-1)
        np.testing.assert_allclose(last.m_new, m, rtol=1e-14)
        np.testing.assert_allclose(last.l_new, np.exp(masked[:, :, r0:r1] - m[..., None]).sum(-1), rtol=1e-13)
    first = result.tile(0, 0)  # m after the first tile: the max of its own block only
    np.testing.assert_allclose(first.m_new, masked[:, :, 0:3, 0:4].max(-1), rtol=1e-14)
    np.testing.assert_array_equal(first.correction, np.zeros_like(first.correction))  # exp(-inf - m)


def test_causal_tiles_above_the_diagonal_are_skipped():
    sc = scenario(np.random.default_rng(2), 1, 6, 6, 4, 2, causal=True)  # fill -1e6
    result = tiled(run(sc), 2, 2)
    skipped = {(t.q_block, t.k_block) for t in result.tiles if t.skipped.all()}
    assert skipped == {(0, 1), (0, 2), (1, 2)}
    for t in result.tiles:
        if t.skipped.all():
            np.testing.assert_array_equal(t.m_new, t.m_old)
            np.testing.assert_array_equal(t.l_new, t.l_old)
            np.testing.assert_array_equal(t.O_new, t.O_old)
    assert_matches(result.output, reference(sc), "float64")


def test_a_mild_fill_is_not_skipped_because_skipping_would_change_the_result():
    sc = scenario(np.random.default_rng(4), 1, 6, 6, 4, 2, causal=True, fill_value=-1.0)
    result = tiled(run(sc), 2, 2)
    assert not any(t.skipped.any() for t in result.tiles)
    ref = reference(sc)
    with_masked_terms = ref  # fill -1 gives every masked key a visible weight: the tiles must keep them
    assert_matches(result.output, with_masked_terms, "float64")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fully_masked_rows_come_out_as_the_engines(dtype):
    rng = np.random.default_rng(5)
    lens = np.array([[3.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0]])  # some rows, and a whole item, fully masked
    finite = scenario(rng, 2, 4, 5, 4, 2, valid_lens=lens, dtype=dtype)
    trace = run(finite)
    result = tiled(trace, 2, 2)
    v = dot_reference(dataclasses.replace(finite, dtype="float64"), 1.0)["v"]  # (B, S, H, D)
    uniform = v.mean(axis=1)  # (B, H, D): weights 1/S over every key, padding included (d2l)
    tol = 1e-12 if dtype == "float64" else 2e-5
    for b, l_ in [(0, 1), (0, 3), (1, 0), (1, 3)]:
        np.testing.assert_allclose(result.output[b, :, l_], uniform[b], rtol=tol, atol=tol)
    assert not any(t.skipped[1].any() for t in result.tiles)  # the all-masked item: never skipped
    assert result.max_abs_diff <= tol

    minus_inf = dataclasses.replace(finite, fill_value=-np.inf)
    result = tiled(run(minus_inf), 2, 2)
    assert np.isnan(result.output[1]).all() and np.isnan(result.output[0, :, [1, 3]]).all()
    assert not np.isnan(result.output[0, :, [0, 2]]).any()
    assert all(t.skipped[1].all() for t in result.tiles)  # -inf adds exactly 0: skipped
    last = result.tile(0, result.n_k - 1)
    assert np.isneginf(last.m_new[1]).all() and (last.l_new[1] == 0).all()  # m stays -inf, l 0: O / l = NaN
    assert result.max_abs_diff <= tol


def test_additive_reads_its_blocks_from_the_trace():
    rng = np.random.default_rng(6)
    H, E, n = 2, 2, 3
    add = Additive(n, rng.normal(size=(H, n, E)), rng.normal(size=(H, n, E)), rng.normal(size=(H, n)))
    sc = scenario(rng, 1, 4, 6, 4, H, scoring="additive", additive=add, causal=True)
    result = tiled(run(sc), 2, 4)
    assert result.how == "read"
    assert_matches(result.output, reference(sc), "float64")


def test_a_dot_tile_that_disagrees_with_the_trace_is_caught():
    sc = scenario(np.random.default_rng(7), 1, 4, 4, 4, 2)
    trace = run(sc)
    wrong = trace["masked_scores"].tensor.clone()
    wrong[0, 1, 2, 3] += 0.5
    steps = tuple(Step(s.id, wrong, s.dims, s.scoring) if s.id == "masked_scores" else s for s in trace.steps)
    with pytest.raises(AssertionError):
        tiled(Trace(steps, trace.options, trace.parameters), 2, 2)


def test_prob_sparse_does_not_apply_and_says_why():
    with pytest.raises(TilesError) as e:
        method("prob_sparse")
    assert "lazy" in e.value.text("en") and "惰性" in e.value.text("zh")
    with pytest.raises(TilesError):
        method("sinks_or_anything_else")
    assert method("scaled_dot") == method("dot") == "dot" and method("additive") == "read"


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_block_sizes_name_the_field(bad):
    trace = run(scenario(np.random.default_rng(8), 1, 3, 3, 2, 1))
    with pytest.raises(TilesError) as e:
        tiled(trace, bad, 2)
    assert e.value.text("en").startswith("block_q:")


def test_memory_figures_by_hand():
    sc = scenario(np.random.default_rng(9), 1, 6, 6, 8, 2, dtype="float32")  # d_v = 4
    result = tiled(run(sc), 2, 3)
    here = memory(result)
    assert (here.exact_numbers, here.tiled_numbers) == (36, 2 * 3 + 2 * 2 + 2 * 4)
    big = memory(result, 4096, 4096)
    assert big.exact_bytes == 4096 * 4096 * 4 and big.tiled_bytes == (6 + 4 + 8) * 4


def test_default_blocks_give_about_two_by_three():
    assert default_blocks(6, 6) == (3, 2)
    assert default_blocks(1, 2) == (1, 1)


def synthetic_trace(rng, H: int, Hkv: int, sink: bool = False, extra: tuple[str, ...] = ()) -> tuple[Trace, np.ndarray]:
    """A trace as a future kind would record it, built here by hand: H query heads reading Hkv
    key/value heads (query head h uses kv head h // (H / Hkv)), optionally a sink logit per head
    joining each row's softmax as an extra column.  Returns it and the expected (B, H, L, D)."""
    B, L, S, E, D = 1, 5, 6, 2, 3
    q, k, v = rng.normal(size=(B, L, H, E)), rng.normal(size=(B, S, Hkv, E)), rng.normal(size=(B, S, Hkv, D))
    kv = np.arange(H) // (H // Hkv)
    scores = np.einsum("blhe,bshe->bhls", q, k[:, :, kv]) / np.sqrt(E)
    logits = np.concatenate([scores, np.full((B, H, L, 1), 0.7)], axis=-1) if sink else scores
    w = softmax(logits)[..., :S]  # a sink's column is dropped after the softmax: rows sum to less than 1
    ctx = np.einsum("bhls,bshd->blhd", w, v[:, :, kv])
    dims = {"scores": ("B", "H", "L", "S")}
    arrays = {"head_split.query": q, "head_split.key": k, "head_split.value": v, "scores": scores,
              "masked_scores": scores, "attention_weights": w, "weighted_sum": ctx,
              **{sid: np.zeros(1) for sid in extra}}
    steps = tuple(Step(sid, a, dims.get(sid, ()), "scaled_dot") for sid, a in arrays.items())
    options = {"scoring": "scaled_dot", "scale": 1 / np.sqrt(E), "fill_value": -1e6}
    return Trace(steps, options, {}), ctx.transpose(0, 2, 1, 3)


def test_shared_key_value_heads_are_read_per_query_head():
    trace, want = synthetic_trace(np.random.default_rng(13), H=4, Hkv=2)
    result = tiled(trace, 2, 4)
    assert result.how == "read"  # the key heads are shared: the blocks come from the trace
    np.testing.assert_allclose(result.output, want, rtol=1e-13, atol=1e-14)


def test_a_trace_with_steps_beyond_plain_attention_reads_its_blocks():
    trace, want = synthetic_trace(np.random.default_rng(14), H=2, Hkv=2, extra=("rope.query", "rope.key"))
    result = tiled(trace, 3, 4)
    assert result.how == "read"
    np.testing.assert_allclose(result.output, want, rtol=1e-13, atol=1e-14)


def test_weights_that_are_not_the_row_softmax_are_refused():
    trace, _ = synthetic_trace(np.random.default_rng(15), H=2, Hkv=2, sink=True, extra=("extra.sinks",))
    with pytest.raises(TilesError) as e:
        tiled(trace, 2, 2)
    assert "extra.sinks" in e.value.text("en") and "extra.sinks" in e.value.text("zh")
