"""`main.py layers WEIGHTS` and `main.py import WEIGHTS --out FILE` as a person types them."""
from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from import_modules import AttentionLayer, FullAttention, TSLTransformer
from safetensors.torch import save_file
from torch import nn

from attention import run
from attention.cli import main
from attention.files import scenario_io

ROOT = Path(__file__).resolve().parents[2]


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def _mixed_file(tmp_path) -> Path:
    """Two TSL layers, one packed MultiheadAttention and one Llama-style (rotary, GQA) layer."""
    torch.manual_seed(0)
    state = {f"tsl.{k}": v for k, v in TSLTransformer(d_model=8, n_heads=2, e_layers=1).encoder.state_dict().items()}
    state.update({f"mha.{k}": v for k, v in nn.MultiheadAttention(8, 2).state_dict().items()})
    for r, rows in (("q", 8), ("k", 4), ("v", 4), ("o", 8)):
        state[f"llama.layers.0.self_attn.{r}_proj.weight"] = torch.randn(rows, 8 if r != "o" else 8)
    path = tmp_path / "mixed.safetensors"
    save_file({k: v.contiguous() for k, v in state.items()}, str(path))
    return path


def test_layers_lists_every_layer_with_shapes_and_the_unsupported_with_their_reason(tmp_path):
    rc, out, err = cli("layers", _mixed_file(tmp_path))
    assert rc == 0 and err == ""
    lines = out.strip().splitlines()
    assert lines[0] == "mixed.safetensors: 3 attention layers (safetensors, read lazily)"
    rows = {line.split("\t")[0]: line.split("\t") for line in lines[1:]}
    assert rows["tsl.attn_layers.0.attention"][1] == "Time-Series-Library AttentionLayer"
    assert rows["tsl.attn_layers.0.attention"][2] == "query (8×8)+8, key (8×8)+8, value (8×8)+8, out (8×8)+8"
    assert rows["tsl.attn_layers.0.attention"][3] == "heads: choose (1, 2, 4, 8)"
    assert rows["mha"][2].startswith("query (8×8)+8")
    llama = rows["llama.layers.0.self_attn"]
    assert "not importable: rotary position embeddings" in llama[3] and "k and v are 4 wide, q is 8" in llama[3]
    assert "k_proj.weight (4×8)" in llama[2]

    rc, out, _ = cli("layers", _mixed_file(tmp_path), "--lang", "zh")
    assert rc == 0 and "个注意力层" in out and "不能导入：旋转位置编码" in out


def test_one_layer_is_named_in_the_singular(tmp_path):
    path = tmp_path / "one.safetensors"
    save_file({k: v.contiguous() for k, v in nn.MultiheadAttention(8, 2).state_dict().items()}, str(path))
    rc, out, _ = cli("layers", path)
    assert rc == 0 and out.splitlines()[0] == "one.safetensors: 1 attention layer (safetensors, read lazily)"
    rc, out, _ = cli("layers", path, "--lang", "zh")
    assert rc == 0 and out.splitlines()[0].startswith("one.safetensors：1 个注意力层")


def test_import_writes_a_scenario_that_reproduces_the_layer(tmp_path):
    torch.manual_seed(1)
    layer = AttentionLayer(FullAttention(False), d_model=12, n_heads=3).eval()
    weights = tmp_path / "one_layer.pt"
    torch.save(layer.state_dict(), weights)
    out = tmp_path / "scenario.json"
    rc, text, err = cli("import", weights, "--heads", "3", "--tokens", "5", "--seed", "7", "--out", out)
    # the file cannot say FullAttention from ProbAttention: imported as FullAttention, and said so
    assert (rc, err.split(":")[0]) == (0, "attention") and "--scoring prob_sparse --factor F" in err
    assert text.strip() == f"wrote {out}: attention from one_layer.pt, 3 heads, inputs 1×5×12"
    sc = scenario_io.load(out)
    assert sc.queries.shape == (1, 5, 12) and sc.n_heads == 3
    assert "seed 7" in sc.notes["en"] and "种子 7" in sc.notes["zh"]
    x = torch.as_tensor(sc.queries, dtype=torch.float32)
    with torch.no_grad():
        ref_out, ref_w = layer(x, x, x)
    trace = run(sc)
    np.testing.assert_allclose(trace["output"].numpy(), ref_out.numpy(), atol=1e-5, rtol=0)
    np.testing.assert_allclose(trace["attention_weights"].numpy(), ref_w.numpy(), atol=1e-5, rtol=0)

    # the same seed gives the same inputs; another seed other ones
    again = tmp_path / "again.json"
    assert cli("import", weights, "--heads", "3", "--tokens", "5", "--seed", "7", "--out", again)[0] == 0
    np.testing.assert_array_equal(scenario_io.load(again).queries, sc.queries)
    assert cli("import", weights, "--heads", "3", "--tokens", "5", "--seed", "8", "--out", again)[0] == 0
    assert not np.array_equal(scenario_io.load(again).queries, sc.queries)


def test_import_takes_inputs_from_a_scenario_and_checks_their_width(tmp_path):
    torch.manual_seed(2)
    weights = tmp_path / "tsl.pth"
    torch.save(TSLTransformer(d_model=8, n_heads=2, e_layers=1).state_dict(), weights)
    first = tmp_path / "first.json"
    assert cli("import", weights, "--layer", "decoder.layers.0.cross_attention", "--heads", "2", "--tokens", "3",
               "--out", first)[0] == 0
    given = scenario_io.load(first)
    second = tmp_path / "second.json"
    rc, _, err = cli("import", weights, "--layer", "decoder.layers.0.cross_attention", "--heads", "4",
                     "--inputs", first, "--scoring", "scaled_dot", "--out", second)
    assert (rc, err) == (0, "")
    sc = scenario_io.load(second)
    np.testing.assert_array_equal(sc.keys, given.keys)
    assert sc.n_heads == 4 and "first.json" in sc.notes["en"]

    wrong = tmp_path / "wrong.json"
    mha = tmp_path / "mha.pt"
    torch.save(nn.MultiheadAttention(6, 2).state_dict(), mha)
    assert cli("import", mha, "--heads", "2", "--out", wrong)[0] == 0
    rc, _, err = cli("import", weights, "--layer", "1", "--heads", "2", "--inputs", wrong, "--out", second)
    assert rc == 2 and err.strip() == f"{wrong}: queries are 6 wide, but encoder.attn_layers.0.attention takes 8"


def test_import_usage_errors_name_the_option(tmp_path):
    weights = tmp_path / "tsl.pth"
    torch.save(TSLTransformer(d_model=8, n_heads=2, e_layers=1).state_dict(), weights)
    out = tmp_path / "o.json"
    cases = [
        (("import", weights, "--out", out), "tsl.pth holds 3 attention layers: name one with --layer"),
        (("import", weights, "--layer", "decoder.layers.0.self_attention", "--out", out),
         "--heads: decoder.layers.0.self_attention does not say how many heads it has; choose one of 1, 2, 4, 8"),
        (("import", weights, "--layer", "1", "--heads", "3", "--out", out),
         "--heads 3: does not divide the widths of encoder.attn_layers.0.attention; choose one of 1, 2, 4, 8"),
        (("import", weights, "--layer", "0", "--heads", "2", "--out", out),
         "--layer 0: a layer's place in the list is counted from 1; tsl.pth lists 3 attention layers (1 … 3)"),
        (("import", weights, "--layer", "4", "--heads", "2", "--out", out), "tsl.pth lists 3 attention layers"),
        (("import", weights, "--layer", "encoder.attn_layers.9.attention", "--heads", "2", "--out", out),
         "--layer encoder.attn_layers.9.attention: not in tsl.pth; its layers: encoder.attn_layers.0.attention, "),
        (("import", weights, "--layer", "1", "--heads", "2", "--tokens", "0", "--out", out),
         "--tokens: expected a whole number of at least 1, got 0"),
        (("import", weights, "--layer", "1", "--heads", "2", "--out", tmp_path / "no" / "dir" / "o.json"),
         "--out: cannot write"),
    ]
    for argv, expect in cases:
        rc, _, err = cli(*argv)
        assert rc == 2 and len(err.strip().splitlines()) == 1 and expect in err, (argv, err)
    assert not out.exists()


@pytest.mark.slow  # starts Python in a child process
def test_main_py_dispatches_layers_and_import_headless(tmp_path):
    """Through main.py in a fresh process: the commands exist and import no Qt."""
    weights = tmp_path / "mha.pt"
    torch.save(nn.MultiheadAttention(4, 2).state_dict(), weights)
    out = tmp_path / "mha.json"
    code = ("import sys, runpy; sys.argv = ['main.py'] + sys.argv[1:]\n"
            "import main; rc = main.main(sys.argv[1:])\n"
            "assert not any(m.split('.')[0] in ('PySide6', 'pyqtgraph') for m in sys.modules), 'Qt imported'\n"
            "sys.exit(rc)")
    res = subprocess.run([sys.executable, "-c", code, "import", str(weights), "--heads", "2", "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    res = subprocess.run([sys.executable, str(ROOT / "main.py"), "validate", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and res.stdout.startswith('ok: "attention (mha.pt)" B=1 L=6 S=6 d_model=4 H=2'), res


def test_a_big_pt_is_named_with_its_size_on_stderr_before_it_is_read(tmp_path, monkeypatch):
    from attention.models import checkpoint

    weights = tmp_path / "big.pt"
    torch.save(nn.MultiheadAttention(4, 2).state_dict(), weights)
    monkeypatch.setattr(checkpoint, "LARGE_PT", 100)  # stands for 2 GB
    rc, out, err = cli("layers", weights)
    size = checkpoint.human_size(weights.stat().st_size)
    assert rc == 0 and err == f"big.pt is {size}: torch reads it whole, this may take a while and that much memory\n"
    assert out.startswith("big.pt: 1 attention layer (")


# ---- hostile arguments (issue 21): one line each, before anything heavy --------------------------------

def _tsl_file(tmp_path) -> Path:
    torch.manual_seed(0)
    path = tmp_path / "one.pt"
    torch.save(AttentionLayer(FullAttention(False), 8, 2).state_dict(), path)
    return path


def test_a_seed_out_of_range_is_one_line(tmp_path):
    path = _tsl_file(tmp_path)
    for seed in (2 ** 70, -1):
        rc, _, err = cli("import", path, "--heads", 2, "--seed", seed, "--out", tmp_path / "o.json")
        assert rc == 2 and err.strip() == f"--seed: expected a whole number from 0 to 2^64 - 1, got {seed}"
    assert not (tmp_path / "o.json").exists()
    rc, _, _ = cli("import", path, "--heads", 2, "--seed", 2 ** 64 - 1, "--out", tmp_path / "o.json")
    assert rc == 0


def test_a_token_count_whose_trace_cannot_fit_is_refused_from_the_shapes(tmp_path, monkeypatch):
    from attention.compute.check import estimate_trace_bytes
    from attention.models import importing

    monkeypatch.setenv("AE_MEMORY_LIMIT", str(1 << 30))
    generated = []
    monkeypatch.setattr(importing, "generated_inputs", lambda *a, **k: generated.append(a) or 1 / 0)
    rc, _, err = cli("import", _tsl_file(tmp_path), "--heads", 2, "--tokens", 100_000_000, "--out",
                     tmp_path / "o.json")
    assert rc == 2 and generated == [] and len(err.strip().splitlines()) == 1
    most = int(err.split("at most ")[1].split(" tokens")[0].replace(",", ""))
    # the largest count that fits, by the engine's own estimate (dk = dv = 8 / 2 heads)
    assert estimate_trace_bytes(1, most, most, 2, 4, 4, 8, 8, 8, 8) <= 1 << 30
    assert estimate_trace_bytes(1, most + 1, most + 1, 2, 4, 4, 8, 8, 8, 8) > 1 << 30
    assert "--tokens 100,000,000: this layer's trace" in err and "1.1 GB of memory free" in err


def test_out_on_a_fifo_is_refused_before_reading_the_weights(tmp_path):
    import os

    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    rc, _, err = cli("import", _tsl_file(tmp_path), "--heads", 2, "--out", fifo)
    assert rc == 2
    assert err.strip() == f"{fifo}: a pipe (FIFO), not a regular file; nothing was written (choose a file name)"
