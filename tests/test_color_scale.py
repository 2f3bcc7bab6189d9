"""Which colour map and levels a pane gets (app/viewmodel/color_scale.py), Qt-free.

Expected scales are worked out by hand here: the largest magnitude, rounded up to the next of
1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten."""
from __future__ import annotations

import math

import numpy as np
import pytest

from app.viewmodel.color_scale import ColourScale, outside, scale_for


def stack(*rows):
    return np.array([rows], dtype=np.float32)  # one matrix (1, rows, cols)


def test_both_signs_get_the_diverging_map_centred_at_zero():
    assert scale_for("signed", stack([-0.5, 2.2], [1.0, 0.0])) == ColourScale("signed", (-2.5, 2.5))


def test_all_positive_numbers_get_a_sequential_map_from_zero():
    # weights-like numbers, all >= 0: white at 0, full colour at the top (not half a diverging map)
    assert scale_for("signed", stack([0.0, 0.3], [0.9, 0.1])) == ColourScale("positive", (0.0, 1.0))
    assert scale_for("signed", stack([7.0, 21.7])) == ColourScale("positive", (0.0, 25.0))


def test_all_negative_numbers_get_a_sequential_map_up_to_zero():
    assert scale_for("signed", stack([-3.1, -0.2], [0.0, -1.0])) == ColourScale("negative", (-4.0, 0.0))


def test_all_zero_stays_diverging():
    assert scale_for("signed", stack([0.0, 0.0])) == ColourScale("signed", (-1.0, 1.0))


def test_masked_fills_do_not_decide_the_sign_or_the_size():
    img = stack([1.5, -1e6], [0.5, 2.0])
    masked = np.array([[False, True], [False, False]])
    assert scale_for("signed", img, masked) == ColourScale("positive", (0.0, 2.0))
    assert scale_for("signed", img) == ColourScale("signed", (-1e6, 1e6))


def test_an_unmasked_infinity_counts_for_its_sign_but_not_its_size():
    assert scale_for("signed", stack([-math.inf, 0.7])) == ColourScale("signed", (-0.8, 0.8))


def test_fixed_kinds():
    assert scale_for("weights", stack([0.2, 0.8])) == ColourScale("weights", (0.0, 1.0))
    assert scale_for("bool", stack([0.0, 1.0])) == ColourScale("bool", (0.0, 1.0))
    assert scale_for("count", stack([0.0, 3.0])) == ColourScale("count", (0.0, 3.0))
    assert scale_for("index", stack([0.0, 0.0])) == ColourScale("index", (0.0, 1.0))


def test_outside_counts_numbers_below_and_above_a_locked_scale():
    locked = ColourScale("signed", (-2.0, 2.0))
    img = stack([5.0, -3.0, 1.0], [2.0, math.nan, 9.0])
    assert outside(locked, img) == (1, 2)  # -3 below; 5 and 9 above; NaN and the end 2.0 are not outside
    masked = np.array([[True, False, False], [False, False, False]])
    assert outside(locked, img, masked) == (1, 1)


@pytest.mark.parametrize("kind", ["signed", "weights", "count"])
def test_empty_matrices_have_a_scale(kind):
    sc = scale_for(kind, np.zeros((1, 0, 3), np.float32))
    assert sc.levels[0] < sc.levels[1]
