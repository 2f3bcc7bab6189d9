"""Every piece of text on a slide with the pixel size it is drawn at (issue 20, item 1).

Sizes are font pixel sizes read from what each item draws with: a QLabel's or button's font once
its style sheet is applied (and every `font-size` inside a rich-text label), an axis's tick font
and name style, a head title's size, the colour bar's tick font, the cells' number font.  Only what
is shown counts (a hidden colour bar, a head left out, an empty axis name say nothing).
"""
from __future__ import annotations

import re

from PySide6.QtWidgets import QAbstractButton, QLabel, QWidget

_FONT_SIZE = re.compile(r"font-size:\s*(\d+(?:\.\d+)?)px")


def _widget_px(w: QWidget) -> float:
    w.ensurePolished()
    font = w.font()
    return float(font.pixelSize() if font.pixelSize() > 0 else font.pointSizeF() * w.logicalDpiY() / 72.0)


def _label_sizes(name: str, label: QLabel) -> list[tuple[str, float]]:
    out = [(name, _widget_px(label))] if label.text().strip() else []
    out += [(f"{name} (span)", float(px)) for px in _FONT_SIZE.findall(label.text())]
    return out


def _css_px(value) -> float:
    m = re.match(r"\s*(\d+(?:\.\d+)?)", str(value))
    return float(m.group(1)) if m else 0.0


def _axis_sizes(name: str, axis) -> list[tuple[str, float]]:
    if not axis.isVisible():
        return []
    font = axis.style.get("tickFont")
    out = [(f"{name} ticks", float(font.pixelSize()))] if font is not None else []
    if axis.label.isVisible() and axis.labelText:
        out.append((f"{name} name", _css_px(axis.labelStyle.get("font-size", "0"))))
    return out


def pane_text_sizes(pane) -> list[tuple[str, float]]:
    """(what, font px) of every text of one pane that is on screen."""
    sid = pane.step_id
    out: list[tuple[str, float]] = []
    if pane.title.isVisibleTo(pane):
        out += _label_sizes(f"{sid} title", pane.title)
    if pane.hover.isVisibleTo(pane) and pane.hover.text().strip():
        out += _label_sizes(f"{sid} hint", pane.hover)
    if pane.scale_lock.button.isVisibleTo(pane):
        out.append((f"{sid} lock button", _widget_px(pane.scale_lock.button)))
    heads = pane.visible_heads()
    bands = -(-len(heads) // max(pane.heads_per_row(), 1)) if heads else 0
    lefts = [pane.left] + [a for a, _ in pane.extra_lefts[: max(bands - 1, 0)]]
    for i, axis in enumerate(lefts):
        out += _axis_sizes(f"{sid} row axis {i + 1}", axis)
    for m in heads:
        hm = pane.heatmaps[m]
        out += _axis_sizes(f"{sid} head {m + 1} column axis", hm.bottom)
        if pane.data.layout.per_head and hm.title.text:
            out.append((f"{sid} head {m + 1} title", _css_px(hm.title.opts.get("size", "0"))))
    if pane.bar.isVisible():
        out.append((f"{sid} colour bar", float(pane.bar.axis.style["tickFont"].pixelSize())))
    choice = pane.number_choice() if hasattr(pane, "number_choice") else None
    if choice is not None:
        out.append((f"{sid} cell numbers", float(choice[0])))
    return out


def slide_text_sizes(view) -> list[tuple[str, float]]:
    """(what, font px) of every text on the presentation's slide."""
    out: list[tuple[str, float]] = []
    for label in view.slide.findChildren(QLabel):
        if label.isVisibleTo(view.slide) and label.text().strip() and not _inside_pane(label, view):
            out += _label_sizes(label.objectName() or label.text()[:20], label)
    for button in view.slide.findChildren(QAbstractButton):
        if button.isVisibleTo(view.slide) and button.text().strip() and not _inside_pane(button, view):
            out.append((f"button {button.text()}", _widget_px(button)))
    for pane in [view.output_pane(), *view.input_panes()]:
        if pane is not None and pane.isVisibleTo(view.slide):
            out += pane_text_sizes(pane)
    return out


def _inside_pane(w: QWidget, view) -> bool:
    from app.panes.step_pane import StepPane

    p = w.parentWidget()
    while p is not None and p is not view:
        if isinstance(p, StepPane):
            return True
        p = p.parentWidget()
    return False


def too_small(view, floor: float = 14.0) -> list[tuple[str, float]]:
    return [(what, px) for what, px in slide_text_sizes(view) if px < floor]
