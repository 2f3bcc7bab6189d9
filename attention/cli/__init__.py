"""Headless commands (no Qt): `validate FILE`, `trace FILE`, `presets`, `explain FILE STEP INDEX...`, `script FILE`,
`layers WEIGHTS` and `import WEIGHTS --out FILE` (a trained layer from a weights file; attention/models),
`tiles FILE` (FlashAttention's tiles and online softmax; attention/cli/tiles_cli.py), `run MODEL TEXT`
(attention/cli/run_cli.py) and `heads MODEL TEXT` (knock heads out of a real model; attention/cli/heads_cli.py).

Exit codes: 0 success; 2 bad input (a usage error, a scenario that does not load or run, CUDA
asked for where there is none), with one line per problem on stderr (at most
attention.datamodel.problem.MAX_LINES; the last then says how many more) and never a traceback; 1 an
unexpected failure inside the engine, also reported in one line.  The input file is read only if
it is a regular file of at most scenario_io.MAX_FILE_BYTES (a FIFO or /dev/zero is refused).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Callable, Iterable, Optional

import attention.words as words
from attention.cli import cli_args, heads_cli, run_cli, tiles_cli
from attention.datamodel.problem import elide
from attention.datamodel.scenario import DEVICES, DTYPES, Scenario, ScenarioError
from attention.kinds.dot_product import SCALED_DOT
from attention.kinds.prob_sparse import PROB_SPARSE
from attention.words.cli import THREAD_COMMANDS

#: `validate` quotes at most this much of a title (a 100 MB title is a file's business, not the terminal's).
TITLE_CHARS = 80

def _parser(lang: str = "en") -> argparse.ArgumentParser:
    """The commands and their options; every help text comes from the catalogue in `lang`
    (attention/words/cli.py, keys cli.cmd.<command>[.about] and cli.opt.<command>.<dest>)."""
    p = cli_args.Parser()
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    # help="" lists a command in the top-level help; cli_args.localize writes its words
    sub.add_parser("validate", help="").add_argument("file", metavar="FILE")
    t = sub.add_parser("trace", help="")
    t.add_argument("file", metavar="FILE")
    t.add_argument("--device", choices=DEVICES)
    t.add_argument("--dtype", choices=DTYPES)
    t.add_argument("--indent", type=int, default=None, metavar="N")
    t.add_argument("--steps", metavar="ID,ID")
    t.add_argument("--out", metavar="FILE")
    t.add_argument("--max-json", metavar="SIZE", default=None)
    sub.add_parser("presets", help="")
    e = sub.add_parser("explain", help="")
    e.add_argument("file", metavar="FILE")
    e.add_argument("step", metavar="STEP")
    e.add_argument("index", metavar="INDEX", nargs="+")
    e.add_argument("--lang", choices=("en", "zh"), default="en")
    e.add_argument("--json", action="store_true")
    e.add_argument("--dtype", choices=DTYPES)
    s = sub.add_parser("script", help="")
    s.add_argument("file", metavar="FILE")
    s.add_argument("--out", metavar="PATH")
    ly = sub.add_parser("layers", help="")
    ly.add_argument("file", metavar="WEIGHTS")
    ly.add_argument("--lang", choices=("en", "zh"), default="en")
    im = sub.add_parser("import", help="")
    im.add_argument("file", metavar="WEIGHTS")
    im.add_argument("--layer", metavar="NAME")
    im.add_argument("--heads", type=int, metavar="H")
    im.add_argument("--inputs", metavar="SCENARIO")
    im.add_argument("--tokens", type=int, default=6, metavar="N")
    im.add_argument("--seed", type=int, default=0)
    im.add_argument("--out", metavar="SCENARIO", required=True)
    im.add_argument("--lang", choices=("en", "zh"), default="en")
    im.add_argument("--scoring", choices=(SCALED_DOT.name, PROB_SPARSE.name))  # TSL: FullAttention, ProbAttention
    im.add_argument("--factor", type=int, metavar="F")
    im.add_argument("--mix", action=argparse.BooleanOptionalAction, default=None)
    im.add_argument("--tau", metavar="T")  # DSAttention (Non-stationary Transformer): τ, Δ the file cannot hold
    im.add_argument("--delta", metavar="D")
    im.add_argument("--start", metavar="DATE")  # tokens that are time: the first step's date
    im.add_argument("--freq", metavar="F")  # and TSL's --freq spelling
    tiles_cli.add_parser(sub)
    run_cli.add_parser(sub)
    heads_cli.add_parser(sub)
    for name in THREAD_COMMANDS:  # attention/compute/threads.py: the policy it overrides
        sub.choices[name].add_argument("--threads", type=cli_args.count, metavar="N")
    cli_args.localize(p, lang)
    return p


def main(argv: Optional[list[str]] = None, presets: Callable[[], Iterable[tuple[Path, dict]]] = tuple) -> int:
    """Run one headless command.  `presets`: the bundled presets, (path, title) each, for `presets`
    (main.py passes resources.list_presets: the engine does not read resources/ itself)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    _tolerant_output()
    try:
        args = _parser(terminal_language()).parse_args(argv)
    except SystemExit as e:  # usage errors (2) and --help (0); argparse already printed
        return int(e.code) if isinstance(e.code, int) else 2
    if getattr(args, "threads", None):
        from attention.compute import threads

        threads.set_override(args.threads)
    # the catalogue's words (problems, titles, formulas ...) in the language asked for, else the terminal's
    words.set_language(getattr(args, "lang", None) or terminal_language())
    try:
        with _named_warnings():
            if args.command == "presets":
                return _presets(presets())
            return {"validate": _validate, "trace": _trace,
                    "explain": _explain, "script": _script, "layers": _layers, "import": _import,
                    "tiles": _tiles, "run": _run, "heads": _heads}[args.command](args)
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


@contextlib.contextmanager
def _named_warnings():
    """A warning numpy or torch raises while a command runs is one line, "warning: RuntimeWarning: divide
    by zero encountered in divide", said once: never Python's default of a file, a line number and the
    source line (bounds and refusals keep the known cases from getting here at all)."""
    said: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        text = f"{category.__name__}: {(str(message).strip().splitlines() or [''])[0]}"
        if text not in said:
            said.add(text)
            print(words.text("cli.warning", what=elide(text, 200)), file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


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
    return (f"ok: {json.dumps(title, ensure_ascii=False)} B={sc.batch} L={sc.L} S={sc.S} d_model={sc.d_model} "
            f"H={sc.n_heads} "
            f"scoring={sc.scoring} mask={' + '.join(mask) if mask else 'none'}")


def _validate(args) -> int:
    """Load and check, and refuse what `trace` would refuse about this machine (CUDA asked for where
    there is none), so `validate` never says ok to a file that `trace` then refuses."""
    from attention.compute.engine import resolve_device
    from attention.files import scenario_io

    sc = scenario_io.load(args.file)
    resolve_device(sc.device)  # ScenarioError "no_cuda", one line, as trace says it
    print(summary(sc))
    return 0


def _trace(args) -> int:
    import attention.words as words
    from attention.compute.engine import run
    from attention.datamodel import limits
    from attention.files import out_guard, scenario_io, trace_json, trace_out

    lang = terminal_language()
    out = Path(args.out) if args.out else None
    if out is not None and out.suffix.lower() not in (".npz", ".json"):
        print(words.text("cli.out_suffix", lang, path=args.out), file=sys.stderr)
        return 2
    bad = None if args.indent is None else limits.outside(args.indent, 0, trace_out.MAX_INDENT)
    if bad is not None:
        print(words.text("cli.range", lang, flag="--indent", expected=bad.text(lang), got=limits.shown(args.indent)),
              file=sys.stderr)
        return 2
    limit = trace_out.DEFAULT_MAX_JSON if args.max_json is None else trace_out.parse_size(args.max_json)
    if limit is None:
        print(words.text("cli.size_number", lang, text=elide(args.max_json, 40)), file=sys.stderr)
        return 2
    if limit > trace_out.MAX_JSON:
        print(words.text("cli.size_range", lang, limit="2^50 bytes (1 PiB)", text=elide(args.max_json, 40)),
              file=sys.stderr)
        return 2
    refused = None if out is None else out_guard.check(out, "trace", [args.file])
    if refused is not None:  # said before anything is read or computed
        print(refused.line(lang), file=sys.stderr)
        return 2
    sc = scenario_io.load(args.file)
    steps = [s.strip() for s in args.steps.split(",") if s.strip()] if args.steps else None
    example = steps or ["attention_weights", "output"]
    if out is None or out.suffix.lower() == ".json":  # refused from the shapes, before computing anything
        least = trace_out.least_numbers(sc, steps)
        chars = least * trace_out.least_chars(args.indent)
        if limit and chars > limit:
            print(_too_big("cli.trace_too_big_least", args.file, chars, least, limit, example, lang), file=sys.stderr)
            return 2
        if _no_memory_for(args.file, chars, least, example, lang):
            return 2
    trace = run(sc, device=args.device, dtype=args.dtype)
    if steps is not None:
        bad = trace_out.unknown_steps(trace, steps)
        if bad:
            print(words.text("cli.trace_steps_unknown", lang, step=bad[0], steps=",".join(trace.ids)), file=sys.stderr)
            return 2
    if out is not None and out.suffix.lower() == ".npz":
        return _write_out(out, lambda f: trace_out.write_npz(trace, sc, f, steps), lang)
    size = trace_out.estimate_json_bytes(trace, steps, args.indent)
    example = [s for s in ("attention_weights", "output") if s in trace] or [trace.ids[-1]]
    if limit and size > limit:
        numbers = trace_out.count_numbers(trace, steps)
        print(_too_big("cli.trace_too_big", args.file, size, numbers, limit, example, lang), file=sys.stderr)
        return 2
    if _no_memory_for(args.file, size, trace_out.count_numbers(trace, steps), example, lang):
        return 2
    text = trace_json.dumps(trace, sc, indent=args.indent, steps=steps)
    if out is not None:
        return _write_out(out, [text, "\n"], lang)
    sys.stdout.write(text)
    sys.stdout.write("\n")
    sys.stdout.flush()
    return 0


def _too_big(key: str, file: str, size: int, numbers: int, limit: int, example: list[str], lang: str) -> str:
    """The line refusing JSON text of `size` bytes (`numbers` numbers) above `limit`."""
    from attention.files import trace_out

    return words.text(key, lang, file=file, size=trace_out.human(size), numbers=f"{numbers:,}",
                      limit=trace_out.human(limit), npz=trace_out.human(numbers * 8), example=",".join(example),
                      suggest=f"{-(-size // 2**30) + 1}GB" if size >= 2**30 else f"{-(-size // 2**20) + 1}MB")


def _no_memory_for(file: str, size: int, numbers: int, example: list[str], lang: str) -> bool:
    """True (and the line said) when building `size` bytes of JSON text would not fit in the memory this
    machine can give now: even with --max-json 0, the estimate is checked before the text is built."""
    from attention.compute import memory
    from attention.files import trace_out

    need, free = size * trace_out.BUILD_FACTOR, memory.available_bytes()
    if need <= free:
        return False
    print(words.text("cli.trace_too_big_memory", lang, file=file, size=trace_out.human(size),
                     need=trace_out.human(need), free=trace_out.human(free), npz=trace_out.human(numbers * 8),
                     example=",".join(example)), file=sys.stderr)
    return True


def terminal_language() -> str:
    """"zh" when the terminal's locale is Chinese (LC_ALL, LC_MESSAGES, LANG), else "en"."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def _write_out(path: Path, chunks, lang: str) -> int:
    """Write an output file atomically (attention.files.safe_write); a write-protected file is
    refused, never silently replaced.  0, or 2 with one line."""
    import attention.words as words
    from attention.files import safe_write

    try:
        safe_write.write_atomic(path, chunks, follow_links=False)  # the guard refused a link; none made since counts
    except safe_write.WriteProtected:
        print(words.text("cli.read_only", lang, path=path), file=sys.stderr)
        return 2
    except safe_write.NotRegularFile as e:
        print(words.text("cli.not_regular", lang, path=path, kind=words.text(f"cli.kind.{e.kind}", lang)),
              file=sys.stderr)
        return 2
    except OSError as e:
        print(words.text("cli.write_failed", lang, path=path, why=e.strerror or e), file=sys.stderr)
        return 2
    return 0


def _presets(presets: Iterable[tuple[Path, dict]]) -> int:
    for path, title in presets:
        print(f"{path.name}\t{title['en']}\t{title['zh']}")
    return 0


def _explain(args) -> int:
    from attention.compute.engine import run
    from attention.files import scenario_io
    from attention.teaching.explain import ExplainError, explain

    sc = scenario_io.load(args.file)
    try:
        index = [int(i) for i in args.index]
    except ValueError:
        print(words.text("cli.explain_index", terminal_language(), file=args.file, got=" ".join(args.index)),
              file=sys.stderr)
        return 2
    try:
        ex = explain(run(sc, dtype=args.dtype), args.step, index)
    except ExplainError as e:
        print(f"{args.file}: {e}", file=sys.stderr)
        return 2
    print(json.dumps(ex.to_dict(), ensure_ascii=False, allow_nan=False) if args.json else ex.text(args.lang))
    return 0


def _run(args) -> int:
    return run_cli.command(args, args.lang or terminal_language())


def _heads(args) -> int:
    return heads_cli.command(args, args.lang or terminal_language())


def _tiles(args) -> int:
    return tiles_cli.command(args, args.lang or terminal_language())


def _script(args) -> int:
    from attention.files import out_guard, scenario_io
    from attention.teaching.script_export import python_script

    refused = None if not args.out else out_guard.check(args.out, "script", [args.file])
    if refused is not None:
        print(refused.line(terminal_language()), file=sys.stderr)
        return 2
    text = python_script(scenario_io.load(args.file))
    if args.out:
        return _write_out(Path(args.out), [text], terminal_language())
    else:
        sys.stdout.write(text)
    return 0


def _layers(args) -> int:
    import attention.words as words
    from attention.models.checkpoint import CheckpointError
    from attention.models.importing import list_header, nothing_found, open_layers

    words.set_language(args.lang)
    try:
        source, layers = open_layers(args.file, notice=_notice)
        if not layers:
            raise nothing_found(source)
    except CheckpointError as e:
        print(e.line(), file=sys.stderr)
        return 2
    print(list_header(source, len(layers)))
    for f in layers:
        print("\t".join([f.name, words.text(f"models.family.{f.family}"), f.shape_text(), _layer_facts(f)]))
    return 0


def _layer_facts(f) -> str:
    import attention.words as words
    from attention.models.importing import kind_facts

    if not f.supported:
        return words.text("models.list.unsupported", reason=f.reason())
    facts = [words.text("models.list.heads", heads=f.n_heads) if f.n_heads else
             words.text("models.list.heads_unknown", choices=", ".join(str(h) for h in f.head_choices()))]
    if f.causal:
        facts.append(words.text("models.list.causal"))
    if f.cross:
        facts.append(words.text("models.list.cross"))
    return ", ".join(facts + kind_facts(f))


def _import(args) -> int:
    import attention.words as words
    from attention.files import out_guard, safe_write, scenario_io
    from attention.models.checkpoint import CheckpointError
    from attention.models.importing import asks_inner, choose, import_layer, inner_short, inputs_from, open_layers
    from attention.models.tsl_models import destationary_problem

    words.set_language(args.lang)
    if args.tokens < 1:
        print(words.text("models.error.tokens", got=args.tokens), file=sys.stderr)
        return 2
    if not 0 <= args.seed < 2 ** 64:  # torch.Generator.manual_seed's range
        print(words.text("models.error.seed", got=elide(str(args.seed), 40)), file=sys.stderr)
        return 2
    kind = safe_write.target_kind(args.out)
    if kind is not None:  # write_atomic refuses it too; said here before any weights are read
        print(words.text("cli.not_regular", path=args.out, kind=words.text(f"cli.kind.{kind}")), file=sys.stderr)
        return 2
    refused = out_guard.check(args.out, "scenario", [args.file, args.inputs])
    if refused is not None:  # an input, a file of another kind, a link: said before any weights are read
        print(refused.line(), file=sys.stderr)
        return 2
    inner, bad = _inner(args)
    bad = bad or _time_axis_problem(args)
    if bad:
        print(bad, file=sys.stderr)
        return 2
    try:
        source, layers = open_layers(args.file, notice=_notice)
        found = choose(source, layers, args.layer)
        destationary, bad_tau = destationary_problem(found, args.tau, args.delta)
        if bad_tau is not None:
            raise bad_tau
        inputs = None
        if args.inputs:
            try:
                given = scenario_io.load(args.inputs, check=False)
            except ScenarioError as e:
                for line in e.lines:
                    print(f"{args.inputs}: {line}", file=sys.stderr)
                return 2
            inputs = inputs_from(found, given, args.inputs)
        sc = import_layer(source, found, heads=args.heads, inputs=inputs, tokens=args.tokens, seed=args.seed,
                          inputs_name=args.inputs, inner=inner, destationary=destationary)
    except CheckpointError as e:
        print(e.line(), file=sys.stderr)
        return 2
    if args.start is not None:
        from attention.datamodel.time_labels import dated

        sc = dated(sc, args.start, args.freq)
    bad = scenario_io.first_refusal(sc)
    if bad is not None:  # what the loader would refuse is never written (a bound the import missed)
        print(words.text("models.error.invalid_scenario", layer=found.name, problem=bad), file=sys.stderr)
        return 2
    try:
        scenario_io.save(sc, args.out, follow_links=False)
    except (OSError, ScenarioError) as e:
        detail = "; ".join(e.lines) if isinstance(e, ScenarioError) else (e.strerror or str(e))
        print(words.text("models.error.write", path=args.out, detail=detail), file=sys.stderr)
        return 2
    print(words.text("models.imported", out=args.out, layer=found.name, file=source.path.name, heads=sc.n_heads,
                     shape="×".join(str(n) for n in sc.queries.shape)))
    if asks_inner(found) and inner is not None:
        print(words.text("inner.imported", inner=inner_short(inner)))
    elif asks_inner(found):  # the file cannot say FullAttention from ProbAttention: say what was assumed
        print(words.text("inner.hint", name=found.name), file=sys.stderr)
    return 0


def _time_axis_problem(args) -> str:
    """'' or the one line refusing --start / --freq (both or neither, each as
    attention.datamodel.time_labels reads it)."""
    import attention.words as words
    from attention.datamodel import time_labels

    if (args.start is None) != (args.freq is None):
        return words.text("models.error.time_axis_pair")
    for name, value, check in (("start", args.start, time_labels.parse_start),
                               ("freq", args.freq, time_labels.parse_freq)):
        try:
            if value is not None:
                check(value)
        except ValueError:
            return words.text(f"models.error.{name}", got=elide(repr(value), 40))
    return ""


def _inner(args):
    """(Inner or None, '' or the one line refusing) from --scoring/--factor/--mix: a state dict cannot say
    whether a Time-Series-Library layer ran FullAttention or ProbAttention, nor ProbAttention's factor."""
    import attention.words as words
    from attention.models.importing import Inner

    asked = Inner(args.scoring) if args.scoring else None
    if asked is None or not asked.sparse:
        if args.factor is not None:
            return None, words.text("inner.error.factor_alone")
        if args.mix is not None:
            return None, words.text("inner.error.mix_alone")
        return asked, ""
    if args.factor is None:
        return None, words.text("inner.error.factor_needed")
    return Inner(asked.scoring, args.factor, True if args.mix is None else args.mix), ""


def _notice(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
