"""What-if sliders without Qt: how a slider's integer position maps to a scale or a cell value.

A QSlider moves in whole steps (0..STEPS); the value it stands for is worked out here so that the
mapping is tested without a window.  The middle position is always the value the slider was
set up around, exactly (a slider left in the middle changes nothing).

- The scale (the factor on every score before softmax; 1/temperature) moves on a log scale,
  from the centre / SCALE_SPAN to the centre * SCALE_SPAN: the softmax sharpens to the right
  and flattens to the left, and a scale never crosses zero while dragging.
- A cell moves linearly, centre +- max(CELL_MIN_SPAN, 2 * |centre|).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

STEPS = 1000
MIDDLE = STEPS // 2
SCALE_SPAN = 8.0
CELL_MIN_SPAN = 2.0


def _tidy(value: float, step: float) -> float:
    """`value` rounded to the digits a slider step can tell apart (0.3536..., not 0.35355339...)."""
    if value == 0 or step <= 0 or not math.isfinite(value):
        return value
    digits = max(0, 1 - math.floor(math.log10(step)))
    return round(value, min(digits, 15))


@dataclass(frozen=True)
class ScaleRange:
    """A log-scale slider around `centre` (> 0)."""

    centre: float

    @staticmethod
    def around(current: float, default: float) -> "ScaleRange":
        """Centred on the default scale when the current one is in reach of it, else on the current one."""
        centre = default if default > 0 and math.isfinite(default) else 1.0
        if current > 0 and math.isfinite(current) and not centre / SCALE_SPAN <= current <= centre * SCALE_SPAN:
            centre = current
        return ScaleRange(centre)

    def value(self, pos: int) -> float:
        if pos == MIDDLE:
            return self.centre
        v = self.centre * SCALE_SPAN ** ((pos - MIDDLE) / MIDDLE)
        return _tidy(v, v * math.log(SCALE_SPAN) / MIDDLE)

    def position(self, value: float) -> int:
        """The nearest position (the ends for values out of reach, zero and negative ones)."""
        if not (value > 0 and math.isfinite(value)):
            return 0
        pos = MIDDLE + MIDDLE * math.log(value / self.centre) / math.log(SCALE_SPAN)
        return int(min(max(round(pos), 0), STEPS))

    def contains(self, value: float) -> bool:
        return value > 0 and self.centre / SCALE_SPAN * (1 - 1e-12) <= value <= self.centre * SCALE_SPAN * (1 + 1e-12)


@dataclass(frozen=True)
class CellRange:
    """A linear slider around `centre`."""

    centre: float

    @property
    def span(self) -> float:
        return max(CELL_MIN_SPAN, 2.0 * abs(self.centre))

    def value(self, pos: int) -> float:
        if pos == MIDDLE:
            return self.centre
        step = self.span / MIDDLE
        return _tidy(self.centre + (pos - MIDDLE) * step, step)

    def position(self, value: float) -> int:
        if not math.isfinite(value):
            return MIDDLE
        pos = MIDDLE + (value - self.centre) / self.span * MIDDLE
        return int(min(max(round(pos), 0), STEPS))

    def contains(self, value: float) -> bool:
        return math.isfinite(value) and abs(value - self.centre) <= self.span
