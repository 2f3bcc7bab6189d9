"""Damaged autosaves never block recovery (issue 21 item 3).

One unreadable autosave used to put a raw exception in the window at every launch, and the good
autosaves beside it were never offered.  Now each damaged file is set aside (`.damaged`, kept for
a person) with one line saying why, and every good one is still offered.  No window here: the
autosave folder and find_orphans alone (fast)."""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.pipeline import autosave
from attention import Projection, Scenario
from attention.datamodel.scenario import same
from attention.files import scenario_io


def _scenario(seed: int = 0) -> Scenario:
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(1, 3, 4))
    return Scenario(q, q + 1, q * 2, n_heads=2, projections={"query": Projection(rng.normal(size=(4, 4)), None)},
                    title={"en": f"kept {seed}", "zh": "保留"})


def _good_doc(sc: Scenario, packed: bool = True, **meta) -> dict:
    body = scenario_io.to_dict(sc)
    if packed:
        body = autosave.pack(body, sc)
    doc = {"format": autosave.FORMAT, "version": autosave.VERSION, "saved_at": 1_700_000_000.5,
           "source": None, "title": {"en": "Toy", "zh": "玩具"}}
    doc.update(meta)
    doc["scenario"] = body
    return doc


def _write(folder: Path, name: str, content) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / f"session-{name}.json"
    file.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return file


def _check_offered(orphans) -> None:
    """Everything the window does with an offered autosave works on it."""
    for o in orphans:
        for lang in ("en", "zh"):
            assert o.name(lang) is None or isinstance(o.name(lang), str)
        time.strftime("%Y-%m-%d %H:%M", time.localtime(o.saved_at))
        o.disk_changed()
        o.release()


DEEP = "[" * 100_000 + "]" * 100_000
DAMAGE = {
    "a list": [1, 2, 3],
    "100k-deep nesting": DEEP,
    "deep nesting inside": '{"format": "attention-explorer/autosave", "saved_at": 1, "scenario": ' + DEEP + "}",
    "saved_at a string": {"saved_at": "yesterday"},
    "saved_at 1e308": {"saved_at": 1e308},
    "saved_at negative": {"saved_at": -5.0},
    "saved_at true": {"saved_at": True},
    "title a list": {"title": ["en", "zh"]},
    "title of numbers": {"title": {"en": 5, "zh": None}},
    "source an int": {"source": 12},
    "source with NUL": {"source": "/tmp/a\0b.json"},
    "not JSON": "{ not json",
    "not UTF-8": b"\xff\xfe\x00garbage",
    "empty": "",
    "another format": {"format": "something/else"},
    "scenario a string": {"scenario": "queries"},
    "scenario without numbers": {"scenario": {"format": "attention-explorer/scenario"}},
    "packed numbers cut short": "CUT",
}


def _damaged_content(kind: str, good: dict):
    value = DAMAGE[kind]
    if kind == "packed numbers cut short":
        doc = json.loads(json.dumps(good))
        packed = doc["scenario"]["queries"][autosave.PACKED]
        packed["float64_base64"] = packed["float64_base64"][:-8]
        return doc
    if isinstance(value, dict):
        return {**good, **value}
    return value


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_a_damaged_autosave_is_set_aside_and_the_good_ones_offered(tmp_path, kind):
    folder = tmp_path / "autosave"
    good = [_write(folder, f"00000000000{i}", _good_doc(_scenario(i), packed=bool(i))) for i in (1, 2)]
    content = _damaged_content(kind, _good_doc(_scenario(9)))
    if isinstance(content, bytes):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "session-bad.json").write_bytes(content)
        bad = folder / "session-bad.json"
    else:
        bad = _write(folder, "bad", content)
    skipped: list[autosave.Skipped] = []
    orphans = autosave.find_orphans(folder, skipped)
    assert sorted(o.file for o in orphans) == good  # both good ones, the packed and the plain
    for o in orphans:
        want = _scenario(int(o.file.stem[-1]))
        assert same(o.scenario, want), "the numbers came back exactly"
    _check_offered(orphans)
    [s] = skipped
    assert s.file == bad and s.reason and "Traceback" not in s.reason
    assert s.kept_as == folder / "session-bad.json.damaged" and s.kept_as.exists() and not bad.exists()
    again: list[autosave.Skipped] = []
    orphans = autosave.find_orphans(folder, again)  # the next launch: the good ones, no line again
    assert len(orphans) == 2 and again == []
    _check_offered(orphans)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
FIELDS = ("format", "version", "saved_at", "source", "title", "scenario", "source_stamp")
SCENARIO_FIELDS = ("queries", "keys", "values", "n_heads", "projections", "mask", "title", "scale")


@settings(max_examples=120, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(where=st.sampled_from(FIELDS + SCENARIO_FIELDS + ("whole", "packed")), value=JSON_VALUES,
       drop=st.booleans())
def test_any_damaged_shape_is_skipped_or_offered_never_raises(tmp_path_factory, where, value, drop):
    folder = tmp_path_factory.mktemp("autosave")
    _write(folder, "000000000001", _good_doc(_scenario(1)))
    doc = _good_doc(_scenario(2))
    if where == "whole":
        doc = value
    elif where == "packed":
        doc["scenario"]["keys"] = {autosave.PACKED: value}
    elif where in FIELDS:
        doc.pop(where, None) if drop else doc.__setitem__(where, value)
    else:
        doc["scenario"].pop(where, None) if drop else doc["scenario"].__setitem__(where, value)
    bad = _write(folder, "000000000002", doc)
    skipped: list[autosave.Skipped] = []
    orphans = autosave.find_orphans(folder, skipped)
    assert folder / "session-000000000001.json" in [o.file for o in orphans]
    offered = bad in [o.file for o in orphans]
    assert offered != bool(skipped), "either offered or skipped with a line"
    if skipped:
        assert skipped[0].reason and skipped[0].kept_as.exists()
    _check_offered(orphans)


def test_the_killed_temporary_of_an_earlier_session_is_removed(tmp_path):
    folder = tmp_path / "autosave"
    folder.mkdir()
    killed = folder / ".session-0123456789ab.json.k1ll3d_x.tmp"  # an earlier session's, killed midway
    killed.write_bytes(b"x" * 1000)
    other = folder / ".notes.json.k1ll3d_x.tmp"  # not an autosave's: never touched
    other.write_bytes(b"y")
    autosave.find_orphans(folder)
    assert not killed.exists() and other.exists()


def test_pack_is_exact_and_unpack_refuses_what_pack_does_not_write():
    sc = _scenario(3)
    body = autosave.pack(scenario_io.to_dict(sc), sc)
    text = json.dumps(body)
    assert "[[" not in text.split('"queries"')[1][:40]  # packed, not decimal text
    assert same(scenario_io.from_dict(autosave.unpack(json.loads(text))), sc)
    for inner in ({"shape": [2, -1], "float64_base64": ""}, {"shape": [1], "float64_base64": "!!"},
                  {"shape": [1, 2, 3, 4], "float64_base64": ""}, {"shape": [3], "float64_base64": "AAAA"}):
        with pytest.raises(autosave.DamagedAutosave):
            autosave.unpack({"queries": {autosave.PACKED: inner}})
    assert math.isfinite(autosave.LATEST)
