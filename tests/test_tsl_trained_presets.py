"""Presets 40-44 (issue 18 items 8 and 9): the trained Time-Series-Library presets show the pattern their
notes promise, measured on the shipped files through attention.run and checked against float64 references
written here; the Informer cross-attention pair differs exactly as ProbSparse says it should.

The generators' facts are stated here independently of the training scripts: the two periods (7, 24), the
lead structure (river follows rain, waves follow wind), series 2 of preset 41 = 3 × series 1 + 10."""
from __future__ import annotations

import dataclasses
import importlib
import math

import numpy as np
import pytest
import torch

from attention import run
from attention.datamodel.parts import Part
from attention.files import scenario_io
from resources import scenarios_dir

AUTOFORMER = scenarios_dir() / "40_trained_autoformer_two_periods.json"
NONSTATIONARY = scenarios_dir() / "41_trained_nonstationary_drift.json"
ITRANSFORMER = scenarios_dir() / "42_trained_itransformer_leads.json"
PROB = scenarios_dir() / "43_informer_cross_attention_probsparse_vs_full.json"
FULL = scenarios_dir() / "44_informer_cross_attention_full_paper.json"


def _heads(sc, x: np.ndarray, role: str) -> np.ndarray:
    """x (B, T, d_model) through the scenario's nn.Linear-style projection, split: (B, T, H, width)."""
    p = sc.projection(role)
    y = x @ p.weight.T + (0.0 if p.bias is None else p.bias)
    return y.reshape(y.shape[0], y.shape[1], sc.n_heads, -1)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _entropy(w: np.ndarray) -> np.ndarray:
    return -(w * np.log(np.clip(w, 1e-300, None))).sum(-1)


# ---------------------------------------------------------------- 40: Autoformer, two periods

PERIODS = (7, 24)


def _circular_correlation(sc) -> np.ndarray:
    """mean over heads and channels of sum_t q[(t + lag) mod L] · k[t], a direct sum (no FFT): (B, L)."""
    q, k = _heads(sc, sc.queries, "query"), _heads(sc, sc.keys, "key")  # (B, L, H, E)
    L = q.shape[1]
    return np.stack([(np.roll(q, -lag, axis=1) * k).sum(1).mean(axis=(1, 2)) for lag in range(L)], axis=-1)


def test_autoformer_top_lags_are_both_periods_and_nothing_else():
    sc = scenario_io.load(AUTOFORMER)
    assert sc.scoring == "autocorrelation" and sc.L == 168 == PERIODS[0] * PERIODS[1]
    trace = run(sc)
    lags = trace.array("extra.top_lags")[0].astype(int)
    # independent: the correlation curve by a direct sum, its top int(3 ln 168) = 15 lags
    curve = _circular_correlation(sc)[0]
    np.testing.assert_allclose(trace.array("extra.mean_correlation")[0], curve, rtol=0, atol=1e-9)
    assert len(lags) == int(3 * math.log(168)) == 15
    assert set(lags.tolist()) == set(np.argsort(-curve)[:15].tolist())
    # every kept lag is a whole number of 7-step or 24-step cycles (0 counts: both)
    assert all(lag % 7 == 0 or lag % 24 == 0 for lag in lags), lags
    sevens = [lag for lag in lags if lag % 7 == 0 and lag > 0]  # 168 = lcm: none of these is a multiple of 24
    days = [lag for lag in lags if lag % 24 == 0 and lag > 0]
    assert sevens and days, lags
    # the learned part: the layer reads the other cycles, not mostly the step itself
    w = trace.array("extra.lag_weights")[0]
    np.testing.assert_allclose(w, _softmax(curve[lags]), rtol=0, atol=1e-12)
    assert w[lags == 0].sum() < 0.5 and w[lags > 0].sum() > 0.5, (lags, w)
    # each weight row is that softmax laid out at the keys t + lag (mod L), so a hidden step reads whole cycles
    weights = trace.array("attention_weights")[0, 0]
    hidden = [t for t, name in enumerate(sc.query_tokens) if name.startswith("?")]
    assert 20 <= len(hidden) <= 70
    for t in hidden[:5]:
        expected = np.zeros(168)
        expected[(t + lags) % 168] = w
        np.testing.assert_allclose(weights[t], expected, rtol=0, atol=1e-12)


# ---------------------------------------------------------------- 41: Non-stationary Transformer

def _with_factors(sc, tau, delta):
    return dataclasses.replace(sc, modifiers=(Part("destationary", {"tau": np.asarray(tau, float),
                                                                       "delta": np.asarray(delta, float)}),))


def _ds_weights(sc, tau: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """float64 DSAttention: softmax(scale · (tau · q·k + delta)), scale 1/sqrt(E) (B, H, L, S)."""
    q, k = _heads(sc, sc.queries, "query"), _heads(sc, sc.keys, "key")
    raw = np.einsum("blhe,bshe->bhls", q, k)
    return _softmax((raw * tau[:, None, None, None] + delta[:, None, None, :]) / math.sqrt(q.shape[-1]))


def test_normalisation_makes_the_two_series_alike_and_tau_delta_tell_them_apart():
    sc = scenario_io.load(NONSTATIONARY)
    assert sc.scoring == "ds_attention" and sc.batch == 2 and sc.L == sc.S == 24
    part = sc.modifiers[0]
    tau, delta = np.asarray(part.get("tau"), float).reshape(-1), np.asarray(part.get("delta"), float)
    # series 2 = 3 × series 1 + 10: normalised, the layer's inputs are the same numbers
    np.testing.assert_allclose(sc.queries[1], sc.queries[0], rtol=0, atol=1e-4)
    plain = run(_with_factors(sc, np.ones(2), np.zeros((2, 24)))).array("attention_weights")
    np.testing.assert_allclose(plain[1], plain[0], rtol=0, atol=1e-4)
    learned = run(sc).array("attention_weights")
    np.testing.assert_allclose(learned, _ds_weights(sc, tau, delta), rtol=0, atol=1e-12)
    assert np.abs(learned[1] - learned[0]).max() > 0.02
    assert not np.allclose(tau[0], tau[1], atol=1e-3) and not np.allclose(delta[0], delta[1], atol=1e-3)


def test_tau_sharpens_above_one_and_flattens_below():
    sc = scenario_io.load(NONSTATIONARY)
    tau = np.asarray(sc.modifiers[0].get("tau"), float).reshape(-1)
    zero = np.zeros((2, 24))
    plain = _entropy(run(_with_factors(sc, np.ones(2), zero)).array("attention_weights"))  # (B, H, L)
    scaled = _entropy(run(_with_factors(sc, tau, zero)).array("attention_weights"))
    for b in range(2):
        assert abs(tau[b] - 1) > 0.02, tau
        if tau[b] < 1:
            assert (scaled[b] > plain[b]).all(), b  # flatter: every row's entropy rises
        else:
            assert (scaled[b] < plain[b]).all(), b


def test_delta_moves_weight_to_the_keys_it_raises_in_every_row():
    sc = scenario_io.load(NONSTATIONARY)
    tau = np.asarray(sc.modifiers[0].get("tau"), float).reshape(-1)
    delta = np.asarray(sc.modifiers[0].get("delta"), float)
    without = run(_with_factors(sc, tau, np.zeros((2, 24)))).array("attention_weights")
    learned = run(sc).array("attention_weights")
    scale = 1 / math.sqrt(sc.dk)
    for b in range(2):
        top, bottom = int(delta[b].argmax()), int(delta[b].argmin())
        assert (learned[b, :, :, top] > without[b, :, :, top]).all()
        assert (learned[b, :, :, bottom] < without[b, :, :, bottom]).all()
        # the same factor exp(scale · Δ_s) on key s in every row, then the row renormalised
        log_ratio = np.log(learned[b] / without[b])  # (H, L, S)
        centred = log_ratio - log_ratio.mean(-1, keepdims=True)
        np.testing.assert_allclose(centred, np.broadcast_to(scale * (delta[b] - delta[b].mean()), centred.shape),
                                   rtol=0, atol=1e-9)


# ---------------------------------------------------------------- 42: iTransformer, who leads whom

NAMES = ("rain", "river", "wind", "waves", "sun")
FOLLOWS = {"river": "rain", "waves": "wind"}  # the generator's lead structure


def test_variate_attention_points_from_followers_to_their_leaders():
    sc = scenario_io.load(ITRANSFORMER)
    assert sc.query_tokens == sc.key_tokens == NAMES and sc.L == 5 and not sc.causal
    w = run(sc).array("attention_weights")[0]  # (H, N, N)
    q, k = _heads(sc, sc.queries, "query"), _heads(sc, sc.keys, "key")
    np.testing.assert_allclose(w, _softmax(np.einsum("blhe,bshe->bhls", q, k)[0] / math.sqrt(sc.dk)), atol=1e-12)
    mean = w.mean(0)  # over heads
    off = mean.copy()
    np.fill_diagonal(off, -1.0)
    for follower, leader in FOLLOWS.items():
        assert NAMES[int(off[NAMES.index(follower)].argmax())] == leader, (follower, off.round(3))
    for h in (0, 2):  # heads 1 and 3 (as the notes count them) show it on their own
        for follower, leader in FOLLOWS.items():
            row = w[h, NAMES.index(follower)].copy()
            row[NAMES.index(follower)] = -1.0
            assert NAMES[int(row.argmax())] == leader, (h, follower, w[h].round(3))
    # the two strongest off-diagonal entries of the whole (head-mean) map are exactly these
    flat = np.argsort(-off, axis=None)[:2]
    strongest = {(NAMES[i // 5], NAMES[i % 5]) for i in flat}
    assert strongest == set(FOLLOWS.items()), off.round(3)


# ---------------------------------------------------------------- 43/44: Informer cross-attention

def test_the_cross_attention_pair_holds_the_same_numbers():
    prob, full = scenario_io.load(PROB), scenario_io.load(FULL)
    for name in ("queries", "keys", "values"):
        assert np.array_equal(getattr(prob, name), getattr(full, name))
    assert all(np.array_equal(prob.projection(r).weight, full.projection(r).weight) for r in ("query", "key",
                                                                                                  "value", "out"))
    assert np.array_equal(prob.keys, prob.values)  # both are the encoder's output, as `cross` in DecoderLayer
    assert (prob.scoring, prob.factor, prob.mix, prob.causal) == ("prob_sparse", 3, True, False)
    assert (full.scoring, full.mix, full.causal) == ("scaled_dot", False, False)
    assert prob.query_tokens == full.query_tokens and prob.key_tokens == full.key_tokens


def _informer_reference(sc):
    """TSL's ProbAttention(mask_flag=False) and AttentionLayer in float64 numpy; the key sample drawn as TSL
    draws it (torch.randint from the global generator after torch.manual_seed(seed))."""
    q, k, v = _heads(sc, sc.queries, "query"), _heads(sc, sc.keys, "key"), _heads(sc, sc.values, "value")
    B, L, H, E = q.shape
    S = k.shape[1]
    u_part = min(sc.factor * math.ceil(math.log(S)), S)
    u = min(sc.factor * math.ceil(math.log(L)), L)
    torch.manual_seed(sc.seed)
    index = torch.randint(S, (L, u_part)).numpy()  # (L, u_part)
    qh, kh, vh = (x.transpose(0, 2, 1, 3) for x in (q, k, v))  # (B, H, T, E)
    dots = qh @ kh.transpose(0, 1, 3, 2)  # (B, H, L, S), unscaled
    sampled = np.take_along_axis(dots, np.broadcast_to(index, (B, H, L, u_part)), axis=-1)
    M = sampled.max(-1) - sampled.sum(-1) / S
    full_w = _softmax(dots / math.sqrt(E))
    weights = np.full_like(full_w, 1.0 / S)
    context = np.broadcast_to(vh.mean(2, keepdims=True), (B, H, L, vh.shape[-1])).copy()
    selected = np.zeros((B, H, L), bool)
    for b in range(B):
        for h in range(H):
            top = np.argsort(-M[b, h], kind="stable")[:u]
            selected[b, h, top] = True
            weights[b, h, top] = full_w[b, h, top]
            context[b, h, top] = full_w[b, h, top] @ vh[b, h]
    out = sc.projection("out")
    mixed = context.reshape(B, L, -1)  # TSL's view of (B, H, L, D) without a transpose
    return weights, selected, mixed @ out.weight.T, full_w


def test_probsparse_minus_full_is_the_lazy_rows_as_an_independent_computation_says():
    prob, full = scenario_io.load(PROB), scenario_io.load(FULL)
    tp, tf = run(prob), run(full)
    weights, selected, output, full_w = _informer_reference(prob)
    assert np.array_equal(tp.array("extra.selected"), selected)
    assert (selected.sum(-1) == 12).all()  # n_top = 3 × ceil(ln 24) of 24 queries per head
    np.testing.assert_allclose(tf.array("attention_weights"), full_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tp.array("attention_weights"), weights, rtol=0, atol=1e-12)
    diff = tp.array("attention_weights") - tf.array("attention_weights")
    assert np.abs(diff[selected]).max() < 1e-12  # the picked rows ARE full attention
    np.testing.assert_allclose(diff[~selected], 1.0 / 24 - full_w[~selected], rtol=0, atol=1e-12)
    assert np.abs(diff[~selected]).max() > 0.05  # and the lazy rows really differ
    np.testing.assert_allclose(tp.array("output"), output, rtol=0, atol=1e-12)
    # full attention, no mix: the paper's (B, L, H, D) concat
    v = _heads(full, full.values, "value")
    paper = np.einsum("bhls,bshd->blhd", full_w, v).reshape(1, 24, -1) @ full.projection("out").weight.T
    np.testing.assert_allclose(tf.array("output"), paper, rtol=0, atol=1e-12)


# ---------------------------------------------------------------- the training scripts

SCRIPTS = [("autoformer_two_periods", AUTOFORMER), ("nonstationary_drift", NONSTATIONARY),
           ("itransformer_leads", ITRANSFORMER)]


@pytest.mark.parametrize("module,preset", SCRIPTS)
def test_training_script_runs_a_few_seeded_steps_and_exports(module, preset, tmp_path, capsys):
    script = importlib.import_module(f"resources.training.{module}")
    outs = []
    for run_no in range(2):
        out = tmp_path / f"{run_no}.json"
        assert script.main(["--steps", "3", "--threads", "1", "--out", str(out)]) == 0
        outs.append(scenario_io.load(out))
    said = capsys.readouterr().out
    assert "wrote" in said and "s CPU" in said
    a, b = outs
    assert np.array_equal(a.queries, b.queries)  # seeded: the same steps give the same numbers
    assert all(np.array_equal(a.projection(r).weight, b.projection(r).weight) for r in ("query", "key", "value", "out"))
    shipped = scenario_io.load(preset)
    assert (a.queries.shape, a.n_heads, a.scoring, a.query_tokens[:3] == shipped.query_tokens[:3]) == \
           (shipped.queries.shape, shipped.n_heads, shipped.scoring, True)
    assert a.title == shipped.title and a.notes == shipped.notes
    assert not np.array_equal(a.projection("query").weight, shipped.projection("query").weight)
