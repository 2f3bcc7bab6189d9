"""The score modifiers in the engine (attention/kinds/alibi.py, softcap.py, sinks.py): ALiBi's bias,
Gemma 2's soft-cap and gpt-oss's sinks, alone and in random combinations with causal masks, valid
lengths and shared key/value heads, against a float64 reference written here (a loop per batch item
and head) and torch's scaled_dot_product_attention with an additive float mask; then explain,
lessons, the exported script, the tiles and the problems of bad parts."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import Projection, Scenario, problems, run
from attention.datamodel.parts import Part
from attention.datamodel.scenario import ScenarioError
from attention.teaching import explain, lessons, script_export

# ---------------------------------------------------------------- the reference, written separately


def paper_slopes(n: int) -> list[float]:
    """The ALiBi paper's recipe (Press et al., appendix): for a power of two n, the geometric series
    starting at 2^(-8/n) with that ratio; otherwise the series of the closest smaller power of two,
    then every other slope of the series for twice that."""
    def power_of_two(m):
        start = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [start * start ** i for i in range(m)]
    if math.log2(n).is_integer():
        return power_of_two(n)
    c = 2 ** math.floor(math.log2(n))
    return power_of_two(c) + power_of_two(2 * c)[0::2][:n - c]


def reference(sc: Scenario, slopes=None, form="key", cap=None, sinks=None) -> dict[str, np.ndarray]:
    """float64, one (batch item, head) at a time: scale·q·k, + slope·position, cap·tanh(·/cap), the
    mask's fill, softmax over the keys and (with sinks) one more column, then the weighted sum."""
    P = sc.projections
    lin = lambda x, p: x if p is None else x @ p.weight.T + (0 if p.bias is None else p.bias)  # noqa: E731
    Q, K, V = lin(sc.queries, P.get("query")), lin(sc.keys, P.get("key")), lin(sc.values, P.get("value"))
    B, L, S, H = sc.batch, sc.L, sc.S, sc.n_heads
    kv = sc.n_kv_heads or H
    dk, dv = Q.shape[-1] // H, V.shape[-1] // kv
    scale = 1 / math.sqrt(dk) if sc.scale is None else sc.scale
    lens = None if sc.valid_lens is None else np.asarray(sc.valid_lens, dtype=float)
    out = {k: np.zeros((B, H, L, S)) for k in ("biased", "capped", "masked", "weights")}
    out["mass"], out["ctx"] = np.zeros((B, H, L)), np.zeros((B, L, H, dv))
    for b in range(B):
        for h in range(H):
            j = h // (H // kv)
            q, k, v = Q[b, :, h * dk:(h + 1) * dk], K[b, :, j * dk:(j + 1) * dk], V[b, :, j * dv:(j + 1) * dv]
            for l in range(L):
                row = []
                for s in range(S):
                    x = scale * float(np.dot(q[l], k[s]))
                    if slopes is not None:
                        x += slopes[h] * (s if form == "key" else s - l)
                    out["biased"][b, h, l, s] = x
                    if cap is not None:
                        x = cap * math.tanh(x / cap)
                    out["capped"][b, h, l, s] = x
                    n = None if lens is None else (lens[b] if lens.ndim == 1 else lens[b, l])
                    hidden = (n is not None and s >= n) or (sc.causal and s > l)
                    row.append(sc.fill_value if hidden else x)
                out["masked"][b, h, l] = row
                cols = row + ([sinks[h]] if sinks is not None else [])
                m = max(cols)
                if m == -math.inf:  # every key masked by -inf and no sink: NaN, as torch
                    e = [math.nan] * len(cols)
                else:
                    e = [math.exp(c - m) for c in cols]
                total = sum(e)
                w = [x / total for x in e]
                out["weights"][b, h, l] = w[:S]
                if sinks is not None:
                    out["mass"][b, h, l] = w[S]
                out["ctx"][b, l, h] = np.array(w[:S]) @ v
    return out


def _scenario(rng, B=2, L=4, S=5, H=4, kv=None, d=8, **options) -> Scenario:
    dk = dv = 2
    kvh = kv or H
    lin = lambda o, i: Projection(rng.normal(size=(o, i)) / np.sqrt(i), rng.normal(size=(o,)))  # noqa: E731
    return Scenario(rng.normal(size=(B, L, d)) * 2, rng.normal(size=(B, S, d)) * 2, rng.normal(size=(B, S, d)),
                    n_heads=H, n_kv_heads=kv, d_keys=dk, d_values=dv,
                    projections={"query": lin(H * dk, d), "key": lin(kvh * dk, d), "value": lin(kvh * dv, d),
                                 "out": lin(d, H * dv)}, **options)


def _close(got, want, what):
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=what)


# ---------------------------------------------------------------- ALiBi


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 8, 12, 16, 24])
def test_bloom_slopes_are_the_papers(n):
    sc = _scenario(np.random.default_rng(n), H=n, modifiers=(Part("alibi"),))
    trace = run(sc)
    _close(trace.parameters["alibi.slopes"].numpy(), np.array(paper_slopes(n)), f"{n} heads")


@pytest.mark.parametrize("form", ["key", "relative"])
@pytest.mark.parametrize("causal", [False, True])
def test_alibi_against_the_reference(form, causal):
    rng = np.random.default_rng(1)
    slopes = [0.5, -0.25, 1.5, 0.0]
    sc = _scenario(rng, causal=causal, valid_lens=np.array([5.0, 3.0]),
                   modifiers=(Part("alibi", {"slopes": slopes, "form": form}),))
    trace, want = run(sc), reference(sc, slopes=slopes, form=form)
    L, S = sc.L, sc.S
    pos = np.arange(S)[None, :] - (np.arange(L)[:, None] if form == "relative" else 0)
    _close(trace.array("alibi.bias"), np.array(slopes)[:, None, None] * np.broadcast_to(pos, (L, S)), "bias")
    _close(trace.array("alibi.scores"), want["biased"], "alibi.scores")
    _close(trace.array("masked_scores"), want["masked"], "masked_scores read the biased scores")
    _close(trace.array("attention_weights"), want["weights"], "weights")
    _close(trace.array("weighted_sum"), want["ctx"], "weighted_sum")
    assert trace.options["modifiers"] == [{"kind": "alibi", "form": form}]


def test_both_forms_give_the_same_weights():
    """slope · s and slope · (s − l) differ by a constant per row, which the softmax ignores."""
    rng = np.random.default_rng(2)
    a = run(_scenario(rng, causal=True, modifiers=(Part("alibi", {"form": "key"}),)))
    rng = np.random.default_rng(2)
    b = run(_scenario(rng, causal=True, modifiers=(Part("alibi", {"form": "relative"}),)))
    assert not np.allclose(a.array("alibi.scores"), b.array("alibi.scores"))
    np.testing.assert_allclose(a.array("attention_weights"), b.array("attention_weights"), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kv", [None, 2, 1])
def test_alibi_against_sdpa_with_an_additive_float_mask(kv):
    rng = np.random.default_rng(3)
    sc = _scenario(rng, kv=kv, causal=True, valid_lens=np.array([4.0, 2.0]), fill_value=-math.inf,
                   modifiers=(Part("alibi"),))
    trace = run(sc)
    q = torch.from_numpy(trace.array("head_split.query")).transpose(1, 2)  # (B, H, L, E)
    k = torch.from_numpy(trace.array("head_split.key")).transpose(1, 2)  # (B, kv, S, E)
    v = torch.from_numpy(trace.array("head_split.value")).transpose(1, 2)
    L, S = sc.L, sc.S
    slopes = torch.tensor(paper_slopes(sc.n_heads), dtype=torch.float64)
    bias = slopes[:, None, None] * torch.arange(S, dtype=torch.float64)[None, None, :]  # (H, 1, S)
    lens = torch.tensor([4.0, 2.0])
    hidden = (torch.arange(S)[None, None, :] >= lens[:, None, None]) | \
             (torch.arange(S)[None, :] > torch.arange(L)[:, None])[None]  # (B, L, S)
    mask = bias[None] + torch.zeros(1, 1, L, S, dtype=torch.float64).masked_fill(hidden[:, None], -math.inf)
    want = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)  # (B, H, L, D)
    np.testing.assert_allclose(trace.array("weighted_sum"), want.transpose(1, 2).numpy(), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- soft-capping


@pytest.mark.parametrize("cap", [0.5, 2.0, 50.0])
def test_softcap_against_the_reference(cap):
    rng = np.random.default_rng(4)
    sc = _scenario(rng, causal=True, scale=1 / math.sqrt(3.0),  # Gemma: query_pre_attn_scalar ** -0.5
                   modifiers=(Part("softcap", {"cap": cap}),))
    trace, want = run(sc), reference(sc, cap=cap)
    _close(trace.array("softcap.scores"), want["capped"], "softcap.scores")
    assert np.all(np.abs(trace.array("softcap.scores")) <= cap)  # tanh rounds to 1 far out
    _close(trace.array("masked_scores"), want["masked"], "masked")
    _close(trace.array("output"), reference_output(sc, want), "output")


def reference_output(sc, want):
    p = sc.projections["out"]
    return want["ctx"].reshape(sc.batch, sc.L, -1) @ p.weight.T + p.bias


def test_softcap_against_sdpa_of_the_capped_scores():
    """SDPA takes the capped product as its mask (q·0 = 0): cap·tanh(s/cap) is the whole logit."""
    rng = np.random.default_rng(5)
    sc = _scenario(rng, kv=2, causal=True, fill_value=-math.inf, modifiers=(Part("softcap", {"cap": 1.0}),))
    trace = run(sc)
    q = torch.from_numpy(trace.array("head_split.query")).transpose(1, 2)
    k = torch.from_numpy(trace.array("head_split.key")).transpose(1, 2).repeat_interleave(2, dim=1)
    v = torch.from_numpy(trace.array("head_split.value")).transpose(1, 2)
    capped = torch.tanh(q @ k.transpose(-1, -2) / math.sqrt(2) / 1.0) * 1.0
    hidden = torch.arange(sc.S)[None, :] > torch.arange(sc.L)[:, None]
    want = F.scaled_dot_product_attention(torch.zeros_like(q), torch.zeros_like(k[:, :2]), v,
                                          attn_mask=capped.masked_fill(hidden, -math.inf), enable_gqa=True)
    np.testing.assert_allclose(trace.array("weighted_sum"), want.transpose(1, 2).numpy(), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- sinks


def test_sinks_against_the_reference_and_rows_sum_to_one_minus_the_mass():
    rng = np.random.default_rng(6)
    logits = [0.3, -2.0, 4.0, 1.0]
    sc = _scenario(rng, causal=True, valid_lens=np.array([[2, 3, 4, 5], [1, 1, 2, 2]], dtype=float),
                   modifiers=(Part("sinks", {"logits": logits}),))
    trace, want = run(sc), reference(sc, sinks=logits)
    _close(trace.array("attention_weights"), want["weights"], "weights")
    _close(trace.array("sinks.mass"), want["mass"], "mass")
    _close(trace.array("weighted_sum"), want["ctx"], "weighted_sum")
    rows = trace.array("attention_weights").sum(-1)
    assert np.all(rows < 1) and np.allclose(rows + trace.array("sinks.mass"), 1, rtol=0, atol=1e-14)


@pytest.mark.parametrize("fill", [-1e6, -math.inf])
def test_a_fully_masked_row_goes_to_the_sink_whole(fill):
    rng = np.random.default_rng(7)
    sc = _scenario(rng, valid_lens=np.array([0.0, 3.0]), fill_value=fill,
                   modifiers=(Part("sinks", {"logits": [0.0, 1.0, -1.0, 2.0]}),))
    trace = run(sc)
    assert np.all(trace.array("attention_weights")[0] == 0) and np.all(trace.array("sinks.mass")[0] == 1)
    assert np.all(np.isfinite(trace.array("output")))
    (w,) = trace.warnings
    assert w.code == "fully_masked_sink" and "sink" in w.text("en") and "汇聚" in w.text("zh")
    e = explain.explain(trace, "extra.fully_masked", (0, 1))
    assert "sink" in e.text("en") and "NaN" in e.text("en")


# ---------------------------------------------------------------- random combinations


@st.composite
def combos(draw):
    H = draw(st.sampled_from([1, 2, 4]))
    kv = draw(st.sampled_from([k for k in (None, 1, 2) if k is None or H % k == 0]))
    B, L, S = draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(1, 5))
    causal = draw(st.booleans())
    lens = draw(st.sampled_from(["none", "1d", "2d"]))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    valid = {"none": None, "1d": rng.integers(0, S + 1, size=B).astype(float),
             "2d": rng.integers(0, S + 1, size=(B, L)).astype(float)}[lens]
    fill = draw(st.sampled_from([-1e6, -math.inf]))
    alibi = draw(st.sampled_from([None, "key", "relative"]))
    cap = draw(st.sampled_from([None, 0.7, 3.0]))
    sinks = draw(st.booleans())
    slopes = None if alibi is None else list(rng.normal(size=H))
    logits = list(rng.normal(size=H) * 2) if sinks else None
    parts = []
    if alibi:
        parts.append(Part("alibi", {"slopes": slopes, "form": alibi}))
    if cap:
        parts.append(Part("softcap", {"cap": cap}))
    if sinks:
        parts.append(Part("sinks", {"logits": logits}))
    sc = _scenario(rng, B=B, L=L, S=S, H=H, kv=kv, causal=causal, valid_lens=valid, fill_value=fill,
                   modifiers=tuple(parts))
    return sc, dict(slopes=slopes, form=alibi or "key", cap=cap, sinks=logits)


@settings(max_examples=60, deadline=None)
@given(combos())
def test_random_combinations_against_the_reference(combo):
    sc, kw = combo
    trace, want = run(sc), reference(sc, **kw)
    if kw["slopes"] is not None:
        _close(trace.array("alibi.scores"), want["biased"], "alibi.scores")
    if kw["cap"] is not None:
        _close(trace.array("softcap.scores"), want["capped"], "softcap.scores")
    _close(trace.array("masked_scores"), want["masked"], "masked_scores")
    _close(trace.array("attention_weights"), want["weights"], "attention_weights")
    _close(trace.array("weighted_sum"), want["ctx"], "weighted_sum")
    if kw["sinks"] is not None:
        _close(trace.array("sinks.mass"), want["mass"], "sinks.mass")
    # explain recombines every modifier's cell and the weights from the trace's own numbers
    for sid in ("alibi.bias", "alibi.scores", "softcap.scores", "masked_scores", "attention_weights", "sinks.mass"):
        if sid in trace.ids:
            idx = tuple(int(i) for i in np.unravel_index(7 % trace.array(sid).size, trace.array(sid).shape))
            e = explain.explain(trace, sid, idx)
            if math.isfinite(e.value):
                assert e.result == pytest.approx(e.value, rel=1e-9, abs=1e-12), (sid, idx)


# ---------------------------------------------------------------- explain, lessons, script, tiles


def _all_three(rng=None, **more) -> Scenario:
    rng = rng or np.random.default_rng(8)
    return _scenario(rng, causal=True, modifiers=(
        Part("alibi"), Part("softcap", {"cap": 2.0}),
        Part("sinks", {"logits": [0.5, -1.0, 0.0, 1.0][:more.get("H", 4)]})), **more)


def test_explain_names_the_bias_the_cap_and_the_sink():
    trace = run(_all_three())
    bias = explain.explain(trace, "alibi.bias", (1, 2, 3))
    assert bias.value == pytest.approx(paper_slopes(4)[1] * 3) and "slope[1]" in bias.text("en")
    biased = explain.explain(trace, "alibi.scores", (0, 1, 2, 1))
    assert {s.ref for s in biased.sources} == {"scores", "alibi.bias"}
    capped = explain.explain(trace, "softcap.scores", (0, 1, 2, 1))
    assert "tanh" in capped.text("en") and "tanh" in capped.text("zh")
    assert {s.ref for s in capped.sources} == {"alibi.scores"}  # the cap reads the biased score
    masked = explain.explain(trace, "masked_scores", (0, 1, 2, 1))
    assert {s.ref for s in masked.sources} >= {"softcap.scores"}
    w = explain.explain(trace, "attention_weights", (0, 1, 2, 1))
    assert "sinks.logits" in {s.ref for s in w.sources} and w.result == pytest.approx(w.value, rel=1e-12)
    assert "sink" in w.text("en") and "汇聚" in w.text("zh")


def test_lessons_say_the_rows_no_longer_sum_to_one():
    trace = run(_all_three())
    en = lessons.explanation("attention_weights", trace.options, "en")
    assert "sum to 1" not in en and "1 minus the sink" in en
    plain = run(_scenario(np.random.default_rng(8)))
    assert "sum to 1" in lessons.explanation("attention_weights", plain.options, "en")
    for sid in ("alibi.bias", "alibi.scores", "softcap.scores", "sinks.mass"):
        assert lessons.explanation(sid, trace.options, "en") and "。" in lessons.explanation(sid, trace.options, "zh")


@pytest.mark.slow  # starts the exported script in a child process
def test_the_exported_script_reproduces_every_modifier(tmp_path):
    sc = _all_three(kv=2, valid_lens=np.array([5.0, 2.0]))
    path = tmp_path / "modifiers.py"
    path.write_text(script_export.python_script(sc), encoding="utf-8")
    out = subprocess.run([sys.executable, str(path), "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    trace = run(sc)
    shown = [sid for sid in trace.ids if not sid.startswith("extra.")]
    assert list(got) == [sid for sid in script_order(trace) if sid in shown]
    for sid in shown:
        np.testing.assert_allclose(np.array(got[sid]), trace.array(sid), rtol=1e-12, atol=1e-12, err_msg=sid)


def script_order(trace):
    from attention.registry import step_registry

    return step_registry.in_order(trace.ids)


def test_tiles_read_the_biased_capped_scores_and_refuse_sinks():
    from attention.teaching.tiles import TilesError, tiled

    rng = np.random.default_rng(9)
    sc = _scenario(rng, causal=True, modifiers=(Part("alibi"), Part("softcap", {"cap": 2.0})))
    result = tiled(run(sc), 2, 2)
    assert result.how == "read" and result.max_abs_diff < 1e-12
    with pytest.raises(TilesError) as err:
        tiled(run(_all_three()), 2, 2)
    assert err.value.key == "tiles.not_applicable.sinks" and "汇聚" in err.value.text("zh")


# ---------------------------------------------------------------- problems


@pytest.mark.parametrize("parts, code, path", [
    ((Part("alibi", {"slopes": [1.0, 2.0]}),), "alibi_slopes", "modifiers[0].slopes"),
    ((Part("alibi", {"slopes": [1.0, 2.0, math.nan, 1.0]}),), "alibi_slopes_finite", "modifiers[0].slopes"),
    ((Part("alibi", {"form": "diagonal"}),), "expected_choice", "modifiers[0].form"),
    ((Part("softcap", {"cap": 0.0}),), "part_range", "modifiers[0].cap"),
    ((Part("sinks"),), "sinks_logits", "modifiers[0].logits"),
    ((Part("sinks", {"logits": [1.0, math.inf, 0.0, 0.0]}),), "sinks_logits_finite", "modifiers[0].logits"),
    ((Part("softcap"), Part("alibi")), "modifier_order", "modifiers[0]"),
    ((Part("alibi"), Part("alibi")), "part_twice", "modifiers[1]"),
])
def test_bad_parts_are_named(parts, code, path):
    errs = problems(_scenario(np.random.default_rng(0), modifiers=parts))
    assert (errs[0].code, errs[0].path) == (code, path)
    assert errs[0].text("en") and errs[0].text("zh") != errs[0].text("en")
    with pytest.raises(ScenarioError):
        run(_scenario(np.random.default_rng(0), modifiers=parts))


@pytest.mark.parametrize("part", [Part("alibi"), Part("softcap"), Part("sinks", {"logits": [0.0] * 4})])
def test_prob_sparse_refuses_the_modifiers(part):
    sc = _scenario(np.random.default_rng(0), S=8, L=8, scoring="prob_sparse", modifiers=(part,))
    (err,) = problems(sc)
    assert err.code == f"{part.kind}_scoring" and "prob_sparse" in err.text("en")


# ---------------------------------------------------------------- the quiz


def test_a_quiz_hiding_the_sink_mass_hides_the_weights_too():
    from app.viewmodel.quiz_data import plan

    trace = run(_all_three())
    p = plan(trace, ["sinks.mass"])
    assert p.hides("attention_weights") and p.covered["attention_weights"][1].reasons == ("sink_rest",)
    assert "1 minus the sink" in p.note(trace, "en") and "汇聚" in p.note(trace, "zh")
    assert not plan(trace, ["attention_weights"]).hides("sinks.mass")  # the mass does not give each weight


def test_the_masked_scores_repeat_the_biased_scores_through_the_mask():
    from app.viewmodel.quiz_data import plan

    rng = np.random.default_rng(10)
    trace = run(_scenario(rng, causal=True, modifiers=(Part("alibi"),)))
    p = plan(trace, ["alibi.scores"])
    assert p.covered["masked_scores"][1].reasons == ("mask",)


def test_the_by_hand_sheet_shows_the_scores_the_softmax_reads():
    from app.viewmodel import by_hand

    trace = run(_all_three(B=1, H=2, kv=None))
    sheet = by_hand.plan(trace, head=1)
    block = sheet.blocks["scores"]
    assert block.step_id == "softcap.scores" and "tanh" in block.formula
    np.testing.assert_array_equal(block.values, trace.array("softcap.scores")[0, 1])


def test_the_weights_formula_names_the_sink_and_survives_the_cache(tmp_path):
    from attention.files import trace_cache

    sc = _all_three()
    trace = run(sc)
    assert "sink" in trace["attention_weights"].formula["en"] and "汇聚" in trace["attention_weights"].formula["zh"]
    assert "sink" not in run(_scenario(np.random.default_rng(8)))["attention_weights"].formula["en"]
    assert trace_cache.save(trace, sc, tmp_path / "t.npz")
    back = trace_cache.load(sc, tmp_path / "t.npz")
    assert [s.formula for s in back.steps] == [s.formula for s in trace.steps]


def test_the_memory_guard_counts_the_modifiers_steps(monkeypatch):
    """A scenario that fits without modifiers is refused with them when their steps do not fit."""
    from attention.compute import check

    sc = _scenario(np.random.default_rng(0), B=1, L=64, S=64, H=4)
    plain = check.estimate_trace_bytes(1, 64, 64, 4, 2, 2, 8, 8, 8, 8)
    monkeypatch.setattr(check, "memory_limit", lambda: plain + 8 * 4 * 64 * 64)  # room for one more (H, L, S)
    assert problems(sc) == []
    (err,) = problems(_scenario(np.random.default_rng(0), B=1, L=64, S=64, H=4,
                                modifiers=(Part("alibi"), Part("softcap"))))
    assert err.code == "sizes"
