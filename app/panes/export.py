"""Export what the Steps panes show: a pane as PNG or SVG, a step's numbers as CSV.

Pictures go through pyqtgraph's own exporters (ImageExporter, SVGExporter) on the pane's
GraphicsLayout, with the step's title and formula added inside the picture for the duration of
the export, so a slide made from it says what it shows.  The CSV writer lives in the Qt-free
app/viewmodel/export_csv.py and is re-exported here.
"""
from __future__ import annotations

import contextlib
import importlib
from pathlib import Path

import numpy as np
from pyqtgraph.exporters import ImageExporter, SVGExporter

from app.panes.steps_view import StepsView
from app.viewmodel.export_csv import step_csv_text, step_to_csv
from app.viewmodel.export_errors import cannot_write

__all__ = ["export_pane_image", "step_csv_text", "step_to_csv", "IMAGE_SUFFIXES"]

IMAGE_SUFFIXES = (".png", ".svg")
PNG_SCALE = 2  # twice the screen size: crisp on a slide


def _explicit_close(d: str) -> str:
    """'M0,0 L5,0 L5,5 Z' -> 'M0,0 L5,0 L5,5 L0,0': the same outline without the Z command."""
    out: list[str] = []
    start = None
    for tok in d.split():
        closes = tok[-1] in "Zz"
        tok = tok[:-1] if closes else tok
        if tok:
            if tok[0] in "Mm":
                start = tok[1:]
            out.append(tok)
        if closes and start:
            out.append("L" + start)
    return " ".join(out)


@contextlib.contextmanager
def _svg_close_paths():
    """Work around pyqtgraph#3485: pyqtgraph 0.14's SVG exporter splits every path token on ','
    and fails on the 'Z' (close path) that Qt 6.11 writes, e.g. for each ViewBox's clip path.
    For the duration of one export its coordinate fixer sees explicit closing segments."""
    module = importlib.import_module("pyqtgraph.exporters.SVGExporter")
    original = module.correctCoordinates

    def correct(node, defs, item, options):
        for path in node.getElementsByTagName("path"):
            d = path.getAttribute("d")
            if "Z" in d or "z" in d:
                path.setAttribute("d", _explicit_close(d))
        return original(node, defs, item, options)

    module.correctCoordinates = correct
    try:
        yield
    finally:
        module.correctCoordinates = original


@contextlib.contextmanager
def _crisp_cells(pane):
    """SVG viewers smooth an embedded image when they scale it up, so a 4 × 4 matrix would
    come out as a blur: for the export, hand each small image k × k pixels per cell."""
    saved = []
    for m in pane.visible_heads():
        item = pane.heatmaps[m].image
        img = item.image
        if img is None or max(img.shape) > 64:
            continue
        k = max(1, 256 // max(img.shape))
        rect = item.boundingRect()
        rect = item.mapRectToParent(rect)
        saved.append((item, img, rect))
        item.setImage(np.repeat(np.repeat(img, k, axis=0), k, axis=1), levels=item.levels, autoLevels=False)
        item.setRect(rect)
    try:
        yield
    finally:
        for item, img, rect in saved:
            item.setImage(img, levels=item.levels, autoLevels=False)
            item.setRect(rect)


def export_pane_image(view: StepsView, step_id: str, path: str) -> None:
    """Write the pane of `step_id` to `path`: PNG or SVG by the file suffix.

    Raises ValueError for another suffix or a step that is not shown, OSError when the file
    cannot be written."""
    suffix = Path(path).suffix.lower()
    if suffix not in IMAGE_SUFFIXES:
        got = f"'{suffix}'" if suffix else "no suffix"
        raise ValueError(f"{path}: expected a file name ending in .png or .svg, got {got}")
    try:
        pane = view.pane(step_id)
    except KeyError as e:
        raise ValueError(str(e.args[0])) from None
    with pane.export_header() as item:
        # views update their transforms just before painting; a pane scrolled out of sight
        # may never have painted (scene.render does this for PNG, the SVG exporter does not)
        item.scene().prepareForPaint()
        if suffix == ".png":
            exporter = ImageExporter(item)
            exporter.parameters()["width"] = int(item.boundingRect().width() * PNG_SCALE)
            image = exporter.export(toBytes=True)
            if image is None or image.isNull() or not image.save(str(path), "PNG"):
                raise OSError(cannot_write("png", path))
        else:
            with _svg_close_paths(), _crisp_cells(pane):
                data = SVGExporter(item).export(toBytes=True)
            data = bytes(data)
            try:
                Path(path).write_bytes(data)
            except OSError as e:
                raise OSError(cannot_write("svg", path, e)) from e
