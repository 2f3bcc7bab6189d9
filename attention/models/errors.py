"""ModelError and the sentence limits, kept free of torch so the window can name them before torch is imported."""
from __future__ import annotations

from typing import Optional

import attention.words as words

#: Sentences one batch may have.
MAX_SENTENCES = 2
#: Characters one sentence may have: far above what 512 tokens take (~3,000 in English), and low
#: enough that no widget chokes on showing it (a 100,000-character line froze the window ~9 s).
MAX_SENTENCE_CHARS = 10_000


class ModelError(ValueError):
    """A folder or sentence the model cannot take: one line that names what was found.

    Holds the catalogue id and its arguments, so the window can word it in either language."""

    def __init__(self, message_id: str, /, **args) -> None:
        self.message_id, self.fields = message_id, args
        super().__init__(self.text())

    def text(self, lang: Optional[str] = None) -> str:
        from attention.datamodel.problem import rendered  # a field's expected range is a Phrase (attention/limits.py)

        return words.text(self.message_id, lang, **rendered(self.fields, lang))
