"""A decoder layer as a scenario (attention/models/decoder_layer.py): engine.run on the layer's normed
input must give glassllm's own attention weights and output (its NumPy Tracer), layer by layer, and the
whole forward with the engine as its attention must give glassllm's logits."""
from __future__ import annotations

import numpy as np
import pytest

glassllm = pytest.importorskip("glassllm")

from attention import run  # noqa: E402
from attention.models.decoder_layer import engine_attend, layer_scenario  # noqa: E402
from attention.models.glassllm import GlassDecoder  # noqa: E402

PROMPT = "Alice was beginning to get very tired of sitting"


@pytest.fixture(scope="module")
def model():
    return GlassDecoder.load()


@pytest.fixture(scope="module")
def traced(model):
    """glassllm's own float64 forward with its Tracer (independent of this project's code)."""
    from importlib import resources
    with resources.as_file(resources.files("glassllm") / "weights" / "en.npz") as path:
        net = glassllm.GlassLM.load(path, dtype=np.float64)
    ids = model.encode(PROMPT)
    tracer = glassllm.Tracer()
    logits = net.forward(ids, trace=tracer).data[0]
    return ids, tracer, logits


def test_engine_on_each_layer_scenario_gives_glassllms_weights_and_output(model, traced):
    ids, tracer, _ = traced
    labels = model.token_labels(ids)
    for k in range(model.config.n_layers):
        h = tracer.get("norm.attn", layer=k).value  # (L, d): glassllm's own normed input
        sc = layer_scenario(model, h[None], k, labels)
        assert (sc.n_heads, sc.n_kv_heads, sc.causal) == (4, 2, True)
        assert sc.query_tokens == tuple(labels)
        t = run(sc, device="cpu")
        np.testing.assert_allclose(t.array("attention_weights")[0], tracer.get("attn.softmax", layer=k).value,
                                   rtol=0, atol=1e-12)
        np.testing.assert_allclose(t.array("output")[0], tracer.get("attn.out", layer=k).value, rtol=0, atol=1e-12)


def test_forward_through_the_engine_gives_glassllms_logits(model, traced):
    ids, _, logits = traced
    f = model.forward(ids, attend=engine_attend(model))
    np.testing.assert_allclose(f.logits[0].numpy(), logits, rtol=0, atol=1e-10)


def test_a_wrong_pairing_would_be_caught(model, traced):
    """The test can fail: halves instead of glassllm's adjacent pairs changes the weights."""
    ids, tracer, _ = traced
    model.rope_pairing = "halves"
    try:
        sc = layer_scenario(model, tracer.get("norm.attn", layer=1).value[None], 1)
    finally:
        del model.rope_pairing
    w = run(sc, device="cpu").array("attention_weights")[0]
    assert np.abs(w - tracer.get("attn.softmax", layer=1).value).max() > 1e-3
