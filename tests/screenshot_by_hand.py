"""Screenshot the by-hand layout in the real window and on a slide, the way a person gets there.

    xvfb-run -a -s "-screen 0 1280x720x24" bash -c 'openbox & .venv/bin/python tests/screenshot_by_hand.py [OUT_DIR]'

For each language (en, zh): the window maximized on the toy preset, Ctrl+Shift+B (View ▸ By-hand
layout) -> OUT_DIR/by_hand.window.<W>x<H>.<lang>.png; then F5, B and Right to the scores slide ->
OUT_DIR/by_hand.slide.<W>x<H>.<lang>.png (default OUT_DIR: build/screenshots/, which git ignores).
Prints each sheet's arrangement, number font (px) and digits, and exits non-zero if a number is
drawn below 14 px or a sheet is missing.  The screen size is the X server's (run it again with
-screen 0 1920x1080x24 for a monitor).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import PySide6.QtWidgets  # noqa: F401  (before torch and pyqtgraph)
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    from PySide6.QtWidgets import QApplication

    from app.panes.by_hand_view import MIN_FONT_PX
    from app.services.settings import Settings

    out = Path(argv[0] if argv else ROOT / "build" / "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication([])
    screen = app.primaryScreen().size()
    size = f"{screen.width()}x{screen.height()}"
    tmp = tempfile.mkdtemp()
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, tmp)
    from app.main_window import MainWindow

    failures = 0
    for lang in ("en", "zh"):
        settings = Settings.at(Path(tmp) / f"settings.{lang}.ini")
        settings.set_language(lang)
        w = MainWindow(settings)
        w.showMaximized()
        QTest.qWait(1200)
        w.recompute.recompute_now()
        QTest.qWait(300)
        QTest.keyClick(w, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
        QTest.qWait(600)
        sheet = w.by_hand.view
        path = out / f"by_hand.window.{size}.{lang}.png"
        app.primaryScreen().grabWindow(0).save(str(path))
        print(f"{path.name}: shown={w.by_hand.is_shown()} {sheet.plan.arrangement if sheet.plan else None} "
              f"numbers {sheet.font_px} px, {sheet.digits} digits")
        failures += sheet.plan is None or sheet.font_px < MIN_FONT_PX
        QTest.keyClick(w, Qt.Key.Key_F5)
        QTest.qWait(1000)
        view = w.presentation.view
        QTest.keyClick(view, Qt.Key.Key_B)
        while view.current_step() not in ("scores", None) and view.index() < len(view.lesson_ids()) - 1:
            QTest.keyClick(view, Qt.Key.Key_Right)
        QTest.qWait(600)
        slide = w.presentation.by_hand.sheet
        path = out / f"by_hand.slide.{size}.{lang}.png"
        app.primaryScreen().grabWindow(0).save(str(path))
        print(f"{path.name}: step={view.current_step()} {slide.plan.arrangement if slide.plan else None} "
              f"numbers {slide.font_px} px, {slide.digits} digits")
        failures += slide.plan is None or slide.font_px < MIN_FONT_PX
        view.leave()
        w.document.undo_stack.clear()
        w.close()
        w.recompute.shutdown()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
