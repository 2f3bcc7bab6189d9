"""Which colour map and which levels a pane's numbers are drawn with.  Qt-free.

- weights: ``weights`` (viridis) on the fixed levels (0, 1): every weight pane reads the same way.
- counts and indices: ``count`` / ``index`` (white to blue) from 0 to the largest (at least 1).
- flags: ``bool`` on (0, 1).
- any other number (``signed`` kind: projections, scores, outputs, M) by the signs it holds:
  - both signs: ``signed``, the diverging map on symmetric levels (-m, m), so 0 is the neutral
    middle and the two signs read as two hues;
  - all >= 0 (and some > 0): ``positive``, a sequential map, white at 0 to a full colour at m;
  - all <= 0 (and some < 0): ``negative``, the same idea, a full colour at -m to white at 0.
  A one-signed matrix on a diverging scale used only half the map (one hue, from grey to
  gold): every cell came out nearly one colour.  m is the largest finite, unmasked magnitude
  (a -1e6 fill cannot flatten the scale) rounded up to a round number (`nice_ceiling`), so the
  scale stays put while a class edits one number, and its ends read as round numbers.

A *locked* scale (`ColourScale` kept by the view) keeps its map and levels whatever the numbers
become; `outside` counts the numbers it then draws clipped at its ends, so the pane can say so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

#: the maps a scale may name (app/panes/colormaps.py has a palette for each)
MAPS = ("signed", "positive", "negative", "weights", "count", "index", "bool")

NICE_STEPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


@dataclass(frozen=True)
class ColourScale:
    cmap: str  # one of MAPS
    levels: tuple[float, float]


def nice_ceiling(x: float) -> float:
    """The smallest 'round' number >= x (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of 10).

    The colour scale then stays put while a class edits one number (colours of untouched cells
    do not drift, the colour bar does not redraw) and its ends read as round numbers."""
    mag = 10.0 ** math.floor(math.log10(x))
    for step in NICE_STEPS:
        if step * mag >= x * (1 - 1e-12):
            return float(f"{step * mag:.12g}")
    return 10.0 * mag


def _data(images: np.ndarray, masked: Optional[np.ndarray]) -> np.ndarray:
    """The values that set a scale: NaN where a cell is a fill, not data (masked (rows, cols))."""
    if masked is None or not masked.any():
        return images
    return np.where(masked[None], np.float32(np.nan), images)


def scale_for(kind: str, images: np.ndarray, masked: Optional[np.ndarray] = None) -> ColourScale:
    """The colour scale of a pane of kind `kind` (attention/registry/step_registry.py's kinds).

    images (n, rows, cols), every matrix of the pane (one scale for all its heads), NaN-free or
    not; masked (rows, cols) True where the value is a fill (it must not set the scale)."""
    if kind in ("weights", "bool"):
        return ColourScale(kind, (0.0, 1.0))
    if kind in ("count", "index"):
        top = float(np.max(images, initial=0.0, where=np.isfinite(images))) if images.size else 0.0
        return ColourScale(kind, (0.0, max(top, 1.0)))
    a = _data(np.asarray(images), masked)
    with np.errstate(invalid="ignore"):
        has_neg = bool(np.any(a < 0))
        has_pos = bool(np.any(a > 0))
    finite = np.isfinite(a)
    m = float(np.max(np.abs(a), where=finite, initial=0.0)) if a.size else 0.0
    m = nice_ceiling(m) if m > 0 else 1.0
    if has_pos and not has_neg:
        return ColourScale("positive", (0.0, m))
    if has_neg and not has_pos:
        return ColourScale("negative", (-m, 0.0))
    return ColourScale("signed", (-m, m))


def outside(scale: ColourScale, images: np.ndarray, masked: Optional[np.ndarray] = None) -> tuple[int, int]:
    """How many numbers (not NaN, not a masked fill) lie below and above `scale`'s levels: a
    locked scale draws them in the colours of its ends."""
    a = _data(np.asarray(images), masked)
    lo, hi = scale.levels
    with np.errstate(invalid="ignore"):
        return int(np.count_nonzero(a < lo)), int(np.count_nonzero(a > hi))
