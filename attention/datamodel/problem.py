"""A problem the loader or the engine reports, as a value: a code, the field path it concerns and
the arguments of its sentence.  The words live in the catalogue (attention/words/problems.py,
English and Chinese, keyed by code); a problem is rendered in a language only when shown, so the
window can show the same problem in either language and group problems by field path without
parsing any text.

    Problem("shape", "projections.query.weight", {"expected": "[4, 4]", "got": "[4, 3]"})
    -> "projections.query.weight: expected shape [4, 4], got [4, 3]"   (English)
    -> "projections.query.weight：形状应为 [4, 4]，实际为 [4, 3]"       (Chinese)

An argument is a literal (a number or a string, shown as it is, cut to `MAX_QUOTE` characters), a
`Phrase` (words from the catalogue, rendered in the same language: "a list", "the string ...")
or a tuple of those (joined by the catalogue's list separator).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import attention.words as words
from attention.datamodel import numbers

#: A quoted value is cut to this many characters ("…" marks the cut): a 1 MB string in a file
#: gives a short line, not a 1 MB one.
MAX_QUOTE = 60
#: Any argument is cut to this many characters (a quoted value is cut much shorter when it is
#: made: `literal`); lists of allowed field names stay whole.
MAX_ARG = 300
#: At most this many lines are shown for one failure (then "… and N more").
MAX_LINES = 20
#: Catalogue keys: "problem.<code>".
PREFIX = "problem."


@dataclass(frozen=True)
class Phrase:
    """Words from the catalogue used inside a problem's sentence (rendered in its language)."""

    code: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def text(self, lang: Optional[str] = None) -> str:
        return _fill(self.code, self.args, words.normalize(lang))

    def __hash__(self) -> int:
        return hash((self.code, tuple(sorted((k, repr(v)) for k, v in self.args.items()))))


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a scenario: `code` names the sentence, `path` the field it concerns
    (as written in a file: ``mask.valid_lens[1][2]``), `args` the values the sentence quotes."""

    code: str
    path: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def text(self, lang: Optional[str] = None) -> str:
        """The whole line, `path: sentence`, in `lang` (default: the catalogue's current language).

        A path into a matrix keeps the file's 0-based indices (``queries[0][2][1]``, what a
        scenario file and code write) and names the positions a person reads next to it, from 1:
        ``queries[0][2][1] (batch item 1, row 3, column 2): ...`` (see `positions_of`)."""
        lang = words.normalize(lang)
        body = _fill(self.code, self.args, lang)
        sep = ": " if self.code == "text" else words.text(PREFIX + "sep", lang)  # a line written as text stays so
        where = positions_of(self.path, lang)
        if where:
            where = words.text("position.suffix", lang, where=where)
        return f"{self.path}{where}{sep}{body}" if self.path else body

    def __str__(self) -> str:
        return self.text()

    def __hash__(self) -> int:  # args is a dict: hash what it holds, so problems go in sets
        return hash((self.code, self.path, tuple(sorted((k, repr(v)) for k, v in self.args.items()))))

    @property
    def bare_path(self) -> str:
        """The field path without its indices ('mask.valid_lens[1][2]' -> 'mask.valid_lens')."""
        return strip_indices(self.path)

    def at(self, path: str) -> Problem:
        """The same problem under another path (an engine name moved to where a file keeps it)."""
        return Problem(self.code, path, self.args)

    # -- a JSON form, for a trace stored on disk --------------------------------------------------
    def to_json(self) -> dict:
        return {"code": self.code, "path": self.path, "args": _args_json(self.args)}

    @staticmethod
    def from_json(d) -> Problem:
        if isinstance(d, str):  # stored by an older version: the English line
            return raw(d)
        return Problem(str(d["code"]), str(d["path"]), _args_back(d.get("args") or {}))


Arg = Union[str, int, float, Phrase, tuple]


def raw(line: str) -> Problem:
    """A line someone wrote as text (not from the catalogue): shown as it is, in every language;
    its field path is read from its start so it still lands next to its control."""
    head, sep, rest = line.partition(": ")
    if sep and head and " " not in head:
        return Problem("text", head, {"text": rest})
    return Problem("text", "", {"text": line})


def strip_indices(path: str) -> str:
    out, depth = [], 0
    for ch in path:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


#: what each index of a field's path counts, by the field's last name (others: by depth, `_BY_DEPTH`)
_POSITION_NOUNS: dict[str, tuple[str, ...]] = {
    "queries": ("batch", "row", "column"), "keys": ("batch", "row", "column"), "values": ("batch", "row", "column"),
    "valid_lens": ("batch", "query"), "query_tokens": ("token",), "key_tokens": ("token",),
    "bias": ("entry",), "W_q": ("head", "row", "column"), "W_k": ("head", "row", "column"), "w_v": ("head", "entry"),
}
_BY_DEPTH: dict[int, tuple[str, ...]] = {1: ("entry",), 2: ("row", "column"), 3: ("batch", "row", "column")}
_PLACEHOLDER = {"batch": "b", "head": "h", "row": "r", "column": "c", "query": "l", "token": "i", "entry": "i"}


def positions_of(path: str, lang: Optional[str] = None) -> str:
    """The positions a person reads (from 1, attention.datamodel.numbers.position) of a path's indices:
    'queries[0][2][1]' -> 'batch item 1, row 3, column 2'; '' for a path without indices."""
    index = [int(i) for i in re.findall(r"\[(\d+)\]", path)]
    if not index:
        return ""
    lang = words.normalize(lang)
    name = strip_indices(path).rsplit(".", 1)[-1]
    nouns = _POSITION_NOUNS.get(name, _BY_DEPTH.get(len(index), ()))
    if len(nouns) < len(index):
        return numbers.positions(index)
    return words.text("position.sep", lang).join(
        words.text(f"position.{noun}", lang, **{_PLACEHOLDER[noun]: numbers.position(i)})
        for noun, i in zip(nouns, index))


def index_path(path: str, index: Iterable[int]) -> str:
    """'mask.valid_lens', (1, 2) -> 'mask.valid_lens[1][2]' (the cell path the docs write)."""
    return path + "".join(f"[{int(i)}]" for i in index)


def elide(text: str, limit: int = MAX_QUOTE) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def count(n: int) -> str:
    """A whole number with thousands separators; a number too long to print is said by its size
    (Python refuses to print ints beyond 4,300 digits)."""
    n = int(n)
    if n.bit_length() <= 200:
        return f"{n:,}"
    return f"{'-' if n < 0 else ''}~10^{int(n.bit_length() * math.log10(2))}"


def literal(v) -> str:
    """A value quoted in a sentence, never failing and never long: numbers as JSON writes them,
    strings as JSON strings."""
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, int):
        return count(v) if v.bit_length() > 200 else str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ("NaN" if v != v else ("Infinity" if v > 0 else "-Infinity"))
    if isinstance(v, str):
        return elide(json.dumps(v, ensure_ascii=False))
    if isinstance(v, (list, tuple)):
        parts, size = [], 2
        for item in v:
            s = literal(item) if not isinstance(item, (list, tuple, dict)) else "[...]"
            size += len(s) + 2
            if size > MAX_QUOTE:
                parts.append("...")
                break
            parts.append(s)
        return "[" + ", ".join(parts) + "]"
    if isinstance(v, dict):
        return "{...}"
    return type(v).__name__


def shape(dims: Sequence[int]) -> str:
    return literal(list(dims))


def render_lines(problems: Sequence[Problem], lang: Optional[str] = None, limit: int = MAX_LINES,
                 omitted: int = 0) -> list[str]:
    """The lines to show: at most `limit` (the last one says how many more there are)."""
    lang = words.normalize(lang)
    total = len(problems) + omitted
    if total <= limit:
        return [p.text(lang) for p in problems]
    shown = [p.text(lang) for p in problems[: limit - 1]]
    return shown + [more_line(total - len(shown), lang)]


def more_line(n: int, lang: Optional[str] = None) -> str:
    return words.text(PREFIX + "more_lines", words.normalize(lang), n=count(n))


def as_problems(items: Iterable[Union[Problem, str]]) -> list[Problem]:
    return [p if isinstance(p, Problem) else raw(str(p)) for p in items]


# ---- rendering --------------------------------------------------------------------------------

def rendered(args: Mapping[str, Any], lang: Optional[str] = None) -> dict:
    """Message arguments with each Phrase put in `lang`: the words inside any catalogue line (what a
    field expected, attention/limits.py), for messages that are not Problems (CheckpointError, ModelError)."""
    return {k: v.text(lang) if isinstance(v, Phrase) else v for k, v in args.items()}


def _fill(code: str, args: Mapping[str, Any], lang: str) -> str:
    template = words.text(PREFIX + code, lang)
    return template.format(**{k: _arg(v, lang) for k, v in args.items()})


def _arg(v, lang: str) -> str:
    if isinstance(v, Phrase):
        return v.text(lang)
    if isinstance(v, tuple):
        return words.text(PREFIX + "list_sep", lang).join(_arg(x, lang) for x in v)
    if isinstance(v, str):
        return elide(v, MAX_ARG)
    if isinstance(v, int) and not isinstance(v, bool):
        return count(v) if v.bit_length() > 200 else str(v)
    return str(v)


def _args_json(args: Mapping[str, Any]) -> dict:
    def conv(v):
        if isinstance(v, Phrase):
            return {"phrase": v.code, "args": _args_json(v.args)}
        if isinstance(v, tuple):
            return {"list": [conv(x) for x in v]}
        return v
    return {k: conv(v) for k, v in args.items()}


def _args_back(args: Mapping[str, Any]) -> dict:
    def conv(v):
        if isinstance(v, dict) and "phrase" in v:
            return Phrase(str(v["phrase"]), _args_back(v.get("args") or {}))
        if isinstance(v, dict) and "list" in v:
            return tuple(conv(x) for x in v["list"])
        return v
    return {k: conv(v) for k, v in args.items()}
