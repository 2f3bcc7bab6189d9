"""Files in the real window: save and reopen, bad files, drag and drop, the unsaved-changes
prompt, presets, recent files and persisted settings."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox

import attention
import resources
from attention import ScenarioError
from attention.datamodel.scenario import same
from attention.files import scenario_io


def _edit(window, value: str = "2.75") -> None:
    model = window.inputs.editors["queries"].model
    model.setData(model.index(1, 2), value)


def test_save_then_reopen_gives_the_same_scenario(window, tmp_path, make_window, check_panes):
    _edit(window)
    window.params.controls["causal"].setChecked(True)
    target = tmp_path / "lesson"
    window.ask_save_path = lambda *a: str(target)
    assert window.save_as()
    saved = tmp_path / "lesson.json"
    assert saved.exists() and not window.isWindowModified()
    assert window.document.path == saved
    assert "lesson.json" in window.windowTitle()
    assert same(scenario_io.load(saved), window.document.scenario)
    other = make_window()
    assert other.load_path(saved)
    assert same(other.document.scenario, window.document.scenario)
    check_panes(other)
    _edit(window, "3")
    assert window.save()  # to the same path, no dialog
    assert scenario_io.load(saved).queries[0, 1, 2] == 3.0


def test_a_bad_file_changes_nothing_and_lists_every_problem(window, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "attention-explorer/scenario", "version": 1, "queries": [[[1, 2]]], '
                   '"keys": [[[1, "x"]]], "values": [[[1, 2]]], "n_heads": 0}', encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        scenario_io.load(bad)
    _edit(window)
    before = window.document.scenario
    assert not window.load_path(bad)
    assert window.document.scenario is before
    assert window.document.path is None and window.isWindowModified()
    assert window.message_bar.lines() == err.value.lines
    assert "bad.json" in window.message_bar.title()


def test_a_file_that_is_not_json(window, tmp_path):
    bad = tmp_path / "notes.json"
    bad.write_text("queries = [1, 2]", encoding="utf-8")
    before = window.document.scenario
    assert not window.load_path(bad)
    assert window.document.scenario is before and window.message_bar.lines()


def _drop(window, path: Path) -> QDropEvent:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    return event


def test_dropping_a_scenario_file_opens_it(window, tmp_path):
    path = tmp_path / "dropped.json"
    scenario_io.save(scenario_io.load(resources.list_presets()[2][0]), path)
    event = _drop(window, path)
    assert event.isAccepted()
    assert window.document.path == path
    assert same(window.document.scenario, scenario_io.load(path))


def test_dropping_something_else_is_ignored(window, tmp_path):
    other = tmp_path / "picture.png"
    other.write_bytes(b"\x89PNG")
    before = window.document.scenario
    _drop(window, other)
    assert window.document.scenario is before


class Asked:
    def __init__(self, answer):
        self.answer, self.count = answer, 0

    def __call__(self):
        self.count += 1
        return self.answer


def test_unsaved_changes_prompt_on_new_open_and_close(window, tmp_path):
    other = tmp_path / "other.json"
    scenario_io.save(window.document.scenario, other)
    _edit(window)
    edited = window.document.scenario
    window.ask_save_changes = cancel = Asked(QMessageBox.StandardButton.Cancel)
    assert not window.new_file()
    assert not window.open_file(str(other))
    window.show()
    assert not window.close() and window.isVisible()
    assert cancel.count == 3 and window.document.scenario is edited
    window.ask_save_changes = discard = Asked(QMessageBox.StandardButton.Discard)
    assert window.new_file()
    assert discard.count == 1 and window.document.scenario.L == 3 and not window.isWindowModified()
    _edit(window)
    window.ask_save_changes = save = Asked(QMessageBox.StandardButton.Save)
    window.ask_save_path = lambda *a: str(tmp_path / "kept.json")
    assert window.open_file(str(other))
    assert save.count == 1 and (tmp_path / "kept.json").exists()
    assert window.document.path == other
    window.ask_save_changes = never = Asked(QMessageBox.StandardButton.Cancel)
    assert window.close()  # nothing unsaved: no question
    assert never.count == 0


def test_save_cancelled_in_the_dialog_keeps_the_window_open(window):
    _edit(window)
    window.ask_save_changes = lambda: QMessageBox.StandardButton.Save
    window.ask_save_path = lambda *a: None
    window.show()
    assert not window.close()


def test_presets_menu_lists_every_preset_by_title(window):
    titles = [a.text() for a in window.preset_menu.actions()]
    assert titles == [t["en"] for _, t in resources.list_presets()]
    window.preset_menu.actions()[2].trigger()
    assert same(window.document.scenario, scenario_io.load(resources.list_presets()[2][0]))
    assert window.document.path is None and not window.isWindowModified()


def test_recent_files_and_geometry_persist(window, tmp_path, make_window, settings):
    path = tmp_path / "r.json"
    window.ask_save_path = lambda *a: str(path)
    window.save_as()
    assert settings.recent_files() == [str(path.resolve())]
    window.splitter.setSizes([300, 500, 800])
    sizes = window.splitter.sizes()
    window.resize(1234, 777)
    window.close()
    again = make_window()
    assert [a.text() for a in again.recent_menu.actions()] == ["r.json"]
    assert again.splitter.sizes() == sizes
    assert settings.geometry() is not None


def test_export_pane_image_and_step_csv(window, tmp_path):
    from PySide6.QtGui import QImage

    window.ask_choice = lambda title, label, items: items.index(next(i for i in items if "(attention_weights)" in i))
    window.ask_save_path = lambda *a: str(tmp_path / "weights")
    assert window.export_pane()
    image = QImage(str(tmp_path / "weights.png"))
    assert not image.isNull() and image.width() > 100
    window.ask_save_path = lambda *a: str(tmp_path / "weights.svg")
    assert window.export_pane()
    assert (tmp_path / "weights.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    window.ask_save_path = lambda *a: str(tmp_path / "weights")
    assert window.export_csv()
    text = (tmp_path / "weights.csv").read_text(encoding="utf-8")
    assert "t1" in text  # the toy's token labels
    weights = attention.run(window.document.scenario).array("attention_weights")[0, 0]
    assert repr(float(weights[0, 0])) in text


def test_export_failures_are_messages(window, tmp_path):
    window.ask_choice = lambda title, label, items: 0
    window.ask_save_path = lambda *a: str(tmp_path / "missing-folder" / "x.png")
    assert not window.export_pane()
    assert "x.png" in window.message_bar.title() and window.message_bar.lines()


# ---- hostile files (issue 13) ---------------------------------------------------------------------

def _open_via_dialog(window, path) -> bool:
    """File > Open as a user does it: the dialog answers `path`."""
    window.ask_open_path = lambda: str(path)
    return window.open_file()


def test_paths_that_are_not_files_are_refused_at_once(window, tmp_path):
    """A FIFO would block the window forever, /dev/zero would fill memory: refused before reading."""
    import os
    import time

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    before = window.document.scenario
    for path, what in ((fifo, "a pipe (FIFO)"), ("/dev/zero", "a device"), (tmp_path, "a folder")):
        start = time.perf_counter()
        assert not _open_via_dialog(window, path)
        assert time.perf_counter() - start < 1.0
        assert window.document.scenario is before
        assert window.message_bar.lines() == [f"file: {what}, not a regular file; open a scenario file (.json)"]


def test_a_file_with_200000_unknown_fields_opens_to_a_short_message(window, tmp_path, qapp):
    """The window once froze for minutes on such a file: the loader keeps a few hundred problems and
    the message bar shows at most a dozen lines, the last saying how many more."""
    import json
    import time

    from app.editing.message_bar import MAX_LINES

    doc = json.loads(resources.list_presets()[0][0].read_text(encoding="utf-8"))
    doc.update({f"field{i}": i for i in range(200_000)})
    path = tmp_path / "many.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    start = time.perf_counter()
    assert not _open_via_dialog(window, path)
    qapp.processEvents()
    elapsed = time.perf_counter() - start
    shown = window.message_bar.label.text().split("<br>")
    assert len(shown) == 1 + MAX_LINES and shown[-1] == f"\u2022 \u2026 and {200_000 - MAX_LINES + 1:,} more"
    assert window.message_bar.sizeHint().height() < window.height()
    assert elapsed < 15, elapsed  # about 1 s on an idle machine; the bound only catches a freeze


def test_a_megabyte_value_keeps_the_message_bar_small(window, tmp_path):
    import json

    doc = json.loads(resources.list_presets()[0][0].read_text(encoding="utf-8"))
    doc["dtype"] = "x" * (1 << 20)
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert not _open_via_dialog(window, path)
    assert len(window.message_bar.label.text()) < 500
    assert window.message_bar.sizeHint().width() < 2000
