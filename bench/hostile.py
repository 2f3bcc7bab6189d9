"""Hostile-file benchmark: how long the loader takes to refuse files made to hurt, and its peak
Python memory (tracemalloc, numpy's arrays included).  Target: each refusal well under a second
on an idle machine, memory bounded by the file (issue 13).

    .venv/bin/python bench/hostile.py
    .venv/bin/python bench/hostile.py --classes [--root CHECKOUT]   # issue 31: the counts per class

Each case: the median of 3 loads (after one warm-up), and the peak of one traced load.  With
--classes, issue 31's corpus (tests/hostile/issue31_cases.py) through `main.py`, each command under
an address-space cap of 300 MB over the process's own: per class, the answers tried, the clean
refusals, the generic `error: XError` lines, those over 1 s and over 300 MB (--root: another
checkout's code on the same inputs, for the counts before a change).
"""
from __future__ import annotations

import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402,F401  (imported first: no case pays for torch's first import)

import resources  # noqa: E402
from attention import ScenarioError  # noqa: E402
from attention.files import scenario_io

TOY = json.loads(resources.list_presets()[0][0].read_text(encoding="utf-8"))
HOSTILE = Path(__file__).resolve().parents[1] / "tests" / "hostile"


def cases() -> dict[str, object]:
    out: dict[str, object] = {
        "5,000 unknown fields": json.dumps({**TOY, **{f"f{i}": i for i in range(5_000)}}),
        "200,000 unknown fields": json.dumps({**TOY, **{f"f{i}": i for i in range(200_000)}}),
        "1 MB string in scoring": json.dumps({**TOY, "scoring": "x" * (1 << 20)}),
        "100,000 nested lists": "[" * 100_000 + "]" * 100_000,
        "4,300-digit n_heads": json.dumps({**TOY, "n_heads": 10**4299}),
        "5,000-digit number": '{"format": ' + "9" * 5000 + "}",
    }
    for path in sorted(HOSTILE.glob("*.json")):
        out[f"tests/hostile/{path.name}"] = path
    return out


def load(case) -> str:
    try:
        if isinstance(case, Path):
            scenario_io.load(case)
        else:
            scenario_io.loads(case)
    except ScenarioError as e:
        return f"refused ({len(e.problems) + e.omitted} problems)"
    return "loaded"


def main() -> None:
    print(f"{'case':<48} {'median ms':>10} {'peak MiB':>9}  outcome")
    for name, case in cases().items():
        load(case)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            outcome = load(case)
            times.append(time.perf_counter() - start)
        tracemalloc.start()
        load(case)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"{name:<48} {statistics.median(times) * 1000:>10.1f} {peak / 2**20:>9.1f}  {outcome}")


if __name__ == "__main__":
    if "--classes" in sys.argv[1:]:
        from tests.hostile import issue31_cases

        raise SystemExit(issue31_cases.main([a for a in sys.argv[1:] if a != "--classes"]))
    main()
