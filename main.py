"""Attention Explorer: `python main.py [FILE]` opens the window; `python main.py COMMAND ...`
(validate, trace, presets, layers, import, render, ...) runs headless (see `python main.py --help`)."""
from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path
from typing import Optional

#: The headless commands (render draws with Qt's offscreen platform; the others never import Qt).
COMMANDS = ("validate", "trace", "presets", "explain", "script", "layers", "import", "render", "tiles",
            "run", "heads")
HEADLESS = {*COMMANDS, "-h", "--help"} - {"render"}
#: Qt platforms that draw on a display server, and the variables that name one.
DISPLAY_PLATFORMS = ("xcb", "wayland", "wayland-egl")


def terminal_language() -> str:
    from attention.cli import terminal_language as lang  # torch-free, Qt-free

    return lang()


def _say(key: str, **args) -> None:
    from attention import words

    print(words.text(key, terminal_language(), **args), file=sys.stderr)


def missing_display(environ: Optional[dict] = None, platform: str = sys.platform) -> Optional[str]:
    """Why Qt could not open a window here (a key of attention.words), or None when it can.

    Qt aborts the whole process (exit -6) when its platform plugin finds no display, before
    any Python code could say why; so look first.  Windows and macOS always have one; on other
    systems a window needs DISPLAY (X11) or WAYLAND_DISPLAY, unless QT_QPA_PLATFORM names a
    platform that needs neither (offscreen, vnc, eglfs, linuxfb...)."""
    env = os.environ if environ is None else environ
    if platform.startswith(("win", "darwin")):
        return None
    chosen = [p.split(":")[0].strip() for p in env.get("QT_QPA_PLATFORM", "").split(";") if p.strip()]
    if chosen and any(p not in DISPLAY_PLATFORMS for p in chosen):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return "cli.no_display_env"


def unknown_word(word: str) -> Optional[str]:
    """The message key when `word` is neither a command nor a file to open, else None."""
    if word.startswith("-"):
        return "cli.unknown_option"
    if Path(word).exists() or os.sep in word or "/" in word or Path(word).suffix:
        return None  # a file (or what looks like one: the window says why it cannot open it)
    return "cli.unknown_command"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "render":  # headless too, but it draws with Qt: not attention.cli
        from app.startup.render_cli import main as render_main

        return render_main(argv[1:])
    if argv and argv[0] in HEADLESS:
        from attention.cli import main as cli_main  # no Qt at all on this path
        from resources import list_presets

        return cli_main(argv, presets=list_presets)
    commands = ", ".join(COMMANDS)
    if argv and unknown_word(argv[0]):
        near = difflib.get_close_matches(argv[0].lstrip("-"), COMMANDS, n=1)
        from attention import words

        hint = words.text("cli.did_you_mean", terminal_language(), near=near[0]) if near else ""
        _say(unknown_word(argv[0]), word=argv[0], near=hint, commands=commands)
        return 2
    why = missing_display()
    if why is not None:
        from attention import words

        _say("cli.needs_display", why=words.text(why, terminal_language()), commands=commands)
        return 2
    # The window: PySide6 must be imported before torch and pyqtgraph (pyqtgraph would otherwise
    # prefer PyQt6, and a process that imports torch first can segfault at exit).
    import PySide6.QtWidgets  # noqa: F401

    from app.startup.application import run

    return run(argv[0] if argv else None)


if __name__ == "__main__":
    sys.exit(main())
