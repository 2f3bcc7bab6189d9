"""What a person sees of one slide, measured on screen: the reasons it does not fit (issue 30, item 5).

`slide_problems(view)` lists, for the slide on screen, every way it fails the projector:
- a scroll bar of the slide that is shown and can scroll (a non-empty range);
- a head's plot (its matrix of cells) of any pane, or a colour bar, not wholly on screen: outside the
  screen, or cut by a widget that holds it (a scroll area's viewport, the slide's edge);
- two heads' plots overlapping; an input of the step not shown;
- the lesson text (and the title, the formula) not wholly on screen or cut short (its height under what
  its words need at its width);
- numbers drawn in cells with digits under LEGIBLE_DIGIT_PX (14 px) tall.
An empty list: the slide fits.  Geometry is in global (screen) pixels, from the widgets' and the
graphics items' own rectangles, never from the layout's intentions.
"""
from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QScrollBar, QWidget

from app.teaching.presentation.zoomed_pane import LEGIBLE_DIGIT_PX, digit_height

#: a pixel of slack for anti-aliased edges and rounding between scene and widget coordinates
SLACK = 1


def _global(widget: QWidget, rect: QRect) -> QRect:
    return QRect(widget.mapToGlobal(rect.topLeft()), rect.size())


def _visible_part(widget: QWidget, rect: QRect) -> QRect:
    """`rect` (global) as far as `widget` and every widget holding it let it be seen."""
    seen = QRect(rect)
    w = widget
    while w is not None:
        seen = seen.intersected(_global(w, w.rect()))
        w = None if w.isWindow() else w.parentWidget()  # a window's parent does not clip it
    return seen


def _cut(widget: QWidget, rect: QRect, screen: QRect) -> bool:
    """Whether any of `rect` (global) is off the screen or hidden by a widget that holds it."""
    seen = _visible_part(widget, rect).intersected(screen)
    return (seen.width() < rect.width() - SLACK or seen.height() < rect.height() - SLACK)


def _item_rect(canvas, item) -> QRect:
    """A graphics item's rectangle on screen (global px)."""
    poly = canvas.mapFromScene(item.sceneBoundingRect())
    r = poly.boundingRect()
    return QRect(canvas.viewport().mapToGlobal(r.topLeft()), r.size())


def _panes(view) -> list:
    return [p for p in [view.output_pane(), *view.input_panes()] if p is not None and p.isVisible()]


def head_rects(view) -> list[tuple[str, int, QRect]]:
    """(pane, head, global rect) of every head's plot on the slide."""
    out = []
    for pane in _panes(view):
        if not pane.canvas.isVisible():
            continue
        for m in pane.visible_heads():
            out.append((pane.step_id, m, _item_rect(pane.canvas, pane.heatmaps[m].vb)))
    return out


def slide_problems(view, screen: QRect | None = None) -> list[str]:
    """Every way the slide on screen fails the projector ([] : it fits).  `screen`: the screen's
    rectangle (global px; default: the view's screen; offscreen tests: the view's own rectangle)."""
    screen = view.screen().geometry() if screen is None else screen
    problems: list[str] = []
    for sb in view.slide.findChildren(QScrollBar):  # the slide's (the edit drawer's controls scroll on their own)
        if sb.isVisible() and sb.maximum() > sb.minimum():
            owner = sb.parentWidget().parentWidget() if sb.parentWidget() is not None else None
            name = owner.objectName() if owner is not None and owner.objectName() else type(owner).__name__
            problems.append(f"scroll bar ({name}, range {sb.maximum() - sb.minimum()} px)")
    for pane in view.input_panes():
        if not pane.isVisible():
            problems.append(f"input {pane.step_id} not shown")
    heads = head_rects(view)
    panes = {p.step_id: p for p in _panes(view)}
    for sid, m, rect in heads:
        if rect.width() < 2 or rect.height() < 2:
            problems.append(f"{sid} head {m + 1} not drawn ({rect.width()}x{rect.height()})")
        elif _cut(panes[sid].canvas.viewport(), rect, screen):
            problems.append(f"{sid} head {m + 1} cut ({rect.getRect()})")
    for i, (sa, ma, ra) in enumerate(heads):
        for sb_, mb, rb in heads[i + 1:]:
            both = ra.intersected(rb)
            if both.width() > SLACK and both.height() > SLACK:
                problems.append(f"{sa} head {ma + 1} overlaps {sb_} head {mb + 1}")
    for sid, pane in panes.items():
        if pane.canvas.isVisible() and pane.bar.isVisible():
            rect = _item_rect(pane.canvas, pane.bar)
            if _cut(pane.canvas.viewport(), rect, screen):
                problems.append(f"{sid} colour bar cut ({rect.getRect()})")
        problems += _digit_problems(pane)
    for name, label in (("lesson text", view.explanation), ("title", view.title), ("formula", view.formula)):
        if not label.isVisible() or not label.text().strip():
            continue
        rect = _global(label, label.rect())
        if _cut(label, rect, screen):
            problems.append(f"{name} cut ({rect.getRect()})")
        elif label.wordWrap() and label.height() < label.heightForWidth(label.width()) - SLACK:
            problems.append(f"{name} short ({label.height()} < {label.heightForWidth(label.width())} px)")
    return problems


def _digit_problems(pane) -> list[str]:
    """Numbers drawn in the cells with digits under LEGIBLE_DIGIT_PX (none drawn: no problem)."""
    heads = pane.visible_heads()
    if not heads or not pane.canvas.isVisible():
        return []
    hm = pane.heatmaps[heads[0]]
    if not hm.overlay.has_numbers() or hm.overlay.numbers_hidden:
        return []
    choice = pane.number_choice()
    if choice is None:
        return []
    height = digit_height(choice[0])
    return [] if height >= LEGIBLE_DIGIT_PX - 0.01 else [f"{pane.step_id} digits {height:.1f} px"]


def view_rect(view) -> QRect:
    """The view's own rectangle on the screen (offscreen, where the screen is not the projector's)."""
    return _global(view, view.rect())
