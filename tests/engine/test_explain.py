"""attention.teaching.explain: every cell of every step, for every preset and kind, is written out as terms
that recombine to the trace's own number; a few cells are checked against plain torch here.

Independent checks: each explained term's factors are looked up again at the cells its sources
name (in the trace or its parameters), each step's recombination rule is applied here to the
terms, and chosen cells are recomputed with plain torch from `trace.parameters` (projections,
head split, scores, softmax, additive tanh units), the seed's hand numbers and numpy masks."""
from __future__ import annotations

import dataclasses
import itertools
import json
import math

import numpy as np
import pytest
import test_engine_properties as props
import torch
from engine_helpers import rand_projection, scenario
from hypothesis import given, settings

from attention import PIPELINE, Additive, Projection, Scenario, run
from attention.compute.trace import Trace
from attention.files import scenario_io
from attention.teaching.explain import ExplainError, explain, explainable
from attention.text.explanation import Explanation
from resources import list_presets

PRESETS = [p for p, _ in list_presets()]


# ---- scenarios beyond the presets: every kind, mask and fill ---------------------------------------

def _variants() -> dict[str, Scenario]:
    rng = np.random.default_rng(7)
    out = {
        "lens1_zero_d2l": scenario(rng, 2, 3, 4, 4, 2, scoring="scaled_dot", valid_lens=np.array([0.0, 3.0])),
        "lens2_zero_inf": scenario(rng, 2, 3, 4, 4, 2, scoring="dot", fill_value=-np.inf,
                                   valid_lens=np.array([[1.0, 0.0, 4.0], [2.0, 3.0, 0.0]])),
        "lens1_causal_inf": scenario(rng, 2, 4, 4, 4, 1, scoring="scaled_dot", causal=True, fill_value=-np.inf,
                                     valid_lens=np.array([2.0, 4.0])),
        "causal_L_ne_S": scenario(rng, 1, 3, 5, 4, 2, causal=True, scale=0.3),
        "no_bias_identity": Scenario(rng.normal(size=(1, 3, 4)), rng.normal(size=(1, 2, 4)), rng.normal(size=(1, 2, 4)),
                                     n_heads=2, projections={"query": rand_projection(rng, 4, 4, bias=False),
                                                             "out": Projection(rng.normal(size=(3, 4)))}),
        "additive_scaled_masked": Scenario(
            rng.normal(size=(2, 2, 4)), rng.normal(size=(2, 3, 6)), rng.normal(size=(2, 3, 2)), n_heads=2,
            d_values=1, scoring="additive", scale=0.5, valid_lens=np.array([[1.0, 0.0], [3.0, 2.0]]),
            additive=Additive(3, rng.normal(size=(2, 3, 2)), rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 3)))),
        "float32": dataclasses.replace(scenario(rng, 1, 3, 3, 4, 2, valid_lens=np.array([2.0])), dtype="float32"),
    }
    sparse = scenario_io.load(next(p for p in PRESETS if p.name.startswith("07_")))
    out["sparse_causal"] = dataclasses.replace(sparse, causal=True, fill_value=-np.inf)
    out["sparse_mix"] = dataclasses.replace(sparse, mix=True)
    out["sparse_small_mix_causal"] = scenario(rng, 2, 6, 6, 4, 2, scoring="prob_sparse", factor=1, causal=True,
                                              mix=True, seed=3)
    return out


VARIANTS = _variants()
CASES = {p.name: scenario_io.load(p) for p in PRESETS} | VARIANTS


@pytest.fixture(scope="module")
def traces() -> dict[str, Trace]:
    return {name: run(sc) for name, sc in CASES.items()}


# ---- the generic checks ---------------------------------------------------------------------------

def _same(a: float, b: float, rel: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=rel, abs_tol=rel)


def _lookup(tr: Trace, ref: str, index: tuple[int, ...]) -> float:
    if ref in tr:
        return float(tr.array(ref)[index])
    return float(tr.parameters[ref][index])


def _recombine(tr: Trace, ex: Explanation) -> float:
    """The step's rule applied here to the term values (not the module's `result`)."""
    vals = [t.value for t in ex.terms]
    sid = ex.step_id
    lazy = (tr.options["scoring"] == "prob_sparse"
            and not tr.array("extra.selected")[ex.index[0], ex.index[1], ex.index[2]]
            if sid in ("scores", "masked_scores", "attention_weights") else False)
    if sid in ("scores", "masked_scores") and lazy:
        assert vals == []
        return math.nan
    if sid == "scores":
        return tr.options["scale"] * math.fsum(vals)
    if sid == "attention_weights" and not lazy:
        return vals[ex.index[3]] / sum(vals)
    if sid == "alibi.scores":  # the score (as read there) plus ALiBi's bias
        return math.fsum(vals)
    if sid == "softcap.scores":  # cap · tanh(score / cap)
        cap = next(p["cap"] for p in tr.options["modifiers"] if p["kind"] == "softcap")
        return cap * math.tanh(vals[0] / cap)
    if sid == "sinks.mass":  # the sink's term (the last) over every term of the row
        return vals[-1] / sum(vals)
    if sid == "extra.sparsity":
        return max(vals) - sum(vals) / tr.options["S"]
    if sid == "extra.additive_features":  # tanh of (W_q q)[n] + (W_k k)[n]: every product one term
        return math.tanh(math.fsum(vals))
    if sid in ("weighted_sum", "extra.sampled_scores") or sid.startswith("projection.") or sid == "output":
        return math.fsum(vals) if all(map(math.isfinite, vals)) else sum(vals)
    if sid == "extra.fully_masked":  # all of the row's mask cells
        assert vals and set(vals) <= {0.0, 1.0}
        return float(all(v == 1.0 for v in vals))
    if sid.startswith("rope."):  # x[e]·cos θ ∓ x[partner]·sin θ (one copy where the column does not turn)
        return math.fsum(vals)
    if sid.startswith("qk_norm."):  # the row's squares, then the weight: x[e] / √(mean + eps) · (w or 1 + w)
        (part,) = [p for p in tr.options["modifiers"] if p["kind"] == "qk_norm"]
        squares, w = vals[:-1], vals[-1]
        x = ex.terms[ex.index[-1]].factors[0]
        factor = w if part["style"] == "qwen3" else 1.0 + w
        return x / math.sqrt(math.fsum(squares) / len(squares) + part["eps"]) * factor
    if sid in ("extra.sample_count", "extra.selected"):  # one term of 1 per matching draw / top_index entry
        assert set(vals) <= {1.0}
        return float(len(vals))
    b = ex.index[0]
    if sid == "extra.destationary":  # DSAttention: the q·k products, then Δ; times τ of the series
        return math.fsum(vals[:-1]) * float(tr.parameters["ds_attention.tau"][b]) + vals[-1]
    if sid in ("extra.correlation", "extra.residual_attention", "extra.residual_ffn", "extra.ffn_out"):
        return math.fsum(vals)  # a sum over lags' products, two residual terms, a conv's products and bias
    if sid == "extra.mean_correlation":
        return math.fsum(vals) / len(vals)
    if sid == "extra.lag_weights":  # the exps of the k lag scores
        return vals[ex.index[1]] / math.fsum(vals)
    if sid == "extra.ffn_hidden":  # conv1's products and bias, then the activation
        pre = math.fsum(vals)
        act = next(m["activation"] for m in tr.options["modifiers"] if m["kind"] == "encoder_layer")
        return max(pre, 0.0) if act == "relu" else 0.5 * pre * (1.0 + math.erf(pre / math.sqrt(2.0)))
    if sid == "extra.distil_conv":  # the kernel-3 conv: every product, then the bias
        return math.fsum(vals)
    if sid == "extra.distil_norm":  # eval BatchNorm of the conv cell with the channel's running statistics
        c = ex.index[2]
        rm, rv, g, beta = (float(tr.parameters[f"distil.{w}"][c])
                           for w in ("running_mean", "running_var", "norm_weight", "norm_bias"))
        return (vals[0] - rm) / math.sqrt(rv + 1e-5) * g + beta
    if sid == "extra.distil_elu":
        return vals[0] if vals[0] > 0 else math.expm1(vals[0])
    if sid == "extra.distil_pool":  # the largest of the window's activated steps
        return max(vals)
    if sid.startswith("extra.tsa_"):  # Crossformer's two-stage layer
        return _two_stage_rule(tr, ex, vals)
    if sid in ("extra.norm_first", "extra.norm_second"):  # the row's values: LayerNorm of value c
        c, n = ex.index[2], len(vals)
        mean = math.fsum(vals) / n
        var = math.fsum((v - mean) ** 2 for v in vals) / n
        which = "norm1" if sid == "extra.norm_first" else "norm2"
        g, beta = (float(tr.parameters[f"encoder_layer.{which}_{w}"][c]) for w in ("weight", "bias"))
        return (vals[c] - mean) / math.sqrt(var + 1e-5) * g + beta
    assert len(vals) == 1, sid  # copies: head split, concat, masked score, lazy weight, mask, sample/top index
    return vals[0]


def _two_stage_rule(tr: Trace, ex: Explanation, vals: list[float]) -> float:
    """The two-stage steps' rules: LayerNorm of a residual row, a Linear (then GELU), a scaled dot
    product, a softmax row."""
    sid, c = ex.step_id, ex.index[-1]
    norms = {"extra.tsa_time_norm": "norm1", "extra.tsa_dim_in": "norm2", "extra.tsa_dim_norm": "norm3",
             "extra.tsa_output": "norm4"}
    if sid in norms:
        n = len(vals)
        mean = math.fsum(vals) / n
        var = math.fsum((v - mean) ** 2 for v in vals) / n
        g, beta = (float(tr.parameters[f"two_stage.{norms[sid]}_{w}"][c]) for w in ("weight", "bias"))
        return (vals[c] - mean) / math.sqrt(var + 1e-5) * g + beta
    if sid.endswith("_weights"):
        return vals[c] / math.fsum(vals)
    if sid.endswith("_scores"):  # Σ q·k over the head's d_k columns, times 1/√d_k
        return math.fsum(vals) / math.sqrt(len(vals))
    pre = math.fsum(vals)
    return 0.5 * pre * (1.0 + math.erf(pre / math.sqrt(2.0))) if sid.endswith("_hidden") else pre


def _check_extra_sources(tr: Trace, sid: str, idx: tuple[int, ...], ex: Explanation) -> None:
    """The ProbSparse and mask extras: each term's source cell really says what the term claims."""
    if sid == "extra.fully_masked":
        b, l = idx
        assert ([(s.ref, s.index) for t in ex.terms for s in t.sources]
                == [("extra.mask", (b, l, s)) for s in range(tr.options["S"])])
        assert ([t.value for t in ex.terms]
                == [float(_lookup(tr, "extra.mask", (b, l, s))) for s in range(tr.options["S"])])
    elif sid == "extra.sample_count":
        for t in ex.terms:
            (src,) = t.sources
            assert (src.ref == "extra.sample_index" and src.index[0] == idx[0]
                    and _lookup(tr, src.ref, src.index) == idx[1])
    elif sid == "extra.selected":
        for t in ex.terms:
            (src,) = t.sources
            assert (src.ref == "extra.top_index" and src.index[:2] == idx[:2]
                    and _lookup(tr, src.ref, src.index) == idx[2])
    elif sid == "extra.top_index":
        (t,) = ex.terms
        assert [(s.ref, s.index) for s in t.sources] == [("extra.sparsity", (idx[0], idx[1], int(ex.value)))]


def _check_cell(tr: Trace, sid: str, idx: tuple[int, ...], rel: float) -> None:
    ex = explain(tr, sid, idx)
    assert ex.step_id == sid and ex.index == idx
    raw = tr.array(sid)[idx]
    assert ex.value == float(raw) or (math.isnan(ex.value) and math.isnan(float(raw)))
    assert _same(ex.result, ex.value, rel), (sid, idx, ex.result, ex.value)
    assert _same(_recombine(tr, ex), ex.value, rel), (sid, idx)
    for t in ex.terms:
        if t.factors:
            assert _same(math.prod(t.factors), t.value, 1e-12), (sid, idx, t)
        if t.factors and len(t.factors) == len(t.sources):  # x·w, q·k, a·v: each factor is its source cell
            for f, s in zip(t.factors, t.sources):
                assert _same(f, _lookup(tr, s.ref, s.index), 1e-12), (sid, idx, s)
    if len(ex.terms) == 1 and len(ex.terms[0].sources) >= 1 and sid in ("head_split.query", "head_split.key",
                                                                       "head_split.value", "concat"):
        s = ex.terms[0].sources[0]
        assert _same(_lookup(tr, s.ref, s.index), ex.value, 0.0)
    assert set(ex.sources) >= {s for t in ex.terms for s in t.sources}
    _check_extra_sources(tr, sid, idx, ex)
    assert ex.text("en") and ex.text("zh") and ex.formula["en"] and ex.summary["zh"]


#: every cell of these traces is explained and recombined: the big ones are slow
BIG_CASES = {"sparse_mix", "sparse_causal", "07_informer_probsparse.json", "02_tsl_real_config.json",
             "09_trained_tsl_period.json",  # 09: ~5 s alone, the slowest of the quick loop
             "40_trained_autoformer_two_periods.json", "41_trained_nonstationary_drift.json",  # 150 s, 9 s
             "24_gemma3_local_global.json"}  # 640-wide projections: 71 s of the quick loop under xdist


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in BIG_CASES else n for n in CASES])
def test_every_cell_recombines_to_the_trace(traces, name):
    tr = traces[name]
    rel = 1e-5 if tr.options["dtype"] == "float32" else 1e-10
    assert set(PIPELINE) <= set(explainable(tr))
    assert explainable(tr) == tr.ids  # every step, the extras included
    for sid in explainable(tr):
        shape = tr.array(sid).shape
        for idx in itertools.product(*map(range, shape)):
            _check_cell(tr, sid, idx, rel)


@pytest.mark.slow
@settings(max_examples=25)
@given(props.scenarios())
def test_random_scenarios_recombine(sc: Scenario):
    tr = run(sc)
    rng = np.random.default_rng(0)
    for sid in explainable(tr):
        shape = tr.array(sid).shape
        for _ in range(6):
            _check_cell(tr, sid, tuple(int(rng.integers(n)) for n in shape), 1e-9)


# ---- terms against plain torch ----------------------------------------------------------------------

def _torch_heads(tr: Trace, name: str, x: str) -> torch.Tensor:
    """The projection and head split by hand from the trace's parameters: (B, N, H, d)."""
    p = tr.parameters
    y = p[x]
    if f"projection.{name}.weight" in p:
        y = y @ p[f"projection.{name}.weight"].T
        if f"projection.{name}.bias" in p:
            y = y + p[f"projection.{name}.bias"]
    B, N, W = y.shape
    return y.reshape(B, N, tr.options["n_heads"], W // tr.options["n_heads"])


def test_score_terms_are_q_times_k_from_the_parameters(traces):
    tr = traces["causal_L_ne_S"]  # projected with bias, explicit scale 0.3
    q, k = _torch_heads(tr, "query", "queries"), _torch_heads(tr, "key", "keys")
    for b, h, l, s in [(0, 0, 0, 0), (0, 1, 2, 4), (0, 1, 1, 3)]:
        ex = explain(tr, "scores", (b, h, l, s))
        products = (q[b, l, h] * k[b, s, h]).tolist()
        assert [t.value for t in ex.terms] == pytest.approx(products, rel=1e-12, abs=1e-14)
        assert ex.result == pytest.approx(0.3 * sum(products), rel=1e-12)
        assert ex.value == pytest.approx(0.3 * float(q[b, l, h] @ k[b, s, h]), rel=1e-12)


def test_projection_terms_are_input_times_weight_plus_bias(traces):
    tr = traces["causal_L_ne_S"]
    p = tr.parameters
    ex = explain(tr, "projection.key", (0, 4, 3))
    x, w, bias = p["keys"][0, 4], p["projection.key.weight"][3], p["projection.key.bias"][3]
    assert [t.value for t in ex.terms] == pytest.approx((x * w).tolist() + [float(bias)], rel=1e-12)
    assert ex.terms[-1].sources[0].ref == "projection.key.bias"
    assert ex.result == pytest.approx(float(x @ w + bias), rel=1e-12)


def test_no_bias_and_identity_projections_say_so(traces):
    tr = traces["no_bias_identity"]
    ex = explain(tr, "projection.query", (0, 1, 2))
    assert len(ex.terms) == 4 and all(t.factors for t in ex.terms)  # no bias term
    assert "no bias" in ex.combine["en"] and "无偏置" in ex.combine["zh"]
    ex = explain(tr, "projection.key", (0, 1, 2))  # no key projection: the input copied
    assert ex.value == float(tr.parameters["keys"][0, 1, 2])
    assert [s.ref for s in ex.sources] == ["keys"] and "identity" in ex.formula["en"]
    ex = explain(tr, "output", (0, 2, 1))  # out projection without a bias, 3 outputs
    assert ex.result == pytest.approx(
        float(tr.array("concat")[0, 2] @ tr.parameters["projection.out.weight"][1].numpy()))


def test_head_split_names_the_projected_column(traces):
    tr = traces["lens1_zero_d2l"]  # d_model 4, H 2: d_k 2
    ex = explain(tr, "head_split.value", (1, 2, 1, 0))
    assert ex.sources[0].ref == "projection.value" and ex.sources[0].index == (1, 2, 2)


def test_softmax_terms_match_torch_softmax(traces):
    tr = traces["lens1_causal_inf"]
    row = torch.as_tensor(tr.array("masked_scores")[1, 0, 2])
    ex = explain(tr, "attention_weights", (1, 0, 2, 1))
    exps = torch.exp(row - row.max())
    assert [t.value for t in ex.terms] == pytest.approx(exps.tolist(), rel=1e-12)
    assert ex.result == pytest.approx(float(torch.softmax(row, -1)[1]), rel=1e-12)
    assert [t.masked for t in ex.terms] == [False, False, False, True]  # causal: key 3 > query 2


def test_additive_terms_are_w_v_times_tanh(traces):
    tr = traces["additive_scaled_masked"]  # query head width 2, key head width 3, hidden 3, scale 0.5
    q, k = tr.parameters["queries"].reshape(2, 2, 2, 2), tr.parameters["keys"].reshape(2, 3, 2, 3)
    Wq, Wk, wv = (tr.parameters[f"additive.{n}"] for n in ("W_q", "W_k", "w_v"))
    b, h, l, s = 1, 1, 0, 2
    units = torch.tanh(Wq[h] @ q[b, l, h] + Wk[h] @ k[b, s, h])  # (hidden,)
    ex = explain(tr, "scores", (b, h, l, s))
    assert [t.factors[1] for t in ex.terms] == pytest.approx(units.tolist(), rel=1e-12)
    assert [t.value for t in ex.terms] == pytest.approx((wv[h] * units).tolist(), rel=1e-12)
    assert ex.value == pytest.approx(0.5 * float(wv[h] @ units), rel=1e-12)
    assert "tanh" in ex.formula["en"] and "scale" in ex.formula["en"]


# ---- masks, fully masked rows, ProbSparse --------------------------------------------------------------

def test_masked_scores_say_why(traces):
    tr = traces["lens1_causal_inf"]  # valid_lens [2, 4], causal, fill -inf
    ex = explain(tr, "masked_scores", (0, 0, 3, 2))  # key 2 >= 2 and 2 <= 3
    assert ex.value == -math.inf and ex.terms[0].masked
    assert "valid length 2" in ex.summary["en"] and "causal" not in ex.summary["en"] and "-∞" in ex.summary["en"]
    ex = explain(tr, "masked_scores", (1, 0, 1, 3))  # item 1 has length 4; causal: 3 > 1
    assert "causal" in ex.summary["en"] and "valid length" not in ex.summary["en"]
    ex = explain(tr, "masked_scores", (0, 0, 1, 3))  # both reasons
    assert "valid length 2" in ex.summary["en"] and "causal" in ex.summary["en"] and "因果" in ex.summary["zh"]
    ex = explain(tr, "masked_scores", (1, 0, 3, 2))
    assert ex.value == float(tr.array("scores")[1, 0, 3, 2]) and ex.summary["en"].startswith("Kept")
    tr = traces["lens2_zero_inf"]  # 2-D: row index 1 of item 0 has length 0
    ex = explain(tr, "masked_scores", (0, 0, 1, 0))
    assert "query row 2" in ex.summary["en"] and "valid length 0" in ex.summary["en"]  # positions from 1
    ex = explain(traces["lens1_zero_d2l"], "masked_scores", (0, 1, 2, 0))
    assert ex.value == -1e6 and "-1e6" in ex.summary["en"]
    ex = explain(traces[PRESETS[0].name], "masked_scores", (0, 0, 0, 0))  # the toy: no mask
    assert "no mask" in ex.summary["en"]


def test_fully_masked_rows_as_the_engine_computes_them(traces):
    tr = traces["lens1_zero_d2l"]  # item 0: valid length 0, fill -1e6 -> uniform 1/S (S = 4)
    ex = explain(tr, "attention_weights", (0, 1, 2, 3))
    assert ex.value == pytest.approx(0.25) and ex.result == pytest.approx(0.25)
    assert all(t.masked and t.value == 1.0 for t in ex.terms) and "uniform" in ex.summary["en"]
    tr = traces["lens2_zero_inf"]  # -inf: NaN weights and NaN weighted sum
    ex = explain(tr, "attention_weights", (0, 0, 1, 2))
    assert math.isnan(ex.value) and math.isnan(ex.result) and "NaN" in ex.summary["en"]
    ws = explain(tr, "weighted_sum", (0, 1, 0, 0))
    assert math.isnan(ws.value) and math.isnan(ws.result)


def _sparse_lazy(tr: Trace) -> tuple[int, int, int]:
    b, h, l = np.argwhere(~tr.array("extra.selected"))[0]
    return int(b), int(h), int(l)


def test_prob_sparse_lazy_rows(traces):
    tr = traces["07_informer_probsparse.json"]
    b, h, l = _sparse_lazy(tr)
    ex = explain(tr, "scores", (b, h, l, 0))
    assert math.isnan(ex.value) and ex.terms == () and "never computed" in ex.summary["en"].lower()
    S = tr.options["S"]
    ex = explain(tr, "attention_weights", (b, h, l, 5))
    assert ex.value == pytest.approx(1 / S) and "mean of V" in ex.summary["en"]
    ws = explain(tr, "weighted_sum", (b, l, h, 1))
    v = tr.array("head_split.value")[b, :, h, 1]
    assert ws.result == pytest.approx(v.mean(), rel=1e-12)  # the mean of V, by numpy
    assert "mean of V" in ws.summary["en"]

    tr = traces["sparse_causal"]
    b, h, l = _sparse_lazy(tr)
    ws = explain(tr, "weighted_sum", (b, l, h, 0))
    v = tr.array("head_split.value")[b, :, h, 0]
    assert ws.result == pytest.approx(v[:l + 1].sum(), rel=1e-12) and "cumulative sum" in ws.summary["en"]
    assert explain(tr, "attention_weights", (b, h, l, l)).value == 1.0
    if l + 1 < tr.options["S"]:
        assert explain(tr, "attention_weights", (b, h, l, l + 1)).value == 0.0


def test_mix_concat_reads_another_position(traces):
    tr = traces["sparse_mix"]
    ctx = torch.as_tensor(tr.array("weighted_sum"))  # (B, L, H, D)
    B, L, H, D = ctx.shape
    expected = ctx.transpose(1, 2).reshape(B, L, H * D)  # TSL's transpose-free view, by hand
    moved = 0
    for l, c in [(0, 1), (1, 0), (L - 1, H * D - 1), (L // 2, D)]:
        ex = explain(tr, "concat", (0, l, c))
        assert ex.value == float(expected[0, l, c])
        src = ex.sources[0]
        assert src.ref == "weighted_sum" and float(ctx[src.index]) == ex.value
        moved += src.index[1] != l
    assert moved and "mix" in ex.summary["en"]


SPARSE = ["07_informer_probsparse.json", "sparse_causal", "sparse_mix", "sparse_small_mix_causal"]
MASKED = [name for name, sc in CASES.items() if sc.causal or sc.valid_lens is not None]


@pytest.mark.parametrize("name", SPARSE)
def test_sample_index_is_the_seeded_randint(traces, name):
    tr = traces[name]
    o = tr.options
    want = torch.randint(o["S"], (o["L"], o["n_sample"]), generator=torch.Generator().manual_seed(o["seed"])).numpy()
    for l, j in [(0, 0), (o["L"] - 1, o["n_sample"] - 1), (o["L"] // 2, 1)]:
        ex = explain(tr, "extra.sample_index", (l, j))
        assert ex.value == ex.result == float(want[l, j])
        assert f"manual_seed({o['seed']})" in ex.formula["en"] and "every batch item and head" in ex.summary["en"]


@pytest.mark.parametrize("name", SPARSE)
def test_sample_count_is_a_bincount_of_the_draws(traces, name):
    tr = traces[name]
    idx, S = tr.array("extra.sample_index"), tr.options["S"]
    for l in range(idx.shape[0]):
        counts = np.bincount(idx[l], minlength=S)
        got = [explain(tr, "extra.sample_count", (l, s)) for s in range(S)]
        assert [ex.result for ex in got] == counts.tolist()
        assert [len(ex.terms) for ex in got] == counts.tolist()
    never = tuple(int(i) for i in np.argwhere(np.bincount(idx[0], minlength=S) == 0)[0])
    assert explain(tr, "extra.sample_count", (0, *never)).terms == ()  # S > n_sample here: a key never drawn


@pytest.mark.parametrize("name", SPARSE)
def test_selected_and_top_index_from_numpy(traces, name):
    tr = traces[name]
    top, M = tr.array("extra.top_index"), tr.array("extra.sparsity")
    B, H, L = M.shape
    want = np.zeros((B, H, L), dtype=bool)
    np.put_along_axis(want, top, True, axis=-1)
    u = top.shape[-1]
    for b, h in itertools.product(range(B), range(H)):
        for l in range(L):
            ex = explain(tr, "extra.selected", (b, h, l))
            assert ex.result == float(want[b, h, l]) and len(ex.terms) == int(want[b, h, l])
            assert ("Active" if want[b, h, l] else "Lazy") in ex.summary["en"]
        largest = set(np.argsort(-M[b, h], kind="stable")[:u].tolist())
        assert set(top[b, h].tolist()) == largest  # the u largest M (no ties in these scenarios)
        for r in range(u):
            ex = explain(tr, "extra.top_index", (b, h, r))
            l = int(top[b, h, r])
            rank = 1 + int(np.sum(M[b, h] > M[b, h, l]))
            assert ex.result == l and f"rank {rank} of {L}" in ex.terms[0].text["en"]
            assert f"smallest chosen M = {M[b, h, top[b, h]].min():.4g}" in ex.summary["en"]


@pytest.mark.parametrize("name", MASKED)
def test_fully_masked_is_all_of_the_mask_row(traces, name):
    tr = traces[name]
    want = tr.array("extra.mask").all(axis=-1)
    for b, l in itertools.product(*map(range, want.shape)):
        ex = explain(tr, "extra.fully_masked", (b, l))
        assert ex.result == ex.value == float(want[b, l])
        assert sum(t.masked for t in ex.terms) == int(tr.array("extra.mask")[b, l].sum())


def test_fully_masked_says_what_the_fill_does(traces):
    ex = explain(traces["lens1_zero_d2l"], "extra.fully_masked", (0, 1))  # item 0: valid length 0, fill -1e6
    assert (ex.value == 1.0 and "uniform" in ex.summary["en"] and "1/S = 1/4" in ex.summary["en"]
            and "均匀" in ex.summary["zh"])
    ex = explain(traces["lens2_zero_inf"], "extra.fully_masked", (0, 1))  # row 1 of item 0: length 0, fill -inf
    assert ex.value == 1.0 and "NaN" in ex.summary["en"]
    ex = explain(traces["lens2_zero_inf"], "extra.fully_masked", (0, 0))  # length 1: key index 0 is still seen
    assert ex.value == 0.0 and "sees 1 of 4 keys (1)" in ex.summary["en"]  # key 1, counted from 1

# ---- the seed's toy by hand --------------------------------------------------------------------------

def test_seed_toy_by_hand(traces):
    tr = traces["01_tsl_toy.json"]  # identity weights, H = 2, d_k = 2
    ex = explain(tr, "scores", (0, 0, 0, 3))  # head 1 of q1 = [1, 0], of k4 = [2, 0]
    assert [t.value for t in ex.terms] == [2.0, 0.0]
    assert ex.result == pytest.approx(2 / math.sqrt(2))
    assert "1/√2" in ex.summary["en"] and "= 1.414" in ex.text()  # 2/√2 to 4 significant digits
    ex = explain(tr, "weighted_sum", (0, 1, 0, 0))  # the note: row 2 of head 1 is exactly 13
    assert ex.value == pytest.approx(13.0) and [t.factors[1] for t in ex.terms] == [10, 12, 14, 16]


# ---- errors and output ------------------------------------------------------------------------------

def test_errors_name_what_was_wrong(traces):
    tr = traces["01_tsl_toy.json"]
    with pytest.raises(ExplainError,
                       match=r"unknown or not explainable 'scorez'; expected one of projection.query, .*output"):
        explain(tr, "scorez", (0, 0, 0, 0))
    with pytest.raises(ExplainError,
                       match=r"scores has 4 dims \(B, H, L, S\) of sizes \[1, 2, 4, 4\]; expected 4 indices, got 3"):
        explain(tr, "scores", (0, 0, 0))
    with pytest.raises(ExplainError, match=r"dim 1 \(H\) has size 2; expected 0 \.\.\. 1, got 2"):
        explain(tr, "scores", (0, 2, 0, 0))
    with pytest.raises(ExplainError, match=r"dim 0 \(B\) has size 1; expected 0 \.\.\. 0, got -1"):
        explain(tr, "output", (-1, 0, 0))
    with pytest.raises(ExplainError, match=r"dim 2 \(H\*dk\) expects a whole number, got 1.5"):
        explain(tr, "projection.query", (0, 0, 1.5))
    assert "extra.sparsity" not in explainable(tr)
    cached = Trace(tr.steps, tr.options, {}, tr.warnings)  # as attention.files.trace_cache reads one back
    with pytest.raises(ExplainError, match="no parameters"):
        explain(cached, "projection.query", (0, 0, 0))
    assert explain(cached, "scores", (0, 0, 0, 3)).result == pytest.approx(2 / math.sqrt(2))  # needs only steps


def test_to_dict_is_strict_json(traces):
    tr = traces["lens2_zero_inf"]
    for sid, idx in [("attention_weights", (0, 0, 1, 2)), ("masked_scores", (0, 0, 1, 0)), ("scores", (1, 0, 1, 2))]:
        d = json.loads(json.dumps(explain(tr, sid, idx).to_dict(), allow_nan=False))
        assert d["step_id"] == sid and d["index"] == list(idx)
        assert {"value", "result", "formula", "combine", "summary", "terms", "sources"} <= set(d)
    assert d["terms"][0]["sources"][0]["ref"] == "head_split.query"
    assert json.loads(json.dumps(explain(tr, "masked_scores", (0, 0, 1, 0)).to_dict()))["value"] == "-Infinity"


def test_indices_counts_and_flags_print_as_such():
    """The first line prints an index or a count as a whole number and a flag as True/False."""
    tr = run(scenario_io.load(next(p for p in PRESETS if p.name.startswith("07_"))))
    l = int(tr.array("extra.top_index")[0, 0, 0])
    assert explain(tr, "extra.top_index", (0, 0, 0)).text().splitlines()[0].endswith(f"= {l}")
    flag = bool(tr.array("extra.selected")[0, 0, 0])
    assert explain(tr, "extra.selected", (0, 0, 0)).text().splitlines()[0].endswith(f"= {flag}")
