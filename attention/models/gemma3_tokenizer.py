"""Gemma 3's tokenizer from a GGUF file's vocabulary, built with the `tokenizers` package as transformers builds it.

The file stores a SentencePiece BPE vocabulary (`tokenizer.ggml.model` "llama": 262,144 tokens, scores, token
types) and no merges.  transformers' GGUF loading (integrations/gguf/gguf_tokenizer_mapping.gemma_tokenizer, 5.25)
makes its GemmaTokenizer from it; so does `build`, with the same `tokenizers` pieces, so that both give the same
ids (tests/models/golden_gemma3_tokens.json: Chinese, English, mixed, spaces and newlines, emoji, rare characters):

- a token made only of whitespace with a space in it (the file writes "  " with real spaces) is spelled with
  SentencePiece's ▁ instead, one per character, as GemmaTokenizer looks it up;
- merges: every split of every token into two tokens of the vocabulary, best first in the file's order of the
  merged token (Gemma's scores do not follow its merge order; the file's order does), then the longer left part;
- models.BPE(vocab, merges, byte_fallback, fuse_unk, unk "<unk>"); normalizer: spaces -> ▁; pre-tokenizer:
  split after each space (GemmaTokenizer's; after the normalizer it finds none); decoder: ▁ -> space, byte
  fallback (<0xE4><0xBD><0xA0> -> 你), fuse;
- control tokens (type 3: <bos>, <start_of_turn>, <unused0> ...) are special and matched whole; user-defined ones
  (type 4: "\\n", "<table>" ...) that the vocabulary spells the same are matched whole too, not special;
- BOS (id 2) is put first where `tokenizer.ggml.add_bos_token` says so (Gemma: yes), as the file asks.

Refused, naming the key: a tokenizer model other than "llama", a vocabulary that is not a list of strings, token
types of another length, no byte-fallback tokens, a BOS id outside the vocabulary.
"""
from __future__ import annotations

from typing import Any

from attention.models.checkpoint import CheckpointError
from attention.models.gguf_tokenizer import GGUFTokenizer, _token_id, require

CONTROL, USER_DEFINED = 3, 4  # llama.cpp's token types
SPACE = "\u2581"  # SentencePiece's ▁


def spelled(tokens: list[str]) -> list[str]:
    """The vocabulary as GemmaTokenizer looks tokens up: whitespace-only tokens with a space become ▁ runs."""
    return [SPACE * len(t) if " " in t and not t.strip() else t for t in tokens]


def merges_of(tokens: list[str]) -> list[tuple[str, str]]:
    """Every (left, right) with left + right a token and both tokens: by the merged token's place in the file,
    then the longer left part first (a later duplicate of a token counts at its later place, as a dict keeps it)."""
    vocab = {t: i for i, t in enumerate(tokens)}
    ranked = []
    for t, i in vocab.items():
        ranked.extend((i, -j, t[:j], t[j:]) for j in range(1, len(t)) if t[:j] in vocab and t[j:] in vocab)
    ranked.sort(key=lambda r: r[:2])  # file order, then the longer left part
    return [(a, b) for _, _, a, b in ranked]


def build(meta: dict[str, Any], where: str) -> GGUFTokenizer:
    """The tokenizer from the metadata (keys as in the file); CheckpointError names a key it cannot build."""
    require(meta, where, "llama", "llama (SentencePiece BPE)")
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers

    tokens = meta.get("tokenizer.ggml.tokens")
    if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
        raise CheckpointError("models.error.gguf_key", path=where, field="tokenizer.ggml.tokens",
                              value=type(tokens).__name__, expected="a list of token strings")
    types = meta.get("tokenizer.ggml.token_type")
    types = [] if types is None else [int(t) for t in types]
    if types and len(types) != len(tokens):
        raise CheckpointError("models.error.gguf_key", path=where, field="tokenizer.ggml.token_type",
                              value=f"{len(types)} types", expected=f"one per token ({len(tokens)})")
    if "<0x00>" not in tokens or "<0xFF>" not in tokens:
        raise CheckpointError("models.error.gguf_key", path=where, field="tokenizer.ggml.tokens",
                              value="no <0x00> ... <0xFF>", expected="SentencePiece's 256 byte-fallback tokens")
    bos = _token_id(meta, "tokenizer.ggml.bos_token_id", len(tokens), where)
    eos = _token_id(meta, "tokenizer.ggml.eos_token_id", len(tokens), where)
    words = spelled(tokens)
    vocab = {t: i for i, t in enumerate(words)}
    backend = Tokenizer(models.BPE(vocab=vocab, merges=merges_of(words), unk_token="<unk>", fuse_unk=True,
                                   byte_fallback=True, dropout=None))
    backend.normalizer = normalizers.Replace(" ", SPACE)
    backend.pre_tokenizer = pre_tokenizers.Split(pattern=" ", behavior="merged_with_previous", invert=False)
    backend.decoder = decoders.Sequence([decoders.Replace(SPACE, " "), decoders.ByteFallback(), decoders.Fuse()])
    control = [AddedToken(t, special=True, normalized=False) for t, k in zip(tokens, types) if k == CONTROL]
    backend.add_special_tokens(control)
    user = [AddedToken(t, special=False, normalized=False) for t, k in zip(tokens, types)
            if k == USER_DEFINED and t in vocab]
    backend.add_tokens(user)
    return GGUFTokenizer(backend, bos, eos, bool(meta.get("tokenizer.ggml.add_bos_token", True)),
                         bool(meta.get("tokenizer.ggml.add_eos_token", False)))
