"""The slide's canvas plan (app/teaching/presentation/slide_layout.py), as arithmetic: whatever the
panes and the room, every pane lies inside the canvas, none overlaps another or the arrow, each is
exactly as large as its frame and cells make it, cells keep a readable shape, and legible numbers are
preferred where they fit.  Frames here are made up (the real ones are measured by ZoomedPane)."""
from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from app.teaching.presentation.slide_layout import (
    COLOUR_ASPECT,
    NUMBER_ASPECT,
    THIN_ROW,
    Frame,
    PaneSpec,
    pane_height,
    pane_width,
    plan,
)


def frame(fixed_w=120.0, fixed_h=130.0, head_h=30.0, gap=26.0, title=50.0) -> Frame:
    return Frame(fixed_w=fixed_w, head_w=14.0, fixed_h=lambda w: fixed_h, head_h=head_h, band_gap=gap,
                 head_min_w=title)


def specs(draw, name: str) -> PaneSpec:
    heads = draw(st.integers(1, 8))
    rows, cols = draw(st.integers(1, 96)), draw(st.integers(1, 96))
    legible = draw(st.one_of(st.none(), st.tuples(st.floats(20, 110), st.floats(25, 40))))
    f = frame(draw(st.floats(60, 220)), draw(st.floats(40, 200)), draw(st.floats(0, 60)), draw(st.floats(0, 30)),
              draw(st.floats(0, 160)))
    full = legible[0] * 1.2 if legible else 0.0
    return PaneSpec(name, heads, rows, cols, f, legible, None, full)


@st.composite
def slides(draw):
    out = specs(draw, "out")
    ins = [specs(draw, f"in{i}") for i in range(draw(st.integers(0, 3)))]
    room = draw(st.floats(500, 1900)), draw(st.floats(300, 1000))
    return out, ins, room


def _rect(placed) -> tuple[float, float, float, float]:
    return placed.x, placed.y, placed.x + placed.fit.width, placed.y + placed.fit.height


def _overlap(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


@settings(max_examples=150, deadline=None)
@given(slides())
def test_every_pane_lies_inside_the_canvas_and_none_overlaps(slide):
    out, ins, (w, h) = slide
    p = plan(w, h, [out], ins, (50.0, 56.0), cap=80.0)
    if not p.panes:  # nothing fits (tiny room, huge frames): nothing is placed at all
        return
    assert set(p.panes) == {s.name for s in [out, *ins]}
    rects = {name: _rect(placed) for name, placed in p.panes.items()}
    for name, (x0, y0, x1, y1) in rects.items():
        assert -0.5 <= x0 and x1 <= w + 0.5 and -0.5 <= y0 and y1 <= h + 0.5, (name, (x0, y0, x1, y1), (w, h))
        fit = p.panes[name].fit
        # as large as its frame and cells make it (the pane is given exactly that size)
        assert math.isclose(fit.width, pane_width(fit.spec, fit.per_row, fit.cell_w), rel_tol=1e-9)
        assert math.isclose(fit.height, pane_height(fit.spec, fit.per_row, fit.cell_h, fit.width), rel_tol=1e-9)
        assert 1 <= fit.per_row <= fit.spec.heads
        # a readable shape: near square in colour, wider for numbers (never a bar from a wide title)
        lo, hi = NUMBER_ASPECT if fit.legible else COLOUR_ASPECT
        assert fit.cell_w <= fit.cell_h * max(hi, 1.0) + 1e-6 or (fit.legible and fit.cell_w <= fit.spec.full_w + 1e-6)
        # colour cells narrower than near square only in a row no taller than THIN_ROW of a matrix that stays
        # at least as wide as tall (a strip of features; a square matrix stays square)
        assert fit.legible or fit.cell_w >= fit.cell_h * lo - 1e-6 or (
            fit.cell_h <= THIN_ROW + 1e-6 and fit.spec.cols * fit.cell_w >= fit.spec.rows * fit.cell_h - 1e-6)
        if fit.legible:
            assert fit.cell_w >= fit.spec.legible[0] - 1e-6 and fit.cell_h >= fit.spec.legible[1] - 1e-6
    names = list(rects)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not _overlap(rects[a], rects[b]), (a, b, rects)
    if p.arrow is not None and ins:
        x, y, aw, ah, _ = p.arrow
        arrow = (x, y, x + aw, y + ah)
        assert not any(_overlap(arrow, r) for r in rects.values())


def test_the_toys_scores_get_legible_numbers_at_full_precision():
    """Two heads of 4 x 4 beside two inputs of two 4 x 2 heads, in the room a 1280 x 720 slide leaves."""
    need = (54.0, 33.0)
    out = PaneSpec("scores", 2, 4, 4, frame(170, 145, 32, 28, 57), need, None, 73.0)
    ins = [PaneSpec(n, 2, 4, 2, frame(155, 113, 27, 26, 51), need, None, 73.0) for n in ("q", "k")]
    p = plan(1248, 345, [out], ins, (60.0, 70.0), cap=70.0)
    fit = p.panes["scores"].fit
    assert fit.legible and fit.full and fit.cell_w >= 73.0 and fit.cell_h >= 33.0


def test_a_matrix_too_large_for_numbers_is_drawn_in_near_square_colour_cells():
    out = PaneSpec("weights", 1, 96, 96, frame(), (60.0, 33.0), None, 70.0)
    fit = plan(900, 500, [out], [], (60.0, 70.0), cap=70.0).panes["weights"].fit
    assert not fit.legible
    assert COLOUR_ASPECT[0] - 1e-9 <= fit.cell_w / fit.cell_h <= COLOUR_ASPECT[1] + 1e-9
    assert fit.height <= 500 - 20 + 1e-6  # the canvas's gaps kept


def test_more_room_never_gives_smaller_cells_to_a_lone_result():
    out = PaneSpec("scores", 8, 28, 28, frame(), None)
    # the cells' readable size: their smaller side
    sizes = [plan(w, h, [out], [], (60.0, 70.0), cap=200.0).panes["scores"].fit.size_key()
             for w, h in ((800, 450), (1248, 480), (1334, 530), (1888, 760))]
    assert sizes == sorted(sizes), sizes


def test_a_long_row_of_features_is_a_strip_of_rows_not_lines_of_pixels():
    """Gemma 3's split queries (8 heads of 10 tokens x 256 features) and the projection they come from
    (10 x 2048) beside them: each token's row several px tall, the input drawn, not left off."""
    out = PaneSpec("split", 8, 10, 256, frame(), (60.0, 33.0), None, 70.0)
    ins = [PaneSpec("projection", 1, 10, 2048, frame(), (60.0, 33.0), None, 70.0)]
    p = plan(1248, 345, [out], ins, (60.0, 70.0), cap=70.0)
    assert set(p.panes) == {"split", "projection"} and not p.dropped
    split, projection = p.panes["split"].fit, p.panes["projection"].fit
    assert projection.cell_h >= 8
    # a head's 10 x 256 as a picture as tall as wide (the most a thin row may stretch), not a line
    assert split.cell_h >= 6 and split.cell_h * 10 <= split.cell_w * 256 + 1e-6
    assert not any(placed.fit.legible for placed in p.panes.values())
