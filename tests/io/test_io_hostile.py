"""Hostile files (issue 13): each one is refused cleanly, with the project's own error naming the
field, within a second and in bounded memory, or it loads and runs.  The small files live in
tests/hostile/ (written by tests/hostile/make.py); anything big, and what git cannot hold (a FIFO,
a folder, /dev/zero), is made here at run time."""
from __future__ import annotations

import json
import os
import time
import tracemalloc
from pathlib import Path

import pytest
import torch  # noqa: F401  (imported once here: a refusal's time never includes torch's first import)

import resources
from attention import ScenarioError
from attention.datamodel.problem import MAX_LINES, MAX_QUOTE
from attention.files import scenario_io

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
TOY = json.loads(resources.list_presets()[0][0].read_text(encoding="utf-8"))

#: file -> the field paths its problems name (every one of them, in order)
EXPECTED = {
    "huge_generator_mean.json": ["queries.mean"],
    "huge_generator_fields.json": ["queries.start", "queries.step", "keys.seed", "keys.low"],
    "huge_n_heads.json": ["n_heads"],
    "huge_d_keys_d_values.json": ["d_keys", "d_values"],
    "additive_huge_d_keys.json": ["sizes"],
    "huge_generator_shape.json": ["queries"],
    "seed_2_31.json": ["seed"],
    "factor_2_31.json": ["prob_sparse.factor"],
    "float32_overflow.json": ["queries"],
    "surrogate_title.json": ["title.en"],
    "surrogate_token.json": ["key_tokens[1]"],
    "long_number.json": ["file"],
    "valid_lens_cell.json": ["mask.valid_lens[0][3]"],
    "not_utf8.json": ["file"],
    "nan_literal.json": ["scale"],
    "duplicate_keys.json": ["seed"],
    "top_level_list.json": ["file"],
    "truncated.json": ["file"],
}


def refused(load, seconds: float = 1.0, peak_mb: float = 64) -> ScenarioError:
    """Run `load`; it must raise ScenarioError within `seconds` and allocate at most `peak_mb`
    MB at its peak (tracemalloc, numpy's arrays included); every line stays short."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(ScenarioError) as e:
            load()
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < seconds, elapsed
    assert peak < peak_mb * 2**20, peak / 2**20
    err = e.value
    assert err.problems and all(p.path for p in err.problems)
    assert len(err.lines) <= MAX_LINES and all(len(line) < 600 for line in err.lines)
    for p in err.problems:
        p.text("zh")  # renders in both languages
    return err


def test_the_corpus_is_complete_and_current():
    """Every file make.py writes is here, with its expectation (a changed preset shows up)."""
    from tests.hostile import make

    assert set(make.FILES) == set(EXPECTED) == {p.name for p in HOSTILE.glob("*.json")}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_hostile_file_is_refused_naming_its_field(name):
    err = refused(lambda: scenario_io.load(HOSTILE / name))
    assert [p.path for p in err.problems] == EXPECTED[name]


def test_a_megabyte_string_in_an_enumerated_field_gives_a_short_line():
    for field, value in (("scoring", "x" * (1 << 20)), ("device", "\u4e2d" * (1 << 20)), ("dtype", "\ud800" * 1000)):
        text = json.dumps({**TOY, field: value})
        err = refused(lambda text=text: scenario_io.loads(text))
        assert [p.path for p in err.problems] == [field]
        assert all(len(line) < 200 for line in err.lines), err.lines
        assert all(len(p.text("zh")) < 200 for p in err.problems)


def test_a_megabyte_key_is_named_short():
    err = refused(lambda: scenario_io.loads(json.dumps({**TOY, "k" * (1 << 20): 1})))
    (p,) = err.problems
    assert p.code == "unknown_field" and len(p.path) < 50


@pytest.mark.parametrize("n, seconds", [(5_000, 1.0), (200_000, 10.0)])
def test_many_unknown_fields_give_a_bounded_message(n, seconds):
    """200,000 fields: json alone takes about 0.4 s to parse the 4 MB; the problems stay few
    (bench figures in the report: about 0.5 s for the whole load on an idle machine)."""
    text = json.dumps({**TOY, **{f"field{i}": i for i in range(n)}})
    err = refused(lambda: scenario_io.loads(text), seconds=seconds, peak_mb=512)
    assert len(err.problems) + err.omitted == n
    assert len(err.lines) == MAX_LINES and err.lines[-1] == f"\u2026 and {n - MAX_LINES + 1:,} more"
    assert err.lines[0].startswith("field0: unknown field")


def test_deep_nesting_is_refused():
    refused(lambda: scenario_io.loads("[" * 100_000 + "]" * 100_000))
    refused(lambda: scenario_io.loads(json.dumps({**TOY, "queries": None})[:-1] + ', "x": ' + "[" * 100_000 + "}"))


def test_quoted_values_are_cut():
    text = json.dumps({**TOY, "queries": {"generate": "ones", "shape": list(range(-1, 10_000))}})
    err = refused(lambda: scenario_io.loads(text))
    assert err.problems[0].path == "queries.shape" and len(err.lines[0]) < 200 and "..." in err.lines[0]
    assert MAX_QUOTE <= 60


# ---- paths that are not files ------------------------------------------------------------------

def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "scenario.json"
    os.mkfifo(fifo)
    err = refused(lambda: scenario_io.load(fifo))
    assert [p.code for p in err.problems] == ["not_a_file"] and "FIFO" in err.lines[0]


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null", "."])
def test_devices_and_folders_are_refused_before_reading(path, tmp_path):
    err = refused(lambda: scenario_io.load(tmp_path if path == "." else path))
    assert [p.code for p in err.problems] == ["not_a_file"]
    assert err.lines[0].startswith("file: a ") and "not a regular file" in err.lines[0]


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path, monkeypatch):
    big = tmp_path / "big.json"
    big.write_text(json.dumps(TOY), encoding="utf-8")
    monkeypatch.setattr(scenario_io, "MAX_FILE_BYTES", 1000)
    err = refused(lambda: scenario_io.load(big))
    assert err.problems[0].code == "file_too_big" and "1,000 bytes" in err.lines[0]


# ---- whatever loads can be saved -------------------------------------------------------------

def test_a_scenario_that_loads_saves_back(tmp_path):
    """Replacing a lone surrogate by a proper pair of characters loads, saves and loads back."""
    sc = scenario_io.loads(json.dumps({**TOY, "title": {"en": "\U0001f600 toy", "zh": ""}}))
    scenario_io.save(sc, tmp_path / "back.json")
    assert scenario_io.load(tmp_path / "back.json").title["en"] == "\U0001f600 toy"
