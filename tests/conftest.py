"""Shared test setup: Qt offscreen before anything imports it; hypothesis without deadlines
(a shared 2-core machine makes timings meaningless)."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from hypothesis import settings  # noqa: E402

settings.register_profile("default", deadline=None)
settings.load_profile("default")
