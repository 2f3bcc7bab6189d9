"""The memory check counts the memory free now, not a share of what is installed (issue 21: an additive
scenario of ~300 bytes asked 8.6 GB on a machine with less free, and died with the allocator's raw error)."""
from __future__ import annotations

import pytest

from attention import ScenarioError
from attention.compute import memory
from attention.compute.check import estimate_trace_bytes, memory_limit
from attention.files import scenario_io

GiB = 1 << 30


def _doc(L: int) -> dict:
    doc = {"format": "attention-explorer/scenario", "version": 1, "n_heads": 4}
    for i, name in enumerate(("queries", "keys", "values")):
        doc[name] = {"generate": "normal", "shape": [1, L, 4], "seed": i}
    return doc


def test_the_limit_is_the_free_memory_when_that_is_less(monkeypatch):
    monkeypatch.delenv("AE_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(memory, "physical_bytes", lambda: 64 * GiB)
    monkeypatch.setattr(memory, "available_bytes", lambda: 1 * GiB)
    assert memory_limit() == 1 * GiB
    monkeypatch.setattr(memory, "available_bytes", lambda: 60 * GiB)
    assert memory_limit() == int(0.6 * 64 * GiB)


def test_a_trace_bigger_than_the_free_memory_is_refused_in_a_sentence_that_says_so(monkeypatch):
    monkeypatch.delenv("AE_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(memory, "physical_bytes", lambda: 64 * GiB)
    monkeypatch.setattr(memory, "available_bytes", lambda: 1 * GiB)
    need = estimate_trace_bytes(1, 6000, 6000, 4, 1, 1, 4, 4, 4, 4, itemsize=4)  # float32: dk = dv = 4 / 4
    assert 1 * GiB < need < int(0.6 * 64 * GiB)  # refused by free memory only
    with pytest.raises(ScenarioError) as e:
        scenario_io.from_dict(_doc(6000))
    (line,) = e.value.lines
    assert line.startswith("sizes: this trace would need about") and "1.0 GiB of memory free on this machine" in line
    zh = [p.text("zh") for p in e.value.problems]
    assert "本机现在可用的 1.0 GiB" in zh[0]
    scenario_io.from_dict(_doc(40))  # a small one still loads


def test_meminfo_is_read_in_kilobytes(tmp_path):
    info = tmp_path / "meminfo"
    info.write_text("MemTotal:       16000000 kB\nMemFree:  100 kB\nMemAvailable:    2048 kB\n")
    assert memory._meminfo_available(str(info)) == 2048 * 1024
    info.write_text("garbage")
    assert memory._meminfo_available(str(info)) is None
    assert 0 < memory.available_bytes() <= memory.physical_bytes()
