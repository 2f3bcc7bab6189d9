"""A model folder's own tokenizer (tokenizer.json, read by the `tokenizers` package, `.[models]`).

Why `tokenizers` and not a hand-written WordPiece: the folder's tokenizer.json is the exact
recipe the model was trained with (normalizer, pre-tokenizer, vocabulary, special tokens);
reading it avoids a second, almost-equal tokenizer.  The file can carry fixed padding and
truncation (all-MiniLM-L6-v2's pads every sentence to 128): both are switched off here,
because the explorer pads a batch itself and says so when a sentence is too long.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from attention.models.bert import ModelError

TOKENIZER_FILE = "tokenizer.json"


@dataclass(frozen=True)
class Encoded:
    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    type_ids: tuple[int, ...]


class SentenceTokenizer:
    """tokenizer.json of a folder; `encode` gives ids and tokens with [CLS] ... [SEP]."""

    def __init__(self, tokenizer, pad_id: int, pad_token: str):
        self._tk = tokenizer
        self.pad_id = pad_id
        self.pad_token = pad_token
        # the token a word outside the vocabulary becomes (WordPiece's [UNK]); None where the model has none
        unk = getattr(getattr(tokenizer, "model", None), "unk_token", None)
        self.unk_token: Optional[str] = unk if isinstance(unk, str) and unk else None

    @classmethod
    def load(cls, folder: str | Path, pad_id: int = 0) -> "SentenceTokenizer":
        path = Path(folder) / TOKENIZER_FILE
        if not path.is_file():
            raise ModelError("model_missing_file", folder=str(folder), file=TOKENIZER_FILE)
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise ModelError("model_needs_package", package="tokenizers") from None
        try:
            tk = Tokenizer.from_file(str(path))
        except Exception as e:  # the Rust side raises a bare Exception for any unreadable file
            raise ModelError("model_tokenizer_unreadable", where=str(path),
                                        why=str(e).splitlines()[0] if str(e) else type(e).__name__) from None
        pad_token = (tk.padding or {}).get("pad_token") or tk.id_to_token(pad_id) or "[PAD]"
        pad_id = (tk.padding or {}).get("pad_id", pad_id)
        tk.no_padding()
        tk.no_truncation()
        return cls(tk, int(pad_id), str(pad_token))

    def encode(self, text: str) -> Encoded:
        e = self._tk.encode(text)
        return Encoded(tuple(e.ids), tuple(e.tokens), tuple(e.type_ids))

    def encode_pair(self, text_a: str, text_b: str) -> Encoded:
        """A sentence pair as the model was trained on pairs: the file's own pair template (BERT's
        [CLS] A [SEP] B [SEP], token type 0 for A and its [SEP], 1 for B and the last [SEP])."""
        e = self._tk.encode(text_a, text_b)
        return Encoded(tuple(e.ids), tuple(e.tokens), tuple(e.type_ids))
