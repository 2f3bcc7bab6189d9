"""Fixtures for the explorer window: a real MainWindow with settings in a temporary file."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any Qt import

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from gui_helpers import expected_matrices, presentation  # noqa: E402, F401 (a fixture for every GUI test)
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

import attention  # noqa: E402

#: fixtures that build the whole window, or a shown StepsView drawing every step of a trace
#: (test_panes' `view`, test_export's `shown`): a second or more each, several on a shared machine
WINDOW_FIXTURES = {"window", "make_window", "view", "shown"}


def pytest_collection_modifyitems(items):
    """A test that builds the whole window or draws a whole trace is slow: `pytest -m "not slow"`,
    the quick loop for editing, leaves it to CI and to a run of tests/gui."""
    for item in items:
        if WINDOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def english_after():
    """Every GUI test starts from English: a test that switches the window to Chinese must not
    leave the next one reading 复制 where it looks for Copy (the language is process-wide)."""
    yield
    from app.services import i18n

    if i18n.current_language() != "en":
        i18n.set_language("en")


@pytest.fixture
def settings(tmp_path):
    """Settings in tmp_path; QSettings' default locations point there too, never at the user's."""
    from app.services.settings import Settings

    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(tmp_path / "qsettings"))
    s = Settings.at(tmp_path / "settings.ini")
    s.set_language("en")
    return s


@pytest.fixture
def make_window(qtbot, settings):
    """make_window() -> a shown MainWindow on the toy preset with its first trace on screen."""
    from app.main_window import MainWindow

    windows = []

    def make(**kwargs):
        w = MainWindow(settings, **kwargs)
        # pytest-qt closes the window after the test: never block on the real dialog
        w.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
        qtbot.addWidget(w)
        w.recompute.recompute_now()
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.recompute.shutdown()


@pytest.fixture
def window(make_window):
    return make_window()


@pytest.fixture
def check_panes():
    """check_panes(window, batch=0): every pane holds exactly attention.run(document.scenario)."""
    return assert_panes_show_engine


def assert_panes_show_engine(window, batch: int = 0) -> None:
    window.recompute.wait_idle()
    sc = window.document.scenario
    trace = attention.run(sc)
    # every step, once (their order, the pipeline's, is tests/gui/test_pane_order.py's)
    assert sorted(window.view.pane_ids()) == sorted(trace.ids) and len(window.view.pane_ids()) == len(trace.ids)
    for sid in trace.ids:
        shown = window.view.displayed_arrays(sid)
        want = expected_matrices(trace, sid, batch)
        assert len(shown) == len(want), sid
        pane = window.view.pane(sid)
        for m, (s, w) in enumerate(zip(shown, want)):
            w = w.astype(np.float32)
            nan = np.isnan(w)
            assert np.array_equal(np.asarray(s)[~nan], w[~nan]), sid
            if nan.any():  # ProbSparse rows never computed: drawn as such, not as numbers
                assert np.array_equal(pane.heatmaps[m].overlay.not_computed_cells(), nan), sid
