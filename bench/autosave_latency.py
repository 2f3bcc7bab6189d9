"""Autosave latency: from an edit to the autosave complete on disk, for a big scenario.

    .venv/bin/python bench/autosave_latency.py              # the 62 MB scenario of issue 21
    .venv/bin/python bench/autosave_latency.py --mb 10      # another size (MB of scenario JSON)

A Document and its Autosaver (the window's own, DELAY_MS and MAX_WAIT_MS as shipped) with the
autosave folder in a temporary directory.  The scenario is sized so that scenario_io.save writes
about `--mb` MB of JSON (the size a person sees for the file).  Figures:

- latency: one cell edit, then the event loop runs until `written` (the file is complete and
  renamed into place); median and worst of `--runs` edits;
- the longest the GUI thread did not run meanwhile (a 5 ms timer's largest gap): the window
  stays usable while a worker thread writes;
- the autosave's size, and the time the decimal JSON of the same scenario takes to write (what
  version 1 of the autosave wrote).
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
import PySide6.QtWidgets  # noqa: E402,F401  (before torch)
from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from app.pipeline import autosave  # noqa: E402
from app.pipeline.document import Document  # noqa: E402
from app.viewmodel.matrix_ref import MatrixRef  # noqa: E402
from attention import Projection, Scenario  # noqa: E402
from attention.files import scenario_io  # noqa: E402

BYTES_PER_NUMBER = 20.7  # a random normal float64 as scenario_io writes it, separators included


def big_scenario(mb: float) -> Scenario:
    """Queries, keys and values (B=4, L=S=512) and four d x d projections, d chosen for `mb`."""
    numbers = mb * 1e6 / BYTES_PER_NUMBER
    B, L = 4, 512
    d = max(8, int((-(3 * B * L) + math.sqrt((3 * B * L) ** 2 + 16 * numbers)) / 8) // 8 * 8)
    rng = np.random.default_rng(0)
    pr = {n: Projection(rng.normal(size=(d, d)), rng.normal(size=d)) for n in ("query", "key", "value", "out")}
    return Scenario(queries=rng.normal(size=(B, L, d)), keys=rng.normal(size=(B, L, d)),
                    values=rng.normal(size=(B, L, d)), n_heads=8, projections=pr)


def one_edit(doc: Document, saver: autosave.Autosaver, value: float) -> tuple[float, float]:
    """(seconds from the edit to `written`, the GUI thread's longest gap meanwhile)."""
    loop = QEventLoop()
    gaps = [0.0]
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps[0] = max(gaps[0], now - last[0])
        last[0] = now

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(5)
    saver.written.connect(loop.quit)
    start = time.perf_counter()
    doc.set_cell(MatrixRef("queries", 0), 0, 0, value)
    last[0] = time.perf_counter()
    QTimer.singleShot(120_000, loop.quit)
    loop.exec()
    took = time.perf_counter() - start
    timer.stop()
    saver.written.disconnect(loop.quit)
    return took, gaps[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=62.0, help="MB of scenario JSON (default 62, issue 21's)")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    QCoreApplication.instance() or PySide6.QtWidgets.QApplication([])
    sc = big_scenario(args.mb)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        scenario_io.save(sc, Path(tmp) / "scenario.json")
        json_s = time.perf_counter() - t
        json_mb = (Path(tmp) / "scenario.json").stat().st_size / 1e6
        doc = Document(sc)
        saver = autosave.Autosaver(doc, Path(tmp), lambda: {"source": None, "title": None})
        runs = [one_edit(doc, saver, float(i + 1)) for i in range(args.runs)]
        size = saver.file.stat().st_size / 1e6
        saver.close()
    lat = [r[0] for r in runs]
    print(f"scenario: {autosave.scenario_numbers(sc):,} numbers, {json_mb:.1f} MB as a scenario file "
          f"(scenario_io.save took {json_s:.2f} s)")
    print(f"autosave: {size:.1f} MB, DELAY_MS={autosave.DELAY_MS}, MAX_WAIT_MS={autosave.MAX_WAIT_MS}")
    print(f"edit -> autosave on disk: median {statistics.median(lat):.2f} s, worst {max(lat):.2f} s "
          f"(of which {autosave.DELAY_MS / 1000:.1f} s is the quiet delay)")
    print(f"GUI thread's longest gap while writing: {max(r[1] for r in runs) * 1000:.0f} ms")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
