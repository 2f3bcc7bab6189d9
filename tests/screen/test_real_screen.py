"""The real screen itself: Xvfb at the asked size, and a window manager that maximizes (what every
tests/screen test leans on)."""
from pathlib import Path

import pytest
from real_screen import RealScreen

pytestmark = pytest.mark.slow
HERE = Path(__file__).parent


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)])
def test_a_maximized_window_fills_a_real_screen_of_the_asked_size(size):
    with RealScreen(*size) as screen:
        report = screen.run_probe(HERE / "probe_maximized.py")
    assert report["platform"] == "xcb"
    assert report["screen"] == list(size)
    # maximized by openbox: the whole width, and nearly the whole height (no panel: the frame's title bar inside)
    assert report["window"][0] == size[0] and report["window"][1] >= size[1] - 2
