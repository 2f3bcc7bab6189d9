"""`main.py run` on a .gguf file and on a Hugging Face Llama folder (tiny random decoders written by the GGUF
tests' helpers): each layerN.json reproduces layer N of the independent float64 reference written out in
test_gguf_files (llama.cpp's layout), and the printed top 5 are the reference's largest probabilities."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gguf")
pytest.importorskip("tokenizers")

from test_gguf_files import LAYERS, TOKENS, file_rows, hf_folder, random_model, reference, write  # noqa: E402

import attention  # noqa: E402
from attention import cli  # noqa: E402
from attention.files import scenario_io

TEXT = " the 12 the"
PIECES = ["Ġt", "he", "Ġ", "1", "2", "Ġt", "he"]  # the tiny vocabulary's merges, by hand


def _check(tmp_path, model_arg: str, hf: dict, capsys) -> None:
    out = tmp_path / "out"
    assert cli.main(["run", model_arg, TEXT, "--out", str(out), "--lang", "en"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert sorted(p.name for p in out.glob("layer*.json")) == [f"layer{k}.json" for k in range(1, LAYERS + 1)]
    ids = [TOKENS.index(t) for t in PIECES]
    assert len(scenario_io.load(out / "layer1.json").query_tokens) == len(ids)
    attns, logits = reference(file_rows(hf), ids)
    for k in range(LAYERS):  # the hidden states entering layer k, not k ± 1
        w = attention.run(scenario_io.load(out / f"layer{k + 1}.json")).array("attention_weights")[0]
        np.testing.assert_allclose(w, attns[k], rtol=0, atol=1e-9, err_msg=f"layer {k + 1}")
    p = np.exp(logits[-1] - logits[-1].max())
    p /= p.sum()
    top = [int(i) for i in np.argsort(p)[::-1][:5]]
    assert printed[1].startswith("next token after the text (top 5)")
    assert [int(line.rsplit("(id ", 1)[1].rstrip(")")) for line in printed[2:7]] == top


def test_run_a_gguf_file(tmp_path, capsys):
    hf = random_model(11)
    _check(tmp_path, str(write(tmp_path / "tiny.gguf", hf)), hf, capsys)


def test_run_a_llama_folder(tmp_path, capsys):
    hf = random_model(12)
    _check(tmp_path, str(hf_folder(tmp_path, hf)), hf, capsys)
