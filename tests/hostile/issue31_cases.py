"""Issue 31's hostile inputs as cases: what each command is given, what it must answer, and the
runner that measures each answer's time and memory under an address-space cap.

Each case is one command line (`main.py ARGS`) in one of the issue's classes (indent, out_input,
duplicate, generator, hf_config, gguf, warnings, symlink, tiles, utf8), made in a scratch folder by
`build(folder)` from the repro files of tests/hostile/issue31/ (scenarios, hf_configs.json,
gguf_meta.json).  `run(cases)` runs them all in ONE child process that first imports everything a
command may import (torch, gguf, safetensors, tokenizers, the CLI), so a case's time and memory are
its own; before each case the child sets its address-space limit (RLIMIT_AS) to what it maps now plus
CAP_MB and resets its peak resident size (/proc/self/clear_refs), then times `attention.cli.main`.

An answer is `clean` when it is what the case expects:
- "refuse": exit 2, exactly one line on stderr, naming the case's field, no "error: XError" line,
  no traceback or warning source line; in Chinese too (`--lang zh` or a zh_CN terminal);
- "list": `layers` exits 0 and lists the layer as not importable, naming the field;
- "ok": exit 0 (a control: what must still work);
and, for every case, every file the case lists under `keep` is byte for byte what it was, and every
file under `valid` is accepted by `validate`.  `generic` counts the `error: XError` lines and
tracebacks; `slow` the answers over LIMIT_S seconds; `big` those over CAP_MB (or stopped by the cap).

tests/hostile/test_issue31.py asserts every case clean; bench/hostile.py --classes prints the counts.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "issue31"
GOLDEN = ROOT / "tests" / "models" / "golden_modern"
CAP_MB = 300
LIMIT_S = 1.0
HANG_S = 60
CLASSES = ("indent", "out_input", "duplicate", "generator", "hf_config", "gguf", "warnings", "symlink", "tiles",
           "utf8")
#: commands whose words follow --lang (the others follow the terminal's locale)
LANG_FLAG = ("layers", "import", "run", "tiles")


@dataclass
class Case:
    cls: str
    id: str
    argv: list[str]
    field: str = ""  # what the refusal (or the listed reason) must name ("a|b": either)
    expect: str = "refuse"  # "refuse", "list" or "ok"
    keep: list[str] = dataclasses.field(default_factory=list)  # files that must be left byte for byte as they were
    valid: list[str] = dataclasses.field(default_factory=list)  # files `validate` must accept afterwards
    zh: bool = True  # also run in Chinese (refusals only)


def _digest(path: str) -> Optional[str]:
    p = Path(path)
    if p.is_symlink() and not p.exists():
        return "dangling:" + os.readlink(p)
    if not p.is_file():
        return None
    return hashlib.sha256(p.read_bytes()).hexdigest()


# ---- building the inputs --------------------------------------------------------------------------

def _hf_folder(d: Path, name: str, family: str, change: dict) -> Path:
    folder = d / "hf" / name
    shutil.copytree(GOLDEN / family, folder)
    (folder / "golden.npz").unlink()
    cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    for key, value in change.items():
        if value is None:
            cfg.pop(key, None)
        else:
            cfg[key] = value
    (folder / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    return folder


def _nan_folder(d: Path) -> Path:
    """The golden Llama with one NaN in layer 0's q_proj."""
    import torch
    from safetensors.torch import load_file, save_file

    folder = _hf_folder(d, "nan_weights", "llama", {"rope_parameters": {"rope_theta": 10000.0, "rope_type": "default"}})
    tensors = load_file(folder / "model.safetensors")
    q = tensors["model.layers.0.self_attn.q_proj.weight"].clone()
    q[3, 5] = float("nan")
    tensors["model.layers.0.self_attn.q_proj.weight"] = q
    save_file({k: v.contiguous() for k, v in tensors.items()}, folder / "model.safetensors")
    assert torch.isnan(q).any()
    return folder


def gguf_file(path: Path, meta: dict) -> Path:
    """A tiny random Llama GGUF (tests/models/test_gguf_files.py's model and writer) with `meta` over its
    metadata (whole numbers past 2^32 written as uint64, as a hostile writer may)."""
    sys.path.insert(0, str(ROOT))
    from tests.models import test_gguf_files as g

    return g.write(path, g.random_model(), meta=meta)


def build(d: Path) -> list[Case]:
    """Every case, its inputs written under `d`."""
    d = Path(d)
    d.mkdir(parents=True, exist_ok=True)
    toy = ROOT / "resources" / "scenarios" / "01_tsl_toy.json"
    S = d / "S.json"
    shutil.copy(toy, S)
    out: list[Case] = []
    add = out.append

    # 1: --indent and the other output options: bounded before anything is built
    for value in ("100000000", "1000000", "-5"):
        add(Case("indent", f"indent_{value}", ["trace", str(S), "--indent", value], "--indent", keep=[str(S)]))
    add(Case("indent", "indent_4", ["trace", str(S), "--indent", "4"], expect="ok"))
    add(Case("indent", "max_json_huge", ["trace", str(S), "--max-json", "9" * 400 + "TB"], "--max-json"))

    # 2: a write never replaces the command's input, a file of another kind, or writes through a link
    def fresh(name: str) -> Path:  # each case its own copy: a case that (wrongly) replaces it spoils no other
        (d / "in").mkdir(exist_ok=True)
        path = d / "in" / name
        shutil.copy(toy, path)
        return path

    def scenario_text(path: Path, text: str) -> Path:
        path.write_text(text, encoding="utf-8")
        return path

    s = fresh("trace_out_is_input.json")
    add(Case("out_input", "trace_out_is_input", ["trace", str(s), "--out", str(s)], "--out", keep=[str(s)]))
    s, hard = fresh("hard_source.json"), d / "in" / "hard.json"
    hard.unlink(missing_ok=True)
    os.link(s, hard)
    add(Case("out_input", "trace_out_hard_link", ["trace", str(s), "--out", str(hard)], "--out", keep=[str(s)]))
    s = fresh("script_out_is_input.json")
    add(Case("out_input", "script_out_is_input", ["script", str(s), "--out", str(s)], "--out", keep=[str(s)]))
    other = fresh("a_scenario.json")
    add(Case("out_input", "trace_over_a_scenario", ["trace", str(S), "--out", str(other)], "--out", keep=[str(other)]))
    notes = scenario_text(d / "in" / "notes.json", '{"my": "notes"}\n')
    add(Case("out_input", "trace_over_other_json", ["trace", str(S), "--out", str(notes)], "--out", keep=[str(notes)]))
    text = scenario_text(d / "in" / "notes.txt", "my notes\n")
    add(Case("out_input", "script_over_a_text", ["script", str(S), "--out", str(text)], "--out", keep=[str(text)]))
    old = scenario_text(d / "in" / "old_trace.json", '{"format": "attention-explorer/trace", "version": 1}\n')
    add(Case("out_input", "trace_over_its_own_kind", ["trace", str(S), "--out", str(old)], expect="ok"))
    llama = _hf_folder(d, "llama_config", "llama", {})
    add(Case("out_input", "import_out_is_config", ["import", str(llama), "--out", str(llama / "config.json")],
             "--out", keep=[str(llama / "config.json")]))
    llama = _hf_folder(d, "llama_weights", "llama", {})
    add(Case("out_input", "import_out_is_weights", ["import", str(llama), "--out", str(llama / "model.safetensors")],
             "--out", keep=[str(llama / "model.safetensors")]))
    llama = _hf_folder(d, "llama_inputs", "llama", {})
    x = {"generate": "normal", "shape": [1, 3, 32], "seed": 1}
    given = scenario_text(d / "in" / "inputs.json", json.dumps({"format": "attention-explorer/scenario", "version": 1,
                                                                "queries": x, "keys": x, "values": x, "n_heads": 4}))
    add(Case("out_input", "import_out_is_inputs", ["import", str(llama), "--inputs", str(given), "--out", str(given)],
             "--out", keep=[str(given)]))
    llama = _hf_folder(d, "llama_plain", "llama", {})
    a_trace = scenario_text(d / "in" / "a_trace.json", '{"format": "attention-explorer/trace", "version": 1}\n')
    add(Case("out_input", "import_over_a_trace", ["import", str(llama), "--out", str(a_trace)], "--out",
             keep=[str(a_trace)]))
    add(Case("out_input", "import_writes_a_valid_file", ["import", str(llama), "--out", str(d / "imported.json")],
             expect="ok", valid=[str(d / "imported.json")]))

    # 3: a part listed twice is refused with the repeat's path (windows combine: accepted)
    for name, where in (("rope_twice", "positions[1]"), ("rope_100", "positions[1]"),
                        ("qk_norm_twice", "modifiers[1]"), ("softcap_twice", "modifiers[1]")):
        add(Case("duplicate", name, ["validate", str(HERE / f"{name}.json")], where))
        add(Case("duplicate", f"{name}_trace", ["trace", str(HERE / f"{name}.json")], where))
    add(Case("duplicate", "windows_two", ["validate", str(HERE / "windows_two.json")], expect="ok"))

    # 4: a generator is checked against the shape its field must have before it makes a number
    for name, where in (("frequencies_60M", "positions[0].frequencies"),
                        ("query_weight_60M", "projections.query.weight"),
                        ("qk_norm_weight_60M", "modifiers[0].query_weight"), ("drawn_56M", "masks[0].mask"),
                        ("valid_lens_60M", "mask.valid_lens")):
        add(Case("generator", name, ["validate", str(HERE / f"{name}.json")], where))

    # 5, 7, 8: decoder configs: every size and rope field in the loader's own range, named when not
    hf = json.loads((HERE / "hf_configs.json").read_text(encoding="utf-8"))
    for name, spec in hf.items():
        folder = _hf_folder(d, name, spec["family"], spec["change"])
        layer = str(spec.get("layer", 1))  # counted from 1, as the CLI counts
        cls = spec.get("class", "hf_config")
        if spec.get("list", True):
            add(Case(cls, f"{name}_layers", ["layers", str(folder)], spec["field"], expect="list"))
        add(Case(cls, f"{name}_import", ["import", str(folder), "--layer", layer, "--out", str(d / f"{name}.json")],
                 spec["field"], expect=spec.get("expect", "refuse"),
                 valid=[str(d / f"{name}.json")] if spec.get("expect") == "ok" else []))
    nan = _nan_folder(d)  # a plain RoPE, so that `run` reads it too
    add(Case("warnings", "nan_weights_import", ["import", str(nan), "--out", str(d / "nan.json")],
             "model.layers.0.self_attn.q_proj.weight"))
    add(Case("warnings", "nan_weights_run", ["run", str(nan), "hello", "--out", str(d / "nan_run")],
             "model.layers.0.self_attn.q_proj.weight"))

    # 6, 7: GGUF metadata: sizes bounded (and checked against the tensors) before anything is made
    meta = json.loads((HERE / "gguf_meta.json").read_text(encoding="utf-8"))
    (d / "gguf").mkdir(exist_ok=True)
    for name, spec in meta.items():
        path = gguf_file(d / "gguf" / f"{name}.gguf", spec["meta"])
        add(Case("gguf", f"{name}_layers", ["layers", str(path)], spec["field"], expect="list"))
        add(Case("gguf", f"{name}_import", ["import", str(path), "--layer", "1", "--out", str(d / f"{name}.json")],
                 spec["field"]))
        add(Case("gguf", f"{name}_run", ["run", str(path), "hello", "--out", str(d / f"{name}_run")], spec["field"]))

    plain = gguf_file(d / "gguf" / "plain.gguf", {})
    add(Case("gguf", "plain_run_writes_valid_files", ["run", str(plain), "hello", "--out", str(d / "plain_run")],
             expect="ok", valid=[str(d / "plain_run" / f"layer{k}.json") for k in (1, 2)]))

    # 9: names a command picks itself are never written through a link; --out never follows one
    victim = d / "victim.txt"
    victim.write_text("someone else's file\n", encoding="utf-8")
    planted = d / "planted"
    planted.mkdir(exist_ok=True)
    (planted / "layer1.json").unlink(missing_ok=True)
    os.symlink(victim, planted / "layer1.json")
    add(Case("symlink", "run_planted_layer1", ["run", "glassllm", "hi", "--out", str(planted)], "layer1.json",
             keep=[str(victim), str(planted / "layer1.json")]))
    add(Case("symlink", "run_glassllm_writes_valid_files", ["run", "glassllm", "hi", "--out", str(d / "glass_ok")],
             expect="ok", valid=[str(d / "glass_ok" / "layer1.json")]))
    for name, argv in (("trace_out_link", ["trace", str(S), "--out"]),
                       ("import_out_link", ["import", str(_hf_folder(d, "llama_link", "llama", {})), "--out"]),
                       ("script_out_link", ["script", str(S), "--out"])):
        link = d / f"{name}.json"
        link.unlink(missing_ok=True)
        os.symlink(victim, link)
        add(Case("symlink", name, argv + [str(link)], "--out", keep=[str(victim), str(link)]))

    # 10: the number of tiles is bounded before the trace is computed
    for size in (1024, 8192):  # 8192: under the cap its trace does not fit either, which may be said first
        f = str(HERE / f"tiles_{size}.json")
        field = "--block-q" if size == 1024 else "--block-q|sizes"
        add(Case("tiles", f"tiles_{size}_1x1", ["tiles", f, "--block-q", "1", "--block-k", "1"], field))
        add(Case("tiles", f"tiles_{size}_1x1_json", ["tiles", f, "--block-q", "1", "--block-k", "1", "--json"],
                 field))
    add(Case("tiles", "tiles_1024_k1", ["tiles", str(HERE / "tiles_1024.json"), "--block-q", "64", "--block-k", "1"],
             "--block-k"))

    # 11: text that is not valid UTF-8 (the terminal's bytes, as Python keeps them: surrogate escapes)
    bad = os.fsdecode(b"caf\xe9 \xff")
    add(Case("utf8", "run_minilm_bytes", ["run", "minilm", bad, "--out", str(d / "mini")], "TEXT"))
    add(Case("utf8", "run_minilm_text2_bytes", ["run", "minilm", "fine", "--text2", bad, "--out", str(d / "mini")],
             "--text2"))
    add(Case("utf8", "run_glassllm_bytes", ["run", "glassllm", bad, "--out", str(d / "glass")], "TEXT"))
    return out


# ---- running --------------------------------------------------------------------------------------

CHILD = r"""
import contextlib, io, json, os, resource, signal, sys, time, warnings
sys.path.insert(0, sys.argv[1])
import torch, numpy  # noqa: F401  (every case pays nothing for these)
for name in ("gguf", "safetensors.torch", "tokenizers"):
    try:
        __import__(name)
    except ImportError:
        pass
import attention.cli
from attention import words
for name in ("attention.models.importing", "attention.models.families", "attention.models.gguf_model",
             "attention.models.llama", "attention.models.bert", "attention.models.glassllm",
             "attention.teaching.tiles", "attention.files.trace_json", "attention.compute.engine",
             "attention.cli.run_cli", "attention.teaching.script_export"):
    __import__(name)
cases = json.load(open(sys.argv[2]))
cap = int(sys.argv[3]) << 20
hang = int(sys.argv[4])

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) << 10
    return 0

class Hang(BaseException):
    pass

def alarm(*_):
    raise Hang()

signal.signal(signal.SIGALRM, alarm)
results = []
for c in cases:
    words.set_language("en")
    env = dict(os.environ)
    os.environ.pop("LC_ALL", None)
    os.environ.pop("LC_MESSAGES", None)
    os.environ["LANG"] = c["lang_env"]
    with contextlib.suppress(OSError):
        open("/proc/self/clear_refs", "w").write("5")
    rss0, vm0 = status("VmRSS"), status("VmSize")
    resource.setrlimit(resource.RLIMIT_AS, (vm0 + cap, resource.RLIM_INFINITY))
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    outcome = "done"
    signal.alarm(hang)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            warnings.simplefilter("default")
            rc = attention.cli.main(c["argv"])
    except Hang:
        rc, outcome = None, "hang"
    except MemoryError:
        rc, outcome = None, "capped"
    except BaseException as e:  # noqa: BLE001
        rc, outcome = None, f"raised {type(e).__name__}: {e}"[:300]
    finally:
        signal.alarm(0)
    seconds = time.perf_counter() - t0
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    peak = max(0, status("VmHWM") - rss0)
    os.environ.clear()
    os.environ.update(env)
    results.append({"id": c["id"], "lang": c["lang"], "rc": rc, "outcome": outcome, "seconds": seconds,
                    "peak_mb": peak / 2**20, "stdout": out.getvalue()[-4000:], "stderr": err.getvalue()[-4000:]})
print(json.dumps(results))
"""


def _variants(case: Case) -> list[dict]:
    """The case in English and (for refusals and listings) in Chinese."""
    runs = [{"id": case.id, "lang": "en", "argv": case.argv, "lang_env": "C.UTF-8"}]
    if case.zh and case.expect in ("refuse", "list"):
        zh_argv = case.argv + ["--lang", "zh"] if case.argv[0] in LANG_FLAG else case.argv
        runs.append({"id": case.id, "lang": "zh", "argv": zh_argv, "lang_env": "zh_CN.UTF-8"})
    return runs


def run(cases: list[Case], root: Path = ROOT, cap_mb: int = CAP_MB) -> list[dict]:
    """Every case's answers (English, then Chinese), judged: one dict per answer."""
    todo = [v for c in cases for v in _variants(c)]
    kept = {p: _digest(p) for c in cases for p in c.keep}
    listing = Path(cases[0].argv[1]).parent if cases else Path(".")
    spec = listing / ".issue31_cases.json"
    spec.write_text(json.dumps(todo), encoding="utf-8")
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, str(root), str(spec), str(cap_mb), str(HANG_S)],
                           capture_output=True, text=True, cwd=root)
    finally:
        spec.unlink(missing_ok=True)
    if p.returncode != 0:
        raise RuntimeError(f"the case runner died ({p.returncode}): {p.stderr[-2000:]}")
    answers = json.loads(p.stdout.strip().splitlines()[-1])
    by_id = {c.id: c for c in cases}
    for a in answers:
        c = by_id[a["id"]]
        a["cls"], a["expect"] = c.cls, c.expect
        a.update(judge(c, a, kept, root))
    return answers


def _validates(path: str, root: Path) -> bool:
    p = subprocess.run([sys.executable, str(root / "main.py"), "validate", path], capture_output=True, text=True,
                       cwd=root)
    return p.returncode == 0


def _names(line: str, field: str) -> bool:
    return any(f in line for f in field.split("|"))


def judge(c: Case, a: dict, kept: dict, root: Path = ROOT) -> dict:
    """{"clean": bool, "generic": bool, "slow": bool, "big": bool, "why": str} for one answer."""
    err_lines = [line for line in a["stderr"].splitlines() if line.strip()]
    text = a["stderr"] + a["stdout"]
    generic = (a["rc"] == 1 or a["outcome"] != "done" or "Traceback" in text
               or any(line.startswith("error:") for line in err_lines))
    why = ""
    if a["outcome"] != "done":
        why = a["outcome"]
    elif c.expect == "refuse":
        if a["rc"] != 2:
            why = f"exit {a['rc']}, not 2"
        elif len(err_lines) != 1:
            why = f"{len(err_lines)} lines on stderr"
        elif not _names(err_lines[0], c.field):
            why = f"the line does not name {c.field}"
        elif a["lang"] == "zh" and not any("\u4e00" <= ch <= "\u9fff" for ch in err_lines[0]):
            why = "the line is not in Chinese"
    elif c.expect == "list":
        rows = [line for line in a["stdout"].splitlines() if _names(line, c.field)]
        if a["rc"] not in (0, 2):
            why = f"exit {a['rc']}"
        elif a["rc"] == 0 and not rows:
            why = f"no listed line names {c.field}"
        elif a["rc"] == 2 and (len(err_lines) != 1 or not _names(err_lines[0], c.field)):
            why = "not one line naming the field"
        elif a["rc"] == 0 and err_lines:
            why = f"stderr: {err_lines[0][:80]}"
    elif a["rc"] != 0:
        why = f"exit {a['rc']}: {(err_lines or [''])[0][:120]}"
    if not why and a["lang"] == "en":
        changed = [p for p in c.keep if _digest(p) != kept.get(p)]
        if changed:
            why = f"replaced {changed[0]}"
        bad = [p for p in c.valid if not _validates(p, root)]
        if not why and bad:
            why = f"validate refuses {bad[0]}"
    slow = a["seconds"] > LIMIT_S and c.expect != "ok"  # the bounds are on refusals; a control may take its time
    big = a["peak_mb"] > CAP_MB and c.expect != "ok" or a["outcome"] == "capped"
    return {"clean": not why and not generic, "generic": generic, "slow": slow, "big": big, "why": why}


def counts(answers: list[dict]) -> dict[str, dict[str, int]]:
    """Per class: answers tried, clean, generic error lines, over LIMIT_S, over CAP_MB."""
    out = {cls: {"tried": 0, "clean": 0, "generic": 0, "slow": 0, "big": 0} for cls in CLASSES}
    for a in answers:
        row = out[a["cls"]]
        row["tried"] += 1
        for key in ("clean", "generic", "slow", "big"):
            row[key] += bool(a[key])
    return out


def table(answers: list[dict]) -> str:
    """The counts per class, and the slowest and largest refusal of each (controls that must work excluded)."""
    rows = counts(answers)
    total = {k: sum(r[k] for r in rows.values()) for k in ("tried", "clean", "generic", "slow", "big")}
    worst: dict[str, tuple[float, float]] = {}
    for a in answers:
        if a.get("expect") != "ok":
            s, mb = worst.get(a["cls"], (0.0, 0.0))
            worst[a["cls"]] = (max(s, a["seconds"]), max(mb, a["peak_mb"]))
    worst["total"] = (max((w[0] for w in worst.values()), default=0.0),
                      max((w[1] for w in worst.values()), default=0.0))
    lines = [f"{'class':<11} {'tried':>5} {'clean':>5} {'generic':>7} {'>1 s':>5} {'>300MB':>6} {'max s':>6}"
             f" {'max MB':>6}"]
    for cls, r in [*rows.items(), ("total", total)]:
        s, mb = worst.get(cls, (0.0, 0.0))
        lines.append(f"{cls:<11} {r['tried']:>5} {r['clean']:>5} {r['generic']:>7} {r['slow']:>5} {r['big']:>6}"
                     f" {s:>6.2f} {mb:>6.0f}")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    """python tests/hostile/issue31_cases.py [--root CHECKOUT] [FOLDER]: every answer that is not clean, then the
    counts per class.  --root runs another checkout's code on the same cases (the counts before a change)."""
    import argparse
    import tempfile

    p = argparse.ArgumentParser()
    p.add_argument("folder", nargs="?")
    p.add_argument("--root", default=str(ROOT))
    args = p.parse_args(argv)
    folder = Path(args.folder) if args.folder else Path(tempfile.mkdtemp(prefix="issue31_"))
    started = time.perf_counter()
    answers = run(build(folder), root=Path(args.root))
    for a in answers:
        if not a["clean"] or a["slow"] or a["big"]:
            print(f"{a['id']} [{a['lang']}] {a['seconds']:.2f} s {a['peak_mb']:.0f} MB: {a['why'] or 'generic'}"
                  f" | {(a['stderr'].strip().splitlines() or [''])[-1][:160]}")
    print(table(answers))
    print(f"({time.perf_counter() - started:.0f} s, load average {os.getloadavg()[0]:.2f}; code of {args.root})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
