"""The steps list's flow layout: rows of panes at their natural width, wrapping when full, and
a row that misses one more pane by a little made that little narrower instead."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QWidget

from app.panes.flow_layout import MAX_SHRINK, FlowLayout

pytestmark = pytest.mark.gui
GAP = 8


class Box(QWidget):
    def __init__(self, w: int, h: int) -> None:
        super().__init__()
        self._hint = QSize(w, h)

    def sizeHint(self) -> QSize:  # noqa: N802
        return self._hint


def laid_out(qtbot, widths: list[int], room: int) -> list[QRect]:
    host = QWidget()
    qtbot.addWidget(host)
    lay = FlowLayout(host, spacing=GAP)
    lay.setContentsMargins(0, 0, 0, 0)
    boxes = [Box(w, 100) for w in widths]
    for i, b in enumerate(boxes):
        lay.insertWidget(i, b)
    lay.setGeometry(QRect(0, 0, room, 1000))
    return [b.geometry() for b in boxes]


def test_items_that_fit_keep_their_natural_width_side_by_side(qtbot):
    g = laid_out(qtbot, [300, 300], room=700)
    assert [r.width() for r in g] == [300, 300]
    assert g[0].y() == g[1].y() and g[1].x() == 300 + GAP


def test_a_row_missing_one_more_item_by_a_little_is_made_narrower(qtbot):
    room = 690  # 2 x 350 + 8 = 708: 2.5 % too wide
    g = laid_out(qtbot, [350, 350], room=room)
    assert g[0].y() == g[1].y()  # one row
    assert g[1].x() + g[1].width() <= room
    assert all(300 <= r.width() < 350 for r in g)


def test_an_item_far_too_wide_for_the_row_wraps_at_its_natural_width(qtbot):
    room = 600
    assert (350 + 350 + GAP) * (1 - MAX_SHRINK) > room
    g = laid_out(qtbot, [350, 350], room=room)
    assert g[1].y() > g[0].y() and g[1].x() == 0
    assert [r.width() for r in g] == [350, 350]


class Shrinkable(Box):
    """A pane that can wrap its heads: natural width w, yet it still shows everything at `least`."""

    def __init__(self, w: int, h: int, least: int) -> None:
        super().__init__(w, h)
        self._least = QSize(least, h)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return self._least


def test_the_list_is_as_narrow_as_its_widest_items_minimum(qtbot):
    """The scroll area scrolls sideways only below what a pane can shrink to: a 520-px pane that
    still shows everything at 379 px asks for 379 (it asked for 480, and a 399-px Steps region
    beside the What-if dock scrolled sideways)."""
    host = QWidget()
    qtbot.addWidget(host)
    lay = FlowLayout(host, spacing=GAP)
    lay.setContentsMargins(6, 6, 6, 6)
    lay.insertWidget(0, Shrinkable(520, 100, 379))
    lay.insertWidget(1, Shrinkable(300, 80, 250))
    assert lay.minimumSize().width() == 379 + 12
    lay.setGeometry(QRect(0, 0, 399, 1000))
    assert host.findChildren(Shrinkable)[0].geometry().width() == 399 - 12
