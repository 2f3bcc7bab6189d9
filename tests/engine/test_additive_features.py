"""Additive attention's hidden features tanh(W_q q + W_k k) as a step of the trace (issue 12, defect 2),
and the additive kind's own words on every pane, slide and explanation.

The expected numbers come from d2l's AdditiveAttention written out here by hand (torch float64,
bias-free nn.Linear layers, features = tanh(W_q q broadcast + W_k k broadcast), scores = w_v(features),
masked_softmax with -1e6 on the scores), and from plain numpy loops: never from the engine."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from attention import Additive, Scenario, run
from attention.files import scenario_io, trace_cache, trace_json
from attention.registry import step_registry
from attention.teaching import explain
from resources import list_presets

B, L, S, H, N = 2, 3, 4, 2, 5  # batch, queries, keys, heads, hidden units
EQ, EK = 3, 2  # one head's query and key widths (additive lets them differ)


class D2lAdditive(nn.Module):
    """d2l's AdditiveAttention (dropout 0), one head: the reference, written independently."""

    def __init__(self, W_q: np.ndarray, W_k: np.ndarray, w_v: np.ndarray):
        super().__init__()
        self.W_q = nn.Linear(W_q.shape[1], W_q.shape[0], bias=False, dtype=torch.float64)
        self.W_k = nn.Linear(W_k.shape[1], W_k.shape[0], bias=False, dtype=torch.float64)
        self.w_v = nn.Linear(w_v.shape[0], 1, bias=False, dtype=torch.float64)
        with torch.no_grad():
            self.W_q.weight.copy_(torch.from_numpy(W_q))
            self.W_k.weight.copy_(torch.from_numpy(W_k))
            self.w_v.weight.copy_(torch.from_numpy(w_v)[None])

    def forward(self, queries, keys, values, valid_lens):
        q, k = self.W_q(queries), self.W_k(keys)
        self.features = torch.tanh(q.unsqueeze(2) + k.unsqueeze(1))  # (B, L, S, N)
        scores = self.w_v(self.features).squeeze(-1)  # (B, L, S)
        if valid_lens is not None:  # d2l's masked_softmax, 1-D lengths: every query row of item b
            keep = torch.arange(scores.shape[-1])[None, None, :] < valid_lens[:, None, None]
            scores = scores.masked_fill(~keep, -1e6)
        self.scores = scores
        self.weights = torch.softmax(scores, dim=-1)
        return self.weights @ values


def _scenario(dtype: str = "float64") -> Scenario:
    rng = np.random.default_rng(12)
    n = rng.normal
    additive = Additive(N, n(size=(H, N, EQ)), n(size=(H, N, EK)), n(size=(H, N)))
    return Scenario(n(size=(B, L, H * EQ)), n(size=(B, S, H * EK)), n(size=(B, S, 4)), n_heads=H,
                    d_values=2, scoring="additive", additive=additive, valid_lens=np.array([3.0, 4.0]), dtype=dtype)


@pytest.fixture(scope="module")
def case():
    sc = _scenario()
    return sc, run(sc)


def test_the_features_step_is_in_the_registry_with_its_dims(case):
    _, trace = case
    rec = step_registry.record("extra.additive_features")
    assert rec.dims == ("B", "H", "L", "N*S") and rec.kind == "signed"
    assert trace["extra.additive_features"].shape == (B, H, L, N * S)
    dot = run(Scenario(np.ones((1, 2, 2)), np.ones((1, 2, 2)), np.ones((1, 2, 2)), scoring="dot"))
    assert "extra.additive_features" not in dot  # only additive scoring has hidden features


def test_features_match_d2l_additive_attention_written_by_hand(case):
    sc, trace = case
    feats = trace.array("extra.additive_features").reshape(B, H, L, N, S)  # column n*S + s: unit n, key s
    for h in range(H):
        ref = D2lAdditive(sc.additive.W_q[h], sc.additive.W_k[h], sc.additive.w_v[h])
        q = torch.from_numpy(sc.queries[:, :, h * EQ:(h + 1) * EQ])  # no projections: head h's columns
        k = torch.from_numpy(sc.keys[:, :, h * EK:(h + 1) * EK])
        v = torch.from_numpy(sc.values[:, :, h * 2:(h + 1) * 2])
        out = ref(q, k, v, torch.tensor([3.0, 4.0], dtype=torch.float64))
        expected = ref.features.detach().numpy()  # (B, L, S, N)
        np.testing.assert_allclose(feats[:, h].transpose(0, 1, 3, 2), expected, rtol=1e-13, atol=1e-15)
        unmasked = ref.w_v(ref.features).squeeze(-1).detach().numpy()  # (B, L, S), before masked_softmax
        np.testing.assert_allclose(trace.array("scores")[:, h], unmasked, rtol=1e-12)
        np.testing.assert_allclose(trace.array("masked_scores")[:, h], ref.scores.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(trace.array("weighted_sum")[:, :, h], out.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_features_match_numpy_loops_one_number_at_a_time(case):
    sc, trace = case
    got = trace.array("extra.additive_features")
    a = sc.additive
    for b in range(B):
        for h in range(H):
            for l in range(L):
                q = sc.queries[b, l, h * EQ:(h + 1) * EQ]
                for n in range(N):
                    for s in range(S):
                        k = sc.keys[b, s, h * EK:(h + 1) * EK]
                        x = (sum(a.W_q[h, n, e] * q[e] for e in range(EQ))
                             + sum(a.W_k[h, n, e] * k[e] for e in range(EK)))
                        assert math.isclose(got[b, h, l, n * S + s], math.tanh(x), rel_tol=1e-13, abs_tol=1e-15)


def test_float32_features_are_close_to_the_float64_ones():
    f64 = run(_scenario()).array("extra.additive_features")
    f32 = run(_scenario("float32")).array("extra.additive_features")
    assert f32.dtype == np.float32
    np.testing.assert_allclose(f32, f64, atol=1e-5)


def test_every_feature_cell_is_explained_with_the_traces_numbers(case):
    sc, trace = case
    for j in (0, S - 1, S, N * S - 1):
        ex = explain.explain(trace, "extra.additive_features", (1, 1, 2, j))
        n, s = divmod(j, S)
        assert math.isclose(ex.result, trace.array("extra.additive_features")[1, 1, 2, j], rel_tol=1e-12)
        assert {src.ref for src in ex.sources} == {"additive.W_q", "additive.W_k", "head_split.query",
                                                     "head_split.key"}
        assert all(src.index[:2] == (1, n) for src in ex.sources if src.ref.startswith("additive."))
        assert {src.index[1] for src in ex.sources if src.ref == "head_split.key"} == {s}
        # sentences count positions from 1 (unit n + 1, key s + 1); the formula keeps the code's index
        assert f"hidden unit {n + 1} of key {s + 1}" in ex.text("en") and f"[1,1,2,{n}·S+{s}]" in ex.text("en")
        assert "tanh" in ex.text("en") and f"键 {s + 1} 的隐藏单元 {n + 1}" in ex.text("zh")
    score = explain.explain(trace, "scores", (0, 1, 2, 3))
    assert ("extra.additive_features", (0, 1, 2, 1 * S + 3)) in {(src.ref, src.index) for src in score.sources}


def test_every_pane_of_an_additive_trace_carries_the_additive_words(case):
    """No title, formula, explanation or lesson of an additive trace speaks of a dot product q · k."""
    from app.viewmodel import lessons

    _, trace = case
    dot_words = ("q_l . k_s", "q_l · k_s", "q · k", "q.k", "Scaled scores", "缩放后的分数", "点积注意力")
    assert trace["scores"].title == {"en": "Additive scores", "zh": "加性分数"}
    for sid in trace.ids:
        step = trace[sid]
        texts = [*step.title.values(), *step.formula.values()]
        for lang in ("en", "zh"):
            texts.append(lessons.explanation(sid, trace.options, lang))
            index = tuple(0 for _ in step.shape)
            texts.append(explain.explain(trace, sid, index).text(lang))
        for text in texts:
            assert not any(w in text for w in dot_words), (sid, text)
    assert "tanh" in trace["scores"].formula["en"] and "tanh" in trace["extra.additive_features"].formula["zh"]
    dot = run(Scenario(np.ones((1, 2, 2)), np.ones((1, 2, 2)), np.ones((1, 2, 2)), scoring="dot"))
    assert dot["scores"].title["en"] != trace["scores"].title["en"]


def test_slides_show_the_features_just_before_the_scores(case):
    from app.viewmodel import lessons

    _, trace = case
    ids = lessons.lesson_ids(trace)
    assert ids.index("extra.additive_features") == ids.index("scores") - 1
    assert lessons.inputs_of("extra.additive_features", trace) == ["head_split.query", "head_split.key"]
    text = lessons.explanation("extra.additive_features", trace.options, "en")
    assert f"{N} hidden units" in text and "tanh" in text


def test_the_features_pane_shows_one_block_per_hidden_unit(case):
    from app.viewmodel.pane_data import cell_index, pane_data

    sc, trace = case
    d = pane_data(trace, "extra.additive_features", batch=1, key_tokens=["a", "b", "c", "d"])
    assert d.layout.per_head and d.layout.n_matrices == H
    assert (d.layout.rows.dim, d.layout.rows.size) == ("L", L)
    cols = d.layout.cols
    assert (cols.dim, cols.size, cols.group) == ("N*S", N * S, S)
    assert cols.tick(S + 2) == "c"  # unit index 1, key index 2
    no_tokens = pane_data(trace, "extra.additive_features").layout.cols
    assert [no_tokens.tick(j) for j in (0, S - 1, S, S + 2)] == ["1", str(S), "1", "3"]  # keys within a block, from 1
    assert "hidden unit 2, key 3" in cols.describe(S + 2, "en") and "隐藏单元 2，键 3" in cols.describe(S + 2, "zh")
    assert cell_index(trace["extra.additive_features"], 1, 1, 2, S + 2) == (1, 1, 2, S + 2)
    np.testing.assert_array_equal(d.block[1], trace.array("extra.additive_features")[1, 1])


def test_the_features_are_exported_and_cached_like_every_step(case, tmp_path):
    from app.viewmodel import export_csv

    sc, trace = case
    steps = {s["id"]: s for s in trace_json.trace_to_dict(trace, sc)["steps"]}
    exported = steps["extra.additive_features"]
    assert exported["dims"] == ["B", "H", "L", "N*S"] and exported["title"]["en"] == "Additive: hidden features"
    np.testing.assert_array_equal(np.array(exported["data"]), trace.array("extra.additive_features"))
    assert trace_cache.save(trace, sc, tmp_path / "t.npz")
    back = trace_cache.load(sc, tmp_path / "t.npz")
    np.testing.assert_array_equal(back.array("extra.additive_features"), trace.array("extra.additive_features"))
    assert back["extra.additive_features"].title == trace["extra.additive_features"].title
    rows = export_csv.step_csv_text(trace, "extra.additive_features", batch=0).splitlines()
    numbers = [r for r in rows if r.count(",") == N * S]  # a header cell, then N*S numbers per query row
    assert len(numbers) >= H * L


def test_the_d2l_additive_preset_has_its_features():
    sc = next(scenario_io.load(p) for p, _ in list_presets() if scenario_io.load(p).scoring == "additive")
    trace = run(sc)
    f = trace.array("extra.additive_features")
    assert f.shape == (sc.batch, sc.n_heads, sc.L, sc.additive.hidden * sc.S)
    assert np.all(np.abs(f) <= 1.0)
