"""Screenshot the map of steps (window and slides) and a cell explained on a slide, at 1280x720, en and zh.

    xvfb-run -a -s "-screen 0 1280x720x24" bash -c 'openbox & .venv/bin/python tests/screenshot_explainmap.py [OUT_DIR]'

Writes OUT_DIR/explainmap.<what>.<lang>.png (default OUT_DIR: build/screenshots/, which git
ignores): the window maximised with the map above its panels after a click on the "Softmax" chip,
and slides with a clicked cell's arithmetic (scores, weights, weighted sum, output; a masked preset's
masked scores; ProbSparse's sparsity measure; a weighted sum while the quiz hides the weights).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import PySide6.QtWidgets  # noqa: F401  (before torch and pyqtgraph)
from PySide6.QtCore import QSettings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZE = (1280, 720)
#: (preset, step, cell (matrix, row, column) of the slide's result)
SLIDES = (
    ("01_tsl_toy.json", "scores", (1, 2, 3)),
    ("01_tsl_toy.json", "attention_weights", (0, 1, 2)),
    ("01_tsl_toy.json", "weighted_sum", (1, 2, 0)),
    ("01_tsl_toy.json", "output", (0, 1, 2)),
    ("03_d2l_masked_softmax.json", "masked_scores", (0, 1, 3)),
    ("07_informer_probsparse.json", "extra.sparsity", (0, 2, 0)),
)


def _settle(app, n: int = 10) -> None:
    for _ in range(n):
        app.processEvents()


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "build" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    from app.startup.application import get_app

    app = get_app([])
    tmp = Path(tempfile.mkdtemp(prefix="ae-explainmap-"))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp))
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp))
    from app.main_window import MainWindow
    from app.services.settings import Settings

    window = MainWindow(Settings.at(tmp / "settings.ini"))
    window.ask_save_changes = lambda: PySide6.QtWidgets.QMessageBox.StandardButton.Discard
    window.resize(*SIZE)
    window.showMaximized()
    written = []

    def load(name: str) -> None:
        window.load_path(ROOT / "resources" / "scenarios" / name)
        window.recompute.recompute_now()
        window.recompute.wait_idle()
        _settle(app)

    def shot(widget, name: str) -> None:
        target = out / f"explainmap.{name}.png"
        if not widget.grab().save(str(target)):
            raise OSError(f"could not write {target}")
        written.append(target)

    for lang in ("en", "zh"):
        window.set_language(lang, remember=False)
        load("07_informer_probsparse.json")
        window.pipeline_map.map.chip("attention_weights").click()
        _settle(app, 20)
        shot(window, f"window.{lang}")
        window.params.controls["causal"].setChecked(True)  # the mask's steps too, and the Explain panel open
        window.recompute.wait_idle()
        window.cell_tools.panel.show()
        _settle(app, 20)
        window.pipeline_map.map.chip("extra.mask").click()
        _settle(app, 20)
        shot(window, f"window.explain_open.{lang}")
        window.cell_tools.panel.hide()
        view = window.presentation.view
        for preset, sid, (m, r, c) in SLIDES:
            load(preset)
            window.presentation.enter()
            view.resize(*SIZE)
            view.go_to(view.lesson_ids().index(sid))
            _settle(app)
            view.output_pane().click_cell(m, r, c)
            _settle(app, 20)
            shot(view, f"slide.{sid}.{lang}")
            if sid == "weighted_sum":  # zoomed in, then with the edit drawer open
                view.zoom_in()
                view.zoom_in()
                _settle(app, 20)
                shot(view, f"slide.{sid}.zoomed.{lang}")
                view.zoom_reset()
                view.open_drawer(focus=False)
                _settle(app, 20)
                shot(view, f"slide.{sid}.drawer.{lang}")
                view.close_drawer()
            view.leave()
        load("01_tsl_toy.json")  # a quiz hides the weights: the weighted sum's terms read them
        window.cell_tools.quiz.hide_step("attention_weights")
        window.presentation.enter()
        view.resize(*SIZE)
        view.go_to(view.lesson_ids().index("weighted_sum"))
        _settle(app)
        view.output_pane().click_cell(1, 2, 0)
        _settle(app, 20)
        shot(view, f"slide.quiz.{lang}")
        view.leave()
        window.cell_tools.quiz.hide_step(None)
    window.recompute.shutdown()
    window.close()
    print("\n".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
