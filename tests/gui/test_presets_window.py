"""Every preset opened in the real window shows exactly the engine's trace in every pane."""
from __future__ import annotations

import pytest

import resources

PRESETS = resources.list_presets()


@pytest.mark.parametrize("path,title", PRESETS, ids=[p.stem for p, _ in PRESETS])
def test_preset_opens_and_every_pane_holds_the_trace(make_window, check_panes, path, title):
    window = make_window()
    assert window.open_preset(path, title)
    window.recompute.recompute_now()
    check_panes(window)
    if window.document.scenario.batch > 1:
        window._show_batch(1)
        check_panes(window, batch=1)
    assert title["en"] in window.windowTitle()
