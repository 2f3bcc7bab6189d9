"""Where the window opens: the remembered place when it still fits a screen, else fitted to one.

A window opened at a fixed 1600x950 put its title-bar buttons and status bar off-screen on a
1280x720 projector and a 1366x768 laptop.  The rules, kept here as plain rectangle arithmetic
so that tests can ask them about any screen:

- first launch: the preferred size, centred on the screen, when it fits with room for the
  window manager's frame; else as big as the screen's available area allows, and maximized;
- a remembered geometry is used only when the window lies wholly inside the available area of
  some screen now attached (a monitor unplugged, a lower resolution: fitted anew);
- a dialog opens at its preferred size where the screen has room, else at the screen's size (`fit_dialog`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from PySide6.QtCore import QMargins, QRect, QSize
from PySide6.QtWidgets import QWidget

PREFERRED = QSize(1600, 950)
#: the title bar and borders a window manager adds, before the real ones are known (not shown yet)
FRAME_ALLOWANCE = QMargins(4, 32, 4, 4)


@dataclass(frozen=True)
class Placement:
    rect: QRect  # the window's client area (QWidget.setGeometry)
    maximized: bool  # the preferred size did not fit: open maximized


def first_placement(available: QRect, preferred: QSize = PREFERRED,
                    frame: QMargins = FRAME_ALLOWANCE) -> Placement:
    """The preferred size centred in `available` when it fits with its frame, else the whole
    area less the frame, maximized."""
    room = available.marginsRemoved(frame)
    fits = preferred.width() <= room.width() and preferred.height() <= room.height()
    size = preferred if fits else preferred.boundedTo(room.size())
    rect = QRect(0, 0, size.width(), size.height())
    rect.moveCenter(room.center())
    return Placement(rect, not fits)


def fits_a_screen(rect: QRect, screens: list[QRect]) -> bool:
    """Whether the client area `rect` lies wholly inside one screen's available area."""
    return rect.isValid() and any(area.contains(rect) for area in screens)


def dialog_size(available: QRect, preferred: QSize, least: Optional[QSize] = None,
                frame: QMargins = FRAME_ALLOWANCE) -> QSize:
    """A dialog's size: `preferred`, or less where the screen's available area (less the frame) is smaller, and
    never below `least` (its layout's minimum) where that still fits."""
    room = available.marginsRemoved(frame).size()
    size = preferred.boundedTo(room)
    return size if least is None else size.expandedTo(least.boundedTo(room))


def fit_dialog(dialog: QWidget, preferred: QSize) -> None:
    """Resize `dialog` to `preferred` bounded by the screen its parent is on: the FlashAttention tiles dialog
    opened 1100 x 760 on a 720-px projector, its explanation box below the screen's edge (issue 30).  Qt then
    centres it over its parent, inside that screen."""
    parent = dialog.parentWidget()
    screen = (parent.window() if parent is not None else dialog).screen()
    dialog.resize(dialog_size(screen.availableGeometry(), preferred, dialog.minimumSizeHint()))
