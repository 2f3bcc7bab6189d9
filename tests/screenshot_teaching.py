"""Screenshot the window's teaching tools on the seed toy, in English and Chinese.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python tests/screenshot_teaching.py [OUT_DIR]

Writes OUT_DIR/teaching.<tool>.<lang>.png (default OUT_DIR: screenshots/, ignored by git):
the Explain panel on a score, a quiz on the attention weights with one answer checked, and the
difference to a pinned trace after switching the causal mask on.  Look at them before a release.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import PySide6.QtWidgets  # noqa: F401  (before torch and pyqtgraph)
from PySide6.QtCore import QSettings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def settle(app, window) -> None:
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    for _ in range(8):
        app.processEvents()


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else ROOT / "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    from app.startup.application import get_app

    app = get_app([])
    tmp = Path(tempfile.mkdtemp(prefix="ae-shots-"))
    for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(tmp))
    import resources
    from app.main_window import MainWindow
    from app.services.settings import Settings

    window = MainWindow(Settings.at(tmp / "settings.ini"))
    window.ask_save_changes = lambda: PySide6.QtWidgets.QMessageBox.StandardButton.Discard
    window.resize(1600, 1000)
    window.show()
    tools = window.cell_tools
    path, title = resources.list_presets()[0]
    written = []

    def shot(name: str, lang: str, step: str) -> None:
        window.view.scroll.ensureWidgetVisible(window.view.pane(step), 0, 0)  # the pane it is about
        settle(app, window)
        target = out / f"teaching.{name}.{lang}.png"
        window.grab().save(str(target))
        written.append(target)

    for lang in ("en", "zh"):
        window.set_language(lang, remember=False)
        window.open_preset(path, title)
        settle(app, window)
        tools.panel.show()
        window.view.pane("scores").click_cell(0, 1, 2)
        shot("explain", lang, "scores")
        window.view.pane("scores").click_cell(0, 1, 2)  # the same cell again: clears
        tools.quiz.hide_step("attention_weights")
        settle(app, window)
        window.view.pane("attention_weights").click_cell(0, 0, 0, double=True)
        tools.panel.answer_edit.setText("0.22")
        tools.panel.check_answer()
        shot("quiz", lang, "attention_weights")
        tools.quiz.hide_step(None)
        tools.panel.clear()
        tools.compare.pin()
        window.document.set_option("causal", True, "causal")
        tools.compare.show_difference(True)
        shot("compare", lang, "attention_weights")
        tools.compare.unpin()
    window.recompute.shutdown()
    window.close()
    print("\n".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
