"""`main.py heads MODEL TEXT [--knock L.H ...] [--mean] [--patch-from TEXT2] [--map --out FILE.csv] [--json]`.

Knock heads out of a real model (attention.models.head_edits) and print the next-token top 10 before and after;
`--json` prints one JSON object instead, {"before": [...], "after": [...]}, each a list of 10
{"id": int, "token": str, "p": float}, most likely first.  `--map --out FILE.csv` writes the head-importance map
(attention.models.head_map): `layer,head,delta_logprob`, one row per head, layers and heads from 1, the value
log p after − log p before of the top token before with that head alone zeroed.  MODEL is what `main.py run`
takes.  An encoder (minilm) has no next token: it prints how its output states change, and refuses --json and
--map.  Every bad argument is one line on stderr naming it, exit code 2, before the model loads where it can be.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Optional

import attention.words as words
from attention.datamodel import numbers
from attention.files import out_guard

TOP = 10
CSV_HEADER = out_guard.HEAD_MAP_MARK
#: heads listed in the text of a patch over every head (the largest changes first)
PATCH_SHOWN = 10


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `heads` subcommand's options (attention/cli.py calls this; the words: cli.cmd.heads, cli.opt.heads.*)."""
    h = sub.add_parser("heads", help="")
    h.add_argument("model", metavar="MODEL")
    h.add_argument("text", metavar="TEXT")
    h.add_argument("--knock", metavar="L.H", nargs="+", action="extend", default=[])
    h.add_argument("--mean", action="store_true")
    h.add_argument("--patch-from", dest="patch_from", metavar="TEXT2")
    h.add_argument("--map", action="store_true")
    h.add_argument("--out", metavar="FILE.csv")
    h.add_argument("--json", action="store_true")
    h.add_argument("--lang", choices=("en", "zh"), default=None)


class Refused(Exception):
    """One line for stderr (exit 2)."""


def _early(args, lang: str) -> None:
    """What is wrong with the arguments themselves, said before a model loads (SmolLM2: seconds)."""
    from attention.models.errors import ModelError

    if args.map and not args.out:
        raise Refused(words.text("heads_cli_map_no_out", lang))
    if args.out and not args.map:
        raise Refused(words.text("heads_cli_out_no_map", lang))
    if args.mean and not args.knock:
        raise Refused(words.text("heads_cli_mean_alone", lang))
    if args.mean and args.patch_from is not None:
        raise Refused(words.text("heads_cli_mean_patch", lang))
    for got in args.knock:
        try:
            _head(got)  # the form and "from 1"; the model's sizes come after it loads
        except ModelError as e:
            raise Refused(words.text("heads_cli_knock", lang, got=got, why=e.text(lang))) from None
    from attention.cli.run_cli import _not_utf8

    for flag, text in (("TEXT", args.text), ("--patch-from", args.patch_from)):
        bad = _not_utf8(text)
        if bad is not None:  # the terminal's bytes that are no UTF-8 (surrogate escapes)
            raise Refused(words.text("run_text_bytes", lang, flag=flag, byte=bad[1], at=bad[0]))
    if args.out:
        from attention.files import safe_write

        refused = out_guard.check(args.out, "head_map", [args.model])  # a link, an input, another kind of file
        if refused is not None:
            raise Refused(refused.line(lang))
        kind = safe_write.target_kind(Path(args.out))
        if kind is not None:
            raise Refused(words.text("heads_cli_out_bad", lang, out=args.out, why=kind))
    if args.model.lower() == "minilm":
        _encoder_refusals(args, "minilm", lang)


def _encoder_refusals(args, name: str, lang: str) -> None:
    for on, option in ((args.json, "--json"), (args.map, "--map")):
        if on:
            raise Refused(words.text("heads_cli_encoder", lang, option=option, model=name))


def _head(got: str, n_layers: Optional[int] = None, n_heads: Optional[int] = None) -> tuple[int, int]:
    from attention.models.head_edits import parse_head

    return parse_head(got, n_layers, n_heads)


def _edits(args, model: Any, lang: str) -> tuple:
    """The --knock heads as HeadEdits (zero, mean or patch), in range of the loaded model."""
    from attention.models.errors import ModelError
    from attention.models.head_edits import HeadEdit, sizes

    n_layers, n_heads = sizes(model)
    how = "mean" if args.mean else "patch" if args.patch_from is not None else "zero"
    out = []
    for got in args.knock:
        try:
            layer, head = _head(got, n_layers, n_heads)
        except ModelError as e:
            raise Refused(words.text("heads_cli_knock", lang, got=got, why=e.text(lang))) from None
        out.append(HeadEdit(layer, head, how))
    return tuple(out)


def _tokens(model: Any, top) -> list[dict]:
    """The JSON rows: each token as the tokenizer spells it (a newline is "\\n"), not the window's ↵ label."""
    texts = model.token_texts([int(i) for i, _, _ in top])
    return [{"id": int(i), "token": str(text), "p": float(p)} for (i, _, p), text in zip(top, texts)]


def _listing(top) -> list[str]:
    return [f"{rank:>2}. {label!r}  {numbers.rounded(p)}  (id {i})" for rank, (i, label, p) in enumerate(top, 1)]


def _signed(v: float) -> str:
    return ("+" if v > 0 else "") + numbers.rounded(v)


def _decoder(args, model: Any, lang: str) -> int:
    from attention.models import head_edits, head_map
    from attention.models.errors import ModelError

    edits = _edits(args, model, lang)
    ids = model.encode(args.text)
    if not ids:
        raise ModelError("model_no_tokens")
    patch_ids = None
    if args.patch_from is not None:
        patch_ids = model.encode(args.patch_from)
        if len(patch_ids) != len(ids):
            raise Refused(words.text("heads_cli_patch", lang, why=words.text("heads_patch_length", lang, n=len(ids),
                                                                              m=len(patch_ids))))
    engine = head_edits.engine_draws(model)
    dtype = head_edits.precision(engine)
    o = head_edits.knock(model, ids, edits, engine=engine, dtype=dtype, patch_ids=patch_ids, n=TOP)
    sweep = None
    if patch_ids is not None and not edits:  # every head patched alone: the change of the logit difference
        sweep = head_map.sweep(model, ids, "patch", engine=engine, dtype=dtype, patch_ids=patch_ids, clean=o.before)
    if args.map:
        imp = head_map.sweep(model, ids, "knock", engine=engine, dtype=dtype, clean=o.before)
        _write_map(args.out, imp, lang)
    if args.json:
        print(json.dumps({"before": _tokens(model, o.top_before), "after": _tokens(model, o.top_after)},
                         ensure_ascii=False))
        return 0
    print(words.text("heads_cli_before", lang, n=TOP))
    print("\n".join(_listing(o.top_before)))
    if edits:
        print(words.text("heads_cli_after", lang, n=TOP, edits=", ".join(e.label(lang) for e in edits)))
        print("\n".join(_listing(o.top_after)))
        print(words.text("heads_cli_chosen", lang, token=o.chosen[1], pb=numbers.rounded(o.p_before),
                         pa=numbers.rounded(o.p_after), dp=_signed(o.dp), lb=numbers.rounded(o.logp_before),
                         la=numbers.rounded(o.logp_after), dlp=_signed(o.dlogp)))
    else:
        print(words.text("heads_cli_unchanged", lang))
    if o.answers is not None:
        (_, a), (_, b) = o.answers
        print(words.text("heads_cli_ld", lang, a=a, b=b, before=numbers.rounded(o.ld_before),
                         after=numbers.rounded(o.ld_after), d=_signed(o.ld_after - o.ld_before)))
    if sweep is not None:
        (_, a), (_, b) = sweep.answers
        print(words.text("heads_cli_patch_all", lang, a=a, b=b))
        rows = sorted(sweep.rows(), key=lambda r: -abs(r[2]))
        for layer, head, v in rows[:PATCH_SHOWN]:
            print(f"  L{layer}.H{head}  {_signed(v)}")
    if args.map:
        print(words.text("heads_cli_wrote", lang, n=len(imp.rows()), token=imp.chosen[1], out=args.out))
    return 0


def _write_map(out: str, imp, lang: str) -> None:
    from attention.files import safe_write

    lines = [CSV_HEADER] + [f"{layer},{head},{v!r}" for layer, head, v in imp.rows()]
    try:
        safe_write.write_atomic(out, "\n".join(lines) + "\n", follow_links=False)
    except OSError as e:
        raise Refused(words.text("heads_cli_out_bad", lang, out=out, why=e.strerror or type(e).__name__)) from None


def _encoder(args, model: Any, tokenizer: Any, lang: str) -> int:
    from attention.models import head_edits
    from attention.models.sentences import run_sentences

    edits = _edits(args, model, lang)
    run = run_sentences(model, tokenizer, (args.text,))
    source = None
    if args.patch_from is not None:
        source = run_sentences(model, tokenizer, (args.patch_from,)).batch
        if source.ids.shape != run.batch.ids.shape:
            raise Refused(words.text("heads_cli_patch", lang, why=words.text(
                "heads_patch_length", lang, n=run.batch.L, m=source.L)))
    if not edits:
        print(words.text("heads_cli_unchanged", lang))
        return 0
    ch = head_edits.knock_sentences(model, run.batch, edits, source, before=run.forward)
    toks = run.batch.tokens[0]
    worst = int(ch.relative[0, :len(toks)].argmax())
    print(words.text("heads_cli_states", lang, edits=", ".join(e.label(lang) for e in edits),
                     cos=numbers.rounded(float(ch.cosine[0])), token=toks[worst],
                     rel=numbers.rounded(float(ch.relative[0, worst]))))
    return 0


def command(args, lang: str) -> int:
    """Run `heads`; 0, or 2 with one line on stderr."""
    import attention.cli.run_cli as run_cli
    from attention.models.checkpoint import CheckpointError
    from attention.models.errors import ModelError

    try:
        _early(args, lang)
        kind, model, tokenizer = run_cli._load(args.model)
        if kind == "encoder":
            _encoder_refusals(args, model.name, lang)
            return _encoder(args, model, tokenizer, lang)
        return _decoder(args, model, lang)
    except Refused as e:
        return run_cli._refuse(None, str(e))
    except ModelError as e:
        return run_cli._refuse(args.model, e.text(lang))
    except CheckpointError as e:
        return run_cli._refuse(args.model, e.line(lang))
