"""View ▸ FlashAttention tiles…: the scores walked tile by tile with FlashAttention's online softmax.

A non-modal dialog over the window's current trace.  The scores of one batch item and head are
drawn as tiles (pyqtgraph); a cursor walks them in FlashAttention-2 order (each query block over
every key block): Forward / Back (→ / ←, Space), First / Last (Home / End), Play at a chosen
number of tiles per second.  Tiles not reached yet are greyed, skipped ones (every cell masked)
hatched.  Beside it the running row maximum m, the running sum ℓ and the running output O (not
yet divided) of every query after the current step, the block being updated highlighted; a
click on one of their cells explains that value's last update with its numbers
(attention/teaching/tiles_explain.py).  After the last tile, the proof: O / ℓ beside the engine's
weighted sum, the largest difference and the memory figures.

All arithmetic is attention/teaching/tiles.py's; this module only shows it.  Words: attention/words/tiles.py.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QBrush, QColor, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDoubleSpinBox,
    QGraphicsRectItem,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.features import FeatureHost
from app.panes import colormaps
from app.services import window_fit
from app.teaching import tiles_quiz
from app.teaching.tiles_tables import ArrayModel
from attention import words
from attention.datamodel import numbers
from attention.teaching.tiles import MAX_BLOCKS  # at most this many query and key blocks (the CLI's bound too)

#: the dialog's size where the screen has room (less on a 1280 x 720 projector: app.services.window_fit)
PREFERRED = QSize(1100, 760)
#: Cells get their number written in them up to this many cells (L x S).
MAX_TEXT_CELLS = 144
#: Masked cells and tiles not reached yet are drawn in these greys.
MASKED_RGB = (225, 225, 225)
FUTURE_ALPHA = 0.7


def _w(key: str, **args) -> str:
    return words.text(key, **args)


class TilesView(QWidget):
    """The dialog's contents: controls, the tiled scores, the running values, explain and proof."""

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.trace = None
        self.result = None
        self.step = 0  # 0: before the first tile; k: after tile k - 1
        self.answered: set[int] = set()  # quiz: steps whose question was checked (their values shown)
        self.slides = None
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)
        self._build()
        self._keys()
        self.retranslate()

    def _keys(self) -> None:
        """→ / Space forward, ← back, Home / End: anywhere in the dialog (buttons never take the focus)."""
        for key, slot in (("Right", self.forward), ("Space", self.forward), ("Left", self.back),
                          ("Home", self.first), ("End", self.last), ("F5", self.open_slides)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)

    # ---- building -------------------------------------------------------------------------------
    def _spin(self, lo: int = 1) -> QSpinBox:
        s = QSpinBox()
        s.setRange(lo, 1)
        s.setKeyboardTracking(False)
        return s

    def _button(self, slot) -> QPushButton:
        b = QPushButton()
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the arrow keys stay the dialog's
        b.clicked.connect(slot)
        return b

    def _build(self) -> None:
        self.block_q, self.block_k = self._spin(), self._spin()
        self.batch, self.head = self._spin(), self._spin()
        self.labels = {k: QLabel() for k in ("block_q", "block_k", "batch", "head", "speed")}
        controls = QHBoxLayout()
        for key, spin in (("block_q", self.block_q), ("block_k", self.block_k), ("batch", self.batch),
                          ("head", self.head)):
            controls.addWidget(self.labels[key])
            controls.addWidget(spin)
        controls.addStretch(1)
        self.block_q.valueChanged.connect(lambda _v: self._retile())
        self.block_k.valueChanged.connect(lambda _v: self._retile())
        self.batch.valueChanged.connect(lambda _v: self._redraw(image=True))
        self.head.valueChanged.connect(lambda _v: self._redraw(image=True))

        self.first_button = self._button(self.first)
        self.back_button = self._button(self.back)
        self.forward_button = self._button(self.forward)
        self.last_button = self._button(self.last)
        self.play_button = self._button(self.toggle_play)
        self.slides_button = self._button(self.open_slides)
        self.worksheet_button = self._button(self.export_worksheet)
        self.quiz = QCheckBox()
        self.quiz.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.quiz.toggled.connect(lambda _on: self._redraw())
        self.speed = QDoubleSpinBox()
        self.speed.setRange(0.25, 60.0)
        self.speed.setValue(2.0)
        self.speed.setSingleStep(0.5)
        self.speed.valueChanged.connect(self._set_speed)
        self.position = QLabel()
        nav = QHBoxLayout()
        for b in (self.first_button, self.back_button, self.forward_button, self.last_button, self.play_button):
            nav.addWidget(b)
        nav.addWidget(self.labels["speed"])
        nav.addWidget(self.speed)
        nav.addWidget(self.position, 1)
        nav.addWidget(self.quiz)
        nav.addWidget(self.slides_button)
        nav.addWidget(self.worksheet_button)

        self.note = QLabel()  # a kind the tiles do not apply to says so here
        self.note.setWordWrap(True)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.quiz_row = tiles_quiz.QuizRow()
        self.quiz_row.submitted.connect(self.check_answer)
        self.question, self.answer = self.quiz_row.question, self.quiz_row.answer
        self.check_button, self.feedback = self.quiz_row.check_button, self.quiz_row.feedback
        self.quiz_row.hide()

        self.plot = pg.PlotWidget()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(False, False)
        self.plot.hideButtons()
        self.plot.invertY(True)  # query 1 at the top, as the panes
        self.plot.setAspectLocked(False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self._texts: list[pg.TextItem] = []
        self.scores_title = QLabel()
        self._tile_items: list[QGraphicsRectItem] = []
        self.cursor = QGraphicsRectItem()
        self.cursor.setPen(pg.mkPen((220, 30, 30), width=3, cosmetic=True))
        self.cursor.setZValue(10)
        self.plot.addItem(self.cursor)

        self.tables = {}
        self.table_titles = {}
        grid = QGridLayout()
        for col, key in enumerate(("m", "l", "O")):
            view = QTableView()
            view.setModel(ArrayModel(view))
            view.verticalHeader().setDefaultSectionSize(22)
            view.horizontalHeader().setDefaultSectionSize(64)
            view.clicked.connect(lambda index, k=key: self.explain_cell(k, index.row(), index.column()))
            self.tables[key] = view
            self.table_titles[key] = QLabel()
            grid.addWidget(self.table_titles[key], 0, col)
            grid.addWidget(view, 1, col)
        grid.setColumnStretch(2, 2)
        running = QWidget()
        running.setLayout(grid)

        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.scores_title)
        lv.addWidget(self.plot, 1)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(running)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)

        self.explain_box = QPlainTextEdit()
        self.explain_box.setReadOnly(True)
        self.proof_title = QLabel()
        self.proof = QTableView()
        self.proof.setModel(ArrayModel(self.proof))
        self.proof_text = QLabel()
        self.proof_text.setWordWrap(True)
        self.proof_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bottom = QHBoxLayout()
        bottom.addWidget(self.explain_box, 3)
        proof_box = QVBoxLayout()
        proof_box.addWidget(self.proof_title)
        proof_box.addWidget(self.proof, 1)
        proof_box.addWidget(self.proof_text)
        bottom.addLayout(proof_box, 2)

        root = QVBoxLayout(self)
        root.addLayout(controls)
        root.addLayout(nav)
        root.addWidget(self.note)
        root.addWidget(split, 3)
        root.addWidget(self.status)
        root.addWidget(self.quiz_row)
        root.addLayout(bottom, 2)

    def retranslate(self) -> None:
        for key, label in self.labels.items():
            label.setText(_w(f"tiles.view.{key}"))
        self.first_button.setText(_w("tiles.view.first"))
        self.back_button.setText(_w("tiles.view.back"))
        self.forward_button.setText(_w("tiles.view.forward"))
        self.last_button.setText(_w("tiles.view.last"))
        self.play_button.setText(_w("tiles.view.pause" if self.timer.isActive() else "tiles.view.play"))
        self.slides_button.setText(_w("tiles.view.slides"))
        self.worksheet_button.setText(_w("tiles.view.worksheet"))
        self.quiz.setText(_w("tiles.view.quiz"))
        self.quiz_row.retranslate()
        self.scores_title.setText(_w("tiles.view.scores"))
        self.table_titles["m"].setText(_w("tiles.row_max"))
        self.table_titles["l"].setText(_w("tiles.row_sum"))
        self.table_titles["O"].setText(_w("tiles.running_output"))
        self.proof_title.setText(_w("tiles.view.proof"))
        if self.trace is not None:
            self._retile()

    # ---- the trace and the walk -----------------------------------------------------------------
    def set_trace(self, trace) -> None:
        """Show `trace`'s tiles (blocks kept where they still fit; default ~2 x 3 the first time)."""
        from attention.teaching.tiles import default_blocks

        first = self.trace is None
        self.trace = trace
        B, H, L, S = trace["masked_scores"].shape
        lowest = (-(-L // MAX_BLOCKS), -(-S // MAX_BLOCKS), 1, 1)  # at most MAX_BLOCKS x MAX_BLOCKS tiles
        for spin, low, top in zip((self.block_q, self.block_k, self.batch, self.head), lowest, (L, S, B, H)):
            spin.blockSignals(True)
            spin.setRange(low, max(low, top))
            spin.blockSignals(False)
        if first:
            br, bc = default_blocks(L, S)
            for spin, v in ((self.block_q, br), (self.block_k, bc)):
                spin.blockSignals(True)
                spin.setValue(v)
                spin.blockSignals(False)
        self._retile()

    def _retile(self) -> None:
        from attention.teaching.tiles import TilesError, tiled

        self.pause()
        try:
            self.result = tiled(self.trace, self.block_q.value(), self.block_k.value())
        except TilesError as e:
            self.result = None
            self.note.setText(e.text(words.language()))
            self.note.show()
        except Exception as e:  # noqa: BLE001 - one line in the dialog, never a traceback in a slot
            self.result = None
            self.note.setText(f"{type(e).__name__}: {e}")
            self.note.show()
        else:
            self.note.hide()
        self.answered.clear()
        for w in (self.first_button, self.back_button, self.forward_button, self.last_button, self.play_button,
                  self.speed, self.block_q, self.block_k, self.slides_button, self.quiz, self.worksheet_button):
            w.setEnabled(self.result is not None)
        self.step = min(self.step, self.total())
        self._redraw(image=True)

    def total(self) -> int:
        return 0 if self.result is None else len(self.result.tiles)

    def b(self) -> int:
        return self.batch.value() - 1

    def h(self) -> int:
        return self.head.value() - 1

    def go(self, step: int) -> None:
        """Show the state after `step` tiles (0: before the first)."""
        self.step = max(0, min(self.total(), step))
        self._redraw()

    def forward(self) -> None:
        self.go(self.step + 1)

    def back(self) -> None:
        self.go(self.step - 1)

    def first(self) -> None:
        self.pause()
        self.go(0)

    def last(self) -> None:
        self.pause()
        self.go(self.total())

    def toggle_play(self) -> None:
        if self.timer.isActive():
            self.pause()
            return
        if self.step >= self.total():
            self.step = 0
        self._set_speed(self.speed.value())
        self.timer.start()
        self.play_button.setText(_w("tiles.view.pause"))

    def pause(self) -> None:
        self.timer.stop()
        self.play_button.setText(_w("tiles.view.play"))

    def _set_speed(self, per_second: float) -> None:
        self.timer.setInterval(max(1, int(round(1000.0 / per_second))))

    def _tick(self) -> None:
        if self.step >= self.total():
            self.pause()
            return
        self.forward()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        keys = {Qt.Key.Key_Right: self.forward, Qt.Key.Key_Space: self.forward, Qt.Key.Key_Left: self.back,
                Qt.Key.Key_Home: self.first, Qt.Key.Key_End: self.last}
        action = keys.get(Qt.Key(event.key()))
        if action is None or self.result is None:
            super().keyPressEvent(event)
            return
        action()
        event.accept()

    # ---- what the state is after a step ---------------------------------------------------------
    def state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Running m (L,), l (L,), O (L, D) of the shown batch item and head after `step` tiles."""
        B, H, L, S, D = self.result.shape
        m = np.full(L, -np.inf)
        l_ = np.zeros(L)
        O = np.zeros((L, D))
        b, h = self.b(), self.h()
        done = self.result.tiles[:self.step]
        latest = {}
        for t in done:  # the last tile each query block has had
            latest[t.q_block] = t
        for t in latest.values():
            r0, r1 = t.rows
            m[r0:r1], l_[r0:r1], O[r0:r1] = t.m_new[b, h], t.l_new[b, h], t.O_new[b, h]
        return m, l_, O

    def current(self):
        """The tile just taken (None before the first)."""
        return None if self.step == 0 or self.result is None else self.result.tiles[self.step - 1]

    # ---- drawing ---------------------------------------------------------------------------------
    def _redraw(self, image: bool = False) -> None:
        if self.result is None:
            self.image.clear()
            for item in self._tile_items:
                item.hide()
            self.cursor.hide()
            self.position.setText("")
            return
        if image:
            self._draw_image()
        self._draw_tiles()
        self._draw_tables()
        self._draw_proof()

    def _draw_image(self) -> None:
        """The masked scores of the shown head as colours (masked cells grey), once per trace/head."""
        trace_scores = self.trace.array("masked_scores")[self.b(), self.h()]  # (L, S)
        mask = self.trace.array("extra.mask")[self.b()] if "extra.mask" in self.trace else np.zeros(
            trace_scores.shape, dtype=bool)
        shown = np.where(mask, 0.0, trace_scores.astype(np.float64))
        top = float(np.abs(shown).max(initial=0.0)) or 1.0
        lut = colormaps.palette("signed").lut
        idx = np.clip(((shown / top + 1) / 2 * 255).round(), 0, 255).astype(np.intp)
        rgb = lut[idx].astype(np.uint8)
        rgb[mask] = MASKED_RGB
        self.colours = rgb  # (L, S, 3)
        L, S = shown.shape
        self.plot.setRange(xRange=(0, S), yRange=(0, L), padding=0.02)
        for axis, n in (("bottom", S), ("left", L)):  # cells counted from 1, ticks at their middles
            step = max(1, n // 16)
            self.plot.getAxis(axis).setTicks([[(i + 0.5, str(i + 1)) for i in range(0, n, step)]])
        self._make_tile_items()
        self._write_numbers(trace_scores, mask)

    def _write_numbers(self, scores: np.ndarray, mask: np.ndarray) -> None:
        """Each cell's score in it, where there are few enough cells to read them."""
        for item in self._texts:
            self.plot.removeItem(item)
        self._texts = []
        L, S = scores.shape
        if L * S > MAX_TEXT_CELLS:
            return
        for r in range(L):
            for c in range(S):
                item = pg.TextItem(numbers.rounded(scores[r, c], 3), color=(20, 20, 20), anchor=(0.5, 0.5))
                item.setPos(c + 0.5, r + 0.5)
                item.setZValue(6)
                self.plot.addItem(item)
                self._texts.append(item)

    def _make_tile_items(self) -> None:
        """One rectangle per tile: its border, greyed when not reached, hatched when skipped."""
        for item in self._tile_items:
            self.plot.removeItem(item)
        self._tile_items = []
        for t in self.result.tiles:
            (r0, r1), (c0, c1) = t.rows, t.cols
            item = QGraphicsRectItem(QRectF(c0, r0, c1 - c0, r1 - r0))
            item.setPen(pg.mkPen((60, 60, 60), width=1, cosmetic=True))
            item.setZValue(5)
            self.plot.addItem(item)
            self._tile_items.append(item)

    def _draw_tiles(self) -> None:
        b, h = self.b(), self.h()
        rgb = self.colours.astype(np.float32)
        for t, item in zip(self.result.tiles, self._tile_items):
            (r0, r1), (c0, c1) = t.rows, t.cols
            reached = t.order < self.step
            if not reached:
                rgb[r0:r1, c0:c1] = rgb[r0:r1, c0:c1] * (1 - FUTURE_ALPHA) + 200 * FUTURE_ALPHA
            skipped = bool(t.skipped[b, h])
            item.setBrush(QBrush(QColor(90, 90, 90), Qt.BrushStyle.BDiagPattern) if skipped else QBrush())
        self.image.setImage(rgb.astype(np.uint8), levels=None, autoLevels=False)
        self.image.setRect(QRectF(0, 0, rgb.shape[1], rgb.shape[0]))
        tile = self.current()
        if tile is None:
            self.cursor.hide()
            self.status.setText(_w("tiles.view.start"))
            self.explain_box.setPlainText(_w("tiles.lesson"))
        else:
            (r0, r1), (c0, c1) = tile.rows, tile.cols
            self.cursor.setRect(QRectF(c0, r0, c1 - c0, r1 - r0))
            self.cursor.show()
            self.status.setText(self._tile_words(tile))
        self.position.setText(f"{self.step} / {self.total()}")

    def _tile_words(self, tile) -> str:
        from attention.datamodel.numbers import row as _row
        from attention.datamodel.numbers import span as _span

        b, h = self.b(), self.h()
        head = _w("tiles.tile", b=b + 1, h=h + 1, n=tile.order + 1, total=self.total(), i=tile.q_block + 1,
                  j=tile.k_block + 1, rows=_span(*tile.rows), cols=_span(*tile.cols))
        if tile.skipped[b, h]:
            return f"{head} — {_w('tiles.skipped')}"
        return f"{head} — {_w('tiles.correction')}: {_row(tile.correction[b, h])}"

    def _draw_tables(self) -> None:
        m, l_, O = self.state()
        tile = self.current()
        rows = tile.rows if tile is not None else (0, 0)
        hidden = rows if self.asking() else (0, 0)
        self.tables["m"].model().set_values(m, ["m"], rows, hidden=hidden)
        self.tables["l"].model().set_values(l_, ["ℓ"], rows, hidden=hidden)
        self.tables["O"].model().set_values(O, [f"O[{d + 1}]" for d in range(O.shape[1])], rows, hidden=hidden)
        self._draw_question()

    # ---- quiz ------------------------------------------------------------------------------------
    def asking(self) -> bool:
        """The quiz hides this step's new values until its question is checked."""
        tile = self.current()
        return (self.quiz.isChecked() and tile is not None and not tile.skipped[self.b(), self.h()]
                and self.step not in self.answered)

    def _draw_question(self) -> None:
        self.quiz_row.setVisible(self.asking() or (self.quiz.isChecked() and bool(self.feedback.text())))
        if self.asking():
            self.quiz_row.ask(*tiles_quiz.question_of(self.current())[:2])

    def check_answer(self) -> Optional[bool]:
        """Check what the student typed against the walk's value (4 significant digits), then show
        the values and the arithmetic; None when the text is not a number (said so, nothing shown)."""
        if not self.asking():
            return None
        tile = self.current()
        what, row, col = tiles_quiz.question_of(tile)
        value = tiles_quiz.value_of(tile, what, self.b(), self.h(), row, col)
        text = self.answer.text()
        right = self.quiz_row.judge(text, what, value)
        if right is None:
            return None
        self.answered.add(self.step)
        self._draw_tables()
        self.quiz_row.show()
        self.explain_cell(what, row, col)
        self.plot.setFocus()  # → goes on to the next tile again
        return right

    # ---- worksheet -------------------------------------------------------------------------------
    def export_worksheet(self) -> list:
        """Write the by-hand worksheet of the shown head and its answer key into a folder the person
        chooses (attention/teaching/tiles_worksheet.py); the paths written, [] when cancelled or refused."""
        from pathlib import Path

        from PySide6.QtWidgets import QFileDialog

        from attention.teaching.tiles_worksheet import write

        if self.result is None:
            return []
        folder = QFileDialog.getExistingDirectory(self, _w("tiles.view.worksheet_title"))
        if not folder:
            return []
        try:
            paths = write(self.result, self.trace, Path(folder), self.b(), self.h(), words.language())
        except OSError as e:
            self.status.setText(_w("tiles.error.write", path=folder, why=e.strerror or e))
            return []
        self.status.setText(_w("tiles.cli.written", paths=", ".join(str(p) for p in paths)))
        return paths

    # ---- slides ----------------------------------------------------------------------------------
    def open_slides(self):
        """One tile per slide, full screen, from the current step (F5)."""
        from app.teaching.tiles_slides import TilesSlides

        if self.result is None:
            return None
        self.pause()
        if self.slides is not None:
            self.slides.close()
        # a window of its own (no parent): the dialog's arrow-key shortcuts must not reach it
        self.slides = TilesSlides(self.result, self.b(), self.h(), start=self.step)
        self.slides.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self.slides.showFullScreen()
        self.slides.activateWindow()
        self.slides.setFocus()  # the keys are the slides' now
        return self.slides

    def _draw_proof(self) -> None:
        """After the last tile: O / l beside the engine's weighted sum, the difference, the memory."""
        done = self.step == self.total()
        self.proof.setVisible(done)
        self.proof_title.setVisible(done)
        if not done:
            self.proof_text.setText(_w("tiles.view.click"))
            return
        from attention.cli.tiles_cli import memory_lines
        from attention.teaching.tiles import largest_difference

        b, h = self.b(), self.h()
        got, exact = self.result.output[b, h], self.result.exact[b, h]  # (L, D)
        D = got.shape[1]
        both = np.empty((got.shape[0], 2 * D))
        both[:, 0::2], both[:, 1::2] = got, exact
        cols = []
        for d in range(D):
            cols += [f"{_w('tiles.view.tiled')} [{d + 1}]", f"{_w('tiles.view.exact')} [{d + 1}]"]
        self.proof.model().set_values(both, cols)
        diff = numbers.exact(largest_difference(got, exact))
        lines = [_w("tiles.diff", diff=diff, dtype=self.result.dtype)]
        lines += memory_lines(self.result, words.language())
        self.proof_text.setText("\n".join(lines))

    # ---- explain ---------------------------------------------------------------------------------
    def explain_cell(self, what: str, row: int, col: int = 0) -> str:
        """Explain the value of `what` ("m", "l", "O") shown for query `row` (and column `col` of O):
        the update of the last tile that touched it.  The text goes to the explain box."""
        from attention.teaching.tiles_explain import explain_running

        if self.result is None:
            return ""
        tile = None  # the last tile that changed this row (a skipped one changed nothing)
        for t in self.result.tiles[:self.step]:
            if t.rows[0] <= row < t.rows[1] and (tile is None or not t.skipped[self.b(), self.h()]):
                tile = t
        if tile is None:
            text = _w("tiles.view.start")
        else:
            text = explain_running(self.result, tile.order, what, self.b(), self.h(), row, col).text(words.language())
        self.explain_box.setPlainText(text)
        return text


class TilesDialog(QDialog):
    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.view = TilesView(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.view)
        window_fit.fit_dialog(self, PREFERRED)
        self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(_w("tiles.view.title"))
        self.view.retranslate()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        self.view.keyPressEvent(event)
        if not event.isAccepted():
            super().keyPressEvent(event)


class TilesFeature(QObject):
    """View ▸ FlashAttention tiles…: opens the dialog on the window's last trace and keeps it current."""

    def __init__(self, host: FeatureHost) -> None:
        super().__init__(host.window)
        self.host = host
        self.dialog: Optional[TilesDialog] = None
        self.action = QAction(host.window)
        self.action.triggered.connect(self.open)
        host.add_action(self.action, "view", group="tiles")
        host.recompute.ready.connect(lambda *_: self.refresh())
        host.on_language_change(self.retranslate)
        self.retranslate()

    def retranslate(self) -> None:
        self.action.setText(_w("tiles.view.menu"))
        self.action.setStatusTip(_w("tiles.view.menu_tip"))
        if self.dialog is not None:
            self.dialog.retranslate()

    def open(self) -> TilesDialog:
        if self.dialog is None:
            self.dialog = TilesDialog(self.host.window)
        self.refresh(force=True)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def refresh(self, force: bool = False) -> None:
        """The window's new trace into the dialog, while it is open."""
        if self.dialog is None or not (force or self.dialog.isVisible()):
            return
        last = self.host.last_result()
        if last is None:
            self.dialog.view.status.setText(_w("tiles.view.no_trace"))
            return
        self.dialog.view.set_trace(last.trace)
        self.dialog.view.batch.setValue(last.batch + 1)


def install(host: FeatureHost) -> TilesFeature:
    """Add View ▸ FlashAttention tiles… to the host's window; returns its controller."""
    return TilesFeature(host)
