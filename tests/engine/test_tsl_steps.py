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

from attention import Scenario, explain, lessons, problems, run, scenario_io, words
from attention.parts import Part
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
