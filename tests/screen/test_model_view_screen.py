"""The Model dock and every dialog in a real maximized window (Xvfb + openbox) at a laptop's and a projector's size,
in both languages, with each bundled model after Next token (issue 30, items 2 and 5).

One probe process per size and language (tests/screen/probe_model_view.py --dialogs) opens every dialog from its
menu entry, then MiniLM, glassllm and SmolLM2 from the File menu; on each it turns the wheel over the grid and
clicks a cell with the real pointer (xdotool), and presses Next token for the decoders.  What a person must get:

- no widget of the dock cut (a wrapped label squeezed to one line, a heatmap under its least height) and none
  outside the dock's visible part without a scroll bar that reaches it; no scroll bar with something to scroll
  that lies off the dock or is hidden;
- grid cells of at least 12 px with a layer label that fits its row; where the grid is taller than the dock the
  wheel over it scrolls;
- the first click lands on the cell clicked;
- every dialog's frame inside the screen; in Chinese, no English word in any of them (Qt's own "Look in:").

- after Show ▸ Rollout or Attention flow and a click on its heatmap, the explanation shown, the window's frame still
  inside the screen and nothing of the dock cut.

SmolLM2 and Gemma 3 are skipped where their wheels are not installed (`.ci/setup test` installs them); Gemma 3 opens
the session's assembled file (tests/gemma3_fixtures.py) with its terms accepted — the terms dialog and the assembly
are tests/gui/test_gemma3_window.py's.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from real_screen import RealScreen

pytestmark = pytest.mark.slow
HERE = Path(__file__).parent
MIN_CELL = 12


@pytest.fixture(scope="module", params=[(1280, 720, "zh"), (1280, 720, "en"), (1366, 768, "zh"), (1366, 768, "en")],
                ids=lambda p: f"{p[0]}x{p[1]}-{p[2]}")
def seen(request):
    w, h, lang = request.param
    gemma = _gemma_data(request)
    with RealScreen(w, h) as screen:
        return screen.run_probe(HERE / "probe_model_view.py", "--lang", lang, "--dialogs",
                                *(("--gemma-data", str(gemma)) if gemma is not None else ()), timeout=1200)


def _gemma_data(request):
    """The session's assembled Gemma 3 folder, or None where its package is missing (the other models still run)."""
    from attention.models import gemma3_bundle

    return request.getfixturevalue("gemma3_data") if gemma3_bundle.available() else None


@pytest.mark.parametrize("model", ["minilm", "glassllm", "smollm2", "gemma3"])
def test_the_model_dock_fits_after_next_token(seen, model):
    got = seen["models"][model]
    if got.get("missing"):
        pytest.skip(f"{model} is not installed")
    where = f"{model} at {seen['screen']} ({seen['lang']})"
    assert got["clipped"] == [], f"{where}: cut: {got['clipped']}"
    assert got["unreachable_bars"] == [], f"{where}: {got['unreachable_bars']}"
    assert got["cell"] >= MIN_CELL, f"{where}: {got['rows']} x {got['cols']} grid drawn with {got['cell']} px cells"
    assert got["label_px"] <= got["cell"] + 3, f"{where}: {got['label_px']} px labels beside {got['cell']} px rows"
    if got["wheel"]["range"] > 0:  # the grid is taller than the dock: the wheel over it must scroll
        assert got["wheel"]["moved"] > 0, f"{where}: the wheel over the grid did not scroll ({got['wheel']})"
    assert got["landed"] == got["clicked"], f"{where}: clicked layer/head {got['clicked']}, opened {got['landed']}"
    if model != "minilm":
        assert got.get("next_token"), f"{where}: Next token gave nothing"


@pytest.mark.parametrize("model", ["minilm", "glassllm", "smollm2", "gemma3"])
@pytest.mark.parametrize("show", ["rollout", "flow"])
def test_explaining_a_rollout_or_flow_cell_keeps_the_window_on_the_screen(seen, model, show):
    got = seen["models"][model]
    if got.get("missing"):
        pytest.skip(f"{model} is not installed")
    e = got["explained"][show]
    where = f"{model} ▸ {show} at {seen['screen']} ({seen['lang']})"
    assert e["text"], f"{where}: a click on the heatmap explained nothing"
    assert e["inside"], f"{where}: the window's frame {e['frame']} grew past the screen"
    assert e["clipped"] == [] and e["unreachable_bars"] == [], f"{where}: {e['clipped']} {e['unreachable_bars']}"


def test_every_dialog_opens_inside_the_screen_in_the_window_language(seen):
    report = seen["dialogs"]
    assert report["missing"] == [], f"entries that opened no dialog: {report['missing']}"
    assert len(report["dialogs"]) >= 15
    outside = [(d["entry"], d["frame"]) for d in report["dialogs"] if not d["inside"]]
    assert outside == [], f"dialogs past the {report['available']} screen: {outside}"
    english = [(d["entry"], d["english"]) for d in report["dialogs"] if d["english"]]
    assert english == [], f"English in the Chinese window's dialogs: {english}"
