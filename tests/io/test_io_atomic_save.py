"""Saving is atomic: whatever fails midway, the old file is intact and no temporary is left."""
from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

from attention import ScenarioError, scenario_io
from attention.scenario import same
from resources import list_presets

TOY = list_presets()[0][0]


@pytest.fixture
def saved(tmp_path):
    """A folder holding one good saved scenario: (path, scenario, its bytes)."""
    sc = scenario_io.load(TOY)
    path = tmp_path / "mine.json"
    scenario_io.save(sc, path)
    return path, sc, path.read_bytes()


def _changed(sc):
    return dataclasses.replace(sc, values=sc.values + 1.0, title={"en": "changed", "zh": "改过"})


def test_save_replaces_the_file_and_leaves_nothing_else(saved):
    path, sc, _ = saved
    new = _changed(sc)
    scenario_io.save(new, path)
    assert same(scenario_io.load(path), new)
    assert os.listdir(path.parent) == [path.name]


def test_crash_while_writing_keeps_the_old_file(saved, monkeypatch):
    path, sc, before = saved
    real_chunks = scenario_io._chunks

    def chunks_then_crash(doc, indent=0):
        for i, chunk in enumerate(real_chunks(doc, indent)):
            if i == 40:  # well into the file: the temporary file is open and half written
                raise RuntimeError("simulated crash mid-write")
            yield chunk

    monkeypatch.setattr(scenario_io, "_chunks", chunks_then_crash)
    with pytest.raises(RuntimeError, match="simulated crash"):
        scenario_io.save(_changed(sc), path)
    assert path.read_bytes() == before
    assert os.listdir(path.parent) == [path.name]
    assert same(scenario_io.load(path), sc)


@pytest.mark.parametrize("victim", ["fsync", "replace"])
def test_os_failure_is_a_clear_error_and_keeps_the_old_file(saved, monkeypatch, victim):
    path, sc, before = saved

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(scenario_io.os, victim, fail)
    with pytest.raises(ScenarioError) as err:
        scenario_io.save(_changed(sc), path)
    monkeypatch.undo()
    assert err.value.lines == ["file: cannot save: No space left on device"]
    assert path.read_bytes() == before
    assert os.listdir(path.parent) == [path.name]


def test_a_scenario_with_nan_is_refused_before_touching_the_disk(saved):
    path, sc, before = saved
    q = sc.queries.copy()
    q[0, 1, 2] = np.nan
    with pytest.raises(ScenarioError) as err:
        scenario_io.save(dataclasses.replace(sc, queries=q), path)
    assert err.value.lines == ["queries: cannot save NaN or infinity; every number must be finite"]
    assert path.read_bytes() == before
    assert os.listdir(path.parent) == [path.name]


def test_missing_folder_is_a_clear_error(tmp_path):
    sc = scenario_io.load(TOY)
    with pytest.raises(ScenarioError) as err:
        scenario_io.save(sc, tmp_path / "no" / "such" / "x.json")
    assert err.value.lines[0].startswith("file: cannot save:")


def test_new_file_is_readable_by_others(tmp_path):
    """mkstemp makes 0600 files; a saved scenario gets the usual mode (or keeps the old one)."""
    path = tmp_path / "new.json"
    scenario_io.save(scenario_io.load(TOY), path)
    assert path.stat().st_mode & 0o777 == 0o644
    path.chmod(0o600)
    scenario_io.save(scenario_io.load(TOY), path)
    assert path.stat().st_mode & 0o777 == 0o600


def test_text_that_is_not_unicode_is_refused_before_touching_the_disk(saved):
    path, sc, before = saved
    with pytest.raises(ScenarioError) as err:
        scenario_io.save(dataclasses.replace(sc, title={"en": "bad \udc80", "zh": ""}), path)
    assert err.value.lines == ["title.en: cannot save; the text holds characters that are not valid Unicode"]
    assert path.read_bytes() == before and os.listdir(path.parent) == [path.name]
