"""Screenshot knocked-out heads, the head-importance map and attention flow as a class would see them.

    xvfb-run -a -s "-screen 0 1280x720x24" .venv/bin/python tests/screenshot_heads.py [OUT_DIR] [WIDTHxHEIGHT]

Writes OUT_DIR/heads.<what>.<lang>.png (default OUT_DIR: screenshots/, ignored by git): glassllm with two heads
knocked out (the grid's marks, the Heads panel's before → after, the title), the importance map over the grid,
and Show ▸ Attention flow with a cell explained; in English and Chinese.  Look at them before a release.
"""
from __future__ import annotations

import sys
from pathlib import Path

import PySide6.QtWidgets  # noqa: F401  (before torch and pyqtgraph)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def settle(app, window) -> None:
    for _ in range(3):
        window.recompute.wait_idle()
        for _ in range(8):
            app.processEvents()


def main(argv: list[str]) -> int:
    from screenshot_lines import shot_window

    from app.services import i18n
    from app.viewmodel import head_view

    app, window, out = shot_window(argv)
    window.models.glassllm_action.trigger()
    settle(app, window)
    tools, heads = window.models, window.models.heads
    written = []
    for lang in ("en", "zh"):
        i18n.set_language(lang)
        settle(app, window)
        s = tools.session
        heads.apply(head_view.with_edit(head_view.with_edit((), 1, 2, "zero"), 3, 0, "mean"))
        settle(app, window)
        tools.open_head(3, 1)
        settle(app, window)
        for name in ("knocked", "map", "flow"):
            if name == "map":
                heads.start_map("knock")
                while heads.is_running():
                    app.processEvents()
                settle(app, window)
            if name == "flow":
                heads.close_map()
                box = tools.panel.show_box
                box.setCurrentIndex(2)
                box.activated.emit(2)
                settle(app, window)
                n = len(s.tokens())
                tools.panel.flow.explain(n - 1, 0)
                settle(app, window)
            path = out / f"heads.{name}.{lang}.png"
            window.grab().save(str(path))
            written.append(path)
        tools.panel.show_box.setCurrentIndex(0)
        tools.panel.show_box.activated.emit(0)
        heads.apply(())
        settle(app, window)
    print("\n".join(str(p) for p in written))
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
