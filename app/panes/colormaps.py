"""Colour maps, levels and the image array handed to pyqtgraph, per kind of step.

- signed numbers (projections, scores, outputs, M): CET-CBD1, a colour-blind-safe diverging map
  (blue - grey - gold), on symmetric levels (-m, m) so that 0 is always the neutral middle;
  m is the largest finite, unmasked magnitude (a -1e6 fill cannot flatten the scale) rounded
  up to a round number (see nice_ceiling).
- softmax weights: viridis on the fixed levels (0, 1), so every weight pane reads the same way.
- counts and indices: CET-L12 (white to blue), from 0.
- booleans (mask, selected): light grey for False, dark grey for True.
Images are float32, C-contiguous and NaN-free (pyqtgraph's fast path); NaN cells are painted
over as "not computed" by the cell overlay; infinities (a -inf fill) are clipped by pyqtgraph.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np
import pyqtgraph as pg

DIVERGING = "CET-CBD1"
SEQUENTIAL_WEIGHTS = "viridis"
SEQUENTIAL_COUNTS = "CET-L12"
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
def palette(kind: str) -> Palette:
    if kind == "bool":
        cmap = pg.ColorMap([0.0, 1.0], [BOOL_COLOURS[0], BOOL_COLOURS[1]])
        name = "grey"
    else:
        name = {"weights": SEQUENTIAL_WEIGHTS, "count": SEQUENTIAL_COUNTS,
                "index": SEQUENTIAL_COUNTS}.get(kind, DIVERGING)
        cmap = pg.colormap.get(name)
    lut = np.ascontiguousarray(cmap.getLookupTable(nPts=256, alpha=False), dtype=np.uint8)
    lum = _luminance(lut.astype(np.float64))
    veiled = lut.astype(np.float64) * (1 - VEIL_ALPHA) + 255.0 * VEIL_ALPHA
    return Palette(name, cmap, lut, lum > LIGHT_CELL, _luminance(veiled) > LIGHT_CELL)


def levels(kind: str, images: np.ndarray, masked: Optional[np.ndarray] = None) -> tuple[float, float]:
    """Colour levels shared by every matrix of a pane.

    images (n, rows, cols) as image_stack made them (NaN-free); masked (rows, cols) True where
    the value is a fill, not data (it must not set the scale)."""
    if kind in ("weights", "bool"):
        return 0.0, 1.0
    if images.size == 0:
        return (0.0, 1.0) if kind in ("count", "index") else (-1.0, 1.0)
    if kind in ("count", "index"):
        return 0.0, float(max(float(images.max()), 1.0))
    a = images if masked is None else np.where(masked[None], np.float32(0), images)
    m = float(max(a.max(), -a.min()))
    if not math.isfinite(m):  # infinities outside the mask: scale by the finite values
        m = float(np.max(np.abs(a), where=np.isfinite(a), initial=0.0))
    if not m > 0:
        m = 1.0
    m = nice_ceiling(m)
    return -m, m


NICE_STEPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_ceiling(x: float) -> float:
    """The smallest 'round' number >= x (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of 10).

    The colour scale then stays put while a class edits one number (colours of untouched cells
    do not drift, the colour bar does not redraw) and its ends read as round numbers."""
    mag = 10.0 ** math.floor(math.log10(x))
    for step in NICE_STEPS:
        if step * mag >= x * (1 - 1e-12):
            return float(f"{step * mag:.12g}")
    return 10.0 * mag


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
