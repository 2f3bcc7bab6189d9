"""The KV cache panes of a decoder in the Model dock: "Next token", the cached K and V, the new query's row.

A view only: `show(generation, layer, head)` draws what attention.models.kv_cache.Generation holds —
the cached key projections K (S × E, before RoPE) and values V (S × E) of the key/value head the picked
query head reads, the new query's 1 × S weight row, and the check (cached decoding vs full
recomputation).  A large decoder's app.viewmodel.decoder_session.CachedGeneration is shown the same way:
its K are the model's own cache, after RoPE, and its check (float32) arrives later from the worker.
The button and the sampling choice are read by app.models_view.tools.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.panes import colormaps
from app.panes.paint_guard import guarded
from app.services import i18n
from attention import words
from attention.datamodel import numbers

#: the cached K and V panes' height under a grid of many layers (CachePanel.compact)
COMPACT_HEIGHT = 48


class MatrixImage(QWidget):
    """One small matrix as a heatmap (signed values: diverging map around 0; weights: 0..max)."""

    hovered = Signal(str)
    MIN_HEIGHT = 18

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setMinimumHeight(self.MIN_HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.values = np.zeros((0, 0))
        self._image: Optional[QImage] = None
        self._buffer: Optional[np.ndarray] = None
        self.row_labels: list[str] = []

    def set_values(self, values: np.ndarray, kind: str) -> None:
        v = np.asarray(values, dtype=np.float64)
        self.values = v
        if kind == "weights":
            lv = (0.0, float(v.max()) if v.size and v.max() > 0 else 1.0)
        else:
            m = float(np.abs(v).max()) if v.size else 1.0
            lv = (-m, m) if m > 0 else (-1.0, 1.0)
        lut = colormaps.palette(kind).lut.astype(np.uint32)
        argb = (0xFF000000 | (lut[:, 0] << 16) | (lut[:, 1] << 8) | lut[:, 2]).astype(np.uint32)
        self._buffer = np.ascontiguousarray(argb[colormaps.lut_index(v, lv)])
        rows, cols = v.shape
        self._image = QImage(self._buffer.data, cols, rows, 4 * cols, QImage.Format.Format_RGB32) if v.size else None
        self.update()

    @guarded
    def paintEvent(self, event) -> None:
        p = QPainter(self)
        try:
            p.fillRect(self.rect(), QColor("#fafafa"))
            if self._image is not None:
                p.drawImage(QRect(0, 0, self.width(), self.height()), self._image)
        finally:
            p.end()

    def at(self, x: float, y: float) -> Optional[tuple[int, int]]:
        rows, cols = self.values.shape
        if not rows or not cols or self.width() <= 0 or self.height() <= 0:
            return None
        r, c = int(y * rows / self.height()), int(x * cols / self.width())
        return (r, c) if 0 <= r < rows and 0 <= c < cols else None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        where = self.at(event.position().x(), event.position().y())
        if where is None:
            self.hovered.emit("")
            return
        r, c = where
        label = self.row_labels[r] if r < len(self.row_labels) else str(r + 1)
        text = f"[{label}, {c + 1}] = {numbers.rounded(self.values[r, c])}"
        self.setToolTip(text)
        self.hovered.emit(text)


class CachePanel(QWidget):
    nextRequested = Signal()

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.next_button = QPushButton()
        self.next_button.clicked.connect(self.nextRequested)
        self.mode = QComboBox()
        self.mode.addItems(["", ""])
        self.mode.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.mode.setMinimumContentsLength(6)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2_147_483_647)
        self.seed_label = QLabel()
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.k_label, self.v_label, self.row_label = QLabel(), QLabel(), QLabel()
        self.keys, self.values, self.row = MatrixImage(), MatrixImage(), MatrixImage()
        self.row.setMaximumHeight(22)
        self.check = QLabel()
        self.check.setWordWrap(True)
        self.check.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hover = QLabel()
        for m in (self.keys, self.values, self.row):
            m.hovered.connect(self.hover.setText)
        self.mode.currentIndexChanged.connect(lambda i: self.seed.setEnabled(i == 1))
        self.seed.setEnabled(False)
        top = QHBoxLayout()  # two short rows: side by side they widened the dock (and narrowed the Steps column)
        for w in (self.next_button, self.mode):
            top.addWidget(w)
        top.addStretch(1)
        seed_row = QHBoxLayout()
        for w in (self.seed_label, self.seed):
            seed_row.addWidget(w)
        seed_row.addStretch(1)
        for label in (self.k_label, self.v_label, self.row_label):
            label.setWordWrap(True)
        panes = QGridLayout()
        panes.addWidget(self.k_label, 0, 0)
        panes.addWidget(self.v_label, 0, 1)
        panes.addWidget(self.keys, 1, 0)
        panes.addWidget(self.values, 1, 1)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.addLayout(top)
        v.addLayout(seed_row)
        v.addWidget(self.title)
        v.addLayout(panes, 1)
        v.addWidget(self.row_label)
        v.addWidget(self.row)
        v.addWidget(self.check)
        v.addWidget(self.hover)
        self.retranslate()
        self.show_generation(None, 0, 0, [])

    def compact(self, on: bool) -> None:
        """Under a grid of many layers (SmolLM2's 30 rows): the K and V panes keep a small height, and the Model
        dock (ModelPanel.compact) leaves its spare height to the grid; the labels keep the lines they need."""
        for m in (self.keys, self.values):  # never squeezed to a line: the page scrolls instead
            m.setMinimumHeight(COMPACT_HEIGHT if on else MatrixImage.MIN_HEIGHT)
            m.setMaximumHeight(COMPACT_HEIGHT if on else 16777215)  # QWIDGETSIZE_MAX

    def sampling(self) -> tuple[bool, int]:
        """(sample, seed): greedy, or seeded sampling."""
        return self.mode.currentIndex() == 1, int(self.seed.value())

    def show_generation(self, g, layer: int, head: int, tokens: list[str], diff: Optional[float] = None) -> None:
        """The cache of `layer` as the query head `head` reads it (-1: head 1), and the last step's row."""
        has = g is not None and bool(g.keys)
        for w in (self.title, self.k_label, self.v_label, self.keys, self.values, self.row_label, self.row,
                  self.check):
            w.setVisible(has)
        if not has:
            return
        c = getattr(g, "config", None) or g.model.config  # a single layer's cache has no model around it
        h = max(head, 0)
        kv = h // (c.n_heads // c.n_kv_heads)
        E = c.head_dim
        K = g.keys[layer][0, :, kv * E:(kv + 1) * E]  # (S, E)
        V = g.values[layer][0, :, kv * E:(kv + 1) * E]
        self.title.setText(self.tr("Layer {0}: cache of {1} positions; query head {2} reads key/value head {3}")
                           .format(layer + 1, K.shape[0], h + 1, kv + 1))
        lang = i18n.current_language()
        rotated = getattr(g, "rope_applied", False)
        self.k_label.setText(words.text("gguf_cache_k_rotated", lang) if rotated
                             else self.tr("Cached K (positions × E, before RoPE)"))
        self.keys.row_labels = self.values.row_labels = list(tokens)
        self.keys.set_values(K, "signed")
        self.values.set_values(V, "signed")
        if g.last is not None and layer < len(g.last.rows):
            self.row.set_values(g.last.rows[layer][0, h], "weights")  # (1, S)
            self.row.row_labels = [g.last.label]
            self.row_label.setText(self.tr("New query {0} (position {1}): its 1 × {2} weight row").format(
                repr(g.last.label), g.last.position + 1, K.shape[0]))
        else:
            self.row.set_values(np.zeros((0, 0)), "weights")
            self.row_label.setText(self.tr("Press Next token: the new query's row appears here"))
        if diff is not None and getattr(g, "float32", False):
            self.check.setText(words.text("gguf_check_f32", lang, diff=numbers.rounded(diff)))
        elif diff is not None:
            self.check.setText(self.tr("Cached decoding vs full recomputation: largest difference {0} "
                                       "(must be ≤ 1e-6)").format(numbers.rounded(diff)))
        elif getattr(g, "checking", False):
            self.check.setText(words.text("gguf_checking", lang))
        else:
            self.check.setText("")

    def retranslate(self) -> None:
        self.next_button.setText(self.tr("Next token"))
        self.next_button.setToolTip(self.tr("Append the next token and run only its position through the KV cache"))
        self.mode.setItemText(0, self.tr("Greedy"))
        self.mode.setItemText(1, self.tr("Sampled (seed)"))
        self.seed_label.setText(self.tr("Seed"))
        self.k_label.setText(self.tr("Cached K (positions × E, before RoPE)"))
        self.v_label.setText(self.tr("Cached V (positions × E)"))
