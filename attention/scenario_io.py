"""Scenario files: JSON in, `Scenario` out, and back (docs/scenario-format.md).

Loading never executes anything: the text is parsed by `json`, then every field is read and
checked by hand.  Every problem is collected (not just the first), one line each, starting with
the field path in the file (`mask.valid_lens[1]: ...`), and raised together as
`ScenarioError(lines)`.  After the structural checks, `attention.problems` runs on the result and
its lines are reported too, with engine field names mapped to their place in the file.

Saving writes inline numbers (a `Scenario` holds arrays, not recipes) with repr-exact floats, so
save -> load gives back exactly the same scenario, and it is atomic (attention.safe_write: a
temporary file in the same folder, flushed and fsync'ed, then `os.replace`d over the target).
"""
from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Iterator, Optional

import numpy as np

from attention import generators, safe_write
from attention.generators import field_name
from attention.scenario import PROJECTIONS, Additive, Projection, Scenario, ScenarioError, problems

FORMAT = "attention-explorer/scenario"
VERSION = 1

#: Top-level fields, in the order `dumps` writes them (the JSON Schema must list exactly these).
FIELDS = (
    "format", "version", "title", "notes", "query_tokens", "key_tokens",
    "queries", "keys", "values", "n_heads", "d_keys", "d_values", "projections",
    "scoring", "scale", "additive", "mask", "prob_sparse", "seed", "device", "dtype",
)
REQUIRED = ("format", "version", "queries", "keys", "values")
TEXT_FIELDS = ("en", "zh")
PROJECTION_FIELDS = ("weight", "bias")
ADDITIVE_FIELDS = ("hidden", "W_q", "W_k", "w_v")
MASK_FIELDS = ("causal", "valid_lens", "fill_value")
PROB_SPARSE_FIELDS = ("factor", "mix")
DEFAULT_FILL = -1e6
MAX_DIMS = 8
#: Per matrix, report at most this many bad cells (then say how many more there are).
MAX_CELL_LINES = 8
#: Engine field names (attention.problems) -> where they live in a file.
_ENGINE_TO_FILE = {
    "valid_lens": "mask.valid_lens", "causal": "mask.causal", "fill_value": "mask.fill_value",
    "factor": "prob_sparse.factor", "mix": "prob_sparse.mix",
}
_DIMS_MEANING = {
    "queries": "(batch, queries L, features)", "keys": "(batch, keys S, features)",
    "values": "(batch, keys S, features)", "weight": "(out, in), as nn.Linear", "bias": "(out,)",
    "W_q": "(heads, hidden, query head width)", "W_k": "(heads, hidden, key head width)",
    "w_v": "(heads, hidden)", "valid_lens": "(batch,) or (batch, queries L)",
}


# ---- loading ---------------------------------------------------------------------------------

def load(path, check: bool = True) -> Scenario:
    """Read a scenario file.  `check=False` skips `attention.problems` (to open a file that
    parses but cannot run yet, e.g. for fixing in the editor)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise ScenarioError([f"file: cannot read: {e.strerror or e}"]) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ScenarioError([f"file: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})"]) from None
    return loads(text, check=check)


def loads(text: str, check: bool = True) -> Scenario:
    """Parse scenario JSON text; ScenarioError with every problem found."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ScenarioError([f"file: not UTF-8 text (byte at offset {e.start})"]) from None
    duplicates: list[str] = []

    def pairs(items):
        seen = {}
        for k, v in items:
            if k in seen and k not in duplicates:
                duplicates.append(k)
            seen[k] = v
        return seen

    try:
        doc = json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as e:
        raise ScenarioError([f"file: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}"]) from None
    except RecursionError:
        raise ScenarioError(["file: invalid JSON: nested too deeply"]) from None
    except ValueError as e:  # e.g. an integer with more digits than Python converts
        raise ScenarioError([f"file: invalid JSON: {e}"]) from None
    return from_dict(doc, check=check, duplicates=duplicates)


def from_dict(doc, check: bool = True, duplicates: Optional[list[str]] = None) -> Scenario:
    """Build a Scenario from an already-parsed JSON document (same checks as `loads`)."""
    r = _Reader()
    if not isinstance(doc, dict):
        raise ScenarioError([f"file: expected a JSON object {{...}} at the top level, got {_describe(doc)}"])
    head = _header_problems(doc)
    if head:
        raise ScenarioError(head)
    for k in duplicates or ():
        r.err(f"{field_name(k)}: this key appears more than once in one object; keep one", breaks=False)
    sc = r.scenario(doc)
    if sc is None or r.errs:
        raise ScenarioError(r.errs)
    if check:
        engine = [_file_path(line) for line in problems(sc)]
        if sc.scoring == "additive" and sc.additive is None:
            engine = [l for l in engine if not l.startswith("additive: the additive kind")]
            engine.insert(0, 'additive: missing; the additive scoring needs at least {"hidden": N} '
                             "(W_q, W_k and w_v are generated from seed when omitted)")
        if engine:
            raise ScenarioError(engine)
    return sc


def _header_problems(doc: dict) -> list[str]:
    fmt, ver = doc.get("format"), doc.get("version")
    if "format" not in doc:
        return [f'format: missing; expected "{FORMAT}" (is this an Attention Explorer scenario file?)']
    if fmt != FORMAT:
        return [f'format: expected "{FORMAT}", got {_describe(fmt)}']
    if "version" not in doc:
        return [f"version: missing; expected {VERSION}"]
    if type(ver) is not int or ver < 1:
        return [f"version: expected {VERSION}, got {_describe(ver)}"]
    if ver > VERSION:
        return [f"version: this file is version {ver}, but this program reads version {VERSION} files; "
                "open it with a newer Attention Explorer"]
    return []


def _file_path(line: str) -> str:
    """'valid_lens[1]: ...' (engine names) -> 'mask.valid_lens[1]: ...' (where it is in a file)."""
    for engine, path in _ENGINE_TO_FILE.items():
        if line.startswith(engine) and line[len(engine):len(engine) + 1] in (":", "["):
            return path + line[len(engine):]
    return line


def _describe(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        s = json.dumps(v, ensure_ascii=False)
        return f"the string {s if len(s) <= 40 else s[:37] + '...'}"
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, (int, float)):
        return repr(v) if len(repr(v)) <= 40 else "a very long number"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def _is_number(v) -> bool:
    return type(v) in (int, float)


def _is_finite(v) -> bool:
    """A JSON number that float64 holds without overflow (ints may have hundreds of digits)."""
    if type(v) is float:
        return math.isfinite(v)
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


class _Reader:
    """Reads one document field by field, collecting problems instead of stopping at the first."""

    def __init__(self):
        self.errs: list[str] = []
        self.broken = False  # something the Scenario needs could not be read
        self.budget = generators.MAX_ELEMENTS  # numbers that generators may still make

    def err(self, line: str, breaks: bool = True) -> None:
        self.errs.append(line)
        self.broken |= breaks

    # -- small fields --------------------------------------------------------------------------
    def known(self, obj: dict, path: str, allowed: tuple[str, ...]) -> None:
        where = f"{path}." if path else ""
        for k in obj:
            if k not in allowed:
                self.err(f"{where}{field_name(k)}: unknown field; expected one of {', '.join(allowed)}", breaks=False)

    def section(self, value, path: str, allowed: tuple[str, ...]) -> Optional[dict]:
        """An optional object (absent or null -> {}), unknown fields reported."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.err(f"{path}: expected an object with fields {', '.join(allowed)} (or null), got {_describe(value)}")
            return None
        self.known(value, path, allowed)
        return value

    def integer(self, value, path: str, minimum: int, default, maximum: Optional[int] = None):
        if value is None:
            return default
        if type(value) is not int or value < minimum or (maximum is not None and value > maximum):
            limit = f" and <= {maximum}" if maximum is not None else ""
            self.err(f"{path}: expected a whole number >= {minimum}{limit}, got {_describe(value)}")
            return default
        return value

    def boolean(self, value, path: str, default: bool) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            self.err(f"{path}: expected true or false, got {_describe(value)}")
            return default
        return value

    def string(self, value, path: str, default: str, choices: tuple[str, ...]) -> str:
        if value is None:
            return default
        if not isinstance(value, str):
            self.err(f"{path}: expected one of {', '.join(choices)}, got {_describe(value)}")
            return default
        return value  # the value itself is checked by attention.problems

    def number(self, value, path: str, nullable: bool = True):
        if value is None and nullable:
            return None
        if not _is_number(value) or not _is_finite(value):
            self.err(f"{path}: expected a finite number{' or null' if nullable else ''}, got {_describe(value)}")
            return None
        return float(value)

    def text(self, value, path: str) -> dict:
        if value is None:
            return {"en": "", "zh": ""}
        if not isinstance(value, dict):
            self.err(f'{path}: expected an object {{"en": "...", "zh": "..."}}, got {_describe(value)}', breaks=False)
            return {"en": "", "zh": ""}
        self.known(value, path, TEXT_FIELDS)
        out = {}
        for lang in TEXT_FIELDS:
            v = value.get(lang, "")
            if not isinstance(v, str):
                self.err(f"{path}.{lang}: expected a string, got {_describe(v)}", breaks=False)
                v = ""
            out[lang] = v
        return out

    def tokens(self, value, path: str) -> Optional[tuple]:
        if value is None:
            return None
        if not isinstance(value, list):
            self.err(f"{path}: expected a list of strings (one label per position) or null, got {_describe(value)}")
            return None
        for i, t in enumerate(value):
            if not isinstance(t, str):
                self.err(f"{path}[{i}]: expected a string, got {_describe(t)}")
                return None
        return tuple(value)

    # -- matrices ------------------------------------------------------------------------------
    def matrix(self, value, path: str, ndims: tuple[int, ...], name: str) -> Optional[np.ndarray]:
        """A nested list of numbers or a generator object -> float64 array with ndim in `ndims`."""
        meaning = _DIMS_MEANING.get(name, "")
        want = " or ".join(f"{n}-D" for n in ndims)
        if generators.is_generator(value):
            errs, shape = generators.check(value, path, self.budget)
            if errs:
                for e in errs:
                    self.err(e)
                return None
            if len(shape) not in ndims:
                self.err(f"{path}: expected a {want} array {meaning}, but the generator makes shape {shape}")
                return None
            self.budget -= math.prod(shape)
            return generators.generate(value, path)
        if not isinstance(value, list):
            self.err(f"{path}: expected a {want} nested list of numbers {meaning} or a generator object, got {_describe(value)}")
            return None
        shape = _first_shape(value)
        if len(shape) > MAX_DIMS or len(shape) not in ndims:
            self.err(f"{path}: expected a {want} nested list of numbers {meaning}, got {len(shape)}-D")
            return None
        shape = _common_shape(value, len(shape))
        bad: list[str] = []
        _check_cells(value, shape, 0, path, bad)
        if bad:
            for line in bad[:MAX_CELL_LINES]:
                self.err(line)
            if len(bad) > MAX_CELL_LINES:
                self.err(f"{path}: ... and {len(bad) - MAX_CELL_LINES} more problems in this matrix")
            return None
        return np.array(value, dtype=np.float64).reshape(shape)

    # -- the whole document --------------------------------------------------------------------
    def scenario(self, doc: dict) -> Optional[Scenario]:
        self.known(doc, "", FIELDS)
        for f in REQUIRED:
            if f not in doc:
                self.err(f"{f}: missing (required)")
        arrays = {}
        for f in ("queries", "keys", "values"):
            if f in doc:
                arrays[f] = self.matrix(doc[f], f, (3,), f)
        n_heads = self.integer(doc.get("n_heads"), "n_heads", 1, 1)
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
        seed = self.integer(doc.get("seed"), "seed", 0, 0, generators.SEED_MAX)
        fields = dict(
            n_heads=n_heads, d_keys=d_keys, d_values=d_values, projections=projections,
            scoring=self.string(doc.get("scoring"), "scoring", "scaled_dot", ("scaled_dot", "dot", "additive", "prob_sparse")),
            scale=self.number(doc.get("scale"), "scale"),
            causal=causal, valid_lens=valid_lens, fill_value=fill, factor=factor, seed=seed, mix=mix,
            device=self.string(doc.get("device"), "device", "cpu", ("cpu", "cuda")),
            dtype=self.string(doc.get("dtype"), "dtype", "float64", ("float32", "float64")),
            title=self.text(doc.get("title"), "title"), notes=self.text(doc.get("notes"), "notes"),
            query_tokens=self.tokens(doc.get("query_tokens"), "query_tokens"),
            key_tokens=self.tokens(doc.get("key_tokens"), "key_tokens"),
        )
        additive = self.additive_section(doc.get("additive"))
        if self.broken or any(a is None for a in arrays.values()) or len(arrays) < 3:
            return None
        additive = self.additive(additive, arrays["queries"], arrays["keys"], n_heads, projections, seed)
        if self.broken:
            return None
        return Scenario(queries=arrays["queries"], keys=arrays["keys"], values=arrays["values"], additive=additive, **fields)

    def projections(self, value) -> dict:
        sec = self.section(value, "projections", PROJECTIONS)
        out = {}
        for name in PROJECTIONS:
            p = (sec or {}).get(name)
            if p is None:
                continue
            path = f"projections.{name}"
            if not isinstance(p, dict):
                self.err(f'{path}: expected {{"weight": ..., "bias": ... or null}} or null (identity), got {_describe(p)}')
                continue
            self.known(p, path, PROJECTION_FIELDS)
            if "weight" not in p:
                self.err(f"{path}.weight: missing; give the weight (out, in) or set {path} to null (identity)")
                continue
            w = self.matrix(p["weight"], f"{path}.weight", (2,), "weight")
            b = None if p.get("bias") is None else self.matrix(p["bias"], f"{path}.bias", (1,), "bias")
            if w is not None:
                out[name] = Projection(w, b)
        return out

    def valid_lens(self, value) -> Optional[np.ndarray]:
        if value is None:
            return None
        v = self.matrix(value, "mask.valid_lens", (1, 2), "valid_lens")
        if v is None:
            return None
        whole = v == np.round(v)
        if not whole.all():
            idx = [int(i) for i in np.argwhere(~whole)[0]]
            self.err(f"mask.valid_lens{idx}: expected a whole number (a count of keys), got {float(v[tuple(idx)])!r}")
            return None
        if np.any(np.abs(v) > 2**53):
            self.err("mask.valid_lens: expected lengths between 0 and S")
            return None
        return v.astype(np.int64)

    def fill_value(self, value) -> float:
        """A finite number or the string "-inf" (standard JSON has no infinity literal)."""
        if value is None:
            return DEFAULT_FILL
        if value == "-inf":
            return -math.inf
        if isinstance(value, float) and value == -math.inf:
            self.err('mask.fill_value: write minus infinity as the string "-inf" (a bare -Infinity is not standard JSON)')
            return DEFAULT_FILL
        if _is_number(value):
            v = self.number(value, "mask.fill_value", nullable=False)
            return DEFAULT_FILL if v is None else v
        self.err(f'mask.fill_value: expected a finite number or "-inf", got {_describe(value)}')
        return DEFAULT_FILL

    def additive_section(self, value) -> Optional[tuple[int, dict]]:
        """(hidden, the weights given in the file); None when absent or unreadable."""
        sec = self.section(value, "additive", ADDITIVE_FIELDS)
        if value is None or sec is None:
            return None
        ndims = {"W_q": 3, "W_k": 3, "w_v": 2}
        given = {k: self.matrix(sec[k], f"additive.{k}", (n,), k) for k, n in ndims.items() if sec.get(k) is not None}
        if sec.get("hidden") is None:
            self.err("additive.hidden: missing; expected the hidden size (a whole number >= 1)")
            return None
        hidden = self.integer(sec["hidden"], "additive.hidden", 1, None)
        return None if hidden is None else (hidden, given)

    def additive(self, section: Optional[tuple[int, dict]], queries: np.ndarray, keys: np.ndarray,
                 n_heads: int, projections: dict, seed: int) -> Optional[Additive]:
        """The additive weights, omitted ones drawn with nn.Linear's default distribution.

        One generator seeded with the scenario seed always draws all three in order (W_q, W_k,
        w_v), so giving one of them in the file never changes the others."""
        if section is None:
            return None
        hidden, given = section
        if len(given) == 3:
            return Additive(hidden, given["W_q"], given["W_k"], given["w_v"])
        H = max(n_heads, 1)
        qw = (projections["query"].weight.shape[0] if "query" in projections else queries.shape[2]) // H
        kw = (projections["key"].weight.shape[0] if "key" in projections else keys.shape[2]) // H
        shapes = {"W_q": (H, hidden, qw), "W_k": (H, hidden, kw), "w_v": (H, hidden)}
        fan_in = {"W_q": qw, "W_k": kw, "w_v": hidden}
        need = sum(math.prod(s) for s in shapes.values())
        if need > self.budget:
            self.err(f"additive.hidden: {hidden} hidden units would need {need:,} generated weights; "
                     f"at most {self.budget:,} are allowed")
            return None
        import torch  # only for generated additive weights: loading a file must not wait for torch

        gen = torch.Generator(device="cpu").manual_seed(seed)
        drawn = {k: generators.linear_init(shapes[k], fan_in[k], gen) for k in ("W_q", "W_k", "w_v")}
        drawn.update(given)
        return Additive(hidden, drawn["W_q"], drawn["W_k"], drawn["w_v"])


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


def _check_cells(node, shape: list[int], depth: int, path: str, bad: list[str]) -> None:
    """Every cell a finite number and every list the right length (ragged rows named)."""
    if len(bad) > 1000:
        return
    n = shape[depth]
    innermost = depth == len(shape) - 1
    what = "numbers" if innermost else "items"
    if not isinstance(node, list):
        bad.append(f"{path}: expected a list of {n} {what}, got {_describe(node)}")
        return
    if len(node) != n:
        bad.append(f"{path}: expected {n} {what}, got {len(node)}")
        return
    if innermost:
        for i, x in enumerate(node):
            if type(x) not in (int, float):
                bad.append(f"{path}[{i}]: expected a number, got {_describe(x)}")
            elif not _is_finite(x):
                what = _describe(x) if type(x) is float else "a number too large for float64"
                bad.append(f"{path}[{i}]: expected a finite number, got {what}")
        return
    for i, child in enumerate(node):
        _check_cells(child, shape, depth + 1, f"{path}[{i}]", bad)


# ---- saving ----------------------------------------------------------------------------------

def to_dict(sc: Scenario) -> dict:
    """The JSON document for `sc` (inline numbers), in FIELDS order.  ScenarioError when a
    number cannot be written as standard JSON (NaN or infinity anywhere but fill_value -inf)."""
    errs: list[str] = []

    def arr(a, path: str):
        a = np.asarray(a, dtype=np.float64)
        if not np.all(np.isfinite(a)):
            errs.append(f"{path}: cannot save NaN or infinity; every number must be finite")
        return a.tolist()

    def text(value, path: str) -> str:
        value = str(value)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            errs.append(f"{path}: cannot save; the text holds characters that are not valid Unicode")
        return value

    doc: dict = {"format": FORMAT, "version": VERSION,
                 "title": {k: text(sc.title.get(k, ""), f"title.{k}") for k in TEXT_FIELDS},
                 "notes": {k: text(sc.notes.get(k, ""), f"notes.{k}") for k in TEXT_FIELDS}}
    if sc.query_tokens is not None:
        doc["query_tokens"] = [text(t, f"query_tokens[{i}]") for i, t in enumerate(sc.query_tokens)]
    if sc.key_tokens is not None:
        doc["key_tokens"] = [text(t, f"key_tokens[{i}]") for i, t in enumerate(sc.key_tokens)]
    doc["queries"] = arr(sc.queries, "queries")
    doc["keys"] = arr(sc.keys, "keys")
    doc["values"] = arr(sc.values, "values")
    doc["n_heads"] = int(sc.n_heads)
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
        errs.append("scale: cannot save NaN or infinity")
    doc["scale"] = None if sc.scale is None else float(sc.scale)
    if sc.additive is not None:
        a = sc.additive
        doc["additive"] = {"hidden": int(a.hidden), "W_q": arr(a.W_q, "additive.W_q"),
                           "W_k": arr(a.W_k, "additive.W_k"), "w_v": arr(a.w_v, "additive.w_v")}
    fill = float(sc.fill_value)
    if fill == -math.inf:
        fill = "-inf"
    elif not math.isfinite(fill):
        errs.append('mask.fill_value: cannot save; expected a finite number or -inf')
    vl = None
    if sc.valid_lens is not None:
        v = np.asarray(sc.valid_lens, dtype=np.float64)
        if not np.all(np.isfinite(v)) or np.any(v != np.round(v)):
            errs.append("mask.valid_lens: cannot save; expected whole numbers")
        else:
            vl = v.astype(np.int64).tolist()
    doc["mask"] = {"causal": bool(sc.causal), "valid_lens": vl, "fill_value": fill}
    doc["prob_sparse"] = {"factor": int(sc.factor), "mix": bool(sc.mix)}
    doc["seed"] = int(sc.seed)
    doc["device"] = sc.device
    doc["dtype"] = sc.dtype
    if errs:
        raise ScenarioError(errs)
    return doc


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
        if indent > 0 and len(flat) <= 100 and not any(isinstance(v, (list, dict)) for v in value.values()):
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


def save(sc: Scenario, path, overwrite_protected: bool = False) -> None:
    """Write `sc` to `path` atomically (attention.safe_write): a crash midway leaves the old
    file (if any) untouched, a later save removes the temporary it left; a symlink is written
    through; a write-protected file is refused (WriteProtectedError) unless
    `overwrite_protected`."""
    doc = to_dict(sc)  # refuses unwritable numbers before touching the disk
    try:
        safe_write.write_atomic(path, _chunks(doc), overwrite_protected=overwrite_protected)
    except safe_write.WriteProtected:
        raise WriteProtectedError(Path(path)) from None
    except OSError as e:
        raise ScenarioError([f"file: cannot save: {e.strerror or e}"]) from None
