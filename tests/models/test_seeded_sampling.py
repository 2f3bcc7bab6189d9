"""Seeded sampling in Next token: each (seed, position) gets its own draw.

Seeding the generator with seed + position made seed s at position n draw exactly what seed s + 1 draws at
position n − 1, so the streams of neighbouring seeds were the same tokens shifted by one (glassllm's own
`generate(seed=…)` keeps one NumPy generator per run; its streams for seeds 0 and 1 share nothing)."""
from __future__ import annotations

import pytest

pytest.importorskip("glassllm")

from attention.models.glassllm import GlassDecoder  # noqa: E402
from attention.models.kv_cache import Generation  # noqa: E402

PROMPT = "Alice was beginning to get"


def _stream(model, ids, seed: int, n: int = 6) -> list[int]:
    g = Generation(model, list(ids))
    return [g.next(sample=True, seed=seed).token for _ in range(n)]


def test_neighbouring_seeds_are_not_the_same_stream_shifted():
    model = GlassDecoder.load()
    ids = model.encode(PROMPT)
    s0, s1, s2 = (_stream(model, ids, seed) for seed in (0, 1, 2))
    assert s1[1:] != s0[2:] + s0[-1:] and s1[1:5] != s0[2:6]
    assert s2[:4] != s1[1:5]
    assert _stream(model, ids, 0) == s0  # still reproducible

