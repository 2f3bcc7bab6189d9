"""Scenario files: JSON in, `Scenario` out, and back (docs/scenario-format.md).

Loading never executes anything: the text is parsed by `json`, then every field is read and
checked by hand.  Every problem is collected (not just the first), each with the field path in
the file (`mask.valid_lens[1][2]`), and raised together as
`ScenarioError(problems)` (attention/datamodel/problem.py: a code, the field path, the arguments; the words
come from the catalogue).  After the structural checks, `attention.datamodel.scenario.problems` runs on the
result and its problems are reported too, with engine field names mapped to their place in the file.

Saving writes inline numbers with repr-exact floats, so save -> load gives back exactly the same
scenario, except where the scenario was loaded from a file of recipes: a matrix still bitwise
what its generator object makes (or additive weights still what the seed draws) is written as
that recipe again (`Scenario.recipes`), so saving over a compact file keeps it compact.  Saving is
atomic (attention.files.safe_write: a
temporary file in the same folder, flushed and fsync'ed, then `os.replace`d over the target).
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import stat
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator, Optional

import numpy as np

from attention.compute.check import problems
from attention.datamodel import parts, time_labels
from attention.datamodel.problem import Phrase, Problem, count, index_path, literal
from attention.datamodel.scenario import PROJECTIONS, Additive, Projection, Scenario, ScenarioError
from attention.files import generators, safe_write
from attention.files.generators import field_name
from attention.registry import kinds

FORMAT = "attention-explorer/scenario"
#: The newest version this module reads and writes.  Version 2 adds the key/value heads and the
#: composed scenario's parts (position encodings, score modifiers, mask rules); a scenario that
#: uses neither is still written as version 1, so files that need nothing new stay readable by
#: the explorers that read only version 1.
VERSION = 2

#: Top-level fields, in the order `dumps` writes them (the JSON Schema must list exactly these).
FIELDS = (
    "format", "version", "title", "notes", "weights_note", "time_axis", "query_tokens", "key_tokens",
    "queries", "keys", "values", "n_heads", "n_kv_heads", "d_keys", "d_values", "projections",
    "scoring", "scale", "additive", "mask", "prob_sparse", "positions", "modifiers", "masks",
    "seed", "device", "dtype",
)
REQUIRED = ("format", "version", "queries", "keys", "values")
TEXT_FIELDS = ("en", "zh")
PROJECTION_FIELDS = ("weight", "bias")
ADDITIVE_FIELDS = ("hidden", "W_q", "W_k", "w_v")
MASK_FIELDS = ("causal", "valid_lens", "fill_value")
PROB_SPARSE_FIELDS = ("factor", "mix", "sample_index")
TIME_AXIS_FIELDS = ("start", "freq")
DEFAULT_FILL = -1e6
MAX_DIMS = 8
#: Per matrix, report at most this many bad cells (then say how many more there are).
MAX_CELL_LINES = 8
#: Engine field names (attention.problems) -> where they live in a file.
_ENGINE_TO_FILE = {
    "valid_lens": "mask.valid_lens", "causal": "mask.causal", "fill_value": "mask.fill_value",
    "factor": "prob_sparse.factor", "mix": "prob_sparse.mix", "sample_index": "prob_sparse.sample_index",
}
_DIMS_MEANING = {
    "queries": "meaning_queries", "keys": "meaning_keys", "values": "meaning_keys", "weight": "meaning_weight",
    "bias": "meaning_bias", "W_q": "meaning_W_q", "W_k": "meaning_W_k", "w_v": "meaning_w_v",
    "valid_lens": "meaning_valid_lens", "sample_index": "meaning_sample_index", "part": "meaning_part",
}
#: A generator making more numbers than this in a field whose shape the scenario fixes is run only
#: after that shape is checked (_Reader.matrix); smaller ones are made at once and checked as numbers.
DEFER_NUMBERS = 1 << 16
#: At most this many problems are kept from one file (the rest are counted): 200,000 unknown
#: fields give a few hundred problems, not 200,000.
MAX_PROBLEMS = 200
#: The largest whole number of a size, a head count, a seed or a factor: what the window's
#: controls (a QSpinBox holds a C int) can show, and far beyond any trace that fits in memory.
INT_MAX = 2**31 - 1
#: The largest scenario file read (bytes): a 28 MB file of inline numbers is large; larger
#: matrices are written as generator objects.
MAX_FILE_BYTES = 256 << 20


# ---- loading ---------------------------------------------------------------------------------

def load(path, check: bool = True) -> Scenario:
    """Read a scenario file.  `check=False` skips `attention.problems` (to open a file that
    parses but cannot run yet, e.g. for fixing in the editor).

    Only a regular file of at most MAX_FILE_BYTES is read: a folder, a FIFO (which would block
    forever) or /dev/zero (which never ends) is refused before reading."""
    return loads(read_file(path), check=check)


def read_file(path) -> bytes:
    """The bytes of the scenario file at `path`; ScenarioError (path "file") when it is not a
    regular file, is too big or cannot be read.  Opened without blocking (a FIFO opens at
    once), then checked on the open descriptor, so nothing is read from what is not a file."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(os.fspath(path), flags)
    except OSError as e:
        if isinstance(e, IsADirectoryError):
            raise ScenarioError([Problem("not_a_file", "file", {"what": Phrase("kind_directory")})]) from None
        raise ScenarioError([Problem("unreadable", "file", {"reason": e.strerror or str(e)})]) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ScenarioError([Problem("not_a_file", "file", {"what": Phrase(_kind(info.st_mode))})])
        if info.st_size > MAX_FILE_BYTES:
            raise ScenarioError([_too_big(info.st_size)])
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_FILE_BYTES:  # it grew while being read
                raise ScenarioError([_too_big(size)])
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise ScenarioError([Problem("unreadable", "file", {"reason": e.strerror or str(e)})]) from None
    finally:
        os.close(fd)


def _too_big(size: int) -> Problem:
    return Problem("file_too_big", "file", {"size": count(size), "limit": count(MAX_FILE_BYTES)})


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "kind_directory"
    if stat.S_ISFIFO(mode):
        return "kind_fifo"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "kind_device"
    if stat.S_ISSOCK(mode):
        return "kind_socket"
    return "kind_other"


def loads(text, check: bool = True) -> Scenario:
    """Parse scenario JSON text (str or UTF-8 bytes); ScenarioError with every problem found."""
    if isinstance(text, (bytes, bytearray)):
        data = bytes(text)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            bad = Problem("not_utf8", "file", {"byte": f"{data[e.start]:02x}", "offset": e.start})
            raise ScenarioError([bad]) from None
    duplicates: list[str] = []

    def pairs(items):
        seen = dict(items)  # in C; only an object with a repeated key is walked in Python
        if len(seen) != len(items):
            counts = Counter(k for k, _ in items)
            duplicates.extend(k for k in counts if counts[k] > 1 and k not in duplicates)
        return seen

    try:
        doc = json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as e:
        where = {"line": e.lineno, "column": e.colno, "reason": e.msg}
        raise ScenarioError([Problem("json_syntax", "file", where)]) from None
    except RecursionError:
        raise ScenarioError([Problem("json_deep", "file")]) from None
    except ValueError as e:  # an integer with more digits than Python converts (sys.get_int_max_str_digits)
        long = _LONG_NUMBER.search(text)
        if long is None:
            raise ScenarioError([Problem("json_other", "file", {"reason": str(e)})]) from None
        line, column = _line_column(text, long.start())
        raise ScenarioError([Problem("json_long_number", "file", {
            "line": line, "column": column, "digits": count(len(long.group())), "limit": count(MAX_DIGITS)})]) from None
    return from_dict(doc, check=check, duplicates=duplicates)


#: Python's default limit on the digits of an integer it reads from text (4,300): a longer one
#: is refused by json with a ValueError, which is turned into a line and a column here.
MAX_DIGITS = 4300
_LONG_NUMBER = re.compile(r"\d{%d,}" % (MAX_DIGITS + 1))


def _line_column(text: str, at: int) -> tuple[int, int]:
    """The 1-based line and column of offset `at`, as json writes them."""
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def from_dict(doc, check: bool = True, duplicates: Optional[list[str]] = None) -> Scenario:
    """Build a Scenario from an already-parsed JSON document (same checks as `loads`)."""
    r = _Reader()
    if not isinstance(doc, dict):
        raise ScenarioError([Problem("top_level", "file", {"got": _describe(doc)})])
    head = _header_problems(doc)
    if head:
        raise ScenarioError(head)
    for k in duplicates or ():
        r.err(Problem("duplicate_key", field_name(k)), breaks=False)
    sc = r.scenario(doc)
    if sc is None or r.errs:
        raise ScenarioError(r.errs, omitted=r.omitted)
    if r.pending:  # big generators whose shape the scenario fixes: their shapes checked before their numbers
        if check:
            wrong = [p for p in map(_file_path, problems(sc, check_values=False)) if r.is_pending(p.path)]
            if wrong:
                raise ScenarioError(wrong)
        sc = r.generate_pending(sc)
        if r.errs:
            raise ScenarioError(r.errs, omitted=r.omitted)
    if check:
        engine = [_file_path(p) for p in problems(sc)]
        if sc.scoring == "additive" and sc.additive is None:
            engine = [p for p in engine if p.code != "additive_weights"]
            engine.insert(0, Problem("additive_missing", "additive"))
        if engine:
            raise ScenarioError(engine)
    return sc


def _header_problems(doc: dict) -> list[Problem]:
    fmt, ver = doc.get("format"), doc.get("version")
    if "format" not in doc:
        return [Problem("format_missing", "format", {"format": FORMAT})]
    if fmt != FORMAT:
        return [Problem("format_other", "format", {"format": FORMAT, "got": _describe(fmt)})]
    if "version" not in doc:
        return [Problem("version_missing", "version", {"version": VERSION})]
    if type(ver) is not int or ver < 1:
        return [Problem("version_bad", "version", {"version": VERSION, "got": _describe(ver)})]
    if ver > VERSION:
        return [Problem("version_newer", "version", {"version": count(ver), "reads": VERSION})]
    return []


def _file_path(p: Problem) -> Problem:
    """'valid_lens[1]' (engine names) -> 'mask.valid_lens[1]' (where it is in a file)."""
    for engine, path in _ENGINE_TO_FILE.items():
        if p.path.startswith(engine) and p.path[len(engine):len(engine) + 1] in ("", "["):
            return p.at(path + p.path[len(engine):])
    return p


def _describe(v) -> Phrase:
    """A value as a message quotes it ("got ..."): words for what it is, or the value itself."""
    if v is None or isinstance(v, bool):
        return Phrase("got_literal", {"v": json.dumps(v)})
    if isinstance(v, str):
        s = json.dumps(v, ensure_ascii=False)
        return Phrase("got_string", {"s": s if len(s) <= 40 else s[:37] + "..."})
    if isinstance(v, float) and not math.isfinite(v):
        return Phrase("got_literal", {"v": "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")})
    if isinstance(v, int) and v.bit_length() > 128:
        return Phrase("got_long_number")
    if isinstance(v, (int, float)):
        return Phrase("got_literal", {"v": repr(v)}) if len(repr(v)) <= 40 else Phrase("got_long_number")
    if isinstance(v, list):
        return Phrase("got_list")
    if isinstance(v, dict):
        return Phrase("got_object")
    return Phrase("got_literal", {"v": type(v).__name__})


def _is_number(v) -> bool:
    return type(v) in (int, float)


def _is_finite(v) -> bool:
    """A JSON number that float64 holds without overflow (ints may have hundreds of digits)."""
    if type(v) is float:
        return math.isfinite(v)
    return v.bit_length() <= 1023 and math.isfinite(float(v))


def _bad_unicode(s: str) -> Optional[tuple[int, str]]:
    """(1-based position, code) of the first lone surrogate in `s` (text that cannot be written as UTF-8)."""
    try:
        s.encode("utf-8")
        return None
    except UnicodeEncodeError as e:
        return e.start + 1, f"{ord(s[e.start]):04x}"


class _Reader:
    """Reads one document field by field, collecting problems instead of stopping at the first
    (at most MAX_PROBLEMS of them are kept; the rest are only counted)."""

    def __init__(self):
        self.recipes: dict = {}  # file path -> generator object (or DRAWN): Scenario.recipes
        self.errs: list[Problem] = []
        self.omitted = 0
        self.broken = False  # something the Scenario needs could not be read
        self.budget = generators.MAX_ELEMENTS  # numbers that generators may still make
        # file path -> (generator object, placeholder, what to do with its numbers): made after the shape check
        self.pending: dict[str, tuple[dict, np.ndarray, Optional[Callable]]] = {}

    def err(self, problem: Problem, breaks: bool = True) -> None:
        if len(self.errs) < MAX_PROBLEMS:
            self.errs.append(problem)
        else:
            self.omitted += 1
        self.broken |= breaks

    # -- small fields --------------------------------------------------------------------------
    def known(self, obj: dict, path: str, allowed: tuple[str, ...]) -> None:
        where = f"{path}." if path else ""
        known = set(allowed)
        unknown = [k for k in obj if k not in known]
        if len(unknown) > MAX_PROBLEMS:  # 200,000 unknown fields: name a few, count the rest
            self.omitted += len(unknown) - MAX_PROBLEMS
            unknown = unknown[:MAX_PROBLEMS]
        for k in unknown:
            self.err(Problem("unknown_field", f"{where}{field_name(k)}", {"allowed": ", ".join(allowed)}), breaks=False)

    def section(self, value, path: str, allowed: tuple[str, ...]) -> Optional[dict]:
        """An optional object (absent or null -> {}), unknown fields reported."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.err(Problem("expected_section", path, {"allowed": ", ".join(allowed), "got": _describe(value)}))
            return None
        self.known(value, path, allowed)
        return value

    def integer(self, value, path: str, minimum: int, default, maximum: Optional[int] = None):
        """A whole number from `minimum` to `maximum` (by default INT_MAX: what the window's
        controls hold, and far beyond any size a trace could have)."""
        if value is None:
            return default
        limit = INT_MAX if maximum is None else maximum
        if type(value) is not int or value < minimum or value > limit:
            if maximum is None and not (type(value) is int and value > limit):
                self.err(Problem("expected_int", path, {"minimum": minimum, "got": _describe(value)}))
            else:
                self.err(Problem("expected_int_range", path, {"minimum": minimum, "maximum": limit,
                                                              "got": _describe(value)}))
            return default
        return value

    def boolean(self, value, path: str, default: bool) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            self.err(Problem("expected_bool", path, {"got": _describe(value)}))
            return default
        return value

    def string(self, value, path: str, default: str, choices: tuple[str, ...]) -> str:
        if value is None:
            return default
        if not isinstance(value, str):
            self.err(Problem("expected_choice", path, {"choices": ", ".join(choices), "got": _describe(value)}))
            return default
        return value

    def number(self, value, path: str, nullable: bool = True):
        if value is None and nullable:
            return None
        if not _is_number(value) or not _is_finite(value):
            code = "expected_number_or_null" if nullable else "expected_finite"
            self.err(Problem(code, path, {"got": _describe(value)}))
            return None
        return float(value)

    def unicode(self, value: str, path: str) -> bool:
        """False (and a problem) when `value` holds a lone surrogate: it could be shown but never
        saved, so it is refused here and whatever loads can be saved back."""
        bad = _bad_unicode(value)
        if bad is not None:
            self.err(Problem("bad_unicode", path, {"at": bad[0], "code": bad[1]}), breaks=False)
        return bad is None

    def text(self, value, path: str) -> dict:
        if value is None:
            return {"en": "", "zh": ""}
        if not isinstance(value, dict):
            self.err(Problem("expected_text_object", path, {"got": _describe(value)}), breaks=False)
            return {"en": "", "zh": ""}
        self.known(value, path, TEXT_FIELDS)
        out = {}
        for lang in TEXT_FIELDS:
            v = value.get(lang, "")
            if not isinstance(v, str):
                self.err(Problem("expected_string", f"{path}.{lang}", {"got": _describe(v)}), breaks=False)
                v = ""
            elif not self.unicode(v, f"{path}.{lang}"):
                v = ""
            out[lang] = v
        return out

    def time_axis(self, value) -> Optional[dict]:
        """{"start": a date, "freq": TSL's --freq spelling}, both checked by attention.datamodel.time_labels."""
        section = self.section(value, "time_axis", TIME_AXIS_FIELDS)
        if not section:
            return None
        out = {}
        for f, check in (("start", time_labels.parse_start), ("freq", time_labels.parse_freq)):
            v = section.get(f)
            try:
                if not isinstance(v, str):
                    raise ValueError
                check(v)
            except ValueError:
                self.err(Problem(f"time_axis_{f}", f"time_axis.{f}", {"got": _describe(v)}))
                continue
            out[f] = v
        return out if len(out) == 2 else None

    def tokens(self, value, path: str) -> Optional[tuple]:
        if value is None:
            return None
        if not isinstance(value, list):
            self.err(Problem("expected_tokens", path, {"got": _describe(value)}))
            return None
        for i, t in enumerate(value):
            if not isinstance(t, str):
                self.err(Problem("expected_string", f"{path}[{i}]", {"got": _describe(t)}))
                return None
            if not self.unicode(t, f"{path}[{i}]"):
                self.broken = True
                return None
        return tuple(value)

    # -- matrices ------------------------------------------------------------------------------
    def matrix(self, value, path: str, ndims: tuple[int, ...], name: str, defer: bool = True,
               finish: Optional[Callable] = None) -> Optional[np.ndarray]:
        """A nested list of numbers or a generator object -> float64 array with ndim in `ndims`.

        A generator of more than DEFER_NUMBERS numbers in a field whose shape the rest of the scenario
        fixes (`defer`: all but queries, keys and values) is not run yet: a placeholder of its shape
        (ones, no memory) stands in until `from_dict` has checked that shape (`generate_pending`), so a
        3 KB file asking for 60,000,000 frequencies where 2 fit costs nothing before its one line.
        `finish` is what the caller does with the numbers once made (valid lengths become whole)."""
        meaning = Phrase(_DIMS_MEANING[name])
        want = Phrase({(1,): "dims_1", (2,): "dims_2", (3,): "dims_3", (1, 2): "dims_1_2",
                       (1, 2, 3): "dims_1_2_3"}[ndims])
        if generators.is_generator(value):
            errs, shape = generators.check(value, path, self.budget)
            if errs:
                for e in errs:
                    self.err(e)
                return None
            if len(shape) not in ndims:
                self.err(Problem("generator_dims", path, {"dims": want, "meaning": meaning, "shape": literal(shape)}))
                return None
            self.budget -= math.prod(shape)
            self.recipes[path] = json.loads(json.dumps(value))  # a copy, plain JSON data
            if defer and math.prod(shape) > DEFER_NUMBERS:
                placeholder = np.broadcast_to(np.float64(1.0), tuple(shape))  # read-only, no memory
                self.pending[path] = (value, placeholder, finish)
                return placeholder
            return generators.generate(value, path)
        if not isinstance(value, list):
            self.err(Problem("expected_matrix_or_generator", path,
                             {"dims": want, "meaning": meaning, "got": _describe(value)}))
            return None
        shape = _first_shape(value)
        if len(shape) > MAX_DIMS or len(shape) not in ndims:
            self.err(Problem("expected_matrix_dims", path, {"dims": want, "meaning": meaning, "ndim": len(shape)}))
            return None
        shape = _common_shape(value, len(shape))
        bad: list[Problem] = []
        _check_cells(value, shape, 0, path, bad)
        if bad:
            for p in bad[:MAX_CELL_LINES]:
                self.err(p)
            if len(bad) > MAX_CELL_LINES:
                self.err(Problem("more_in_matrix", path, {"n": len(bad) - MAX_CELL_LINES}))
            return None
        return np.array(value, dtype=np.float64).reshape(shape)

    # -- the whole document --------------------------------------------------------------------
    def scenario(self, doc: dict) -> Optional[Scenario]:
        self.known(doc, "", FIELDS)
        for f in REQUIRED:
            if f not in doc:
                self.err(Problem("required", f))
        arrays = {}
        for f in ("queries", "keys", "values"):  # their shapes fix every other shape: made at once
            if f in doc:
                arrays[f] = self.matrix(doc[f], f, (3,), f, defer=False)
        n_heads = self.integer(doc.get("n_heads"), "n_heads", 1, 1)
        n_kv_heads = self.integer(doc.get("n_kv_heads"), "n_kv_heads", 1, None)
        d_keys = self.integer(doc.get("d_keys"), "d_keys", 1, None)
        d_values = self.integer(doc.get("d_values"), "d_values", 1, None)
        projections = self.projections(doc.get("projections"))
        mask = self.section(doc.get("mask"), "mask", MASK_FIELDS) or {}
        causal = self.boolean(mask.get("causal"), "mask.causal", False)
        valid_lens = self.valid_lens(mask.get("valid_lens"))
        fill = self.fill_value(mask.get("fill_value"))
        ps = self.section(doc.get("prob_sparse"), "prob_sparse", PROB_SPARSE_FIELDS) or {}
        factor = self.integer(ps.get("factor"), "prob_sparse.factor", 1, 5)
        mix = self.boolean(ps.get("mix"), "prob_sparse.mix", False)
        sample_index = self.sample_index(ps.get("sample_index"))
        seed = self.integer(doc.get("seed"), "seed", 0, 0, INT_MAX)
        fields = dict(
            n_heads=n_heads, n_kv_heads=n_kv_heads, d_keys=d_keys, d_values=d_values, projections=projections,
            scoring=self.string(doc.get("scoring"), "scoring", "scaled_dot",
                                tuple(kinds.SCORING)),
            scale=self.number(doc.get("scale"), "scale"),
            causal=causal, valid_lens=valid_lens, fill_value=fill, factor=factor, seed=seed, mix=mix,
            sample_index=sample_index,
            device=self.string(doc.get("device"), "device", "cpu", ("cpu", "cuda")),
            dtype=self.string(doc.get("dtype"), "dtype", "float64", ("float32", "float64")),
            title=self.text(doc.get("title"), "title"), notes=self.text(doc.get("notes"), "notes"),
            weights_note=self.text(doc.get("weights_note"), "weights_note"),
            time_axis=self.time_axis(doc.get("time_axis")),
            query_tokens=self.tokens(doc.get("query_tokens"), "query_tokens"),
            key_tokens=self.tokens(doc.get("key_tokens"), "key_tokens"),
            **{family: self.parts(doc.get(family), family) for family in parts.FAMILIES},
        )
        additive = self.additive_section(doc.get("additive"))
        if self.broken or any(a is None for a in arrays.values()) or len(arrays) < 3:
            return None
        additive = self.additive(additive, arrays["queries"], arrays["keys"], n_heads, projections, seed)
        if self.broken:
            return None
        if fields["time_axis"] is not None:  # dated steps where the file gives no labels of its own
            axis = fields["time_axis"]
            for f, arr in (("query_tokens", arrays["queries"]), ("key_tokens", arrays["keys"])):
                if fields[f] is None:
                    fields[f] = tuple(time_labels.date_labels(axis["start"], axis["freq"], arr.shape[1]))
        return Scenario(queries=arrays["queries"], keys=arrays["keys"], values=arrays["values"], additive=additive,
                        recipes=self.recipes, **fields)

    def parts(self, value, family: str) -> tuple:
        """A list of parts, each {"kind": name, field: value, ...} (attention/datamodel/parts.py): a matrix
        field is read as any other matrix; the other values are checked with the kind's fields
        by `attention.compute.check.part_problems` afterwards (naming the same path), so no kind needs code here."""
        if value is None:
            return ()
        if not isinstance(value, list):
            self.err(Problem("expected_parts", family, {"got": _describe(value)}))
            return ()
        known = kinds.of_family(family)
        out = []
        for i, item in enumerate(value):
            path = f"{family}[{i}]"
            if not isinstance(item, dict):
                self.err(Problem("expected_part", path, {"got": _describe(item)}))
                continue
            name = item.get("kind")
            if not isinstance(name, str):
                self.err(Problem("expected_choice", f"{path}.kind",
                                 {"choices": ", ".join(known) or "—", "got": _describe(name)}))
                continue
            fields = {f.name: f for f in getattr(known.get(name), "fields", ())}
            values = {}
            for key, v in item.items():
                if key == "kind":
                    continue
                f = fields.get(key)
                if f is not None and f.type == "matrix" and v is not None:
                    v = self.matrix(v, f"{path}.{field_name(key)}", (1, 2, 3), "part")
                elif f is not None and f.type == "float" and _is_number(v):
                    v = float(v)
                values[key] = v
            out.append(parts.Part(name, values))
        return tuple(out)

    def projections(self, value) -> dict:
        sec = self.section(value, "projections", PROJECTIONS)
        out = {}
        for name in PROJECTIONS:
            p = (sec or {}).get(name)
            if p is None:
                continue
            path = f"projections.{name}"
            if not isinstance(p, dict):
                self.err(Problem("projection_bad", path, {"got": _describe(p)}))
                continue
            self.known(p, path, PROJECTION_FIELDS)
            if "weight" not in p:
                self.err(Problem("weight_missing", f"{path}.weight", {"projection": path}))
                continue
            w = self.matrix(p["weight"], f"{path}.weight", (2,), "weight")
            b = None if p.get("bias") is None else self.matrix(p["bias"], f"{path}.bias", (1,), "bias")
            if w is not None:
                out[name] = Projection(w, b)
        return out

    def is_pending(self, path: str) -> bool:
        """Whether `path` is (inside) a generator not yet run."""
        return any(path == p or path.startswith((p + "[", p + ".")) for p in self.pending)

    def generate_pending(self, sc: Scenario) -> Scenario:
        """`sc` with every placeholder replaced by its generator's numbers (each `finish`ed)."""
        made = {}
        for path, (spec, placeholder, finish) in self.pending.items():
            a = generators.generate(spec, path)
            made[id(placeholder)] = a if finish is None else finish(a)
        self.pending.clear()

        def sub(x):
            return made.get(id(x), x) if isinstance(x, np.ndarray) else x

        a = sc.additive
        return dataclasses.replace(
            sc, projections={k: Projection(sub(p.weight), sub(p.bias)) for k, p in sc.projections.items()},
            additive=None if a is None else dataclasses.replace(a, W_q=sub(a.W_q), W_k=sub(a.W_k), w_v=sub(a.w_v)),
            valid_lens=sub(sc.valid_lens), sample_index=sub(sc.sample_index),
            **{f: tuple(parts.Part(p.kind, {k: sub(v) for k, v in p.values.items()}) for p in parts.of(sc, f))
               for f in parts.FAMILIES})

    def valid_lens(self, value) -> Optional[np.ndarray]:
        if value is None:
            return None
        v = self.matrix(value, "mask.valid_lens", (1, 2), "valid_lens", finish=self.whole_lens)
        return v if v is None or self.is_pending("mask.valid_lens") else self.whole_lens(v)

    def whole_lens(self, v: np.ndarray) -> Optional[np.ndarray]:
        whole = v == np.round(v)
        if not whole.all():
            idx = tuple(int(i) for i in np.argwhere(~whole)[0])
            self.err(Problem("valid_len_whole", index_path("mask.valid_lens", idx), {"got": repr(float(v[idx]))}))
            return None
        if np.any(np.abs(v) > 2**53):
            self.err(Problem("valid_lens_huge", "mask.valid_lens"))
            return None
        return v.astype(np.int64)

    def sample_index(self, value) -> Optional[np.ndarray]:
        """ProbSparse's recorded key sample: whole numbers (L, n_sample); null = drawn from seed."""
        if value is None:
            return None
        v = self.matrix(value, "prob_sparse.sample_index", (2,), "sample_index", finish=self.whole_index)
        return v if v is None or self.is_pending("prob_sparse.sample_index") else self.whole_index(v)

    def whole_index(self, v: np.ndarray) -> Optional[np.ndarray]:
        whole = v == np.round(v)
        if not whole.all():
            idx = tuple(int(i) for i in np.argwhere(~whole)[0])
            self.err(Problem("sample_index_whole_cell", index_path("prob_sparse.sample_index", idx),
                             {"got": repr(float(v[idx]))}))
            return None
        if np.any(np.abs(v) > 2**53):
            self.err(Problem("sample_index_huge", "prob_sparse.sample_index"))
            return None
        return v.astype(np.int64)

    def fill_value(self, value) -> float:
        """A finite number or the string "-inf" (standard JSON has no infinity literal)."""
        if value is None:
            return DEFAULT_FILL
        if value == "-inf":
            return -math.inf
        if isinstance(value, float) and value == -math.inf:
            self.err(Problem("fill_infinity", "mask.fill_value"))
            return DEFAULT_FILL
        if _is_number(value):
            v = self.number(value, "mask.fill_value", nullable=False)
            return DEFAULT_FILL if v is None else v
        self.err(Problem("fill_expected", "mask.fill_value", {"got": _describe(value)}))
        return DEFAULT_FILL

    def additive_section(self, value) -> Optional[tuple[int, dict]]:
        """(hidden, the weights given in the file); None when absent or unreadable."""
        sec = self.section(value, "additive", ADDITIVE_FIELDS)
        if value is None or sec is None:
            return None
        ndims = {"W_q": 3, "W_k": 3, "w_v": 2}
        given = {k: self.matrix(sec[k], f"additive.{k}", (n,), k) for k, n in ndims.items() if sec.get(k) is not None}
        if sec.get("hidden") is None:
            self.err(Problem("hidden_missing", "additive.hidden"))
            return None
        hidden = self.integer(sec["hidden"], "additive.hidden", 1, None)
        return None if hidden is None else (hidden, given)

    def additive(self, section: Optional[tuple[int, dict]], queries: np.ndarray, keys: np.ndarray,
                 n_heads: int, projections: dict, seed: int) -> Optional[Additive]:
        """The additive weights, omitted ones drawn with nn.Linear's default distribution
        (`draw_additive`)."""
        if section is None:
            return None
        hidden, given = section
        if len(given) == 3:
            return Additive(hidden, given["W_q"], given["W_k"], given["w_v"])
        H = max(n_heads, 1)
        qw, kw = additive_widths(H, projections, queries, keys)
        need = H * hidden * (qw + kw + 1)
        if need > self.budget:
            self.err(Problem("hidden_too_big", "additive.hidden", {"hidden": hidden, "need": count(need),
                                                                   "limit": count(self.budget)}))
            return None
        drawn = draw_additive(H, hidden, qw, kw, seed)
        self.recipes.update({f"additive.{k}": DRAWN for k in drawn if k not in given})
        drawn.update(given)
        return Additive(hidden, drawn["W_q"], drawn["W_k"], drawn["w_v"])


def additive_widths(H: int, projections: dict, queries: np.ndarray, keys: np.ndarray) -> tuple[int, int]:
    """One head's query and key widths: what the additive W_q and W_k a file leaves out map from."""
    qw = (projections["query"].weight.shape[0] if projections.get("query") is not None else queries.shape[2]) // H
    kw = (projections["key"].weight.shape[0] if projections.get("key") is not None else keys.shape[2]) // H
    return qw, kw


#: Scenario.recipes' mark for an additive weight the file left out (drawn from the scenario seed).
DRAWN = "drawn from the seed"


def draw_additive(H: int, hidden: int, qw: int, kw: int, seed: int) -> dict[str, np.ndarray]:
    """The additive weights a file leaves out, drawn with nn.Linear's default distribution.

    One generator seeded with the scenario seed always draws all three in order (W_q, W_k, w_v),
    so giving one of them in the file never changes the others."""
    import torch  # only for generated additive weights: loading a file must not wait for torch

    shapes = {"W_q": (H, hidden, qw), "W_k": (H, hidden, kw), "w_v": (H, hidden)}
    fan_in = {"W_q": qw, "W_k": kw, "w_v": hidden}
    gen = torch.Generator(device="cpu").manual_seed(seed)
    return {k: generators.linear_init(shapes[k], fan_in[k], gen) for k in ("W_q", "W_k", "w_v")}


def _first_shape(value) -> list[int]:
    """Shape read along the first elements ([0][0]...), iteratively (no recursion limit)."""
    shape = []
    node = value
    while isinstance(node, list):
        shape.append(len(node))
        if not node or len(shape) > MAX_DIMS:
            break
        node = node[0]
    return shape


def _common_shape(value, ndim: int) -> list[int]:
    """The most common length at each depth (ties: the first seen), so that one short row is
    reported as the short one, whichever row it is."""
    shape: list[int] = []
    level = [value]
    for depth in range(ndim):
        lengths = Counter(len(n) for n in level if isinstance(n, list))
        if not lengths:
            break
        shape.append(lengths.most_common(1)[0][0])
        level = [c for n in level if isinstance(n, list) for c in n] if depth < ndim - 1 else []
    return shape + [0] * (ndim - len(shape))


def _check_cells(node, shape: list[int], depth: int, path: str, bad: list[Problem]) -> None:
    """Every cell a finite number and every list the right length (ragged rows named)."""
    if len(bad) > 1000:
        return
    n = shape[depth]
    innermost = depth == len(shape) - 1
    if not isinstance(node, list):
        code = "expected_numbers_list" if innermost else "expected_items_list"
        bad.append(Problem(code, path, {"n": n, "got": _describe(node)}))
        return
    if len(node) != n:
        bad.append(Problem("numbers_count" if innermost else "items_count", path, {"n": n, "got": len(node)}))
        return
    if innermost:
        for i, x in enumerate(node):
            if type(x) not in (int, float):
                bad.append(Problem("expected_number", f"{path}[{i}]", {"got": _describe(x)}))
            elif not _is_finite(x):
                what = _describe(x) if type(x) is float else Phrase("got_too_large")
                bad.append(Problem("expected_finite", f"{path}[{i}]", {"got": what}))
            if len(bad) > 1000:
                return
        return
    for i, child in enumerate(node):
        _check_cells(child, shape, depth + 1, f"{path}[{i}]", bad)


# ---- saving ----------------------------------------------------------------------------------

def to_dict(sc: Scenario) -> dict:
    """The JSON document for `sc`, in FIELDS order: inline numbers, or the generator object a
    matrix was loaded from while it still makes exactly these numbers (`Scenario.recipes`).
    ScenarioError when a number cannot be written as standard JSON (NaN or infinity anywhere
    but fill_value -inf)."""
    errs: list[Problem] = []
    recipes = getattr(sc, "recipes", None) or {}

    def arr(a, path: str):
        a = np.asarray(a, dtype=np.float64)
        if not np.all(np.isfinite(a)):
            errs.append(Problem("save_not_finite", path))
        spec = recipes.get(path)
        if isinstance(spec, dict) and _makes(spec, a, path):
            return json.loads(json.dumps(spec))
        return a.tolist()

    def text(value, path: str) -> str:
        value = str(value)
        if _bad_unicode(value) is not None:
            errs.append(Problem("save_text", path))
        return value

    doc: dict = {"format": FORMAT, "version": VERSION if _needs_version_2(sc) else 1,
                 "title": {k: text(sc.title.get(k, ""), f"title.{k}") for k in TEXT_FIELDS},
                 "notes": {k: text(sc.notes.get(k, ""), f"notes.{k}") for k in TEXT_FIELDS}}
    if any(sc.weights_note.get(k) for k in TEXT_FIELDS):  # written only where there is something to say
        doc["weights_note"] = {k: text(sc.weights_note.get(k, ""), f"weights_note.{k}") for k in TEXT_FIELDS}
    dates: dict = {}
    if sc.time_axis:  # labels that are just these dates are left for the reader to make again
        doc["time_axis"] = {f: text(sc.time_axis[f], f"time_axis.{f}") for f in TIME_AXIS_FIELDS}
        dates = {n: tuple(time_labels.date_labels(sc.time_axis["start"], sc.time_axis["freq"], n))
                 for n in {sc.queries.shape[1], sc.keys.shape[1]}}
    if sc.query_tokens is not None and tuple(sc.query_tokens) != dates.get(sc.queries.shape[1]):
        doc["query_tokens"] = [text(t, f"query_tokens[{i}]") for i, t in enumerate(sc.query_tokens)]
    if sc.key_tokens is not None and tuple(sc.key_tokens) != dates.get(sc.keys.shape[1]):
        doc["key_tokens"] = [text(t, f"key_tokens[{i}]") for i, t in enumerate(sc.key_tokens)]
    doc["queries"] = arr(sc.queries, "queries")
    doc["keys"] = arr(sc.keys, "keys")
    doc["values"] = arr(sc.values, "values")
    doc["n_heads"] = int(sc.n_heads)
    if sc.n_kv_heads is not None:
        doc["n_kv_heads"] = int(sc.n_kv_heads)
    doc["d_keys"] = None if sc.d_keys is None else int(sc.d_keys)
    doc["d_values"] = None if sc.d_values is None else int(sc.d_values)
    projections = {}
    for name in PROJECTIONS:
        p = sc.projection(name)
        projections[name] = None if p is None else {
            "weight": arr(p.weight, f"projections.{name}.weight"),
            "bias": None if p.bias is None else arr(p.bias, f"projections.{name}.bias"),
        }
    doc["projections"] = projections
    doc["scoring"] = sc.scoring
    if sc.scale is not None and not math.isfinite(sc.scale):
        errs.append(Problem("save_scale", "scale"))
    doc["scale"] = None if sc.scale is None else float(sc.scale)
    if sc.additive is not None:
        a = sc.additive
        doc["additive"] = {"hidden": int(a.hidden), "W_q": arr(a.W_q, "additive.W_q"),
                           "W_k": arr(a.W_k, "additive.W_k"), "w_v": arr(a.w_v, "additive.w_v")}
        for name in _still_drawn(sc, recipes):  # left out again: loading draws the very same numbers
            del doc["additive"][name]
    fill = float(sc.fill_value)
    if fill == -math.inf:
        fill = "-inf"
    elif not math.isfinite(fill):
        errs.append(Problem("save_fill", "mask.fill_value"))
    vl = None
    if sc.valid_lens is not None:
        v = np.asarray(sc.valid_lens, dtype=np.float64)
        if not np.all(np.isfinite(v)) or np.any(v != np.round(v)):
            errs.append(Problem("save_valid_lens", "mask.valid_lens"))
        else:
            spec = recipes.get("mask.valid_lens")
            made = isinstance(spec, dict) and _makes(spec, v, "mask.valid_lens")
            vl = json.loads(json.dumps(spec)) if made else v.astype(np.int64).tolist()
    doc["mask"] = {"causal": bool(sc.causal), "valid_lens": vl, "fill_value": fill}
    doc["prob_sparse"] = {"factor": int(sc.factor), "mix": bool(sc.mix)}
    if sc.sample_index is not None:  # written only when recorded: files without it stay as they were
        index = np.asarray(sc.sample_index, dtype=np.int64)
        spec = recipes.get("prob_sparse.sample_index")
        made = isinstance(spec, dict) and _makes(spec, index.astype(np.float64), "prob_sparse.sample_index")
        doc["prob_sparse"]["sample_index"] = json.loads(json.dumps(spec)) if made else index.tolist()
    for family in parts.FAMILIES:
        written = [_part_dict(p, f"{family}[{i}]", arr) for i, p in enumerate(parts.of(sc, family))]
        if written:
            doc[family] = written
    doc["seed"] = int(sc.seed)
    doc["device"] = sc.device
    doc["dtype"] = sc.dtype
    if errs:
        raise ScenarioError(errs)
    return doc


def _needs_version_2(sc: Scenario) -> bool:
    """Key/value heads, any part or a weights note: what only a version-2 reader understands."""
    return (sc.n_kv_heads is not None or any(parts.of(sc, family) for family in parts.FAMILIES)
            or any(sc.weights_note.get(k) for k in TEXT_FIELDS) or bool(sc.time_axis))


def _part_dict(p, path: str, arr) -> dict:
    """One part as a file writes it: {"kind": name, field: value, ...}; arrays as nested lists."""
    out: dict = {"kind": p.kind}
    for name, v in p.values.items():
        if isinstance(v, np.ndarray):
            v = arr(v, f"{path}.{name}")
        elif isinstance(v, np.generic):
            v = v.item()
        out[name] = v
    return out


def _makes(spec: dict, a: np.ndarray, path: str) -> bool:
    """Whether generator object `spec` makes exactly the numbers of `a` (float64, bit for bit)."""
    try:
        made = generators.generate(spec, path)
    except ScenarioError:
        return False
    return made.shape == a.shape and made.tobytes() == np.ascontiguousarray(a, dtype=np.float64).tobytes()


def _still_drawn(sc: Scenario, recipes: dict) -> list[str]:
    """The additive weights the file left out that still hold what loading it would draw again
    (the same seed, hidden size and widths: `draw_additive`), bit for bit."""
    names = [k for k in ("W_q", "W_k", "w_v") if recipes.get(f"additive.{k}") == DRAWN]
    if not names:
        return []
    a, H = sc.additive, max(int(sc.n_heads), 1)
    qw, kw = additive_widths(H, sc.projections, sc.queries, sc.keys)  # as loading computes them
    drawn = draw_additive(H, int(a.hidden), qw, kw, int(sc.seed))
    current = {"W_q": a.W_q, "W_k": a.W_k, "w_v": a.w_v}
    return [k for k in names if np.shape(current[k]) == drawn[k].shape
            and np.ascontiguousarray(current[k], dtype=np.float64).tobytes() == drawn[k].tobytes()]


def dumps(sc: Scenario) -> str:
    """Scenario -> JSON text (inline numbers, one matrix row per line, exact floats)."""
    return "".join(_chunks(to_dict(sc)))


def json_chunks(doc: dict) -> Iterator[str]:
    """`doc` (e.g. `to_dict`'s, or a document that holds one) as JSON text, a matrix row at a
    time: a thread writing a big scenario lets the GUI thread run between rows."""
    return _chunks(doc)


def _chunks(value, indent: int = 0) -> Iterator[str]:
    """Pretty JSON with the innermost lists of numbers kept on one line each."""
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(value, dict):
        flat = json.dumps(value, ensure_ascii=False, allow_nan=False)
        simple = not any(isinstance(v, (list, dict)) for v in value.values()) or "generate" in value  # a recipe
        if indent > 0 and len(flat) <= 100 and simple:
            yield flat
            return
        yield "{\n"
        for i, (k, v) in enumerate(value.items()):
            yield f"{inner}{json.dumps(k, ensure_ascii=False)}: "
            yield from _chunks(v, indent + 1)
            yield ",\n" if i < len(value) - 1 else "\n"
        yield pad + "}"
        if indent == 0:
            yield "\n"
    elif isinstance(value, list) and value and any(isinstance(v, (list, dict)) for v in value):
        yield "[\n"
        for i, v in enumerate(value):
            yield inner
            yield from _chunks(v, indent + 1)
            yield ",\n" if i < len(value) - 1 else "\n"
        yield pad + "]"
    else:
        yield json.dumps(value, ensure_ascii=False, allow_nan=False)


class WriteProtectedError(ScenarioError):
    """The target file is write-protected; nothing was written.  The window asks before
    saving again with `overwrite_protected=True`; the CLI refuses."""

    def __init__(self, path: Path):
        super().__init__([f"file: {Path(path).name} is write-protected; nothing was written "
                          "(remove the protection or save under another name)"])
        self.path = Path(path)


def first_refusal(sc: Scenario) -> Optional[str]:
    """None when `validate` would accept what `save(sc)` writes; else the line of its first problem (the
    engine's checks, as the loader runs them).  The net under every writer of the command line (import,
    run): whatever they write, validate accepts."""
    errs = [_file_path(p) for p in problems(sc)]
    return None if not errs else errs[0].text()


def save(sc: Scenario, path, overwrite_protected: bool = False, follow_links: bool = True) -> None:
    """Write `sc` to `path` atomically (attention.files.safe_write): a crash midway leaves the old
    file (if any) untouched, a later save removes the temporary it left; a symlink is written
    through (unless `follow_links` is False: the command line's rule, attention/out_guard.py); a
    write-protected file is refused (WriteProtectedError) unless `overwrite_protected`."""
    doc = to_dict(sc)  # refuses unwritable numbers before touching the disk
    try:
        safe_write.write_atomic(path, _chunks(doc), overwrite_protected=overwrite_protected,
                                follow_links=follow_links)
    except safe_write.WriteProtected:
        raise WriteProtectedError(Path(path)) from None
    except OSError as e:
        raise ScenarioError([Problem("save_failed", "file", {"reason": e.strerror or str(e)})]) from None
