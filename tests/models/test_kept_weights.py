"""A decoder's attention weights are made once per layer as read-only float64 arrays and shared by every
scenario of that layer (attention.models.decoder.KeptWeights): the structure, not the speed (bench/smollm2.py
and bench/engine_layer.py print that).  Values come from the model's own master tensors, read here directly."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from attention.models.decoder import KeptWeights
from attention.models.decoder_layer import layer_scenario
from attention.models.llama import KEPT_LAYERS, LAYER_TENSORS, LlamaDecoder, LlamaSpec, expected_shapes
from attention.ops.tensors import tensor

ROLES = {"query": "q", "key": "k", "value": "v", "out": "o"}


@pytest.fixture(scope="module")
def tiny() -> LlamaDecoder:
    """A 6-layer Llama with random float32 weights (no file): more layers than KEPT_LAYERS."""
    spec = LlamaSpec(name="tiny", vocab_size=11, d_model=8, n_layers=KEPT_LAYERS + 2, n_heads=4, n_kv_heads=2,
                     head_dim=2, ffn_dim=12, rope_base=10000.0, eps=1e-6, context_length=32, tied=True)
    g = torch.Generator().manual_seed(0)
    tensors = {name: torch.randn(shape, generator=g) for name, shape in expected_shapes(spec).items()
               if name != "lm_head.weight"}
    return LlamaDecoder(spec, tensors)


def _normed(model: LlamaDecoder, ids: list[int]) -> list[np.ndarray]:
    return [h.numpy() for h in model.forward(ids).normed]


def test_llama_weights_are_read_only_float64_and_shared(tiny):
    a, b = tiny.attention_weights(2), tiny.attention_weights(2)
    assert a is not b  # a new dict each call: a caller may change its own dict
    for role, short in ROLES.items():
        w = a[role]
        assert w is b[role] and w.dtype == np.float64 and not w.flags.writeable
        master = tiny.tensors[LAYER_TENSORS[short].format(k=2)]  # float32 (out, in)
        np.testing.assert_array_equal(w, master.double().numpy())
        with pytest.raises(ValueError):
            w[0, 0] = 1.0


def test_two_scenarios_of_a_layer_share_the_models_arrays(tiny):
    x1 = _normed(tiny, [1, 2, 3])[1]
    x2 = _normed(tiny, [4, 5, 6, 7])[1]
    s1, s2 = layer_scenario(tiny, x1, 1), layer_scenario(tiny, x2, 1)
    kept = tiny.attention_weights(1)
    for role in ROLES:
        assert s1.projections[role].weight is s2.projections[role].weight is kept[role]
    # the engine reads them without a copy: a read-only array in the run's dtype is viewed
    w = s1.projections["query"].weight
    assert tensor(w, torch.device("cpu"), torch.float64).data_ptr() == w.ctypes.data


def test_only_the_last_layers_asked_for_stay_made(tiny):
    first = tiny.attention_weights(0)["query"]
    for k in range(1, tiny.spec.n_layers):
        tiny.attention_weights(k)
    assert tiny._attention.layers == list(range(tiny.spec.n_layers - KEPT_LAYERS, tiny.spec.n_layers))
    again = tiny.attention_weights(0)["query"]
    assert again is not first and not again.flags.writeable
    np.testing.assert_array_equal(again, first)


def test_kept_weights_keep_count():
    made = []

    def make(k: int) -> dict[str, np.ndarray]:
        made.append(k)
        return {"query": np.full((2, 2), float(k))}

    kept = KeptWeights(make, keep=2)
    for k in (0, 1, 0, 2, 0, 1):
        kept(k)
    assert made == [0, 1, 2, 1]  # 0 stayed (asked again before 2 came); 1 was let go when 2 came
    assert kept.layers == [0, 1]


def test_glassllm_weights_are_shared_and_its_forward_unchanged():
    pytest.importorskip("glassllm")
    from attention.models.glassllm import GlassDecoder

    model = GlassDecoder.load()
    for k in range(model.config.n_layers):
        a, b = model.attention_weights(k), model.attention_weights(k)
        for role, name in (("query", "W_Q"), ("key", "W_K"), ("value", "W_V"), ("out", "W_O")):
            assert a[role] is b[role] and not a[role].flags.writeable
            master = model.tensors[f"blocks.{k}.attn.{name}"]
            assert a[role].ctypes.data != master.data_ptr()  # a copy: the master tensor stays writeable
            np.testing.assert_array_equal(a[role], master.numpy())
