"""Quiz benchmark: how long deciding which steps repeat a hidden step takes (quiz_data.plan).

    .venv/bin/python bench/quiz_plan.py

The window asks once per new trace while a quiz is on (on the GUI thread), so it must stay well
under a second for the sizes a class uses.  Prints the median of 3 runs per hidden step for
self-attention with H = 8, d_model = 64, float64, at L = S = 32, 128 and 512 (2M cells a step).
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import attention  # noqa: E402
from app.viewmodel.quiz_data import plan  # noqa: E402
from attention.datamodel.scenario import Scenario  # noqa: E402

STEPS = ("projection.query", "scores", "masked_scores", "attention_weights", "output")


def main() -> int:
    print(f"{'L':>5} {'causal':>6}  " + "  ".join(f"{s:>18}" for s in STEPS) + "   (ms, median of 3)")
    for L in (32, 128, 512):
        x = np.random.default_rng(0).normal(size=(1, L, 64))
        for causal in (False, True):
            trace = attention.run(Scenario(queries=x, keys=x, values=x, n_heads=8, causal=causal))
            times = []
            for sid in STEPS:
                runs = []
                for _ in range(3):
                    t = time.perf_counter()
                    plan(trace, [sid])
                    runs.append(time.perf_counter() - t)
                times.append(statistics.median(runs) * 1000)
            print(f"{L:>5} {str(causal):>6}  " + "  ".join(f"{t:>18.1f}" for t in times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
