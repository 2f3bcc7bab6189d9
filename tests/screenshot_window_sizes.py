"""Screenshot the real window, launched as a person launches it, on three screens in both languages.

Run by hand (not collected by pytest: it starts X servers and the whole app), from the repository root:

    .venv/bin/python tests/screenshot_window_sizes.py OUT_DIR [--sizes 1280x720,1366x768,1920x1080] [--langs en,zh]

For each screen size it starts a fresh X server (`xvfb-run`, Debian's xvfb) with the openbox
window manager, and for each language it launches the app through `app.startup.application.run`
(what `main.py` and `attention-explorer` call) with fresh settings in a temporary folder (the
user's own are never touched) that name the language and leave the Explain panel open.  Once the
first fresh trace is on screen it saves the whole screen (window manager decorations included):

    OUT_DIR/window.<W>x<H>.<lang>.launch.png      as the window opens on a first launch
    OUT_DIR/window.<W>x<H>.<lang>.maximized.png   after maximizing it

and prints one line per shot with the window's frame and client area, the screen's available
area, whether the window fits in it, and the widths of the Parameters / Inputs / Steps regions and the Explain dock.
It exits 1 when a launch failed or a window did not fit.  Look at the PNGs before a release.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = ("1280x720", "1366x768", "1920x1080")
LANGS = ("en", "zh")
WAIT_S = 120  # the longest wait for the first fresh trace (torch's import on a busy machine)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        return child(argv[1:])
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--sizes", default=",".join(SIZES))
    p.add_argument("--langs", default=",".join(LANGS))
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    failures = 0
    for size in args.sizes.split(","):
        for lang in args.langs.split(","):
            cmd = ["xvfb-run", "-a", "-s", f"-screen 0 {size}x24", sys.executable, str(Path(__file__).resolve()),
                   "--child", size, lang, str(args.out.resolve())]
            rc = subprocess.run(cmd, cwd=ROOT).returncode
            if rc != 0:
                print(f"{size} {lang}: FAILED (exit {rc})")
                failures += 1
    return 1 if failures else 0


def child(argv: list[str]) -> int:
    """Inside one X server: openbox, then the app as launched, then the shots."""
    size, lang, out = argv[0], argv[1], Path(argv[2])
    home = Path(tempfile.mkdtemp(prefix="ae-window-sizes-"))
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        os.environ[var] = str(home / var.lower())
    conf = home / "xdg_config_home" / "AttentionExplorer" / "Attention Explorer.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text(f"[General]\nlanguage={lang}\n\n[explain]\nvisible=true\n", encoding="utf-8")
    wm = subprocess.Popen(["openbox"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)  # openbox manages windows from here on
        sys.path.insert(0, str(ROOT))
        import PySide6.QtWidgets  # noqa: F401  (before torch)
        from PySide6.QtCore import QTimer

        from app.startup.application import get_app, run

        app = get_app([])
        shots = _Shots(app, size, lang, out)
        QTimer.singleShot(500, shots.poll)
        code = run(None)
        return code or (0 if shots.ok else 1)
    finally:
        wm.terminate()
        wm.wait(10)


class _Shots:
    def __init__(self, app, size: str, lang: str, out: Path) -> None:
        self.app, self.size, self.lang, self.out = app, size, lang, out
        self.started = time.monotonic()
        self.ok = False

    def window(self):
        from app.main_window import MainWindow

        return next((w for w in self.app.topLevelWidgets() if isinstance(w, MainWindow)), None)

    def poll(self) -> None:
        from PySide6.QtCore import QTimer

        w = self.window()
        fresh = w is not None and w.last_trace is not None and bool(w.last_trace.parameters)
        if fresh and w.recompute.is_idle():
            QTimer.singleShot(1500, self.launched)  # let openbox place it and the panes paint
        elif time.monotonic() - self.started > WAIT_S:
            print(f"{self.size} {self.lang}: no trace after {WAIT_S} s")
            self.app.quit()
        else:
            QTimer.singleShot(250, self.poll)

    def launched(self) -> None:
        from PySide6.QtCore import QTimer

        fits = self.shot("launch")
        self.window().showMaximized()
        QTimer.singleShot(2000, lambda: self.maximized(fits))

    def maximized(self, fits: bool) -> None:
        self.ok = self.shot("maximized") and fits
        w = self.window()
        w.ask_save_changes = lambda: __import__("PySide6.QtWidgets").QtWidgets.QMessageBox.StandardButton.Discard
        w.close()

    def shot(self, name: str) -> bool:
        w = self.window()
        self.app.processEvents()
        screen = w.screen()
        avail, frame, client = screen.availableGeometry(), w.frameGeometry(), w.geometry()
        # the client area (menus to status bar) wholly on the screen, and the title bar too: a
        # maximized frame's borders may lie a pixel or a bottom grip outside (openbox)
        fits = avail.contains(client) and frame.top() >= avail.top() - 2 and frame.left() >= avail.left() - 2 \
            and frame.right() <= avail.right() + 2
        target = self.out / f"window.{self.size}.{self.lang}.{name}.png"
        screen.grabWindow(0).save(str(target))
        panel = w.cell_tools.panel
        regions = [w.splitter.widget(i).width() for i in range(w.splitter.count())]
        print(json.dumps({"shot": target.name, "fits": fits, "frame": frame.getRect(), "client": client.getRect(),
                          "available": avail.getRect(),
                          "params_inputs_steps": regions, "steps_view": w.view.width(),
                          "explain": panel.width() if panel.isVisible() else 0,
                          "minimum": [w.minimumSizeHint().width(), w.minimumSizeHint().height()]}), flush=True)
        return fits


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
