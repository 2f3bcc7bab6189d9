"""Slides of FlashAttention's tiles: one tile per slide, full screen (F5 in the tiles dialog).

Slide 0 states the update rules; slide k shows tile k: its block of scores (masked cells grey, a
skipped tile said so) and, per query row of the tile, m_old, the tile's row maximum, m_new, the
correction exp(m_old − m_new), ℓ and O after it; the last slide is the proof (O / ℓ beside the
engine's weighted sum, the largest difference, the memory).  → / Space / Page Down next,
← / Page Up back, Home / End, Esc closes.  Every number is the walk's (attention/teaching/tiles.py).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from app.teaching.tiles_tables import ArrayModel
from attention import words

FONT_POINTS = 20


def _w(key: str, **args) -> str:
    return words.text(key, **args)


class TilesSlides(QWidget):
    """One tile per slide of a walk (`result`) for one batch item and head."""

    def __init__(self, result, b: int, h: int, start: int = 0, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.result, self.b, self.h = result, b, h
        font = QFont()
        font.setPointSize(FONT_POINTS)
        self.setFont(font)
        self.title = QLabel()
        self.title.setWordWrap(True)
        big = QFont(font)
        big.setBold(True)
        self.title.setFont(big)
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.scores = self._table()
        self.running = self._table()
        layout = QVBoxLayout(self)
        for w in (self.title, self.body, self.scores, self.running):
            layout.addWidget(w)
        layout.addStretch(1)
        self.setWindowTitle(_w("tiles.view.title"))
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.index = -1
        self.go(start)

    def _table(self) -> QTableView:
        view = QTableView()
        view.setModel(ArrayModel(view))
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        return view

    def count(self) -> int:
        """Slides: the rules, one per tile, the proof."""
        return len(self.result.tiles) + 2

    def go(self, index: int) -> None:
        self.index = max(0, min(self.count() - 1, index))
        n = len(self.result.tiles)
        if self.index == 0:
            self._rules()
        elif self.index <= n:
            self._tile(self.result.tiles[self.index - 1])
        else:
            self._proof()

    def _rules(self) -> None:
        r = self.result
        self.title.setText(_w("tiles.view.title"))
        self.body.setText("\n".join([_w("tiles.header", br=r.block_q, bc=r.block_k, nq=r.n_q, nk=r.n_k),
                                     _w("tiles.explain.m.formula"), _w("tiles.explain.l.formula"),
                                     _w("tiles.explain.O.formula"), "", _w("tiles.lesson")]))
        self.scores.hide()
        self.running.hide()

    def _tile(self, tile) -> None:
        from attention.datamodel.numbers import span as _span

        b, h = self.b, self.h
        self.title.setText(_w("tiles.tile", b=b + 1, h=h + 1, n=tile.order + 1, total=len(self.result.tiles),
                              i=tile.q_block + 1, j=tile.k_block + 1, rows=_span(*tile.rows), cols=_span(*tile.cols)))
        skipped = bool(tile.skipped[b, h])
        self.body.setText(_w("tiles.skipped") if skipped else _w("tiles.explain.l.formula"))
        keys = [_w("tiles.sheet.key", s=s + 1) for s in range(*tile.cols)]
        queries = [_w("tiles.sheet.query", r=r + 1) for r in range(*tile.rows)]
        self.scores.model().set_values(tile.scores[b, h], keys, rows=queries)
        self.scores.show()
        D = tile.O_new.shape[-1]
        table = np.column_stack([tile.m_old[b, h], tile.scores[b, h].max(axis=-1), tile.m_new[b, h],
                                 tile.correction[b, h], tile.l_new[b, h], tile.O_new[b, h]])
        cols = ["m_old", _w("tiles.sheet.block_max"), "m_new", "exp(m_old − m_new)", "ℓ"]
        self.running.model().set_values(table, cols + [f"O[{d + 1}]" for d in range(D)], rows=queries)
        self.running.setVisible(not skipped)

    def _proof(self) -> None:
        from attention.cli.tiles_cli import memory_lines
        from attention.datamodel import numbers
        from attention.teaching.tiles import largest_difference

        r, b, h = self.result, self.b, self.h
        self.title.setText(_w("tiles.view.proof"))
        diff = numbers.exact(largest_difference(r.output[b, h], r.exact[b, h]))
        self.body.setText("\n".join([_w("tiles.diff", diff=diff, dtype=r.dtype), _w("tiles.equal_note", dtype=r.dtype),
                                     *memory_lines(r, words.language())]))
        got, exact = r.output[b, h], r.exact[b, h]
        D = got.shape[1]
        both = np.empty((got.shape[0], 2 * D))
        both[:, 0::2], both[:, 1::2] = got, exact
        cols = []
        for d in range(D):
            cols += [f"{_w('tiles.view.tiled')} [{d + 1}]", f"{_w('tiles.view.exact')} [{d + 1}]"]
        self.scores.model().set_values(both, cols)
        self.scores.show()
        self.running.hide()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        key = Qt.Key(event.key())
        moves = {Qt.Key.Key_Right: 1, Qt.Key.Key_Space: 1, Qt.Key.Key_PageDown: 1,
                 Qt.Key.Key_Left: -1, Qt.Key.Key_PageUp: -1}
        if key in moves:
            self.go(self.index + moves[key])
        elif key == Qt.Key.Key_Home:
            self.go(0)
        elif key == Qt.Key.Key_End:
            self.go(self.count() - 1)
        elif key == Qt.Key.Key_Escape:
            self.close()
        else:
            super().keyPressEvent(event)
            return
        event.accept()
