"""A SmolLM2-sized attention layer through the engine: what one layer of the model window costs.

    .venv/bin/python bench/engine_layer.py            # prints the table (under a minute)
    .venv/bin/python bench/engine_layer.py --quick    # fewer repeats

SmolLM2-135M's attention (d_model 576, 9 query heads, 3 key/value heads of width 64, RoPE
"halves" base 100000, causal), built from random weights (no GGUF read).  Two shapes:
  prefill  B=1, L = S = 16 / 64: the whole prompt through one layer (bias-free q, k, v, out)
  cached   one new token over S = 16 / 64 cached keys: the KV-cache step of
           attention/models/kv_cache.py (query and out projections only, keys/values already
           projected, RoPE offset = S - 1, key_offset 0), float64 as the window runs it
The trace (`attention.run`, every intermediate kept, float64 and float32) is timed against the
same layer written with plain torch in the same dtype (F.linear, the rotation of
attention/kinds/rope.py, SDPA's math backend so the weights are materialised as a trace must,
F.linear): the ratio says what the trace's bookkeeping costs on top of the arithmetic.  Wall
and process-CPU medians of repeats in which the contenders take turns (bench/engine.py's
median_times), in one process.  Issue 17's goal: a cached token <= 100 ms for the whole
30-layer model, i.e. about 3 ms per layer.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import busy  # noqa: E402  (bench/busy.py: --busy runs this script twice, quiet and busy)

if __name__ == "__main__" and (_code := busy.main_if_busy(__file__)) is not None:
    sys.exit(_code)
import torch  # noqa: E402  (after attention: its thread policy is set before torch loads)
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

from attention import Projection, Scenario, run  # noqa: E402
from attention.datamodel.parts import Part  # noqa: E402
from attention.kinds.rope import apply_rope, cos_sin, positions  # noqa: E402

D, H, KV, E, BASE = 576, 9, 3, 64, 100000.0  # SmolLM2-135M


def layer(L: int, S: int, dtype: str, cached: bool, frozen: bool = False, seed: int = 0) -> Scenario:
    """One SmolLM2-sized layer: L queries over S keys (cached: keys/values are the cached
    projections (1, S, KV*E), as the KV-cache step hands them to the engine).  frozen: the
    weights are read-only arrays, which the engine views instead of copying (a model that
    keeps its float64 weights read-only gets this on every layer)."""
    rng = np.random.default_rng(seed)

    def w(out: int) -> Projection:
        a = rng.normal(size=(out, D)) / np.sqrt(D)
        a.setflags(write=not frozen)
        return Projection(a)

    q = rng.normal(size=(1, L, D))
    if cached:
        k, v = rng.normal(size=(1, S, KV * E)), rng.normal(size=(1, S, KV * E))
        return Scenario(queries=q, keys=k, values=v, n_heads=H, n_kv_heads=KV, d_keys=E, d_values=E,
                        projections={"query": w(D), "out": w(D)}, dtype=dtype, device="cpu",
                        positions=(Part("rope", {"base": BASE, "pairing": "halves", "offset": S - 1,
                                                 "key_offset": 0}),))
    k, v = rng.normal(size=(1, S, D)), rng.normal(size=(1, S, D))
    return Scenario(queries=q, keys=k, values=v, n_heads=H, n_kv_heads=KV, causal=True, dtype=dtype,
                    device="cpu", projections={"query": w(D), "key": w(KV * E), "value": w(KV * E), "out": w(D)},
                    positions=(Part("rope", {"base": BASE, "pairing": "halves"}),))


def reference(sc: Scenario):
    """The same layer in plain torch, from tensors made once (the trace reads numpy every call)."""
    dt = getattr(torch, sc.dtype)
    f = lambda a: torch.tensor(a, dtype=dt)  # noqa: E731
    x = [f(a) for a in (sc.queries, sc.keys, sc.values)]
    W = {n: f(p.weight) for n, p in sc.projections.items()}
    rope = sc.positions[0].values
    L, S = sc.L, sc.S
    q_pos = positions(L, int(rope.get("offset", 0)))
    k_pos = positions(S, int(rope.get("key_offset") if rope.get("key_offset") is not None else rope.get("offset", 0)))
    cq, sq = cos_sin(q_pos, E, BASE, dt)
    ck, sk = cos_sin(k_pos, E, BASE, dt)

    def fn():
        with torch.inference_mode():
            k = F.linear(x[1], W["key"]) if "key" in W else x[1]
            v = F.linear(x[2], W["value"]) if "value" in W else x[2]
            q = apply_rope(F.linear(x[0], W["query"]).view(1, L, H, E), cq, sq, "halves")
            k = apply_rope(k.view(1, S, KV, E), ck, sk, "halves")
            with sdpa_kernel(SDPBackend.MATH):
                o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                                   v.view(1, S, KV, E).transpose(1, 2),
                                                   is_causal=sc.causal, enable_gqa=True)  # (1, H, L, E)
            return F.linear(o.transpose(1, 2).reshape(1, L, H * E), W["out"])

    return fn


def median_times(fns: list, repeats: int) -> list[tuple[float, float]]:
    """(median wall, median process CPU) seconds of each function, taking turns in rotating order."""
    for fn in fns:
        fn()
    wall: list[list[float]] = [[] for _ in fns]
    cpu: list[list[float]] = [[] for _ in fns]
    for r in range(repeats):
        for i in [(r + j) % len(fns) for j in range(len(fns))]:
            w0, c0 = time.perf_counter(), time.process_time()
            fns[i]()
            wall[i].append(time.perf_counter() - w0)
            cpu[i].append(time.process_time() - c0)
    return [(statistics.median(w), statistics.median(c)) for w, c in zip(wall, cpu)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    busy.add_flag(ap)
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    args = ap.parse_args()
    busy.apply(args)
    repeats = 9 if args.quick else 31
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, CPU; d_model {D}, H {H}, H_kv {KV}, "
          f"head {E}, RoPE halves base {BASE:g}")
    head = (f"{'case':>9} {'L':>3} {'S':>3} {'dtype':>7} | {'trace ms':>8} {'cpu ms':>7} | {'torch ms':>8} "
            f"{'cpu ms':>7} | {'ratio':>5} {'cpu':>5} | {'max|diff|':>9}")
    print(head)
    print("-" * len(head))
    cases = [(cached, S, dtype, False) for cached in (False, True) for S in (16, 64)
             for dtype in ("float64", "float32")]
    cases += [(True, S, "float64", True) for S in (16, 64)]  # read-only weights: viewed, not copied
    for cached, S, dtype, frozen in cases:
        sc = layer(1 if cached else S, S, dtype, cached, frozen)
        ref = reference(sc)
        diff = float((run(sc)["output"].tensor - ref()).abs().max())
        (tw, tc), (rw, rc) = median_times([lambda sc=sc: run(sc), ref], repeats)
        case = ("cached" + "/ro" * frozen) if cached else "prefill"
        print(f"{case:>9} {sc.L:>3} {S:>3} {dtype:>7} | {tw * 1e3:>8.2f} {tc * 1e3:>7.2f} | "
              f"{rw * 1e3:>8.2f} {rc * 1e3:>7.2f} | {tw / rw:>5.2f} {tc / rc:>5.2f} | "
              f"{diff:>9.1e}")
    print("ms: medians per call (wall, and this process's CPU time); ratio = trace / torch, wall and CPU.")
    print("cached/ro: the weights are read-only arrays (viewed by the engine, not copied).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
