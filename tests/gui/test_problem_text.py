"""The engine's problem lines in Chinese: every pattern the window re-words matches what the
engine really writes today (so a change of wording in the engine shows up here)."""
from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import attention
import resources
from attention import Projection, ScenarioError, scenario_io

from app.startup import i18n
from app.startup.devices import cuda_available
from app.editing.problems import PATTERNS, control_key, localize


@pytest.fixture(scope="module")
def toy():
    return scenario_io.load(resources.list_presets()[0][0])


def _engine_lines(toy, monkeypatch) -> list[str]:
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
    lines = [line for sc in cases for line in attention.problems(sc)]
    monkeypatch.setenv("AE_MEMORY_LIMIT", "1000")
    lines += attention.problems(toy)
    monkeypatch.delenv("AE_MEMORY_LIMIT")
    for fill in (-1e6, -np.inf):
        lines += attention.run(r(toy, valid_lens=np.array([0.0]), fill_value=fill)).warnings
    if not cuda_available():
        with pytest.raises(ScenarioError) as e:
            attention.run(r(toy, device="cuda"))
        lines += e.value.lines
    return lines


def test_every_pattern_matches_a_real_engine_line(toy, monkeypatch, qapp):
    lines = _engine_lines(toy, monkeypatch)
    used = {src for line in lines for rx, src in PATTERNS if rx.match(line)}
    expected = {src for _, src in PATTERNS}
    if cuda_available():  # the CUDA line cannot be produced on a machine that has CUDA
        expected = {src for src in expected if not src.startswith("device:")}
    assert used == expected
    try:
        i18n.set_language("en", qapp)
        assert [localize(x) for x in lines] == lines  # English: exactly the engine's words
        i18n.set_language("zh", qapp)
        for line in lines:
            zh = localize(line)
            assert zh != line and any("\u4e00" <= ch <= "\u9fff" for ch in zh), line
            assert zh.split("：")[0].split("[")[0] == line.split(":")[0].split("[")[0]  # the field stays
            assert all(n in zh for n in re.findall(r"\d+", line.split(":", 1)[1])[:3]), (line, zh)
    finally:
        i18n.set_language("en", qapp)


def test_unknown_lines_stay_as_written(qapp):
    try:
        i18n.set_language("zh", qapp)
        assert localize("file: not UTF-8 text") == "file: not UTF-8 text"
    finally:
        i18n.set_language("en", qapp)
    assert control_key("file: not UTF-8 text") == "file"


def test_a_long_fully_masked_warning_is_chinese_to_the_end(toy, qapp):
    """Eight fully masked rows: the engine names six and "and 2 more"; in Chinese the row list
    reads in Chinese too, with every number kept; in English the line is the engine's."""
    r = dataclasses.replace
    sc = r(toy, queries=np.repeat(toy.queries, 2, axis=0), keys=np.repeat(toy.keys, 2, axis=0),
           values=np.repeat(toy.values, 2, axis=0), valid_lens=np.array([0.0, 0.0]))
    (line,) = attention.run(sc).warnings
    assert "; and 2 more" in line
    try:
        i18n.set_language("zh", qapp)
        zh = localize(line)
        assert re.search(r"[\u4e00-\u9fff]", zh) and not re.search(r"\b(batch|query|and|more)\b", zh), zh
        assert re.findall(r"\d+", zh.split("：", 1)[1])[:14] == re.findall(r"\d+", line.split(":", 1)[1])[:14]
        i18n.set_language("en", qapp)
        assert localize(line) == line
    finally:
        i18n.set_language("en", qapp)
