"""The tokenizer a GGUF file describes in its metadata, built with the `tokenizers` package.

A GGUF has no tokenizer.json: llama.cpp stores the vocabulary (`tokenizer.ggml.tokens`), the merges
(`tokenizer.ggml.merges`), each token's type (`tokenizer.ggml.token_type`: 3 = control) and how text is split
before the merges (`tokenizer.ggml.pre`).  For `tokenizer.ggml.model` "gpt2" that is a GPT-2-style byte-level
BPE: text -> pre-split -> bytes spelled as GPT-2's printable alphabet (space = Ġ) -> merges.

Pre-splits built (llama.cpp's llama-vocab.cpp names them; others are refused, naming the key, rather than
guessed, since a wrong split gives other token ids without any error):

- "default", "gpt-2": GPT-2's regex
  ('s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+);
- "smollm": every digit alone first (\\p{N}), then GPT-2's regex (SmolLM2's own tokenizer.json: Digits
  (individual_digits) then ByteLevel).

Control tokens (<|im_start|> ...) are matched whole in the text.  BOS/EOS are added only where the file's
`tokenizer.ggml.add_bos_token` / `add_eos_token` say so (SmolLM2: neither).
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any, Optional

from attention.models.checkpoint import CheckpointError
from attention.models.token_text import visible

CONTROL = 3  # llama.cpp's token type of a control token
PRE_SPLITS = ("default", "gpt-2", "smollm")


@dataclass
class GGUFTokenizer:
    """encode(text) -> ids and token_labels(ids) -> what each token reads as (spaces shown as ▁).

    Also wraps a Hugging Face folder's tokenizer.json (llama.load_folder), whose own post-processor adds BOS."""

    backend: Any  # tokenizers.Tokenizer
    bos_id: Optional[int]
    eos_id: Optional[int]
    add_bos: bool
    add_eos: bool
    post_process: bool = False  # let the backend's own post-processor add BOS/EOS (a folder's tokenizer.json)

    def encode(self, text: str) -> list[int]:
        ids = list(self.backend.encode(text, add_special_tokens=self.post_process).ids)
        if self.add_bos and self.bos_id is not None:
            ids = [self.bos_id] + ids
        if self.add_eos and self.eos_id is not None:
            ids = ids + [self.eos_id]
        return ids

    def token_texts(self, ids: list[int]) -> list[str]:
        """Each token decoded on its own, as it is (' fox', '\\n'); a token that decodes to nothing (a special
        token) as its vocabulary entry. What files and JSON carry."""
        out = []
        for i in ids:
            text = self.backend.decode([int(i)], skip_special_tokens=False)
            out.append(text or self.backend.id_to_token(int(i)) or "?")
        return out

    def token_labels(self, ids: list[int]) -> list[str]:
        """Each token as a person reads it: ' fox' -> '▁fox', a newline -> '↵' (a token that ends inside a
        multi-byte character reads as '�', as it does in llama.cpp)."""
        return [visible(t) for t in self.token_texts(ids)]

    def decode(self, ids: list[int]) -> str:
        """The text of `ids`; the BOS that `encode` puts first is left out, so encode(decode(ids)) reads it once."""
        ids = [int(i) for i in ids]
        if self.add_bos and self.bos_id is not None and ids[:1] == [self.bos_id]:
            ids = ids[1:]
        return self.backend.decode(ids, skip_special_tokens=False)


def require(meta: dict[str, Any], where: str, model: str, expected: str) -> None:
    """The `tokenizers` package is installed and the file's tokenizer.ggml.model is `model`; else CheckpointError."""
    if importlib.util.find_spec("tokenizers") is None:  # the `models` extra is not installed
        raise CheckpointError("models.error.gguf_package", path=where, pip="tokenizers")
    kind = meta.get("tokenizer.ggml.model")
    if kind != model:
        raise CheckpointError("models.error.gguf_tokenizer", path=where, field="tokenizer.ggml.model",
                              value=repr(kind), expected=expected)


def build(meta: dict[str, Any], where: str) -> GGUFTokenizer:
    """The tokenizer from the metadata dict (keys as in the file); CheckpointError names a key it cannot build."""
    require(meta, where, "gpt2", "gpt2 (byte-level BPE)")
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    pre = meta.get("tokenizer.ggml.pre", "default")
    if pre not in PRE_SPLITS:
        raise CheckpointError("models.error.gguf_tokenizer", path=where, field="tokenizer.ggml.pre", value=repr(pre),
                              expected=" / ".join(PRE_SPLITS))
    tokens = meta.get("tokenizer.ggml.tokens")
    merges = meta.get("tokenizer.ggml.merges")
    if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
        raise CheckpointError("models.error.gguf_key", path=where, field="tokenizer.ggml.tokens",
                              value=type(tokens).__name__, expected="a list of token strings")
    pairs = [tuple(m.split(" ")) for m in merges] if isinstance(merges, list) else None
    if pairs is None or any(len(p) != 2 for p in pairs):
        raise CheckpointError("models.error.gguf_key", path=where, field="tokenizer.ggml.merges",
                              value=type(merges).__name__, expected="a list of 'left right' merges")
    vocab = {t: i for i, t in enumerate(tokens)}
    backend = Tokenizer(models.BPE(vocab=vocab, merges=pairs, fuse_unk=False))
    split = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if pre == "smollm":
        split = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), split])
    backend.pre_tokenizer = split
    backend.decoder = decoders.ByteLevel()
    types = meta.get("tokenizer.ggml.token_type") or []
    control = [t for t, kind_ in zip(tokens, types) if kind_ == CONTROL]
    backend.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in control])
    return GGUFTokenizer(backend, _token_id(meta, "tokenizer.ggml.bos_token_id", len(tokens), where),
                         _token_id(meta, "tokenizer.ggml.eos_token_id", len(tokens), where),
                         bool(meta.get("tokenizer.ggml.add_bos_token", False)),
                         bool(meta.get("tokenizer.ggml.add_eos_token", False)))


def _token_id(meta: dict, key: str, n: int, where: str) -> Optional[int]:
    value = meta.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or not 0 <= value < n:
        raise CheckpointError("models.error.gguf_key", path=where, field=key, value=repr(value),
                              expected=f"a token id 0 to {n - 1}")
    return value
