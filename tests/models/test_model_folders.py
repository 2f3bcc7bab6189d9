"""Model folders that are not what the explorer needs get one clear line; a small BERT made here
(random weights, saved with safetensors, 'bert.' prefix as BertForX checkpoints have) runs."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

import attention
from attention.models.bert import BertConfig, BertModel, ModelError, expected_shapes, needed_keys
from attention.models.sentences import encode_batch, layer_scenario, run_sentences
from attention.models.tokenizer import SentenceTokenizer

CONFIG = {"model_type": "bert", "num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 8,
          "intermediate_size": 16, "vocab_size": 30522, "max_position_embeddings": 20, "type_vocab_size": 2,
          "layer_norm_eps": 1e-12, "hidden_act": "gelu", "pad_token_id": 0}


def make_folder(path, minilm_folder, config=CONFIG, prefix="bert.", drop=None, reshape=None):
    from safetensors.torch import save_file

    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps(config))
    shutil.copy(minilm_folder / "tokenizer.json", path / "tokenizer.json")
    gen = torch.Generator().manual_seed(0)
    shapes = expected_shapes(BertConfig.from_dict(CONFIG, "x"))
    tensors = {prefix + k: torch.randn(shape, generator=gen) * 0.5 for k, shape in shapes.items() if k != drop}
    if reshape:
        tensors[prefix + reshape] = torch.zeros(3, 3)
    save_file(tensors, str(path / "model.safetensors"))
    return path


def test_a_small_bert_with_prefix_runs_and_replays(tmp_path, minilm_folder):
    folder = make_folder(tmp_path / "tiny", minilm_folder)
    model, tk = BertModel.load(folder), SentenceTokenizer.load(folder)
    run = run_sentences(model, tk, ["a cat", "the dog sat down"])
    assert run.batch.valid_lens.tolist() == [4, 6]
    for k in range(2):
        w = attention.run(layer_scenario(model, run, k))["attention_weights"].numpy()
        assert np.abs(w - run.forward.attentions[k]).max() <= 1e-5


@pytest.mark.parametrize("change, expected", [
    (lambda p: (p / "model.safetensors").unlink(), "no model.safetensors in this folder"),
    (lambda p: (p / "config.json").write_text("{not json"), "config.json: invalid JSON at line 1"),
    (lambda p: (p / "config.json").write_text(json.dumps({**CONFIG, "model_type": "gpt2"})),
     "model_type is 'gpt2'; only BERT-family"),
    (lambda p: (p / "config.json").write_text(json.dumps({**CONFIG, "position_embedding_type": "relative_key"})),
     "only 'absolute' positions"),
    (lambda p: (p / "config.json").write_text(json.dumps({k: v for k, v in CONFIG.items() if k != "hidden_size"})),
     "config.json has no 'hidden_size'"),
    (lambda p: (p / "model.safetensors").write_bytes((p / "model.safetensors").read_bytes()[:1000]),
     "not a readable safetensors file"),
    (lambda p: (p / "model.safetensors").write_bytes(b"PK\x03\x04 a zip, not safetensors"),
     "not a readable safetensors file"),
])
def test_broken_folders_get_one_clear_line(tmp_path, minilm_folder, change, expected):
    folder = make_folder(tmp_path / "tiny", minilm_folder)
    change(folder)
    with pytest.raises(ModelError) as e:
        BertModel.load(folder)
    assert expected in str(e.value) and "\n" not in str(e.value)


def test_missing_and_misshapen_tensors_are_named(tmp_path, minilm_folder):
    key = "encoder.layer.1.attention.self.key.weight"
    with pytest.raises(ModelError, match=r"the tensor 'encoder.layer.1.attention.self.key.weight' is missing"):
        BertModel.load(make_folder(tmp_path / "a", minilm_folder, drop=key))
    with pytest.raises(ModelError, match=r"encoder.layer.0.output.dense.weight has shape \[3, 3\], config.json "
                                         r"expects \[8, 16\]"):
        BertModel.load(make_folder(tmp_path / "b", minilm_folder, reshape="encoder.layer.0.output.dense.weight"))
    assert len(needed_keys(BertConfig.from_dict(CONFIG, "x"))) == 5 + 2 * 16


def test_sentences_that_cannot_run_are_named(tmp_path, minilm_folder):
    tk = SentenceTokenizer.load(make_folder(tmp_path / "t", minilm_folder))
    with pytest.raises(ModelError, match="sentence 2: type some text"):
        encode_batch(tk, ["fine", "   "], 20)
    with pytest.raises(ModelError, match="sentence 1: 32 tokens; this model reads at most 20"):
        encode_batch(tk, ["word " * 30], 20)
    with pytest.raises(ModelError, match="sentences: expected 1 to 2, got 3"):
        encode_batch(tk, ["a", "b", "c"], 20)
    (tmp_path / "t" / "tokenizer.json").write_text("{}")
    with pytest.raises(ModelError, match="cannot read the tokenizer"):
        SentenceTokenizer.load(tmp_path / "t")


# ---- hostile folders (issue 21): each a ModelError naming the field, never a raw exception -----------

def _load_error(folder) -> str:
    from app.viewmodel.model_session import ModelSession

    with pytest.raises(ModelError) as e:
        session = ModelSession.open(folder)
        session.compute(("a snowman \u2603",))
    text = str(e.value)
    assert "\n" not in text and e.value.text("zh")
    return text


def test_a_tokenizer_whose_unknown_id_is_past_the_vocabulary_is_named(tmp_path, minilm_folder):
    folder = make_folder(tmp_path / "t", minilm_folder)
    tok = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    tok["model"]["vocab"]["[UNK]"] = 1_000_000
    for added in tok["added_tokens"]:
        if added["content"] == "[UNK]":
            added["id"] = 1_000_000
    (folder / "tokenizer.json").write_text(json.dumps(tok), encoding="utf-8")
    text = _load_error(folder)
    assert "the id 1000000" in text and "30522 word embeddings (vocab_size)" in text


def test_a_100000_deep_config_is_refused_as_nested_too_deep(tmp_path, minilm_folder):
    folder = make_folder(tmp_path / "deep", minilm_folder)
    (folder / "config.json").write_text('{"model_type": "bert", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert "nested more than 64 levels deep" in _load_error(folder)


@pytest.mark.parametrize("digits", [5000, 4000, 40])
def test_a_huge_head_count_is_refused_naming_the_field(tmp_path, minilm_folder, digits):
    folder = make_folder(tmp_path / "heads", minilm_folder)
    text = json.dumps(CONFIG).replace('"num_attention_heads": 2', '"num_attention_heads": ' + "7" * digits)
    (folder / "config.json").write_text(text)
    line = _load_error(folder)
    assert "num_attention_heads" in line and len(line) < 400


@pytest.mark.parametrize("field, value", [("num_hidden_layers", 10 ** 6), ("hidden_size", -8), ("vocab_size", 1.5),
                                          ("type_vocab_size", "2"), ("pad_token_id", True)])
def test_sizes_out_of_range_are_refused_before_anything_is_built(tmp_path, minilm_folder, field, value):
    folder = make_folder(tmp_path / "sizes", minilm_folder)
    (folder / "config.json").write_text(json.dumps({**CONFIG, field: value}))
    assert f"{field} is" in _load_error(folder)


def test_tensor_shapes_are_checked_from_the_header_before_reading(tmp_path, minilm_folder, monkeypatch):
    import safetensors

    folder = make_folder(tmp_path / "s", minilm_folder, reshape="encoder.layer.0.output.dense.weight")
    got = []
    real = safetensors.safe_open

    class Counting:
        def __init__(self, *a, **k):
            self.f = real(*a, **k)

        def __enter__(self):
            self.f.__enter__()
            return self

        def __exit__(self, *a):
            return self.f.__exit__(*a)

        def __getattr__(self, name):
            return getattr(self.f, name)

        def get_tensor(self, key):
            got.append(key)
            return self.f.get_tensor(key)

    monkeypatch.setattr(safetensors, "safe_open", Counting)
    with pytest.raises(ModelError, match="has shape"):
        BertModel.load(folder)
    assert got == []


def test_weights_larger_than_the_free_memory_are_refused_before_reading(tmp_path, minilm_folder, monkeypatch):
    from attention.compute import memory

    folder = make_folder(tmp_path / "m", minilm_folder)
    monkeypatch.setattr(memory, "available_bytes", lambda: 1000)
    with pytest.raises(ModelError, match="more than the 1.0 KB of memory free"):
        BertModel.load(folder)


def test_a_sentence_too_long_in_characters_is_refused_before_tokenizing(tmp_path, minilm_folder):
    from attention.models.errors import MAX_SENTENCE_CHARS

    tk = SentenceTokenizer.load(make_folder(tmp_path / "c", minilm_folder))
    with pytest.raises(ModelError, match=f"sentence 2: {MAX_SENTENCE_CHARS + 1:,} characters"):
        encode_batch(tk, ["fine", "a" * (MAX_SENTENCE_CHARS + 1)], 20)
    assert encode_batch(tk, ["a" * MAX_SENTENCE_CHARS], 20).tokens[0] == ("[CLS]", "[UNK]", "[SEP]")
