"""Everything a pane draws for one trace, worked out without touching a widget.

`prepare_trace` runs on the engine's worker thread right after a big trace is computed (see
app.pipeline.recompute): the batch slice of every step, whether it differs from the last prepared
trace, the float32 images, NaN cells, colour levels and, for big matrices, the colour-mapped
QImages (pyqtgraph's own mapping, `try_make_qimage`, so the pixels are the ones the ImageItem
would have made).  The GUI thread then only hands finished pieces to the panes, all panes in
one event-loop pass, so the picture never mixes two traces.  Small traces are prepared the
same way on the GUI thread, inside StepsView.show_trace.

Only numpy and QImage here: QImage may be built on any thread (QPixmap may not).

What the view shows now (its batch item, its pictures: `DisplayHints`) travels to the worker
inside each recompute request; a prepared trace travels back through `stash` / `claim`, keyed by
the Trace object (the Recomputer's `ready` signal stays (trace, scenario, seconds)).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Mapping, Optional

import numpy as np
from pyqtgraph import functions_qimage
from PySide6.QtGui import QImage

from app.panes import colormaps
from app.viewmodel import color_scale
from app.viewmodel.pane_data import PaneData, pane_data, same_numbers, tokens_of, veiled
from attention.compute.trace import Trace

#: pixels in one pane above which its QImages are made here, not at paint time on the GUI thread
BIG_PANE = 1 << 16


def fast_format(qimage: Optional[QImage]) -> Optional[QImage]:
    """`qimage` as premultiplied ARGB32 (what the raster engine blits and scales fastest);
    thread-safe (QImage), so the worker converts the images it prepares too."""
    if qimage is None or qimage.format() == QImage.Format.Format_ARGB32_Premultiplied:
        return qimage
    return qimage.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)


@dataclass(frozen=True, eq=False)
class PanePicture:
    """One pane's numbers, ready to draw.  Compared by identity: a step whose numbers did not
    change gets the previous trace's object back, so "nothing to redraw" is `is`."""

    key: tuple  # (frame, dims): labels, heads and options that frame the numbers
    raw: np.ndarray  # the step's batch slice (a view of the trace)
    mask: Optional[np.ndarray]  # the mask slice drawn over it (masked steps), else None
    data: PaneData
    images: np.ndarray  # (n, rows, cols) float32, C-contiguous, NaN-free (colormaps.image_stack)
    nan: Optional[np.ndarray]  # (n, rows, cols) bool where the value is NaN, or None
    levels: tuple[float, float]
    qimages: Optional[tuple]  # one QImage per matrix (big panes), else None: the ImageItem maps
    cmap: str = ""  # the palette (app.viewmodel.color_scale.MAPS); "" for the kind's own
    locked: bool = False  # drawn on a scale the person locked (see `locked_picture`)
    outside: tuple[int, int] = (0, 0)  # numbers below / above a locked scale's levels, drawn at its ends

    @property
    def palette_name(self) -> str:
        return self.cmap or self.data.layout.kind


@dataclass(frozen=True, eq=False)
class PreparedTrace:
    trace: Trace
    batch: int
    panes: dict[str, PanePicture]

    def picture(self, step_id: str) -> PanePicture:
        return self.panes[step_id]


class LazyPreparedTrace:
    """`prepare_trace` one pane at a time, when the view first asks for it: a small trace is
    prepared on the GUI thread, and the panes out of sight are drawn a moment after the ones on
    screen (StepsView), so only those pay before the window repaints."""

    def __init__(self, trace: Trace, scenario, batch: int, previous: Optional[Mapping[str, PanePicture]] = None,
                 qimages: bool = False) -> None:
        self.trace, self.batch, self._qimages = trace, batch, qimages
        self._frame = frame_of(trace, scenario, batch)
        self._mask = batch_slice(trace, "extra.mask", batch) if "extra.mask" in trace else None
        self._previous = dict(previous) if previous is not None else {}  # a copy: the view's dict changes
        self._made: dict[str, PanePicture] = {}

    def picture(self, step_id: str) -> PanePicture:
        pic = self._made.get(step_id)
        if pic is None:
            pic = self._made[step_id] = prepare_pane(self.trace, step_id, self.batch, self._frame, self._mask,
                                                     self._previous.get(step_id), self._qimages)
        return pic

    @property
    def panes(self) -> dict[str, PanePicture]:
        return {s.id: self.picture(s.id) for s in self.trace.steps}


def frame_of(trace: Trace, scenario, batch: int) -> tuple:
    """What frames every pane's numbers: a change here redraws a pane even with equal numbers."""
    qt, kt = tokens_of(scenario)
    opts = trace.options
    return (batch, qt, kt, int(opts.get("n_heads", 1)), opts.get("scoring"), opts.get("mix"), opts.get("fill_value"))


def batch_slice(trace: Trace, step_id: str, batch: int) -> np.ndarray:
    step = trace[step_id]
    arr = step.numpy()
    return arr[batch] if step.dims[0] == "B" else arr


def prepare_pane(trace: Trace, step_id: str, batch: int, frame: tuple, mask: Optional[np.ndarray],
                 previous: Optional[PanePicture], qimages: bool) -> PanePicture:
    """The picture of one step; `previous` itself when its frame and numbers are the same."""
    step = trace[step_id]
    key = (frame, step.dims)
    raw = batch_slice(trace, step_id, batch)
    step_mask = mask if veiled(step_id) else None
    if (previous is not None and previous.key == key and same_numbers(raw, previous.raw)
            and same_numbers(step_mask, previous.mask)):
        return previous
    data = pane_data(trace, step_id, batch, frame[1], frame[2])
    kind = data.layout.kind
    images, nan = colormaps.image_stack(data.block, kind)
    sc = colormaps.scale(kind, images, _fills(data))
    lv = sc.levels
    mapped = None
    if qimages and images.size > BIG_PANE:
        lut = colormaps.palette(sc.cmap).lut
        made = tuple(fast_format(functions_qimage.try_make_qimage(images[m], levels=lv, lut=lut))
                     for m in range(len(images)))
        mapped = made if all(q is not None for q in made) else None
    return PanePicture(key, raw, step_mask, data, images, nan, lv, mapped, sc.cmap)


def _fills(data: PaneData) -> Optional[np.ndarray]:
    """Cells whose value is a fill, not data (they set no scale)."""
    return data.masked if data.mask_style == "veil" else None


def locked_picture(picture: PanePicture, scale: color_scale.ColourScale) -> PanePicture:
    """`picture` drawn on a locked scale: the same numbers, the locked map and levels, and how
    many numbers fall outside them (drawn at the ends)."""
    images = picture.images
    out = color_scale.outside(scale, np.where(picture.nan, np.float32(np.nan), images) if picture.nan is not None
                              else images, _fills(picture.data))
    return PanePicture(picture.key, picture.raw, picture.mask, picture.data, images, picture.nan, scale.levels,
                       None, scale.cmap, True, out)


def prepare_trace(trace: Trace, scenario, batch: int, previous: Optional[Mapping[str, PanePicture]] = None,
                  qimages: bool = True) -> PreparedTrace:
    """Every pane of `trace` for batch item `batch` (any thread).  `previous`: step id -> the
    picture on screen, reused where nothing changed (see `DisplayHints.drawn`)."""
    return PreparedTrace(trace, batch, LazyPreparedTrace(trace, scenario, batch, previous, qimages).panes)


def picture_of(data: PaneData, levels: Optional[tuple[float, float]] = None, key: tuple = ()) -> PanePicture:
    """A picture of numbers that are not a trace's own step (a difference to a pinned trace, a
    quiz's hidden step): the images made here, at `levels` when given (one scale shared by
    several panes), else at the kind's own levels."""
    kind = data.layout.kind
    images, nan = colormaps.image_stack(data.block, kind)
    if levels is not None:  # a shared scale (compare's differences): the kind's own map
        return PanePicture(key, data.block, data.masked, data, images, nan, tuple(levels), None, kind)
    sc = colormaps.scale(kind, images, _fills(data))
    return PanePicture(key, data.block, data.masked, data, images, nan, sc.levels, None, sc.cmap)


# ---- worker -> view hand-over ---------------------------------------------------------------------
_lock = threading.Lock()
_stash: list[PreparedTrace] = []  # newest last; a few only (each holds a trace's images)
STASH_SIZE = 3


@dataclass(frozen=True)
class DisplayHints:
    """What a view shows now, sent with a recompute request (StepsView.display_hints): the worker
    prepares that batch item and reuses those pictures where nothing changed.  A wrong hint
    (another view, another batch) costs time, never correctness."""

    batch: int = 0
    drawn: Mapping[str, PanePicture] = field(default_factory=dict)  # step id -> picture on screen


def stash(prepared: PreparedTrace) -> None:
    with _lock:
        _stash.append(prepared)
        del _stash[:-STASH_SIZE]


def claim(trace: Trace, batch: int) -> Optional[PreparedTrace]:
    """The prepared form of exactly this trace object and batch item, if the worker made it."""
    with _lock:
        for p in reversed(_stash):
            if p.trace is trace and p.batch == batch:
                return p
    return None
