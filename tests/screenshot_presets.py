"""Screenshot the real window on every preset, in English and Chinese.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python tests/screenshot_presets.py [OUT_DIR] [--readme]

Writes OUT_DIR/<preset>.<lang>.png (default OUT_DIR: screenshots/, which git ignores) at
1600x1000, and with --readme also docs/screenshot.png (the toy preset in English).  Under
Xvfb this is what a person sees; with QT_QPA_PLATFORM=offscreen it still works (no window
manager decorations).  tests/gui/test_screenshots.py runs it and checks the pictures.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import PySide6.QtWidgets  # noqa: F401  (before torch and pyqtgraph)
from PySide6.QtCore import QSettings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    out = Path(next((a for a in argv if not a.startswith("--")), ROOT / "screenshots"))
    out.mkdir(parents=True, exist_ok=True)
    from app.startup.application import get_app

    app = get_app([])
    tmp = Path(tempfile.mkdtemp(prefix="ae-shots-"))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp))
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp))
    import resources
    from app.main_window import MainWindow
    from app.services.settings import Settings

    window = MainWindow(Settings.at(tmp / "settings.ini"))
    window.ask_save_changes = lambda: PySide6.QtWidgets.QMessageBox.StandardButton.Discard
    window.resize(1600, 1000)
    window.show()
    written = []
    for lang in ("en", "zh"):
        window.set_language(lang, remember=False)
        for path, title in resources.list_presets():
            window.open_preset(path, title)
            window.recompute.recompute_now()
            window.recompute.wait_idle()
            for _ in range(5):
                app.processEvents()
            target = out / f"{path.stem}.{lang}.png"
            if not window.grab().save(str(target)):
                print(f"could not write {target}", file=sys.stderr)
                return 1
            written.append(target)
            if "--readme" in argv and lang == "en" and path.stem.startswith("01"):
                window.grab().save(str(ROOT / "docs" / "screenshot.png"))
    window.recompute.shutdown()
    window.close()
    print("\n".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
