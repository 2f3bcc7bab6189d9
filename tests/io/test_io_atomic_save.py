"""Saving is atomic: whatever fails midway, the old file is intact and no temporary is left."""
from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

from attention import ScenarioError
from attention.datamodel.scenario import same
from attention.files import scenario_io
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

    monkeypatch.setattr(os, victim, fail)
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


# ---- leftovers of interrupted saves, symlinks, write protection, long names (issue 13, 7-8) ----

KILLED_SAVE = r"""
import os, signal, sys
from attention.files import safe_write, scenario_io
sc = scenario_io.load(sys.argv[2])
def chunks():
    for i, c in enumerate(scenario_io._chunks(scenario_io.to_dict(sc))):
        if i == 30:
            os.kill(os.getpid(), signal.SIGKILL)  # killed halfway through writing the temporary
        yield c
safe_write.write_atomic(sys.argv[1], chunks())
"""


def _killed_save(path, source) -> None:
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", KILLED_SAVE, str(path), str(source)], cwd=root,
                       env=dict(os.environ, PYTHONPATH=str(root)), timeout=120)
    assert r.returncode == -9


@pytest.mark.slow  # starts Python in a child process
def test_a_killed_save_leaves_its_temporary_and_the_next_save_removes_it(saved, tmp_path):
    from attention.files import safe_write

    path, sc, before = saved
    _killed_save(path, TOY)
    first = sorted(set(os.listdir(tmp_path)) - {path.name})
    assert len(first) == 1 and first[0].startswith(".mine.json.") and first[0].endswith(".tmp")
    _killed_save(path, TOY)  # the next save removes the first one's leftover, then dies itself
    left = sorted(set(os.listdir(tmp_path)) - {path.name})
    assert len(left) == 1 and left != first
    assert path.read_bytes() == before  # the old file, complete
    others = ["notes.txt", ".mine.json.backup", ".mine.json.abcdefgh.tmp.keep", ".other.json.abcdefgh.tmp",
              ".mine.json.ABCDEFGH.tmp"]  # not names the project makes for this target
    for name in others:
        (tmp_path / name).write_text("keep me")
    assert safe_write.stale_temporaries(path) == [tmp_path / left[0]]
    scenario_io.save(_changed(sc), path)
    assert sorted(os.listdir(tmp_path)) == sorted([path.name, *others])
    assert same(scenario_io.load(path), _changed(sc))


def test_a_running_save_keeps_its_temporary(saved):
    """A temporary that a running save holds is not stale: only dead saves' leftovers go."""
    import fcntl

    from attention.files import safe_write

    path, _, _ = saved
    tmp = path.parent / ".mine.json.abc123_z.tmp"
    fd = os.open(tmp, os.O_CREAT | os.O_WRONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert safe_write.stale_temporaries(path) == []
        assert safe_write.remove_stale(path) == 0 and tmp.exists()
    finally:
        os.close(fd)
    assert safe_write.stale_temporaries(path) == [tmp]


def test_saving_over_a_symlink_writes_through_it(saved, tmp_path):
    path, sc, _ = saved
    link = tmp_path / "link.json"
    link.symlink_to(path.name)
    scenario_io.save(_changed(sc), link)
    assert link.is_symlink() and os.readlink(link) == path.name
    assert same(scenario_io.load(path), _changed(sc))
    assert sorted(os.listdir(tmp_path)) == ["link.json", "mine.json"]


def test_saving_over_a_symlink_to_another_folder(saved, tmp_path):
    path, sc, _ = saved
    elsewhere = tmp_path / "lessons"
    elsewhere.mkdir()
    link = elsewhere / "current.json"
    link.symlink_to(path)
    scenario_io.save(_changed(sc), link)
    assert link.is_symlink() and same(scenario_io.load(path), _changed(sc))
    assert os.listdir(elsewhere) == ["current.json"]


def test_a_write_protected_file_is_not_overwritten_unless_asked(saved):
    path, sc, before = saved
    os.chmod(path, 0o444)
    with pytest.raises(scenario_io.WriteProtectedError) as err:
        scenario_io.save(_changed(sc), path)
    assert "write-protected" in err.value.lines[0] and path.read_bytes() == before
    scenario_io.save(_changed(sc), path, overwrite_protected=True)  # the window asked, the person said yes
    assert same(scenario_io.load(path), _changed(sc))
    assert oct(os.stat(path).st_mode & 0o777) == oct(0o444)  # still protected
    assert os.listdir(path.parent) == [path.name]


@pytest.mark.parametrize("name", ["a" * 246 + ".json", "é" * 123 + ".json", "名" * 82 + ".json"])
def test_a_name_of_up_to_255_bytes_saves(tmp_path, name):
    assert len(os.fsencode(name)) >= 250
    sc = scenario_io.load(TOY)
    path = tmp_path / name
    scenario_io.save(sc, path)
    scenario_io.save(_changed(sc), path)
    assert os.listdir(tmp_path) == [name] and same(scenario_io.load(path), _changed(sc))


def test_long_names_keep_their_temporaries_apart(tmp_path):
    from attention.files import safe_write

    a, b = "x" * 245 + "a.json", "x" * 245 + "b.json"
    pa, pb = safe_write.temp_prefix(a), safe_write.temp_prefix(b)
    assert pa != pb and len(os.fsencode(pa)) + 12 <= 255
    (tmp_path / f"{pb}abcdefgh.tmp").write_text("b's")
    assert safe_write.stale_temporaries(tmp_path / a) == []
    assert safe_write.stale_temporaries(tmp_path / b) == [tmp_path / f"{pb}abcdefgh.tmp"]


# ---- targets that are not regular files (issue 21) --------------------------------------------------

def _special(tmp_path, kind: str):
    """A FIFO or a bound Unix socket at tmp_path/kind; the socket object is returned to keep it open."""
    import socket

    path = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(path)
        return path, None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    return path, sock


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and Unix sockets are POSIX")
@pytest.mark.parametrize("kind", ["fifo", "socket"])
@pytest.mark.parametrize("through_link", [False, True])
def test_a_target_that_is_not_a_regular_file_is_refused_and_left_as_it_is(tmp_path, kind, through_link):
    import stat

    from attention.files import safe_write

    path, keep = _special(tmp_path, kind)
    target = path
    if through_link:
        target = tmp_path / "link.json"
        target.symlink_to(path)
    before = os.stat(path).st_mode
    try:
        with pytest.raises(safe_write.NotRegularFile) as e:
            safe_write.write_atomic(target, ["{}"])
        assert e.value.kind == kind
        with pytest.raises(ScenarioError, match="not a regular file"):
            scenario_io.save(scenario_io.load(TOY), target)
    finally:
        if keep is not None:
            keep.close()
    assert os.stat(path).st_mode == before and not stat.S_ISREG(before)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({path.name, target.name})  # no temporary left


def test_a_device_node_is_named_as_one():
    """Checked without writing: a test that wrote to /dev/null as root would replace it when broken."""
    from attention.files import safe_write

    assert safe_write.target_kind("/dev/null") == "device"
    assert safe_write.target_kind(TOY) is None
