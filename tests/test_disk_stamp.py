"""app.pipeline.disk_stamp: what "the file changed on disk since the window read it" means
(issue 21 item 2).  The expected hashes come from hashlib here, not from the module."""
from __future__ import annotations

import hashlib
import os

from hypothesis import given
from hypothesis import strategies as st

from app.pipeline.disk_stamp import DiskStamp, changed_since, stamp_file


def test_the_stamp_of_a_file_is_its_size_mtime_and_sha256(tmp_path):
    f = tmp_path / "a.json"
    f.write_bytes(b'{"x": 1}')
    s = stamp_file(f)
    assert s == DiskStamp(8, f.stat().st_mtime_ns, hashlib.sha256(b'{"x": 1}').hexdigest())
    assert DiskStamp.of_bytes(b'{"x": 1}', s.mtime_ns) == s


def test_what_counts_as_a_change(tmp_path):
    f = tmp_path / "a.json"
    f.write_bytes(b"one")
    s = stamp_file(f)
    assert changed_since(f, s) is None and changed_since(f, None) is None
    os.utime(f, ns=(s.mtime_ns + 10**10, s.mtime_ns + 10**10))  # touched: same bytes
    assert changed_since(f, s) is None
    f.write_bytes(b"two")  # same size
    os.utime(f, ns=(s.mtime_ns, s.mtime_ns))  # same mtime: only the hash tells
    now = changed_since(f, s)
    assert now is not None and now.sha256 == hashlib.sha256(b"two").hexdigest()
    f.unlink()
    assert changed_since(f, s) is None  # gone: nothing on disk to lose


def test_a_stamp_without_a_hash_compares_times(tmp_path):
    f = tmp_path / "a.json"
    f.write_bytes(b"x")
    t = f.stat().st_mtime_ns
    assert changed_since(f, DiskStamp(-1, t, None)) is None
    assert changed_since(f, DiskStamp(-1, t - 1, None)) is not None


def test_a_fifo_or_a_folder_is_never_read(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    assert stamp_file(fifo) is None  # returns at once: a read would block for ever
    assert stamp_file(tmp_path) is None and stamp_file(tmp_path / "none") is None
    assert stamp_file("bad\0name") is None


@given(st.one_of(st.none(), st.integers(), st.text(), st.lists(st.integers()),
                 st.dictionaries(st.sampled_from(["size", "mtime_ns", "sha256"]),
                                 st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.text(),
                                           st.floats()))))
def test_a_recorded_stamp_is_read_back_or_refused_never_raises(obj):
    s = DiskStamp.from_json(obj)
    assert s is None or (isinstance(s.size, int) and isinstance(s.mtime_ns, int))


def test_a_stamp_goes_through_json_and_back():
    for s in (DiskStamp(3, 10**18, "ab" * 32), DiskStamp(-1, 5, None)):
        assert DiskStamp.from_json(s.to_json()) == s
