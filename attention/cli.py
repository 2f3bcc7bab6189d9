"""Headless commands (no Qt): `validate FILE`, `trace FILE`, `presets`, `explain FILE STEP INDEX...`, `script FILE`.

Exit codes: 0 success; 2 bad input (a usage error, a scenario that does not load or run, CUDA
asked for where there is none), with one line per problem on stderr (at most
attention.problem.MAX_LINES; the last then says how many more) and never a traceback; 1 an
unexpected failure inside the engine, also reported in one line.  The input file is read only if
it is a regular file of at most scenario_io.MAX_FILE_BYTES (a FIFO or /dev/zero is refused).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Optional

from attention import words
from attention.problem import elide
from attention.scenario import DEVICES, DTYPES, Scenario, ScenarioError

#: `validate` quotes at most this much of a title (a 100 MB title is a file's business, not the terminal's).
TITLE_CHARS = 80

DESCRIPTION = (
    "Attention Explorer: edit every number of a multi-head attention layer and watch each step. "
    "Without a command, `python main.py [FILE]` opens the window."
)
EPILOG = (
    "render: `python main.py render FILE --out DIR [--lang en|zh]` writes a PNG of every step and a "
    "self-contained handout.html (it draws with the window's panes, so it lives in app/startup/render_cli.py; "
    "`python main.py render --help` for its options)."
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=DESCRIPTION, epilog=EPILOG)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    v = sub.add_parser("validate", help="check a scenario file; print a one-line summary",
                       description="Check a scenario file. Exit 0 with a summary, or 2 with one line per problem.")
    v.add_argument("file", metavar="FILE")
    t = sub.add_parser("trace", help="run a scenario; print every step as one JSON object",
                       description="Run a scenario and print its trace as JSON (see docs/trace-format.md).")
    t.add_argument("file", metavar="FILE")
    t.add_argument("--device", choices=DEVICES, help="override the scenario's device")
    t.add_argument("--dtype", choices=DTYPES, help="override the scenario's dtype")
    t.add_argument("--indent", type=int, default=None, metavar="N", help="pretty-print with N spaces")
    sub.add_parser("presets", help="list the bundled preset scenarios",
                   description="List the bundled preset scenarios: file name, English title, Chinese title.")
    e = sub.add_parser("explain", help="show how one cell of one step was computed, term by term",
                       description="Run a scenario and explain one cell: STEP is a step id (e.g. scores), INDEX its "
                                   "index, one whole number per dim (e.g. 0 1 2 3 for batch, head, query, key).")
    e.add_argument("file", metavar="FILE")
    e.add_argument("step", metavar="STEP")
    e.add_argument("index", metavar="INDEX", nargs="+")
    e.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the text (default en)")
    e.add_argument("--json", action="store_true", help="print the explanation as one JSON object (docs/explain.md)")
    e.add_argument("--dtype", choices=DTYPES, help="override the scenario's dtype")
    s = sub.add_parser("script", help="export a scenario as a standalone plain-torch Python script",
                       description="Write a standalone .py (imports only torch) that rebuilds the scenario and prints every step.")
    s.add_argument("file", metavar="FILE")
    s.add_argument("--out", metavar="PATH", help="write the script here (default: stdout)")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    _tolerant_output()
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # usage errors (2) and --help (0); argparse already printed
        return int(e.code) if isinstance(e.code, int) else 2
    if getattr(args, "lang", None):
        words.set_language(args.lang)  # the catalogue's words (titles, formulas, ...) in the language asked for
    try:
        return {"validate": _validate, "trace": _trace, "presets": _presets,
                "explain": _explain, "script": _script}[args.command](args)
    except ScenarioError as e:
        where = getattr(args, "file", None)
        for line in e.lines:
            print(f"{where}: {line}" if where else line, file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `... trace FILE | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as e:  # noqa: BLE001 - one clear line instead of a traceback
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


def _tolerant_output() -> None:
    """Chinese titles on a console that cannot show them get escapes, not a crash."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass


def summary(sc: Scenario) -> str:
    """One line: title, sizes, scoring and mask."""
    title = elide(sc.title.get("en") or sc.title.get("zh") or "(untitled)", TITLE_CHARS)
    mask = []
    if sc.causal:
        mask.append("causal")
    if sc.valid_lens is not None:
        mask.append(f"valid_lens {sc.valid_lens.astype(int).tolist()}")
    return (f"ok: {json.dumps(title, ensure_ascii=False)} B={sc.batch} L={sc.L} S={sc.S} d_model={sc.d_model} H={sc.n_heads} "
            f"scoring={sc.scoring} mask={' + '.join(mask) if mask else 'none'}")


def _validate(args) -> int:
    from attention import scenario_io

    print(summary(scenario_io.load(args.file)))
    return 0


def _trace(args) -> int:
    from attention import run, scenario_io, trace_json

    sc = scenario_io.load(args.file)
    trace = run(sc, device=args.device, dtype=args.dtype)
    sys.stdout.write(trace_json.dumps(trace, sc, indent=args.indent))
    sys.stdout.write("\n")
    sys.stdout.flush()
    return 0


def _presets(args) -> int:
    from resources import list_presets

    for path, title in list_presets():
        print(f"{path.name}\t{title['en']}\t{title['zh']}")
    return 0


def _explain(args) -> int:
    from attention import run, scenario_io
    from attention.explain import ExplainError, explain

    sc = scenario_io.load(args.file)
    try:
        index = [int(i) for i in args.index]
    except ValueError:
        print(f"{args.file}: index: expected whole numbers, got {' '.join(args.index)}", file=sys.stderr)
        return 2
    try:
        ex = explain(run(sc, dtype=args.dtype), args.step, index)
    except ExplainError as e:
        print(f"{args.file}: {e}", file=sys.stderr)
        return 2
    print(json.dumps(ex.to_dict(), ensure_ascii=False, allow_nan=False) if args.json else ex.text(args.lang))
    return 0


def _script(args) -> int:
    from attention import scenario_io
    from attention.script_export import python_script

    text = python_script(scenario_io.load(args.file))
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            print(f"--out: cannot write {args.out}: {e.strerror or e}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(text)
    return 0
