"""The Autosaver on its own (no window, fast), issue 21 item 4: an edit reaches the disk soon
even while edits keep coming, and a write that fails says why instead of only printing it."""
from __future__ import annotations

import errno
import json
import os
import time

import numpy as np
import pytest

from app.pipeline import autosave
from app.pipeline.document import Document
from app.viewmodel.matrix_ref import MatrixRef
from attention import Scenario
from attention.datamodel.scenario import same
from attention.files import scenario_io

REF = MatrixRef("queries", 0)


@pytest.fixture
def saver(qtbot, tmp_path):
    q = np.arange(12.0).reshape(1, 3, 4)
    doc = Document(Scenario(q, q.copy(), q.copy(), n_heads=2))
    s = autosave.Autosaver(doc, tmp_path, lambda: {"source": None, "title": None})
    yield s
    s.close()


def test_edits_that_keep_coming_do_not_postpone_the_autosave(saver, qtbot, monkeypatch):
    """The timer restarted at every edit: typing on and on never autosaved.  Now the first
    unsaved edit waits MAX_WAIT_MS at most."""
    monkeypatch.setattr(autosave, "DELAY_MS", 400)
    monkeypatch.setattr(autosave, "MAX_WAIT_MS", 1000)
    written: list[float] = []
    saver.written.connect(lambda _: written.append(time.monotonic()))
    start = time.monotonic()
    for i in range(30):  # an edit every 100 ms for 3 s: never 400 ms quiet
        saver.document.set_cell(REF, 0, 0, float(i))
        qtbot.wait(100)
        if written:
            break
    assert written, "no autosave while the edits went on"
    assert written[0] - start < 2.5  # MAX_WAIT_MS (1 s) plus the shared machine's slack, far below 3 s
    doc = json.loads(saver.file.read_text(encoding="utf-8"))
    assert doc["version"] == 2 and doc["scenario"]["queries"]["$array"]["shape"] == [1, 3, 4]


def test_a_quiet_edit_is_written_after_the_short_delay(saver, qtbot, monkeypatch):
    monkeypatch.setattr(autosave, "DELAY_MS", 50)
    saver.document.set_cell(REF, 1, 2, 2.5)
    with qtbot.waitSignal(saver.written, timeout=5000):
        pass
    doc = json.loads(saver.file.read_text(encoding="utf-8"))
    assert same(scenario_io.from_dict(autosave.unpack(doc["scenario"])), saver.document.scenario)


@pytest.mark.parametrize("code, kind", [(errno.ENOSPC, "full"), (errno.EDQUOT, "full"), (errno.EROFS, "readonly"),
                                        (errno.EACCES, "readonly"), (errno.EPERM, "readonly"), (errno.EIO, "other")])
def test_a_failed_write_says_why_and_a_later_one_resumes(saver, qtbot, monkeypatch, code, kind):
    """(The sentences themselves, in English and Chinese: tests/gui/test_changed_on_disk.py.)"""
    monkeypatch.setattr(autosave, "DELAY_MS", 10)
    real = autosave.safe_write.write_atomic

    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(autosave.safe_write, "write_atomic", refuse)
    with qtbot.waitSignal(saver.failed, timeout=5000) as failed:
        saver.document.set_cell(REF, 0, 0, 5.0)
    assert saver.trouble[0] == kind and failed.args[0] and saver.problem == failed.args[0]
    monkeypatch.setattr(autosave.safe_write, "write_atomic", real)
    with qtbot.waitSignals([saver.resumed, saver.written], timeout=5000):
        saver.document.set_cell(REF, 0, 0, 6.0)
    assert saver.problem is None and saver.trouble is None and saver.file.exists()


def test_a_folder_that_cannot_be_made_says_so(qtbot, tmp_path, monkeypatch):
    """A real failure, not a patched one: the autosave folder's place is taken by a file."""
    monkeypatch.setattr(autosave, "DELAY_MS", 10)
    (tmp_path / "autosave").write_text("a file where the folder should be", encoding="utf-8")
    q = np.ones((1, 2, 2))
    doc = Document(Scenario(q, q, q, n_heads=1))
    s = autosave.Autosaver(doc, tmp_path, lambda: {"source": None, "title": None})
    with qtbot.waitSignal(s.failed, timeout=5000) as failed:
        doc.set_cell(REF, 0, 0, 3.0)
    assert s.trouble[0] == "other" and failed.args[0] == s.problem
    s.close()


def test_numbers_a_file_cannot_hold_say_so(saver, qtbot, monkeypatch):
    monkeypatch.setattr(autosave, "DELAY_MS", 10)
    with qtbot.waitSignal(saver.failed, timeout=5000) as failed:
        saver.document.set_cell(REF, 0, 0, float("nan"))
    assert saver.trouble[0] == "numbers" and "queries" in saver.trouble[1] and failed.args[0] == saver.problem
