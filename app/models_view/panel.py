"""The Model dock: the Sentence box, the layer / head / sentence pickers and the model-view grid.

A view only: it shows a ModelSession and says what the person did (signals); app.models_view.tools
turns that into document edits.  Typing in the Sentence box waits for a short pause
(`EDIT_PAUSE_MS`) before it asks for a recompute, so a word typed letter by letter is one
recompute, not five.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, QPoint, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.models_view.cache_view import CachePanel
from app.models_view.grid import ModelGrid
from app.models_view.page_scroll import PageScroll
from app.viewmodel.model_session import FILTERS, ModelSession, sentence_lines
from attention import words
from attention.datamodel import numbers
from attention.models.errors import MAX_SENTENCE_CHARS, MAX_SENTENCES, ModelError

EDIT_PAUSE_MS = 300
#: Characters the Sentence box takes: every sentence at its longest (attention.models.sentences).
BOX_CHARS = MAX_SENTENCES * (MAX_SENTENCE_CHARS + 1)


def fill_box(box: QComboBox, items: list[tuple[str, object]], current: int) -> None:
    """`box` lists `items` (text, data) with item `current` chosen, without telling anyone: refilled only
    when its items differ (a refill after every sentence edit cost a relayout of the dock and a repaint)."""
    with QSignalBlocker(box):
        if [(box.itemText(i), box.itemData(i)) for i in range(box.count())] != items:
            box.clear()
            for text, data in items:
                box.addItem(text, data)
        box.setCurrentIndex(current)


class SentenceBox(QPlainTextEdit):
    """The Sentence box, which takes at most BOX_CHARS characters: Qt lays out an unbreakable line
    in time that grows faster than its length (a pasted 100,000-character word froze the window
    for ~9 s), so a longer paste is cut before Qt sees it and `capped` says how much was left out."""

    capped = Signal(int)  # characters left out

    def insertFromMimeData(self, source) -> None:  # noqa: N802 (Qt override)
        if not source.hasText():
            return super().insertFromMimeData(source)
        text = source.text()
        room = max(0, BOX_CHARS - len(self.toPlainText()) + len(self.textCursor().selectedText()))
        if len(text) <= room:
            return super().insertFromMimeData(source)
        self.textCursor().insertText(text[:room])
        self.ensureCursorVisible()
        self.capped.emit(len(text) - room)
        return None

    def set_text(self, text: str) -> int:
        """setPlainText, cut at BOX_CHARS; how many characters were left out."""
        self.setPlainText(text[:BOX_CHARS])
        return max(0, len(text) - BOX_CHARS)


class ModelPanel(QWidget):
    sentencesEdited = Signal(object)  # tuple[str, ...]
    layerChosen = Signal(int)
    headChosen = Signal(int)  # -1 = all heads
    itemChosen = Signal(int)  # which sentence the grid shows
    pairChosen = Signal(bool)  # two sentences as one sentence pair (True) or a padded batch
    filterChosen = Signal(str)  # of a pair: what the grid shows (model_session.FILTERS)
    refreshed = Signal()  # the panel shows the session again (a run, a choice, undo): app.models_view.head_tools

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.session: Optional[ModelSession] = None
        self._problem: Optional[object] = None  # a ModelError shown now (re-worded on language change)
        self._busy = False
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setStyleSheet("font-weight: bold;")
        self.empty = QLabel()
        self.empty.setWordWrap(True)
        self.empty.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.box_label = QLabel()
        self.box_label.setWordWrap(True)
        self.box = SentenceBox()
        self.box.setMaximumHeight(72)
        self.box.setTabChangesFocus(True)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.detached = QLabel()  # the open document is not this model's layer
        self.detached.setWordWrap(True)
        self.detached.setStyleSheet("color: #8a5a00;")
        self.detached.hide()
        self.layer_label, self.head_label, self.item_label = QLabel(), QLabel(), QLabel()
        self.layer_box, self.head_box, self.item_box = QComboBox(), QComboBox(), QComboBox()
        self.two_label, self.two_box = QLabel(), QComboBox()  # two sentences: a padded batch or a pair
        self.two_box.addItem("", False)
        self.two_box.addItem("", True)
        self.filter_label, self.filter_box = QLabel(), QComboBox()  # a pair: All, A -> A, A -> B, ...
        for f in FILTERS:
            self.filter_box.addItem("", f)
        for box in (self.two_box, self.filter_box):  # long words must not widen the dock (issue 12, defect 8)
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(6)
        self.next_label = QLabel()  # a decoder's next-token distribution (top 10)
        self.next_label.setWordWrap(True)
        self.next_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.grid = ModelGrid()
        self.grid.describe = self._describe
        self.show_label, self.show_box = QLabel(), QComboBox()  # the grid of layers x heads, or the rollout
        self.show_box.addItems(["", "", ""])  # the grid, rollout, attention flow
        # its long item text must not widen the dock (the Steps column pays for every pixel; issue 12 defect 8)
        self.show_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.show_box.setMinimumContentsLength(4)
        self.rollout = ModelGrid()  # R after the open layer: one token x token heatmap
        self.rollout.show_labels = False
        self.rollout.describe = self._describe_rollout
        self.rollout_explain = QLabel()
        self.rollout_explain.setWordWrap(True)
        self.rollout_explain.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.rollout.hide()
        self.rollout_explain.hide()
        from app.models_view.flow_pane import FlowShow

        self.flow = FlowShow(self)  # Show ▸ Attention flow, drawn in the same heatmap as rollout
        self.cache = CachePanel()  # a decoder's Next token and KV cache panes
        self.cache.hide()
        self.hover = QLabel()
        self.hover.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hover.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        # it wraps (a hover line is as wide as the numbers make it: cut at a narrow dock's edge, it lost its last
        # figures), with two lines kept for it so that the page above does not jump for most lines
        self.hover.setWordWrap(True)
        self.hover.setMinimumHeight(2 * self.hover.fontMetrics().lineSpacing() + 6)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(EDIT_PAUSE_MS)
        self._timer.timeout.connect(self.commit_sentences)
        self._layout()
        self.box.textChanged.connect(self._timer.start)
        self.box.capped.connect(self._on_capped)
        self.layer_box.activated.connect(lambda i: self.layerChosen.emit(int(self.layer_box.itemData(i))))
        self.head_box.activated.connect(lambda i: self.headChosen.emit(int(self.head_box.itemData(i))))
        self.item_box.activated.connect(lambda i: self.itemChosen.emit(int(self.item_box.itemData(i))))
        self.two_box.activated.connect(lambda i: self.pairChosen.emit(bool(self.two_box.itemData(i))))
        self.two_box.activated.connect(lambda i: self._label_box())
        self.filter_box.activated.connect(lambda i: self.filterChosen.emit(str(self.filter_box.itemData(i))))
        self.grid.hovered.connect(self.hover.setText)
        self.rollout.hovered.connect(self.hover.setText)
        self.rollout.pointClicked.connect(lambda _l, _h, q, k: self.flow.explain(q, k) if self.showing_flow()
                                          else self.explain_rollout(q, k))
        self.show_box.activated.connect(lambda _i: self._show_what())
        self.retranslate()
        self.show_session(None)

    def _layout(self) -> None:
        """Everything but the hover line on a page that scrolls where the dock is shorter (app.models_view.
        page_scroll); the hover line stays at the dock's foot, beside the grid it speaks of."""
        page = QWidget()
        v = QVBoxLayout(page)
        v.setContentsMargins(4, 4, 4, 4)
        v.addWidget(self.title)
        v.addWidget(self.detached)
        v.addWidget(self.empty)
        v.addWidget(self.box_label)
        v.addWidget(self.box)
        v.addWidget(self.status)
        # one picker a row, label beside box: side by side they made the dock 451 px wide at least,
        # and with it the window too wide for a 1280 px screen (issue 12, defect 8)
        pickers = QGridLayout()
        for r, (label, box) in enumerate(((self.two_label, self.two_box), (self.layer_label, self.layer_box),
                                          (self.head_label, self.head_box), (self.item_label, self.item_box),
                                          (self.filter_label, self.filter_box), (self.show_label, self.show_box))):
            pickers.addWidget(label, r, 0)
            pickers.addWidget(box, r, 1)
        pickers.setColumnStretch(2, 1)
        v.addLayout(pickers)
        v.addWidget(self.next_label)
        v.addWidget(self.grid, 1)
        v.addWidget(self.rollout, 1)
        v.addWidget(self.rollout_explain)
        v.addWidget(self.cache, 1)
        self.page = PageScroll(page)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(self.page, 1)
        outer.addWidget(self.hover)
        self.hover.setContentsMargins(4, 2, 4, 4)

    def insert_on_page(self, widget: QWidget, *, before: Optional[QWidget] = None,
                       after: Optional[QWidget] = None) -> None:
        """Another tool's part of the dock (the Heads panel, Gemma's window control) placed next to one of the
        page's widgets: on the page, so that it scrolls with the rest (the panel's own layout holds only the page
        and the hover line)."""
        layout = self.page.widget().layout()
        anchor = before if before is not None else after
        at = layout.indexOf(anchor)
        if at < 0:
            raise ValueError(f"{anchor!r} is not on the Model dock's page")
        layout.insertWidget(at if before is not None else at + 1, widget)

    def compact(self, on: bool) -> None:
        """A grid of many layers takes the page's spare height before the KV cache panes do (which keep what they
        need: the page scrolls where both do not fit)."""
        self.cache.compact(on)
        self.page.widget().layout().setStretchFactor(self.cache, 0 if on else 1)

    def reveal_cache(self) -> None:
        """After Next token: the page scrolls (if it must) so that the KV cache panes and the check are in view, once
        they are laid out with the new token's rows."""
        QTimer.singleShot(0, self._reveal_cache)

    def _reveal_cache(self) -> None:
        if not self.cache.isVisible():
            return
        self.page.widget().layout().activate()
        top = self.cache.mapTo(self.page.widget(), QPoint(0, 0)).y()
        bottom, view = top + self.cache.height(), self.page.viewport().height()
        bar = self.page.verticalScrollBar()
        lo, hi = bottom - view, top  # the values that show all of it
        bar.setValue(min(max(bar.value(), lo), hi) if lo <= hi else top)

    # ---- what it shows ------------------------------------------------------------------------
    def show_session(self, session: Optional[ModelSession]) -> None:
        """A newly opened model (or None: nothing open, say how to open one)."""
        self.session = session
        self._problem = None
        has = session is not None
        for w in (self.box_label, self.box, self.status, self.layer_label, self.layer_box, self.head_label,
                  self.head_box, self.grid, self.hover, self.show_label, self.show_box):
            w.setVisible(has)
        self.rollout_explain.clear()
        self._show_pair()
        self.empty.setVisible(not has)
        if not has:
            self.next_label.hide()
            self.cache.hide()
        if has:
            with QSignalBlocker(self.box):
                self.box.set_text("\n".join(session.sentences))
            self._timer.stop()
        self.refresh()

    def refresh(self) -> None:
        """Pickers, title, status and the grid from the session (after a run or a choice)."""
        s = self.session
        self.retranslate()
        if s is None:
            return
        item = getattr(s, "layer_item", None)  # Gemma 3: "Layer 6 · global (...)"
        fill_box(self.layer_box, [(item(k) if item else self.tr("Layer {0}").format(numbers.position(k)), k)
                                  for k in range(s.n_layers)], s.layer)
        self._fill_heads()
        with QSignalBlocker(self.item_box):
            self.item_box.clear()
            n = s.items()
            for i in range(n):
                self.item_box.addItem(self.tr("Sentence {0}").format(numbers.position(i)), i)
            self.item_box.setCurrentIndex(s.item)
        self.item_box.setVisible(n > 1)
        self.item_label.setVisible(n > 1)
        self._show_pair()
        self.grid.set_weights(s.shown_grid())
        self.grid.set_layer_kinds(s.layer_kinds() if hasattr(s, "layer_kinds") else [])  # local / global layers
        self.grid.set_focus(s.layer, s.head)
        self._show_next()
        self._show_what()
        self._show_cache()
        self.refreshed.emit()

    def _show_pair(self) -> None:
        """The batch / pair choice (an encoder's), and the A / B filter while a pair is shown."""
        s = self.session
        encoder = s is not None and not getattr(s, "is_decoder", False)
        self.two_label.setVisible(encoder)
        self.two_box.setVisible(encoder)
        pair = encoder and s.is_pair()
        self.filter_label.setVisible(pair)
        self.filter_box.setVisible(pair)
        if encoder:
            with QSignalBlocker(self.two_box):
                self.two_box.setCurrentIndex(self.two_box.findData(bool(s.pair)))
            with QSignalBlocker(self.filter_box):
                self.filter_box.setCurrentIndex(self.filter_box.findData(s.filter))
        self._label_box()

    def _label_box(self) -> None:
        """The Sentence box's label says what its lines become: a prompt, a padded batch or one sentence pair
        (the dock's choice, also before a second line is typed)."""
        s = self.session
        if s is not None and getattr(s, "is_decoder", False):
            self.box_label.setText(self.tr("Prompt (the decoder reads it as one text):"))
        elif bool(self.two_box.currentData()):
            self.box_label.setText(words.text("model_view.box_pair"))
        else:
            self.box_label.setText(self.tr("Sentences (one per line; two make a padded batch):"))

    def _show_cache(self) -> None:
        """A decoder's KV cache panes for the open layer and the picked head (hidden for an encoder)."""
        s = self.session
        decoder = s is not None and getattr(s, "is_decoder", False)
        self.cache.setVisible(decoder)
        if not decoder:
            return
        g = s.generation
        fresh = g is not None and s.run is not None and tuple(g.ids) == tuple(s.run.ids)
        self.cache.show_generation(g if fresh else None, s.layer, s.head, list(s.tokens()),
                                   s.last_diff if fresh else None)

    # ---- rollout ----------------------------------------------------------------------------------
    def showing_rollout(self) -> bool:
        return self.session is not None and self.show_box.currentIndex() == 1

    def showing_flow(self) -> bool:
        return self.session is not None and self.show_box.currentIndex() == 2

    def _show_what(self) -> None:
        """The layers x heads grid, or the rollout or attention-flow heatmap through the open layer (picked head or
        mean)."""
        on = self.showing_rollout() or self.showing_flow()
        self.grid.setVisible(self.session is not None and not on)
        self.rollout.setVisible(on)
        self.rollout_explain.setVisible(on and bool(self.rollout_explain.text()))
        if self.showing_rollout():
            from app.viewmodel import rollout_view

            self.rollout.set_weights(rollout_view.heatmap(self.session)[None, None])
            self.rollout_explain.clear()
            self.rollout_explain.hide()
        elif self.showing_flow():
            self.flow.show()

    def _describe_rollout(self, _layer: int, _head: int, q: int, k: int) -> str:
        s = self.session
        if s is None:
            return ""
        if self.showing_flow():
            return self.flow.describe(q, k)
        from app.viewmodel import rollout_view

        toks = s.labels()
        i, j = rollout_view.cell(s, q, k)  # the filter's row and column -> token positions
        return self.tr("Rollout through layer {0}: {1} ← {2}  {3}").format(
            numbers.position(s.layer), toks[i], toks[j], numbers.rounded(rollout_view.heatmap(s)[q, k]))

    def explain_rollout(self, q: int, k: int) -> None:
        """Explain of one rollout cell: the product it came from (attention.models.rollout.terms)."""
        from app.services import i18n
        from app.viewmodel import rollout_view

        self.rollout_explain.setText("\n".join(rollout_view.explain(self.session, q, k, i18n.current_language())))
        self.rollout_explain.show()

    def _show_next(self) -> None:
        """A decoder's next-token distribution, most likely first (hidden for an encoder)."""
        s = self.session
        top = s.next_text() if s is not None and getattr(s, "is_decoder", False) else []
        self.next_label.setVisible(bool(top))
        if top:
            items = ", ".join(f"{label!r} {numbers.rounded(100 * p)}%" for label, p in top)
            self.next_label.setText(self.tr("Next token (top {0}): {1}").format(len(top), items))

    def _fill_heads(self) -> None:
        s = self.session
        fill_box(self.head_box, [(self.tr("All heads"), -1)]
                 + [(self.tr("Head {0}").format(numbers.position(h)), h) for h in range(s.n_heads)], s.head + 1)

    def set_focus(self, layer: int, head: int) -> None:
        with QSignalBlocker(self.layer_box):
            self.layer_box.setCurrentIndex(layer)
        with QSignalBlocker(self.head_box):
            self.head_box.setCurrentIndex(head + 1)
        self.grid.set_focus(layer, head)
        if self.showing_rollout() or self.showing_flow():
            self._show_what()
        if self.cache.isVisible():
            self._show_cache()

    def set_detached(self, detached: bool) -> None:
        """Say that the document open now is not this model's layer (another file was opened)."""
        self.detached.setVisible(detached)

    def show_problem(self, error: Optional[object]) -> None:
        """A ModelError for the sentences (None: they ran)."""
        self._problem = error
        self._show_status()

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._show_status()

    def _show_status(self) -> None:
        s = self.session
        if self._problem is not None:
            from app.services import i18n

            self._status_style("color: #b00020;")
            self.status.setText(self._problem.text(i18n.current_language()) + " "
                                + self.tr("(the panes keep the last sentences that ran)"))
        elif self._busy:
            self._status_style("color: #555;")
            self.status.setText(self.tr("Computing all layers..."))
        elif s is not None and s.run is not None:
            self._status_style("color: #555;")
            b = s.run.batch
            lens = ", ".join(str(int(n)) for n in b.valid_lens)
            if s.is_pair():
                text = words.text("model_view.pair_status", count=b.L, a=b.sentence_b_start, b=b.L - b.sentence_b_start)
            elif len(b.sentences) == 1:
                text = self.tr("{0} tokens").format(b.L)
            else:
                text = self.tr("{0} positions; the shorter sentence is padded: valid lengths {1}").format(b.L, lens)
            if not getattr(s, "is_decoder", False) and not s.is_pair():
                text += " " + self.tr("(one sentence per line; two make a batch)")
            if hasattr(b, "unknown"):  # how many tokens the model does not know ([UNK]), if any
                from app.services import i18n
                from attention.models.sentences import unknown_text

                unknown = unknown_text(b, i18n.current_language())
                text += f"\n{unknown}" if unknown else ""
            self.status.setText(text)
        else:
            self.status.setText("")

    def _status_style(self, css: str) -> None:
        if self.status.styleSheet() != css:  # a style sheet set again re-polishes the label (0.3 ms an edit)
            self.status.setStyleSheet(css)

    def _describe(self, layer: int, head: int, q: int, k: int) -> str:
        if self.session is None:
            return ""
        return self.session.cell_text(layer, head, q, k, self.tr("Layer {layer}, head {head}: "
                                                                 "{query} → {key}  weight {weight}"))

    # ---- the person's actions -------------------------------------------------------------------
    def commit_sentences(self) -> None:
        """Ask for the sentences now (the pause after typing ends, or a test)."""
        self._timer.stop()
        self.sentencesEdited.emit(sentence_lines(self.box.toPlainText()))

    def set_sentences_text(self, text: str) -> None:
        """Type into the Sentence box (as a person does: the pause timer starts)."""
        dropped = self.box.set_text(text)
        if dropped:
            self._on_capped(dropped)

    def _on_capped(self, dropped: int) -> None:
        self.show_problem(ModelError("sentence_box_capped", most=f"{BOX_CHARS:,}", dropped=f"{dropped:,}"))

    # ---- language --------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            if self.session is not None:
                self.refresh()
        super().changeEvent(event)

    def retranslate(self) -> None:
        s = self.session
        if s is not None:
            c = s.model.config
            self.title.setText(self.tr("{0}: {1} layers × {2} heads, d_model {3}").format(
                s.label, c.n_layers, c.n_heads, c.d_model))
        else:
            self.title.setText(self.tr("No model is open"))
        self.empty.setText(self.tr("Open a BERT-family model folder (config.json, model.safetensors, tokenizer.json) "
                                   "with File ▸ Open model folder..., or the bundled MiniLM with "
                                   "File ▸ MiniLM (bundled)."))
        self.detached.setText(self.tr("The open document is not this model's layer. A click on the grid (or a "
                                      "layer picked) opens that layer as a new document, asking first about "
                                      "unsaved changes."))
        self._label_box()
        self.layer_label.setText(self.tr("Layer"))
        self.head_label.setText(self.tr("Head"))
        self.item_label.setText(self.tr("Model view shows"))
        self.cache.retranslate()
        self.two_label.setText(words.text("model_view.two_as"))
        self.two_box.setItemText(0, words.text("model_view.as_batch"))
        self.two_box.setItemText(1, words.text("model_view.as_pair"))
        for w in (self.two_label, self.two_box):
            w.setToolTip(words.text("model_view.two_as.tip"))
        self.filter_label.setText(words.text("model_view.filter"))
        for i, f in enumerate(FILTERS):
            self.filter_box.setItemText(i, words.text(f"model_view.filter.{f}"))
        for w in (self.filter_label, self.filter_box):
            w.setToolTip(words.text("model_view.filter.tip"))
        self.show_label.setText(self.tr("Show"))
        self.show_box.setItemText(0, self.tr("Attention: layers × heads"))
        self.show_box.setItemText(1, self.tr("Rollout (Abnar & Zuidema)"))
        self.show_box.setItemText(2, words.text("flow_show"))
        self.grid.setToolTip("")
        self._show_status()
