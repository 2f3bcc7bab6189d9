"""Where everything goes on a slide's canvas, and how large its cells are: arithmetic on pixels, no Qt.

A slide shows its step's result (one pane: its heads side by side, or in a grid of rows) and a
pane per input of the step, on the canvas the slide's texts leave (the size of the screen less
the title, the map of steps, the formula and the lesson).  `plan` tries the ways of sharing that
canvas — the inputs in a column left of the result, side by side left of it, or in a row above it,
at several splits —
and for each pane the grids its heads can take, and keeps the arrangement that reads best:

1. the result's numbers legible (digits at least 14 px tall: its cells at least `PaneSpec.legible`);
2. then the inputs' numbers legible;
3. then the cells as large as they get, the result's counting double the inputs'.

A pane is never planned wider or taller than its box, and the boxes never overlap: at the
plan's sizes nothing on the slide needs a scroll bar.  Cells too small for legible numbers are
planned as colour only (square-ish cells, or thin rows of narrower ones; the pane drops the
digits), and their pane's click zooms into a region (presentation_view).  The pane measures
what surrounds its cells (`Frame`): this module only does the sums.

Shapes: a pane of `heads` matrices of rows x cols cells, `per_row` heads a row in `bands` rows:
    width  = fixed_w + per_row * max(cols * cell_w + head_w, head_min_w)
    height = fixed_h(width) + bands * (rows * cell_h + head_h) + (bands - 1) * band_gap
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

#: a cell that prints numbers is this many times as wide as tall, at least and at most
NUMBER_ASPECT = (1.0, 2.6)
#: a colour-only cell (numbers too small to print): near square
COLOUR_ASPECT = (0.7, 1.5)
#: the shares of the canvas the inputs may take: of its width beside the result, of its height above it
COLUMN_SHARES = (0.16, 0.21, 0.27, 0.33, 0.4, 0.48, 0.56)
ROW_SHARES = (0.2, 0.27, 0.34, 0.42, 0.52)
#: the smallest cell drawn (px): 168 rows in a small box are still a picture (a click zooms in)
MIN_CELL = 0.4
#: the narrowest cell drawn (px): 2048 features in 300 px are still a picture of the row
MIN_CELL_W = 0.1
#: a row of colour-only cells is drawn up to this tall however narrow its cells, while the matrix stays
#: at least as wide as tall: a 10 x 2048 matrix reads as a strip of ten tokens, not as ten lines of
#: pixels, and a square matrix stays square (its cells near square)
THIN_ROW = 16.0
#: numbers at the slide's full precision (0.707, not 0.71: one precision through the show) count this much
FULL_BONUS = 3.0
#: pixels kept free at the canvas's edges and between two boxes
GAP = 10


@dataclass(frozen=True)
class Frame:
    """What a pane needs around its cells, in px, as the pane measures it at its fonts."""

    fixed_w: float  # margins, the row axis, the colour bar and its numbers
    head_w: float  # beside each head's cells: the grid's spacing and the matrix frame
    fixed_h: Callable[[float], float]  # above and below the cells for a pane this wide: header, axis row, hint
    head_h: float = 0.0  # each band of heads: its head titles
    band_gap: float = 0.0  # between two bands: the upper band's tick labels
    head_min_w: float = 0.0  # a head is never narrower than its title (its cells centred under a wider one)


@dataclass(frozen=True)
class PaneSpec:
    """One pane to place: `heads` matrices of rows x cols, drawn in `frame`."""

    name: str
    heads: int
    rows: int
    cols: int
    frame: Frame
    legible: Optional[tuple[float, float]] = None  # the smallest cell (w, h) with legible numbers; None: none
    variant: object = None  # what the pane must be set to for this spec (a long row written in rows)
    full_w: float = 0.0  # the cell width that holds the slide's full precision (3 digits) legibly


@dataclass(frozen=True)
class Fit:
    """A pane's grid and cells in a box, and the pane's size (px)."""

    spec: PaneSpec
    per_row: int
    cell_w: float
    cell_h: float
    legible: bool
    width: float
    height: float

    @property
    def bands(self) -> int:
        return -(-self.spec.heads // self.per_row)

    @property
    def full(self) -> bool:
        """Legible at the slide's full precision (0.707, not 0.71)."""
        return self.legible and self.cell_w >= self.spec.full_w

    def size_key(self) -> float:
        """How large the cells read: their height, and their width as far as it is needed (a thin
        row's narrow cells are one strip of features: its height is what reads)."""
        if not self.legible and self.cell_w < self.cell_h * COLOUR_ASPECT[0] - 1e-9:
            return self.cell_h
        return min(self.cell_h, self.cell_w)


@dataclass
class Placed:
    fit: Fit
    x: float
    y: float


@dataclass
class SlidePlan:
    """Each pane's place and grid, the arrow's place ('→' or '↓'), the canvas the plan used."""

    panes: dict[str, Placed] = field(default_factory=dict)
    arrow: Optional[tuple[float, float, float, float, str]] = None
    width: float = 0.0
    height: float = 0.0
    arrangement: str = "alone"  # "alone" | "column" | "beside" | "row"
    score: float = -math.inf
    #: the lesson's rectangle (x, y, width, height) on the slide's canvas (PresentationView sets it)
    lesson: Optional[tuple[float, float, float, float]] = None
    dropped: list = field(default_factory=list)  # inputs left off: nothing fitted beside them (a last resort)

    def output(self, name: str) -> Optional[Placed]:
        return self.panes.get(name)


# ---- one pane ------------------------------------------------------------------------------------
def pane_width(spec: PaneSpec, per_row: int, cell_w: float) -> float:
    """A head takes its cells' width, or its title's where that is wider (its cells centred under it)."""
    f = spec.frame
    return f.fixed_w + per_row * max(spec.cols * cell_w + f.head_w, f.head_min_w)


def cell_room(spec: PaneSpec, per_row: int, width: float) -> float:
    """The widest cells `per_row` heads a row have in `width` px (negative: not even the titles fit)."""
    f = spec.frame
    pitch = (width - f.fixed_w) / per_row
    if pitch < f.head_min_w:
        return -1.0
    return (pitch - f.head_w) / spec.cols


def pane_height(spec: PaneSpec, per_row: int, cell_h: float, width: float) -> float:
    f = spec.frame
    bands = -(-spec.heads // per_row)
    return f.fixed_h(width) + bands * (spec.rows * cell_h + f.head_h) + (bands - 1) * f.band_gap


def grids(heads: int) -> list[int]:
    """Every heads-a-row worth trying: one per number of bands (8 heads: 8, 4, 3, 2, 1)."""
    return sorted({-(-heads // bands) for bands in range(1, heads + 1)}, reverse=True)


def thin_row(spec: PaneSpec, room_w: float) -> float:
    """The tallest row of colour-only cells `room_w` px wide (or narrower) may be: THIN_ROW, as long
    as the matrix stays at least as wide as tall."""
    return min(THIN_ROW, spec.cols * room_w / spec.rows)


def colour_width(spec: PaneSpec, ch: float, room_w: float) -> Optional[float]:
    """The width of colour-only cells `ch` tall in `room_w` px a column: near square, or as wide as
    the room allows in a thin row (thin_row; None: the room is too narrow)."""
    w = ch * COLOUR_ASPECT[0]
    if w <= room_w:
        return w
    return room_w if ch <= thin_row(spec, room_w) + 1e-9 and room_w >= MIN_CELL_W else None


def _shape(spec: PaneSpec, ch: float, room_w: float, legible: bool) -> tuple[float, float]:
    """(cell_w, cell_h) for cells `ch` tall in `room_w` px of cell width a column: as wide as the
    aspect allows and the room holds; legible cells at least as wide as their numbers need."""
    lo, hi = NUMBER_ASPECT if legible else COLOUR_ASPECT
    want = ch * hi
    if legible and spec.legible is not None:
        want = max(want, spec.legible[0], spec.full_w)
    return min(room_w, want), ch


def fit_in(spec: PaneSpec, width: float, height: float, cap: float) -> Optional[Fit]:
    """The pane's best grid and cells within a box, or None when not even the smallest cells fit.
    `cap`: the tallest a cell is drawn (a 2 x 2 matrix is not a wall of colour)."""
    best: Optional[Fit] = None
    for per_row in grids(spec.heads):
        fit = _fit_grid(spec, per_row, width, height, cap)
        if fit is not None and (best is None or _better(fit, best)):
            best = fit
    return best


def _better(a: Fit, b: Fit) -> bool:
    if a.legible != b.legible:
        return a.legible
    ka, kb = a.size_key(), b.size_key()
    if abs(ka - kb) > 0.5:
        return ka > kb
    return a.cell_w * a.cell_h > b.cell_w * b.cell_h + 1


def _fit_grid(spec: PaneSpec, per_row: int, width: float, height: float, cap: float) -> Optional[Fit]:
    f = spec.frame
    bands = -(-spec.heads // per_row)
    room_w = cell_room(spec, per_row, width)  # cell width a column
    if room_w < MIN_CELL_W:
        return None
    outer = width
    for _ in range(3):  # the header wraps by the pane's width, which follows the cells
        room_h = (height - f.fixed_h(outer) - bands * f.head_h - (bands - 1) * f.band_gap) / (bands * spec.rows)
        if room_h < MIN_CELL:
            return None
        for legible in ((True, False) if spec.legible is not None else (False,)):
            lo = (NUMBER_ASPECT if legible else COLOUR_ASPECT)[0]
            ch = min(room_h, cap, room_w / lo if legible else max(room_w / lo, thin_row(spec, room_w)))
            cw, ch = _shape(spec, ch, room_w, legible)
            ok = not legible or (cw >= spec.legible[0] and ch >= spec.legible[1])
            if ok:
                break
        w = pane_width(spec, per_row, cw)
        if abs(w - outer) < 1:
            break
        outer = w
    h = pane_height(spec, per_row, ch, w)
    if h > height + 0.5 or w > width + 0.5:
        return None
    return Fit(spec, per_row, cw, ch, legible and ok, w, h)


def fit_at(spec: PaneSpec, ch: float, width: float, height: float = math.inf, narrow: bool = False
           ) -> Optional[Fit]:
    """Cells `ch` tall: the grid that keeps the pane lowest (`narrow`: narrowest) within width x
    height, legible where its numbers fit (None when no grid fits)."""
    best: Optional[Fit] = None
    for per_row in grids(spec.heads):
        room_w = cell_room(spec, per_row, width)
        cells: Optional[tuple[float, bool]] = None
        if spec.legible is not None and ch >= spec.legible[1]:
            cw = max(ch * NUMBER_ASPECT[0], spec.legible[0])
            if cw <= room_w:
                cells = (max(cw, min(spec.full_w, room_w)), True)
        if cells is None:
            cw = colour_width(spec, ch, room_w)
            if cw is None:
                continue
            cells = (cw, False)
        w = pane_width(spec, per_row, cells[0])
        h = pane_height(spec, per_row, ch, w)
        if h > height:
            continue
        fit = Fit(spec, per_row, cells[0], ch, cells[1], w, h)
        key = (fit.legible, -(fit.width if narrow else fit.height))
        if best is None or key > (best.legible, -(best.width if narrow else best.height)):
            best = fit
    return best


def widen(fit: Fit, width: float) -> Fit:
    """The same grid with its cells as wide as `width` and their aspect allow."""
    spec = fit.spec
    room_w = cell_room(spec, fit.per_row, width)
    hi = (NUMBER_ASPECT if fit.legible else COLOUR_ASPECT)[1]
    cw = max(fit.cell_w, min(room_w, fit.cell_h * hi))
    w = pane_width(spec, fit.per_row, cw)
    return Fit(spec, fit.per_row, cw, fit.cell_h, fit.legible, w, pane_height(spec, fit.per_row, fit.cell_h, w))


# ---- several inputs sharing a column or a row ------------------------------------------------------
def _largest(fits: Callable[[float], Optional[list[Fit]]], cap: float) -> Optional[list[Fit]]:
    """The fits at the tallest cells (to 1 %) for which `fits(ch)` finds room, None when none."""
    if fits(MIN_CELL) is None:
        return None
    got = fits(cap)
    if got is not None:
        return got
    low, high = MIN_CELL, cap
    while high - low > max(0.25, low * 0.03):
        mid = (low + high) / 2
        low, high = (mid, high) if fits(mid) is not None else (low, mid)
    return fits(low)


def stack(specs: Sequence[PaneSpec], width: float, height: float, cap: float) -> Optional[list[Fit]]:
    """Inputs one above another in a column of `width` x `height`, all with cells of one height."""
    def fits(ch: float) -> Optional[list[Fit]]:
        out = [fit_at(s, ch, width) for s in specs]
        if any(f is None for f in out):
            return None
        return out if sum(f.height for f in out) + GAP * (len(out) - 1) <= height else None

    found = _largest(fits, cap)
    return None if found is None else [widen(f, width) for f in found]


def line_up(specs: Sequence[PaneSpec], width: float, height: float, cap: float) -> Optional[list[Fit]]:
    """Inputs side by side in a row of `width` x `height`, all with cells of one height."""
    def fits(ch: float) -> Optional[list[Fit]]:
        out = [fit_at(s, ch, width, height, narrow=True) for s in specs]
        if any(f is None for f in out):
            return None
        return out if sum(f.width for f in out) + GAP * (len(out) - 1) <= width else None

    return _largest(fits, cap)


# ---- the slide ---------------------------------------------------------------------------------------
def score(out: Fit, ins: Sequence[Fit], cap: float) -> float:
    """How well an arrangement reads: legible numbers first (the result's above the inputs'; at the
    full precision above fewer digits), then the size of the cells (the result's counting double);
    inputs drawn larger than the result lose."""
    s = 6.0 if out.legible else 0.0
    numbered = [f for f in ins if f.spec.legible is not None]
    if numbered:
        s += 3.0 * sum(f.legible for f in numbered) / len(numbered)
    # the slide writes one precision, the fewest digits any legible pane holds: all of them at full
    legible = [f for f in [out, *numbered] if f.legible]
    if legible and all(f.full for f in legible):
        s += FULL_BONUS
    s += math.log(max(min(out.size_key(), cap), MIN_CELL))
    if ins:
        smallest = min(f.size_key() for f in ins)
        s += 0.5 * math.log(max(min(smallest, cap), MIN_CELL))
        if smallest > out.size_key() * 1.1 and not (out.legible and not any(f.legible for f in numbered)):
            s -= 0.4
    return s


def plan(width: float, height: float, outputs: Sequence[PaneSpec], inputs: Sequence[PaneSpec],
         arrow: tuple[float, float], cap: float, input_cap: Optional[float] = None) -> SlidePlan:
    """The best arrangement of the result (one of `outputs`: the ways it can be drawn) and `inputs`
    on a canvas of width x height px; `arrow`: the (width, height) an arrow between them takes."""
    input_cap = cap if input_cap is None else input_cap
    best = SlidePlan(width=width, height=height)
    inner_w, inner_h = width - 2 * GAP, height - 2 * GAP
    aw, ah = arrow
    for out_spec in outputs:
        if not inputs:
            out = fit_in(out_spec, inner_w, inner_h, cap)
            if out is not None:
                _keep(best, _alone(out, width, height), score(out, [], cap))
            continue
        # a wider share only makes the result smaller once the inputs are at their largest cells
        stacked = lined = False
        for share in COLUMN_SHARES:
            ins = None if stacked else stack(inputs, inner_w * share, inner_h, input_cap)
            if ins is not None:
                stacked = _at_cap(ins, input_cap)
                col_w = max(f.width for f in ins)
                out = fit_in(out_spec, inner_w - col_w - aw - 2 * GAP, inner_h, cap)
                if out is not None:
                    _keep(best, _left(ins, out, width, height, aw, stacked=True), score(out, ins, cap))
            if len(inputs) > 1 and not lined:  # side by side, left of the result (two tall inputs: 168 steps each)
                ins = line_up(inputs, inner_w * share, inner_h, input_cap)
                if ins is not None:
                    lined = _at_cap(ins, input_cap)
                    block_w = sum(f.width for f in ins) + GAP * (len(ins) - 1)
                    out = fit_in(out_spec, inner_w - block_w - aw - 2 * GAP, inner_h, cap)
                    if out is not None:
                        _keep(best, _left(ins, out, width, height, aw, stacked=False), score(out, ins, cap))
        for share in ROW_SHARES:
            ins = line_up(inputs, inner_w, inner_h * share, input_cap)
            if ins is None:
                continue
            row_h = max(f.height for f in ins)
            out = fit_in(out_spec, inner_w, inner_h - row_h - ah - 2 * GAP, cap)
            if out is not None:
                _keep(best, _row(ins, out, width, height, ah), score(out, ins, cap))
            if _at_cap(ins, input_cap):
                break
    return best


def _at_cap(fits: Sequence[Fit], cap: float) -> bool:
    return all(f.cell_h >= cap - 0.5 for f in fits)


def _keep(best: SlidePlan, candidate: SlidePlan, value: float) -> None:
    if value > best.score + 1e-9:
        best.panes, best.arrow, best.arrangement, best.score = (candidate.panes, candidate.arrow,
                                                                candidate.arrangement, value)


def _alone(out: Fit, width: float, height: float) -> SlidePlan:
    p = SlidePlan(width=width, height=height, arrangement="alone")
    p.panes[out.spec.name] = Placed(out, (width - out.width) / 2, (height - out.height) / 2)
    return p


def _block(ins: Sequence[Fit], stacked: bool) -> tuple[float, float, list[tuple[float, float]]]:
    """The inputs as one block: one above another (`stacked`, centred across) or side by side
    (centred up and down); its width, height and each input's place in it."""
    if stacked:
        w, h = max(f.width for f in ins), sum(f.height for f in ins) + GAP * (len(ins) - 1)
        places, y = [], 0.0
        for f in ins:
            places.append(((w - f.width) / 2, y))
            y += f.height + GAP
    else:
        w, h = sum(f.width for f in ins) + GAP * (len(ins) - 1), max(f.height for f in ins)
        places, x = [], 0.0
        for f in ins:
            places.append((x, (h - f.height) / 2))
            x += f.width + GAP
    return w, h, places


def _left(ins: list[Fit], out: Fit, width: float, height: float, aw: float, stacked: bool) -> SlidePlan:
    """The inputs' block on the left (a column, or side by side), the arrow, the result; the whole centred."""
    p = SlidePlan(width=width, height=height, arrangement="column" if stacked else "beside")
    block_w, block_h, places = _block(ins, stacked)
    x = (width - (block_w + GAP + aw + GAP + out.width)) / 2
    y = (height - block_h) / 2
    for f, (dx, dy) in zip(ins, places):
        p.panes[f.spec.name] = Placed(f, x + dx, y + dy)
    ax = x + block_w + GAP
    p.arrow = (ax, 0.0, aw, height, "→")
    p.panes[out.spec.name] = Placed(out, ax + aw + GAP, (height - out.height) / 2)
    return p


def _row(ins: list[Fit], out: Fit, width: float, height: float, ah: float) -> SlidePlan:
    """The inputs side by side on top, the arrow, the result below; the whole centred."""
    p = SlidePlan(width=width, height=height, arrangement="row")
    row_w, row_h, places = _block(ins, stacked=False)
    y = (height - (row_h + GAP + ah + GAP + out.height)) / 2
    x = (width - row_w) / 2
    for f, (dx, dy) in zip(ins, places):
        p.panes[f.spec.name] = Placed(f, x + dx, y + dy)
    ay = y + row_h + GAP
    p.arrow = (0.0, ay, width, ah, "↓")
    p.panes[out.spec.name] = Placed(out, (width - out.width) / 2, ay + ah + GAP)
    return p
