"""Screenshot presentation mode on the seed's toy preset, in English and Chinese, at 1280x720.

    xvfb-run -a -s "-screen 0 1280x720x24" .venv/bin/python tests/screenshot_presentation.py [OUT_DIR] [--qm DIR]

Writes OUT_DIR/presentation.<step>.<lang>.png (default OUT_DIR: build/screenshots/, which git
ignores) for a few steps, plus one zoomed-in slide and one slide with the edit drawer open
(presentation.drawer.<lang>.png: heads changed to 1 in the drawer, the slide recomputed).
`--qm DIR` loads app_zh_CN.qm from DIR instead of resources/translations (to look at translations
not merged yet).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import PySide6.QtWidgets  # noqa: F401  (before torch and pyqtgraph)
from PySide6.QtCore import QSettings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STEPS = ("projection.query", "scores", "attention_weights", "weighted_sum", "output")
SIZE = (1280, 720)


def _settle(app) -> None:
    for _ in range(8):
        app.processEvents()


def main(argv: list[str]) -> int:
    args = [a for a in argv]
    qm_dir = None
    if "--qm" in args:
        i = args.index("--qm")
        qm_dir = args[i + 1]
        del args[i:i + 2]
    out = Path(next((a for a in args if not a.startswith("--")), ROOT / "build" / "screenshots"))
    out.mkdir(parents=True, exist_ok=True)
    from app.startup.application import get_app

    app = get_app([])
    tmp = Path(tempfile.mkdtemp(prefix="ae-present-"))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp))
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp))
    from app.main_window import MainWindow
    from app.startup import i18n
    from app.startup.settings import Settings

    if qm_dir is not None:
        i18n.TRANSLATIONS = Path(qm_dir)
    window = MainWindow(Settings.at(tmp / "settings.ini"))
    window.ask_save_changes = lambda: PySide6.QtWidgets.QMessageBox.StandardButton.Discard
    window.resize(*SIZE)
    window.show()
    window.load_path(ROOT / "resources" / "scenarios" / "01_tsl_toy.json")
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    view = window.presentation.view
    written = []
    for lang in ("en", "zh"):
        window.set_language(lang, remember=False)
        window.presentation.enter()
        view.resize(*SIZE)  # full screen is the Xvfb screen; offscreen has no fixed size
        for sid in STEPS:
            view.go_to(view.lesson_ids().index(sid))
            _settle(app)
            target = out / f"presentation.{sid}.{lang}.png"
            if not view.grab().save(str(target)):
                print(f"could not write {target}", file=sys.stderr)
                return 1
            written.append(target)
        view.zoom_in()
        view.zoom_in()
        view.go_to(view.lesson_ids().index("attention_weights"))
        _settle(app)
        target = out / f"presentation.zoomed.{lang}.png"
        view.grab().save(str(target))
        written.append(target)
        view.zoom_reset()
        view.go_to(view.lesson_ids().index("head_split.query"))
        view.open_drawer()
        view.drawer.params.controls["n_heads"].setValue(1)  # an edit in the drawer, live on the slide
        window.recompute.wait_idle()
        _settle(app)
        target = out / f"presentation.drawer.{lang}.png"
        view.grab().save(str(target))
        written.append(target)
        window.undo_action.trigger()
        window.recompute.wait_idle()
        view.close_drawer()
        _settle(app)
        view.leave()
    window.recompute.shutdown()
    window.close()
    print("\n".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
