"""Writes the scenario files of issue 31's hostile cases (tests/hostile/issue31_cases.py runs them):
each a few hundred bytes that ask for something big or say something twice.  Run it after changing
the list:

    python tests/hostile/issue31/make.py

The Hugging Face configs and GGUF metadata of the same review are edits listed in hf_configs.json
and gguf_meta.json (applied by the cases to tests/models/golden_modern and to a tiny GGUF file made
at run time).
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _gen(shape: list[int], seed: int = 0) -> dict:
    return {"generate": "normal", "shape": shape, "seed": seed}


def base(L: int = 4, width: int = 8, heads: int = 2, **fields) -> dict:
    """Self-attention on L seeded tokens of `width` features; RoPE-ready heads of width // heads."""
    x = _gen([1, L, width])
    return {"format": "attention-explorer/scenario", "version": 2, "queries": x, "keys": x, "values": x,
            "n_heads": heads, **fields}


ROPE = {"kind": "rope", "base": 10000}
FILES: dict[str, dict] = {
    # 3: a part said twice (or a hundred times) is one part's result: refused, naming the repeat
    "rope_twice.json": base(positions=[ROPE, ROPE]),
    "rope_100.json": base(positions=[ROPE] * 100),
    "qk_norm_twice.json": base(modifiers=[{"kind": "qk_norm"}, {"kind": "qk_norm"}]),
    "softcap_twice.json": base(modifiers=[{"kind": "softcap", "cap": 30}, {"kind": "softcap", "cap": 30}]),
    # windows combine (the narrowest decides): two are accepted, as docs/scenario-format.md says
    "windows_two.json": base(mask={"causal": True},
                             masks=[{"kind": "window", "size": 3}, {"kind": "window", "size": 2}]),
    # 4: a generator in a field whose shape the scenario fixes, far bigger than that shape
    "frequencies_60M.json": base(positions=[{**ROPE, "frequencies": {"generate": "ones", "shape": [60_000_000]}}]),
    "query_weight_60M.json": base(projections={"query": {"weight": {"generate": "ones", "shape": [60_000_000, 1]}}}),
    "qk_norm_weight_60M.json": base(modifiers=[{"kind": "qk_norm", "query_weight": _gen([60_000_000])}]),
    "drawn_56M.json": base(masks=[{"kind": "drawn", "mask": {"generate": "zeros", "shape": [1, 7000, 8000]}}]),
    "valid_lens_60M.json": base(mask={"valid_lens": {"generate": "ones", "shape": [60_000_000]}}),
    # 10: one head attending over 1024 (and 8192) positions, for `tiles --block-q 1 --block-k 1`
    "tiles_1024.json": base(L=1024, width=4, heads=1),
    "tiles_8192.json": base(L=8192, width=4, heads=1),
}


def main() -> None:
    for name, doc in FILES.items():
        (HERE / name).write_text(json.dumps(doc) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
