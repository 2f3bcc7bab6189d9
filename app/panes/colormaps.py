"""Colour maps and the image array handed to pyqtgraph; which map and levels a pane gets is
decided Qt-free in app/viewmodel/color_scale.py (`scale_for`), one palette per map it names:

- signed numbers of both signs: CET-CBD1, a colour-blind-safe diverging map (blue - grey - gold),
  on symmetric levels (-m, m) so that 0 is always the neutral middle;
- numbers of one sign: CET-L18 (white - yellow - red) from 0 up for all >= 0, CET-L12 (blue -
  white) up to 0 for all <= 0: white is 0 and the colour grows with the magnitude;
- softmax weights: viridis on the fixed levels (0, 1), so every weight pane reads the same way;
- counts and indices: CET-L12 (white to blue), from 0;
- booleans (mask, selected): light grey for False, dark grey for True.
Images are float32, C-contiguous and NaN-free (pyqtgraph's fast path); NaN cells are painted
over as "not computed" by the cell overlay; infinities (a -inf fill) are clipped by pyqtgraph.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np
import pyqtgraph as pg

from app.viewmodel import color_scale

DIVERGING = "CET-CBD1"
SEQUENTIAL_WEIGHTS = "viridis"
SEQUENTIAL_COUNTS = "CET-L12"
SEQUENTIAL_POSITIVE = "CET-L18"
SEQUENTIAL_NEGATIVE = "CET-L12"  # reversed: full colour at -m, white at 0
BOOL_COLOURS = ((242, 242, 242), (95, 95, 95))
#: text is dark on a cell whose colour is lighter than this (relative luminance, 0..255)
LIGHT_CELL = 140.0
#: masked cells are washed towards white by this much (see CellOverlay)
VEIL_ALPHA = 0.55


@dataclass(frozen=True)
class Palette:
    name: str
    cmap: pg.ColorMap
    lut: np.ndarray  # (256, 3) uint8
    dark_text: np.ndarray  # (256,) bool: dark text reads best on this entry
    dark_text_veiled: np.ndarray  # (256,) bool: the same under the mask veil


def _luminance(rgb: np.ndarray) -> np.ndarray:
    return rgb[..., 0] * 0.2126 + rgb[..., 1] * 0.7152 + rgb[..., 2] * 0.0722


@lru_cache(maxsize=None)
def palette(cmap: str) -> Palette:
    """The palette of a map color_scale names (a step kind is one: "signed", "weights", ...)."""
    if cmap == "bool":
        cm = pg.ColorMap([0.0, 1.0], [BOOL_COLOURS[0], BOOL_COLOURS[1]])
        name = "grey"
    elif cmap == "negative":
        base = pg.colormap.get(SEQUENTIAL_NEGATIVE).getLookupTable(nPts=256, alpha=False)  # not .reverse():
        cm = pg.ColorMap(np.linspace(0.0, 1.0, 256), base[::-1])  # pyqtgraph hands out one shared map object
        name = SEQUENTIAL_NEGATIVE + " (reversed)"
    else:
        name = {"weights": SEQUENTIAL_WEIGHTS, "count": SEQUENTIAL_COUNTS, "index": SEQUENTIAL_COUNTS,
                "positive": SEQUENTIAL_POSITIVE}.get(cmap, DIVERGING)
        cm = pg.colormap.get(name)
    lut = np.ascontiguousarray(cm.getLookupTable(nPts=256, alpha=False), dtype=np.uint8)
    lum = _luminance(lut.astype(np.float64))
    veiled = lut.astype(np.float64) * (1 - VEIL_ALPHA) + 255.0 * VEIL_ALPHA
    return Palette(name, cm, lut, lum > LIGHT_CELL, _luminance(veiled) > LIGHT_CELL)


def scale(kind: str, images: np.ndarray, masked: Optional[np.ndarray] = None) -> color_scale.ColourScale:
    """The map and levels shared by every matrix of a pane (color_scale.scale_for).

    images (n, rows, cols) as image_stack made them (NaN-free); masked (rows, cols) True where
    the value is a fill, not data (it must not set the scale)."""
    return color_scale.scale_for(kind, images, masked)


def levels(kind: str, images: np.ndarray, masked: Optional[np.ndarray] = None) -> tuple[float, float]:
    """The levels of `scale`."""
    return scale(kind, images, masked).levels


nice_ceiling = color_scale.nice_ceiling


def image_stack(block: np.ndarray, kind: str) -> tuple[np.ndarray, Optional[np.ndarray]]:
    """The float32 arrays handed to ImageItem, for all matrices of a pane in one buffer.

    Returns (images (n, rows, cols) C-contiguous, nan (n, rows, cols) bool or None).  NaN ->
    the middle of the kind's levels (0 on the symmetric signed scale, 0.5 for weights), so no
    NaN reaches the colour map (the cell overlay paints those cells as "not computed"); ±inf
    stay (pyqtgraph clips them to the ends of the levels).  pyqtgraph keeps a reference, so
    the trace's own memory is only handed over when nothing has to change (already float32,
    C-contiguous, no NaN), and then as a read-only view: nothing can write into a trace through
    a pane.  Anything else is a fresh copy.  (Copying 8 heads of 1024 x 1024 cost tens of ms.)"""
    if block.dtype == np.float32 and block.flags.c_contiguous and (block.size == 0 or not np.isnan(block.min())):
        view = block.view()
        view.flags.writeable = False
        return view, None
    with np.errstate(over="ignore"):  # float64 numbers past float32's range become ±inf, drawn at the ends
        img = np.array(block, dtype=np.float32, order="C", copy=True)
    nan = None
    if img.size and np.isnan(img.min()):
        nan = np.isnan(img)
        img[nan] = 0.5 if kind == "weights" else 0.0
    return img, nan


def lut_index(values: np.ndarray, lv: tuple[float, float]) -> np.ndarray:
    """Which LUT entry each value is drawn with: clip to the levels, scale to 0..255; ±inf go
    to the ends.  In float64: a float64 scenario's numbers past float32's range make float32
    images of ±inf and levels beyond float32 (e.g. ±4e38), and in float32 `-inf - (-4e38)`
    is NaN, which no LUT entry answers (a text colour lookup then raised inside a paint)."""
    lo, hi = lv
    scale = 255.0 / (hi - lo) if hi > lo else 0.0
    idx = (np.asarray(values, dtype=np.float64) - lo) * scale
    np.nan_to_num(idx, copy=False, nan=0.0, posinf=255.0, neginf=0.0)
    np.clip(idx, 0, 255, out=idx)
    return idx.astype(np.intp)
