"""Tiles benchmark (issue 19, item 6): the whole tiled run at L = S = 512, and one step's repaint at 64.

    .venv/bin/python bench/tiles.py            # prints both tables
    .venv/bin/python bench/tiles.py --quick    # fewer repeats

1. `attention.teaching.tiles.tiled(trace, Br, Bc)`: every tile of every head of a B=1, H=8, d_model=512,
   L = S = 512 float32 scenario (all four projections, scaled dot), with and without a causal
   mask, at two block sizes; the trace is computed once beforehand (the tiles read it, they do
   not run the engine).  Goal: <= 50 ms.
2. The tiles dialog (app/teaching/tiles_view.py, offscreen) on an L = S = 64 scenario (H = 2,
   blocks 16 x 16: 16 tiles): one step forward and the dialog's synchronous repaint
   (QWidget.repaint), per step.  Goal: one frame, <= 16.7 ms.
Medians (and p95 for the steps) after a warm-up.  On a machine shared with other processes the
figures vary; numpy's BLAS threads fight for the cores then (OPENBLAS_NUM_THREADS=1 steadies them).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
import PySide6.QtWidgets  # noqa: E402, F401 - before torch, in a process that draws

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import busy  # noqa: E402  (bench/busy.py: --busy runs this script twice, quiet and busy)

if __name__ == "__main__" and (_code := busy.main_if_busy(__file__)) is not None:
    sys.exit(_code)
import numpy as np  # noqa: E402

from attention import Projection, Scenario, run  # noqa: E402
from attention.teaching.tiles import tiled  # noqa: E402

RUN_GOAL_MS, FRAME_MS = 50.0, 1000.0 / 60


def make_scenario(L: int, d: int, H: int, causal: bool, seed: int = 0) -> Scenario:
    rng = np.random.default_rng(seed)
    proj = lambda: Projection(rng.normal(size=(d, d)) / np.sqrt(d), rng.normal(size=(d,)) * 0.1)  # noqa: E731
    return Scenario(queries=rng.normal(size=(1, L, d)), keys=rng.normal(size=(1, L, d)),
                    values=rng.normal(size=(1, L, d)), n_heads=H,
                    projections={n: proj() for n in ("query", "key", "value", "out")},
                    scoring="scaled_dot", dtype="float32", causal=causal)


def ms(f, repeats: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU milliseconds of each call (CPU time leaves out waiting for a busy core)."""
    f()  # warm-up
    wall, cpu = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        f()
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return wall, cpu


def whole_run(repeats: int) -> None:
    print("whole tiled run, B=1 H=8 d_model=512 L=S=512 float32 (goal <= 50 ms)")
    print(f"{'mask':8} {'blocks':>9} {'tiles':>6} {'wall ms':>8} {'cpu ms':>8} {'max diff':>9}  goal (wall)")
    for causal in (False, True):
        trace = run(make_scenario(512, 512, 8, causal))
        for br, bc in ((64, 64), (128, 128)):
            result = tiled(trace, br, bc)
            wall, cpu = (statistics.median(x) for x in ms(lambda t=trace, q=br, k=bc: tiled(t, q, k), repeats))
            mask = "causal" if causal else "none"
            print(f"{mask:8} {f'{br}x{bc}':>9} {len(result.tiles):>6} {wall:>8.1f} {cpu:>8.1f} "
                  f"{result.max_abs_diff:>9.1e}  {'ok' if wall <= RUN_GOAL_MS else 'MISSED'}")


def step_repaint(repeats: int) -> None:
    from PySide6.QtWidgets import QApplication

    from app.teaching.tiles_view import TilesDialog

    app = QApplication.instance() or QApplication([])
    dialog = TilesDialog()
    dialog.view.set_trace(run(make_scenario(64, 32, 2, causal=True)))
    dialog.view.block_q.setValue(16)
    dialog.view.block_k.setValue(16)
    dialog.show()
    app.processEvents()
    times, cpu = [], []
    for _ in range(repeats):
        dialog.view.first()
        app.processEvents()
        for _ in range(dialog.view.total()):
            t, c = time.perf_counter(), time.process_time()
            dialog.view.forward()
            dialog.repaint()
            times.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    print("\nstep + repaint, tiles dialog, L=S=64 H=2, blocks 16x16 (goal: one frame, <= 16.7 ms)")
    print(f"steps {len(times)}: wall median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms; "
          f"cpu median {statistics.median(cpu):.1f} ms  {'ok' if p95 <= FRAME_MS else 'MISSED'} (wall p95)")
    dialog.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    busy.add_flag(p)
    p.add_argument("--quick", action="store_true", help="fewer repeats")
    args = p.parse_args()
    busy.apply(args)
    whole_run(3 if args.quick else 9)
    step_repaint(1 if args.quick else 3)


if __name__ == "__main__":
    main()
