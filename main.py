"""Attention Explorer: `python main.py [FILE]` opens the window; `python main.py COMMAND ...`
(validate, trace, presets, layers, import, render, ...) runs headless (see `python main.py --help`)."""
from __future__ import annotations

import sys

HEADLESS = {"validate", "trace", "presets", "explain", "script", "layers", "import", "-h", "--help"}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "render":  # headless too, but it draws with Qt: not attention.cli
        from app.startup.render_cli import main as render_main

        return render_main(argv[1:])
    if argv and argv[0] in HEADLESS:
        from attention.cli import main as cli_main  # no Qt at all on this path

        return cli_main(argv)
    # The window: PySide6 must be imported before torch and pyqtgraph (pyqtgraph would otherwise
    # prefer PyQt6, and a process that imports torch first can segfault at exit).
    import PySide6.QtWidgets  # noqa: F401

    from app.startup.application import run

    return run(argv[0] if argv else None)


if __name__ == "__main__":
    sys.exit(main())
