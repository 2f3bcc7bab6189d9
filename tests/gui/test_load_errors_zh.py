"""The problems a bad scenario file gets, in both languages: the files built here (plus the engine
and save checks a file cannot reach) reach every code of the catalogue; English is the engine's
sentence, Chinese keeps the field path and what was quoted, and the window shows them in its
language."""
from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

import attention
import resources
from app.services import i18n
from attention import ScenarioError, words
from attention.datamodel.problem import PREFIX, Phrase, Problem, positions_of
from attention.files import generators, scenario_io

TOY = json.loads(resources.list_presets()[0][0].read_text(encoding="utf-8"))
I4 = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
OK = "attention-explorer/scenario"


def _doc(**changes) -> str:
    d = copy.deepcopy(TOY)
    for path, value in changes.items():
        node, keys = d, path.split("__")
        for k in keys[:-1]:
            node = node[k]
        if value is _DROP:
            node.pop(keys[-1])
        else:
            node[keys[-1]] = value
    return json.dumps(d, ensure_ascii=False)


_DROP = object()
_GEN = {"generate": "ones", "shape": [1, 4, 4]}


def _replace(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new)


#: (name, file text) -> each one fails to load; together (with the cases below) they reach every code.
BAD_TEXTS = [
    ("invalid json", '{oops: 1}'),
    ("empty", ""),
    ("too deep", "[" * 100_000),
    ("huge int", '{"format": ' + "9" * 5000 + "}"),
    ("top-level list", "[1, 2]"),
    ("top-level string", '"hello"'),
    ("no format", '{"version": 1}'),
    ("other format", '{"format": "something/else", "version": 1}'),
    ("no version", json.dumps({"format": OK})),
    ("version text", json.dumps({"format": OK, "version": "1"})),
    ("newer version", json.dumps({"format": OK, "version": 3})),
    ("missing queries", _doc(queries=_DROP, values=_DROP)),
    ("unknown fields", _doc(heads=2, mask__causl=True, title__fr="Jouet", **{"a:b c": 1})),
    ("duplicate", _doc()[:-1] + ', "seed": 3}'),
    ("mask a list", _doc(mask=[])),
    ("bounded int", _doc(seed=-1)),
    ("int", _doc(n_heads="2", d_keys=0)),
    ("int float", _doc(n_heads=2.0)),
    ("bool", _doc(mask__causal=1)),
    ("choice", _doc(scoring=3, device=None, dtype=64)),
    ("scale text", _doc(scale="big")),
    ("scale long", _doc(scale=10**400)),
    ("title text", _doc(title="Toy")),
    ("notes.en", _doc(notes__en=5)),
    ("tokens", _doc(query_tokens=["a", 2, "c", "d"])),
    ("tokens not list", _doc(key_tokens="abcd")),
    ("queries string", _doc(queries="oops")),
    ("queries 2-D", _doc(queries=TOY["queries"][0])),
    ("ragged", _doc(queries=[[[1, 0, 2, 1], [1, 2], [0, 1, 1, 0], [1, 1, 1, 1]]])),
    ("short batch", _doc(values=TOY["values"] + [TOY["values"][0][:3]])),
    ("batch item not a list", _doc(queries=TOY["queries"] + [7])),
    ("row not a list", _doc(keys=[[[1, 0, 0, 0], 7, [0, 0, 1, 0], [0, 0, 0, 1]]])),
    ("cells", _doc(queries=[[[1, "a", None, False], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]])),
    ("many cells", _doc(values=[[["x"] * 4] * 4])),
    ("non-finite", _replace(_replace(_doc(), '"queries": [[[1, 0, 2, 1]', '"queries": [[[1, NaN, 2, Infinity]'),
                            '"scale": null', '"scale": -Infinity')),
    ("too large for float64", _doc(values=[[[-(10**309), 0, 0, 0]] + TOY["values"][0][1:]])),
    ("fill -Infinity", _replace(_doc(), '"fill_value": -1000000.0', '"fill_value": -Infinity')),
    ("fill inf", _doc(mask__fill_value="inf")),
    ("shape", _doc(projections__query__weight=[r[:3] for r in I4])),
    ("heads", _doc(n_heads=3)),
    ("valid_lens range", _doc(mask__valid_lens=[[1, 2, 3, 9]])),
    ("valid_lens shape", _doc(mask__valid_lens=[1, 2])),
    ("valid_lens half", _doc(mask__valid_lens=[1.5])),
    ("valid_lens huge", _doc(mask__valid_lens=[2.0**60])),
    ("valid_lens 3-D", _doc(mask__valid_lens=[[[1]]])),
    ("scoring kind", _doc(scoring="cosine")),
    ("additive missing", _doc(scoring="additive")),
    ("additive.hidden missing", _doc(scoring="additive", additive={"hidden": None})),
    ("additive.hidden 0", _doc(scoring="additive", projections=None, additive={"hidden": 0, "w_v": [[1, "a"]]})),
    ("additive too big", _doc(scoring="additive", projections=None, additive={"hidden": 10**8})),
    ("projection a list", _doc(projections__key=I4)),
    ("projection no weight", _doc(projections__key={"bias": None})),
    ("bias matrix", _doc(projections__out__bias=[[0, 0, 0, 0]])),
    ("weight object", _doc(projections__out__weight={"generate": "zeros", "shape": [4]})),
    ("mix", _doc(prob_sparse={"mix": True})),
    ("prob_sparse + valid_lens", _doc(scoring="prob_sparse", mask__valid_lens=[2])),
    ("prob_sparse causal", _doc(scoring="prob_sparse", mask__causal=True, key_tokens=None,
                                keys=[TOY["keys"][0][:3]], values=[TOY["values"][0][:3]])),
    ("recorded sample, wrong shape", _doc(scoring="prob_sparse", prob_sparse={"sample_index": [[0]]})),
    ("recorded sample, one row only", _doc(scoring="prob_sparse", prob_sparse={"sample_index": "0 1"})),
    ("recorded sample, a fraction", _doc(scoring="prob_sparse", prob_sparse={"sample_index": [[0.5]]})),
    ("recorded sample, beyond 2^53", _doc(scoring="prob_sparse", prob_sparse={"sample_index": [[1e17]]})),
    ("recorded sample without ProbSparse", _doc(prob_sparse={"sample_index": [[0]]})),
    ("prob_sparse one query", _doc(scoring="prob_sparse", query_tokens=None, queries=[TOY["queries"][0][:1]])),
    ("tokens count", _doc(query_tokens=["a", "b"], key_tokens=["a"])),
    ("batch", _doc(keys=TOY["keys"] * 2, values=TOY["values"] * 2)),
    ("positions", _doc(values=[TOY["values"][0][:3]], key_tokens=None)),
    ("empty dimension", _doc(queries=[[[]]], query_tokens=None)),
    ("device", _doc(device="tpu", dtype="float16")),
    ("sizes", _doc(queries={"generate": "zeros", "shape": [1, 40000, 4]},
                   keys={"generate": "zeros", "shape": [1, 40000, 4]},
                   values={"generate": "zeros", "shape": [1, 40000, 4]},
                   projections=None, query_tokens=None, key_tokens=None)),
    # generator objects
    ("gen kind", _doc(queries={"generate": "gauss", "shape": [1, 4, 4], "sd": 1})),
    ("gen kind type", _doc(queries={"generate": 3})),
    ("gen missing", _doc(queries={"shape": [1, 4, 4]})),
    ("gen no shape", _doc(queries={"generate": "ones"})),
    ("gen seed", _doc(queries={"generate": "normal", "shape": [1, 4, 4]})),
    ("gen bad seed", _doc(queries={"generate": "normal", "shape": [1, 4, 4], "seed": -1, "std": -1})),
    ("gen shape", _doc(queries={"generate": "ones", "shape": [1, 0, 4]})),
    ("gen identity", _doc(projections__key__weight={"generate": "identity", "shape": [4]})),
    ("gen repeat", _doc(queries={"generate": "ones", "shape": [1, 4, 4], "repeat": "twice"})),
    ("gen repeat short", _doc(queries={"generate": "ones", "shape": [1, 4, 4], "repeat": [2, 1]})),
    ("gen uniform", _doc(queries={"generate": "uniform", "shape": [1, 4, 4], "seed": 0, "low": 1, "high": 0})),
    ("gen arange", _doc(queries={"generate": "arange", "shape": [1, 4, 4], "step": "1", "start": 1e308})),
    ("gen huge", _doc(queries={"generate": "normal", "shape": [100000, 100000, 100000], "seed": 0})),
    ("gen depth", _doc(queries={"generate": "zeros", "shape": [2, 4]})),
    # what the hostile-file review found (issue 13)
    ("4,300-digit sizes", _doc(n_heads=10**4299, d_keys=10**4299, d_values=-(10**4299))),
    ("gen 10**400", _doc(queries={"generate": "normal", "shape": [1, 4, 4], "seed": 0, "mean": 10**400})),
    ("seed beyond int32", _doc(seed=2**31, prob_sparse={"factor": 2**31})),
    ("objects", _doc(n_heads={}, keys="oops", scoring="additive",
                     additive={"hidden": 2, "W_q": 1, "W_k": 1, "w_v": 1})),
    ("lone surrogate", _doc(title__en="\ud800", key_tokens=["a", "\udfff", "c", "d"])),
    ("long number", '{"format": "attention-explorer/scenario",\n "version": ' + "9" * 5000 + "}"),
]


def _file_problems(tmp_path: Path, monkeypatch) -> list[Problem]:
    """Every problem the loader reports for the files above, plus the unreadable ones."""
    found = []
    for _name, text in BAD_TEXTS:
        with pytest.raises(ScenarioError) as e:
            scenario_io.loads(text)
        found += e.value.problems
    os.mkfifo(tmp_path / "fifo.json")
    for path, data in (("absent.json", None), ("latin1.json", b'{"format": "caf\xe9"}'), (".", None),
                       ("fifo.json", None), ("/dev/null", None)):
        if data is not None:
            (tmp_path / path).write_bytes(data)
        with pytest.raises(ScenarioError) as e:
            scenario_io.load(tmp_path / path)
        found += e.value.problems
    with pytest.raises(ScenarioError) as e:
        scenario_io.loads(b'{"format": "caf\xe9"}')
    found += e.value.problems
    monkeypatch.setattr(scenario_io, "MAX_FILE_BYTES", 10)
    with pytest.raises(ScenarioError) as e:
        scenario_io.load(tmp_path / "latin1.json")
    found += e.value.problems
    monkeypatch.undo()
    monkeypatch.setattr(generators, "MAX_ELEMENTS", 70)  # each generator fits alone, not all four
    with pytest.raises(ScenarioError) as e:
        scenario_io.loads(_doc(queries=_GEN, keys=_GEN, values=_GEN, projections={
            "query": {"weight": {"generate": "identity", "shape": [4, 4]}},
            "key": {"weight": {"generate": "identity", "shape": [4, 4]}}}))
    found += e.value.problems
    found += generators.check([1, 2], "queries")[0]
    return found


def _other_problems(tmp_path: Path) -> list[Problem]:
    """attention.problems a file cannot reach (the loader stops them earlier), the engine's own
    refusals and notes, and the problems of a failed save: shown by the same message bar."""
    toy = scenario_io.loads(_doc())
    r = dataclasses.replace
    sparse = r(toy, scoring="prob_sparse")
    shape = (sparse.L, sparse.prob_sparse_sizes()[0])  # (L, n_sample): what a recorded sample must be
    recorded = [r(sparse, sample_index=np.full(shape, sparse.S)),  # key S: past the last key
                r(sparse, sample_index=np.full(shape, 0.5))]  # made in code, not read: not whole
    nan = np.full((1, 4, 4), np.nan)
    cases = [r(toy, queries=np.zeros((1, 4))), r(toy, queries=nan), r(toy, d_keys=0),
             r(toy, scoring="additive", projections={}), r(toy, valid_lens=np.array([0.5])),
             r(toy, fill_value=float("nan")), r(toy, dtype="float32", queries=np.full((1, 4, 4), 1e39)),
             r(toy, device="tpu", dtype="float16"), r(toy, scoring="dot", mix=True, scale=float("inf")), *recorded]
    found = [p for sc in cases for p in attention.problems(sc)]
    found += attention.run(r(toy, projections={}, queries=np.full((1, 4, 4), 1e30), keys=np.full((1, 4, 4), 1e30),
                             dtype="float32")).warnings
    with pytest.raises(ScenarioError) as e:  # a float64 scenario run in float32 (the CLI's --dtype)
        attention.run(r(toy, queries=np.full((1, 4, 4), 1e39)), dtype="float32")
    found += e.value.problems
    for sc in (r(toy, queries=nan, scale=float("inf"), fill_value=float("nan"), valid_lens=np.array([0.5]),
                 title={"en": "\ud800", "zh": ""}),):
        with pytest.raises(ScenarioError) as e:
            scenario_io.to_dict(sc)
        found += e.value.problems
    with pytest.raises(ScenarioError) as e:
        scenario_io.save(toy, tmp_path / "no such folder" / "x.json")
    return found + list(e.value.problems)


@pytest.fixture
def all_problems(tmp_path, monkeypatch) -> list[Problem]:
    return _file_problems(tmp_path, monkeypatch) + _other_problems(tmp_path)


def _codes(items) -> set[str]:
    """Every code used, phrases inside arguments included."""
    out = set()
    for item in items:
        out.add(item.code)
        for v in item.args.values():
            out |= _codes([x for x in (v if isinstance(v, tuple) else (v,)) if isinstance(x, Phrase)])
    return out


#: Codes no file or scenario here can produce, and where each is tested instead.
ELSEWHERE = {
    "sep", "list_sep",  # how every line is put together
    "more_lines",  # tests/io/test_io_hostile.py (thousands of unknown fields)
    "text",  # a line written as text: tests/gui/test_problem_text.py
    "no_memory",  # a MemoryError in the window's worker: app/pipeline/recompute.py
    "no_cuda",  # only on a machine without CUDA: tests/gui/test_problem_text.py
    "kind_socket", "kind_other",  # not made here; the same path as the FIFO
    "json_other",  # defensive: json raises no other ValueError once long numbers are caught
    "a_divisor", "both", "identity_width", "identity_divisible", "fully_masked_uniform", "fully_masked_nan",
    "row_has", "rows_have", "masked_row", "and_more",  # the engine: tests/gui/test_problem_text.py
    "prob_sparse_causal", "prob_sparse_small", "prob_sparse_valid_lens", "heads_divide",
    "overflow_row", "overflow_output_finite", "overflow_smaller", "cell_column",  # tests/engine/test_engine_problems.py
    "kv_heads_divide", "kv_heads_kind", "identity_width_kv",  # tests/engine/test_engine_gqa.py (no file sets them yet)
    "part_range",  # tests/test_parts.py (no kind with a float field is registered yet)
    "expected_part", "expected_parts", "meaning_part", "dims_1_2_3",  # tests/io/test_io_parts.py (format 2's parts)
    "drawn_shape", "drawn_cells",  # tests/engine/test_engine_window_drawn.py
    "rope_rotary_dim",  # tests/engine/test_engine_rope.py (no file sets parts yet)
    "alibi_scoring", "alibi_slopes", "alibi_slopes_finite", "softcap_scoring", "sinks_scoring", "sinks_logits",
    "sinks_logits_finite", "fully_masked_sink", "part_twice", "modifier_order",  # test_engine_modifiers.py
    # the Time-Series-Library kinds: tests/engine/test_tsl_kinds.py
    "pyramid_windows", "pyramid_window", "pyramid_empty_scale", "pyramid_nodes",
    "destationary_scoring", "destationary_shape", "destationary_tau",
    "autocorrelation_scoring", "autocorrelation_lengths", "autocorrelation_mask",  # test_tsl_steps.py: lengths
    "autocorrelation_scale", "autocorrelation_k", "encoder_layer_width", "encoder_layer_shape", "encoder_layer_finite",
    # tests/engine/test_tsl_steps.py: Informer's distilling layer and Crossformer's two-stage layer
    "distil_length", "distil_shape", "distil_variance", "two_stage_scoring", "two_stage_mask", "two_stage_alone",
    "two_stage_tokens", "two_stage_width", "two_stage_shape",
    # tests/io/test_io_time_axis.py: a scenario's dated steps (start and frequency), refused in both languages
    "time_axis_start", "time_axis_freq",
    # what a bounded value was expected to be (attention/limits.py), inside the importers' and the CLI's lines:
    # tests/hostile/test_issue31.py and tests/hostile/issue31_cases.py
    "range_whole", "range_number", "range_more", "range_most", "range_at_least", "range_positive", "range_finite",
    "equal_to", "whole_head", "blocks_held", "layers_held",
}


def test_every_code_in_the_catalogue_is_reached(all_problems):
    catalogue = {k.removeprefix(PREFIX) for k in words.table("en") if k.startswith(PREFIX)}
    missing = catalogue - _codes(all_problems) - ELSEWHERE
    assert not missing, sorted(missing)
    assert not ELSEWHERE - catalogue  # no stale name here either


def test_english_stays_as_it_was(all_problems):
    """A few sentences byte for byte as the engine wrote them before problems became values."""
    english = {p.text("en") for p in all_problems}
    assert {
        "file: invalid JSON at line 1, column 2: Expecting property name enclosed in double quotes",
        'queries: expected a 3-D nested list of numbers (batch, queries L, features) or a generator object, '
        'got the string "oops"',
        "n_heads: expected a whole number >= 1, got 2.0",
        "mask: expected an object with fields causal, valid_lens, fill_value (or null), got a list",
        "seed: expected a whole number >= 0 and <= 2147483647, got -1",
        "queries.generate: unknown generator kind 'gauss'; expected one of normal, uniform, zeros, ones, identity, "
        "arange",
        "mask.valid_lens[0][3] (batch item 1, query 4): expected a length between 0 and S = 4, got 9",
        "file: invalid JSON at line 2, column 13: a number with 5,000 digits; at most 4,300 digits are read",
        "n_heads: expected a whole number >= 1 and <= 2147483647, got a very long number",
        "queries.mean: expected a finite number between -1e300 and 1e300, got ~10^400",
        "title.en: the text holds a lone surrogate (\\ud800) at character 1, which is not valid Unicode and could "
        "not be saved; remove it",
        "queries: a number is beyond float32's range (about ±3.403e38); use float64 or smaller numbers",
    } <= english


def _cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _kept(line: str) -> list[str]:
    """What a translation must keep: the quoted strings and the numbers after the field path."""
    detail = line.split(": ", 1)[1] if not line.startswith('"') else line.split('": ', 1)[1]
    quoted = re.findall(r'"(?:[^"\\]|\\.)*"', detail)
    rest = re.sub(r'"(?:[^"\\]|\\.)*"', " ", detail)
    return quoted + re.findall(r"\d+(?:[.,]\d+)*", rest)


def test_chinese_keeps_the_field_path_and_what_was_quoted(all_problems):
    for p in all_problems:
        line, zh = p.text("en"), p.text("zh")
        assert zh != line and _cjk(zh), line
        # the field path stays as written; a path into a matrix is followed by its positions (from 1)
        where_en, where_zh = positions_of(p.path, "en"), positions_of(p.path, "zh")
        assert zh.startswith(p.path + (f"（{where_zh}）" if where_zh else "") + "："), (line, zh)
        assert line.startswith(p.path + (f" ({where_en})" if where_en else "") + ": "), line
        assert all(k in zh for k in _kept(line)), (line, zh, [k for k in _kept(line) if k not in zh])


@pytest.mark.parametrize("text, zh", [
    ('{oops: 1}', "file：JSON 格式错误，位于第 1 行第 2 列：Expecting property name enclosed in double quotes"),
    (_doc(queries="oops"),
     'queries：应为 3 维的嵌套数字列表（批次，查询个数 L，特征）或生成器对象，实际为字符串 "oops"'),
    (_doc(n_heads=2.0), "n_heads：应为 ≥ 1 的整数，实际为 2.0"),
    (_doc(mask=[]), "mask：应为包含字段 causal, valid_lens, fill_value 的对象（或 null），实际为一个列表"),
])
def test_some_sentences_in_full(text, zh, qapp):
    with pytest.raises(ScenarioError) as e:
        scenario_io.loads(text)
    try:
        i18n.set_language("zh", qapp)
        assert zh in e.value.lines  # .lines: the current language, which the window set
        assert zh in [p.text("zh") for p in e.value.problems]
    finally:
        i18n.set_language("en", qapp)
    assert zh not in e.value.lines


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def test_the_window_shows_a_bad_file_in_chinese(window, tmp_path, qapp):
    """Open, drag and drop: the message bar's title and every line are Chinese, the words the
    file held are kept; switching back to English shows the engine's lines again."""
    bad = tmp_path / "bad.json"
    bad.write_text(_doc(queries="oops", n_heads=2.0, mask__causl=True), encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        scenario_io.load(bad)
    problems = list(e.value.problems)
    try:
        i18n.set_language("zh", qapp)
        for open_it in (window.load_path, _drop):
            window.message_bar.clear()
            open_it(window, bad) if open_it is _drop else open_it(bad)
            shown = window.message_bar.label.text()
            assert window.message_bar.problems() == problems
            assert window.message_bar.lines() == [p.text("en") for p in problems]
            assert _cjk(window.message_bar.title()) and "bad.json" in window.message_bar.title()
            for p in problems:
                assert _cjk(p.text("zh")) and _escaped(p.text("zh")) in shown
                assert _escaped(p.text("en")) not in shown
            assert '"oops"' in shown
    finally:
        i18n.set_language("en", qapp)
    qapp.processEvents()  # LanguageChange reaches the message bar
    assert all(_escaped(p.text("en")) in window.message_bar.label.text() for p in problems)


def _drop(window, path: Path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    window.dropEvent(QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier))
