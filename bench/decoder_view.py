"""glassllm in the model view, Qt-free parts (the issue's targets: 32-token prompt edit <= 20 ms, one cached
next token <= 10 ms).

    .venv/bin/python bench/decoder_view.py [--repeat N]

Prints medians of wall time and of this process's CPU time (time.process_time; on a shared machine the
wall time waits for other processes, the CPU time is what the work costs): the prompt's forward with
every layer through the engine (DecoderSession.compute: 4 engine runs) plus the open layer's scenario;
the same forward with the decoder's reference attention (what the engine adds); one cached next token
(Generation.next: only the new position, 4 engine runs of a 1-query scenario); the cached-vs-full check
(a full recomputation, shown in the dock after each token).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import busy  # noqa: E402  (bench/busy.py: --busy runs this script twice, quiet and busy)

if __name__ == "__main__" and (_code := busy.main_if_busy(__file__)) is not None:
    sys.exit(_code)


def median_ms(f, n: int) -> str:
    """'W ms wall, C ms CPU': medians of n calls of f."""
    wall, cpu = [], []
    for _ in range(n):
        t0, c0 = time.perf_counter(), time.process_time()
        f()
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return f"{statistics.median(wall):.1f} ms wall, {statistics.median(cpu):.1f} ms CPU"


def main() -> int:
    ap = argparse.ArgumentParser()
    busy.add_flag(ap)
    ap.add_argument("--repeat", type=int, default=15)
    a = ap.parse_args()
    busy.apply(a)
    import torch

    from app.services import devices

    devices.leave_a_core_for_the_gui()  # the window's thread policy (attention/compute/threads.py)
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
    print(f"prompt edit (4 layers through the engine + layer scenario): {edit} medians (target <= 20 ms)")
    print(f"  the same forward with the reference attention: {ref} medians")
    steps, cpu = [], []
    for _ in range(a.repeat):
        g = Generation(s.model, list(ids))
        g.prefill()
        t0, c0 = time.perf_counter(), time.process_time()
        g.next()
        steps.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    print(f"one cached next token: {statistics.median(steps):.1f} ms wall, {statistics.median(cpu):.1f} ms CPU medians "
          "(target <= 10 ms)")
    check = median_ms(g.check, a.repeat)
    print(f"cached-vs-full check (full recomputation): {check} medians; difference {g.check():.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
