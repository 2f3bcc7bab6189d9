"""Hostile weights files, model folders, outputs and arguments, generated and run through the CLI
and the model loaders; prints one row per class: tried / clean refusal / ok / uncaught / crash / hang.

    python tests/hostile/weights_run.py [--seed N] [--per-class N]

Each case runs in a child process (so a crash is counted, not fatal) with a time limit (a hang
is counted when it passes).  "Clean refusal" is exit status 2 with one line on stderr and no
traceback (or a ModelError for model folders); "uncaught" is any other failure line or exit 1.
A figure-printing script, not a test: the tests that must fail without each fix live in
tests/models/test_hostile_weights.py, test_model_folders.py, test_import_cli.py and tests/io.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
LIMIT_S = 60

CHILD = r"""
import sys, json
sys.path.insert(0, {root!r})
kind, args = sys.argv[1], json.loads(sys.argv[2])
if kind == "cli":
    from attention.cli import main
    raise SystemExit(main(args))
from app.viewmodel.model_session import ModelSession
from attention.models.errors import ModelError
try:
    s = ModelSession.open(args[0])
    s.accept(s.compute(tuple(args[1:]) or s.sentences))
    s.scenario(0)
except ModelError as e:
    print(str(e), file=sys.stderr)
    raise SystemExit(2)
"""


def run_case(kind: str, args: list[str]) -> str:
    """'refusal', 'ok', 'uncaught', 'crash' or 'hang'."""
    try:
        p = subprocess.run([PY, "-c", CHILD.format(root=str(ROOT)), kind, json.dumps(args)], capture_output=True,
                           text=True, timeout=LIMIT_S, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return "hang"
    if p.returncode < 0:
        return "crash"
    err = p.stderr.strip().splitlines()
    if p.returncode == 0:
        return "ok"
    if p.returncode == 2 and len(err) == 1 and "Traceback" not in p.stderr and not err[0].startswith("error:"):
        return "refusal"
    return "uncaught"


# ---- generators -------------------------------------------------------------------------------------

def _tsl(torch, width: int, make=None) -> dict:
    make = make or torch.randn
    return {f"attn.{r}_projection.{t}": make(width, width) if t == "weight" else make(width)
            for r in ("query", "key", "value", "out") for t in ("weight", "bias")}


def weights_files(rng: random.Random, d: Path, n: int) -> list[list[str]]:
    import torch
    from safetensors.torch import save_file

    cases = []
    for i in range(n):
        w = rng.randint(2, 64)
        pick = rng.choice(["zero_stride", "dtype", "nested", "random_bytes", "truncated", "fifo", "st_header",
                           "st_dtype", "legacy_huge"])
        path = d / f"w{i}.{'safetensors' if pick.startswith('st') else 'pt'}"
        if pick == "zero_stride":
            state = _tsl(torch, w)
            state["attn.query_projection.weight"] = torch.randn(1, 1).expand(rng.randint(2, 20000), w)
            state["attn.key_projection.weight"] = torch.randn(state["attn.query_projection.weight"].shape)
            for r in ("query", "key"):
                state[f"attn.{r}_projection.bias"] = torch.randn(state["attn.query_projection.weight"].shape[0])
            torch.save(state, path)
        elif pick == "dtype":
            dt = rng.choice([torch.int64, torch.int32, torch.uint8, torch.bool, torch.complex64, torch.int8])
            torch.save(_tsl(torch, w, lambda *s, dt=dt: torch.ones(*s).to(dt)), path)
        elif pick == "nested":
            obj = _tsl(torch, w)
            for k in range(rng.randint(0, 14)):
                obj = {f"l{k}": obj}
            torch.save(obj, path)
        elif pick == "random_bytes":
            path.write_bytes(rng.randbytes(rng.randint(0, 4096)))
        elif pick == "truncated":
            torch.save(_tsl(torch, w), path)
            raw = path.read_bytes()
            path.write_bytes(raw[: rng.randint(0, len(raw))])
        elif pick == "fifo":
            os.mkfifo(path)
        elif pick == "st_header":
            shape = [rng.choice([0, 1, w, 2 ** rng.randint(10, 40)]) for _ in range(rng.randint(1, 3))]
            header = {"attn.query_projection.weight": {"dtype": "F32", "shape": shape,
                                                       "data_offsets": [0, rng.randint(0, 64)]}}
            raw = json.dumps(header).encode()
            path.write_bytes(len(raw).to_bytes(8, "little") + raw + bytes(64))
        elif pick == "st_dtype":
            dt = rng.choice([torch.int64, torch.int32, torch.uint8, torch.bool, torch.int8, torch.float16])
            save_file(_tsl(torch, w, lambda *s, dt=dt: torch.ones(*s).to(dt)), str(path))
        else:  # legacy format, storage size rewritten to 500 million numbers
            torch.save({"w": torch.zeros(4)}, path, _use_new_zipfile_serialization=False)
            raw = bytearray(path.read_bytes())
            at = raw.index(b"K\x04N")
            path.write_bytes(bytes(raw[:at]) + b"J" + (500_000_000).to_bytes(4, "little") + bytes(raw[at + 2:]))
        cmd = rng.choice([["layers", str(path)], ["import", str(path), "--heads", "1", "--out", str(d / f"o{i}.json")]])
        cases.append(cmd)
    return cases


def sharded_indexes(rng: random.Random, d: Path, n: int) -> list[list[str]]:
    import torch
    from safetensors.torch import save_file

    secret = d / "secret.txt"
    secret.write_text("top secret")
    cases = []
    for i in range(n):
        folder = d / f"sharded{i}"
        folder.mkdir()
        save_file(_tsl(torch, 4), str(folder / "part.safetensors"))
        target = rng.choice(["../secret.txt", str(secret), "/etc/passwd", "sub/../../secret.txt", "link", "fifo",
                             "missing.safetensors", 5, None, "part.safetensors"])
        if target == "link":
            (folder / "link").symlink_to(secret)
        if target == "fifo":
            os.mkfifo(folder / "fifo")
        names = {k: "part.safetensors" for k in _tsl(torch, 4)}
        names["attn.out_projection.bias"] = target
        (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": names}))
        cases.append(["layers", str(folder)])
    return cases


def outputs(rng: random.Random, d: Path, n: int) -> list[list[str]]:
    import socket

    import torch

    weights = d / "good.pt"
    torch.save(_tsl(torch, 8), weights)
    cases = []
    for i in range(n):
        kind = rng.choice(["fifo", "socket", "dir", "link_fifo"])
        target = d / f"out{i}.json"
        if kind in ("fifo", "link_fifo"):
            os.mkfifo(d / f"f{i}")
            (target.symlink_to(d / f"f{i}") if kind == "link_fifo" else os.rename(d / f"f{i}", target))
        elif kind == "socket":
            s = socket.socket(socket.AF_UNIX)
            s.bind(str(target))
            _SOCKETS.append(s)
        else:
            target.mkdir()
        cases.append(["import", str(weights), "--heads", "2", "--out", str(target)])
    return cases


_SOCKETS: list = []


def arguments(rng: random.Random, d: Path, n: int) -> list[list[str]]:
    import torch

    weights = d / "args.pt"
    torch.save(_tsl(torch, 8), weights)
    big = d / "big.json"
    doc = {"format": "attention-explorer/scenario", "version": 1, "n_heads": 8}
    for k, name in enumerate(("queries", "keys", "values")):
        doc[name] = {"generate": "normal", "shape": [1, 3000, 16], "seed": k}
    big.write_text(json.dumps(doc))
    cuda = d / "cuda.json"
    toy = json.loads((ROOT / "resources/scenarios/01_tsl_toy.json").read_text(encoding="utf-8"))
    cuda.write_text(json.dumps({**toy, "device": "cuda"}))
    cases = []
    for i in range(n):
        pick = rng.choice(["seed", "tokens", "trace", "cuda"])
        if pick == "seed":
            cases.append(["import", str(weights), "--heads", "2", "--seed", str(rng.choice([2 ** 70, -1, 2 ** 64])),
                          "--out", str(d / f"a{i}.json")])
        elif pick == "tokens":
            cases.append(["import", str(weights), "--heads", "2", "--tokens", str(rng.choice([10 ** 8, 2 ** 70])),
                          "--out", str(d / f"a{i}.json")])
        elif pick == "trace":
            cases.append(["trace", str(big)])
        else:
            cases.append(["validate", str(cuda)])
    return cases


def model_folders(rng: random.Random, d: Path, n: int) -> list[list[str]]:
    from attention.models import bundled

    src = bundled.folder()
    if src is None:
        return []
    cases = []
    for i in range(n):
        folder = d / f"model{i}"
        shutil.copytree(src, folder)
        cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        pick = rng.choice(["unk", "deep", "digits", "range", "fifo_config", "type", "sentence"])
        sentence: list[str] = []
        if pick == "unk":
            tok = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
            tok["model"]["vocab"]["[UNK]"] = 1_000_000
            for added in tok["added_tokens"]:
                if added["content"] == "[UNK]":
                    added["id"] = 1_000_000
            (folder / "tokenizer.json").write_text(json.dumps(tok), encoding="utf-8")
            sentence = ["snow \u2603"]
        elif pick == "deep":
            depth = rng.choice([100, 10_000, 100_000])
            (folder / "config.json").write_text('{"model_type": "bert", "x": ' + "[" * depth + "]" * depth + "}")
        elif pick == "digits":
            text = json.dumps(cfg).replace(f'"num_attention_heads": {cfg["num_attention_heads"]}',
                                           '"num_attention_heads": ' + "9" * rng.choice([50, 4000, 5000]))
            (folder / "config.json").write_text(text)
        elif pick == "range":
            field = rng.choice(["num_hidden_layers", "hidden_size", "vocab_size", "intermediate_size"])
            (folder / "config.json").write_text(json.dumps({**cfg, field: rng.choice([10 ** 6, -1, 0, 2.5, "x"])}))
        elif pick == "fifo_config":
            (folder / "config.json").unlink()
            os.mkfifo(folder / "config.json")
        elif pick == "type":
            (folder / "config.json").write_text(json.dumps({**cfg, "model_type": "b" * rng.randint(1, 10 ** 6)}))
        else:
            sentence = [rng.choice(["a" * 100_000, "\u4e2d" * 20_000, "word " * 600])]
        cases.append([str(folder), *sentence])
    return cases


CLASSES = {"weights files": ("cli", weights_files), "sharded indexes": ("cli", sharded_indexes),
           "outputs": ("cli", outputs), "arguments": ("cli", arguments), "model folders": ("model", model_folders)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-class", type=int, default=12)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    print("| class | tried | clean refusal | ok | uncaught | crash | hang |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (kind, make) in CLASSES.items():
            d = Path(tmp) / name.replace(" ", "_")
            d.mkdir()
            got = Counter(run_case(kind, case) for case in make(rng, d, args.per_class))
            print(f"| {name} | {sum(got.values())} | {got['refusal']} | {got['ok']} | {got['uncaught']} | "
                  f"{got['crash']} | {got['hang']} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
