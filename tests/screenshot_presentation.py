"""Screenshot presentation mode on the seed's toy preset, in English and Chinese, at 1280x720.

    xvfb-run -a -s "-screen 0 1280x720x24" .venv/bin/python tests/screenshot_presentation.py [OUT_DIR] [--qm DIR]
        [--size WxH] [--presets]

Writes OUT_DIR/presentation.<step>.<lang>.png (default OUT_DIR: build/screenshots/, which git
ignores) for a few steps, plus one zoomed-in slide and one slide with the edit drawer open
(presentation.drawer.<lang>.png: heads changed to 1 in the drawer, the slide recomputed), and the
scores slide with eight heads (presentation.heads8.<lang>.png).  `--size` shoots at another size
(1366x768, 1920x1080); `--presets` adds every slide of the masked, ProbSparse and causal presets
(presentation.<preset>.<step>.<lang>.png).  Each picture's number sizes are printed: the digit
height on screen of every pane's numbers (px).
`--qm DIR` loads app_zh_CN.qm from DIR instead of resources/translations (to look at translations
not merged yet).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import PySide6.QtWidgets  # noqa: F401  (before torch and pyqtgraph)
from PySide6.QtCore import QSettings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STEPS = ("projection.query", "scores", "attention_weights", "weighted_sum", "output")
SIZE = (1280, 720)


def _settle(app) -> None:
    for _ in range(8):
        app.processEvents()


def main(argv: list[str]) -> int:
    args = [a for a in argv]
    qm_dir = None
    if "--qm" in args:
        i = args.index("--qm")
        qm_dir = args[i + 1]
        del args[i:i + 2]
    size = SIZE
    if "--size" in args:
        i = args.index("--size")
        size = tuple(int(v) for v in args[i + 1].split("x"))
        del args[i:i + 2]
    presets = "--presets" in args
    out = Path(next((a for a in args if not a.startswith("--")), ROOT / "build" / "screenshots"))
    out.mkdir(parents=True, exist_ok=True)
    from app.startup.application import get_app

    app = get_app([])
    tmp = Path(tempfile.mkdtemp(prefix="ae-present-"))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp))
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp))
    from app.main_window import MainWindow
    from app.services import i18n
    from app.services.settings import Settings

    if qm_dir is not None:
        i18n.TRANSLATIONS = Path(qm_dir)
    window = MainWindow(Settings.at(tmp / "settings.ini"))
    window.ask_save_changes = lambda: PySide6.QtWidgets.QMessageBox.StandardButton.Discard
    window.resize(*size)
    window.show()
    window.load_path(ROOT / "resources" / "scenarios" / "01_tsl_toy.json")
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    view = window.presentation.view
    written = []
    for lang in ("en", "zh"):
        window.set_language(lang, remember=False)
        window.presentation.enter()
        view.resize(*size)  # full screen is the Xvfb screen; offscreen has no fixed size
        for sid in STEPS:
            view.go_to(view.lesson_ids().index(sid))
            _settle(app)
            target = out / f"presentation.{sid}.{lang}.png"
            if not view.grab().save(str(target)):
                print(f"could not write {target}", file=sys.stderr)
                return 1
            written.append(target)
            _report(view, target)
        view.zoom_in()
        view.zoom_in()
        view.go_to(view.lesson_ids().index("attention_weights"))
        _settle(app)
        target = out / f"presentation.zoomed.{lang}.png"
        view.grab().save(str(target))
        written.append(target)
        view.zoom_reset()
        view.go_to(view.lesson_ids().index("head_split.query"))
        view.open_drawer()
        view.drawer.params.controls["n_heads"].setValue(1)  # an edit in the drawer, live on the slide
        window.recompute.wait_idle()
        _settle(app)
        target = out / f"presentation.drawer.{lang}.png"
        view.grab().save(str(target))
        written.append(target)
        window.undo_action.trigger()
        window.recompute.wait_idle()
        view.close_drawer()
        _settle(app)
        view.leave()
        written += _eight_heads(app, window, view, out, lang, size)
        if presets:
            written += _presets(app, window, view, out, lang, size)
        window.load_path(ROOT / "resources" / "scenarios" / "01_tsl_toy.json")
        window.recompute.recompute_now()
        window.recompute.wait_idle()
    window.recompute.shutdown()
    window.close()
    print("\n".join(str(p) for p in written))
    return 0


def _report(view, target: Path) -> None:
    """Print the digit height (px on screen) and precision of every pane's numbers."""
    from app.teaching.presentation.zoomed_pane import digit_height

    parts = []
    for pane in [view.output_pane(), *view.input_panes()]:
        choice = pane.number_choice() if pane is not None else None
        if pane is not None:
            text = "no numbers" if choice is None else f"{digit_height(choice[0]):.1f}px/{choice[1]}d"
            parts.append(f"{pane.step_id}={text}")
    print(f"{target.name}: " + ", ".join(parts))


def _shoot(app, view, out: Path, name: str) -> Path:
    _settle(app)
    target = out / name
    if not view.grab().save(str(target)):
        raise SystemExit(f"could not write {target}")
    _report(view, target)
    return target


def eight_heads():
    """A 4 x 4 scenario with eight heads of width 2 (d_model 16), numbers from a fixed seed."""
    import math

    import numpy as np

    from attention.datamodel.scenario import Projection, Scenario

    rng = np.random.default_rng(8)
    d = 16
    pr = {n: Projection(rng.normal(size=(d, d)) / math.sqrt(d), rng.normal(size=d) * 0.1)
          for n in ("query", "key", "value", "out")}
    return Scenario(queries=rng.normal(size=(1, 4, d)), keys=rng.normal(size=(1, 4, d)),
                    values=rng.normal(size=(1, 4, d)), n_heads=8, projections=pr)


def _eight_heads(app, window, view, out: Path, lang: str, size) -> list[Path]:
    """The scores slide with eight heads: every head and the colour bar on the slide."""
    window.document.load(eight_heads(), None)
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    window.presentation.enter()
    view.resize(*size)
    view.go_to(view.lesson_ids().index("scores"))
    shot = _shoot(app, view, out, f"presentation.heads8.{lang}.png")
    view.leave()
    return [shot]


def _presets(app, window, view, out: Path, lang: str, size) -> list[Path]:
    written = []
    for stem in ("03_d2l_masked_softmax", "07_informer_probsparse", "06_causal_self_attention"):
        window.load_path(ROOT / "resources" / "scenarios" / f"{stem}.json")
        window.recompute.recompute_now()
        window.recompute.wait_idle()
        window.presentation.enter()
        view.resize(*size)
        for i, sid in enumerate(view.lesson_ids()):
            view.go_to(i)
            written.append(_shoot(app, view, out, f"presentation.{stem}.{sid}.{lang}.png"))
        view.leave()
    return written


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
