"""`python main.py render FILE --out DIR [--lang zh|en] [--dtype ...] [--batch N] [--blank STEP,...]`: a
handout of a scenario, headless (app.teaching.handout: a PNG of every step and one self-contained
handout.html).  With --blank, a worksheet instead (app.teaching.worksheet): worksheet.html with those
steps as empty grids to fill in, and answer_key.html with the same grids filled in; `tiles` among
them adds tiles_worksheet.html and tiles_answer_key.html (FlashAttention's running m, ℓ, O).

It draws with the window's Qt panes, so, unlike attention.cli, it needs Qt: without a display
it uses Qt's offscreen platform.  PySide6 is imported before torch (a process that imports
torch first can segfault at exit).  Exit codes as attention.cli: 0 done; 2 bad input (usage,
a scenario that does not load or run, a folder that cannot be written) with one line per
problem on stderr and no traceback; 1 an unexpected failure, also in one line.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Optional


def _parser(lang: str = "en") -> argparse.ArgumentParser:
    """The options; --help and argparse's own error lines in `lang` (the terminal's), every word from the
    catalogue (attention/words/cli_args.py: cli.cmd.render.about, cli.opt.render.<dest>)."""
    from attention.cli import cli_args
    from attention.datamodel.scenario import DEVICES, DTYPES

    p = cli_args.Parser(prog="main.py render")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    p.add_argument("--dtype", choices=DTYPES)
    p.add_argument("--device", choices=DEVICES)
    p.add_argument("--batch", type=int, default=1, metavar="N")  # counted from 1, as the handout names it
    p.add_argument("--blank", action="append", metavar="STEP[,STEP]")
    cli_args.localize(p, lang, "render")
    return p


def _use_offscreen_without_display() -> None:
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _quiet_offscreen_notice() -> None:
    """The offscreen platform warns that it "does not support propagateSizeHints()" whenever a
    widget is shown: noise on a command line; every other Qt message still goes to stderr."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(_mode, _context, message: str) -> None:
        if "propagateSizeHints" not in message:
            print(message, file=sys.stderr)

    qInstallMessageHandler(handler)


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "render":
        argv = argv[1:]
    from attention.cli import terminal_language  # Qt-free, torch-free

    said = terminal_language()  # the language of what this command says on the terminal
    try:
        args = _parser(said).parse_args(argv)
    except SystemExit as e:  # usage errors (2) and --help (0); argparse already printed
        return int(e.code) if isinstance(e.code, int) else 2
    _use_offscreen_without_display()
    import PySide6.QtWidgets  # noqa: F401  (before torch, see the module docstring)

    _quiet_offscreen_notice()

    from attention import ScenarioError, words

    words.set_language(args.lang)  # the handout's words, whatever the catalogue spoke before
    try:
        return _render(args, said)
    except ScenarioError as e:
        for line in e.lines:
            print(f"{args.file}: {line}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:
        print(words.text("cli.render.error", said, why=e), file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - one clear line instead of a traceback
        print(words.text("cli.render.error", said, why=f"{type(e).__name__}: {e}"), file=sys.stderr)
        return 1


def _render(args, said: str) -> int:
    """Check the file and the folder first (no Qt window, no torch yet), then draw.  `said`: the
    language of the lines on the terminal (the handout's is --lang)."""
    from pathlib import Path

    from attention import words
    from attention.files import scenario_io

    sc = scenario_io.load(args.file)
    if not 1 <= args.batch <= sc.batch:
        print(words.text("cli.render.batch", said, last=sc.batch, got=args.batch), file=sys.stderr)
        return 2
    batch = args.batch - 1  # the code's index of the item the person named
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(words.text("cli.render.mkdir", said, path=out, why=e.strerror or e), file=sys.stderr)
        return 2
    if not os.access(out, os.W_OK):
        print(words.text("cli.render.not_writable", said, path=out), file=sys.stderr)
        return 2
    if (link := _planted_link(out)) is not None:
        print(link.line(said), file=sys.stderr)
        return 2

    from app.startup.application import get_app

    app = get_app()  # noqa: F841 (kept alive while drawing)
    from app.teaching import handout
    from attention import run

    trace = run(sc, device=args.device, dtype=args.dtype)
    if args.blank is not None:
        from app.teaching import worksheet

        blanks = [b for arg in args.blank for b in arg.split(",")]
        try:
            blanks = worksheet.check_blanks(trace, blanks)
            if worksheet.TILES in blanks and (why := worksheet.tiles_refusal(trace, args.lang)) is not None:
                raise ValueError(why)
        except ValueError as e:
            print(f"--blank: {e}", file=sys.stderr)
            return 2
        for page in worksheet.write_chosen(sc, trace, out, blanks, lang=args.lang, batch=batch):
            print(page)
        return 0
    page = handout.write_handout(sc, trace, out, lang=args.lang, batch=batch)
    print(page)
    return 0


def _planted_link(out) -> "Optional[Exception]":
    """The refusal for a symbolic link in `out` at a name this command chooses (a step's NN_step.png, the
    handout's, worksheet's and answer keys' pages), or None: `render` did not make the link and would write
    through it into the file it points to (attention.files.out_guard, issue 31)."""
    from app.teaching import handout, worksheet
    from attention.files import out_guard
    from attention.teaching import tiles_worksheet

    pages = {handout.HTML_NAME, worksheet.WORKSHEET_NAME, worksheet.KEY_NAME, tiles_worksheet.WORKSHEET_NAME,
             tiles_worksheet.KEY_NAME}
    for entry in sorted(out.iterdir()):
        if entry.is_symlink() and (entry.name in pages or handout.is_image_name(entry.name)):
            return out_guard.check(entry, "worksheet")  # a link: refused as every --out refuses one
    return None


if __name__ == "__main__":
    sys.exit(main())
