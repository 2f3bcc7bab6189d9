"""What the engine's worker prepares for big panes (app/panes/prepared.py) is what pyqtgraph would draw.

A step showing the very numbers of another (masked_scores is the scores tensor when nothing is
masked) shares its picture, pixel for pixel pyqtgraph's picture of its own numbers; a masked one
gets its own.  The colour levels found without copies (every number finite) are the ones the
general path (NaN, ±inf) finds."""
from __future__ import annotations

import numpy as np
from pyqtgraph import functions_qimage
from PySide6.QtGui import QImage

import attention
from app.panes import colormaps, prepared
from app.viewmodel.color_scale import scale_for


def pixels(q: QImage) -> bytes:
    assert q.format() == QImage.Format.Format_ARGB32_Premultiplied
    return bytes(q.constBits())[: q.sizeInBytes()]


def pyqtgraph_pixels(image: np.ndarray, levels, lut) -> bytes:
    return pixels(prepared.fast_format(functions_qimage.try_make_qimage(image, levels=levels, lut=lut)))


def test_the_fast_levels_are_the_general_ones():
    rng = np.random.default_rng(3)
    for images in (rng.normal(size=(3, 20, 30)).astype(np.float32),
                   np.abs(rng.normal(size=(2, 5, 5))).astype(np.float32),
                   -np.abs(rng.normal(size=(1, 4, 9))).astype(np.float32), np.zeros((1, 3, 3), np.float32)):
        general = np.where(np.isfinite(images), images, np.nan)  # the same numbers by the general path
        padded = np.concatenate([general, np.full((1,) + images.shape[1:], np.nan, np.float32)])
        assert scale_for("signed", images) == scale_for("signed", padded)
        top = float(np.max(np.abs(images)))
        assert max(map(abs, scale_for("signed", images).levels)) >= top


def _big(causal: bool) -> attention.Scenario:
    rng = np.random.default_rng(0)
    L, d = 96, 16
    x = rng.normal(size=(1, L, d))
    return attention.Scenario(x, x.copy(), x.copy(), n_heads=8, causal=causal, dtype="float32")


def test_masked_scores_share_the_scores_picture_only_when_nothing_is_masked(qapp):
    for causal in (False, True):
        sc = _big(causal)
        trace = attention.run(sc)
        pics = prepared.prepare_trace(trace, sc, 0).panes
        scores, masked = pics["scores"], pics["masked_scores"]
        assert scores.qimages is not None and masked.qimages is not None
        assert (masked.qimages is scores.qimages) == (not causal)
        assert masked.data.step.id == "masked_scores"  # its own titles, whatever it shares
        # either way, what is drawn is pyqtgraph's picture of that step's own numbers
        lut = colormaps.palette(masked.palette_name).lut
        for m in (0, 7):
            assert pixels(masked.qimages[m]) == pyqtgraph_pixels(masked.images[m], masked.levels, lut)
