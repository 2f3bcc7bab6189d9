"""The Time-Series-Library kinds registered in the design (issue 18): Pyraformer's pyramid mask rule,
DSAttention and Auto-Correlation as scoring kinds, run through `engine.run` and checked against the
library's own module code (the copies in tests/engine/test_tsl_family.py, MIT, thuml; see there) and
against float64 references written here."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from test_tsl_family import FullAttention, get_mask

from attention import Scenario, problems, run, words
from attention.datamodel.parts import Part
from attention.files import scenario_io
from attention.teaching import explain, lessons
from attention.teaching.script_export import python_script
from attention.text import explanation
from resources import list_presets

PRESETS = {p.name: p for p, _ in list_presets()}


@pytest.fixture(autouse=True)
def _time_series_words(monkeypatch):
    """The "time_series" words topic counted in, should the catalogue not list it."""
    if "time_series" not in words.TOPICS:
        monkeypatch.setattr(words, "TOPICS", words.TOPICS + ("time_series",))
        words.table.cache_clear()
    yield
    words.table.cache_clear()


class _Mask:
    """What FullAttention reads of a mask object (TSL's masks keep the tensor in `.mask`)."""

    def __init__(self, mask):
        self.mask = mask


def _run_scripts(scenarios: dict) -> dict:
    """Each scenario's exported script run once (`--json --dtype float64`): name -> {step: nested lists}."""
    driver = ("import contextlib, io, json, runpy, sys\nout = {}\nfor path in sys.argv[1:]:\n"
              "    sys.argv = [path, '--json', '--dtype', 'float64']\n    buf = io.StringIO()\n"
              "    with contextlib.redirect_stdout(buf):\n        runpy.run_path(path, run_name='__main__')\n"
              "    out[path] = json.loads(buf.getvalue())\nprint(json.dumps(out))\n")
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp())
    paths = {}
    for i, (name, sc) in enumerate(scenarios.items()):
        paths[name] = folder / f"s{i}.py"
        paths[name].write_text(python_script(sc), encoding="utf-8")
    res = subprocess.run([sys.executable, "-c", driver, *map(str, paths.values())], capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    return {name: got[str(p)] for name, p in paths.items()}


# ---------------------------------------------------------------- Pyraformer's pyramid mask rule

PYRAMIDS = [(8, [2, 2], 3), (10, [4], 3), (13, [2, 3, 2], 4), (9, [3, 3], 1)]


def _pyramid_scenario(input_size, window, inner, B=2, H=2, E=4, seed=0, **more) -> Scenario:
    N = sum(get_mask(input_size, window, inner)[1])
    rng = np.random.default_rng(seed)
    x = [rng.normal(size=(B, N, H * E)) for _ in range(3)]
    part = Part("pyramid", {"input_size": input_size, "window_size": np.array(window, float), "inner_size": inner})
    return Scenario(*x, n_heads=H, fill_value=-np.inf, masks=(part,), **more)


@pytest.mark.parametrize("input_size,window,inner", PYRAMIDS)
def test_pyramid_rule_masks_as_get_mask_and_attends_as_full_attention(input_size, window, inner):
    sc = _pyramid_scenario(input_size, window, inner)
    assert problems(sc) == []
    trace = run(sc)
    lib_mask, _ = get_mask(input_size, window, inner)  # (N, N) True = masked
    assert np.array_equal(trace.array("extra.mask"), np.broadcast_to(lib_mask.numpy(), trace.array("extra.mask").shape))
    q, k, v = (torch.as_tensor(a).reshape(a.shape[0], a.shape[1], 2, 4) for a in (sc.queries, sc.keys, sc.values))
    lib = FullAttention(mask_flag=True, attention_dropout=0.0, output_attention=True).eval()
    out, A = lib(q, k, v, _Mask(lib_mask[None, None]))
    np.testing.assert_allclose(trace.array("attention_weights"), A.numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(trace.array("weighted_sum"), out.numpy(), rtol=0, atol=1e-12)


def test_pyramid_rule_combines_with_causal_and_names_each_reason():
    sc = _pyramid_scenario(8, [2, 2], 3, causal=True)
    trace = run(sc)
    lib_mask, _ = get_mask(8, [2, 2], 3)
    causal = np.triu(np.ones((14, 14), bool), 1)
    assert np.array_equal(trace.array("extra.mask")[0], lib_mask.numpy() | causal)
    # query 8 (scale 2 node 1) and key 0 (its child t0): kept by the pyramid, kept by causal (0 <= 8)
    e = explain.explain(trace, "extra.mask", (0, 8, 0))
    assert "scale 1 node 1 is one of scale 2 node 1's children" in e.summary["en"]
    assert "子节点" in e.summary["zh"]
    # query 0 and key 8 (its parent): the pyramid keeps it, causal masks it (8 > 0)
    e = explain.explain(trace, "extra.mask", (0, 0, 8))
    assert e.value == 1.0 and e.summary["en"] == "Masked: causal: key 9 comes after query 1."
    # query 0 and key 5: masked by the pyramid (and by causal)
    e = explain.explain(trace, "extra.mask", (1, 0, 5))
    assert e.value == 1.0 and ("pyramid: scale 1 node 6 is neither a near neighbour of scale 1 node 1 on its scale"
                               in e.summary["en"])
    assert "金字塔：" in e.summary["zh"]


def test_pyramid_lesson_is_said_when_the_rule_applies():
    trace = run(_pyramid_scenario(8, [2, 2], 3))
    for lang, word in (("en", "Pyraformer's pyramid"), ("zh", "金字塔")):
        assert word in lessons.explanation("extra.mask", trace.options, lang)
    plain = run(Scenario(*(np.ones((1, 3, 2)),) * 3, causal=True))
    assert "Pyraformer" not in lessons.explanation("extra.mask", plain.options, "en")


@pytest.mark.parametrize("values, path, code", [
    ({"input_size": 9, "window_size": np.array([2.0, 2.0])}, "masks[0].input_size", "pyramid_nodes"),
    ({"input_size": 14, "window_size": np.array([2.0, 0.5])}, "masks[0].window_size[1]", "pyramid_window"),
    ({"input_size": 14, "window_size": np.array([[2.0]])}, "masks[0].window_size", "pyramid_windows"),
    ({"input_size": 14, "window_size": np.array([16.0])}, "masks[0].window_size[0]", "pyramid_empty_scale"),
    ({"input_size": 14}, "masks[0].window_size", "required"),
    ({"window_size": np.array([2.0])}, "masks[0].input_size", "required"),
    ({"input_size": 14, "window_size": np.array([2.0]), "inner_size": 0}, "masks[0].inner_size",
     "expected_int_range"),
])
def test_bad_pyramid_parts_are_named_by_field(values, path, code):
    sc = Scenario(*(np.ones((1, 14, 2)),) * 3, masks=(Part("pyramid", values),))
    (p,) = problems(sc)
    assert (p.path, p.code) == (path, code)
    assert p.text("en") and p.text("zh") != p.text("en")


@pytest.mark.slow  # runs the exported script in a child process
def test_pyramid_preset_and_its_exported_script():
    sc = scenario_io.load(PRESETS["30_tsl_pyraformer_pyramid.json"])
    trace = run(sc)
    assert np.array_equal(trace.array("extra.mask")[0], get_mask(8, [2, 2], 3)[0].numpy())
    again = scenario_io.loads(scenario_io.dumps(sc))
    assert np.array_equal(run(again).array("extra.mask"), trace.array("extra.mask"))
    cases = {"preset": sc, "causal_two_items": _pyramid_scenario(13, [2, 3, 2], 4, causal=True)}
    got = _run_scripts(cases)
    for name, scn in cases.items():
        tr = run(scn)
        for sid in ("masked_scores", "attention_weights", "output"):
            np.testing.assert_allclose(np.array(got[name][sid], dtype=float), tr.array(sid), rtol=0, atol=1e-9,
                                       err_msg=f"{name} {sid}")


# ---------------------------------------------------------------- DSAttention (Non-stationary Transformer)


def _layer_scenario(layer, x_q, x_kv, **more) -> Scenario:
    """A scenario holding an AttentionLayer's projections (nn.Linear weights as they are)."""
    from attention import Projection

    proj = {name: Projection(m.weight.detach().double().numpy(), m.bias.detach().double().numpy())
            for name, m in (("query", layer.query_projection), ("key", layer.key_projection),
                            ("value", layer.value_projection), ("out", layer.out_projection))}
    return Scenario(x_q.numpy(), x_kv.numpy(), x_kv.numpy(), n_heads=layer.n_heads, projections=proj, **more)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("scale", [None, 0.3])
def test_ds_attention_matches_the_library_layer(causal, scale):
    from test_tsl_family import AttentionLayer, DSAttention

    torch.manual_seed(3)
    B, L, d_model, H = 2, 5, 8, 2
    S = L if causal else 7
    x_q, x_kv = torch.randn(B, L, d_model, dtype=torch.float64), torch.randn(B, S, d_model, dtype=torch.float64)
    tau, delta = torch.rand(B, 1, dtype=torch.float64) * 3 + 0.1, torch.randn(B, S, dtype=torch.float64)
    layer = AttentionLayer(DSAttention(mask_flag=causal, scale=scale, attention_dropout=0.0, output_attention=True),
                           d_model, H).double().eval()
    with torch.no_grad():
        out, A = layer(x_q, x_kv, x_kv, None, tau=tau, delta=delta)
    sc = _layer_scenario(layer, x_q, x_kv, scoring="ds_attention", scale=scale, causal=causal, fill_value=-np.inf,
                         modifiers=(Part("destationary", {"tau": tau.numpy()[:, 0], "delta": delta.numpy()}),))
    assert problems(sc) == []
    trace = run(sc)
    np.testing.assert_allclose(trace.array("attention_weights"), A.numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(trace.array("output"), out.numpy(), rtol=0, atol=1e-12)
    # float64 reference written here: the de-stationary scores and the quirk (the scale on delta)
    q, k = trace.array("head_split.query"), trace.array("head_split.key")
    want = np.einsum("blhe,bshe->bhls", q, k) * tau.numpy()[:, :, None, None] + delta.numpy()[:, None, None, :]
    np.testing.assert_allclose(trace.array("extra.destationary"), want, rtol=0, atol=1e-12)
    s = scale or 1 / np.sqrt(d_model // H)
    np.testing.assert_allclose(trace.array("scores"), s * want, rtol=0, atol=1e-12)


def test_ds_attention_without_the_part_is_full_attention():
    rng = np.random.default_rng(5)
    x = [rng.normal(size=(2, 4, 6)) for _ in range(3)]
    ds = run(Scenario(*x, n_heads=2, scoring="ds_attention"))
    full = run(Scenario(*x, n_heads=2))
    np.testing.assert_allclose(ds.array("attention_weights"), full.array("attention_weights"), rtol=0, atol=1e-14)
    np.testing.assert_allclose(ds.array("extra.destationary") / np.sqrt(3), full.array("scores"), atol=1e-14)


def test_ds_attention_explain_lesson_and_problems():
    sc = scenario_io.load(PRESETS["31_tsl_nonstationary_ds_attention.json"])
    trace = run(sc)
    tau, delta = sc.modifiers[0].get("tau"), sc.modifiers[0].get("delta")
    e = explain.explain(trace, "extra.destationary", (0, 0, 1, 2))
    assert e.result == pytest.approx(trace.array("extra.destationary")[0, 0, 1, 2], abs=1e-12)
    assert f"τ = {explanation.fmt(tau[0])}" in e.summary["en"] and "τ" in e.summary["zh"]
    e = explain.explain(trace, "scores", (0, 0, 1, 2))
    scale = trace.options["scale"]
    assert explanation.fmt(scale * delta[0, 2]) in e.summary["en"] and "scale × Δ, not Δ" in e.summary["en"]
    assert "而不是 Δ" in e.summary["zh"]
    for lang in ("en", "zh"):
        assert "Δ" in lessons.explanation("scores", trace.options, lang)
        assert "τ" in lessons.explanation("extra.destationary", trace.options, lang)
    bad = [(Part("destationary", {"tau": np.array([1.0, 2.0])}), "modifiers[0].tau", "destationary_shape"),
           (Part("destationary", {"tau": np.array([-1.0])}), "modifiers[0].tau[0]", "destationary_tau"),
           (Part("destationary", {"delta": np.ones((1, 3))}), "modifiers[0].delta", "destationary_shape")]
    for part, path, code in bad:
        (p,) = problems(Scenario(*(np.ones((1, 4, 2)),) * 3, scoring="ds_attention", modifiers=(part,)))
        assert (p.path, p.code) == (path, code) and p.text("zh") != p.text("en")
    (p,) = problems(Scenario(*(np.ones((1, 4, 2)),) * 3, modifiers=(Part("destationary", {}),)))
    assert (p.path, p.code) == ("modifiers[0]", "destationary_scoring")


def test_ds_attention_tiles_read_the_trace():
    from attention.teaching import tiles

    trace = run(scenario_io.load(PRESETS["31_tsl_nonstationary_ds_attention.json"]))
    assert tiles.method("ds_attention", trace.ids) == "read"
    out = tiles.tiled(trace, 2, 3)
    assert out.how == "read" and out.max_abs_diff < 1e-12


@pytest.mark.slow  # runs the exported script in a child process
def test_ds_attention_script_and_file_round_trip():
    sc = scenario_io.load(PRESETS["31_tsl_nonstationary_ds_attention.json"])
    again = scenario_io.loads(scenario_io.dumps(sc))
    np.testing.assert_array_equal(run(again).array("output"), run(sc).array("output"))
    rng = np.random.default_rng(8)
    causal = Scenario(*(rng.normal(size=(2, 4, 4)) for _ in range(3)), n_heads=2, scoring="ds_attention", causal=True,
                      fill_value=-np.inf, modifiers=(Part("destationary", {"tau": np.array([0.5, 2.0]),
                                                                          "delta": rng.normal(size=(2, 4))}),))
    cases = {"preset": sc, "causal": causal}
    got = _run_scripts(cases)
    for name, scn in cases.items():
        tr = run(scn)
        for sid in ("scores", "attention_weights", "output"):
            np.testing.assert_allclose(np.array(got[name][sid], dtype=float), tr.array(sid), rtol=0, atol=1e-9,
                                       err_msg=f"{name} {sid}")


# ---------------------------------------------------------------- Auto-Correlation (Autoformer)


def _ac_scenario(B=2, L=12, H=2, E=3, factor=2.0, path="inference", seed=0, **more) -> Scenario:
    """Random numbers, identity projections: the head split is the inputs cut into H heads."""
    rng = np.random.default_rng(seed)
    x = [rng.normal(size=(B, L, H * E)) for _ in range(3)]
    return Scenario(*x, n_heads=H, scoring="autocorrelation",
                    modifiers=(Part("autocorrelation", {"factor": factor, "path": path}),), **more)


@pytest.mark.parametrize("path", ["inference", "training"])
@pytest.mark.parametrize("L,factor", [(12, 2.0), (24, 1.0), (8, 3.0)])
def test_autocorrelation_matches_the_library_module(path, L, factor):
    from test_tsl_family import AutoCorrelation

    sc = _ac_scenario(L=L, factor=factor, path=path)
    assert problems(sc) == []
    trace = run(sc)
    lib = AutoCorrelation(factor=factor, attention_dropout=0.0, output_attention=True).train(path == "training")
    B, H, E = 2, 2, 3
    q, k, v = (torch.as_tensor(a).reshape(B, L, H, E) for a in (sc.queries, sc.keys, sc.values))
    out, corr = lib(q, k, v, None)
    np.testing.assert_allclose(trace.array("weighted_sum"), out.numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(trace.array("extra.correlation"), corr.permute(0, 2, 3, 1).numpy(), rtol=0, atol=1e-12)
    # float64 reference written here: the circular correlation as a direct sum, its mean, the weights
    qn, kn, vn = q.numpy(), k.numpy(), v.numpy()
    direct = np.stack([np.einsum("blhe,blhe->bhe", np.roll(qn, -tau, axis=1), kn) for tau in range(L)], -1)
    np.testing.assert_allclose(trace.array("extra.correlation"), direct, rtol=0, atol=1e-9)
    mean = direct.mean(axis=(1, 2))  # (B, L)
    k_lags = int(factor * np.log(L))
    lags = trace.array("extra.top_lags")
    if path == "training":
        want = np.argsort(-mean.mean(0), kind="stable")[:k_lags]
        assert (lags == lags[:1]).all() and set(lags[0]) == set(want)
    else:
        for b in range(B):
            assert set(lags[b]) == set(np.argsort(-mean[b], kind="stable")[:k_lags])
    w = np.exp(mean[np.arange(B)[:, None], lags])
    w /= w.sum(-1, keepdims=True)
    A = np.zeros((B, L, L))
    for b in range(B):
        for i, lag in enumerate(lags[b]):
            A[b, np.arange(L), (np.arange(L) + lag) % L] = w[b, i]
    np.testing.assert_allclose(trace.array("attention_weights"), np.broadcast_to(A[:, None], (B, H, L, L)), atol=1e-12)
    want_out = sum(w[:, i, None, None, None] * np.stack([np.roll(vn[b], -lags[b, i], axis=0) for b in range(B)])
                   for i in range(k_lags))
    np.testing.assert_allclose(trace.array("weighted_sum"), want_out, rtol=0, atol=1e-12)


def test_autocorrelation_explain_names_the_lag_and_the_roll():
    sc = scenario_io.load(PRESETS["32_tsl_autoformer_autocorrelation.json"])
    trace = run(sc)
    lags = trace.array("extra.top_lags")[0].tolist()
    assert len(lags) == 3 and all(lag % 6 == 0 for lag in lags)  # multiples of the series' period
    e = explain.explain(trace, "weighted_sum", (0, 5, 0, 1))
    assert e.result == pytest.approx(trace.array("weighted_sum")[0, 5, 0, 1], abs=1e-12)
    for term, lag in zip(e.terms, lags):
        assert term.text["en"].startswith(f"lag {lag}: torch.roll(V, {-lag}) brings step {(5 + lag) % 24} to step 5")
        assert f"滞后 {lag}" in term.text["zh"]
    e = explain.explain(trace, "masked_scores", (0, 0, 2, 3))
    assert "is not one of the top 3 lags" in e.summary["en"]
    e = explain.explain(trace, "attention_weights", (0, 0, 2, (2 + lags[1]) % 24))
    assert e.value == pytest.approx(trace.array("extra.lag_weights")[0, 1], abs=1e-15)
    e = explain.explain(trace, "extra.correlation", (0, 0, 1, 6))
    assert e.result == pytest.approx(trace.array("extra.correlation")[0, 0, 1, 6], abs=1e-12)
    e = explain.explain(trace, "extra.mean_correlation", (0, 12))
    assert e.result == pytest.approx(trace.array("extra.mean_correlation")[0, 12], abs=1e-12)
    for sid in ("extra.top_lags", "extra.lag_weights", "extra.rolled_values", "scores"):
        idx = tuple(0 for _ in trace[sid].shape)
        assert explain.explain(trace, sid, idx).summary["zh"]
    for lang in ("en", "zh"):
        assert lessons.explanation("extra.rolled_values", trace.options, lang)
        assert "Auto" in lessons.explanation("scores", trace.options, "en")


def test_autocorrelation_refuses_tiles_plainly():
    from attention.teaching import tiles

    with pytest.raises(tiles.TilesError) as err:
        tiles.tiled(run(_ac_scenario()), 2, 2)
    assert err.value.key == "tiles.not_applicable.autocorrelation"
    assert "top lags" in err.value.text("en") and "滞后" in err.value.text("zh")


@pytest.mark.parametrize("more, path, code", [
    ({"causal": True}, "causal", "autocorrelation_mask"),
    ({"scale": 0.5}, "scale", "autocorrelation_scale"),
    ({"factor": 0.1}, "modifiers", "autocorrelation_k"),
])
def test_autocorrelation_problems_are_named(more, path, code):
    (p,) = problems(_ac_scenario(**more))
    assert (p.path, p.code) == (path, code) and p.text("zh") != p.text("en")


def test_autocorrelation_needs_its_scoring():
    """(L != S and odd L run as the library does: tests/engine/test_tsl_steps.py.)"""
    rng = np.random.default_rng(1)
    (p,) = problems(Scenario(*(rng.normal(size=(1, 4, 2)),) * 3, modifiers=(Part("autocorrelation", {}),)))
    assert (p.path, p.code) == ("modifiers[0]", "autocorrelation_scoring")


@pytest.mark.slow  # runs the exported script in a child process
def test_autocorrelation_script_and_file_round_trip():
    sc = scenario_io.load(PRESETS["32_tsl_autoformer_autocorrelation.json"])
    again = scenario_io.loads(scenario_io.dumps(sc))
    np.testing.assert_array_equal(run(again).array("output"), run(sc).array("output"))
    cases = {"preset": sc, "training": _ac_scenario(path="training"), "inference": _ac_scenario(L=8, factor=3.0)}
    got = _run_scripts(cases)
    for name, scn in cases.items():
        tr = run(scn)
        for sid in ("scores", "masked_scores", "attention_weights", "weighted_sum", "output"):
            np.testing.assert_allclose(np.array(got[name][sid], dtype=float), tr.array(sid), rtol=0, atol=1e-9,
                                       err_msg=f"{name} {sid}")


# ---------------------------------------------------------------- the encoder layer around attention


def _encoder_part(layer, activation: str) -> Part:
    def a(t):
        return t.detach().double().numpy()
    return Part("encoder_layer", {"activation": activation, "conv1_weight": a(layer.conv1.weight),
                                  "conv1_bias": a(layer.conv1.bias), "conv2_weight": a(layer.conv2.weight),
                                  "conv2_bias": a(layer.conv2.bias), "norm1_weight": a(layer.norm1.weight),
                                  "norm1_bias": a(layer.norm1.bias), "norm2_weight": a(layer.norm2.weight),
                                  "norm2_bias": a(layer.norm2.bias)})


@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_steps_match_the_library_layer(activation):
    from test_tsl_family import AttentionLayer, EncoderLayer

    torch.manual_seed(21)
    B, L, d, H = 2, 5, 8, 2
    attn = AttentionLayer(FullAttention(False, attention_dropout=0.0), d, H)
    layer = EncoderLayer(attn, d, d_ff=12, dropout=0.3, activation=activation).double().eval()
    for n in (layer.norm1, layer.norm2):
        torch.nn.init.normal_(n.weight)
        torch.nn.init.normal_(n.bias)
    x = torch.randn(B, L, d, dtype=torch.float64)
    with torch.no_grad():
        out, _ = layer(x)
    sc = _layer_scenario(attn, x, x, modifiers=(_encoder_part(layer, activation),))
    assert problems(sc) == []
    trace = run(sc)
    np.testing.assert_allclose(trace.array("extra.norm_second"), out.numpy(), rtol=0, atol=1e-12)
    # float64 reference written here, step by step
    r1 = x.numpy() + trace.array("output")
    np.testing.assert_allclose(trace.array("extra.residual_attention"), r1, rtol=0, atol=1e-14)

    def ln(v, g, b):
        return (v - v.mean(-1, keepdims=True)) / np.sqrt(v.var(-1, keepdims=True) + 1e-5) * g + b
    n1 = ln(r1, layer.norm1.weight.detach().numpy(), layer.norm1.bias.detach().numpy())
    np.testing.assert_allclose(trace.array("extra.norm_first"), n1, rtol=0, atol=1e-12)
    pre = n1 @ layer.conv1.weight.detach().numpy()[..., 0].T + layer.conv1.bias.detach().numpy()
    hidden = np.maximum(pre, 0) if activation == "relu" else torch.nn.functional.gelu(torch.as_tensor(pre)).numpy()
    np.testing.assert_allclose(trace.array("extra.ffn_hidden"), hidden, rtol=0, atol=1e-12)
    # explain: LayerNorm's mean and variance, the conv as a matrix product
    e = explain.explain(trace, "extra.norm_first", (1, 2, 3))
    assert e.result == pytest.approx(n1[1, 2, 3], abs=1e-12)
    assert explanation.fmt(r1[1, 2].mean()) in e.summary["en"] and "均值" in e.summary["zh"]
    e = explain.explain(trace, "extra.ffn_hidden", (0, 1, 4))
    assert e.result == pytest.approx(hidden[0, 1, 4], abs=1e-12) and len(e.terms) == d + 1  # d products, the bias
    for sid in ("extra.residual_attention", "extra.ffn_out", "extra.residual_ffn", "extra.norm_second"):
        e = explain.explain(trace, sid, (0, 0, 0))
        assert e.result == pytest.approx(trace.array(sid)[0, 0, 0], abs=1e-12)
        assert lessons.explanation(sid, trace.options, "zh") and lessons.explanation(sid, trace.options, "en")
    assert trace.ids[-6:] == ("extra.residual_attention", "extra.norm_first", "extra.ffn_hidden", "extra.ffn_out",
                              "extra.residual_ffn", "extra.norm_second")


def test_encoder_layer_is_off_by_default_and_checked():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(1, 3, 4))
    assert "extra.norm_second" not in run(Scenario(x, x, x)).ids
    (p,) = problems(Scenario(x, x, x, modifiers=(Part("encoder_layer", {"conv1_weight": np.ones((6, 3))}),)))
    assert (p.path, p.code) == ("modifiers[0].conv1_weight", "encoder_layer_shape")
    (p,) = problems(Scenario(x, x, x, modifiers=(Part("encoder_layer", {"conv1_weight": np.ones((6, 4)),
                                                                      "conv1_bias": np.ones(6)}),)))
    assert (p.path, p.code) == ("modifiers[0].conv2_weight", "required")
    from attention import Projection

    narrow = Scenario(x, x, x, projections={"out": Projection(np.ones((3, 4)))},
                      modifiers=(Part("encoder_layer", {"conv1_weight": np.ones((6, 4))}),))
    (p,) = problems(narrow)
    assert (p.path, p.code) == ("modifiers[0]", "encoder_layer_width")
    (p,) = problems(Scenario(x, x, x, modifiers=(Part("encoder_layer", {
        "conv1_weight": np.ones((6, 4)), "conv1_bias": np.ones(6), "conv2_weight": np.full((4, 6), np.nan),
        "conv2_bias": np.ones(4)}),)))
    assert (p.path, p.code) == ("modifiers[0].conv2_weight", "encoder_layer_finite")
    assert p.text("zh") != p.text("en")


@pytest.mark.slow  # runs the exported script in a child process
def test_encoder_layer_preset_and_script():
    sc = scenario_io.load(PRESETS["33_tsl_encoder_layer.json"])
    trace = run(sc)
    assert "extra.norm_second" in trace.ids and trace.warnings == ()
    got = _run_scripts({"preset": sc})["preset"]
    for sid in ("output", "extra.norm_first", "extra.ffn_hidden", "extra.norm_second"):
        np.testing.assert_allclose(np.array(got[sid], dtype=float), trace.array(sid), rtol=0, atol=1e-9, err_msg=sid)


# ---------------------------------------------------------------- tokens that are time (presets)


def test_time_presets_are_labelled_as_time_labels_writes_them():
    from attention.datamodel import time_labels as tl

    patch = scenario_io.load(PRESETS["34_tsl_patchtst_patches.json"])
    assert patch.query_tokens[2] == "patch 3 · t 8–15"  # stride 4: the third patch starts at step 8
    assert list(patch.query_tokens) == tl.patch_labels(32, 8, 4, 4, lang="en")
    assert patch.query_tokens[-1] == "patch 8 · t 28–35 (32–35 repeat t 31)"
    variates = scenario_io.load(PRESETS["35_tsl_itransformer_variates.json"])
    assert list(variates.query_tokens) == ["temperature", "humidity", "wind", "load"]
    dated = scenario_io.load(PRESETS["36_tsl_dated_steps.json"])
    assert dated.query_tokens[0] == "2016-07-01 00:00" and dated.query_tokens[-1] == "2016-07-01 11:00"
    for sc in (patch, variates, dated):
        assert run(sc).warnings == ()
