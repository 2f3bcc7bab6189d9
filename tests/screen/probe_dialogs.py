"""Probe: every dialog of the window, opened from its menu entry on a real screen, and where it lies.

    python tests/screen/probe_dialogs.py --lang zh [--shots DIR]

Run under tests/screen/real_screen.RealScreen (Xvfb + openbox).  For each menu entry that opens a dialog (the
app's own: FlashAttention tiles, worksheet, layer import, mask editor; Qt's own: the file and folder dialogs,
the item chooser, the unsaved-changes question) it triggers the entry, waits for the new window, measures its
frame against the screen's available area, reads its words (the English ones in a Chinese window: Qt's own
"Look in:", "Files of type:" included), closes it as a person would (Cancel, or the first choice where the next
dialog comes after it) and goes on.  Prints one JSON object on its last line:

    {"screen": [w, h], "available": [x, y, w, h], "dialogs": [{"entry": ..., "class": ..., "title": ...,
     "frame": [x, y, w, h], "inside": bool, "english": [...]}, ...], "missing": [entries that opened nothing]}
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "gui"))
WAIT_S = 30
#: a window manager's frame may stick out a pixel past the area (openbox's border of a dialog at the edge)
SLACK = 2


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--lang", default="en")
    p.add_argument("--shots", type=Path)
    args = p.parse_args(argv)
    import PySide6.QtWidgets  # noqa: F401  (before torch)
    import screen_probes as sp

    from app.startup.application import get_app

    app = get_app([])
    window = sp.open_window(args.lang)
    report = {"screen": sp.screen_size(window), **look_at_dialogs(app, window, args.lang, args.shots)}
    window.recompute.shutdown()
    print(json.dumps(report, ensure_ascii=False), flush=True)
    return 0


def look_at_dialogs(app, window, lang: str, shots=None) -> dict:
    """Every dialog's entry, opened and answered in turn: {"available", "dialogs", "missing"}."""
    from PySide6.QtWidgets import QMessageBox

    seen = Dialogs(app, window, shots, lang)
    for trigger, dialogs in entries(window):
        seen.open(trigger, dialogs)
    window.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
    window.document.load(window.document.scenario, None)  # the edit made for File ▸ New is let go
    avail = window.screen().availableGeometry()
    return {"available": list(avail.getRect()), "dialogs": seen.found, "missing": seen.missing}


def _weights_file() -> str:
    """A small weights file for File ▸ Import layer…: one nn.MultiheadAttention, as torch.save writes it."""
    import torch
    from torch import nn

    path = Path(tempfile.mkdtemp(prefix="ae-dialogs-")) / "mha.pt"
    torch.save(nn.MultiheadAttention(8, 2).state_dict(), path)
    return str(path)


def _edit(window) -> None:
    """One cell edit, so that File ▸ New asks about unsaved changes."""
    model = window.inputs.editors["queries"].model
    model.setData(model.index(0, 1), "3.5")
    window.recompute.wait_idle()


def entries(window) -> list[tuple[object, list[tuple[str, str]]]]:
    """(what triggers a menu entry, [(name, answer) of each dialog it opens in turn]); an answer is "cancel" (Cancel,
    Escape, the close button) or "first" (the chooser's first item: the next dialog comes after it)."""
    w = window
    importer = w.import_layer
    weights = _weights_file()
    importer.ask_path = lambda: weights  # the file dialog itself is opened on its own entry below
    cancel = lambda name: [(name, "cancel")]  # noqa: E731
    return [
        (w.open_action.trigger, cancel("File ▸ Open…")),
        (w.save_as_action.trigger, cancel("File ▸ Save As…")),
        (lambda: importer.file_dialog().exec(), cancel("File ▸ Import layer… (its file dialog)")),
        (importer.action.trigger, cancel("File ▸ Import layer… (the layers of a file)")),
        (w.models.open_file_action.trigger, cancel("File ▸ Open model…")),
        (w.models.open_action.trigger, cancel("File ▸ Open model folder…")),
        (w.export_pane_action.trigger, [("File ▸ Export pane as PNG or SVG…", "first"),
                                        ("File ▸ Export pane as PNG or SVG… (file)", "cancel")]),
        (w.export_csv_action.trigger, [("File ▸ Export step as CSV…", "first"),
                                       ("File ▸ Export step as CSV… (file)", "cancel")]),
        (w.handout.handout_action.trigger, cancel("File ▸ Export handout…")),
        (w.handout.worksheet_action.trigger, cancel("File ▸ Export worksheet…")),
        (w.handout.script_action.trigger, cancel("File ▸ Export as Python script…")),
        (w.mask_painter.action.trigger, cancel("Edit ▸ Mask editor…")),
        (w.tiles.action.trigger, cancel("View ▸ FlashAttention tiles…")),
        (lambda: w.tiles.open().view.worksheet_button.click(), cancel("View ▸ FlashAttention tiles… ▸ Worksheet…")),
        (lambda: w.tiles.open().view.slides_button.click(), cancel("View ▸ FlashAttention tiles… ▸ Slides (F5)")),
        (lambda: (_edit(w), w.new_action.trigger()), cancel("File ▸ New (with unsaved changes)")),
    ]


class Dialogs:
    """Opens each entry's dialog(s), measures and closes them; `found` and `missing` are the report."""

    def __init__(self, app, window, shots, lang: str) -> None:
        self.app, self.window, self.shots, self.lang = app, window, shots, lang
        self.found: list[dict] = []
        self.missing: list[str] = []
        self._pending: list[tuple[str, str]] = []  # (entry, answer) of the dialogs still to come

    def open(self, trigger, dialogs: list[tuple[str, str]]) -> None:
        """Trigger a menu entry and answer the dialogs it opens, in turn."""
        from PySide6.QtCore import QTimer

        self._pending = list(dialogs)
        start = len(self.found)
        QTimer.singleShot(200, self._poll)
        trigger()  # a modal dialog runs its own loop here; _poll answers it
        self._drain()
        opened = {d["entry"] for d in self.found[start:]}
        self.missing += [e for e, _ in dialogs if e not in opened]
        self._pending.clear()

    def _others(self) -> list:
        from PySide6.QtWidgets import QApplication

        return [t for t in QApplication.topLevelWidgets() if t.isVisible() and t is not self.window
                and t.isWindow() and not t.inherits("QMenu") and t.windowType() != 0x0000000d]  # no tooltips

    def _poll(self) -> None:
        """Answer the newest dialog, then keep polling while dialogs are expected."""
        from PySide6.QtCore import QTimer

        shown = [t for t in self._others() if not getattr(t, "_probed", False)]
        if shown and self._pending:
            self.look(shown[-1])
        if self._pending:
            QTimer.singleShot(250, self._poll)

    def _drain(self) -> None:
        """Non-modal dialogs (tiles, mask editor) come back here at once: wait for them too."""
        import screen_probes as sp

        try:
            sp.wait(self.app, lambda: not self._pending or not self._others(), WAIT_S)
        except AssertionError:
            pass
        for t in self._others():  # anything left open by a failed answer
            t.close()

    def look(self, dialog) -> None:
        import screen_probes as sp
        import window_words as ww
        from PySide6.QtWidgets import QDialog, QInputDialog, QWidget

        dialog._probed = True
        entry, answer = self._pending.pop(0)
        handle = dialog.windowHandle
        try:  # mapped and placed by openbox (a dialog measured before that reads 1 x 1)
            sp.wait(self.app, lambda: handle() is not None and handle().isExposed() and dialog.width() > 20
                    and (dialog.isFullScreen() or dialog.frameGeometry().height() > dialog.height()), WAIT_S)
        except AssertionError:
            pass  # measured as it is: reported outside the screen if it never showed
        sp.settle(self.app, 0.4)
        avail, frame = dialog.screen().availableGeometry(), dialog.frameGeometry()
        framed = frame.width() > 20 and frame.height() > 20
        if not framed:  # openbox has not framed it yet (a starved machine): where Qt put it, with a frame's room
            from app.services.window_fit import FRAME_ALLOWANCE

            frame = dialog.geometry().marginsAdded(FRAME_ALLOWANCE)
        inside = frame.adjusted(SLACK, SLACK, -SLACK, -SLACK).intersected(avail) == frame.adjusted(
            SLACK, SLACK, -SLACK, -SLACK)
        texts = [("title", dialog.windowTitle())] + [
            (where, t) for w in [dialog, *dialog.findChildren(QWidget)] for where, t in ww.widget_texts(w)]
        english = sorted({f"{word} ({ww.plain(t)[:60]})" for _, t in texts for word in ww.english(t)}) \
            if self.lang == "zh" else []
        labels = [w.text() for w in dialog.findChildren(QWidget) if w.inherits("QLabel") and w.isVisible()]
        self.found.append({"entry": entry, "class": type(dialog).__name__, "title": dialog.windowTitle(),
                           "frame": list(frame.getRect()), "framed": framed, "inside": bool(inside),
                           "english": english,
                           "labels": labels[:12]})
        if self.shots is not None:
            self.shots.mkdir(parents=True, exist_ok=True)
            name = "".join(c if c.isalnum() else "_" for c in entry.split("▸")[-1]).strip("_").lower()
            sp.grab(self.app, self.shots / f"dialog.{name}.{self.lang}.png")
        if answer == "first" and isinstance(dialog, QInputDialog):
            dialog.accept()
        elif isinstance(dialog, QDialog):
            dialog.reject()
        else:
            dialog.close()
        self.app.processEvents()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
