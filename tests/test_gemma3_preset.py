"""Preset 24: Gemma 3's local layer 5 and global layer 6 on one Chinese sentence, side by side as heads 1-4 and 5-8.
Its weights are transformers' own (tests/models/golden_gemma3.npz, no Gemma needed here); its generator
(resources/training/gemma3_local_global.py) gives back the shipped numbers from the bundled model."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from attention import run
from attention.files import scenario_io
from resources import scenarios_dir

PRESET = scenarios_dir() / "24_gemma3_local_global.json"
GOLDEN = Path(__file__).parent / "models" / "golden_gemma3.npz"
TOKENS = Path(__file__).parent / "models" / "golden_gemma3_tokens.json"


def test_the_presets_heads_are_transformers_layers_5_and_6():
    g = np.load(GOLDEN)
    sc = scenario_io.load(PRESET)
    pieces = json.loads(TOKENS.read_text(encoding="utf-8"))["texts"][0]["pieces"]
    assert sc.query_tokens == sc.key_tokens == tuple(pieces) and pieces[1] == "注意力"
    assert (sc.n_heads, sc.n_kv_heads, sc.dtype, sc.causal, sc.projections) == (8, 2, "float64", True, {})
    assert sc.queries.shape == (1, 10, 8 * 256) and sc.keys.shape == sc.values.shape == (1, 10, 2 * 256)
    t = run(sc)
    w = t.array("attention_weights")[0]  # (8, L, L)
    for a in (sc.queries, sc.keys, sc.values):  # each number is the shortest decimal of a float32
        assert all(float(np.format_float_positional(np.float32(x), unique=True)) == x for x in a.ravel()[::7])
    np.testing.assert_allclose(w[:4], g["zh_attn"][4], rtol=0, atol=2e-6)  # layer 5, local
    np.testing.assert_allclose(w[4:], g["zh_attn"][5], rtol=0, atol=2e-6)  # layer 6, global
    assert float(t.options["scale"]) == 256 ** -0.5  # query_pre_attn_scalar 256: both layers'
    seen = np.tril(np.ones((10, 10), dtype=bool))
    assert (w[:, seen] > 0).all() and (w[:, ~seen] == 0).all()  # the notes: on 10 tokens the window hides nothing
    assert "heads 1-4 are layer 5 (local" in sc.notes["en"] and "第 1–4 个头是第 5 层（局部层" in sc.notes["zh"]
    assert PRESET.stat().st_size < 400_000


def test_the_generator_gives_back_the_shipped_numbers(gemma3_model):
    from resources.training import gemma3_local_global

    made, own = gemma3_local_global.build(gemma3_model)
    shipped = scenario_io.load(PRESET)
    for name in ("queries", "keys", "values"):
        np.testing.assert_array_equal(getattr(made, name), getattr(shipped, name), err_msg=name)
    assert made.title == shipped.title and made.notes == shipped.notes
    w = run(shipped, dtype="float64").array("attention_weights")[0]
    np.testing.assert_allclose(w[:4], own[0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(w[4:], own[1], rtol=0, atol=1e-6)
