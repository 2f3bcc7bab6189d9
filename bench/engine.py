"""Engine benchmark: a full trace against torch.nn.MultiheadAttention, and a trace's peak memory.

    .venv/bin/python bench/engine.py            # prints the table (takes a minute or two)
    .venv/bin/python bench/engine.py --quick    # fewer repeats

A full trace (`attention.run`, every intermediate kept; all four projections with bias,
scaled_dot, float32, CPU) is timed against nn.MultiheadAttention(need_weights=True,
average_attn_weights=False), which computes the same scores/weights/output but keeps only the
weights.  Our time includes reading the scenario (numpy float64) into float32 tensors and
checking it (`problems`).  Median of several repeats after a warm-up, all in one process, the
contenders taking turns (so load from other processes on a shared machine hits both alike).
Targets (issue 29): ratio <= 1.1 at B=1 L=S=512 d=512 H=8 and <= 1.2 at B=4 L=S=2048; GQA + RoPE
<= 1.2 of the same math written directly in torch; peak memory of a B=1, H=8, L=S=4096, d=512
float32 trace <= 2.5 GB, measured in a fresh child process as the peak RSS (VmHWM, reset once
torch is warm and the scenario built) minus the RSS at that point.

Threads: both contenders run at the count the engine's policy picks for the size
(attention/compute/threads.py: one thread for small work or when other programs keep the cores
busy); `--threads N` or ATTENTION_THREADS=N fixes it.  Each figure has its CPU time beside it
(this process, all threads): on a shared machine that is what the work itself costs.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import busy  # noqa: E402  (bench/busy.py: --busy runs this script twice, quiet and busy)

if __name__ == "__main__" and (_code := busy.main_if_busy(__file__)) is not None:
    sys.exit(_code)
import torch  # noqa: E402  (after attention: its thread policy is set before torch loads)

from attention import Projection, Scenario, run  # noqa: E402
from attention.compute import engine, threads  # noqa: E402

SIZES = [(1, 8, 32, 8), (1, 512, 512, 8), (4, 2048, 512, 8)]  # B, L = S, d_model, H
RATIO_TARGETS = {(1, 512, 512, 8): 1.1, (4, 2048, 512, 8): 1.2}  # the tiny size: fixed Python overhead
MEMORY_SIZE = (1, 4096, 512, 8)
MEMORY_TARGET_GB = 2.5


def make_scenario(B: int, L: int, d: int, H: int, seed: int = 0, **options) -> Scenario:
    rng = np.random.default_rng(seed)
    proj = lambda: Projection(rng.normal(size=(d, d)) / np.sqrt(d), rng.normal(size=(d,)) * 0.1)  # noqa: E731
    return Scenario(
        queries=rng.normal(size=(B, L, d)), keys=rng.normal(size=(B, L, d)), values=rng.normal(size=(B, L, d)),
        n_heads=H, projections={n: proj() for n in ("query", "key", "value", "out")},
        scoring="scaled_dot", dtype="float32", device="cpu", **options,
    )


def make_mha(sc: Scenario) -> tuple[torch.nn.MultiheadAttention, tuple[torch.Tensor, ...]]:
    """The same layer as torch's MultiheadAttention (float32, eval) and its float32 inputs."""
    d, H = sc.d_model, sc.n_heads
    mha = torch.nn.MultiheadAttention(d, H, batch_first=True).eval()
    P = sc.projections
    f = lambda a: torch.as_tensor(a, dtype=torch.float32)  # noqa: E731
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([f(P[n].weight) for n in ("query", "key", "value")]))
        mha.in_proj_bias.copy_(torch.cat([f(P[n].bias) for n in ("query", "key", "value")]))
        mha.out_proj.weight.copy_(f(P["out"].weight))
        mha.out_proj.bias.copy_(f(P["out"].bias))
    return mha, (f(sc.queries), f(sc.keys), f(sc.values))


def median_times(fns: list, repeats: int, warmup: int = 1, cpu: Optional[list] = None) -> list[tuple[float, float]]:
    """(median, best) wall time of each function.  The functions take turns within every repeat (in a
    rotating order), so a load change on a shared machine hits all of them alike.  `cpu`, when given,
    receives each function's median CPU time (this process, all threads)."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times: list[list[float]] = [[] for _ in fns]
    cpus: list[list[float]] = [[] for _ in fns]
    for r in range(repeats):
        for i in [(r + j) % len(fns) for j in range(len(fns))]:
            t0, c0 = time.perf_counter(), time.process_time()
            fns[i]()
            times[i].append(time.perf_counter() - t0)
            cpus[i].append(time.process_time() - c0)
    if cpu is not None:
        cpu[:] = [statistics.median(c) for c in cpus]
    return [(statistics.median(t), min(t)) for t in times]


def check_same(sc: Scenario, mha, inputs) -> float:
    """Largest |difference| between the trace's output/weights and MultiheadAttention's."""
    with torch.inference_mode():
        out, w = mha(*inputs, need_weights=True, average_attn_weights=False)
    tr = run(sc)
    return max(float((tr["output"].tensor - out).abs().max()), float((tr["attention_weights"].tensor - w).abs().max()))


def time_sizes(quick: bool) -> list[dict]:
    rows = []
    for B, L, d, H in SIZES:
        sc = make_scenario(B, L, d, H)
        causal = dataclasses.replace(sc, causal=True)
        mha, inputs = make_mha(sc)
        diff = check_same(sc, mha, inputs)
        big = B * H * L * L > 1e7
        repeats = (3 if big else 9) if quick else (7 if big else 40)
        inner = 1 if big else (20 if L < 64 else 3)  # tiny sizes: time a loop, per call

        def ours(s=sc, inner=inner):
            for _ in range(inner):
                run(s)

        def ours_causal(s=causal, inner=inner):
            for _ in range(inner):
                run(s)

        work = engine.work(sc)

        def theirs(mha=mha, inputs=inputs, inner=inner, work=work):
            with torch.inference_mode():
                for _ in range(inner):
                    threads.use(work)  # the thread count the trace gets (run() asks the same)
                    mha(*inputs, need_weights=True, average_attn_weights=False)

        cpu: list[float] = []
        (t_mha, b_mha), (t_ours, b_ours), (t_causal, _) = median_times([theirs, ours, ours_causal], repeats, cpu=cpu)
        rows.append(dict(B=B, L=L, d=d, H=H, mha_ms=t_mha / inner * 1e3, trace_ms=t_ours / inner * 1e3,
                         causal_ms=t_causal / inner * 1e3, ratio=t_ours / t_mha, best_ratio=b_ours / b_mha,
                         mha_cpu=cpu[0] / inner * 1e3, trace_cpu=cpu[1] / inner * 1e3,
                         cpu_ratio=cpu[1] / cpu[0], threads=threads.choose(engine.work(sc)), max_diff=diff))
    return rows


GQA_ROPE_SIZE = (1, 512, 512, 8, 2)  # B, L = S, d_model, query heads, key/value heads
GQA_ROPE_TARGET = 1.2


def make_gqa_rope(B: int, L: int, d: int, H: int, kv: int, seed: int = 0) -> Scenario:
    """Llama-like: H query heads of d / H columns, kv key/value heads, RoPE on q and k (causal)."""
    from attention.datamodel.parts import Part

    rng = np.random.default_rng(seed)
    dk = d // H
    w = lambda out: Projection(rng.normal(size=(out, d)) / np.sqrt(d))  # noqa: E731
    return Scenario(queries=rng.normal(size=(B, L, d)), keys=rng.normal(size=(B, L, d)),
                    values=rng.normal(size=(B, L, d)), n_heads=H, n_kv_heads=kv, causal=True,
                    projections={"query": w(d), "key": w(kv * dk), "value": w(kv * dk), "out": w(d)},
                    positions=(Part("rope", {"base": 10000.0}),), dtype="float32", device="cpu")


def time_gqa_rope(quick: bool) -> dict:
    """The trace of a GQA + RoPE layer against the same math written directly in torch, weights
    materialised as a trace needs them: the projections, the rotation of q and k
    (attention/kinds/rope.py's rotate), the grouped product without repeating K (the query heads of
    one key/value head as one (g*L, E) block), the causal mask, the softmax, the grouped product
    with V and the output projection.  Also SDPA(enable_gqa, is_causal) plus the rotation, which
    never materialises the weights (for scale)."""
    import torch.nn.functional as F

    from attention.kinds.rope import rotate

    B, L, d, H, kv = GQA_ROPE_SIZE
    g, dk = H // kv, d // H
    sc = make_gqa_rope(B, L, d, H, kv)
    f = lambda a: torch.as_tensor(a, dtype=torch.float32)  # noqa: E731
    x = [f(a) for a in (sc.queries, sc.keys, sc.values)]
    W = {n: f(sc.projections[n].weight) for n in ("query", "key", "value", "out")}
    causal = torch.ones(L, L, dtype=torch.bool).triu(1)  # (L, S): True above the diagonal
    work = engine.work(sc)

    def rotated() -> tuple[torch.Tensor, ...]:
        q = rotate(F.linear(x[0], W["query"]).view(B, L, H, dk))  # (B, L, H, dk)
        k = rotate(F.linear(x[1], W["key"]).view(B, L, kv, dk))  # (B, S, kv, dk)
        v = F.linear(x[2], W["value"]).view(B, L, kv, dk)
        return q, k, v

    def direct():
        threads.use(work)
        with torch.inference_mode():
            q, k, v = rotated()
            qg = (q * dk ** -0.5).transpose(1, 2).reshape(B, kv, g * L, dk)  # (B, kv, g*L, dk): one block per kv head
            scores = (qg @ k.permute(0, 2, 3, 1)).view(B, H, L, L)  # (B, H, L, S), K never repeated
            weights = scores.masked_fill(causal, float("-inf")).softmax(-1)  # (B, H, L, S), kept
            o = (weights.view(B, kv, g * L, L) @ v.transpose(1, 2)).view(B, H, L, dk)  # (B, H, L, dk)
            return F.linear(o.transpose(1, 2).reshape(B, L, d), W["out"]), weights

    def sdpa():
        threads.use(work)
        with torch.inference_mode():
            q, k, v = rotated()
            o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                               is_causal=True, enable_gqa=True)  # (B, H, L, dk)
            return F.linear(o.transpose(1, 2).reshape(B, L, d), W["out"])

    tr = run(sc)
    out, weights = direct()
    diff = max(float((tr["output"].tensor - out).abs().max()),
               float((tr["attention_weights"].tensor - weights).abs().max()),
               float((tr["output"].tensor - sdpa()).abs().max()))
    plain = dataclasses.replace(sc, positions=())  # the same trace without RoPE: what the rotation costs
    cpu: list[float] = []
    (t_direct, _), (t_ours, _), (t_plain, _), (t_sdpa, _) = median_times(
        [direct, lambda: run(sc), lambda: run(plain), sdpa], 5 if quick else 15, cpu=cpu)
    return dict(direct_ms=t_direct * 1e3, trace_ms=t_ours * 1e3, plain_ms=t_plain * 1e3, sdpa_ms=t_sdpa * 1e3,
                ratio=t_ours / t_direct, cpu_ratio=cpu[1] / cpu[0], direct_cpu=cpu[0] * 1e3, trace_cpu=cpu[1] * 1e3,
                sdpa_ratio=t_ours / t_sdpa, threads=threads.choose(work), max_diff=diff)


def print_gqa_rope(quick: bool) -> bool:
    B, L, d, H, kv = GQA_ROPE_SIZE
    r = time_gqa_rope(quick)
    good = r["ratio"] <= GQA_ROPE_TARGET
    print(f"GQA+RoPE B={B} L=S={L} d={d} H={H} kv={kv} causal, {r['threads']} thread(s): the same math in torch "
          f"{r['direct_ms']:.2f} ms (CPU {r['direct_cpu']:.2f} ms), trace {r['trace_ms']:.2f} ms (CPU "
          f"{r['trace_cpu']:.2f} ms; without RoPE {r['plain_ms']:.2f} ms), ratio {r['ratio']:.2f}, CPU ratio "
          f"{r['cpu_ratio']:.2f}, max |diff| {r['max_diff']:.1e}" + ("  ok" if good else f"  > {GQA_ROPE_TARGET}"))
    print(f"   for scale: SDPA(enable_gqa)+rotation {r['sdpa_ms']:.2f} ms (weights never materialised), "
          f"trace / it {r['sdpa_ratio']:.2f}")
    return good


def profile(repeats: int = 20) -> None:
    """--profile: CPU time of each step of a B=1 L=S=512 d=512 H=8 trace (one thread; each step's time
    includes the engine's finiteness pass over it) and of MultiheadAttention's operations written out."""
    import collections
    from unittest import mock

    import torch.nn.functional as F

    from attention.compute.check import check

    threads.set_override(1)
    sc = make_scenario(1, 512, 512, 8)
    took: dict[str, list[float]] = collections.defaultdict(list)

    def timed(name, fn):
        def wrapper(*a, **k):
            c = time.process_time()
            out = fn(*a, **k)
            took[name].append(time.process_time() - c)
            return out
        return wrapper

    records = check(sc).records  # the plan's steps, in computing order: what the engine walks
    with mock.patch.multiple(engine, **{n: timed(n, getattr(engine, n)) for n in
                                        ("check", "_parameters", "_check_finite", "_overflow_warning")}):
        saved = [(r, r.compute) for r in records]
        for r, fn in saved:
            object.__setattr__(r, "compute", timed(r.id, fn))
        try:
            for _ in range(3):
                run(sc)
            took.clear()
            total = []
            for _ in range(repeats):
                c = time.process_time()
                run(sc)
                total.append(time.process_time() - c)
        finally:
            for r, fn in saved:
                object.__setattr__(r, "compute", fn)
    print(f"trace B=1 L=S=512 d=512 H=8, 1 thread, CPU ms (median of {repeats}; {busy.load()}):")
    for name, values in took.items():
        print(f"  {name:24} {statistics.median(values) * 1e3:7.2f}")
    print(f"  {'total':24} {statistics.median(total) * 1e3:7.2f}")

    mha, (q, k, v) = make_mha(sc)
    Wq, Wk, Wv = mha.in_proj_weight.chunk(3)
    bq, bk, bv = mha.in_proj_bias.chunk(3)
    took.clear()

    def step(name, fn):
        c = time.process_time()
        out = fn()
        took[name].append(time.process_time() - c)
        return out

    def written_out():
        with torch.inference_mode():
            L, E, H = 512, 512, 8
            qh = step("in-proj q", lambda: F.linear(q, Wq, bq)).view(L, H, 64).transpose(0, 1)
            kh = step("in-proj k", lambda: F.linear(k, Wk, bk)).view(L, H, 64).transpose(0, 1)
            vh = step("in-proj v", lambda: F.linear(v, Wv, bv)).view(L, H, 64).transpose(0, 1)
            s_ = step("scale + bmm", lambda: torch.bmm(qh * 0.125, kh.transpose(-2, -1)))
            w = step("softmax", lambda: torch.softmax(s_, -1))
            o = step("weights @ v (bmm)", lambda: torch.bmm(w, vh))
            oc = step("concat (copy)", lambda: o.transpose(0, 1).contiguous().view(L, E))
            step("out-proj", lambda: F.linear(oc, mha.out_proj.weight, mha.out_proj.bias))

    def module():
        with torch.inference_mode():
            mha(q, k, v, need_weights=True, average_attn_weights=False)

    for _ in range(3):
        written_out()
    took.clear()
    total, whole = [], []
    for _ in range(repeats):
        c = time.process_time()
        written_out()
        total.append(time.process_time() - c)
        c = time.process_time()
        module()
        whole.append(time.process_time() - c)
    print("nn.MultiheadAttention's operations written out, CPU ms:")
    for name, values in took.items():
        print(f"  {name:24} {statistics.median(values) * 1e3:7.2f}")
    print(f"  {'total':24} {statistics.median(total) * 1e3:7.2f}   (the module itself: "
          f"{statistics.median(whole) * 1e3:.2f})")
    threads.set_override(None)


def _status_bytes(field: str) -> int:
    """VmRSS / VmHWM of this process from /proc (Linux), in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0: write 5 to clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def child_memory(causal: bool) -> None:
    """Run in a fresh process: print how far one trace raises the peak RSS above the RSS it
    starts from.  Not ru_maxrss: on Linux a child inherits its parent's high-water mark across
    fork and exec, so after the timings it would report the benchmark's own peak."""
    B, L, d, H = MEMORY_SIZE
    sc = make_scenario(B, L, d, H, causal=causal)
    run(make_scenario(1, 4, 8, 2))  # torch's lazy initialisation is not the trace's cost
    if _reset_peak():
        base = _status_bytes("VmRSS")
    else:  # no clear_refs: the peak so far is the baseline (an over-estimate of it)
        base = _status_bytes("VmHWM")
    tr = run(sc)
    peak = _status_bytes("VmHWM")
    storages = {s.tensor.untyped_storage().data_ptr(): s.tensor.untyped_storage().nbytes() for s in tr.steps}
    print(json.dumps({"growth": peak - base, "kept": sum(storages.values())}))


def peak_memory(causal: bool) -> dict:
    cmd = [sys.executable, __file__, "--child-memory"] + (["--causal"] if causal else [])
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if res.returncode != 0:
        raise SystemExit(f"memory child failed ({res.returncode}): {res.stderr.strip()[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    busy.add_flag(ap)
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--child-memory", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--causal", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--gqa-rope", action="store_true", help="only the GQA+RoPE line")
    ap.add_argument("--profile", action="store_true", help="only the CPU time of each step at B=1 L=S=512 (1 thread)")
    args = ap.parse_args()
    if args.child_memory:
        child_memory(args.causal)
        return 0
    busy.apply(args)
    if args.profile:
        profile()
        return 0
    if args.gqa_rope:
        return 0 if print_gqa_rope(args.quick) else 1

    print(f"torch {torch.__version__}, CPU, float32, {busy.load()}; threads: the engine's policy "
          f"(ATTENTION_THREADS={os.environ.get(threads.ENV, 'unset')})")
    rows = time_sizes(args.quick)
    head = (f"{'B':>2} {'L=S':>5} {'d':>4} {'H':>2} {'thr':>3} | {'MHA ms':>8} {'trace ms':>8} {'ratio':>5} "
            f"{'best':>5} | {'MHA cpu':>8} {'trace cpu':>9} {'ratio':>5} | {'causal ms':>9} | {'max |diff|':>10}")
    print(head)
    print("-" * len(head))
    ok = True
    for r in rows:
        target = RATIO_TARGETS.get((r["B"], r["L"], r["d"], r["H"]))
        good = target is None or r["ratio"] <= target
        ok &= good
        flag = "" if target is None else ("  ok" if good else f"  > {target}")
        print(f"{r['B']:>2} {r['L']:>5} {r['d']:>4} {r['H']:>2} {r['threads']:>3} | {r['mha_ms']:>8.2f} "
              f"{r['trace_ms']:>8.2f} {r['ratio']:>5.2f} {r['best_ratio']:>5.2f} | {r['mha_cpu']:>8.2f} "
              f"{r['trace_cpu']:>9.2f} {r['cpu_ratio']:>5.2f} | {r['causal_ms']:>9.2f} | {r['max_diff']:>10.1e}{flag}")
    print("ms: median per call (wall; cpu: this process, all threads); ratio = median trace / median MHA; "
          "best = fastest trace / fastest MHA; thr: threads")
    ok &= print_gqa_rope(args.quick)
    B, L, d, H = MEMORY_SIZE
    for causal in (False, True):
        m = peak_memory(causal)
        gb = m["growth"] / 1e9
        good = gb <= MEMORY_TARGET_GB
        ok &= good or causal
        label = "causal" if causal else "no mask"
        print(f"peak memory of a trace, B={B} H={H} L=S={L} d={d} float32, {label}: {gb:.2f} GB "
              f"(steps kept {m['kept'] / 1e9:.2f} GB)"
              + ("" if causal else ("  ok" if good else f"  > {MEMORY_TARGET_GB} GB")))
    print(f"{busy.load()}")
    print("targets met" if ok else "TARGETS NOT MET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
