"""A sentence in a script MiniLM's vocabulary lacks (Chinese through an English WordPiece) runs as a row of
[UNK]s: the model view, the layer's notes and `main.py run minilm` say how many, in both languages.

The expected counts come from the folder's vocab.txt read here: BERT's tokenizer splits every CJK
character into a token of its own, so a character outside the vocabulary is one [UNK]."""
from __future__ import annotations

import contextlib
import io

from attention.cli import main
from attention.models.sentences import encode_batch, layer_scenario, run_sentences, unknown_text

CHINESE = "我喜欢在公园里散步，天气很好。"


def _expected(folder, sentence: str) -> tuple[int, int]:
    """(unknown, tokens) from vocab.txt: one token per character, plus [CLS] and [SEP]."""
    vocab = set((folder / "vocab.txt").read_text(encoding="utf-8").splitlines())
    chars = [c for c in sentence if not c.isspace()]
    return sum(c not in vocab for c in chars), len(chars) + 2


def test_the_count_of_unknown_tokens_is_said_in_both_languages(minilm, minilm_folder):
    model, tokenizer = minilm
    unknown, count = _expected(minilm_folder, CHINESE)
    assert 0 < unknown < count  # some characters are known, some are not
    batch = encode_batch(tokenizer, [CHINESE], model.config.max_positions)
    assert unknown_text(batch, "en").startswith(f"{unknown} of {count} tokens are unknown to the model ([UNK])")
    assert unknown_text(batch, "zh").startswith(f"{count} 个词元中有 {unknown} 个是模型不认识的（[UNK]）")
    # two sentences: only the one that has unknown tokens is named, by its number from 1
    two = encode_batch(tokenizer, ["the cat sat", CHINESE], model.config.max_positions)
    assert unknown_text(two, "en").startswith(f"sentence 2: {unknown} of {count} tokens")
    assert unknown_text(two, "zh").startswith(f"第 2 句：{count} 个词元中有 {unknown} 个")
    # an English sentence: nothing to say
    assert unknown_text(encode_batch(tokenizer, ["the cat sat"], model.config.max_positions)) == ""


def test_the_layer_notes_say_it(minilm, minilm_folder):
    model, tokenizer = minilm
    unknown, count = _expected(minilm_folder, CHINESE)
    sc = layer_scenario(model, run_sentences(model, tokenizer, [CHINESE]), 0, tokenizer.pad_token)
    assert f"{unknown} of {count} tokens are unknown to the model" in sc.notes["en"]
    assert f"{count} 个词元中有 {unknown} 个是模型不认识的" in sc.notes["zh"]


def test_main_py_run_minilm_prints_it(minilm_folder, tmp_path, monkeypatch):
    from attention.files import scenario_io

    saved = []
    monkeypatch.setattr(scenario_io, "save", lambda sc, path, **kw: saved.append(path))  # writing 6 layers' JSON: 30 s
    unknown, count = _expected(minilm_folder, CHINESE)
    for lang, want in (("en", f"{unknown} of {count} tokens are unknown to the model ([UNK])"),
                       ("zh", f"{count} 个词元中有 {unknown} 个是模型不认识的（[UNK]）")):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["run", "minilm", CHINESE, "--out", str(tmp_path / lang), "--lang", lang]) == 0
        assert want in out.getvalue(), out.getvalue()
    assert len(saved) == 12
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["run", "minilm", "the cat sat", "--out", str(tmp_path / "en2")]) == 0
    assert "unknown" not in out.getvalue()
