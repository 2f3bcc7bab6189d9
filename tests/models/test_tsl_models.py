"""Time-Series-Library models in attention.capture and `main.py layers/import` (issue 18 item 7).

The modules are TSL's own code (tests/models/tsl_models_lib.py, MIT, THUML), seeded random weights.
Every engine output here is compared with the module's own forward, run separately in the test
(a forward hook of our own, or the module called on the scenario's inputs), never with numbers the
code under test produced."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
import tsl_models_lib as lib  # noqa: E402

from attention import words  # noqa: E402
from attention.capture import CaptureError, attention_modules, capture  # noqa: E402
from attention.compute.engine import run  # noqa: E402
from attention.models.checkpoint import CheckpointError  # noqa: E402
from attention.models.importing import choose, import_layer, open_layers  # noqa: E402

TOL = 1e-6  # relative to max(1, |output|), float32 module against the float32 engine


@pytest.fixture(autouse=True)
def _english():
    words.set_language("en")
    yield
    words.set_language("en")


def _outputs(model, names):
    """The named modules' own first outputs per call, by a hook of the test's own."""
    got: dict[str, list] = {n: [] for n in names}
    mods = dict(model.named_modules())
    handles = [mods[n].register_forward_hook(
        lambda _m, _a, out, n=n: got[n].append((out[0] if isinstance(out, tuple) else out).detach().clone()))
        for n in names]
    return got, handles


def _close(engine: np.ndarray, module: torch.Tensor, tol: float = TOL) -> float:
    want = module.detach().double().numpy()
    assert engine.shape == want.shape
    diff = float(np.abs(engine - want).max()) / max(1.0, float(np.abs(want).max()))
    assert diff <= tol, diff
    return diff


def _capture(model, names, *args, **kw):
    model.eval()
    own, handles = _outputs(model, names)
    try:
        with torch.no_grad(), capture(model, names, **kw) as rec:
            model(*args)
    finally:
        for h in handles:
            h.remove()
    return dict(rec.scenarios), own


# ---------------------------------------------------------------- capture

def test_nonstationary_records_tau_and_delta_from_the_forward():
    torch.manual_seed(0)
    cfg = lib.configs()
    model = lib.NonstationaryTransformer(cfg).eval()
    x, xd = torch.randn(2, cfg.seq_len, cfg.enc_in), torch.randn(2, cfg.label_len + cfg.pred_len, cfg.dec_in)
    names = ["encoder.attn_layers.0.attention", "decoder.layers.0.self_attention", "decoder.layers.0.cross_attention"]
    scs, own = _capture(model, names, x, None, xd, None)
    # τ and Δ as the model computes them (its own learners, written out here)
    mean = x.mean(1, keepdim=True)
    std = torch.sqrt(torch.var(x - mean, dim=1, keepdim=True, unbiased=False) + 1e-5)
    with torch.no_grad():
        tau = torch.clamp(model.tau_learner(x, std), max=80.0).exp().reshape(-1).double().numpy()
        delta = model.delta_learner(x, mean).double().numpy()
    enc = scs["encoder.attn_layers.0.attention.call1"]
    assert enc.scoring == "ds_attention"
    part = enc.modifiers[0]
    assert part.kind == "destationary"
    np.testing.assert_allclose(part.get("tau"), tau, rtol=1e-6)
    np.testing.assert_allclose(part.get("delta"), delta, rtol=1e-6, atol=1e-7)
    assert "delta" not in scs["decoder.layers.0.self_attention.call1"].modifiers[0].values  # TSL passes None
    assert scs["decoder.layers.0.self_attention.call1"].causal
    for n in names:
        _close(run(scs[f"{n}.call1"]).array("output"), own[n][0])


def test_nonstationary_whole_encoder_layer_and_one_batch_item():
    torch.manual_seed(0)
    cfg = lib.configs()
    model = lib.NonstationaryTransformer(cfg).eval()
    x, xd = torch.randn(3, cfg.seq_len, cfg.enc_in), torch.randn(3, cfg.label_len + cfg.pred_len, cfg.dec_in)
    name = "encoder.attn_layers.1"
    own, handles = _outputs(model, [name])
    with torch.no_grad(), capture(model, [name], items=[2]) as rec:
        model(x, None, xd, None)
    for h in handles:
        h.remove()
    sc = dict(rec.scenarios)[f"{name}.call1"]
    assert [p.kind for p in sc.modifiers] == ["destationary", "encoder_layer"] and sc.batch == 1
    mean = x.mean(1, keepdim=True)
    std = torch.sqrt(torch.var(x - mean, dim=1, keepdim=True, unbiased=False) + 1e-5)
    with torch.no_grad():
        tau = torch.clamp(model.tau_learner(x, std), max=80.0).exp().reshape(-1)
    np.testing.assert_allclose(sc.modifiers[0].get("tau"), [float(tau[2])], rtol=1e-6)
    _close(run(sc).array("extra.norm_second"), own[name][0][2:3])


@pytest.mark.parametrize("training", [False, True])
def test_autoformer_autocorrelation_layer(training):
    torch.manual_seed(1)
    cfg = lib.configs(factor=2)
    model = lib.Autoformer(cfg)
    x = torch.randn(3, cfg.seq_len, cfg.enc_in)
    name = "encoder.attn_layers.1.attention"
    own, handles = _outputs(model, [name])
    model.train(training)
    with torch.no_grad(), capture(model, [name]) as rec:
        model(x)
    for h in handles:
        h.remove()
    sc = dict(rec.scenarios)[f"{name}.call1"]
    assert sc.scoring == "autocorrelation"
    assert dict(sc.modifiers[0].values) == {"factor": 2.0, "path": "training" if training else "inference"}
    _close(run(sc).array("output"), own[name][0])


def test_autoformer_training_refuses_part_of_the_batch():
    torch.manual_seed(1)
    cfg = lib.configs()
    model = lib.Autoformer(cfg).train()
    with pytest.raises(CaptureError, match="encoder.attn_layers.0.attention: call 1: in training mode"):
        with torch.no_grad(), capture(model, ["encoder.attn_layers.0.attention"], items=[0]):
            model(torch.randn(2, cfg.seq_len, cfg.enc_in))


@pytest.mark.parametrize("training", [False, True])
def test_autoformer_odd_length_is_recorded_exactly(training):
    """An odd series length: TSL's irfft without n gives a curve of L - 1 lags; the engine follows it."""
    torch.manual_seed(1)
    cfg = lib.configs(seq_len=23)
    model = lib.Autoformer(cfg).train(training)
    name = "encoder.attn_layers.0.attention"
    own, handles = _outputs(model, [name])
    with torch.no_grad(), capture(model, [name]) as rec:
        model(torch.randn(2, 23, cfg.enc_in))
    for h in handles:
        h.remove()
    sc = dict(rec.scenarios)[f"{name}.call1"]
    assert sc.L == sc.S == 23
    _close(run(sc).array("output"), own[name][0])


@pytest.mark.parametrize("L,S", [(11, 7), (9, 14), (8, 5), (6, 13)])
def test_autoformer_decoder_cross_correlation_lengths(L, S):
    """Autoformer's DecoderLayer.cross_attention: queries of the decoder (label_len + pred_len steps)
    against the encoder's S steps; the library zero-pads (L > S) or cuts (L < S) the keys and values."""
    torch.manual_seed(L * 31 + S)
    layer = lib.AutoCorrelationLayer(lib.AutoCorrelation(True, 2, attention_dropout=0.1), 16, 4)
    model = torch.nn.ModuleDict({"cross_attention": layer}).eval()
    q, kv = torch.randn(2, L, 16), torch.randn(2, S, 16)
    with torch.no_grad():
        want = layer(q, kv, kv, None)[0]
        with capture(model, ["cross_attention"]) as rec:
            layer(q, kv, kv, None)
    sc = dict(rec.scenarios)["cross_attention.call1"]
    assert (sc.L, sc.S) == (L, S)
    _close(run(sc).array("output"), want)


def test_patchtst_patches_are_labelled_and_the_whole_encoder_layer_matches():
    torch.manual_seed(2)
    cfg = lib.configs(seq_len=40)
    model = lib.PatchTST(cfg)
    names = ["encoder.attn_layers.0.attention", "encoder.attn_layers.1"]
    scs, own = _capture(model, names, torch.randn(2, 40, cfg.enc_in))
    sc = scs["encoder.attn_layers.0.attention.call1"]
    # 40 steps padded by stride 8, patch_len 16: (40 + 8 - 16) // 8 + 1 = 5 patches, the last padded
    assert sc.query_tokens[:3] == ("patch 1 · t 0–15", "patch 2 · t 8–23", "patch 3 · t 16–31")
    assert len(sc.query_tokens) == 5 and "repeat t 39" in sc.query_tokens[4]
    _close(run(sc).array("output"), own[names[0]][0])
    whole = scs["encoder.attn_layers.1.call1"]
    assert [p.kind for p in whole.modifiers] == ["encoder_layer"]
    assert whole.modifiers[0].get("activation") == "gelu"
    _close(run(whole).array("extra.norm_second"), own[names[1]][0])


def test_itransformer_variates_and_time_features():
    torch.manual_seed(3)
    cfg = lib.configs()
    model = lib.ITransformer(cfg)
    name = "encoder.attn_layers.0.attention"
    scs, own = _capture(model, [name], torch.randn(2, cfg.seq_len, 3), torch.randn(2, cfg.seq_len, 2),
                        variates=["temperature", "humidity", "load"])
    sc = scs[f"{name}.call1"]
    assert sc.query_tokens == ("temperature", "humidity", "load", "time feature 1", "time feature 2")
    _close(run(sc).array("output"), own[name][0])


def test_crossformer_whole_two_stage_layer_is_one_scenario():
    torch.manual_seed(4)
    cfg = lib.configs(seq_len=40, factor=2)
    model = lib.Crossformer(cfg)
    tsa = "encoder.encode_blocks.0.encode_layers.0"
    assert (tsa, "tsl_two_stage") in attention_modules(model, whole_layers=True)
    assert (tsa, "tsl_two_stage") not in attention_modules(model)
    layer = model.encoder.encode_blocks[0].encode_layers[0]
    for i in range(1, 5):  # LayerNorms away from 1 / 0, so that each one counts
        torch.nn.init.normal_(getattr(layer, f"norm{i}").weight)
        torch.nn.init.normal_(getattr(layer, f"norm{i}").bias)
    own, handles = _outputs(model.eval(), [tsa])
    with torch.no_grad(), capture(model, [tsa], items=[1], variates=["a", "b", "c"]) as rec:
        model(torch.randn(2, 40, cfg.enc_in))
    for h in handles:
        h.remove()
    (stem, sc), = rec.scenarios
    assert stem == f"{tsa}.call1" and sc.batch == 1
    part = sc.modifiers[0]
    assert part.kind == "two_stage" and part.get("variables") == 3 and part.get("factor") == 2
    np.testing.assert_array_equal(part.get("router"), layer.router.detach().double().numpy().reshape(8, 16))
    assert sc.query_tokens[0] == "a · segment 1 · t 0–11" and sc.query_tokens[4] == "b · segment 1 · t 0–11"
    # TSL's output (b, D, seg, d) -> tokens v·seg + s
    out = own[tsa][0][1:2]
    _close(run(sc).array("extra.tsa_output"), out.reshape(1, 12, 16))


def test_crossformer_two_stage_layer_it_cannot_hold_is_refused():
    torch.manual_seed(4)
    model = lib.Crossformer(lib.configs(seq_len=40))
    tsa = "encoder.encode_blocks.0.encode_layers.0"
    layer = model.encoder.encode_blocks[0].encode_layers[0]
    # TSL's dropout 0.1, in train()
    with pytest.raises(CaptureError, match=rf"{tsa}: call 1 ran in training mode with attention dropout p = 0.1"):
        with torch.no_grad(), capture(model.train(), [tsa]):
            model(torch.randn(1, 40, 3))
    layer.dim_sender.inner_attention.scale = 0.5
    with pytest.raises(CaptureError, match=rf"{tsa}.dim_sender: the inner FullAttention is not what the two_stage"):
        with capture(model, [tsa]):
            pass
    layer.dim_sender.inner_attention.scale = None
    layer.MLP2[1] = torch.nn.GELU(approximate="tanh")
    with pytest.raises(CaptureError, match=rf"{tsa}.MLP2: not Linear, GELU"):
        with capture(model, [tsa]):
            pass


def test_crossformer_stages_named_one_by_one():
    torch.manual_seed(4)
    cfg = lib.configs(seq_len=40)
    model = lib.Crossformer(cfg)
    tsa = "encoder.encode_blocks.0.encode_layers.0"
    stages = [f"{tsa}.{s}" for s in ("time_attention", "dim_sender", "dim_receiver")]
    own, handles = _outputs(model.eval(), stages)
    with torch.no_grad(), capture(model, stages) as rec:
        model(torch.randn(2, 40, cfg.enc_in))
    for h in handles:
        h.remove()
    scs = dict(rec.scenarios)
    assert sorted(scs) == sorted(f"{s}.call1" for s in stages)
    time = scs[f"{stages[0]}.call1"]
    assert time.query_tokens[0] == "segment 1 · t 0–11" and len(time.query_tokens) == 4  # ceil(40 / 12)
    sender = scs[f"{stages[1]}.call1"]
    np.testing.assert_array_equal(sender.queries[:4], model.encoder.encode_blocks[0].encode_layers[0].router.detach()
                                  .double().numpy())  # the router is the sender's queries, segment by segment
    assert sender.key_tokens == ("variable 1", "variable 2", "variable 3")
    assert "dim_sender" in sender.notes["en"]
    for s in stages:
        _close(run(scs[f"{s}.call1"]).array("output"), own[s][0])


def test_informer_whole_encoder_layer_with_prob_sparse():
    torch.manual_seed(5)
    cfg = lib.configs(factor=2)
    model = lib.Informer(cfg)
    names = ["encoder.attn_layers.0", "encoder.attn_layers.1"]
    scs, own = _capture(model, names, torch.randn(2, cfg.seq_len, cfg.enc_in))
    for n in names:
        sc = scs[f"{n}.call1"]
        assert sc.scoring == "prob_sparse" and sc.factor == 2 and sc.sample_index is not None
        _close(run(sc).array("extra.norm_second"), own[n][0])
    # the distilling ConvLayer: circular pad 2, kernel 3 -> 26 steps; MaxPool(3, stride 2, pad 1) -> 13
    assert scs["encoder.attn_layers.1.call1"].L == (24 + 4 - 3 + 1 + 2 - 3) // 2 + 1


def test_informer_encoder_layer_with_its_distilling_conv_layer():
    """TSL's Encoder: x = attn_layers[0](x); x = conv_layers[0](x): one scenario, checked at the
    ConvLayer's own output; the last layer has no ConvLayer after it."""
    torch.manual_seed(5)
    model = lib.Informer(lib.configs(factor=2, seq_len=23))
    conv = model.encoder.conv_layers[0]
    conv.norm.running_mean.copy_(torch.randn(16))  # trained-looking statistics, not a fresh BatchNorm's
    conv.norm.running_var.copy_(torch.rand(16) + 0.5)
    torch.nn.init.normal_(conv.norm.weight)
    names = ["encoder.attn_layers.0", "encoder.attn_layers.1", "encoder.conv_layers.0"]
    model.eval()
    own, handles = _outputs(model, names)
    with torch.no_grad(), capture(model, names[:2]) as rec:
        model(torch.randn(2, 23, 3))
    for h in handles:
        h.remove()
    scs = dict(rec.scenarios)
    first = scs["encoder.attn_layers.0.call1"]
    assert [p.kind for p in first.modifiers] == ["encoder_layer", "distil"]
    np.testing.assert_array_equal(first.modifiers[1].get("running_mean"), conv.norm.running_mean.double().numpy())
    trace = run(first)
    _close(trace.array("extra.norm_second"), own[names[0]][0])
    _close(trace.array("extra.distil_pool"), own[names[2]][0])
    assert trace.array("extra.distil_pool").shape[1] == 13  # (23 + 1) // 2 + 1
    assert [p.kind for p in scs["encoder.attn_layers.1.call1"].modifiers] == ["encoder_layer"]


def test_informer_conv_layer_of_another_kind_is_refused():
    torch.manual_seed(5)
    model = lib.Informer(lib.configs())
    model.encoder.conv_layers[0].maxPool = torch.nn.MaxPool1d(kernel_size=2)
    with pytest.raises(CaptureError, match=r"encoder.conv_layers.0: not TSL's distilling ConvLayer"):
        with capture(model, ["encoder.attn_layers.0"]):
            pass


def test_encoder_layer_with_another_activation_is_refused():
    torch.manual_seed(6)
    model = lib.Informer(lib.configs())
    model.encoder.attn_layers[0].activation = torch.tanh
    with pytest.raises(CaptureError, match="encoder.attn_layers.0: the activation tanh"):
        with capture(model, ["encoder.attn_layers.0"]):
            pass


def test_fedformer_style_inner_correlation_is_refused():
    class FourierBlock(torch.nn.Module):
        pass

    layer = lib.AutoCorrelationLayer(FourierBlock(), 8, 2)
    with pytest.raises(CaptureError, match="layer: the inner FourierBlock"):
        with capture(torch.nn.ModuleDict({"layer": layer}), ["layer"]):
            pass


# ---------------------------------------------------------------- layers / import

def _saved(tmp_path, name, model) -> Path:
    folder = tmp_path / f"long_term_forecast_test_{name}_custom_ftM_sl24"
    folder.mkdir()
    path = folder / "checkpoint.pth"
    torch.save(model.state_dict(), path)
    return path


def _imported(path, layer, tokens=6, heads=4):
    source, layers = open_layers(path)
    found = choose(source, layers, layer)
    return found, import_layer(source, found, heads=heads, tokens=tokens)


def _t(a) -> torch.Tensor:
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def test_import_nonstationary_uses_tau_1_delta_0_and_says_so(tmp_path):
    torch.manual_seed(7)
    model = lib.NonstationaryTransformer(lib.configs()).double().eval()
    path = _saved(tmp_path, "Nonstationary_Transformer", model)
    found, sc = _imported(path, "decoder.layers.0.self_attention")
    assert found.family == "tsl_ds" and sc.scoring == "ds_attention" and sc.causal
    np.testing.assert_array_equal(sc.modifiers[0].get("tau"), [1.0])
    assert "cannot come from a state dict" in sc.notes["en"] and "attention.capture" in sc.notes["en"]
    with torch.no_grad():
        want = model.decoder.layers[0].self_attention(_t(sc.queries), _t(sc.keys), _t(sc.values), None,
                                                      tau=torch.ones(1, 1), delta=torch.zeros(1, sc.S))[0]
    _close(run(sc, dtype="float64").array("output"), want, 1e-12)


def test_decoder_self_attention_notes_suggest_only_tau(tmp_path):
    """TSL's DecoderLayer passes delta=None to its self-attention, so --delta is refused there and the notes
    (en and zh) must not offer it, with or without --tau."""
    from attention.models.tsl_models import destationary_problem

    torch.manual_seed(7)
    model = lib.NonstationaryTransformer(lib.configs()).double().eval()
    path = _saved(tmp_path, "Nonstationary_Transformer", model)
    source, layers = open_layers(path)
    found = choose(source, layers, "decoder.layers.0.self_attention")
    given, problem = destationary_problem(found, "2.5", None)
    assert problem is None
    for sc in (import_layer(source, found, heads=4, tokens=6),
               import_layer(source, found, heads=4, tokens=6, destationary=given)):
        for lang in ("en", "zh"):
            assert "--delta" not in sc.notes[lang] and "--tau" in sc.notes[lang] and "delta=None" in sc.notes[lang]
    assert "τ = 2.5" in sc.notes["en"]
    np.testing.assert_array_equal(sc.modifiers[0].get("tau"), [2.5])


def test_import_whole_nonstationary_encoder_layer(tmp_path):
    torch.manual_seed(8)
    model = lib.NonstationaryTransformer(lib.configs(activation="relu")).double().eval()
    path = _saved(tmp_path, "x", model)  # told by tau_learner / delta_learner, not by the folder
    torch.save({"model": model.state_dict(), "args": {"activation": "relu"}}, path)
    found, sc = _imported(path, "model.encoder.attn_layers.1")
    assert found.family == "tsl_encoder"
    assert [p.kind for p in sc.modifiers] == ["destationary", "encoder_layer"]
    with torch.no_grad():
        want = model.encoder.attn_layers[1](_t(sc.queries))[0]
    _close(run(sc, dtype="float64").array("extra.norm_second"), want, 1e-12)


def test_import_autoformer_autocorrelation(tmp_path):
    torch.manual_seed(9)
    model = lib.Autoformer(lib.configs()).double().eval()
    path = _saved(tmp_path, "Autoformer", model)
    found, sc = _imported(path, "encoder.attn_layers.0.attention", tokens=12)
    assert found.family == "tsl_autocorr" and sc.scoring == "autocorrelation"
    with torch.no_grad():
        want = model.encoder.attn_layers[0].attention(_t(sc.queries), _t(sc.keys), _t(sc.values), None)[0]
    _close(run(sc, dtype="float64").array("output"), want, 1e-12)


def test_import_autoformer_odd_tokens(tmp_path):
    torch.manual_seed(9)
    model = lib.Autoformer(lib.configs(factor=2)).double().eval()
    path = _saved(tmp_path, "Autoformer", model)
    torch.save({"model": model.state_dict(), "args": {"factor": 2}}, path)  # run.py's --factor, saved beside
    _, sc = _imported(path, "model.encoder.attn_layers.0.attention", tokens=13)
    assert sc.modifiers[0].get("factor") == 2.0
    assert sc.L == sc.S == 13
    with torch.no_grad():
        want = model.encoder.attn_layers[0].attention(_t(sc.queries), _t(sc.keys), _t(sc.values), None)[0]
    _close(run(sc, dtype="float64").array("output"), want, 1e-12)


def _autoformer_with_decoder(d_keys=None, d_values=None):
    """Autoformer's encoder and one DecoderLayer's cross-correlation, under TSL's module names
    (run.py's default factor 1, what the import assumes when the file does not say)."""
    cfg = lib.configs()
    model = lib.Autoformer(cfg)
    model.decoder = torch.nn.Module()
    cross = torch.nn.Module()
    cross.cross_attention = lib.AutoCorrelationLayer(lib.AutoCorrelation(False, 1, attention_dropout=0.1),
                                                     cfg.d_model, cfg.n_heads, d_keys, d_values)
    model.decoder.layers = torch.nn.ModuleList([cross])
    return model.double().eval()


@pytest.mark.parametrize("tokens", [9, 12])
def test_import_autoformer_decoder_cross_correlation(tmp_path, tokens):
    """The decoder's queries outnumber the encoder's steps: generated keys are two steps fewer, which
    the library pads with zero steps."""
    torch.manual_seed(16 + tokens)
    model = _autoformer_with_decoder()
    path = _saved(tmp_path, "Autoformer", model)
    found, sc = _imported(path, "decoder.layers.0.cross_attention", tokens=tokens)
    assert found.family == "tsl_autocorr" and found.cross and (sc.L, sc.S) == (tokens, tokens - 2)
    layer = model.decoder.layers[0].cross_attention
    with torch.no_grad():
        want = layer(_t(sc.queries), _t(sc.keys), _t(sc.values), None)[0]
    _close(run(sc, dtype="float64").array("output"), want, 1e-12)
    # and keys longer than the queries (cut by the library), given as inputs
    g = torch.Generator().manual_seed(3)
    q, kv = torch.randn(1, 7, 16, generator=g, dtype=torch.float64), torch.randn(1, 10, 16, generator=g,
                                                                                   dtype=torch.float64)
    source, layers = open_layers(path)
    sc = import_layer(source, choose(source, layers, "decoder.layers.0.cross_attention"), heads=4,
                      inputs={"queries": q.numpy(), "keys": kv.numpy(), "values": kv.numpy()})
    with torch.no_grad():
        want = layer(q, kv, kv, None)[0]
    _close(run(sc, dtype="float64").array("output"), want, 1e-12)


def test_import_autoformer_longer_queries_with_narrower_values_refused(tmp_path):
    """L > S needs d_values == d_keys (the library appends zeros shaped like the queries; with other
    widths its own torch.cat fails): refused in one line naming the layer."""
    torch.manual_seed(17)
    path = _saved(tmp_path, "Autoformer", _autoformer_with_decoder(d_keys=4, d_values=2))
    source, layers = open_layers(path)
    found = choose(source, layers, "decoder.layers.0.cross_attention")
    q, kv = np.ones((1, 6, 16)), np.ones((1, 4, 16))
    with pytest.raises(CheckpointError, match=r"^decoder.layers.0.cross_attention: the engine cannot hold"):
        import_layer(source, found, heads=4, inputs={"queries": q, "keys": kv, "values": kv})
    _, sc = _imported(path, "decoder.layers.0.cross_attention", tokens=6)  # generated: keys longer, cut
    assert sc.S == 8


def test_import_informer_encoder_layer_prob_sparse(tmp_path):
    torch.manual_seed(10)
    model = lib.Informer(lib.configs(factor=1)).double().eval()
    path = _saved(tmp_path, "Informer", model)
    found, sc = _imported(path, "encoder.attn_layers.0", tokens=12)
    assert sc.scoring == "prob_sparse" and sc.mix
    n_sample, _ = sc.prob_sparse_sizes()
    torch.manual_seed(11)
    sample = torch.randint(sc.S, (sc.L, n_sample))  # the draw the module makes next, given to the engine
    sc = __import__("dataclasses").replace(sc, sample_index=sample.numpy())
    torch.manual_seed(11)
    with torch.no_grad():
        want = model.encoder.attn_layers[0](_t(sc.queries))[0]
    _close(run(sc, dtype="float64").array("extra.norm_second"), want, 1e-12)


def test_import_crossformer_sender_reads_the_files_router(tmp_path):
    torch.manual_seed(12)
    model = lib.Crossformer(lib.configs(seq_len=40)).double().eval()
    path = _saved(tmp_path, "Crossformer", model)
    tsa = model.encoder.encode_blocks[0].encode_layers[0]
    found, sc = _imported(path, "encoder.encode_blocks.0.encode_layers.0.dim_sender", tokens=3)
    np.testing.assert_array_equal(sc.queries[0], tsa.router[0].detach().numpy())
    assert sc.key_tokens == ("variable 1", "variable 2", "variable 3")
    with torch.no_grad():
        want = tsa.dim_sender(_t(sc.queries), _t(sc.keys), _t(sc.values), None)[0]
    _close(run(sc, dtype="float64").array("output"), want, 1e-12)


def test_import_whole_crossformer_two_stage_layer(tmp_path, capsys):
    from attention.cli import main

    torch.manual_seed(18)
    model = lib.Crossformer(lib.configs(seq_len=40, factor=3)).double().eval()
    tsa = model.encoder.encode_blocks[0].encode_layers[0]
    for i in range(1, 5):
        torch.nn.init.normal_(getattr(tsa, f"norm{i}").weight)
        torch.nn.init.normal_(getattr(tsa, f"norm{i}").bias)
    path = _saved(tmp_path, "Crossformer", model)
    name = "encoder.encode_blocks.0.encode_layers.0"
    assert main(["layers", str(path)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(name + "\t"))
    assert "not importable" not in line and "3 variables × 4 segments" in line and "router 3 slots" in line
    out = tmp_path / "tsa.json"
    assert main(["import", str(path), "--layer", name, "--heads", "4", "--out", str(out)]) == 0
    from attention.files import scenario_io

    sc = scenario_io.load(out)
    assert sc.L == 12 and sc.n_heads == 4 and [p.kind for p in sc.modifiers] == ["two_stage"]
    np.testing.assert_array_equal(sc.modifiers[0].get("router"), tsa.router.detach().numpy().reshape(12, 16))
    with torch.no_grad():
        want = tsa(_t(sc.queries).reshape(1, 3, 4, 16)).reshape(1, 12, 16)  # tokens v·seg + s
    _close(run(sc, dtype="float64").array("extra.tsa_output"), want, 1e-12)
    with pytest.raises(CheckpointError, match=rf"^{name}: the layer has 4 segments.*got 10"):
        source, layers = open_layers(path)
        x = np.ones((1, 10, 16))
        import_layer(source, choose(source, layers, name), heads=4, inputs={"queries": x, "keys": x, "values": x})
    # a file without enc_pos_embedding does not say D: --tokens does (a multiple of the 4 segments)
    state = {k: v for k, v in model.state_dict().items() if k != "enc_pos_embedding"}
    torch.save(state, path)
    assert main(["layers", str(path)]) == 0
    assert "4 segments, router 3 slots per segment; variables from --tokens" in capsys.readouterr().out
    assert main(["import", str(path), "--layer", name, "--heads", "4", "--tokens", "8", "--out", str(out)]) == 0
    sc = scenario_io.load(out)
    assert sc.modifiers[0].get("variables") == 2 and sc.query_tokens[4] == "variable 2 · segment 1 · t 0–11"
    with torch.no_grad():
        want = tsa(_t(sc.queries).reshape(1, 2, 4, 16)).reshape(1, 8, 16)
    _close(run(sc, dtype="float64").array("extra.tsa_output"), want, 1e-12)
    capsys.readouterr()
    assert main(["import", str(path), "--layer", name, "--heads", "4", "--out", str(out)]) == 2  # 6 tokens
    assert "the layer has 4 segments, so its tokens must be a multiple of 4 (variables × segments); got 6" in \
        capsys.readouterr().err


def test_import_informer_encoder_layer_with_distilling(tmp_path):
    torch.manual_seed(19)
    model = lib.Informer(lib.configs(factor=1)).double().eval()
    conv = model.encoder.conv_layers[0]
    conv.norm.running_mean.copy_(torch.randn(16))
    conv.norm.running_var.copy_(torch.rand(16) + 0.5)
    path = _saved(tmp_path, "Informer", model)
    found, sc = _imported(path, "encoder.attn_layers.0", tokens=9)
    assert found.extra["distil"] == "encoder.conv_layers.0"
    assert [p.kind for p in sc.modifiers] == ["encoder_layer", "distil"]
    assert "encoder.conv_layers.0" in sc.notes["en"]
    n_sample, _ = sc.prob_sparse_sizes()
    torch.manual_seed(11)
    sc = __import__("dataclasses").replace(sc, sample_index=torch.randint(sc.S, (sc.L, n_sample)).numpy())
    torch.manual_seed(11)
    with torch.no_grad():
        layer_out = model.encoder.attn_layers[0](_t(sc.queries))[0]
        want = conv(layer_out)
    trace = run(sc, dtype="float64")
    _close(trace.array("extra.norm_second"), layer_out, 1e-12)
    _close(trace.array("extra.distil_pool"), want, 1e-12)
    _, last = _imported(path, "encoder.attn_layers.1", tokens=9)
    assert [p.kind for p in last.modifiers] == ["encoder_layer"]  # the last layer has no ConvLayer


def test_import_nonstationary_tau_and_delta_given(tmp_path, capsys):
    from attention.cli import main
    from attention.files import scenario_io

    torch.manual_seed(20)
    model = lib.NonstationaryTransformer(lib.configs()).double().eval()
    path = _saved(tmp_path, "Nonstationary_Transformer", model)
    out = tmp_path / "ds.json"
    name = "decoder.layers.0.cross_attention"
    args = ["import", str(path), "--layer", name, "--heads", "4", "--tokens", "5", "--out", str(out)]
    assert main(args + ["--tau", "2.5", "--delta", "0.5,-1,0,2,0.25"]) == 0
    sc = scenario_io.load(out)
    assert sc.S == 5 and "τ = 2.5" in sc.notes["en"] and "cannot come from a state dict" not in sc.notes["en"]
    tau, delta = torch.tensor([[2.5]], dtype=torch.float64), torch.tensor([[0.5, -1, 0, 2, 0.25]],
                                                                          dtype=torch.float64)
    with torch.no_grad():
        want = model.decoder.layers[0].cross_attention(_t(sc.queries), _t(sc.keys), _t(sc.values), None,
                                                       tau=tau, delta=delta)[0]
    _close(run(sc, dtype="float64").array("output"), want, 1e-12)
    assert main(args + ["--tau", "3", "--delta", "-0.5"]) == 0  # one Δ for every key
    np.testing.assert_array_equal(scenario_io.load(out).modifiers[0].get("delta"), np.full((1, 5), -0.5))
    capsys.readouterr()
    for bad, said in ((["--tau", "0"], "--tau: 0 is not a positive"), (["--tau", "nan"], "--tau: nan"),
                      (["--tau", "x"], "--tau: x"), (["--delta", "1,inf"], "--delta: 1,inf is not"),
                      (["--delta", "1,2"], "nor 5 finite numbers")):
        assert main(args + bad) == 2, bad
        assert said in capsys.readouterr().err, bad
    informer = _saved(tmp_path, "Informer", lib.Informer(lib.configs()))
    assert main(["import", str(informer), "--layer", "encoder.attn_layers.0", "--heads", "4", "--tau", "2",
                 "--out", str(out)]) == 2
    assert "--tau / --delta: encoder.attn_layers.0 is not a Non-stationary" in capsys.readouterr().err


def test_import_start_and_freq_date_the_steps(tmp_path, capsys):
    """--start / --freq set the scenario's time_axis: the imported layer's steps are labelled with their dates
    (counted here with datetime), saved as the time_axis alone; a bad or lone option is refused naming it."""
    from datetime import datetime, timedelta

    from attention.cli import main
    from attention.files import scenario_io

    torch.manual_seed(22)
    model = lib.NonstationaryTransformer(lib.configs()).double().eval()
    path = _saved(tmp_path, "Nonstationary_Transformer", model)
    out = tmp_path / "dated.json"
    args = ["import", str(path), "--layer", "decoder.layers.0.self_attention", "--heads", "4", "--tokens", "5",
            "--out", str(out)]
    assert main(args + ["--start", "2016-07-01 22:00", "--freq", "15min"]) == 0
    want = tuple((datetime(2016, 7, 1, 22) + timedelta(minutes=15 * i)).strftime("%Y-%m-%d %H:%M")
                 for i in range(5))
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["time_axis"] == {"start": "2016-07-01 22:00", "freq": "15min"} and "query_tokens" not in doc
    sc = scenario_io.load(out)
    assert sc.query_tokens == want == sc.key_tokens
    capsys.readouterr()
    for bad, said in ((["--start", "2016-07-01"], "--start and --freq go together"),
                      (["--start", "July", "--freq", "h"], "--start: 'July' is not a date"),
                      (["--start", "2016-07-01", "--freq", "q"], "--freq: 'q' is not a frequency")):
        assert main(args + bad) == 2, bad
        assert said in capsys.readouterr().err, bad


def test_import_nonstationary_decoder_self_attention_takes_tau_but_never_delta(tmp_path, capsys):
    """TSL's DecoderLayer calls self_attention(x, x, x, attn_mask=x_mask, tau=tau, delta=None): a Δ
    given for it would be a scenario the library never computes, so --delta is refused there."""
    from attention.cli import main
    from attention.files import scenario_io

    torch.manual_seed(21)
    model = lib.NonstationaryTransformer(lib.configs()).double().eval()
    path = _saved(tmp_path, "Nonstationary_Transformer", model)
    out = tmp_path / "self.json"
    args = ["import", str(path), "--layer", "decoder.layers.0.self_attention", "--heads", "4", "--tokens", "5",
            "--out", str(out)]
    capsys.readouterr()
    assert main(args + ["--tau", "2", "--delta", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "--delta: decoder.layers.0.self_attention" in err and "delta=None" in err
    assert main(args + ["--tau", "2"]) == 0  # τ does reach it
    sc = scenario_io.load(out)
    with torch.no_grad():
        want = model.decoder.layers[0].self_attention(_t(sc.queries), _t(sc.keys), _t(sc.values), None,
                                                      tau=torch.tensor([[2.0]], dtype=torch.float64), delta=None)[0]
    _close(run(sc, dtype="float64").array("output"), want, 1e-12)


def test_import_patchtst_labels_patches(tmp_path):
    torch.manual_seed(13)
    path = _saved(tmp_path, "PatchTST", lib.PatchTST(lib.configs(seq_len=40)))
    found, sc = _imported(path, "encoder.attn_layers.0.attention", tokens=5)
    assert found.extra["n_patches"] == 5 and found.extra["patch_len"] == 16
    assert sc.query_tokens[2] == "patch 3 · t 16–31"


def test_layers_lists_every_tsl_model(tmp_path, capsys):
    from attention.cli import main

    torch.manual_seed(14)
    cfg = lib.configs()
    for name, model, want in (("Nonstationary_Transformer", lib.NonstationaryTransformer(cfg), "DSAttention"),
                              ("Autoformer", lib.Autoformer(cfg), "AutoCorrelationLayer"),
                              ("iTransformer", lib.ITransformer(cfg), "tokens are variables (24 steps each)"),
                              ("Informer", lib.Informer(cfg), "ProbSparse (Informer, factor 1)")):
        assert main(["layers", str(_saved(tmp_path, name, model))]) == 0
        out = capsys.readouterr().out
        assert want in out
    lines = [x for x in out.splitlines() if x.startswith("encoder.attn_layers.")]  # Informer's, the last model
    assert ["then the distilling ConvLayer encoder.conv_layers.0" in x for x in lines] == [True, False, False, False]


def test_import_unknown_layer_and_bad_shape_name_the_key(tmp_path, capsys):
    from attention.cli import main

    torch.manual_seed(15)
    state = lib.Informer(lib.configs()).state_dict()
    state["encoder.attn_layers.0.conv2.weight"] = torch.randn(16, 5, 1)  # conv1 makes 32 channels
    path = tmp_path / "checkpoint.pth"
    torch.save(state, path)
    out = str(tmp_path / "x.json")
    assert main(["import", str(path), "--layer", "encoder.attn_layers.9", "--heads", "4", "--out", out]) == 2
    assert "encoder.attn_layers.9" in capsys.readouterr().err
    assert main(["import", str(path), "--layer", "encoder.attn_layers.0", "--heads", "4", "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "encoder.attn_layers.0.conv2.weight is (16×5×1)" in err and "(16×32×1)" in err
    assert main(["layers", str(path)]) == 0  # listed with the reason, the rest as before
    assert "not importable: encoder.attn_layers.0.conv2.weight is (16×5×1)" in capsys.readouterr().out


def test_shared_prob_attention_returns_the_library_attention_map():
    """TSL's ProbAttention(output_attention=True) returns (B, H, L_V, L_V): 1/L_V in the lazy rows,
    the softmax in the selected ones; with no mask the context is then exactly that map times V."""
    torch.manual_seed(22)
    B, L, H, D = 2, 12, 2, 4
    q, k, v = (torch.randn(B, L, H, D, dtype=torch.float64) for _ in range(3))
    ctx, attns = lib.ProbAttention(False, factor=1, output_attention=True)(q, k, v, None)
    assert attns is not None and attns.shape == (B, H, L, L)
    # the library's quirk: torch.ones(...) / L_V is made in float32 before .type_as, so a lazy row is
    # float32's 1/12 (off by ~3e-9 each) even in a float64 model
    lazy = torch.tensor(1.0 / L, dtype=torch.float32).double()
    uniform = (attns == lazy).all(-1)
    assert ((~uniform).sum(-1) == 3).all()  # u = factor · ceil(ln 12) = 3 selected queries per head
    _close(attns.sum(-1), torch.ones(B, H, L), 1e-7)
    _close(ctx, attns @ v.transpose(2, 1), 1e-7)
