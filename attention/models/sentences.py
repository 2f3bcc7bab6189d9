"""Sentences through a BERT-family model: tokens, one forward pass, and a chosen layer as a Scenario.

One or two sentences make a batch.  The shorter is padded with the tokenizer's [PAD] id on the
right and its length becomes the scenario's `valid_lens`, so the padded keys are masked exactly as
the model masks them.  Two sentences may instead be one BERT sentence pair (`encode_pair`): one
sequence [CLS] A [SEP] B [SEP] with token types 0 / 1, as the model reads a pair in training;
`Batch.sentence_b_start` is then where B begins (BertViz's `sentence_b_start`).
The scenario of layer k takes the hidden states entering layer k as queries, keys and values
(self-attention) and the layer's own weights (attention.models.layer).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

import attention.words as words
from attention.datamodel import numbers
from attention.datamodel.problem import elide
from attention.datamodel.scenario import Scenario
from attention.models.bert import MASK_FILL, BertModel, Forward, ModelError
from attention.models.errors import MAX_SENTENCE_CHARS, MAX_SENTENCES
from attention.models.layer import to_scenario
from attention.models.tokenizer import SentenceTokenizer

#: Characters of a sentence quoted in a layer scenario's notes.
NOTE_CHARS = 200


@dataclass(frozen=True)
class Batch:
    """Token ids of one or two sentences, padded to one length L."""

    sentences: tuple[str, ...]
    tokens: tuple[tuple[str, ...], ...]  # per sentence, without padding
    ids: np.ndarray  # (B, L) int64
    type_ids: np.ndarray  # (B, L) int64
    valid_lens: np.ndarray  # (B,) int64
    unk_token: Optional[str] = None  # the tokenizer's token for words outside its vocabulary ([UNK])
    sentence_b_start: Optional[int] = None  # a sentence pair (B = 1): the first position of sentence B

    @property
    def L(self) -> int:
        return int(self.ids.shape[1])

    @property
    def is_pair(self) -> bool:
        return self.sentence_b_start is not None

    def pair_labels(self) -> tuple[str, ...]:
        """A pair's tokens named for their sentence ("A: the", "B: cat"); [CLS] and the first [SEP]
        belong to A, as their token type (0) and BertViz's sentence_b_start say."""
        start = self.sentence_b_start
        return tuple(f"{'A' if j < start else 'B'}: {t}" for j, t in enumerate(self.tokens[0]))

    def padded_tokens(self, b: int, pad: str) -> tuple[str, ...]:
        """Sentence b's tokens, then `pad` up to L."""
        toks = self.tokens[b]
        return toks + (pad,) * (self.L - len(toks))

    def unknown(self) -> tuple[int, ...]:
        """Per sentence, how many of its tokens (with [CLS]/[SEP]) are the unknown token."""
        return tuple(sum(t == self.unk_token for t in toks) if self.unk_token else 0 for toks in self.tokens)

    def axis_labels(self, pad: str) -> tuple[str, ...]:
        """One label per position for the step panes: the token, or 'a / b' where two sentences differ
        (a pair: each token named for its sentence, "A: the")."""
        if self.is_pair:
            return self.pair_labels()
        rows = [self.padded_tokens(b, pad) for b in range(len(self.tokens))]
        return tuple(col[0] if len(set(col)) == 1 else " / ".join(col) for col in zip(*rows))


@dataclass(frozen=True)
class ModelRun:
    batch: Batch
    forward: Forward


def encode_batch(tokenizer: SentenceTokenizer, sentences: list[str] | tuple[str, ...], max_len: int,
                 vocab_size: Optional[int] = None, type_vocab_size: Optional[int] = None) -> Batch:
    """Tokenize and pad; ModelError names the sentence that is empty of text or too long, or whose
    ids the model has no embedding for (a tokenizer.json from another model: [UNK] = 1,000,000
    used to end in an IndexError inside the forward pass)."""
    texts = tuple(s for s in sentences)
    if not 1 <= len(texts) <= MAX_SENTENCES:
        raise ModelError("sentence_count", count=len(texts), most=MAX_SENTENCES)
    encoded = []
    for i, text in enumerate(texts):
        if not text.strip():
            raise ModelError("sentence_empty", index=numbers.position(i))
        if len(text) > MAX_SENTENCE_CHARS:
            raise ModelError("sentence_chars", index=numbers.position(i), count=f"{len(text):,}",
                             most=f"{MAX_SENTENCE_CHARS:,}")
        e = tokenizer.encode(text)
        if len(e.ids) > max_len:
            raise ModelError("sentence_too_long", index=numbers.position(i), count=len(e.ids), most=max_len)
        _check_ids(e, i, vocab_size, type_vocab_size)
        encoded.append(e)
    L = max(len(e.ids) for e in encoded)
    ids = np.full((len(encoded), L), tokenizer.pad_id, dtype=np.int64)
    types = np.zeros((len(encoded), L), dtype=np.int64)
    for b, e in enumerate(encoded):
        ids[b, :len(e.ids)] = e.ids
        types[b, :len(e.ids)] = e.type_ids
    lens = np.array([len(e.ids) for e in encoded], dtype=np.int64)
    return Batch(texts, tuple(e.tokens for e in encoded), ids, types, lens, getattr(tokenizer, "unk_token", None))


def unknown_text(batch: Batch, lang: Optional[str] = None) -> str:
    """'14 of 20 tokens are unknown to the model ([UNK]) ...', one clause per sentence that has any; '' if none.
    A sentence in a script the vocabulary lacks (Chinese through an English WordPiece) otherwise runs as a
    row of identical [UNK]s without a word."""
    said = []
    for i, (n, toks) in enumerate(zip(batch.unknown(), batch.tokens)):
        if not n:
            continue
        args = {"unknown": n, "count": len(toks), "unk": batch.unk_token}
        said.append(words.text("sentence_unknown_in", lang, index=numbers.position(i), **args) if len(batch.tokens) > 1
                    else words.text("sentence_unknown", lang, **args))
    return ("；" if words.normalize(lang) == "zh" else "; ").join(said)


def _check_ids(e, i: Optional[int], vocab_size: Optional[int], type_vocab_size: Optional[int]) -> None:
    """Every id must have a row in the embedding tables it indexes (i None: a pair, whose token
    types say which sentence a token came from)."""
    for ids, tokens, size, key in ((e.ids, e.tokens, vocab_size, "model_token_id"),
                                   (e.type_ids, e.tokens, type_vocab_size, "model_token_type")):
        if size is None:
            continue
        bad = next((j for j, n in enumerate(ids) if not 0 <= n < size), None)
        if bad is not None:
            which = i if i is not None else min(max(int(e.type_ids[bad]), 0), 1)
            raise ModelError(key, index=numbers.position(which), token=elide(tokens[bad], 40), id=ids[bad],
                             vocab=size)


def encode_pair(tokenizer: SentenceTokenizer, sentences: list[str] | tuple[str, ...], max_len: int,
                vocab_size: Optional[int] = None, type_vocab_size: Optional[int] = None) -> Batch:
    """Two sentences as one BERT sentence pair (B = 1, no padding); ModelError names the sentence that
    is empty or too long, or says that the pair together is longer than the model reads."""
    texts = tuple(sentences)
    if len(texts) != 2:
        raise ModelError("sentence_pair_count", count=len(texts))
    for i, text in enumerate(texts):
        if not text.strip():
            raise ModelError("sentence_empty", index=numbers.position(i))
        if len(text) > MAX_SENTENCE_CHARS:
            raise ModelError("sentence_chars", index=numbers.position(i), count=f"{len(text):,}",
                             most=f"{MAX_SENTENCE_CHARS:,}")
    e = tokenizer.encode_pair(*texts)
    if len(e.ids) > max_len:
        raise ModelError("sentence_pair_too_long", count=len(e.ids), most=max_len)
    _check_ids(e, None, vocab_size, type_vocab_size)
    start = next((j for j, t in enumerate(e.type_ids) if t != e.type_ids[0]), len(e.ids))
    ids = np.array([e.ids], dtype=np.int64)  # (1, L)
    types = np.array([e.type_ids], dtype=np.int64)  # (1, L)
    return Batch(texts, (e.tokens,), ids, types, np.array([len(e.ids)], dtype=np.int64),
                 getattr(tokenizer, "unk_token", None), sentence_b_start=start)


def run_sentences(model: BertModel, tokenizer: SentenceTokenizer, sentences, pair: bool = False) -> ModelRun:
    """Tokens and the whole forward pass (every hidden state, every layer's attention weights); with
    `pair`, two sentences are one sentence pair (one sentence stays a batch of one)."""
    encode = encode_pair if pair and len(tuple(sentences)) == 2 else encode_batch
    batch = encode(tokenizer, sentences, model.config.max_positions, model.config.vocab_size,
                   model.config.type_vocab_size)
    return ModelRun(batch, model.forward(batch.ids, batch.valid_lens, batch.type_ids))


def layer_scenario(model: BertModel, run: ModelRun, layer: int, pad_token: str = "[PAD]",
                   dtype: str = "float32") -> Scenario:
    """Layer `layer` of `model` on the hidden states that enter it, as an ordinary Scenario.

    valid_lens is set only when the sentences differ in length (a single sentence has no padding).
    Layers and heads are numbered from 1 in the words a person reads (as the step panes number heads)."""
    c = model.config
    if not 0 <= layer < c.n_layers:
        raise ModelError("model_layer_range", layer=layer, count=c.n_layers)
    x = run.forward.hidden[layer].astype(np.float64)  # (B, L, d_model)
    lens = run.batch.valid_lens
    labels = run.batch.axis_labels(pad_token)
    title = {lang: words.text("model_layer_title", lang, model=model.name, layer=layer + 1, count=c.n_layers)
             for lang in words.LANGS}
    text = " | ".join(("AB"[i] + ": " if run.batch.is_pair else "") + elide(s, NOTE_CHARS)
                      for i, s in enumerate(run.batch.sentences))
    notes = {lang: _with_unknown(words.text("model_layer_notes", lang, model=model.name, layer=layer + 1,
                                            sentences=text, heads=c.n_heads, d_model=c.d_model),
                                 unknown_text(run.batch, lang), lang)
             for lang in words.LANGS}
    padded: Optional[np.ndarray] = lens.copy() if int(lens.min()) < run.batch.L else None
    return to_scenario(model.layer_weights(layer), x, valid_lens=padded, fill_value=MASK_FILL,
                       query_tokens=labels, key_tokens=labels, title=title, notes=notes, dtype=dtype)


def _with_unknown(notes: str, unknown: str, lang: str) -> str:
    """The layer's notes, then the unknown-token count as its own sentence (when there is one)."""
    if not unknown:
        return notes
    return f"{notes} {unknown}。" if words.normalize(lang) == "zh" else f"{notes} {unknown[0].upper()}{unknown[1:]}."
