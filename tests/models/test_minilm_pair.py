"""Two sentences as one BERT sentence pair ([CLS] A [SEP] B [SEP], token types 0 / 1) through all-MiniLM-L6-v2.

Two references, neither of them attention.models.bert:
- a float64 BERT forward written in numpy (tests/models/bert64.py) from the checkpoint's tensors (embeddings
  with token types, post-LN blocks with erf GELU), which every hidden state and attention weight must match;
- transformers' own tokenizer and BertModel on the same pair (tests/models/minilm_pair_golden.npz, made by
  tests/models/make_golden_pair.py): the ids, the token types, every layer's attentions and the last hidden state.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bert64 import read_state_dict, reference_forward

import attention
from attention.models.errors import ModelError
from attention.models.sentences import encode_pair, layer_scenario, run_sentences

GOLDEN = Path(__file__).with_name("minilm_pair_golden.npz")
PAIR = ("The cat sat on the mat.", "It was tired after the long day.")


@pytest.fixture(scope="module")
def state_dict(minilm_folder):
    return read_state_dict(minilm_folder)


def test_the_pair_is_tokenized_as_transformers_does(minilm):
    model, tk = minilm
    g = np.load(GOLDEN)
    batch = encode_pair(tk, (str(g["text_a"]), str(g["text_b"])), 512, model.config.vocab_size,
                        model.config.type_vocab_size)
    assert batch.ids[0].tolist() == g["ids"].tolist()
    assert batch.type_ids[0].tolist() == g["type_ids"].tolist()
    assert batch.sentence_b_start == int(np.argmax(g["type_ids"]))  # the first type-1 position
    toks = batch.tokens[0]
    assert toks[0] == "[CLS]" and toks[batch.sentence_b_start - 1] == "[SEP]" and toks[-1] == "[SEP]"
    assert batch.valid_lens.tolist() == [len(toks)] and batch.ids.shape == (1, len(toks))


def test_every_hidden_state_and_weight_of_the_pair_matches_a_float64_bert(minilm, state_dict):
    model, tk = minilm
    run = run_sentences(model, tk, PAIR, pair=True)
    assert run.batch.is_pair and run.batch.type_ids[0].tolist().count(1) == len(run.batch.tokens[0]) - \
        run.batch.sentence_b_start
    hidden, weights = reference_forward(state_dict, run.batch.ids[0], run.batch.type_ids[0])
    assert len(hidden) == 7
    for k in range(7):
        assert np.abs(run.forward.hidden[k][0] - hidden[k]).max() <= 1e-4, k
    for k in range(6):
        assert np.abs(run.forward.attentions[k, 0] - weights[k]).max() <= 1e-5, k
    # the token types matter: the same ids all typed 0 give other hidden states
    flat, _ = reference_forward(state_dict, run.batch.ids[0], np.zeros_like(run.batch.type_ids[0]))
    assert np.abs(flat[1] - hidden[1]).max() > 1e-2


def test_transformers_golden_pair(minilm):
    model, tk = minilm
    g = np.load(GOLDEN)
    run = run_sentences(model, tk, (str(g["text_a"]), str(g["text_b"])), pair=True)
    golden = g["attentions"]  # (layers, H, L, L)
    for k in range(6):
        w = attention.run(layer_scenario(model, run, k))["attention_weights"].numpy()[0]
        assert np.abs(w - golden[k]).max() <= 1e-5, k
    assert np.abs(run.forward.hidden[6][0] - g["last_hidden"]).max() <= 1e-4


def test_a_pair_layer_names_each_token_for_its_sentence(minilm):
    model, tk = minilm
    run = run_sentences(model, tk, ("Hello there.", "Hi."), pair=True)
    sc = layer_scenario(model, run, 2)
    assert sc.batch == 1 and sc.valid_lens is None
    assert sc.query_tokens == ("A: [CLS]", "A: hello", "A: there", "A: .", "A: [SEP]", "B: hi", "B: .", "B: [SEP]")
    assert sc.key_tokens == sc.query_tokens
    assert "A: Hello there. | B: Hi." in sc.notes["en"]
    # one sentence with the pair chosen is a batch of one, as before
    one = run_sentences(model, tk, ("Hello there.",), pair=True)
    assert not one.batch.is_pair and one.batch.tokens[0][-1] == "[SEP]"


def test_a_pair_that_cannot_run_names_why(minilm):
    model, tk = minilm
    with pytest.raises(ModelError) as e:
        run_sentences(model, tk, ("Hello.", "   "), pair=True)
    assert e.value.text("en") == "sentence 2: type some text"
    with pytest.raises(ModelError) as e:
        run_sentences(model, tk, ("word " * 300, "word " * 300), pair=True)
    assert e.value.text("en") == ("the sentence pair: 603 tokens together ([CLS] A [SEP] B [SEP]); this model "
                                  "reads at most 512")
    assert "句子对：合计 603 个词元" in e.value.text("zh")
