"""glassllm in the model view, Qt-free parts (the issue's targets: 32-token prompt edit <= 20 ms, one cached
next token <= 10 ms).

    .venv/bin/python bench/decoder_view.py [--repeat N]

Prints medians of: the prompt's forward with every layer through the engine (DecoderSession.compute: 4 engine
runs) plus the open layer's scenario; the same forward with the decoder's reference attention (what the
engine adds); one cached next token (Generation.next: only the new position, 4 engine runs of a 1-query
scenario); the cached-vs-full check (a full recomputation, shown in the dock after each token).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def median_ms(f, n: int) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    a = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    from app.viewmodel.decoder_session import DecoderSession
    from attention.models.kv_cache import Generation

    s = DecoderSession.open_glassllm()
    prompt = ("Alice was beginning to get very tired of sitting by her sister on the bank, and of having nothing "
              "to do: once or twice she had")
    ids = s.model.encode(prompt)[:32]
    text = s.model.tokenizer.decode(ids)
    print(f"prompt: {len(s.model.encode(text))} tokens")
    s.accept(s.compute((text,)))
    edit = median_ms(lambda: (s.accept(s.compute((text,))), s.scenario(0)), a.repeat)
    ref = median_ms(lambda: s.model.forward(ids, dtype=torch.float64), a.repeat)
    print(f"prompt edit (4 layers through the engine + layer scenario): {edit:.1f} ms median (target <= 20 ms)")
    print(f"  the same forward with the reference attention: {ref:.1f} ms median")
    steps = []
    for _ in range(a.repeat):
        g = Generation(s.model, list(ids))
        g.prefill()
        t0 = time.perf_counter()
        g.next()
        steps.append((time.perf_counter() - t0) * 1000)
    print(f"one cached next token: {statistics.median(steps):.1f} ms median (target <= 10 ms)")
    check = median_ms(g.check, a.repeat)
    print(f"cached-vs-full check (full recomputation): {check:.1f} ms median; difference {g.check():.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
