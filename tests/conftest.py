"""Shared test setup: Qt offscreen before anything imports it; hypothesis without deadlines
(a shared 2-core machine makes timings meaningless)."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from hypothesis import settings  # noqa: E402

settings.register_profile("default", deadline=None)
settings.load_profile("default")


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _catalogue_language_restored():
    """The catalogue's language is process-wide (the window sets it): a test that switches to
    Chinese must not leave the next test reading Chinese."""
    from attention import words

    before = words.language()
    yield
    words.set_language(before)
