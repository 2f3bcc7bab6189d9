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
    (lambda p: (p / "config.json").write_text("{not json"), "cannot read config.json"),
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
