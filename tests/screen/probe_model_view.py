"""Probe: the Model dock in a real maximized window, each bundled model after Next token.

    python tests/screen/probe_model_view.py --lang zh [--models minilm,glassllm,smollm2] [--dialogs] [--shots DIR]

Run under tests/screen/real_screen.RealScreen (Xvfb + openbox).  For each model it triggers its File menu entry,
waits for the grid, clicks a grid cell as a person does (the first click must land on that cell), turns the
wheel over the grid, and for a decoder presses Next token; then it measures what a person sees in the dock and
prints one JSON object on its last line:

    {"screen": [w, h], "models": {name: {"cell": px, "rows": n, "cols": n, "label_px": px, "clicked": [...],
     "landed": [...], "clipped": [...], "unreachable_bars": [...], "wheel": {...}, "dock": [x, y, w, h]}},
     "dialogs": ... (with --dialogs: probe_dialogs.look_at_dialogs' report, measured first in the same window)}

`clipped` names each widget of the dock a person cannot read whole: shown smaller than it needs (a wrapped
label cut, a heatmap squeezed under its minimum) or lying outside the dock's visible area with no scroll bar that
reaches it.  `unreachable_bars` names scroll bars shown with a range that lie (partly) off the dock.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: gemma3_fixtures
MODELS = ("minilm", "glassllm", "smollm2", "gemma3")
WAIT_S = 240  # SmolLM2: reading and dequantizing 135 M weights on a busy 2-core machine


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--lang", default="en")
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--dialogs", action="store_true")
    p.add_argument("--shots", type=Path)
    p.add_argument("--gemma-data", type=Path, help="a data folder holding the assembled Gemma 3 file (the tests' "
                                                   "gemma3_data): linked into the window's, its terms accepted")
    args = p.parse_args(argv)
    import PySide6.QtWidgets  # noqa: F401  (before torch)
    import screen_probes as sp
    from PySide6.QtWidgets import QMessageBox

    from app.startup.application import get_app

    app = get_app([])
    window = sp.open_window(args.lang)
    report = {"screen": sp.screen_size(window), "lang": args.lang, "models": {}}
    if args.dialogs:  # first, while the document is the start-up preset (File ▸ New asks about its edit)
        from probe_dialogs import look_at_dialogs

        report["dialogs"] = look_at_dialogs(app, window, args.lang, args.shots)
    window.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
    for name in args.models.split(","):
        if name == "gemma3" and not _gemma_ready(window, args.gemma_data):
            report["models"][name] = {"missing": True}
            continue
        report["models"][name] = look_at_model(app, window, name, args.shots)
    window.recompute.shutdown()
    print(json.dumps(report, ensure_ascii=False), flush=True)
    return 0


def _gemma_ready(window, folder) -> bool:
    """The tests' assembled Gemma 3 file in the window's data folder and its terms accepted (the terms dialog and
    the assembly are tests/gui/test_gemma3_window.py's); False where there is none."""
    if folder is None:
        return False
    from gemma3_fixtures import link_gemma3

    from attention.models import gemma3_bundle

    source = gemma3_bundle.target(folder)
    if not source.exists():
        return False
    link_gemma3(source, Path(window.settings.data_folder()))
    window.settings.set_terms_accepted("gemma")
    return True


def look_at_model(app, window, name: str, shots) -> dict:
    import screen_probes as sp

    tools = window.models
    action = {"minilm": tools.bundled_action, "glassllm": tools.glassllm_action, "smollm2": tools.smollm2_action,
              "gemma3": getattr(getattr(tools, "gemma", None), "action", None)}[name]
    if action is None:
        return {"missing": True}
    if not action.isVisible() or not action.isEnabled():
        return {"missing": True}
    action.trigger()
    sp.wait(app, lambda: tools.session is not None and tools.is_idle() and not tools.is_loading()
            and window.recompute.is_idle() and tools.dock.isVisible(), WAIT_S)
    sp.settle(app, 0.5)
    grid = tools.panel.grid
    out: dict = {"rows": grid._layers, "cols": grid._heads}
    out["wheel"] = sp.wheel_over(app, grid)
    layer, head = min(2, grid._layers - 1), min(1, grid._heads - 1)
    out["clicked"] = [layer, head]
    sp.click_cell(app, grid, layer, head)
    sp.wait(app, lambda: tools.is_idle() and window.recompute.is_idle(), WAIT_S)
    out["landed"] = [tools.session.layer, tools.session.head]
    if getattr(tools.session, "is_decoder", False):
        sp.press(app, tools.panel.cache.next_button)
        sp.wait(app, lambda: tools.is_idle() and window.recompute.is_idle() and not tools._stepping, WAIT_S)
        out["next_token"] = tools.session.tokens()[-1] if tools.session.tokens() else None
    sp.settle(app, 0.8)
    out["cell"] = grid.cell_size()
    out["label_px"] = grid.fontMetrics().height()
    out["dock"] = list(tools.dock.geometry().getRect())
    out["clipped"] = sp.clipped(tools.dock)
    out["unreachable_bars"] = sp.unreachable_bars(tools.dock)
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
        sp.grab(app, shots / f"model_view.{name}.{window.screen().size().width()}x"
                             f"{window.screen().size().height()}.{window.settings.language()}.png")
    out["explained"] = {show: look_at_explain(app, window, index, WAIT_S) for show, index in (("rollout", 1),
                                                                                              ("flow", 2))}
    tools.panel.show_box.setCurrentIndex(0)
    tools.panel.show_box.activated.emit(0)
    sp.settle(app, 0.3)
    return out


def look_at_explain(app, window, index: int, seconds: float) -> dict:
    """Model view ▸ Show rollout (1) or attention flow (2), a click on a cell of its heatmap with the real pointer,
    and what that does to the window: its frame still inside the screen, nothing of the dock cut, the explanation
    shown."""
    import screen_probes as sp

    tools = window.models
    panel = tools.panel
    panel.show_box.setCurrentIndex(index)
    panel.show_box.activated.emit(index)  # as a pick in the Show box does (the box acts on `activated`)
    sp.wait(app, lambda: tools.is_idle() and (index != 2 or panel.flow.current()), seconds)
    sp.settle(app, 0.5)
    heat = panel.rollout
    cell = heat.cell_rect(0, 0)
    point = cell.topLeft() + (cell.bottomRight() - cell.topLeft()) * 0.6  # a cell below the diagonal's middle
    area = sp.scroll_area_of(heat)
    if area is not None:
        centre = heat.mapTo(area.widget(), point)
        area.ensureVisible(centre.x(), centre.y(), 20, 20)
        sp.settle(app, 0.2)
    sp.xdotool(*sp._at(heat, point), "click", "1")
    sp.settle(app, 0.8)
    screen = window.screen().availableGeometry()
    frame = window.frameGeometry()
    return {"text": panel.rollout_explain.text()[:80], "frame": list(frame.getRect()),
            "inside": screen.contains(frame), "clipped": sp.clipped(tools.dock),
            "unreachable_bars": sp.unreachable_bars(tools.dock)}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
