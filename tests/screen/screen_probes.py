"""What the probes under tests/screen share: the window opened as a person opens it, waiting, clicking, and the
measures of what a person sees (a widget cut, a scroll bar off its dock, a dialog off the screen).

Runs inside a probe process on a real X screen (RealScreen); nothing here starts a server.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QComboBox,
    QLabel,
    QScrollBar,
    QWidget,
)


def open_window(lang: str, explain: bool = False):
    """The MainWindow with fresh settings naming `lang`, maximized (openbox), its first trace on screen."""
    from app.main_window import MainWindow
    from app.services.settings import Settings

    settings = Settings.at(Path(tempfile.mkdtemp(prefix="ae-probe-")) / "settings.ini")
    settings.set_language(lang)
    settings.set_explain_visible(explain)
    window = MainWindow(settings)
    window.showMaximized()
    app = QApplication.instance()
    wait(app, lambda: window.last_trace is not None and window.recompute.is_idle(), 120)
    settle(app, 1.0)  # openbox maximizes, the panes lay out
    return window


def screen_size(widget: QWidget) -> list[int]:
    g = widget.screen().geometry()
    return [g.width(), g.height()]


def wait(app, ready: Callable[[], bool], seconds: float) -> None:
    """Process events until `ready()` (an AssertionError naming the wait after `seconds`)."""
    end = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > end:
            raise AssertionError(f"waited {seconds} s")
        app.processEvents()
        time.sleep(0.02)


def settle(app, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def press(app, button: QAbstractButton) -> None:
    """A left click in the middle of `button`, as a person clicks it."""
    QTest.mouseClick(button, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, button.rect().center())
    app.processEvents()


def scroll_area_of(widget: QWidget):
    """The nearest QAbstractScrollArea holding `widget` in its viewport, or None."""
    w = widget.parentWidget()
    while w is not None:
        if isinstance(w, QAbstractScrollArea) and w.viewport().isAncestorOf(widget):
            return w
        w = w.parentWidget()
    return None


def xdotool(*args: str) -> None:
    """Real X input (the pointer, a button, the wheel) through the X server, as a person's hand makes it: Qt hands
    an unused wheel turn on to the parents only for such events, never for one a test sends."""
    if shutil.which("xdotool") is None:
        raise RuntimeError("xdotool is not installed: `bash .ci/setup test` installs it (apt-get install xdotool)")
    subprocess.run(["xdotool", *args], check=True, timeout=30)


def _at(widget: QWidget, point: QPoint) -> list[str]:
    g = widget.mapToGlobal(point)
    return ["mousemove", "--sync", str(g.x()), str(g.y())]


def wheel_over(app, widget: QWidget, notches: int = 3) -> dict:
    """From the top of the scroll area around `widget` (if any), turn the wheel `notches` towards the bottom over
    the visible middle of `widget`; how far the area moved.  Scrolls back to the top."""
    area = scroll_area_of(widget)
    bar = area.verticalScrollBar() if area is not None else None
    if bar is not None:
        bar.setValue(bar.minimum())
        settle(app, 0.1)
    before = bar.value() if bar is not None else 0
    visible = widget.visibleRegion().boundingRect()
    xdotool(*_at(widget, visible.center()), "click", "--repeat", str(notches), "--delay", "30", "5")
    settle(app, 0.4)
    after = bar.value() if bar is not None else 0
    out = {"range": bar.maximum() if bar is not None else 0, "moved": after - before}
    if bar is not None:
        bar.setValue(before)
        settle(app, 0.1)
    return out


def click_cell(app, grid, layer: int, head: int) -> None:
    """Bring the cell into view (as a person scrolls to it) and click its middle with the real pointer."""
    area = scroll_area_of(grid)
    rect = grid.cell_rect(layer, head)
    if area is not None:
        centre = grid.mapTo(area.widget(), rect.center())
        area.ensureVisible(centre.x(), centre.y(), rect.width(), rect.height())
        settle(app, 0.2)
    xdotool(*_at(grid, rect.center()), "click", "1")
    settle(app, 0.3)


def _needed_height(w: QWidget) -> int:
    """The height `w` needs to be read whole: a wrapped label's height for its width, else its minimum."""
    if isinstance(w, QLabel):
        if not w.text():
            return 0
        return w.heightForWidth(w.width()) if w.wordWrap() else w.sizeHint().height()
    if isinstance(w, (QAbstractButton, QComboBox)):
        return w.minimumSizeHint().height()
    return w.minimumHeight()


def _name(w: QWidget) -> str:
    text = w.text() if isinstance(w, (QLabel, QAbstractButton)) else ""
    return f"{type(w).__name__}{'#' + w.objectName() if w.objectName() else ''}" + (f" {text[:24]!r}" if text else "")


def _shown(w: QWidget, top: QWidget) -> bool:
    return w.isVisible() and w.width() > 0 and not w.isWindow() and not isinstance(w, QScrollBar) \
        and w.isVisibleTo(top)


def clipped(top: QWidget) -> list[str]:
    """Each widget under `top` a person cannot read whole: squeezed below what it needs, or (partly) outside the
    visible part of `top` (the screen, the dock, a scroll area's viewport without a bar that reaches it)."""
    screen = top.screen().availableGeometry()
    view = QRect(top.mapToGlobal(QPoint(0, 0)), top.size()).intersected(screen)
    found = []
    for w in top.findChildren(QWidget):
        if not _shown(w, top) or isinstance(w, QAbstractScrollArea) or _inside_viewport_only(w):
            continue
        need = _needed_height(w)
        if w.height() + 1 < need:
            found.append(f"{_name(w)}: {w.height()} px high, needs {need}")
            continue
        rect = QRect(w.mapToGlobal(QPoint(0, 0)), w.size())
        area = scroll_area_of(w)
        room = view
        if area is not None:
            port = area.viewport()
            room = QRect(port.mapToGlobal(QPoint(0, 0)), port.size()).intersected(view)
            if _reaches(area, top):
                continue  # a reachable bar brings it into view
        if not room.contains(rect):
            cut = rect.height() - rect.intersected(room).height()
            found.append(f"{_name(w)}: {cut} px of {rect.height()} outside the visible area")
    return found


def _inside_viewport_only(w: QWidget) -> bool:
    """A scroll area's own parts (its viewport, the corner) are not content."""
    parent = w.parentWidget()
    return isinstance(parent, QAbstractScrollArea) and w is parent.viewport()


def _reaches(area: QAbstractScrollArea, top: QWidget) -> bool:
    bars = [b for b in (area.verticalScrollBar(), area.horizontalScrollBar()) if b.maximum() > b.minimum()]
    return bool(bars) and all(b.isVisible() and b.isVisibleTo(top) and _inside(b, top) for b in bars)


def _inside(w: QWidget, top: QWidget) -> bool:
    screen = top.screen().availableGeometry()
    view = QRect(top.mapToGlobal(QPoint(0, 0)), top.size()).intersected(screen)
    return view.contains(QRect(w.mapToGlobal(QPoint(0, 0)), w.size()))


def unreachable_bars(top: QWidget) -> list[str]:
    """Scroll bars under `top` shown with a range (something to scroll) that lie partly outside `top` or the screen,
    or belong to a scroll area whose bar is hidden while its content is larger than it."""
    found = []
    for area in top.findChildren(QAbstractScrollArea):
        if not area.isVisible():
            continue
        for bar in (area.verticalScrollBar(), area.horizontalScrollBar()):
            if bar.maximum() <= bar.minimum():
                continue
            if not bar.isVisible():
                found.append(f"{_name(area)}: content larger than it by {bar.maximum()} px, no bar shown")
            elif not _inside(bar, top):
                found.append(f"{_name(area)}: its bar lies outside the visible area")
    return found


def grab(app, path: Path) -> None:
    """The whole screen (window manager decorations too) as a PNG."""
    settle(app, 0.3)
    QApplication.primaryScreen().grabWindow(0).save(str(path))
