"""`main.py tiles FILE [--block-q N] [--block-k M] [--batch B] [--head H] [--json]`: FlashAttention's
tiles of a scenario in a terminal (attention/teaching/tiles.py does the arithmetic).

What a person types counts as what the text prints and the window shows: --batch B and --head H, and
--explain's TILE, ROW and COL, count from 1 (`--head 1` is head 1; 0 is refused with a line that says so).
Only the JSON output keeps code's count from 0, as trace files do.

Prints, per tile in FlashAttention-2 order (for each batch item and head: each query block over
every key block), the running row maximum m and row sum l after that tile, then the output
O / l and its largest difference from the trace's weighted_sum (the attention output per head,
the part FlashAttention computes; concat and the output projection come after it), and the
memory figures.  With --json one object (blocks and positions counted from 0, as trace files):

    {"block_q", "block_k", "tiles": [{"batch", "head", "q_block", "k_block", "row_max": [...],
     "row_sum": [...], "query_range": [start, stop], "key_range": [start, stop], "skipped"}, ...],
     "output": [...], "output_step": "weighted_sum", "output_dims": [...], "max_abs_diff": x, ...}

`output` keeps the trace's weighted_sum layout (B, L, H, D) minus the axes --batch and --head fix.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Optional

import numpy as np

import attention.words as words
from attention.datamodel import numbers

#: The sizes the memory figures are also given for (the issue's 4096 and 32768).
LARGE_SIZES = (4096, 32768)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `tiles` subcommand's options (attention/cli/__init__.py calls this)."""
    # the words (the command list's line, the description, each option's help) come from the catalogue:
    # attention.cli.cli_args.localize, keys cli.cmd.tiles[.about] and cli.opt.tiles.<dest> (attention/words/cli.py)
    t = sub.add_parser("tiles", help="")
    t.add_argument("file", metavar="FILE")
    t.add_argument("--block-q", type=int, default=None, metavar="N")
    t.add_argument("--block-k", type=int, default=None, metavar="M")
    t.add_argument("--batch", type=int, default=None, metavar="B")
    t.add_argument("--head", type=int, default=None, metavar="H")
    t.add_argument("--json", action="store_true")
    t.add_argument("--dtype", choices=("float32", "float64"))
    t.add_argument("--lang", choices=("en", "zh"), default=None)
    t.add_argument("--blank", action="store_true")
    t.add_argument("--out", metavar="DIR")
    t.add_argument("--explain", nargs="+", metavar="ARG")


def command(args, lang: str) -> int:
    """Run `tiles`; 0, or 2 with one line on stderr for input it cannot take."""
    from attention.compute.engine import run
    from attention.files import scenario_io
    from attention.teaching.tiles import TilesError, check_block, check_blocks, default_blocks, method, tiled

    if args.blank and args.out:  # the pages' names are this command's own: never through a link, nor over another file
        from pathlib import Path

        from attention.files import out_guard
        from attention.teaching.tiles_worksheet import KEY_NAME, WORKSHEET_NAME

        for name in (WORKSHEET_NAME, KEY_NAME):
            refused = out_guard.check(Path(args.out) / name, "worksheet", [args.file])
            if refused is not None:
                print(refused.line(lang), file=sys.stderr)
                return 2
    sc = scenario_io.load(args.file)
    try:
        method(sc.scoring, (), [p.kind for p in sc.modifiers])  # before running: ProbSparse, sinks say why at once
        br0, bc0 = default_blocks(sc.L, sc.S)
        br = check_block("--block-q", br0 if args.block_q is None else args.block_q)
        bc = check_block("--block-k", bc0 if args.block_k is None else args.block_k)
        check_blocks(sc.L, sc.S, br, bc, ("--block-q", "--block-k"))  # from the sizes, before the trace is run
        batches = _chosen("--batch", "tiles.error.batch", args.batch, sc.batch)
        heads = _chosen("--head", "tiles.error.head", args.head, sc.n_heads)
        if args.blank and not args.out:
            raise TilesError("tiles.error.out_needed")
        trace = run(sc, dtype=args.dtype)
        result = tiled(trace, br, bc)
    except TilesError as e:
        print(f"{args.file}: {e.text(lang)}", file=sys.stderr)
        return 2
    if args.blank:
        return _worksheet(result, trace, args, batches[0], heads[0], lang)
    if args.explain:
        return _explain(result, args, batches[0], heads[0], lang)
    if args.json:
        print(json.dumps(as_json(result, batches, heads, args.batch is not None, args.head is not None),
                         ensure_ascii=False, allow_nan=False))
    else:
        sys.stdout.write("\n".join(as_text(result, batches, heads, lang)) + "\n")
    return 0


def _explain(result, args, b: int, h: int, lang: str) -> int:
    """--explain TILE WHAT ROW [COL]: one running value's update, text or JSON; 0, or 2 with one line."""
    from attention.teaching.tiles import TilesError
    from attention.teaching.tiles_explain import explain_running

    parts = list(args.explain)
    if not 3 <= len(parts) <= 4:
        print(f"{args.file}: {words.text('tiles.error.explain_args', lang, got=' '.join(parts))}", file=sys.stderr)
        return 2
    try:
        order, row = int(parts[0]) - 1, int(parts[2]) - 1  # typed from 1, as the text prints them
        col = int(parts[3]) - 1 if len(parts) == 4 else 0
    except ValueError:
        order = row = col = -1
    if min(order, row, col) < 0:
        print(f"{args.file}: {words.text('tiles.error.explain_args', lang, got=' '.join(parts))}", file=sys.stderr)
        return 2
    try:
        ex = explain_running(result, order, parts[1], b, h, row, col)
    except TilesError as e:
        print(f"{args.file}: --explain: {e.text(lang)}", file=sys.stderr)
        return 2
    print(json.dumps(ex.to_dict(), ensure_ascii=False, allow_nan=False) if args.json else ex.text(lang))
    return 0


def _worksheet(result, trace, args, b: int, h: int, lang: str) -> int:
    """--blank: the worksheet and its answer key into --out; 0, or 2 with one line."""
    from pathlib import Path

    from attention.files import safe_write
    from attention.teaching.tiles_worksheet import write

    try:
        paths = write(result, trace, Path(args.out), b, h, lang)
    except safe_write.WriteProtected as e:
        print(words.text("cli.read_only", lang, path=e.path), file=sys.stderr)
        return 2
    except OSError as e:
        print(words.text("tiles.error.write", lang, path=args.out, why=e.strerror or e), file=sys.stderr)
        return 2
    print(words.text("tiles.cli.written", lang, paths=", ".join(str(p) for p in paths)))
    return 0


def _chosen(flag: str, key: str, value: Optional[int], n: int) -> list[int]:
    """The indices --batch / --head pick: all of them, or the one typed, counted from 1 (1 ... n)."""
    from attention.teaching.tiles import TilesError

    if value is None:
        return list(range(n))
    if not 1 <= value <= n:
        raise TilesError(key, n=n, got=value)
    return [value - 1]


def _cells(result, batches: list[int], heads: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The tiled and exact outputs (b, h, L, D) of the chosen batch items and heads."""
    return (result.output[np.ix_(batches, heads)], result.exact[np.ix_(batches, heads)])


def as_json(result, batches: list[int], heads: list[int], one_batch: bool, one_head: bool) -> dict:
    """The whole walk as plain JSON data (non-finite numbers as "NaN" / "Infinity" / "-Infinity")."""
    from attention.files.trace_json import number, to_nested
    from attention.teaching.tiles import largest_difference, memory

    tiles = []
    for b in batches:
        for h in heads:
            for t in result.tiles:
                tiles.append({"batch": b, "head": h, "q_block": t.q_block, "k_block": t.k_block,
                              "query_range": list(t.rows), "key_range": list(t.cols), "skipped": bool(t.skipped[b, h]),
                              "row_max": to_nested(t.m_new[b, h]), "row_sum": to_nested(t.l_new[b, h])})
    got, exact = _cells(result, batches, heads)
    out = got.transpose(0, 2, 1, 3)  # (b, L, h, D): the weighted_sum's layout
    dims = ["B", "L", "H", "dv"]
    if one_head:
        out, dims = out[:, :, 0], ["B", "L", "dv"]
    if one_batch:
        out, dims = out[0], dims[1:]
    mem = memory(result)
    return {"block_q": result.block_q, "block_k": result.block_k, "tiles": tiles, "output": to_nested(out),
            "output_step": "weighted_sum", "output_dims": dims,
            "max_abs_diff": number(largest_difference(got, exact)), "dtype": result.dtype,
            "memory": {"exact_bytes": mem.exact_bytes, "tiled_bytes": mem.tiled_bytes,
                       **{f"exact_bytes_{n}": memory(result, n, n).exact_bytes for n in LARGE_SIZES},
                       **{f"tiled_bytes_{n}": memory(result, n, n).tiled_bytes for n in LARGE_SIZES}}}


def as_text(result, batches: list[int], heads: list[int], lang: str) -> list[str]:
    """What a person reads in a terminal: the walk, the output, the proof and the memory."""
    from attention.teaching.tiles import largest_difference

    t = lambda key, **a: words.text(key, lang, **a)  # noqa: E731
    lines = [t("tiles.header", br=result.block_q, bc=result.block_k, nq=result.n_q, nk=result.n_k)]
    total = len(result.tiles)
    for b in batches:
        for h in heads:
            for tile in result.tiles:
                lines.append(t("tiles.tile", b=b + 1, h=h + 1, n=tile.order + 1, total=total, i=tile.q_block + 1,
                               j=tile.k_block + 1, rows=numbers.span(*tile.rows), cols=numbers.span(*tile.cols)))
                if tile.skipped[b, h]:
                    lines.append("  " + t("tiles.skipped"))
                lines.append(f"  {t('tiles.row_max')}: {numbers.row(tile.m_new[b, h])}")
                lines.append(f"  {t('tiles.row_sum')}: {numbers.row(tile.l_new[b, h])}")
    for b in batches:
        for h in heads:
            lines.append(t("tiles.output", b=b + 1, h=h + 1))
            lines += [f"  {numbers.row(row)}" for row in result.output[b, h]]
    got, exact = _cells(result, batches, heads)
    lines.append(t("tiles.diff", diff=numbers.exact(largest_difference(got, exact)), dtype=result.dtype))
    return lines + memory_lines(result, lang)


def memory_lines(result, lang: str) -> list[str]:
    """The memory figures for this scenario and for L = S = 4096, 32768 (the window's proof too)."""
    from attention.teaching.tiles import human_bytes, memory

    mem = memory(result)
    br, bc = min(result.block_q, mem.L), min(result.block_k, mem.S)
    lines = [words.text("tiles.memory", lang, dtype=result.dtype, itemsize=mem.itemsize, L=mem.L, S=mem.S,
                        exact=human_bytes(mem.exact_bytes), br=br, bc=bc, dv=mem.d_v,
                        tiled=human_bytes(mem.tiled_bytes))]
    for n in LARGE_SIZES:
        big = memory(result, n, n)
        lines.append(words.text("tiles.memory_at", lang, n=n, exact=human_bytes(big.exact_bytes),
                                tiled=human_bytes(big.tiled_bytes), ratio=f"{big.exact_bytes / big.tiled_bytes:,.0f}"))
    return lines
