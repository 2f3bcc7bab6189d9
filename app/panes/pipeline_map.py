"""The map of steps, "you are here": one chip per step in pipeline order, the current one filled.

`PipelineMap` is the strip of chips (it wraps onto a second row rather than cut a chip off; a
chip's tooltip gives the step's full title and formula); what the chips are and which is
current come from app.viewmodel.pipeline_map.  Clicking a chip emits `stepChosen`.

`WindowMap` puts one above the window's panels (a top dock without a title bar: it spans the
whole width, above the Explain panel too): the current chip follows the pane being read in the
Steps region as it scrolls, and a click scrolls that pane to the top of the region and outlines
it.  Slides have their own (app/teaching/presentation/slide_map.py).
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QDockWidget, QLayout, QPushButton, QSizePolicy, QWidget, QWidgetItem

from app.services import i18n
from app.viewmodel import pipeline_map
from attention import words

CHIP_CSS = ("QPushButton {{ font-size: {px}px; color: #1f2d3d; background: #eef2f7; border: 1px solid #c3ccd8;"
            " border-radius: {r}px; padding: 1px {pad}px; }}"
            " QPushButton:hover {{ background: #dde6f2; }}"
            " QPushButton:checked {{ color: white; background: #1565c0; border: 1px solid #0d47a1; }}")
#: the outline of the pane a chip was clicked for (the Steps region)
PANE_HIGHLIGHT_CSS = "#StepPane { background: white; border: 3px solid #1565c0; border-radius: 4px; }"
#: a chip's label longer than this is elided (the tooltip has the whole title)
MAX_LABEL_CHARS = 22


#: the most rows of chips the map takes (1280 px holds every pipeline in two)
MAX_ROWS = 3


class ChipFlow(QLayout):
    """Chips left to right at their natural width, wrapping to a new row when one does not fit
    (never narrower: a chip's words stay whole); height-for-width, so the strip grows a row."""

    def __init__(self, parent: Optional[QWidget] = None, spacing: int = 4) -> None:
        super().__init__(parent)
        self._items: list = []
        self._gap = spacing

    def addItem(self, item) -> None:  # noqa: N802 (Qt override)
        self._items.append(item)

    def addWidget(self, widget: QWidget) -> None:  # noqa: N802 (Qt override)
        self.addChildWidget(widget)
        self.addItem(QWidgetItem(widget))
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int):  # noqa: N802 (Qt override)
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int):  # noqa: N802 (Qt override)
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 (Qt override)
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt override)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt override)
        return self._place(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 (Qt override)
        super().setGeometry(rect)
        self._place(rect, apply=True)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802 (Qt override)
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.widget().sizeHint() if item.widget() is not None else item.sizeHint())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _place(self, rect: QRect, apply: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, row_h = area.x(), area.y(), 0
        for item in self._items:
            w = item.widget()
            if w is not None and w.isHidden() and w.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide):
                continue  # left out on purpose (a paged strip); a chip not yet shown is not hidden
            # the widget's own hint: a chip just added is hidden until the event loop shows it,
            # and a hidden item's hint is empty (the strip would be measured as one without chips)
            hint = item.widget().sizeHint() if item.widget() is not None else item.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:  # wrap
                x, y, row_h = area.x(), y + row_h + self._gap, 0
            if apply:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._gap
            row_h = max(row_h, hint.height())
        return y + row_h - rect.y() + m.bottom()


class PipelineMap(QWidget):
    """A strip of chips, one per step; `set_steps` fills it, `set_current` fills one chip."""

    stepChosen = Signal(str)

    def __init__(self, parent: Optional[QWidget] = None, font_px: int = 13, paged_after: Optional[int] = None) -> None:
        """`paged_after`: a strip that would need more rows than this shows one row of whole
        chips instead, around the current one, with a button at each end for the chips left out
        (a slide: Crossformer's 26 steps); its labels are never shortened.  None: rows, up to
        MAX_ROWS, labels over MAX_LABEL_CHARS shortened (the window's map)."""
        super().__init__(parent)
        self.setObjectName("PipelineMap")
        self._layout = ChipFlow(self, spacing=4)
        self._layout.setContentsMargins(2, 2, 2, 2)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self._chips: dict[str, QPushButton] = {}
        self._key: Optional[tuple] = None  # (ids, lang, scoring) the chips were made for
        self._current: Optional[str] = None
        self._font_px = font_px
        self._paged_after = paged_after
        self._window: Optional[tuple[int, int]] = None  # the chips shown (first, last) while paged
        self._turned = False  # a page button showed other chips than the current one's: they stay
        self._lang = i18n.current_language()
        self.before = self._page_button(-1)
        self.after = self._page_button(+1)

    # ---- public ------------------------------------------------------------------------------
    def set_steps(self, ids: list[str], lang: str, scoring: Optional[str] = None) -> None:
        """One chip per id, in the order given (rebuilt only when the ids or words change)."""
        key = (tuple(ids), lang, scoring)
        if key == self._key:
            return
        self._key, self._lang, self._window = key, lang, None
        for chip in self._chips.values():
            self._layout.removeWidget(chip)
            chip.hide()
            chip.deleteLater()
        self._chips = {}
        self._layout.removeWidget(self.after)
        for c in pipeline_map.chips(ids, lang, scoring):
            label = c.label
            if self._paged_after is None and len(label) > MAX_LABEL_CHARS:
                label = label[: MAX_LABEL_CHARS - 1] + "…"
            chip = QPushButton(label, self)
            chip.setCheckable(True)
            chip.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # arrow keys stay with the slide / the panes
            chip.setCursor(Qt.CursorShape.PointingHandCursor)
            chip.setProperty("tips", (c.tooltip, c.tooltip_here))
            chip.clicked.connect(lambda _=False, s=c.step_id: self._on_click(s))
            self._layout.addWidget(chip)
            self._chips[c.step_id] = chip
        self._layout.addWidget(self.after)
        self._style()
        current, self._current = self._current, None
        self.set_current(current)
        self._fit_height()

    def set_current(self, step_id: Optional[str]) -> None:
        """Fill the chip of `step_id` (None or an unknown id: no chip is filled)."""
        if step_id != self._current:
            self._turned = False  # another slide: its chip in sight again
        self._current = step_id if step_id in self._chips else None
        for sid, chip in self._chips.items():
            here = sid == self._current
            chip.setChecked(here)
            chip.setToolTip(chip.property("tips")[1 if here else 0])
        if self._paged_after is not None:
            self._page()

    def set_font_px(self, px: int) -> None:
        if px != self._font_px:
            self._font_px = px
            self._style()
            self._fit_height()

    def current(self) -> Optional[str]:
        return self._current

    def step_ids(self) -> list[str]:
        return list(self._chips)

    def chip(self, step_id: str) -> QPushButton:
        return self._chips[step_id]

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._fit_height()

    # ---- internals ---------------------------------------------------------------------------
    def shown_chips(self) -> list[str]:
        """The steps whose chips are on screen (all of them unless the strip is paged)."""
        return [sid for sid, chip in self._chips.items() if not chip.isHidden()]

    # ---- a paged strip ---------------------------------------------------------------------------
    def _page_button(self, side: int) -> QPushButton:
        b = QPushButton(self)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        b.setCursor(Qt.CursorShape.PointingHandCursor)
        b.clicked.connect(lambda _=False: self._turn(side))
        b.hide()
        if side < 0:
            self._layout.addWidget(b)
        return b

    def _rows_needed(self, width: int) -> int:
        """Rows the chips would take, all of them shown, at `width` px."""
        m = self._layout.contentsMargins()
        room, x, rows = width - m.left() - m.right(), 0, 1
        for chip in self._chips.values():
            w = chip.sizeHint().width()
            if x and x + w > room:
                rows, x = rows + 1, 0
            x += w + self._layout._gap
        return rows

    def _page(self, anchor: Optional[int] = None, right: bool = False) -> None:
        """Show every chip when they fit in `paged_after` rows, else one row of whole chips: the
        window that keeps the current chip (or `anchor`, as the window's last chip when `right`),
        and a button at each end saying how many chips are left out there."""
        chips = list(self._chips.values())
        width = self.width()
        if not chips or width < 50 or self._rows_needed(width) <= self._paged_after:
            self._window = None
            for chip in chips:
                chip.setVisible(True)
            self.before.hide()
            self.after.hide()
            return
        ids = list(self._chips)
        here = ids.index(self._current) if self._current in self._chips else 0
        if anchor is None and self._window is not None and (self._window[0] <= here <= self._window[1] or self._turned):
            first, last = self._window
        else:
            first, last = self._fit_window(chips, here if anchor is None else anchor, right, width)
        self._window = (first, last)
        for i, chip in enumerate(chips):
            chip.setVisible(first <= i <= last)
        self._label_buttons(first, len(chips) - 1 - last)

    def _fit_window(self, chips: list, anchor: int, right: bool, width: int) -> tuple[int, int]:
        """The widest run of whole chips around `anchor` that fits one row beside the two buttons."""
        gap = self._layout._gap
        m = self._layout.contentsMargins()
        self._label_buttons(len(chips), len(chips))  # the widest the buttons can say
        room = width - m.left() - m.right() - self.before.sizeHint().width() - self.after.sizeHint().width() - 2 * gap
        widths = [c.sizeHint().width() + gap for c in chips]
        first = last = anchor
        used = widths[anchor]
        grow = [(-1 if right else 1), (1 if right else -1)]
        for step in grow:
            i = (first if step < 0 else last) + step
            while 0 <= i < len(chips) and used + widths[i] <= room:
                used += widths[i]
                first, last = min(first, i), max(last, i)
                i += step
        return first, last

    def _label_buttons(self, left_out_before: int, left_out_after: int) -> None:
        for b, n, key in ((self.before, left_out_before, "slide.chips_before"), (self.after, left_out_after,
                                                                                 "slide.chips_after")):
            b.setText(words.text(key, self._lang, n=n))
            b.setToolTip(words.text("slide.chips_tip", self._lang, n=n))
            b.setVisible(n > 0)

    def _turn(self, side: int) -> None:
        """A page button: the chips left out on that side, as many as fit."""
        if self._window is None:
            return
        first, last = self._window
        if side < 0 and first > 0:
            self._page(first - 1, right=True)
        elif side > 0 and last < len(self._chips) - 1:
            self._page(last + 1)
        self._turned = True
        self._fit_height()

    def _fit_height(self) -> None:
        """As tall as its rows of chips at its width (whatever holds it: a dock, a slide), but
        never more than MAX_ROWS rows: while a window is still being built its docks are a few
        pixels wide, and a map one chip per row tall made the window taller than the screen."""
        if self._paged_after is not None:
            self._page()
        if not self._chips:
            height = 0
        else:
            one_row = self._layout.heightForWidth(1 << 20)
            height = min(self._layout.heightForWidth(max(self.width(), 1)), MAX_ROWS * one_row)
        if height != self.maximumHeight() or height != self.minimumHeight():
            self.setFixedHeight(height)

    def _on_click(self, step_id: str) -> None:
        self.set_current(self._current)  # a click toggles the chip: the map decides what is filled
        self.stepChosen.emit(step_id)

    def _style(self) -> None:
        px = self._font_px
        self.setStyleSheet(CHIP_CSS.format(px=px, r=max(px // 2 + 3, 6), pad=max(px // 2, 5)))


class WindowMap(QObject):
    """The map above the window's panels, following and steering the Steps region (`view`)."""

    def __init__(self, view, parent: Optional[QObject] = None) -> None:
        super().__init__(parent)
        self.view = view
        self.map = PipelineMap()
        self.map.stepChosen.connect(self.go_to)
        self.chosen: Optional[str] = None  # the step last clicked on the map
        self._outlined: Optional[tuple] = None  # (pane, its style sheet before the outline)
        self._later = QTimer(self)  # once the list has laid out the panes (after a new trace)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self.update_current)
        view.traceShown.connect(self.refresh)
        view.scroll.verticalScrollBar().valueChanged.connect(self.update_current)
        view.scroll.viewport().installEventFilter(self)

    def refresh(self) -> None:
        """The chips of the trace on screen, in the current language."""
        trace = self.view.current_trace()
        ids = pipeline_map.map_order(self.view.pane_ids()) if trace is not None else []
        scoring = trace.options.get("scoring") if trace is not None else None
        self.map.set_steps(ids, i18n.current_language(), scoring)
        self.update_current()
        self._later.start()

    def go_to(self, step_id: str) -> None:
        """Scroll the Steps region so that pane `step_id` is at its top, and outline it."""
        if step_id not in self.view.pane_ids():
            return
        pane = self.view.pane(step_id)
        self.chosen = step_id
        bar = self.view.scroll.verticalScrollBar()
        bar.setValue(max(pane.geometry().top() - 6, 0))
        self._outline(pane)
        self.update_current()
        self.view.select_step(step_id)

    def update_current(self, *_args) -> None:
        view = self.view
        top = view.scroll.verticalScrollBar().value()
        bottom = top + view.scroll.viewport().height()
        boxes = []
        for sid in view.pane_ids():
            g = view.pane(sid, current=False).geometry()
            boxes.append((sid, g.top(), g.bottom()))
        current = pipeline_map.current_in_sight(boxes, top, bottom, self.chosen)
        if current != self.chosen:
            self.chosen = None
            self._outline(None)
        self.map.set_current(current)

    def outlined(self) -> Optional[str]:
        """The step whose pane is outlined (the one last chosen on the map, while in sight)."""
        return self._outlined[0].step_id if self._outlined is not None else None

    def _outline(self, pane) -> None:
        if self._outlined is not None:
            old, css = self._outlined
            if old is pane:
                return
            old.setStyleSheet(css)
            self._outlined = None
        if pane is not None:
            self._outlined = (pane, pane.styleSheet())
            pane.setStyleSheet(PANE_HIGHLIGHT_CSS)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Resize:
            self._later.start()
        return False


def install(host) -> WindowMap:
    """Put the map of steps above the window's panels (app.features: a dock of the top area)."""
    wmap = WindowMap(host.view, host.window)
    dock = QDockWidget(host.window)
    dock.setObjectName("PipelineMapDock")
    dock.setTitleBarWidget(QWidget(dock))  # no title, no close button: always there
    dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
    dock.setWidget(wmap.map)
    host.add_dock(dock, Qt.DockWidgetArea.TopDockWidgetArea)
    wmap.dock = dock
    host.on_language_change(wmap.refresh)
    return wmap
