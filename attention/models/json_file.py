"""The small JSON files of a model folder (config.json, model.safetensors.index.json), read without trusting them.

Why not plain `json.loads`: a 100,000-deep config.json raised RecursionError, a 5,000-digit
`num_attention_heads` a ValueError (Python reads at most 4,300 digits), and a FIFO named
config.json would block the reader forever; none of those is a line a person can act on.
`read(path)` refuses each with a `JsonFileError` carrying a catalogue key and its arguments, so
the checkpoint reader and the BERT loader word it in their own error type, in both languages.
Messages name the file and the field, never the file's content.
"""
from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import numpy as np

from attention.datamodel.problem import count, elide

#: A config or index is a few KB; 64 MB is far above any real one (a 70B model's index is ~100 KB).
MAX_BYTES = 64 << 20
#: Nesting deeper than this is refused before parsing (real configs nest 3 or 4 levels).
MAX_DEPTH = 64
#: Digits a whole number in a config may have (a size of 10^18 has 19).
MAX_DIGITS = 30
#: Characters of a field name quoted in a message.
NAME_CHARS = 60


class JsonFileError(ValueError):
    """One catalogue key (attention/words/importing.py, `models.json.*`) and its arguments."""

    def __init__(self, key: str, /, **args: Any):
        self.key, self.args_ = key, args
        super().__init__(key)


class _Long:
    """A number with too many digits, kept until the object holding it names its field."""

    def __init__(self, digits: int):
        self.digits = digits


def regular_file(path: Path) -> bool:
    """True for an existing regular file (after symlinks); a FIFO, socket or device is not one."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def read(path: Path, where: str) -> Any:
    """The parsed JSON of `path`; `where` names it in messages ("tiny/config.json")."""
    if not regular_file(path):
        raise JsonFileError("models.json.not_regular", path=where)
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise JsonFileError("models.json.too_big", path=where, size=count(size), limit=count(MAX_BYTES))
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as e:
        raise JsonFileError("models.json.unreadable", path=where, why=e.strerror or type(e).__name__) from None
    except UnicodeDecodeError as e:
        raise JsonFileError("models.json.not_utf8", path=where, offset=e.start) from None
    if _depth(text) > MAX_DEPTH:
        raise JsonFileError("models.json.deep", path=where, limit=MAX_DEPTH)
    try:
        return json.loads(text, parse_int=_int, object_pairs_hook=lambda pairs: _object(pairs, where))
    except json.JSONDecodeError as e:
        raise JsonFileError("models.json.syntax", path=where, line=e.lineno, column=e.colno, reason=e.msg) from None
    except RecursionError:  # pragma: no cover - _depth refuses these first
        raise JsonFileError("models.json.deep", path=where, limit=MAX_DEPTH) from None


def _int(text: str) -> int | _Long:
    digits = len(text.lstrip("-"))
    return _Long(digits) if digits > MAX_DIGITS else int(text)


def _object(pairs: list[tuple[str, Any]], where: str) -> dict:
    for key, value in pairs:
        longs = [v for v in value if isinstance(v, _Long)] if isinstance(value, list) else [value]
        long = next((v for v in longs if isinstance(v, _Long)), None)
        if long is not None:
            raise JsonFileError("models.json.long_number", path=where, field=elide(str(key), NAME_CHARS),
                                digits=count(long.digits), limit=MAX_DIGITS)
    return dict(pairs)


def _depth(text: str) -> int:
    """The deepest nesting of [ and { outside strings (json's own parser recurses, so this is
    counted first): strings removed, then a running sum over the brackets."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return 0  # cannot nest deeper than it has brackets
    brackets = _BRACKETS.findall(_STRINGS.sub("", text))
    steps = np.fromiter((1 if b in "[{" else -1 for b in brackets), dtype=np.int64, count=len(brackets))
    return int(np.cumsum(steps).max(initial=0))


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")
