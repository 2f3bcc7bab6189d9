"""By-hand layout benchmark: how long one redraw of the sheet takes (what every edit costs while it is shown).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/by_hand.py

A ByHandView of 1200 x 700 px (a slide's sheet) draws one head of square scenarios up to the
largest the layout accepts (app.viewmodel.by_hand.MAX_SIDE); each line prints the median of
five redraws (`_draw`: the plan of both arrangements, the fit, one rectangle and one text item per
cell), the arrangement chosen, the numbers' font size and the cell count.  No target is enforced;
a small sheet (L = S = 4) should stay well under 100 ms on a laptop.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import PySide6.QtWidgets  # noqa: F401  (before torch and pyqtgraph)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    import numpy as np
    from PySide6.QtWidgets import QApplication

    from app.panes.by_hand_view import ByHandView
    from app.viewmodel import by_hand
    from attention import Scenario
    from attention.compute import engine

    app = QApplication.instance() or QApplication([])
    rng = np.random.default_rng(0)
    for n in (3, 4, 8, by_hand.MAX_SIDE):
        d = 2 * n  # two heads of d_k = n
        sc = Scenario(rng.normal(size=(1, n, d)), rng.normal(size=(1, n, d)), rng.normal(size=(1, n, d)), n_heads=2)
        view = ByHandView()
        view.resize(1200, 700)
        view.show()
        app.processEvents()
        view.show_trace(engine.run(sc), sc)
        app.processEvents()
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            view._draw()
            times.append(time.perf_counter() - t0)
        print(f"L = S = d_k = d_v = {n:2d}: {statistics.median(times) * 1000:7.1f} ms per redraw "
              f"({view.plan.arrangement}, numbers {view.font_px} px, {len(view.cells)} cells)")
        view.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
