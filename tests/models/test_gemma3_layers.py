"""Gemma 3's layers through the engine (the window's open layer, `main.py run`'s files) and through the layer
importer's description (families.py, checked against transformers' own Gemma 3 in golden_modern): both equal the
model's reference attention, for local and global layers and for the teaching window."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("gguf")
pytest.importorskip("tokenizers")

from attention import run  # noqa: E402

GOLDEN = Path(__file__).with_name("golden_gemma3.npz")


@pytest.fixture(scope="module")
def ids():
    return [int(i) for i in np.load(GOLDEN)["zh_ids"]]


@pytest.mark.parametrize("window", [None, 4])
def test_engine_layer_equals_the_reference_attention(gemma3_model, ids, window):
    from attention.models.decoder_layer import layer_scenario

    model = gemma3_model.with_window(window)
    f = model.forward(ids, dtype=torch.float64)
    labels = model.token_labels(ids)
    for k in (4, 5):  # layer 5 is local, layer 6 global
        sc = layer_scenario(model, f.normed[k].numpy(), k, labels, text="注意力机制让模型在处理一个词时")
        t = run(sc, device="cpu")
        np.testing.assert_allclose(t.array("attention_weights"), f.weights[k].numpy(), rtol=0, atol=1e-12)
        np.testing.assert_allclose(t.array("output"), f.attn_out[k].numpy(), rtol=0, atol=1e-9)
        assert (sc.n_heads, sc.n_kv_heads, sc.d_keys, sc.causal, sc.scale) == (4, 1, 256, True, 1 / 16)
        rope, qk = sc.positions[0].values, sc.modifiers[0]
        assert rope["pairing"] == "halves" and rope["base"] == (1e6 if k == 5 else 1e4)
        assert qk.kind == "qk_norm" and qk.values["style"] == "gemma3"
        np.testing.assert_array_equal(qk.values["query_weight"],
                                      model.tensors[f"model.layers.{k}.self_attn.q_norm.weight"].double().numpy())
        masks = [(p.kind, p.values["size"]) for p in sc.masks]
        assert masks == ([] if k == 5 else [("window", window or 512)])
        assert {"qk_norm.query", "qk_norm.key", "rope.query", "rope.key"} <= set(t.ids)
        assert sc.query_tokens[1] == "注意力"
        name = "Gemma 3 270M" if window is None else "Gemma 3 270M (altered: local window 4)"
        assert sc.title["en"] == f"{name}, layer {k + 1} of 18"
        kind = "global (every earlier token, RoPE base 1,000,000)" if k == 5 else \
            f"local (window {window or 512}, RoPE base 10,000)"
        assert f"Layer {k + 1} is {kind}." in sc.notes["en"] and "QK-norm before RoPE" in sc.notes["en"]
        assert ("Altered for teaching: the local window is 4; Gemma 3's own is 512." in sc.notes["en"]) == bool(window)
        assert "多查询注意力" in sc.notes["zh"] and "RoPE 之前做 QK 归一化" in sc.notes["zh"]


def test_importer_description_of_a_layer_reproduces_it(gemma3_model, ids):
    """families.read_attention on the tensors held (the importer's gemma3 rules: 1 + w QK-norm, per-type RoPE
    base and window, query_pre_attn_scalar), turned into a scenario by family_scenario: the same weights."""
    from attention.models.family_scenario import to_scenario

    f = gemma3_model.forward(ids, dtype=torch.float64)
    for k, base, window in ((4, 1e4, 512), (5, 1e6, None)):
        d = gemma3_model.attention_layer(k)
        assert (d.family, d.n_heads, d.n_kv_heads, d.head_dim, d.scale) == ("gemma3", 4, 1, 256, 1 / 16)
        assert d.rope.base == base and d.window == window and d.qk_norm.plus_one and d.softcap is None
        np.testing.assert_array_equal(d.k_weight, gemma3_model.attention_weights(k)["key"])
        t = run(to_scenario(d, f.normed[k].numpy(), dtype="float64"), device="cpu")
        np.testing.assert_allclose(t.array("attention_weights"), f.weights[k].numpy(), rtol=0, atol=1e-12)
    narrowed = gemma3_model.with_window(4).attention_layer(4)
    assert narrowed.window == 4


def test_kept_weights_are_shared_by_the_altered_model(gemma3_model):
    """The teaching window copies nothing: the same float64 arrays, the same float32 tensors."""
    a = gemma3_model.attention_weights(3)
    b = gemma3_model.with_window(4).attention_weights(3)
    assert all(a[role] is b[role] for role in a) and not a["query"].flags.writeable


def test_prompt_refusals(gemma3_model):
    from attention.models.errors import ModelError

    with pytest.raises(ModelError) as e:
        gemma3_model.forward([2] * (gemma3_model.spec.context_length + 1), last_logits=True)
    assert e.value.text("en") == "prompt: 32769 tokens; this model reads at most 32768"
    assert e.value.text("zh") == "提示词：32769 个词元；此模型最多读取 32768 个"
    with pytest.raises(ModelError):
        gemma3_model.forward([262144])
