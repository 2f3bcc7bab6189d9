"""The engine's problems in both languages: every problem the engine reports for what a person
can do with the window's controls is a value (code, field path, arguments) whose English is the
engine's sentence byte for byte and whose Chinese comes from the catalogue, with the field path
and the numbers kept; the window's labels follow its language."""
from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import attention
import resources
from app.editing.problems import ProblemLabel, control_key, group_by_control, render
from app.services import i18n
from app.services.devices import cuda_available
from attention import Projection, ScenarioError
from attention.datamodel.problem import Problem, raw
from attention.files import scenario_io


@pytest.fixture(scope="module")
def toy():
    return scenario_io.load(resources.list_presets()[0][0])


def _engine_problems(toy, monkeypatch) -> list[Problem]:
    r = dataclasses.replace
    w = toy.projection("query")
    cases = [
        r(toy, n_heads=3),
        r(toy, valid_lens=np.array([9.0])),
        r(toy, projections={**toy.projections, "query": Projection(w.weight[:, :3], w.bias)}),
        r(toy, projections={k: v for k, v in toy.projections.items() if k != "query"}, d_keys=3),
        r(toy, projections={}, scoring="additive", n_heads=3, d_keys=1, d_values=1, additive=attention.Additive(
            2, np.zeros((3, 2, 1)), np.zeros((3, 2, 1)), np.zeros((3, 2)))),
        r(toy, scoring="prob_sparse", valid_lens=np.array([2.0])),
        r(toy, scoring="prob_sparse", causal=True, keys=toy.keys[:, :3], values=toy.values[:, :3], key_tokens=None),
        r(toy, scoring="prob_sparse", queries=toy.queries[:, :1], query_tokens=None),
        r(toy, scoring="prob_sparse", sample_index=np.zeros((2, 2))),  # a recorded sample (attention.capture)
        r(toy, scoring="prob_sparse", sample_index=np.full((4, 4), 0.5)),
        r(toy, scoring="prob_sparse", sample_index=np.full((4, 4), 9)),
        r(toy, sample_index=np.zeros((4, 4))),
    ]
    found = [p for sc in cases for p in attention.problems(sc)]
    monkeypatch.setenv("AE_MEMORY_LIMIT", "1000")
    found += attention.problems(toy)
    monkeypatch.delenv("AE_MEMORY_LIMIT")
    for fill in (-1e6, -np.inf):
        found += attention.run(r(toy, valid_lens=np.array([0.0]), fill_value=fill)).warnings
    if not cuda_available():
        with pytest.raises(ScenarioError) as e:
            attention.run(r(toy, device="cuda"))
        found += e.value.problems
    return found


#: The engine's English for the cases above, byte for byte as it was before problems became values.
ENGLISH = {
    "n_heads: 3 heads do not divide d_model = 4 (the queries' width), which d_keys and d_values default to; "
    "choose a head count that divides 4 or set d_keys and d_values",
    "valid_lens[0] (batch item 1): expected a length between 0 and S = 4, got 9",  # path from 0, position from 1
    "projections.query.weight: expected shape [4, 4], got [4, 3]",
    "projections.query: absent (identity) needs the queries' width 4 to equal n_heads * d_keys = 2 * 3 = 6; "
    "give a weight or set d_keys to 2",
    "valid_lens: prob_sparse does not support valid lengths (neither Informer nor Time-Series-Library defines them); "
    "remove valid_lens or pick another scoring kind",
    "causal: causal prob_sparse needs L == S (the lazy rows are a cumulative sum over positions), got L = 4, S = 3",
    "scoring: prob_sparse needs at least 2 queries and 2 keys (ln 1 = 0 samples), got L = 1, S = 4",
    "attention_weights: 4 query rows have every key masked (batch 1, query 1; batch 1, query 2; batch 1, query 3; "
    "batch 1, query 4), so the fill value -1e6 gives uniform weights 1/S over all keys",
    "attention_weights: 4 query rows have every key masked (batch 1, query 1; batch 1, query 2; batch 1, query 3; "
    "batch 1, query 4), so the fill value -∞ gives NaN weights and a NaN weighted sum",
}


def _cjk(text: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", text))


def test_english_is_the_engines_sentence_and_chinese_keeps_path_and_numbers(toy, monkeypatch):
    found = _engine_problems(toy, monkeypatch)
    english = [p.text("en") for p in found]
    assert ENGLISH <= set(english), ENGLISH - set(english)
    assert any(line.startswith("sizes: this trace would need about ") for line in english)
    codes = {p.code for p in found}
    assert {"heads_divide", "valid_len_range", "shape", "identity_width", "identity_divisible",
            "prob_sparse_valid_lens", "prob_sparse_causal", "prob_sparse_small", "sizes",
            "fully_masked_uniform", "fully_masked_nan"} <= codes
    for p in found:
        en, zh = p.text("en"), p.text("zh")
        assert zh != en and _cjk(zh), en
        assert zh.startswith(p.path) and "：" in zh, (en, zh)  # the field stays, as written
        assert all(n in zh for n in re.findall(r"\d+", en.split(": ", 1)[1])[:3]), (en, zh)


def test_a_line_someone_wrote_as_text_stays_as_written():
    line = raw("file: not UTF-8 text")
    assert line.text("zh") == line.text("en") == "file: not UTF-8 text"
    assert control_key(line) == control_key("file: not UTF-8 text") == "file"


def test_grouping_keys_on_the_field_path_whatever_the_language():
    problems = [Problem("valid_len_range", "mask.valid_lens[1][2]", {"S": 4, "got": 9}),
                Problem("shape", "projections.query.bias", {"expected": "[4]", "got": "[3]"}),
                Problem("expected_int", "additive.hidden", {"minimum": 1, "got": "0"}),
                Problem("query_labels", "query_tokens", {"n": 4, "got": 2})]
    assert list(group_by_control(problems)) == ["mask.valid_lens", "projections.query", "additive", "queries"]


def test_a_long_fully_masked_warning_is_chinese_to_the_end(toy):
    """Eight fully masked rows: the engine names six and "and 2 more"; in Chinese the row list
    reads in Chinese too, with every number kept; in English the line is the engine's."""
    r = dataclasses.replace
    sc = r(toy, queries=np.repeat(toy.queries, 2, axis=0), keys=np.repeat(toy.keys, 2, axis=0),
           values=np.repeat(toy.values, 2, axis=0), valid_lens=np.array([0.0, 0.0]))
    (warning,) = attention.run(sc).warnings
    line = warning.text("en")
    assert line == ("attention_weights: 8 query rows have every key masked (batch 1, query 1; batch 1, query 2; "
                    "batch 1, query 3; batch 1, query 4; batch 2, query 1; batch 2, query 2; and 2 more), "
                    "so the fill value -1e6 gives uniform weights 1/S over all keys")
    zh = warning.text("zh")
    assert _cjk(zh) and not re.search(r"\b(batch|query|and|more)\b", zh), zh
    assert re.findall(r"\d+", zh.split("：", 1)[1])[:14] == re.findall(r"\d+", line.split(":", 1)[1])[:14]


def test_a_label_follows_the_window_language(qapp, toy):
    """A ProblemLabel shows the catalogue's words in the window's language and re-renders them
    when the language changes; its lines() stay the engine's English."""
    (p,) = attention.problems(dataclasses.replace(toy, n_heads=3))
    label = ProblemLabel()
    try:
        i18n.set_language("zh", qapp)
        label.set_lines([p])
        assert p.text("zh") in label.text() and render(p) == p.text("zh")
        i18n.set_language("en", qapp)
        qapp.processEvents()
        assert p.text("en") in label.text() and not _cjk(label.text())
        assert label.lines() == [p.text("en")] and label.problems() == [p]
    finally:
        i18n.set_language("en", qapp)


def test_a_label_caps_its_lines(qapp):
    label = ProblemLabel()
    label.set_lines([Problem("unknown_field", f"k{i}", {"allowed": "a, b"}) for i in range(50)])
    shown = label.text().split("\n")
    assert len(shown) == 8 and shown[-1].endswith("and 43 more")
