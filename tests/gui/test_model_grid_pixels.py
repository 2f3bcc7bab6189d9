"""The model view's cells are painted in the weights palette, each cell scaled by its own peak."""
from __future__ import annotations

import numpy as np

from app.models_view.grid import ModelGrid
from app.panes import colormaps


def test_each_weight_gets_the_palette_colour_of_its_share_of_the_cell_peak(qtbot):
    rng = np.random.default_rng(4)
    weights = rng.uniform(0, 1, size=(2, 3, 5, 5)).astype(np.float32)
    weights[1, 2] = 0.0  # a cell without weight stays at the palette's first colour
    grid = ModelGrid()
    qtbot.addWidget(grid)
    grid.set_weights(weights)
    lut = colormaps.palette("weights").lut
    for layer in range(2):
        for head in range(3):
            cell = weights[layer, head].astype(np.float64)
            peak = cell.max()
            index = np.floor(np.clip(cell / peak * 255 if peak > 0 else cell, 0, 255)).astype(int)
            r, g, b = (lut[index][..., c].astype(np.uint32) for c in range(3))
            want = np.uint32(0xFF000000) | (r << 16) | (g << 8) | b
            got = grid._buffers[layer, head]
            # float32 scaling may land a value a hair under an integer: at most one palette step apart
            assert np.mean(got == want) > 0.95 and got.dtype == np.uint32
            assert grid._images[layer][head].pixel(0, 0) == int(got[0, 0])
