"""Shoot chosen slides of a preset in a real window and print every text's pixel size (issue 20).

Run by hand under an X server with a window manager, from the repository root:

    xvfb-run -a -s "-screen 0 1280x720x24" sh -c 'openbox & .venv/bin/python tests/screenshot_slide_texts.py \
        OUT_DIR --preset 09_trained_tsl_period --lang zh --steps attention_weights,output [--head 3] [--zoom 1.6]'

For each step it writes OUT_DIR/slide.<preset>.<step>.<lang>.<W>x<H>.png (the whole screen) and prints
one line: the slide's size, the smallest text (what and px), every text under 14 px, the panes'
zooms, and whether the output pane needs a sideways scroll.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import PySide6.QtWidgets  # noqa: F401  (before torch and pyqtgraph)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "gui"))


def _settle(app, n: int = 12) -> None:
    import time

    for _ in range(n):
        app.processEvents()
        time.sleep(0.02)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("out", type=Path)
    p.add_argument("--preset", default="09_trained_tsl_period")
    p.add_argument("--lang", default="en")
    p.add_argument("--steps", default="attention_weights")
    p.add_argument("--head", type=int, default=0, help="1-8: show that head alone")
    p.add_argument("--zoom", type=float, default=0.0)
    a = p.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    import tempfile

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QMessageBox

    from app.startup.application import get_app

    app = get_app([])
    tmp = Path(tempfile.mkdtemp(prefix="ae-slide-texts-"))
    for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(tmp))
    from slide_texts import slide_text_sizes

    from app.main_window import MainWindow
    from app.services.settings import Settings

    window = MainWindow(Settings.at(tmp / "settings.ini"))
    window.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
    window.show()
    window.set_language(a.lang, remember=False)
    window.load_path(ROOT / "resources" / "scenarios" / f"{a.preset}.json")
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    view = window.presentation.view
    window.presentation.enter()
    _settle(app, 30)
    if a.zoom:
        view.set_zoom(a.zoom)
    if a.head:
        view.set_focus_head(a.head - 1)
    screen = view.screen()
    for sid in a.steps.split(","):
        view.go_to(view.lesson_ids().index(sid))
        _settle(app, 30)
        sizes = slide_text_sizes(view)
        small = sorted({(w, px) for w, px in sizes if px < 14}, key=lambda t: t[1])
        least = min(sizes, key=lambda t: t[1]) if sizes else ("-", 0)
        out = view.output_pane()
        sideways = view.body_scroll.horizontalScrollBar().maximum()
        size = f"{view.width()}x{view.height()}"
        target = a.out / f"slide.{a.preset}.{sid}.{a.lang}.{size}.png"
        screen.grabWindow(0).save(str(target))
        zooms = {p.step_id: round(p.zoom, 2) for p in [out, *view.input_panes()] if p is not None}
        print(f"{target.name}: smallest {least[1]:.0f}px ({least[0]}); under 14px: {len(small)} "
              f"{small[:8]}; zooms {zooms}; output {out.width()}x{out.height()} canvas "
              f"{out.canvas.width()}x{out.canvas.height()} heads/row {out.heads_per_row()} "
              f"sideways scroll {sideways}; "
              f"inputs {[p.geometry().getRect() for p in view.input_panes()]}; "
              f"window {view.geometry().getRect()} screen "
              f"{screen.availableGeometry().getRect()}", flush=True)
    view.leave()
    window.recompute.shutdown()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
