"""Two sentences as one BERT sentence pair ([CLS] A [SEP] B [SEP], token types 0 / 1) through all-MiniLM-L6-v2.

Two references, neither of them attention.models.bert:
- a float64 BERT forward written here in numpy from the checkpoint's tensors (embeddings with token types,
  post-LN blocks with erf GELU), which every hidden state and attention weight must match;
- transformers' own tokenizer and BertModel on the same pair (tests/models/minilm_pair_golden.npz, made by
  tests/models/make_golden_pair.py): the ids, the token types, every layer's attentions and the last hidden state.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

import attention
from attention.models.errors import ModelError
from attention.models.sentences import encode_pair, layer_scenario, run_sentences

GOLDEN = Path(__file__).with_name("minilm_pair_golden.npz")
PAIR = ("The cat sat on the mat.", "It was tired after the long day.")


def _erf(x: np.ndarray) -> np.ndarray:
    return torch.erf(torch.from_numpy(x)).numpy()  # float64 in, float64 out


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def reference_forward(sd: dict[str, np.ndarray], ids, types, heads: int = 12):
    """BERT's encoder in float64 numpy on one sequence -> (hidden states entering each layer + the output,
    attention weights (H, L, L) per layer)."""
    g = {k: v.astype(np.float64) for k, v in sd.items()}
    ids, types = np.asarray(ids), np.asarray(types)
    L = len(ids)
    x = g["embeddings.word_embeddings.weight"][ids] + g["embeddings.position_embeddings.weight"][:L] \
        + g["embeddings.token_type_embeddings.weight"][types]  # (L, D)
    x = _layer_norm(x, g["embeddings.LayerNorm.weight"], g["embeddings.LayerNorm.bias"])
    hidden, weights = [x], []
    k = 0
    while f"encoder.layer.{k}.attention.self.query.weight" in g:
        p = f"encoder.layer.{k}."

        def lin(v, name, p=p):
            return v @ g[p + name + ".weight"].T + g[p + name + ".bias"]

        D = x.shape[1]
        dk = D // heads
        q, kk, v = (lin(x, f"attention.self.{r}").reshape(L, heads, dk).transpose(1, 0, 2)
                    for r in ("query", "key", "value"))  # (H, L, dk)
        s = q @ kk.transpose(0, 2, 1) / math.sqrt(dk)  # (H, L, L)
        e = np.exp(s - s.max(-1, keepdims=True))
        w = e / e.sum(-1, keepdims=True)
        weights.append(w)
        ctx = (w @ v).transpose(1, 0, 2).reshape(L, D)
        x = _layer_norm(x + lin(ctx, "attention.output.dense"), g[p + "attention.output.LayerNorm.weight"],
                        g[p + "attention.output.LayerNorm.bias"])
        up = lin(x, "intermediate.dense")
        x = _layer_norm(x + lin(0.5 * up * (1 + _erf(up / math.sqrt(2))), "output.dense"),
                        g[p + "output.LayerNorm.weight"], g[p + "output.LayerNorm.bias"])
        hidden.append(x)
        k += 1
    return hidden, weights


@pytest.fixture(scope="module")
def state_dict(minilm_folder):
    from safetensors import safe_open

    with safe_open(str(minilm_folder / "model.safetensors"), "np") as f:
        return {k: f.get_tensor(k) for k in f.keys()}


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
