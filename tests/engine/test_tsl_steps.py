"""Issue 18, items 3 and 6: Crossformer's two-stage attention and Informer's distilling ConvLayer as
steps of a trace (attention/kinds/tsl_two_stage.py, attention/kinds/tsl_distil.py), run through
`engine.run` and checked against the library's own module code, copied (MIT, thuml) in
tests/engine/test_tsl_family.py (ConvLayer, EncoderLayer, AttentionLayer, FullAttention,
TwoStageAttentionLayer), on random weights in float64, and against float64 arithmetic written here."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from test_tsl_family import AttentionLayer, ConvLayer, EncoderLayer, FullAttention
from test_tsl_kinds import _encoder_part, _layer_scenario, _run_scripts

from attention import Scenario, problems, run, words
from attention.datamodel.parts import Part
from attention.files import scenario_io
from attention.teaching import explain, lessons
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


def _a(t) -> np.ndarray:
    return t.detach().double().numpy()


# ---------------------------------------------------------------- Informer's distilling ConvLayer

def _distil_part(conv: ConvLayer) -> Part:
    return Part("distil", {"conv_weight": _a(conv.downConv.weight), "conv_bias": _a(conv.downConv.bias),
                           "running_mean": _a(conv.norm.running_mean), "running_var": _a(conv.norm.running_var),
                           "norm_weight": _a(conv.norm.weight), "norm_bias": _a(conv.norm.bias)})


def _random_conv(C: int) -> ConvLayer:
    conv = ConvLayer(C).double()
    conv.norm.running_mean.copy_(torch.randn(C))
    conv.norm.running_var.copy_(torch.rand(C) + 0.5)
    torch.nn.init.normal_(conv.norm.weight)
    torch.nn.init.normal_(conv.norm.bias)
    return conv.eval()


@pytest.mark.parametrize("L", [7, 6, 2])
def test_distil_steps_after_the_encoder_layer_match_the_library(L):
    """Informer's Encoder: x = attn_layer(x); x = conv_layer(x) — the library's EncoderLayer then
    ConvLayer, on the same random weights, against the trace's last step."""
    torch.manual_seed(31)
    B, d, H = 2, 4, 2
    attn = AttentionLayer(FullAttention(False, attention_dropout=0.0), d, H)
    layer = EncoderLayer(attn, d, d_ff=6, dropout=0.3, activation="gelu").double().eval()
    conv = _random_conv(d)
    x = torch.randn(B, L, d, dtype=torch.float64)
    seen = {}
    conv.downConv.register_forward_hook(lambda m, i, o: seen.__setitem__("conv", o))
    conv.norm.register_forward_hook(lambda m, i, o: seen.__setitem__("norm", o))
    conv.activation.register_forward_hook(lambda m, i, o: seen.__setitem__("elu", o))
    with torch.no_grad():
        y, _ = layer(x)
        out = conv(y)
    sc = _layer_scenario(attn, x, x, modifiers=(_encoder_part(layer, "gelu"), _distil_part(conv)))
    assert problems(sc) == []
    trace = run(sc)
    assert trace.ids[-4:] == ("extra.distil_conv", "extra.distil_norm", "extra.distil_elu", "extra.distil_pool")
    for sid, want in (("extra.distil_conv", seen["conv"]), ("extra.distil_norm", seen["norm"]),
                      ("extra.distil_elu", seen["elu"])):
        np.testing.assert_allclose(trace.array(sid), want.transpose(1, 2).numpy(), rtol=0, atol=1e-12, err_msg=sid)
    np.testing.assert_allclose(trace.array("extra.distil_pool"), out.numpy(), rtol=0, atol=1e-12)
    assert trace.array("extra.distil_pool").shape == (B, (L + 1) // 2 + 1, d)


def test_distil_reads_the_output_without_an_encoder_layer_and_explains_a_wrapped_tap():
    torch.manual_seed(5)
    B, L, d, H = 1, 5, 3, 1
    attn = AttentionLayer(FullAttention(False, attention_dropout=0.0), d, H).double().eval()
    conv = _random_conv(d)
    x = torch.randn(B, L, d, dtype=torch.float64)
    with torch.no_grad():
        new_x, _ = attn(x, x, x, None)
        out = conv(new_x)
    trace = run(_layer_scenario(attn, x, x, modifiers=(_distil_part(conv),)))
    np.testing.assert_allclose(trace.array("extra.distil_pool"), out.numpy(), rtol=0, atol=1e-12)
    # conv step 0 reads input steps 3, 4 (wrapped round from the end) and 0: by hand, in float64
    W, b = _a(conv.downConv.weight), _a(conv.downConv.bias)
    y = trace.array("output")[0]
    by_hand = b[1] + sum(W[1, i, j] * y[s, i] for i in range(d) for j, s in enumerate((3, 4, 0)))
    e = explain.explain(trace, "extra.distil_conv", (0, 0, 1))
    assert e.result == pytest.approx(by_hand, abs=1e-12) and len(e.terms) == 3 * d + 1
    assert "3, 4" in e.summary["en"] and "循环" in e.summary["zh"]
    act = trace.array("extra.distil_elu")[0, :, 2]
    e = explain.explain(trace, "extra.distil_pool", (0, 1, 2))  # steps 1, 2, 3
    assert e.result == max(act[1:4]) and len(e.terms) == 3
    e = explain.explain(trace, "extra.distil_norm", (0, 2, 0))
    rm, rv = _a(conv.norm.running_mean)[0], _a(conv.norm.running_var)[0]
    g, beta = _a(conv.norm.weight)[0], _a(conv.norm.bias)[0]
    want = (trace.array("extra.distil_conv")[0, 2, 0] - rm) / math.sqrt(rv + 1e-5) * g + beta
    assert e.result == pytest.approx(want, abs=1e-12)
    for sid in ("extra.distil_conv", "extra.distil_norm", "extra.distil_elu", "extra.distil_pool"):
        assert lessons.explanation(sid, trace.options, "en") != lessons.explanation(sid, trace.options, "zh")


def test_distil_is_off_by_default_and_checked():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(1, 4, 3))
    assert "extra.distil_conv" not in run(Scenario(x, x, x)).ids
    (p,) = problems(Scenario(x, x, x, modifiers=(Part("distil", {"conv_weight": np.ones((3, 3, 1))}),)))
    assert (p.path, p.code) == ("modifiers[0].conv_weight", "distil_shape")
    (p,) = problems(Scenario(x, x, x, modifiers=(Part("distil", {"conv_weight": np.ones((3, 3, 3))}),)))
    assert (p.path, p.code) == ("modifiers[0].conv_bias", "required")
    (p,) = problems(Scenario(x, x, x, modifiers=(Part("distil", {
        "conv_weight": np.ones((3, 3, 3)), "conv_bias": np.ones(3), "running_var": np.array([1.0, -1.0, 1.0])}),)))
    assert (p.path, p.code) == ("modifiers[0].running_var", "distil_variance")
    assert p.text("zh") != p.text("en")
    one = x[:, :1]
    (p,) = problems(Scenario(one, one, one, modifiers=(Part("distil", {
        "conv_weight": np.ones((3, 3, 3)), "conv_bias": np.ones(3)}),)))
    assert (p.path, p.code) == ("modifiers[0]", "distil_length")


@pytest.mark.slow  # runs the exported script in a child process
def test_distil_preset_and_script():
    sc = scenario_io.load(PRESETS["38_tsl_informer_distil.json"])
    trace = run(sc)
    assert trace.ids[-4:][-1] == "extra.distil_pool" and trace.warnings == ()
    assert trace.array("extra.distil_pool").shape[1] == (sc.L + 1) // 2 + 1
    got = _run_scripts({"preset": sc})["preset"]
    for sid in ("extra.norm_second", "extra.distil_conv", "extra.distil_norm", "extra.distil_elu",
                "extra.distil_pool"):
        np.testing.assert_allclose(np.array(got[sid], dtype=float), trace.array(sid), rtol=0, atol=1e-9, err_msg=sid)


# ---------------------------------------------------------------- Crossformer's two-stage attention

class _Configs:
    factor, dropout = 5, 0.3


def _linear(prefix: str, layer) -> dict:
    return {f"{prefix}_{name}_{wb}": _a(getattr(getattr(layer, f"{name}_projection"), wb))
            for name in ("query", "key", "value", "out") for wb in ("weight", "bias")}


def _two_stage_scenario(lib, x: torch.Tensor) -> Scenario:
    """The layer's input x (b, D, seg, d) as tokens v·seg + s, time_attention's projections as the
    scenario's, everything else in the two_stage part (the router reshaped to (seg·factor, d)),
    mapped here from the module's attributes."""
    b, D, seg, d = x.shape
    values = {"variables": D, "factor": lib.router.shape[1], "router": _a(lib.router).reshape(-1, d),
              **_linear("sender", lib.dim_sender), **_linear("receiver", lib.dim_receiver)}
    for i in range(1, 5):
        norm = getattr(lib, f"norm{i}")
        values |= {f"norm{i}_weight": _a(norm.weight), f"norm{i}_bias": _a(norm.bias)}
    for i in (1, 2):
        mlp = getattr(lib, f"MLP{i}")
        values |= {f"mlp{i}_in_weight": _a(mlp[0].weight), f"mlp{i}_in_bias": _a(mlp[0].bias),
                   f"mlp{i}_out_weight": _a(mlp[2].weight), f"mlp{i}_out_bias": _a(mlp[2].bias)}
    tokens = x.reshape(b, D * seg, d)
    return _layer_scenario(lib.time_attention, tokens, tokens, modifiers=(Part("two_stage", values),))


def test_the_part_from_a_state_dict_is_the_part_from_the_modules():
    """What an importer reads (TSL's state_dict names) gives the same scenario numbers."""
    from attention.kinds.tsl_two_stage import from_state_dict

    torch.manual_seed(12)
    lib = _random_two_stage(3, 2, 4, 2, d_ff=6)
    sc = _two_stage_scenario(lib, torch.randn(1, 2, 3, 4, dtype=torch.float64))
    values, projections = from_state_dict(lib.state_dict(), 2)
    assert set(values) == set(sc.modifiers[0].values)
    for name, v in values.items():
        np.testing.assert_array_equal(np.asarray(v), np.asarray(sc.modifiers[0].values[name]), err_msg=name)
    for name, (w, bias) in projections.items():
        np.testing.assert_array_equal(w, sc.projection(name).weight)
        np.testing.assert_array_equal(bias, sc.projection(name).bias)


def _random_two_stage(seg: int, factor: int, d: int, H: int, d_ff: int):
    from test_tsl_family import TwoStageAttentionLayer

    lib = TwoStageAttentionLayer(_Configs(), seg, factor, d, H, d_ff=d_ff, dropout=0.4).double()
    for i in range(1, 5):  # LayerNorms start at 1 / 0: make them count
        torch.nn.init.normal_(getattr(lib, f"norm{i}").weight)
        torch.nn.init.normal_(getattr(lib, f"norm{i}").bias)
    return lib.eval()


@pytest.mark.parametrize("b,D,seg,factor,H", [(2, 3, 4, 2, 2), (1, 4, 3, 1, 1), (2, 2, 5, 3, 4)])
def test_two_stage_steps_match_the_library_layer(b, D, seg, factor, H):
    torch.manual_seed(41 + D)
    d = 8
    lib = _random_two_stage(seg, factor, d, H, d_ff=12)
    seen = {}
    for name in ("time_attention", "dim_sender", "dim_receiver", "norm2", "norm3"):
        getattr(lib, name).register_forward_hook(
            lambda m, i, o, name=name: seen.__setitem__(name, (i, o[0] if isinstance(o, tuple) else o)))
    x = torch.randn(b, D, seg, d, dtype=torch.float64)
    with torch.no_grad():
        out = lib(x)
    sc = _two_stage_scenario(lib, x)
    assert problems(sc) == []
    trace = run(sc)
    L = D * seg
    # the layer's output, TSL's (b, D, seg, d) flattened variable by variable
    np.testing.assert_allclose(trace.array("extra.tsa_output"), out.reshape(b, L, d).numpy(), rtol=0, atol=1e-12)
    # the time stage: the main pipeline's output is time_attention's on (b·D, seg, d)
    np.testing.assert_allclose(trace.array("output"), seen["time_attention"][1].reshape(b, L, d).numpy(),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(trace.array("extra.tsa_dim_in"), seen["norm2"][1].reshape(b, L, d).numpy(),
                               rtol=0, atol=1e-12)
    # the router is the sender's query input; its output is dim_buffer (b·seg, factor, d)
    np.testing.assert_allclose(_a(seen["dim_sender"][0][0]).reshape(b, seg * factor, d),
                               np.tile(_a(lib.router).reshape(seg * factor, d), (b, 1, 1)), rtol=0, atol=0)
    np.testing.assert_allclose(trace.array("extra.tsa_buffer"), _a(seen["dim_sender"][1]).reshape(b, seg * factor, d),
                               rtol=0, atol=1e-12)
    receive = _a(seen["dim_receiver"][1]).reshape(b, seg, D, d).transpose(0, 2, 1, 3).reshape(b, L, d)
    np.testing.assert_allclose(trace.array("extra.tsa_receive"), receive, rtol=0, atol=1e-12)
    # the three attentions' weights, against FullAttention(output_attention=True) on the same inputs
    dim_send = seen["dim_sender"][0][1]
    for layer, (xq, xkv), sid in ((lib.dim_sender, (seen["dim_sender"][0][0], dim_send), "extra.tsa_router_weights"),
                                  (lib.dim_receiver, (dim_send, seen["dim_sender"][1]), "extra.tsa_receive_weights"),
                                  (lib.time_attention, (seen["time_attention"][0][0],) * 2, "attention_weights")):
        probe = AttentionLayer(FullAttention(False, output_attention=True), d, H).double().eval()
        probe.load_state_dict(layer.state_dict())
        with torch.no_grad():
            A = _a(probe(xq, xkv, xkv, None)[1])  # (N, H, Lq, Lk)
        got = trace.array(sid)
        if sid == "extra.tsa_router_weights":  # (b·seg, H, factor, D) -> (b, H, seg·factor, D)
            want = A.reshape(b, seg, H, factor, D).transpose(0, 2, 1, 3, 4).reshape(b, H, seg * factor, D)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        elif sid == "extra.tsa_receive_weights":  # (b·seg, H, D, factor) -> (b, H, D·seg, factor)
            want = A.reshape(b, seg, H, D, factor).transpose(0, 2, 3, 1, 4).reshape(b, H, L, factor)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        else:  # the time stage: one seg × seg block per variable, exactly 0 elsewhere
            blocks = A.reshape(b, D, H, seg, seg)
            for v in range(D):
                sl = slice(v * seg, (v + 1) * seg)
                np.testing.assert_allclose(got[:, :, sl, sl], blocks[:, v], rtol=0, atol=1e-12)
                got[:, :, sl, sl] = 0.0
            assert not got.any()


def test_two_stage_explain_names_the_router_slot_and_the_variable():
    torch.manual_seed(8)
    b, D, seg, factor, d, H = 1, 3, 2, 2, 4, 2
    lib = _random_two_stage(seg, factor, d, H, d_ff=6)
    trace = run(_two_stage_scenario(lib, torch.randn(b, D, seg, d, dtype=torch.float64)))
    # router row 3 = segment 1, slot 1, against variable 2 (token 2·seg + 1 = 5), head 1: by hand
    router = _a(lib.router).reshape(seg * factor, d)
    q = router[3] @ _a(lib.dim_sender.query_projection.weight).T + _a(lib.dim_sender.query_projection.bias)
    dim_in = trace.array("extra.tsa_dim_in")[0, 5]
    k = dim_in @ _a(lib.dim_sender.key_projection.weight).T + _a(lib.dim_sender.key_projection.bias)
    want = float(q[2:] @ k[2:]) / math.sqrt(2)
    e = explain.explain(trace, "extra.tsa_router_scores", (0, 1, 3, 2))
    assert e.result == pytest.approx(want, abs=1e-12) and e.value == pytest.approx(want, abs=1e-12)
    assert "segment 2" in e.summary["en"] and "variable 3" in e.summary["en"] and "路由槽 2" in e.summary["zh"]
    e = explain.explain(trace, "extra.tsa_receive_weights", (0, 0, 5, 1))
    assert len(e.terms) == factor and e.result == pytest.approx(trace.array("extra.tsa_receive_weights")[0, 0, 5, 1])
    e = explain.explain(trace, "extra.mask", (0, 0, 2))
    assert "variable 2" in e.text("en")
    for sid in ("extra.tsa_time_norm", "extra.tsa_buffer", "extra.tsa_dim_mlp_hidden", "extra.tsa_output"):
        e = explain.explain(trace, sid, (0, 1, 1))
        assert e.result == pytest.approx(trace.array(sid)[0, 1, 1], abs=1e-12), sid
        assert lessons.explanation(sid, trace.options, "en") != lessons.explanation(sid, trace.options, "zh")


def test_two_stage_is_off_by_default_and_checked():
    torch.manual_seed(9)
    lib = _random_two_stage(2, 1, 4, 2, d_ff=6)
    sc = _two_stage_scenario(lib, torch.randn(1, 3, 2, 4, dtype=torch.float64))
    assert "extra.tsa_output" not in run(_layer_scenario(lib.time_attention, torch.randn(1, 6, 4),
                                                          torch.randn(1, 6, 4))).ids
    part = sc.modifiers[0]

    def with_values(**more):
        import dataclasses

        return dataclasses.replace(sc, modifiers=(Part("two_stage", {**part.values, **more}),))

    (p,) = problems(with_values(router=np.ones((3, 4))))
    assert (p.path, p.code) == ("modifiers[0].router", "two_stage_shape")
    (p,) = problems(with_values(variables=4))
    assert (p.path, p.code) == ("modifiers[0].variables", "two_stage_tokens")
    bad = np.array(part.values["router"])
    bad[1, 2] = np.nan
    (p,) = problems(with_values(router=bad))
    assert (p.path, p.code) == ("modifiers[0].router[1][2]", "expected_finite")
    values = dict(part.values)
    del values["mlp2_in_weight"]
    import dataclasses

    (p,) = problems(dataclasses.replace(sc, modifiers=(Part("two_stage", values),)))
    assert (p.path, p.code) == ("modifiers[0].mlp2_in_weight", "required")
    (p,) = problems(dataclasses.replace(sc, causal=True))
    assert (p.path, p.code) == ("modifiers[0]", "two_stage_mask") and p.text("zh") != p.text("en")
    (p,) = problems(dataclasses.replace(sc, scoring="dot"))
    assert (p.path, p.code) == ("modifiers[0]", "two_stage_scoring")
    (p,) = problems(dataclasses.replace(sc, modifiers=sc.modifiers + (Part("distil", {
        "conv_weight": np.ones((4, 4, 3)), "conv_bias": np.ones(4)}),)))
    assert (p.path, p.code) == ("modifiers[0]", "two_stage_alone")
    from attention import Projection

    narrow = dataclasses.replace(sc, projections={**sc.projections, "out": Projection(np.ones((3, 4)))})
    (p,) = problems(narrow)
    assert (p.path, p.code) == ("modifiers[0]", "two_stage_width")


@pytest.mark.slow  # runs the exported script in a child process
def test_two_stage_preset_and_script():
    sc = scenario_io.load(PRESETS["37_tsl_crossformer_two_stage.json"])
    trace = run(sc)
    assert trace.ids[-1] == "extra.tsa_output" and trace.warnings == () and "extra.mask" in trace.ids
    got = _run_scripts({"preset": sc})["preset"]
    for sid in ("attention_weights", "output", "extra.tsa_dim_in", "extra.tsa_router_scores",
                "extra.tsa_router_weights", "extra.tsa_buffer", "extra.tsa_receive_scores", "extra.tsa_receive_weights",
                "extra.tsa_receive", "extra.tsa_dim_mlp_hidden", "extra.tsa_output"):
        np.testing.assert_allclose(np.array(got[sid], dtype=float), trace.array(sid), rtol=0, atol=1e-9, err_msg=sid)


# ---------------------------------------------------------------- Auto-Correlation with L != S and odd L

AC_SHAPES = [(9, 9, "inference", 1.0), (7, 10, "training", 1.5), (10, 6, "inference", 2.0), (11, 5, "training", 1.0),
             (6, 8, "training", 2.0), (5, 3, "inference", 1.0)]


def _ac(L: int, S: int, path: str, factor: float, seed: int = 0) -> Scenario:
    rng = np.random.default_rng(seed + 100 * L + S)
    B, H, E = 2, 2, 3
    q, k, v = rng.normal(size=(B, L, H * E)), rng.normal(size=(B, S, H * E)), rng.normal(size=(B, S, H * E))
    return Scenario(q, k, v, n_heads=H, scoring="autocorrelation",
                    modifiers=(Part("autocorrelation", {"factor": factor, "path": path}),))


@pytest.mark.parametrize("L,S,path,factor", AC_SHAPES)
def test_autocorrelation_with_unequal_or_odd_lengths_matches_the_library(L, S, path, factor):
    """TSL's AutoCorrelation.forward pads the keys and values with zeros (L > S) or cuts them (L < S),
    and for odd L its irfft (no n) gives an L − 1 point curve: the trace follows it exactly."""
    from test_tsl_family import AutoCorrelation

    sc = _ac(L, S, path, factor)
    assert problems(sc) == []
    trace = run(sc)
    assert trace.warnings == ()  # the NaN scores are "never computed", not an overflow
    lib = AutoCorrelation(factor=factor, attention_dropout=0.0, output_attention=True).train(path == "training")
    B, H, E = 2, 2, 3
    out, corr = lib(*(torch.as_tensor(a).reshape(B, -1, H, E) for a in (sc.queries, sc.keys, sc.values)), None)
    np.testing.assert_allclose(trace.array("weighted_sum"), out.numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(trace.array("extra.correlation"), corr.permute(0, 2, 3, 1).numpy(), rtol=0, atol=1e-12)
    assert trace.array("extra.correlation").shape[-1] == 2 * (L // 2)
    # float64 reference written here: keys aligned by hand, weights placed at the keys the lags read
    lags, w = trace.array("extra.top_lags"), trace.array("extra.lag_weights")
    A = np.zeros((B, L, S))
    for b in range(B):
        for i, lag in enumerate(lags[b]):
            for t in range(L):
                if (t + lag) % L < S:
                    A[b, t, (t + lag) % L] += w[b, i]
    np.testing.assert_allclose(trace.array("attention_weights"), np.broadcast_to(A[:, None], (B, H, L, S)), atol=1e-15)
    scores = trace.array("scores")
    for t in range(L):
        for s in range(S):
            unscored = s >= L or (s - t) % L == L - 1 and L % 2 == 1
            assert np.isnan(scores[0, 0, t, s]) == unscored, (t, s)


@pytest.mark.parametrize("L,S,path,factor", AC_SHAPES)
def test_autocorrelation_cells_with_unequal_or_odd_lengths_explain_themselves(L, S, path, factor):
    """Every cell of every Auto-Correlation step recombines (the generic rules of test_explain.py):
    the odd-L curve as weighted products, the appended zero steps, the keys cut off."""
    import itertools

    from test_explain import _check_cell

    trace = run(_ac(L, S, path, factor))
    for sid in ("extra.correlation", "extra.mean_correlation", "extra.top_lags", "extra.lag_weights",
                "extra.rolled_values", "scores", "masked_scores", "attention_weights", "weighted_sum"):
        for idx in itertools.product(*map(range, trace.array(sid).shape)):
            _check_cell(trace, sid, idx, 1e-10)


def test_autocorrelation_explain_says_why_a_score_is_missing():
    trace = run(_ac(5, 7, "inference", 1.0))
    e = explain.explain(trace, "scores", (0, 0, 1, 6))  # key 6: cut off (only L = 5 kept)
    assert math.isnan(e.value) and "cuts the keys" in e.summary["en"] and "截断" in e.summary["zh"]
    e = explain.explain(trace, "scores", (0, 0, 1, 0))  # lag (0 - 1) mod 5 = 4 = L - 1: not on the curve
    assert math.isnan(e.value) and "only 4 lags" in e.summary["en"]
    padded = run(_ac(6, 4, "inference", 2.0))
    lags = padded.array("extra.top_lags")[0].tolist()
    t = next(t for t in range(6) if any((t + lag) % 6 >= 4 for lag in lags))
    e = explain.explain(padded, "attention_weights", (0, 0, t, 0))
    assert any("appended" in tm.text["en"] for tm in e.terms)
    sc = _ac(6, 4, "inference", 1.0)
    # d_v 2, d_k 3: the zeros shaped like the queries do not fit the values
    narrow = Scenario(sc.queries, sc.keys, sc.values[..., :4], n_heads=2, d_values=2, scoring="autocorrelation")
    (p,) = problems(narrow)
    assert (p.path, p.code) == ("keys", "autocorrelation_lengths") and "d_values (2)" in p.text("en")
    assert problems(Scenario(sc.queries[:, :3], sc.keys, sc.values[..., :4], n_heads=2, d_values=2,
                             scoring="autocorrelation",
                             modifiers=(Part("autocorrelation", {"factor": 1.0}),))) == []  # L < S: cut, no zeros


@pytest.mark.slow  # runs the exported scripts in a child process
def test_autocorrelation_scripts_with_unequal_or_odd_lengths():
    cases = {f"{L}_{S}_{path}": _ac(L, S, path, factor) for L, S, path, factor in AC_SHAPES}
    got = _run_scripts(cases)
    for name, sc in cases.items():
        trace = run(sc)
        for sid in ("scores", "masked_scores", "attention_weights", "weighted_sum", "output"):
            np.testing.assert_allclose(np.array(got[name][sid], dtype=float), trace.array(sid), rtol=0, atol=1e-9,
                                       err_msg=f"{name} {sid}")
