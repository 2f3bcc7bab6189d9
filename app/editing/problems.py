"""Showing `attention.problems` lines next to the control that caused them.

Each engine line starts with a field path (``n_heads: ...``, ``valid_lens[1]: ...``,
``projections.query.weight: ...``).  `control_key` turns that path into the key of the control
that edits it; the window keeps one `ProblemLabel` per key.
"""
from __future__ import annotations

import re
from typing import Iterable, Optional

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent
from PySide6.QtWidgets import QLabel, QWidget

_INDEX = re.compile(r"\[[^\]]*\]")
PROBLEM_STYLE = "color: #b00020;"


def field_of(line: str) -> str:
    """The field path a problem line starts with, without indices ('valid_lens[0]' -> 'valid_lens')."""
    head = line.split(":", 1)[0].strip() if ":" in line else ""
    return _INDEX.sub("", head)


def control_key(line: str) -> str:
    """The control a problem belongs to: 'projections.query', 'additive', 'valid_lens', 'n_heads'..."""
    f = field_of(line)
    if f.startswith("projections."):
        return ".".join(f.split(".")[:2])
    if f.startswith("additive"):
        return "additive"
    return {"query_tokens": "queries", "key_tokens": "keys"}.get(f, f)


def group_by_control(lines: Iterable[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in lines:
        out.setdefault(control_key(line), []).append(line)
    return out


# ---- the engine's lines in the window's language -----------------------------------------------
# The engine writes English.  The lines a person can cause with the window's controls are
# matched here and re-worded through Qt's translator; a line that matches nothing (or a
# language without a translation) is shown exactly as the engine wrote it.  Each source text
# rebuilds the engine's English line from the captured groups, so English is unchanged.
_NUM = r"(-?[\d.]+)"
_SHAPE = r"(\[[\d, ]*\])"
PATTERNS: list[tuple[re.Pattern, str]] = [(re.compile(rx), src) for rx, src in (
    (rf"^n_heads: {_NUM} heads do not divide d_model = {_NUM} \(the queries' width\), which (.+?) default to; "
     rf"choose a head count that divides {_NUM} or set (.+)$",
     QT_TRANSLATE_NOOP("problems", "n_heads: {0} heads do not divide d_model = {1} (the queries' width), which {2} default to; "
                                   "choose a head count that divides {3} or set {4}")),
    (rf"^valid_lens(\[[\d, ]+\]): expected a length between 0 and S = {_NUM}, got {_NUM}$",
     QT_TRANSLATE_NOOP("problems", "valid_lens{0}: expected a length between 0 and S = {1}, got {2}")),
    (rf"^([\w.]+): expected shape {_SHAPE}, got {_SHAPE}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected shape {1}, got {2}")),
    (rf"^projections\.(\w+): absent \(identity\) needs the (\w+)' width {_NUM} to equal n_heads \* (\w+) = "
     rf"{_NUM} \* {_NUM} = {_NUM}; give a weight or set (\w+) to (.+)$",
     QT_TRANSLATE_NOOP("problems", "projections.{0}: absent (identity) needs the {1}' width {2} to equal n_heads * {3} = "
                                   "{4} * {5} = {6}; give a weight or set {7} to {8}")),
    (rf"^projections\.(\w+): absent \(identity\) needs the (\w+)' width {_NUM} to be divisible by n_heads = {_NUM}$",
     QT_TRANSLATE_NOOP("problems", "projections.{0}: absent (identity) needs the {1}' width {2} to be divisible by n_heads = {3}")),
    (r"^valid_lens: prob_sparse does not support valid lengths \(neither Informer nor Time-Series-Library defines them\); "
     r"remove valid_lens or pick another scoring kind$",
     QT_TRANSLATE_NOOP("problems", "valid_lens: prob_sparse does not support valid lengths (neither Informer nor "
                                   "Time-Series-Library defines them); remove valid_lens or pick another scoring kind")),
    (rf"^causal: causal prob_sparse needs L == S \(the lazy rows are a cumulative sum over positions\), got L = {_NUM}, S = {_NUM}$",
     QT_TRANSLATE_NOOP("problems", "causal: causal prob_sparse needs L == S (the lazy rows are a cumulative sum over "
                                   "positions), got L = {0}, S = {1}")),
    (rf"^scoring: prob_sparse needs at least 2 queries and 2 keys \(ln 1 = 0 samples\), got L = {_NUM}, S = {_NUM}$",
     QT_TRANSLATE_NOOP("problems", "scoring: prob_sparse needs at least 2 queries and 2 keys (ln 1 = 0 samples), got L = {0}, S = {1}")),
    (rf"^((?:prob_sparse\.)?sample_index): expected shape {_SHAPE} \(one row of sampled keys per query; n_sample = "
     rf"factor \* ceil\(ln S\)\), got {_SHAPE}; remove it to draw the sample from seed$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected shape {1} (one row of sampled keys per query; n_sample = "
                                   "factor * ceil(ln S)), got {2}; remove it to draw the sample from seed")),
    (r"^((?:prob_sparse\.)?sample_index): expected whole numbers \(key positions\)$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected whole numbers (key positions)")),
    (rf"^((?:prob_sparse\.)?sample_index)(\[[\d, ]+\]): expected a key position between 0 and S - 1 = {_NUM}, got {_NUM}$",
     QT_TRANSLATE_NOOP("problems", "{0}{1}: expected a key position between 0 and S - 1 = {2}, got {3}")),
    (r"^((?:prob_sparse\.)?sample_index): only meaningful for prob_sparse \(the recorded key sample\); remove it$",
     QT_TRANSLATE_NOOP("problems", "{0}: only meaningful for prob_sparse (the recorded key sample); remove it")),
    (rf"^sizes: this trace would need about {_NUM} GiB, more than the {_NUM} GiB allowed; reduce B, L, S or n_heads$",
     QT_TRANSLATE_NOOP("problems", "sizes: this trace would need about {0} GiB, more than the {1} GiB allowed; reduce B, L, S or n_heads")),
    (r"^device: CUDA was requested but torch.cuda.is_available\(\) is False on this machine; use 'cpu'$",
     QT_TRANSLATE_NOOP("problems", "device: CUDA was requested but torch.cuda.is_available() is False on this machine; use 'cpu'")),
    (rf"^attention_weights: {_NUM} query rows? ha(?:s|ve) every key masked \((.+)\), so the fill value (\S+) gives "
     r"uniform weights 1/S over all keys$",
     QT_TRANSLATE_NOOP("problems", "attention_weights: {0} query row(s) with every key masked ({1}), so the fill value {2} "
                                   "gives uniform weights 1/S over all keys")),
    (rf"^attention_weights: {_NUM} query rows? ha(?:s|ve) every key masked \((.+)\), so the fill value (\S+) gives "
     r"NaN weights and a NaN weighted sum$",
     QT_TRANSLATE_NOOP("problems", "attention_weights: {0} query row(s) with every key masked ({1}), so the fill value {2} "
                                   "gives NaN weights and a NaN weighted sum")),
)]


# ---- the lines shown when a file cannot be opened or saved ---------------------------------------
# attention/scenario_io.py and attention/generators.py, and the attention.problems lines that only a
# file can cause.  A field path may hold a key the engine quoted as JSON ("a:b"), so it is read as
# quoted strings or anything but ':'.  The group named `got` is the engine's description of a bad
# value: `_group` turns its words ('a list', 'the string "x"') into Chinese and sets a literal
# (5, null, 'cosine') off by a space, as Chinese text sets off Latin text.
_PATH = r'((?:"(?:[^"\\]|\\.)*"|[^":])+)'
_GOT = r"(?P<got>.+)"
_DIMS = r"(\d-D(?: or \d-D)*)"
_N = r"([\d,]+)"
LOAD_PATTERNS: list[tuple[re.Pattern, str]] = [(re.compile(rx), src) for rx, src in (
    # the file itself
    (r"^file: cannot read: (.+)$", QT_TRANSLATE_NOOP("problems", "file: cannot read: {0}")),
    (r"^file: cannot save: (.+)$", QT_TRANSLATE_NOOP("problems", "file: cannot save: {0}")),
    (r"^file: not UTF-8 text \(byte 0x([0-9a-f]{2}) at offset (\d+)\)$",
     QT_TRANSLATE_NOOP("problems", "file: not UTF-8 text (byte 0x{0} at offset {1})")),
    (r"^file: not UTF-8 text \(byte at offset (\d+)\)$",
     QT_TRANSLATE_NOOP("problems", "file: not UTF-8 text (byte at offset {0})")),
    (r"^file: invalid JSON at line (\d+), column (\d+): (.+)$",
     QT_TRANSLATE_NOOP("problems", "file: invalid JSON at line {0}, column {1}: {2}")),
    (r"^file: invalid JSON: nested too deeply$", QT_TRANSLATE_NOOP("problems", "file: invalid JSON: nested too deeply")),
    (r"^file: invalid JSON: (.+)$", QT_TRANSLATE_NOOP("problems", "file: invalid JSON: {0}")),
    (rf"^file: expected a JSON object \{{\.\.\.\}} at the top level, got {_GOT}$",
     QT_TRANSLATE_NOOP("problems", "file: expected a JSON object {{...}} at the top level, got {0}")),
    # format and version
    (r'^format: missing; expected "([^"]*)" \(is this an Attention Explorer scenario file\?\)$',
     QT_TRANSLATE_NOOP("problems", 'format: missing; expected "{0}" (is this an Attention Explorer scenario file?)')),
    (rf'^format: expected "([^"]*)", got {_GOT}$', QT_TRANSLATE_NOOP("problems", 'format: expected "{0}", got {1}')),
    (r"^version: missing; expected (\d+)$", QT_TRANSLATE_NOOP("problems", "version: missing; expected {0}")),
    (rf"^version: expected (\d+), got {_GOT}$", QT_TRANSLATE_NOOP("problems", "version: expected {0}, got {1}")),
    (r"^version: this file is version (\d+), but this program reads version (\d+) files; "
     r"open it with a newer Attention Explorer$",
     QT_TRANSLATE_NOOP("problems", "version: this file is version {0}, but this program reads version {1} files; "
                                   "open it with a newer Attention Explorer")),
    # fields: missing, unknown, repeated, of the wrong type
    (rf"^{_PATH}: missing \(required\)$", QT_TRANSLATE_NOOP("problems", "{0}: missing (required)")),
    (rf"^{_PATH}: unknown field; expected one of (.+)$",
     QT_TRANSLATE_NOOP("problems", "{0}: unknown field; expected one of {1}")),
    (rf"^{_PATH}: this key appears more than once in one object; keep one$",
     QT_TRANSLATE_NOOP("problems", "{0}: this key appears more than once in one object; keep one")),
    (rf"^{_PATH}: expected an object with fields (.+) \(or null\), got {_GOT}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected an object with fields {1} (or null), got {2}")),
    (rf"^{_PATH}: expected a whole number >= (-?\d+) and <= (\d+), got {_GOT}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a whole number >= {1} and <= {2}, got {3}")),
    (rf"^{_PATH}: expected a whole number >= (-?\d+), got {_GOT}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a whole number >= {1}, got {2}")),
    (rf"^{_PATH}: expected a whole number >= (\d+) or null \(default d_model // n_heads\), got {_GOT}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a whole number >= {1} or null (default d_model // n_heads), got {2}")),
    (rf"^{_PATH}: expected true or false, got {_GOT}$", QT_TRANSLATE_NOOP("problems", "{0}: expected true or false, got {1}")),
    (rf"^{_PATH}: expected one of (.+?), got {_GOT}$", QT_TRANSLATE_NOOP("problems", "{0}: expected one of {1}, got {2}")),
    (rf"^{_PATH}: expected a finite number or null, got {_GOT}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a finite number or null, got {1}")),
    (rf"^{_PATH}: expected a finite number, got {_GOT}$", QT_TRANSLATE_NOOP("problems", "{0}: expected a finite number, got {1}")),
    (rf"^{_PATH}: expected a number, got {_GOT}$", QT_TRANSLATE_NOOP("problems", "{0}: expected a number, got {1}")),
    (rf'^{_PATH}: expected an object \{{"en": "\.\.\.", "zh": "\.\.\."\}}, got {_GOT}$',
     QT_TRANSLATE_NOOP("problems", '{0}: expected an object {{"en": "...", "zh": "..."}}, got {1}')),
    (rf"^{_PATH}: expected a string, got {_GOT}$", QT_TRANSLATE_NOOP("problems", "{0}: expected a string, got {1}")),
    (rf"^{_PATH}: expected a list of strings \(one label per position\) or null, got {_GOT}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a list of strings (one label per position) or null, got {1}")),
    # matrices
    (rf"^{_PATH}: expected a {_DIMS} nested list of numbers (.+?) or a generator object, got {_GOT}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a {1} nested list of numbers {2} or a generator object, got {3}")),
    (rf"^{_PATH}: expected a {_DIMS} nested list of numbers (.+?), got (\d+)-D$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a {1} nested list of numbers {2}, got {3}-D")),
    (rf"^{_PATH}: expected a {_DIMS} array (.+?), but the generator makes shape {_SHAPE}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a {1} array {2}, but the generator makes shape {3}")),
    (rf"^{_PATH}: expected a list of (\d+) numbers, got {_GOT}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a list of {1} numbers, got {2}")),
    (rf"^{_PATH}: expected a list of (\d+) items, got {_GOT}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a list of {1} items, got {2}")),
    (rf"^{_PATH}: expected (\d+) numbers, got (\d+)$", QT_TRANSLATE_NOOP("problems", "{0}: expected {1} numbers, got {2}")),
    (rf"^{_PATH}: expected (\d+) items, got (\d+)$", QT_TRANSLATE_NOOP("problems", "{0}: expected {1} items, got {2}")),
    (rf"^{_PATH}: \.\.\. and (\d+) more problems in this matrix$",
     QT_TRANSLATE_NOOP("problems", "{0}: ... and {1} more problems in this matrix")),
    (r"^(queries|keys|values): expected a 3-D array \(batch, positions, features\), got (\d+)-D$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a 3-D array (batch, positions, features), got {1}-D")),
    (rf"^{_PATH}: every dimension must be at least 1, got shape {_SHAPE}$",
     QT_TRANSLATE_NOOP("problems", "{0}: every dimension must be at least 1, got shape {1}")),
    (rf"^{_PATH}: every number must be finite \(found NaN or infinity\)$",
     QT_TRANSLATE_NOOP("problems", "{0}: every number must be finite (found NaN or infinity)")),
    (r"^(keys|values): batch size (\d+) differs from queries' (\d+)$",
     QT_TRANSLATE_NOOP("problems", "{0}: batch size {1} differs from queries' {2}")),
    (r"^values: (\d+) positions, expected S = (\d+) \(one value per key\)$",
     QT_TRANSLATE_NOOP("problems", "values: {0} positions, expected S = {1} (one value per key)")),
    (r"^query_tokens: expected (\d+) labels \(one per query\), got (\d+)$",
     QT_TRANSLATE_NOOP("problems", "query_tokens: expected {0} labels (one per query), got {1}")),
    (r"^key_tokens: expected (\d+) labels \(one per key\), got (\d+)$",
     QT_TRANSLATE_NOOP("problems", "key_tokens: expected {0} labels (one per key), got {1}")),
    # options the engine checks
    (r"^scoring: unknown kind (.+); expected one of (.+)$",
     QT_TRANSLATE_NOOP("problems", "scoring: unknown kind {0}; expected one of {1}")),
    (r"^((?:prob_sparse\.)?mix): only meaningful for prob_sparse \(Time-Series-Library's head/position mixing\); "
     r"set it to false$",
     QT_TRANSLATE_NOOP("problems", "{0}: only meaningful for prob_sparse (Time-Series-Library's head/position mixing); "
                                   "set it to false")),
    (r"^device: expected 'cpu' or 'cuda', got (.+)$", QT_TRANSLATE_NOOP("problems", "device: expected 'cpu' or 'cuda', got {0}")),
    (r"^dtype: expected 'float32' or 'float64', got (.+)$",
     QT_TRANSLATE_NOOP("problems", "dtype: expected 'float32' or 'float64', got {0}")),
    # the mask
    (rf"^mask\.valid_lens(\[[\d, ]+\]): expected a length between 0 and S = {_NUM}, got {_NUM}$",
     QT_TRANSLATE_NOOP("problems", "mask.valid_lens{0}: expected a length between 0 and S = {1}, got {2}")),
    (r"^mask\.valid_lens(\[[\d, ]+\]): expected a whole number \(a count of keys\), got (.+)$",
     QT_TRANSLATE_NOOP("problems", "mask.valid_lens{0}: expected a whole number (a count of keys), got {1}")),
    (r"^mask\.valid_lens: expected lengths between 0 and S$",
     QT_TRANSLATE_NOOP("problems", "mask.valid_lens: expected lengths between 0 and S")),
    (rf"^((?:mask\.)?valid_lens): expected shape \[(\d+)\] \(one length per batch item\) or \[(\d+), (\d+)\] "
     rf"\(one per query row\), got {_SHAPE}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected shape [{1}] (one length per batch item) or [{2}, {3}] "
                                   "(one per query row), got {4}")),
    (r"^((?:mask\.)?valid_lens): expected whole numbers$", QT_TRANSLATE_NOOP("problems", "{0}: expected whole numbers")),
    (r"^mask\.valid_lens: prob_sparse does not support valid lengths \(neither Informer nor Time-Series-Library defines "
     r"them\); remove valid_lens or pick another scoring kind$",
     QT_TRANSLATE_NOOP("problems", "mask.valid_lens: prob_sparse does not support valid lengths (neither Informer nor "
                                   "Time-Series-Library defines them); remove valid_lens or pick another scoring kind")),
    (rf"^mask\.causal: causal prob_sparse needs L == S \(the lazy rows are a cumulative sum over positions\), "
     rf"got L = {_NUM}, S = {_NUM}$",
     QT_TRANSLATE_NOOP("problems", "mask.causal: causal prob_sparse needs L == S (the lazy rows are a cumulative sum over "
                                   "positions), got L = {0}, S = {1}")),
    (r'^mask\.fill_value: write minus infinity as the string "-inf" \(a bare -Infinity is not standard JSON\)$',
     QT_TRANSLATE_NOOP("problems", 'mask.fill_value: write minus infinity as the string "-inf" (a bare -Infinity is not '
                                   "standard JSON)")),
    (rf'^mask\.fill_value: expected a finite number or "-inf", got {_GOT}$',
     QT_TRANSLATE_NOOP("problems", 'mask.fill_value: expected a finite number or "-inf", got {0}')),
    (r"^((?:mask\.)?fill_value): expected a finite number or -inf, got (.+)$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a finite number or -inf, got {1}")),
    # projections and the additive weights
    (rf'^{_PATH}: expected \{{"weight": \.\.\., "bias": \.\.\. or null\}} or null \(identity\), got {_GOT}$',
     QT_TRANSLATE_NOOP("problems", '{0}: expected {{"weight": ..., "bias": ... or null}} or null (identity), got {1}')),
    (rf"^{_PATH}\.weight: missing; give the weight \(out, in\) or set {_PATH} to null \(identity\)$",
     QT_TRANSLATE_NOOP("problems", "{0}.weight: missing; give the weight (out, in) or set {1} to null (identity)")),
    (r'^additive: missing; the additive scoring needs at least \{"hidden": N\} '
     r"\(W_q, W_k and w_v are generated from seed when omitted\)$",
     QT_TRANSLATE_NOOP("problems", 'additive: missing; the additive scoring needs at least {{"hidden": N}} '
                                   "(W_q, W_k and w_v are generated from seed when omitted)")),
    (r"^additive: the additive kind needs its weights \(hidden, W_q, W_k, w_v\)$",
     QT_TRANSLATE_NOOP("problems", "additive: the additive kind needs its weights (hidden, W_q, W_k, w_v)")),
    (r"^additive\.hidden: missing; expected the hidden size \(a whole number >= 1\)$",
     QT_TRANSLATE_NOOP("problems", "additive.hidden: missing; expected the hidden size (a whole number >= 1)")),
    (rf"^additive\.hidden: (\d+) hidden units would need {_N} generated weights; at most {_N} are allowed$",
     QT_TRANSLATE_NOOP("problems", "additive.hidden: {0} hidden units would need {1} generated weights; "
                                   "at most {2} are allowed")),
    # generator objects
    (rf'^{_PATH}: missing; a generator object needs "generate": one of (.+)$',
     QT_TRANSLATE_NOOP("problems", '{0}: missing; a generator object needs "generate": one of {1}')),
    (rf"^{_PATH}: unknown generator kind (.+); expected one of (.+)$",
     QT_TRANSLATE_NOOP("problems", "{0}: unknown generator kind {1}; expected one of {2}")),
    (rf"^{_PATH}: missing; expected a list of whole numbers >= 1, e\.g\. \[2, 4, 8\]$",
     QT_TRANSLATE_NOOP("problems", "{0}: missing; expected a list of whole numbers >= 1, e.g. [2, 4, 8]")),
    (rf"^{_PATH}: expected a list of 1 to (\d+) whole numbers >= 1, e\.g\. \[2, 4, 8\], got (.+)$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a list of 1 to {1} whole numbers >= 1, e.g. [2, 4, 8], got {2}")),
    (rf"^{_PATH}: identity needs at least 2 dimensions \(rows, columns\), got {_SHAPE}$",
     QT_TRANSLATE_NOOP("problems", "{0}: identity needs at least 2 dimensions (rows, columns), got {1}")),
    (rf"^{_PATH}: expected a list of whole numbers >= 1 \(torch\.Tensor\.repeat\), got (.+)$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a list of whole numbers >= 1 (torch.Tensor.repeat), got {1}")),
    (rf"^{_PATH}: needs at least as many numbers as shape has dimensions \((\d+)\), got (\d+)$",
     QT_TRANSLATE_NOOP("problems", "{0}: needs at least as many numbers as shape has dimensions ({1}), got {2}")),
    (rf"^{_PATH}: missing; (\w+) needs a seed \(a whole number from 0 to 2\^63-1\)$",
     QT_TRANSLATE_NOOP("problems", "{0}: missing; {1} needs a seed (a whole number from 0 to 2^63-1)")),
    (rf"^{_PATH}: expected a whole number from 0 to 2\^63-1, got (.+)$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a whole number from 0 to 2^63-1, got {1}")),
    (rf"^{_PATH}: expected a finite number between -1e300 and 1e300, got (.+)$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected a finite number between -1e300 and 1e300, got {1}")),
    (rf"^{_PATH}: expected a number >= 0, got (.+)$", QT_TRANSLATE_NOOP("problems", "{0}: expected a number >= 0, got {1}")),
    (rf"^{_PATH}: expected high >= low, got low = (.+), high = (.+)$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected high >= low, got low = {1}, high = {2}")),
    (rf"^{_PATH}: this generator would make {_N} numbers \(shape {_SHAPE}\); at most {_N} are allowed "
     rf"\(what is left of the {_N} a file's generators may make\)$",
     QT_TRANSLATE_NOOP("problems", "{0}: this generator would make {1} numbers (shape {2}); at most {3} are allowed "
                                   "(what is left of the {4} a file's generators may make)")),
    (rf"^{_PATH}: this generator would make {_N} numbers \(shape {_SHAPE}\); at most {_N} are allowed$",
     QT_TRANSLATE_NOOP("problems", "{0}: this generator would make {1} numbers (shape {2}); at most {3} are allowed")),
    # saving
    (rf"^{_PATH}: cannot save NaN or infinity; every number must be finite$",
     QT_TRANSLATE_NOOP("problems", "{0}: cannot save NaN or infinity; every number must be finite")),
    (r"^scale: cannot save NaN or infinity$", QT_TRANSLATE_NOOP("problems", "scale: cannot save NaN or infinity")),
    (rf"^{_PATH}: cannot save; the text holds characters that are not valid Unicode$",
     QT_TRANSLATE_NOOP("problems", "{0}: cannot save; the text holds characters that are not valid Unicode")),
    (r"^mask\.fill_value: cannot save; expected a finite number or -inf$",
     QT_TRANSLATE_NOOP("problems", "mask.fill_value: cannot save; expected a finite number or -inf")),
    (r"^mask\.valid_lens: cannot save; expected whole numbers$",
     QT_TRANSLATE_NOOP("problems", "mask.valid_lens: cannot save; expected whole numbers")),
)]

#: Whole groups the engine writes in words (shapes' meanings, array depths, described values).
PHRASES = frozenset((
    QT_TRANSLATE_NOOP("problems", "1-D"), QT_TRANSLATE_NOOP("problems", "2-D"), QT_TRANSLATE_NOOP("problems", "3-D"),
    QT_TRANSLATE_NOOP("problems", "1-D or 2-D"),
    QT_TRANSLATE_NOOP("problems", "(batch, queries L, features)"), QT_TRANSLATE_NOOP("problems", "(batch, keys S, features)"),
    QT_TRANSLATE_NOOP("problems", "(out, in), as nn.Linear"), QT_TRANSLATE_NOOP("problems", "(out,)"),
    QT_TRANSLATE_NOOP("problems", "(heads, hidden, query head width)"),
    QT_TRANSLATE_NOOP("problems", "(heads, hidden, key head width)"), QT_TRANSLATE_NOOP("problems", "(heads, hidden)"),
    QT_TRANSLATE_NOOP("problems", "(batch,) or (batch, queries L)"),
    QT_TRANSLATE_NOOP("problems", "a list"), QT_TRANSLATE_NOOP("problems", "an object"),
    QT_TRANSLATE_NOOP("problems", "a very long number"), QT_TRANSLATE_NOOP("problems", "a number too large for float64"),
))
_STRING_SRC = QT_TRANSLATE_NOOP("problems", "the string {0}")
_STRING_VALUE = re.compile(r'^the string (".*)$')
_NAMES = re.compile(r"^\w+(?: and \w+)+$")  # "d_keys and d_values"

_ALL = PATTERNS + LOAD_PATTERNS


def localize(line: str) -> str:
    """`line` in the current UI language when a translation exists, else unchanged."""
    for rx, src in _ALL:
        m = rx.match(line)
        if m is None:
            continue
        text = QCoreApplication.translate("problems", src)
        if text == src:
            return line
        got = rx.groupindex.get("got")
        return text.format(*(_group(g, i, i == got) for i, g in enumerate(m.groups(), 1)))
    return line


#: the fully masked rows a warning names: "batch 0, query 1; batch 1, query 0; and 3 more"
_ROWS = re.compile(r"^batch \d+, query \d+(?:; batch \d+, query \d+)*(?:; and \d+ more)?$")


def _rows(text: str) -> str:
    """The row list of a fully-masked warning in the UI language."""
    row = QCoreApplication.translate("problems", "batch {0}, query {1}")
    more = QCoreApplication.translate("problems", "; and {0} more")
    text = re.sub(r"batch (\d+), query (\d+)", lambda m: row.format(*m.groups()), text)
    text = re.sub(r"; and (\d+) more$", lambda m: more.format(m.group(1)), text)
    return text.replace("; ", QCoreApplication.translate("problems", "; "))


def _group(text: str, index: int, described: bool) -> str:
    """One captured piece in the UI language: known words translated, anything else (a number,
    a name, a user's string, a reason Python gave) kept as the engine wrote it.  The first group
    of a line is its field path, never translated (a file may well have a key named "3-D")."""
    if index > 1 and _ROWS.match(text):
        return _rows(text)
    if text in PHRASES and (described or index > 1):
        return QCoreApplication.translate("problems", text)
    if _NAMES.match(text):  # "d_keys and d_values"
        return text.replace(" and ", QCoreApplication.translate("problems", " and "))
    if not described:
        return text
    s = _STRING_VALUE.match(text)
    if s:
        return QCoreApplication.translate("problems", _STRING_SRC).format(s.group(1))
    return " " + text  # a literal (5, null, 'cosine') joins a Chinese sentence after a space


class ProblemLabel(QLabel):
    """A red, wrapped line under a control; hidden when there is nothing wrong."""

    def __init__(self, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setStyleSheet(PROBLEM_STYLE)
        self.hide()

    def set_lines(self, lines: list[str]) -> None:
        self._lines = list(lines)
        self.setText("\n".join(f"\u26a0 {localize(line)}" for line in lines))
        self.setVisible(bool(lines))

    def lines(self) -> list[str]:
        """The engine's lines as given (not localized)."""
        return list(getattr(self, "_lines", []))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange and self.lines():
            self.set_lines(self.lines())
        super().changeEvent(event)
