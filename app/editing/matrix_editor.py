"""A spreadsheet editor for one matrix: virtual table, copy/paste as TSV, fill actions.

Refusals (text that is not a number, a paste that is not a block of numbers) appear in a
message line under the table, never in a dialog, and leave the matrix as it was.  A paste or a
fill is one undo step.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from PySide6.QtCore import QEvent, QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QAction, QFont, QFontMetrics, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QSpinBox,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.editing.matrix_model import MatrixModel
from app.pipeline.document import Document
from app.viewmodel.clipboard import ClipboardError, format_table, parse_table
from app.viewmodel.edits import fill_block
from app.viewmodel.matrix_ref import MatrixRef

ROW_HEIGHT = 22
COLUMN_WIDTH = 70
ERROR_STYLE = "color: #b00020;"


class LabelHeader(QHeaderView):
    """A header that measures its labels once per set of labels, not at every layout.

    Why: Qt 6 measures a header's size hint from the labels of its first and last 100 sections
    (about 4 headerData calls each, into Python), and a QTableView asks both headers again
    whenever either one's labels change.  A sentence edit renames the rows (the tokens), so each
    edit re-measured the 384 unchanged column numbers of Q, K and V: about 800 horizontal
    headerData calls per table per edit.  The hint is kept while the section count, the model's
    `header_version` for this orientation and the font are the same (and reused for new labels
    whose widest is as wide as before); a font, style or language change forgets it.
    """

    def __init__(self, orientation: Qt.Orientation, parent: Optional[QWidget] = None):
        super().__init__(orientation, parent)
        self._hint_key: Optional[tuple] = None
        self._hint = None
        self._by_width: dict[tuple, object] = {}  # (count, font, widest label) -> Qt's measured hint

    def sizeHint(self):  # noqa: N802 (Qt override)
        model = self.model()
        if not isinstance(model, MatrixModel):
            return super().sizeHint()
        font = self.font().key()
        key = (self.count(), model.header_version(self.orientation()), font)
        if key != self._hint_key or self._hint is None:
            self._hint, self._hint_key = self._measured(model, font), key
        return self._hint

    def _measured(self, model: MatrixModel, font: str):
        """Qt's hint for these labels, measured again only when the widest label Qt looks at has
        a width not seen before: new tokens of the same widths (most sentence edits) take the
        hint measured before without 4 x 128 headerData calls.  Qt measures the first and last
        100 sections in a bold font (QHeaderView::sectionSizeFromContents); so does the key."""
        labels = model.header_labels(self.orientation())
        if len(labels) > 200:
            labels = labels[:100] + labels[-100:]
        bold = QFont(self.font())
        bold.setBold(True)
        metrics = QFontMetrics(bold)
        key = (self.count(), font, max((metrics.horizontalAdvance(t) for t in labels), default=-1))
        hint = self._by_width.get(key)
        if hint is None:
            if len(self._by_width) > 64:
                self._by_width.clear()
            hint = self._by_width[key] = super().sizeHint()
        return hint

    def forget_size_hint(self) -> None:
        self._hint_key = None
        self._by_width.clear()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.LanguageChange):
            self.forget_size_hint()
        super().changeEvent(event)


class MatrixTable(QTableView):
    """QTableView tuned for big matrices: fixed section sizes, no per-cell widgets, headers that
    measure their labels only when they change (LabelHeader)."""

    copy_requested = Signal()
    paste_requested = Signal()
    clear_requested = Signal()  # Delete: the selected cells become 0 (one undo step)

    def __init__(self, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.setHorizontalHeader(LabelHeader(Qt.Orientation.Horizontal, self))
        self.setVerticalHeader(LabelHeader(Qt.Orientation.Vertical, self))
        for header in (self.horizontalHeader(), self.verticalHeader()):  # as QTableView's own headers
            header.setSectionsClickable(True)
            header.setHighlightSections(True)
        for header, size in ((self.verticalHeader(), ROW_HEIGHT), (self.horizontalHeader(), COLUMN_WIDTH)):
            header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
            header.setDefaultSectionSize(size)
            header.setMinimumSectionSize(16)
        self.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setWordWrap(False)
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )

    def setModel(self, model) -> None:  # noqa: N802 (Qt override)
        old = self.model()
        if isinstance(old, MatrixModel):
            old.rows_relabelled.disconnect(self._on_rows_relabelled)
        super().setModel(model)
        if isinstance(model, MatrixModel):
            model.rows_relabelled.connect(self._on_rows_relabelled)

    def _on_rows_relabelled(self) -> None:
        """New row labels, as many as before (a sentence edit's tokens): repaint the row header, and lay
        the table out again only if the header's width changes.  Qt's answer to headerDataChanged is a
        delayed relayout of the whole table, which re-raises its scroll bars and so repaints the whole
        editor (frame, both scroll bars, every cell) in a second paint pass after the cells' own; three
        editors (Q, K, V) did so on every sentence edit."""
        header = self.verticalHeader()
        if header.isVisible():
            width = min(max(header.minimumWidth(), header.sizeHint().width()), header.maximumWidth())
            if width != header.width():
                self.updateGeometries()
        header.viewport().update()

    def keyPressEvent(self, event) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_requested.emit()
        elif event.matches(QKeySequence.StandardKey.Paste):
            self.paste_requested.emit()
        elif (event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace)
              and self.state() != QAbstractItemView.State.EditingState):
            self.clear_requested.emit()
        else:
            super().keyPressEvent(event)


class MatrixEditor(QWidget):
    """Caption + toolbar + table + message line for one MatrixRef of the document."""

    message = Signal(str)  # also shown in the status bar by the window
    used = Signal()  # its table took the focus or its selection changed: the editor a person works in

    def __init__(self, doc: Document, ref: Optional[MatrixRef] = None, compact: bool = False,
                 caption_above: bool = False, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.doc = doc
        self.model = MatrixModel(doc, ref, self)
        self.table = MatrixTable(self)
        self.table.setModel(self.model)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setVisible(not compact)
        self.message_label = QLabel(self)
        self.message_label.setWordWrap(True)
        self.message_label.setStyleSheet(ERROR_STYLE)
        self.message_label.hide()
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setMaximumWidth(80)
        self._build_actions()
        self._build_toolbar(compact)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        if caption_above:  # a caption beside the buttons wraps into a column in a narrow region
            layout.addWidget(self.caption)
            self.toolbar.insertStretch(0, 1)
        else:
            self.toolbar.insertWidget(0, self.caption, 1)
        layout.addLayout(self.toolbar)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message_label)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.copy_requested.connect(self.copy)
        self.table.paste_requested.connect(self.paste)
        self.table.clear_requested.connect(self.clear_selection)
        self.compact = compact
        if compact:
            self.model.modelReset.connect(self._fit_height)
            self._fit_height()
        self.model.rejected.connect(self.show_message)
        self.model.dataChanged.connect(self._clear_message)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self.used.emit())
        self.table.installEventFilter(self)
        self.retranslate()

    def eventFilter(self, watched, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.table and event.type() == QEvent.Type.FocusIn:
            self.used.emit()
        return super().eventFilter(watched, event)

    # ---- construction ------------------------------------------------------------------------
    def _build_actions(self) -> None:
        # triggered(bool) passes `checked`: never let it reach paste()'s `text` (that made the
        # Paste button and the context menu's Paste raise TypeError while only Ctrl+V worked)
        self.copy_action = QAction(self)
        self.copy_action.triggered.connect(lambda _checked=False: self.copy())
        self.paste_action = QAction(self)
        self.paste_action.triggered.connect(lambda _checked=False: self.paste())
        self.fill_menu = QMenu(self)
        self.fill_selection_menu = self.fill_menu.addMenu("")
        self.fill_all_menu = self.fill_menu.addMenu("")
        self.fill_actions: dict[tuple[str, bool], QAction] = {}
        for whole, menu in ((False, self.fill_selection_menu), (True, self.fill_all_menu)):
            for kind in ("zeros", "ones", "identity", "arange", "normal", "uniform", "linear"):
                act = menu.addAction("")
                act.triggered.connect(lambda _=False, k=kind, w=whole: self.fill(k, whole=w))
                self.fill_actions[(kind, whole)] = act
        self.table_menu = self._build_table_menu()

    def _build_table_menu(self) -> QMenu:
        """The table's right-click menu, built once and kept for the editor's life.  It shows
        the Fill button's own submenus; PySide ties them to every menu they are added to, so a
        menu made per click and deleted after it (deleteLater) took them along, and the second
        right-click raised "Internal C++ object (QMenu) already deleted"."""
        menu = QMenu(self)
        menu.addAction(self.copy_action)
        menu.addAction(self.paste_action)
        menu.addSeparator()
        menu.addMenu(self.fill_selection_menu)
        menu.addMenu(self.fill_all_menu)
        return menu

    def _build_toolbar(self, compact: bool) -> None:
        self.toolbar = QHBoxLayout()
        self.toolbar.setContentsMargins(0, 0, 0, 0)
        self.copy_button = QToolButton(self)
        self.copy_button.setDefaultAction(self.copy_action)
        self.paste_button = QToolButton(self)
        self.paste_button.setDefaultAction(self.paste_action)
        self.fill_button = QToolButton(self)
        self.fill_button.setMenu(self.fill_menu)
        self.fill_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.seed_label = QLabel(self)
        for w in (self.copy_button, self.paste_button, self.fill_button, self.seed_label, self.seed):
            self.toolbar.addWidget(w)
            w.setVisible(not compact)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.model.forget_labels()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.copy_action.setText(self.tr("Copy"))
        self.copy_action.setToolTip(self.tr("Copy the selected cells as tab-separated text "
                                            "(paste into Excel, LibreOffice or Google Sheets)"))
        self.paste_action.setText(self.tr("Paste"))
        self.paste_action.setToolTip(self.tr("Paste a block copied from a spreadsheet (tab- or comma-separated) "
                                             "at the current cell; one undo step"))
        self.fill_button.setText(self.tr("Fill"))
        self.fill_button.setToolTip(self.tr("Fill the selection or the whole matrix with zeros, ones, identity, "
                                            "0 1 2 ... or seeded random numbers"))
        self.fill_selection_menu.setTitle(self.tr("Fill selection"))
        self.fill_all_menu.setTitle(self.tr("Fill whole matrix"))
        names = {
            "zeros": self.tr("Zeros"), "ones": self.tr("Ones"), "identity": self.tr("Identity (1 on the diagonal)"),
            "arange": self.tr("Count up 0, 1, 2, ... (row by row)"),
            "normal": self.tr("Random normal (mean 0, sd 1, seeded, 2 decimals)"),
            "uniform": self.tr("Random uniform in [-1, 1] (seeded, 2 decimals)"),
            "linear": self.tr("nn.Linear default init, uniform +-1/sqrt(columns) (seeded)"),
        }
        for (kind, _), act in self.fill_actions.items():
            act.setText(names[kind])
        self.seed_label.setText(self.tr("seed"))
        self.seed.setToolTip(self.tr("Seed of the random fills: the same seed gives the same numbers"))

    def _fit_height(self) -> None:
        """A compact editor (valid lengths) is only as tall as its few rows, up to 6 of them, plus
        the horizontal scroll bar whenever its columns are wider than the table (one length per
        query row: L columns).  Reserving the bar only above 4 columns left 3 or 4 columns in the
        narrow Parameters region a ~4 px slit: the bar took the row's place."""
        rows = min(max(self.model.rowCount(), 1), 6)
        frame = 2 * self.table.frameWidth()
        header = self.table.horizontalHeader().sizeHint().height()
        content = self.table.verticalHeader().sizeHint().width() + self.table.horizontalHeader().length() + frame
        wide = content > self.table.width() or not self.table.isVisible() and self.model.columnCount() > 1
        scroll = self.table.horizontalScrollBar().sizeHint().height() if wide else 0
        self.table.setFixedHeight(header + rows * ROW_HEIGHT + frame + scroll)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self.compact:
            self._fit_height()  # wider or narrower: the scroll bar comes or goes

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if self.compact:
            self._fit_height()

    # ---- binding -----------------------------------------------------------------------------
    def set_ref(self, ref: Optional[MatrixRef]) -> None:
        self.model.set_ref(ref)
        self._clear_message()

    def set_caption(self, text: str) -> None:
        self.caption.setText(text)

    # ---- messages ----------------------------------------------------------------------------
    def show_message(self, text: str) -> None:
        self.message_label.setText(text)
        self.message_label.setVisible(bool(text))
        if text:
            self.message.emit(text)

    def _clear_message(self, *args) -> None:
        self.message_label.clear()
        self.message_label.hide()

    # ---- selection ---------------------------------------------------------------------------
    def selected_rect(self) -> Optional[tuple[int, int, int, int]]:
        """(row, col, rows, cols) bounding the selection, else the current cell, else None."""
        indexes = self.table.selectionModel().selectedIndexes() if self.table.selectionModel() else []
        if not indexes:
            cur = self.table.currentIndex()
            return (cur.row(), cur.column(), 1, 1) if cur.isValid() else None
        rows = [i.row() for i in indexes]
        cols = [i.column() for i in indexes]
        return min(rows), min(cols), max(rows) - min(rows) + 1, max(cols) - min(cols) + 1

    def select_rect(self, row: int, col: int, rows: int, cols: int) -> None:
        sel = self.table.selectionModel()
        top_left = self.model.index(row, col)
        sel.setCurrentIndex(top_left, QItemSelectionModel.SelectionFlag.NoUpdate)
        from PySide6.QtCore import QItemSelection

        sel.select(QItemSelection(top_left, self.model.index(row + rows - 1, col + cols - 1)),
                   QItemSelectionModel.SelectionFlag.ClearAndSelect)

    # ---- actions -----------------------------------------------------------------------------
    def copy(self) -> None:
        m = self.model.matrix()
        rect = self.selected_rect()
        if m is None:
            return
        if rect is None:
            self.show_message(self.tr("Select the cells to copy first. Nothing was copied."))
            return
        r, c, h, w = rect
        QGuiApplication.clipboard().setText(format_table(m[r:r + h, c:c + w]))
        self.message.emit(self.tr("Copied {0} x {1} cells").format(h, w))

    def paste(self, text: Optional[str] = None) -> bool:
        """Paste clipboard text (or `text`) at the selection's top-left cell.  One undo step."""
        m = self.model.matrix()
        if m is None:
            return False
        text = QGuiApplication.clipboard().text() if text is None else text
        try:
            block = parse_table(text, self.model.decimal_comma)
        except ClipboardError as e:
            self.show_message(self.tr("Paste refused: {0}. Nothing was changed.").format(e))
            return False
        rect = self.selected_rect() or (0, 0, 1, 1)
        r, c, h, w = rect
        if block.shape == (1, 1) and h * w > 1:
            block = np.full((h, w), block[0, 0])  # one value into a selection: fill it
        fit = block[: m.shape[0] - r, : m.shape[1] - c]
        ints = self.model.ref.integer
        if ints and (np.any(fit < 0) or np.any(fit != np.round(fit))):
            self.show_message(self.tr("Paste refused: valid lengths must be whole numbers >= 0. Nothing was changed."))
            return False
        self.doc.set_block(self.model.ref, r, c, fit, self.tr("Paste {0} x {1}").format(*fit.shape))
        self._clear_message()
        if fit.shape != block.shape:
            self.show_message(self.tr("Pasted {0} x {1} of the {2} x {3} block; the rest did not fit in the matrix.")
                              .format(fit.shape[0], fit.shape[1], block.shape[0], block.shape[1]))
        else:
            self.message.emit(self.tr("Pasted {0} x {1} cells").format(*fit.shape))
        self.select_rect(r, c, *fit.shape)
        return True

    def fill(self, kind: str, whole: bool = False) -> None:
        m = self.model.matrix()
        if m is None:
            return
        rect = None if whole else self.selected_rect()
        r, c, h, w = rect if rect is not None else (0, 0, *m.shape)
        block = fill_block(kind, (h, w), self.seed.value())
        if self.model.ref.integer:
            block = np.clip(np.round(block), 0, None)
        what = self.fill_actions[(kind, whole)].text()
        self.doc.set_block(self.model.ref, r, c, block, self.tr("Fill: {0}").format(what))

    def clear_selection(self) -> None:
        """Delete key: zeros in the selection (valid lengths are left alone: 0 would mask everything)."""
        if self.model.ref is not None and not self.model.ref.integer and self.selected_rect() is not None:
            self.fill("zeros")

    def context_menu(self) -> QMenu:
        """The table's right-click menu: Copy, Paste, Fill selection ▸, Fill whole matrix ▸
        (the same menu at every right-click; never delete it)."""
        return self.table_menu

    def _context_menu(self, pos) -> None:
        self.table_menu.exec(self.table.viewport().mapToGlobal(pos))
