"""Screenshot and measure the teaching views in a real window, on three screens in both languages.

Run by hand (not collected by pytest: it starts X servers and the whole app), from the repository root:

    .venv/bin/python tests/screenshot_teaching_sizes.py OUT_DIR [--sizes 1280x720,1366x768,1920x1080] [--langs en,zh]

As tests/screenshot_window_sizes.py: per screen a fresh X server (`xvfb-run`) with openbox, per
language the app launched through `app.startup.application.run` with fresh settings (Explain
closed).  Once the first trace is on screen, maximized, it shoots and measures:

    whatif   View > What if sliders open: every colour bar's numbers (pyqtgraph's own draw specs)
             inside the pane's canvas and, unless a sideways scroll bar shows, inside the Steps view
    byhand   the window's by-hand sheet: digits, number px, whether it needs a sideways scroll bar
    slide.*  preset 09 (8 heads), F5, the scores / attention_weights / output slides: the smallest
             text (tests/gui/slide_texts.py) and the slide's geometry against the screen

and prints one JSON line per shot (OUT_DIR/<shot>.<W>x<H>.<lang>.png).  Exits 1 when a launch failed
or something was off-screen, cut without a scroll bar, or smaller than 14 px on a slide.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = ("1280x720", "1366x768", "1920x1080")
LANGS = ("en", "zh")
WAIT_S = 180
EIGHT = "09_trained_tsl_period"
SLIDES = ("scores", "attention_weights", "output")
MIN_SLIDE_PX = 14


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        return child(argv[1:])
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--sizes", default=",".join(SIZES))
    p.add_argument("--langs", default=",".join(LANGS))
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    failures = 0
    for size in args.sizes.split(","):
        for lang in args.langs.split(","):
            cmd = ["xvfb-run", "-a", "-s", f"-screen 0 {size}x24", sys.executable, str(Path(__file__).resolve()),
                   "--child", size, lang, str(args.out.resolve())]
            rc = subprocess.run(cmd, cwd=ROOT).returncode
            if rc != 0:
                print(f"{size} {lang}: FAILED (exit {rc})")
                failures += 1
    return 1 if failures else 0


def child(argv: list[str]) -> int:
    size, lang, out = argv[0], argv[1], Path(argv[2])
    home = Path(tempfile.mkdtemp(prefix="ae-teaching-sizes-"))
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        os.environ[var] = str(home / var.lower())
    conf = home / "xdg_config_home" / "AttentionExplorer" / "Attention Explorer.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text(f"[General]\nlanguage={lang}\n\n[explain]\nvisible=false\n", encoding="utf-8")
    wm = subprocess.Popen(["openbox"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "gui")]
        import PySide6.QtWidgets  # noqa: F401  (before torch)
        from PySide6.QtCore import QTimer

        from app.startup.application import get_app, run

        app = get_app([])
        shots = _Shots(app, size, lang, out)
        QTimer.singleShot(500, shots.poll)
        code = run(None)
        return code or (0 if shots.ok else 1)
    finally:
        wm.terminate()
        wm.wait(10)


def _output_fit(view) -> dict:
    """The output's heads on the slide's canvas: one tile's size, the empty strip right of the widest
    row's last tile in its pane, the canvas's scroll ranges and whether the note under the heads is in view."""
    out, port = view.output_pane(), view.body_scroll.viewport()
    if out is None or not out.visible_heads():
        return {}
    rects = []
    for m in out.visible_heads():
        r = out.heatmaps[m].vb.sceneBoundingRect()
        tl = out.canvas.mapTo(port, out.canvas.mapFromScene(r.topLeft()))
        br = out.canvas.mapTo(port, out.canvas.mapFromScene(r.bottomRight()))
        rects.append((tl.x(), tl.y(), br.x(), br.y()))
    row = [t for t in rects if abs(t[1] - rects[0][1]) < 1]
    note = out.hover
    note_bottom = note.mapTo(port, note.rect().bottomLeft()).y()
    pane_right = out.mapTo(port, out.rect().topRight()).x()
    return {"tile_px": [rects[0][2] - rects[0][0], rects[0][3] - rects[0][1]], "area_px": [port.width(), port.height()],
            "strip_right_px": pane_right - max(t[2] for t in row),
            "scroll_max": [view.body_scroll.horizontalScrollBar().maximum(),
                           view.body_scroll.verticalScrollBar().maximum()],
            "note_in_view": bool(note.isVisible() and note_bottom <= port.height()), "zoom": round(out.zoom, 3),
            "cells": [round(v, 1) for v in out.cells[:2]] if out.cells else None}


def _bar_numbers_cut(pane, steps_port) -> list[str]:
    """The colour bar numbers of `pane` that are not wholly on screen: outside the pane's canvas,
    or (when the Steps view shows no sideways scroll bar) outside the Steps view."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QFontMetricsF, QImage, QPainter

    if not pane.bar.isVisible():
        return []
    axis = pane.bar.axis
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    if not specs:
        return []
    canvas = pane.canvas
    scroll_shown = steps_port.parentWidget().horizontalScrollBar().isVisible() if steps_port is not None else True
    cut = []
    metrics = QFontMetricsF(axis.style.get("tickFont") or axis.font())
    for rect, flags, text in specs[2]:
        glyphs = metrics.tightBoundingRect(text)  # the ink, placed as the flags place it in the rect
        if flags & Qt.AlignmentFlag.AlignLeft:
            left = rect.left()
        elif flags & Qt.AlignmentFlag.AlignRight:
            left = rect.right() - glyphs.width()
        else:
            left = rect.center().x() - glyphs.width() / 2
        ink = QRectF(left, rect.center().y() - glyphs.height() / 2, glyphs.width(), glyphs.height())
        scene = axis.mapRectToScene(ink)
        on_canvas = canvas.mapFromScene(scene).boundingRect()
        if not canvas.viewport().rect().contains(on_canvas):
            cut.append(f"{text} (outside its pane: {on_canvas.getRect()} in {canvas.viewport().rect().getRect()})")
            continue
        if steps_port is not None and not scroll_shown:
            left = canvas.viewport().mapTo(steps_port, on_canvas.topLeft()).x()  # sideways only: the
            if left < 0 or left + on_canvas.width() > steps_port.width():  # list scrolls up and down
                cut.append(f"{text} (outside the Steps view, no scroll bar)")
    return cut


class _Shots:
    def __init__(self, app, size: str, lang: str, out: Path) -> None:
        self.app, self.size, self.lang, self.out = app, size, lang, out
        self.started = time.monotonic()
        self.ok = True
        self.stages = [self.maximize, self.what_if, self.what_if_weights, self.what_if_closed, self.by_hand,
                       self.by_hand_closed, self.open_eight, self.present,
                       *[lambda s=s: self.slide(s) for s in SLIDES], self.finish]

    def window(self):
        from app.main_window import MainWindow

        return next((w for w in self.app.topLevelWidgets() if isinstance(w, MainWindow)), None)

    def poll(self) -> None:
        from PySide6.QtCore import QTimer

        w = self.window()
        if w is not None and w.last_trace is not None and w.recompute.is_idle():
            QTimer.singleShot(1500, self.next)
        elif time.monotonic() - self.started > WAIT_S:
            print(f"{self.size} {self.lang}: no trace after {WAIT_S} s")
            self.ok = False
            self.app.quit()
        else:
            QTimer.singleShot(250, self.poll)

    def next(self) -> None:
        from PySide6.QtCore import QTimer

        stage = self.stages.pop(0)
        try:
            wait = stage()
        except Exception as e:  # noqa: BLE001 - one line, then carry on with the next stage
            print(json.dumps({"size": self.size, "lang": self.lang, "stage": getattr(stage, "__name__", "?"),
                              "error": f"{type(e).__name__}: {e}"}), flush=True)
            self.ok = False
            wait = 500
        if self.stages:
            QTimer.singleShot(wait or 1500, self.next)

    def grab(self, name: str) -> str:
        self.app.processEvents()
        target = self.out / f"{name}.{self.size}.{self.lang}.png"
        self.window().screen().grabWindow(0).save(str(target))
        return target.name

    def report(self, record: dict, bad: bool) -> None:
        record = {"size": self.size, "lang": self.lang, **record, "ok": not bad}
        print(json.dumps(record, ensure_ascii=False), flush=True)
        if bad:
            self.ok = False

    def geometry(self) -> dict:
        w = self.window()
        avail, frame = w.screen().availableGeometry(), w.frameGeometry()
        return {"frame": frame.getRect(), "client": w.geometry().getRect(), "available": avail.getRect(),
                "on_screen": avail.contains(w.geometry()) and frame.right() <= avail.right() + 2}

    # ---- stages -------------------------------------------------------------------------------
    def maximize(self) -> int:
        self.window().showMaximized()
        return 2000

    def what_if(self) -> int:
        self.window().what_if.action.trigger()
        return 2500

    def what_if_weights(self) -> int:
        w = self.window()
        pane = w.view.pane("attention_weights")
        w.view.scroll.ensureWidgetVisible(pane, 0, 0)
        return 2000

    def what_if_closed(self) -> int:
        from app.panes.step_pane import StepPane

        w = self.window()
        port = w.view.scroll.viewport()
        cut, panes, wide = {}, 0, []
        for sid in w.view.pane_ids():  # each pane brought into sight (they draw when seen)
            pane = w.view.pane(sid)
            if pane.isHidden():
                continue
            w.view.scroll.ensureWidgetVisible(pane, 0, 0)
            deadline = time.monotonic() + 0.5
            while time.monotonic() < deadline:
                self.app.processEvents()
            panes += 1
            numbers = _bar_numbers_cut(pane, port)
            if numbers:
                cut[sid] = numbers[:4]
            drawn = pane.canvas.scene().itemsBoundingRect()  # what the pane draws, against its canvas
            shown = pane.canvas.mapToScene(pane.canvas.viewport().rect()).boundingRect()
            if drawn.right() > shown.right() + 1 and not pane.canvas.horizontalScrollBar().isVisible():
                wide.append(f"{pane.step_id} (canvas {round(drawn.right())} > {round(shown.right())})")
            right = pane.mapTo(port, pane.rect().topRight()).x()
            if right > port.width() and not w.view.scroll.horizontalScrollBar().isVisible():
                wide.append(pane.step_id)
        dock = w.what_if.panel
        widths = sorted(((p.minimumSizeHint().width(), p.step_id) for p in w.view.findChildren(StepPane)
                         if not p.isHidden()), reverse=True)[:3]
        weights = w.view.pane("attention_weights")
        geo = self.geometry()
        w.view.scroll.ensureWidgetVisible(weights, 0, 0)
        self.app.processEvents()
        self.report({"shot": self.grab("whatif"), **geo, "dock": dock.geometry().getRect(),
                     "steps_view": port.width(), "sideways_bar": w.view.scroll.horizontalScrollBar().isVisible(),
                     "panes_seen": panes, "bar_numbers_cut": cut, "panes_cut_without_bar": wide,
                     "widest_panes_min_w": widths, "weights_pane_min_w": weights.minimumSizeHint().width(),
                     "steps_list_w": [w.view.container.minimumSizeHint().width(), w.view.container.width()],
                     "scale_text": dock.scale_value.text()}, bool(cut or wide) or not geo["on_screen"])
        w.what_if.action.trigger()
        return 1500

    def by_hand(self) -> int:
        self.window().by_hand.set_shown(True)
        return 2500

    def by_hand_closed(self) -> int:
        w = self.window()
        sheet = w.by_hand.view
        bar = sheet.canvas.horizontalScrollBar()
        scene_w = sheet.scene.itemsBoundingRect().right()
        port_w = sheet.canvas.viewport().width()
        geo = self.geometry()
        self.report({"shot": self.grab("byhand"), **geo, "digits": sheet.digits, "number_px": sheet.font_px,
                     "arrangement": sheet.plan.arrangement if sheet.plan else None,
                     "scene_right": round(scene_w), "viewport_w": port_w, "sideways_bar": bar.isVisible()},
                    (scene_w > port_w + 1 and not bar.isVisible()) or sheet.font_px < MIN_SLIDE_PX
                    or not geo["on_screen"])
        w.by_hand.set_shown(False)
        return 1500

    def open_eight(self) -> int:
        import resources
        from attention.files import scenario_io

        w = self.window()
        w.document.load(scenario_io.load(resources.scenarios_dir() / f"{EIGHT}.json"), None)
        w.recompute.recompute_now()
        w.recompute.wait_idle()
        return 2500

    def present(self) -> int:
        self.window().presentation.enter()
        return 2500

    def slide(self, sid: str) -> int:
        from slide_texts import slide_text_sizes

        view = self.window().presentation.view
        view.go_to(view.lesson_ids().index(sid))
        for _ in range(10):
            self.app.processEvents()
        sizes = slide_text_sizes(view)
        small = [(what, px) for what, px in sizes if px < MIN_SLIDE_PX]
        screen = view.screen().geometry()
        smallest = min((px for _, px in sizes), default=0)
        out = view.output_pane()
        heads = len(out.visible_heads()) if out is not None else 0
        self.report({"shot": self.grab(f"slide.{sid}"), "slide": view.geometry().getRect(),
                     "screen": screen.getRect(), "slide_on_screen": screen.contains(view.geometry()),
                     "smallest_text_px": round(smallest, 1), "texts": len(sizes), "under_14": small[:5],
                     "heads": heads, "heads_per_row": out.heads_per_row() if out is not None else 0,
                     **_output_fit(view)},
                    bool(small) or not screen.contains(view.geometry()))
        return 2000

    def finish(self) -> int:
        from PySide6.QtWidgets import QMessageBox

        self.window().presentation.leave()
        w = self.window()
        w.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
        w.close()
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
