"""glassllm's decoder run in torch (attention/models/glassllm.py) against the package's own NumPy
forward, layer by layer: its Tracer records every step, so each of ours is pinned to it."""
from __future__ import annotations

import numpy as np
import pytest

glassllm = pytest.importorskip("glassllm")

from attention.models.glassllm import GlassDecoder  # noqa: E402

PROMPT = "Once upon a time there was a little girl who"


@pytest.fixture(scope="module")
def model():
    return GlassDecoder.load()


@pytest.fixture(scope="module")
def theirs():
    """glassllm's own forward in float64 (its weights are float16; loading them as float64 is exact)."""
    from importlib import resources
    base = resources.files("glassllm") / "weights"
    with resources.as_file(base / "en.npz") as path:
        net = glassllm.GlassLM.load(path, dtype=np.float64)
    return net


def test_config_is_the_packaged_model(model):
    c = model.config
    assert (c.n_layers, c.d_model, c.n_heads, c.n_kv_heads, c.vocab_size) == (4, 128, 4, 2, 1024)


def test_every_layer_and_the_logits_match_glassllm(model, theirs):
    ids = model.encode(PROMPT)
    tracer = glassllm.Tracer()
    logits = theirs.forward(ids, trace=tracer).data[0]
    ours = model.forward(ids)
    for k in range(model.config.n_layers):
        h = tracer.get("norm.attn", layer=k).value  # (L, d)
        np.testing.assert_allclose(ours.normed[k][0].numpy(), h, rtol=0, atol=1e-12)
        w = tracer.get("attn.softmax", layer=k).value  # (H, L, L)
        np.testing.assert_allclose(ours.weights[k][0].numpy(), w, rtol=0, atol=1e-12)
        out = tracer.get("attn.out", layer=k).value  # (L, d)
        np.testing.assert_allclose(ours.attn_out[k][0].numpy(), out, rtol=0, atol=1e-12)
        resid = tracer.get("resid.ffn", layer=k).value
        np.testing.assert_allclose(ours.resid[k + 1][0].numpy(), resid, rtol=0, atol=1e-11)
    np.testing.assert_allclose(ours.logits[0].numpy(), logits, rtol=0, atol=1e-10)


def test_weights_are_glassllms_transposed(model, theirs):
    for k in range(model.config.n_layers):
        w = model.attention_weights(k)
        a = theirs.blocks[k].attn
        for role, W in (("query", a.W_Q), ("key", a.W_K), ("value", a.W_V), ("out", a.W_O)):
            np.testing.assert_array_equal(w[role], W.data.T)


def test_greedy_next_token_is_glassllms(model, theirs):
    ids = model.encode(PROMPT)
    step = next(theirs.generate(ids, 1, greedy=True))
    assert int(model.forward(ids).logits[0, -1].argmax()) == step.token
