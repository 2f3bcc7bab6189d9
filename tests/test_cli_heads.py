"""`main.py heads MODEL TEXT [--knock L.H ...] [--mean] [--patch-from TEXT2] [--map --out FILE.csv] [--json]`:
the exact contract (JSON keys, CSV header and rows, layers and heads from 1, exit codes) with the numbers from
glassllm's own NumPy forward (its output projection's rows of a head zeroed), and every refusal in one line in
both languages."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attention import cli
from attention.models.token_text import visible

glassllm = pytest.importorskip("glassllm")

TEXT = "Alice was beginning to get very tired of sitting by her"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def theirs():
    """glassllm's own float64 NumPy model and tokenizer; `logits(zeroed)` with heads' W_O rows zeroed."""
    from importlib import resources

    _, tok = glassllm.load_pretrained("en")

    def logits(zeroed=()):
        with resources.as_file(resources.files("glassllm") / "weights" / "en.npz") as path:
            net = glassllm.GlassLM.load(path, dtype=np.float64)
        E = net.cfg.d_model // net.cfg.n_heads
        for k, h in zeroed:  # from 0; W_O is (in = H·E, out = d)
            net.blocks[k].attn.W_O.data[h * E:(h + 1) * E, :] = 0.0
        return net.forward(list(tok.encode(TEXT))).data[0][-1]

    return tok, logits


def _softmax(z):
    p = np.exp(z - z.max())
    return p / p.sum()


def _top(tok, z, n=10):
    p = _softmax(z)
    order = np.argsort(p)[::-1][:n]
    return [{"id": int(i), "token": tok.tokens([int(i)])[0], "p": float(p[i])} for i in order]


def test_json_is_one_object_before_and_after(theirs, capsys):
    tok, logits = theirs
    assert cli.main(["heads", "glassllm", TEXT, "--knock", "2.3", "4.1", "--json"]) == 0
    out = capsys.readouterr().out
    got = json.loads(out)
    assert list(got) == ["before", "after"] and out.count("\n") == 1
    for key, zeroed in (("before", ()), ("after", ((1, 2), (3, 0)))):
        want = _top(tok, logits(zeroed))
        assert [(t["id"], t["token"]) for t in got[key]] == [(t["id"], t["token"]) for t in want]
        assert all(set(t) == {"id", "token", "p"} and isinstance(t["id"], int) for t in got[key])
        np.testing.assert_allclose([t["p"] for t in got[key]], [t["p"] for t in want], rtol=0, atol=1e-9)
        assert [t["p"] for t in got[key]] == sorted((t["p"] for t in got[key]), reverse=True)


def test_repeated_knock_flags_add_up(capsys):
    assert cli.main(["heads", "glassllm", TEXT, "--knock", "2.3", "--knock", "4.1", "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert cli.main(["heads", "glassllm", TEXT, "--knock", "2.3", "4.1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == a


def test_map_csv_is_every_head_zeroed_alone(theirs, tmp_path, capsys):
    tok, logits = theirs
    out = tmp_path / "map.csv"
    assert cli.main(["heads", "glassllm", TEXT, "--map", "--out", str(out), "--lang", "en"]) == 0
    rows = list(csv.reader(out.open(encoding="utf-8")))
    assert rows[0] == ["layer", "head", "delta_logprob"]
    assert [(int(r[0]), int(r[1])) for r in rows[1:]] == [(k, h) for k in range(1, 5) for h in range(1, 5)]
    base = logits()
    chosen = int(np.argmax(base))
    before = np.log(_softmax(base)[chosen])
    for layer, head, v in rows[1:]:
        after = np.log(_softmax(logits([(int(layer) - 1, int(head) - 1)]))[chosen])
        assert float(v) == pytest.approx(after - before, abs=1e-9)
    text = capsys.readouterr().out
    assert "next token before (top 10):" in text and "wrote the head-importance map (16 heads" in text


def test_text_output_names_the_chosen_token_and_the_change(theirs, capsys):
    tok, logits = theirs
    assert cli.main(["heads", "glassllm", TEXT, "--knock", "2.3", "--mean", "--lang", "en"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "next token before (top 10):" and len(lines[1:11]) == 10
    assert lines[11] == "after (L2.H3 set to its mean over the positions), top 10:"
    top = visible(tok.tokens([int(np.argmax(logits()))])[0])  # the window's and the text's label of the token
    assert lines[-1].startswith(repr(top) + " (the top token before): p ")


def test_patch_from_every_head_and_chinese(capsys):
    assert cli.main(["heads", "glassllm", "Alice was very", "--patch-from", "The Queen said", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "没有敲除任何头" in out and "每个头单独取自第二个提示词" in out and out.count("  L") == 10


@pytest.mark.parametrize("argv, en, zh", [
    (["--knock", "0.1"], "--knock 0.1: '0.1': layers and heads are counted from 1", "层和头都从 1 数起"),
    (["--knock", "2.0"], "--knock 2.0: '2.0': layers and heads are counted from 1", "--knock 2.0 有误："),
    (["--knock", "5.1"], "--knock 5.1: layer 5 of '5.1' is out of range: the model has layers 1 to 4",
     "第 5 层超出范围"),
    (["--knock", "1.5"], "--knock 1.5: head 5 of '1.5' is out of range: each layer has heads 1 to 4",
     "头 5 超出范围"),
    (["--knock", "3"], "--knock 3: '3' is not LAYER.HEAD", "不是 层.头"),
    (["--map"], "--map: give --out FILE.csv", "--map：请用 --out FILE.csv"),
    (["--out", "x.csv"], "--out: only --map writes a file", "只有 --map 会写文件"),
    (["--mean"], "--mean: name the heads to knock out with --knock", "请用 --knock"),
    (["--knock", "1.1", "--mean", "--patch-from", "x"], "--mean with --patch-from", "--mean 与 --patch-from"),
    (["--patch-from", "The Queen"], "--patch-from: the second prompt has", "--patch-from：第二个提示词有"),
])
def test_bad_arguments_one_line_exit_2_both_languages(argv, en, zh, capsys):
    for lang, want in (("en", en), ("zh", zh)):
        assert cli.main(["heads", "glassllm", TEXT, *argv, "--lang", lang]) == 2
        err = capsys.readouterr()
        assert err.out == "" and len(err.err.strip().splitlines()) == 1 and want in err.err, err.err
        assert "Traceback" not in err.err


def test_an_encoder_refuses_json_and_map_but_prints_its_output_states(capsys):
    from attention.models import bundled

    if bundled.folder() is None:
        pytest.skip("MiniLM not installed")
    assert cli.main(["heads", "minilm", "The cat sat on the mat.", "--json", "--lang", "en"]) == 2
    assert "--json: minilm is an encoder and has no next token" in capsys.readouterr().err
    assert cli.main(["heads", "minilm", "The cat sat on the mat.", "--knock", "1.1", "--lang", "zh"]) == 0
    assert "句向量的余弦" in capsys.readouterr().out


@pytest.mark.slow
def test_main_py_heads_exit_codes(tmp_path):
    """Through main.py as a person types it: 0 with the JSON on stdout, 2 with one line on stderr."""
    run = [sys.executable, str(ROOT / "main.py"), "heads", "glassllm", "Alice was"]
    ok = subprocess.run(run + ["--knock", "1.2", "--json"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert ok.returncode == 0 and set(json.loads(ok.stdout)) == {"before", "after"}
    bad = subprocess.run(run + ["--knock", "9.9"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert bad.returncode == 2 and bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1


def test_map_out_never_replaces_another_file_nor_writes_through_a_link(tmp_path, capsys):
    """--map --out follows the rule of every write (attention/out_guard.py), before the model loads."""
    notes = tmp_path / "notes.csv"
    notes.write_text("my own numbers\n1,2,3\n")
    assert cli.main(["heads", "glassllm", TEXT, "--map", "--out", str(notes)]) == 2
    assert notes.read_text() == "my own numbers\n1,2,3\n"
    assert "notes.csv" in capsys.readouterr().err
    link = tmp_path / "map.csv"
    link.symlink_to(notes)
    assert cli.main(["heads", "glassllm", TEXT, "--map", "--out", str(link)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "map.csv" in err
    assert notes.read_text() == "my own numbers\n1,2,3\n"
    ours = tmp_path / "ours.csv"
    assert cli.main(["heads", "glassllm", TEXT, "--map", "--out", str(ours)]) == 0
    first = ours.read_text()
    assert first.startswith("layer,head,delta_logprob\n")
    assert cli.main(["heads", "glassllm", TEXT, "--map", "--out", str(ours)]) == 0  # its own kind: replaced
    assert ours.read_text() == first


def test_text_that_is_not_utf8_is_refused_naming_the_argument(capsys):
    bad = b"Alice \xff was".decode("utf-8", "surrogateescape")  # what Python makes of a terminal's stray byte
    assert cli.main(["heads", "glassllm", bad, "--knock", "1.1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "TEXT" in err and "0xff" in err
    assert cli.main(["heads", "glassllm", "Alice was", "--patch-from", bad, "--knock", "1.1"]) == 2
    assert "--patch-from" in capsys.readouterr().err
