"""Shared test setup: Qt offscreen before anything imports it; hypothesis without deadlines
(a shared 2-core machine makes timings meaningless)."""
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# PySide6 before torch in any process that draws (a process that loads torch first can crash at exit).
import PySide6.QtWidgets  # noqa: E402, F401
from hypothesis import settings  # noqa: E402

settings.register_profile("default", deadline=None)
settings.load_profile("default")


import subprocess  # noqa: E402

import pytest  # noqa: E402
from gemma3_fixtures import gemma3_data, gemma3_file, gemma3_model  # noqa: E402, F401 (session fixtures)


@pytest.fixture(autouse=True)
def _catalogue_language_restored():
    """The catalogue's language is process-wide (the window sets it): a test that switches to
    Chinese must not leave the next test reading Chinese."""
    from attention import words

    before = words.language()
    yield
    words.set_language(before)


def _is_python(args) -> bool:
    argv0 = args if isinstance(args, (str, bytes, os.PathLike)) else next(iter(args), "")
    return os.path.realpath(os.fsdecode(argv0)) == os.path.realpath(sys.executable)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    with _quick_loop_guard(item):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    with _quick_loop_guard(item):
        yield


class _quick_loop_guard:  # noqa: N801 - used as a `with` block
    """A test that starts Python in a child process takes seconds (an interpreter, Qt, torch):
    it must be marked slow so `pytest -m "not slow"`, the quick loop, stays under a minute.  In a
    test not marked slow (its fixtures too, a module-scoped one included) such a start fails at
    once, naming the rule, instead of quietly slowing the loop down (issue 21 item 10)."""

    def __init__(self, item):
        self.active = item.get_closest_marker("slow") is None
        self.real = subprocess.Popen.__init__

    def __enter__(self):
        if self.active:
            real = self.real

            def guarded(popen, args, *a, **kw):
                if _is_python(args):
                    pytest.fail("this test starts Python in a child process (seconds): mark it "
                                "@pytest.mark.slow, or call the code in-process", pytrace=False)
                real(popen, args, *a, **kw)

            subprocess.Popen.__init__ = guarded
        return self

    def __exit__(self, *exc):
        subprocess.Popen.__init__ = self.real
        return False


_exit_status: list[int] = []


def pytest_sessionfinish(session, exitstatus):
    _exit_status.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """Leave without the interpreter's teardown once pytest has printed its summary.

    A full run (900+ tests: Qt windows, pyqtgraph, torch) passed every test and then died with a
    segfault while Python tore down its modules (exit 139; seen once in a fresh clone, and once
    by a helper after test_panes + test_handout).  That crash says nothing about any test, but it
    would turn a green run red.  The status is pytest's own, so a failing test still fails the run.
    Set ATTENTION_EXPLORER_FULL_TEARDOWN=1 to keep the normal teardown (to chase the crash)."""
    if _exit_status and not os.environ.get("ATTENTION_EXPLORER_FULL_TEARDOWN"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_exit_status[-1])
