"""Screenshot the token lines and the What if sliders as a class would see them, in English and Chinese.

    xvfb-run -a -s "-screen 0 1280x720x24" .venv/bin/python tests/screenshot_lines.py [OUT_DIR] [WIDTHxHEIGHT]

Writes OUT_DIR/lines.<what>.<lang>.png (default OUT_DIR: screenshots/, ignored by git): the
window with View ▸ Token lines floated beside it on the causal preset (all heads, one head,
a hovered query), eight heads, a trained model's 12 tokens, and the What if dock after a scale
drag.  Look at them before a release.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import PySide6.QtWidgets  # noqa: F401  (before torch and pyqtgraph)
from PySide6.QtCore import QEvent, QSettings, Qt
from PySide6.QtGui import QMouseEvent

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def settle(app, window) -> None:
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    for _ in range(8):
        app.processEvents()


def shot_window(argv: list[str]):
    """(app, window, OUT_DIR) for a screenshot script's argv [OUT_DIR] [WIDTHxHEIGHT]: the window at that size,
    shown, with settings of its own in a temporary folder (tests/screenshot_heads.py uses it too)."""
    out = Path(argv[0] if argv else ROOT / "screenshots")
    w, h = (int(x) for x in (argv[1] if len(argv) > 1 else "1280x720").split("x"))
    out.mkdir(parents=True, exist_ok=True)
    from app.startup.application import get_app

    app = get_app([])
    tmp = Path(tempfile.mkdtemp(prefix="ae-shots-"))
    for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(tmp))
    from app.main_window import MainWindow
    from app.services.settings import Settings

    window = MainWindow(Settings.at(tmp / "settings.ini"))
    window.ask_save_changes = lambda: PySide6.QtWidgets.QMessageBox.StandardButton.Discard
    window.resize(w, h)
    window.show()
    return app, window, out


def main(argv: list[str]) -> int:
    import resources

    app, window, out = shot_window(argv)
    presets = dict((p.name, (p, t)) for p, t in resources.list_presets())
    written = []

    def shot(widget, name: str, lang: str) -> None:
        settle(app, window)
        target = out / f"lines.{name}.{lang}.png"
        widget.grab().save(str(target))
        written.append(target)

    lines, what_if = window.token_lines, window.what_if
    for lang in ("en", "zh"):
        window.set_language(lang, remember=False)
        window.open_preset(*presets["06_causal_self_attention.json"])
        settle(app, window)
        lines.action.trigger()
        shot(window, "window", lang)
        panel = lines.panel
        panel.setFloating(True)
        panel.resize(640, min(window.height(), 620))
        shot(panel, "all_heads", lang)
        panel.set_head(1)
        shot(panel, "head2", lang)
        panel.set_head(-1)
        canvas = panel.canvas
        pos = canvas.token_pos("query", 3)
        app.sendEvent(canvas, QMouseEvent(QEvent.Type.MouseMove, pos, canvas.mapToGlobal(pos), Qt.MouseButton.NoButton,
                                          Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier))
        shot(panel, "hover", lang)
        app.sendEvent(canvas, QEvent(QEvent.Type.Leave))
        for preset, name in (("02_tsl_real_config.json", "eight_heads"), ("10_trained_reverse_digits.json", "trained")):
            window.open_preset(*presets[preset])
            shot(panel, name, lang)
        window.open_preset(*presets["06_causal_self_attention.json"])
        lines.action.trigger()  # closed again
        what_if.action.trigger()
        slider = what_if.panel.scale_slider
        slider.setSliderDown(True)
        for p in (600, 700, 800):
            slider.setValue(p)
            settle(app, window)
        slider.setSliderDown(False)
        what_if.panel.select_cell("queries", 1, 2)
        shot(window, "what_if", lang)
        window.document.undo_stack.undo()
        what_if.action.trigger()
    window.recompute.shutdown()
    window.close()
    print("\n".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
