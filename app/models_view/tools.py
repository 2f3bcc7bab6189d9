"""Real models in the window, wired by one call: `install(window)`.

- File ▸ Open model folder... and File ▸ MiniLM (bundled) open a BERT-family folder;
- the Model dock (View ▸ Model view) holds the Sentence box, the layer and head pickers and the
  model-view grid (app.models_view.panel);
- a sentence edit runs the whole model (attention.models, on a worker thread when the batch is
  long), repaints the grid and replaces the document's scenario with the open layer on the new
  hidden states: one undo step, so editing any number afterwards works as for any scenario;
- a click on a grid cell opens that layer with that head focused in the step panes.
The engine then computes the open layer as usual (app.pipeline.recompute): this module never
does attention math itself.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional

from PySide6.QtCore import QEvent, QObject, Qt, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDockWidget, QFileDialog

from app.models_view.panel import ModelPanel
from app.services import devices, i18n
from app.viewmodel.model_session import SYNC_TOKENS, ModelSession
from attention import numbers
from attention.models import bundled
from attention.models.errors import ModelError


class ModelTools(QObject):
    _delivered = Signal(int, object, object)  # generation, ModelRun or None, ModelError or None (queued)

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.session: Optional[ModelSession] = None
        self.generation = 0
        self._busy = 0
        self._pending_head: Optional[int] = None
        self._shown = None  # the last scenario this module put into the document
        self.attached = False  # the document is this model's layer (not a file or preset opened since)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="model-forward",
                                            initializer=devices.leave_a_core_for_the_gui)
        self.panel = ModelPanel()
        self.dock = QDockWidget(window)
        self.dock.setObjectName("model_dock")
        self.dock.setWidget(self.panel)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.hide()
        self.dock_action = self.dock.toggleViewAction()
        self.open_action = QAction(window)
        self.open_action.triggered.connect(lambda: self.open_folder())
        self.bundled_action = QAction(window)
        self.bundled_action.triggered.connect(self.open_bundled)
        self.glassllm_action = QAction(window)
        self.glassllm_action.triggered.connect(self.open_glassllm)
        menu = window.file_menu
        before = window.preset_menu.menuAction()
        menu.insertAction(before, self.open_action)
        menu.insertAction(before, self.bundled_action)
        menu.insertAction(before, self.glassllm_action)
        window.view_menu.addSeparator()
        window.view_menu.addAction(self.dock_action)
        self._delivered.connect(self._on_delivered, Qt.ConnectionType.QueuedConnection)
        self.panel.sentencesEdited.connect(self.set_sentences)
        self.panel.layerChosen.connect(lambda k: self.open_layer(k))
        self.panel.headChosen.connect(self.focus_head)
        self.panel.itemChosen.connect(self._show_item)
        window.inputs.batch_changed.connect(self._on_batch_item)
        self.panel.grid.cellClicked.connect(self.open_layer)
        self.panel.cache.nextRequested.connect(self.next_token)
        window.view.focusHeadChanged.connect(self._on_view_focus)
        window.recompute.ready.connect(self._apply_pending_head)
        window.document.loaded.connect(self._on_document_loaded)
        window.installEventFilter(self)
        window.destroyed.connect(lambda *_: self._executor.shutdown(wait=False, cancel_futures=True))
        self.retranslate()

    # ---- opening a model --------------------------------------------------------------------
    def ask_folder(self) -> Optional[str]:
        """The folder to open, or None (tests replace this method)."""
        path = QFileDialog.getExistingDirectory(self.window, self.tr("Open model folder"), str(Path.home()))
        return path or None

    def open_folder(self, folder: Optional[str | Path] = None, label: Optional[str] = None) -> bool:
        """Open a BERT-family folder: on success the document becomes its layer 0 on the Sentence box's
        sentences; on failure one line says why and the current document stays."""
        folder = folder or self.ask_folder()
        if not folder:
            return False
        return self._open(lambda: ModelSession.open(folder, label),
                          self.tr("Could not open the model folder {0}; the current scenario is "
                                  "unchanged.").format(Path(folder).name))

    def open_glassllm(self) -> bool:
        """File ▸ glassllm (bundled): the trained decoder, a prompt, its layers through the engine."""
        from app.viewmodel.decoder_session import DecoderSession

        return self._open(DecoderSession.open_glassllm, self.tr("Could not open glassllm; the current scenario is "
                                                                "unchanged."))

    def _open(self, make, failed: str) -> bool:
        """Open the session `make()` builds: its layer 1 becomes the document (after Save / Discard /
        Cancel for unsaved changes); on failure one line says why and the current document stays."""
        if not self.window.maybe_save():
            return False
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        # many small matmuls per sentence: torch's spinning intra-op threads cost 10x on a busy
        # 2-core machine (measured: 16 tokens, 50 ms on one thread vs 580 ms on two); the engine's
        # worker lowers the pool the same way for big traces
        devices.leave_a_core_for_the_gui()
        try:
            session = make()
            session.accept(session.compute(session.sentences))
            scenario = session.scenario(0)
        except ModelError as e:
            self.window.show_messages(failed, [e.text(i18n.current_language())])
            return False
        finally:
            QApplication.restoreOverrideCursor()
        self.generation += 1  # a sentence run for the previous model is moot now
        self.session = session
        self.panel.show_session(session)
        self._shown = scenario
        self.window.load_scenario(scenario, {lang: session.label for lang in i18n.LANGUAGES})
        self.dock.show()
        self.window.statusBar().showMessage(self.tr("Opened the model {0}").format(session.label), 5000)
        return True

    def open_bundled(self) -> bool:
        folder = bundled.folder()
        if folder is None:
            self.window.show_messages(self.tr("The bundled MiniLM model is not installed"),
                                      [bundled.install_hint(i18n.current_language())], "warning")
            return False
        return self.open_folder(folder, bundled.LABEL)

    # ---- sentences ----------------------------------------------------------------------------
    def set_sentences(self, sentences: tuple[str, ...]) -> None:
        """Run the model on new sentences; short batches here, long ones on the worker thread."""
        s = self.session
        if s is None:
            return
        self.generation += 1
        gen = self.generation
        if s.token_count(sentences) <= SYNC_TOKENS:
            run, error = self._compute(s, sentences)
            self._deliver(gen, run, error)
            return
        self._set_busy(+1)
        self._executor.submit(self._work, gen, s, sentences)

    @staticmethod
    def _compute(session: ModelSession, sentences):
        try:
            return session.compute(sentences), None
        except ModelError as e:
            return None, e

    def _work(self, gen: int, session: ModelSession, sentences) -> None:
        run, error = self._compute(session, sentences)
        self._delivered.emit(gen, run, error)

    @Slot(int, object, object)
    def _on_delivered(self, gen: int, run, error) -> None:
        self._set_busy(-1)
        self._deliver(gen, run, error)

    def _deliver(self, gen: int, run, error) -> None:
        if gen != self.generation or self.session is None:
            return  # a newer sentence (or another model) is on its way
        if error is not None:
            self.panel.show_problem(error)
            return
        before = self._state()
        self.session.accept(run)
        self.panel.show_problem(None)
        self.panel.refresh()
        if self.attached:  # a detached dock repaints its grid; the document (another file) stays as it is
            self._push(self.session.scenario(), self.tr("Sentence"), before)

    def next_token(self) -> None:
        """Next token (a decoder): append it through the KV cache, show the cache and the check, and make
        the open layer on the longer text the document (one undo step)."""
        s = self.session
        if s is None or s.run is None or not getattr(s, "is_decoder", False):
            return
        self.generation += 1  # a prompt still running on the worker is older than this token
        before = self._state()
        sample, seed = self.panel.cache.sampling()
        try:
            run = s.next_token(sample, seed)
        except ModelError as e:  # the context is full
            self.panel.show_problem(e)
            return
        s.accept(run)
        self.panel.show_session(s)
        if self.attached:
            self._push(s.scenario(), self.tr("Next token"), before)

    def _state(self) -> tuple:
        """What undo must bring back with the document: the session's choices and the scenario
        this module last put in (open_layer compares against it)."""
        return self.session.state(), self._shown

    def _push(self, scenario, text: str, before: tuple) -> None:
        """The open layer's scenario into the document, as one undo step that carries the model
        view's state before and after it (undo / redo restore both together)."""
        self._shown = scenario
        after = self._state()
        made = after[0].nbytes()  # what the model view's state keeps beyond the scenarios (its run is not kept)
        self.window.document.replace(scenario, text, companion=(self._restore, before, after), companion_bytes=made)

    def _restore(self, state: tuple) -> None:
        """Undo / redo of a sentence or layer step: the Sentence box, pickers and grid show what
        the document is about to show (called just before the document swaps its scenario)."""
        if self.session is None:
            return
        if state[1] is self._shown and state[0] == self.session.state():
            return  # the step being pushed: the dock shows it already (a second refresh cost a grid recolour)
        session_state, self._shown = state
        self.generation += 1  # a sentence still running on the worker belongs to the undone state
        self._pending_head = None
        self.session.restore(session_state)
        self.panel.show_session(self.session)
        self._pending_head = session_state.head  # again once the panes hold the restored layer
        self._apply_pending_head()

    def _set_busy(self, delta: int) -> None:
        self._busy += delta
        self.panel.set_busy(self._busy > 0)

    def is_idle(self) -> bool:
        return self._busy == 0

    # ---- layer and head ---------------------------------------------------------------------------
    def open_layer(self, layer: int, head: Optional[int] = None) -> None:
        """Show `layer` in the step panes (its scenario replaces the document: one undo step);
        with `head`, focus that head once the panes hold the new layer."""
        s = self.session
        if s is None or s.run is None:
            return
        if not self.attached or self.window.document.path is not None:
            self._open_as_new(layer, head)
            return
        shown = self.window.document.scenario
        if layer != s.layer or self._shown is None or shown.title != self._shown.title:
            before = self._state()
            self._push(s.scenario(layer), self.tr("Open layer {0}").format(numbers.position(layer)), before)
        s.layer = layer
        if head is not None:
            self.focus_head(head)
        self.panel.set_focus(s.layer, s.head)

    def _open_as_new(self, layer: int, head: Optional[int]) -> None:
        """The document is another file (or this model's layer saved under a name): the layer opens as a
        new, untitled document named for the layer, after Save / Discard / Cancel for unsaved changes;
        it never takes over the previous document's file name."""
        s = self.session
        if not self.window.maybe_save():
            self.panel.set_focus(s.layer, s.head)  # Cancel: the grid keeps showing what is open
            return
        scenario = s.scenario(layer)
        self._shown = scenario
        self.window.load_scenario(scenario, dict(scenario.title))
        if head is not None:
            self.focus_head(head)
        self.panel.set_focus(s.layer, s.head)

    def _on_document_loaded(self) -> None:
        """The dock follows the open document: another file, preset or new scenario detaches it (its grid
        clicks then open a layer as a new document); the model's own layer attaches it again."""
        attached = self.session is not None and self.window.document.scenario is self._shown
        self.attached = attached
        self.panel.set_detached(self.session is not None and not attached)
        if self.session is not None and not attached:
            self._pending_head = None
            self.dock.hide()

    def focus_head(self, head: int) -> None:
        s = self.session
        if s is None:
            return
        s.head = head
        if self.attached:  # a detached dock's head picker leaves the other document's panes alone
            self._pending_head = head
            self._apply_pending_head()
        self.panel.set_focus(s.layer, head)

    def _apply_pending_head(self, *_) -> None:
        """The view knows a head only once it shows a trace with that many heads."""
        head = self._pending_head
        if head is None:
            return
        view = self.window.view
        view.set_focus_head(head)
        if view.focus_head() == head:
            self._pending_head = None

    def _on_view_focus(self, head: int) -> None:
        if self.session is not None and self.attached:  # a preset's heads are not the model's
            self.session.head = head
            self._pending_head = None
            self.panel.set_focus(self.session.layer, head)

    def _show_item(self, item: int) -> None:
        """The model view and the step panes show the same sentence (the Inputs' batch item)."""
        if self.session is None or item == self.session.item:
            return
        self.session.item = item
        self.panel.refresh()
        batch = self.window.inputs.batch
        if item <= batch.maximum():
            batch.setValue(item)

    def _on_batch_item(self, b: int) -> None:
        s = self.session
        if s is not None and s.run is not None and b < len(s.run.batch.sentences):
            self._show_item(b)

    # ---- language -------------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:
        if watched is self.window and event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        return False

    def retranslate(self) -> None:
        self.open_action.setText(self.tr("Open model folder..."))
        self.open_action.setStatusTip(self.tr("Open a BERT-family model folder (config.json, model.safetensors, "
                                              "tokenizer.json) and type sentences through it"))
        self.bundled_action.setText(self.tr("MiniLM (bundled)"))
        self.bundled_action.setStatusTip(self.tr("all-MiniLM-L6-v2: 6 layers x 12 heads, d_model 384 "
                                                 "(weights Apache-2.0)") if bundled.folder() is not None
                                         else bundled.install_hint(i18n.current_language()))
        self.glassllm_action.setText(self.tr("glassllm (bundled)"))
        self.glassllm_action.setStatusTip(self.tr("A trained English decoder: 4 layers x 4 query heads sharing 2 "
                                                  "key/value heads, RoPE, d_model 128 (glassllm, MIT); type a "
                                                  "prompt and see the next token"))
        self.dock.setWindowTitle(self.tr("Model view"))
        self.dock_action.setText(self.tr("Model view"))
        self.panel.retranslate()


def install(window) -> ModelTools:
    return ModelTools(window)
