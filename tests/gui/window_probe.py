"""Open the real MainWindow on a pretend screen and print where it went (tests/gui/test_window_fit.py).

    python tests/gui/window_probe.py WIDTHxHEIGHT SETTINGS.ini [--explain] [--set X,Y,W,H]

Qt's offscreen platform is told (its `configfile` option) that the only screen is WIDTHxHEIGHT,
so that a test can ask what a 1280x720 projector gets without an X server.  The window is built
with the settings in SETTINGS.ini (the remembered geometry, if any), shown, and one JSON line is
printed.  `--explain` opens the Explain panel first; `--set` then puts the window (not maximized)
at X,Y,W,H and closes it normally, which remembers the geometry in SETTINGS.ini.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("screen")
    p.add_argument("settings", type=Path)
    p.add_argument("--explain", action="store_true")
    p.add_argument("--set", dest="place")
    args = p.parse_args(argv)
    w, h = (int(n) for n in args.screen.split("x"))
    config = Path(tempfile.mkdtemp(prefix="ae-probe-")) / "screens.json"
    config.write_text(json.dumps({"screens": [{"name": "probe", "x": 0, "y": 0, "width": w, "height": h,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"
    import PySide6.QtWidgets  # noqa: F401  (before torch)
    from PySide6.QtCore import QRect, QSettings

    from app.startup.application import get_app

    app = get_app([])
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(config.parent))
    from app.main_window import MainWindow
    from app.services.settings import Settings

    settings = Settings.at(args.settings)
    settings.set_language("en")
    settings.set_explain_visible(args.explain)
    window = MainWindow(settings)
    window.ask_save_changes = lambda: PySide6.QtWidgets.QMessageBox.StandardButton.Discard
    window.show()
    window.recompute.recompute_now()
    for _ in range(10):
        app.processEvents()
    panel = window.cell_tools.panel
    hint = window.minimumSizeHint()
    print(json.dumps({
        "available": window.screen().availableGeometry().getRect(),
        "geometry": window.geometry().getRect(), "normal": window.normalGeometry().getRect(),
        "maximized": window.isMaximized(), "minimum": [hint.width(), hint.height()],
        "regions": [window.splitter.widget(i).width() for i in range(window.splitter.count())],
        "explain": panel.width() if panel.isVisible() else 0}), flush=True)
    if args.place:
        window.showNormal()
        window.setGeometry(QRect(*(int(n) for n in args.place.split(","))))
        app.processEvents()
        window.close()
    else:
        window.recompute.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
