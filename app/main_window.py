"""The explorer window: Parameters | Inputs | Steps, menus, files, language.  Wiring only.

Data flow: a control or a cell pushes an undo command -> the Document swaps its Scenario and
emits `changed` -> the Recomputer runs the engine (coalesced, maybe off-thread) -> `ready`
shows the trace in the StepsView, or `failed` puts each problem line next to the control that
caused it and marks the last good panes stale.

Features (handout, Explain / Compare / Quiz, presentation, ...) install through the typed
`app.features.FeatureHost` the window builds (`_feature_host`); a new one is one line in
`_install_features`.
"""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Optional

from PySide6.QtCore import QCoreApplication, QEvent, QSignalBlocker, Qt, QTimer, QUrl, Slot
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

import resources
from app.editing import mask_painter
from app.editing.inputs_panel import InputsPanel
from app.editing.message_bar import MessageBar
from app.editing.parameter_panel import ParameterPanel
from app.editing.problems import group_by_control, render
from app.editing.window_keys import WindowKeys
from app.features import FeatureHost, Result
from app.models_view import import_layer
from app.models_view import tools as model_tools
from app.panes import pipeline_map
from app.panes.export import export_pane_image, step_to_csv
from app.panes.steps_view import StepsView
from app.pipeline.autosave import Autosaver, Orphan, Skipped, find_orphans
from app.pipeline.disk_stamp import DiskStamp, changed_since, stamp_file
from app.pipeline.document import Document
from app.pipeline.recompute import Recomputer
from app.services import i18n, window_fit
from app.services.settings import Settings
from app.teaching import by_hand, cell_tools, export_menu, scale_locks, token_lines, what_if
from app.teaching.notes_box import NotesBox
from app.teaching.presentation import install as install_presentation
from app.teaching.tiles_view import install as install_tiles
from app.viewmodel.edits import fresh_scenario
from app.viewmodel.file_names import safe_file_name
from attention import Scenario, ScenarioError, Trace, words
from attention.compute.check import problems as scenario_problems
from attention.datamodel.scenario import DEVICES, DTYPES
from attention.files import safe_write, scenario_io
from attention.registry import kinds

INPUT_KEYS = ("queries", "keys", "values")
#: the Steps region never gets narrower than this (a pane and the hover hint stay readable); the
#: Inputs region and the Explain dock give way first.  With the Explain dock at its narrowest the
#: window's minimum width still fits a 1280 px screen (tests/gui/test_window_fit.py).
STEPS_MIN_WIDTH = 380
INPUTS_WIDTH = 400  # what the Inputs region gets when there is room: a 4-column matrix shown whole


def without_mnemonic(text: str) -> str:
    """'&Undo' -> 'Undo', '撤销(&U)' -> '撤销': menu text as a tooltip reads it."""
    return re.sub(r"\(&\w\)", "", text).replace("&", "")


def _controls_can_show(sc: Scenario) -> bool:
    """A scenario that cannot run opens only when the window's choices can show what it holds
    (a scoring kind, device or dtype outside the format's lists has no place in a combo box)."""
    return sc.scoring in kinds.SCORING and sc.device in DEVICES and sc.dtype in DTYPES


class MainWindow(QMainWindow):
    def __init__(self, settings: Optional[Settings] = None, scenario: Optional[Scenario] = None,
                 parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.settings = settings if settings is not None else Settings()
        self.last_trace: Optional[Trace] = None
        self.last_scenario: Optional[Scenario] = None
        self._doc_title: Optional[dict] = None  # preset title {"en", "zh"} while unsaved
        self._caption: Optional[dict] = None  # what part of a model the document is (set_caption)
        self._failed_lines: Optional[list[str]] = None  # the problems on screen now, if any
        self._undo_state: Optional[tuple] = None  # what the Undo/Redo texts were made from
        self.document = Document(scenario if scenario is not None else fresh_scenario(), parent=self)
        self.recompute = Recomputer(self.document, self, hints=lambda: self.view.display_hints())
        self._build_central()
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self.host = self._feature_host()
        self.setAcceptDrops(True)
        self._connect()
        self._install_features()
        self.retranslate()
        self._restore_settings()
        if scenario is None:
            self.open_default()
        self.autosave = Autosaver(self.document, self.settings.data_folder(), self._autosave_description, self)
        self.autosave.failed.connect(self._on_autosave_failed)
        self.autosave.resumed.connect(self._on_autosave_resumed)
        self.recompute.schedule()

    # ---- construction ------------------------------------------------------------------------
    def _build_central(self) -> None:
        self.params = ParameterPanel(self.document)
        self.params_scroll = QScrollArea()
        self.params_scroll.setWidget(self.params)
        self.params_scroll.setWidgetResizable(True)
        self.params_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.params_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.params_scroll.setMinimumWidth(self.params.minimumSizeHint().width() + 24)
        self.inputs = InputsPanel(self.document)
        self.view = StepsView()
        self.region_titles = {key: QLabel() for key in ("params", "inputs", "steps")}
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.notes_scroll = NotesBox(self.notes)  # as tall as the notes, up to a share of the window
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        for key, widget in (("params", self.params_scroll), ("inputs", self.inputs), ("steps", self.view)):
            self.splitter.addWidget(self._region(key, widget))
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 3)
        self.splitter.widget(2).setMinimumWidth(STEPS_MIN_WIDTH)
        self.message_bar = MessageBar()
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.addWidget(self.message_bar)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        self.busy_label = QLabel()
        self.statusBar().addPermanentWidget(self.busy_label)
        self.recovery_label = QLabel()  # "Recovery off" while autosave fails (the reason in its tooltip)
        self.recovery_label.setStyleSheet("color: #b00020; font-weight: bold;")
        self.recovery_label.hide()
        self.statusBar().addPermanentWidget(self.recovery_label)

    def _region(self, key: str, widget: QWidget) -> QWidget:
        box = QWidget()
        v = QVBoxLayout(box)
        v.setContentsMargins(2, 0, 2, 0)
        title = self.region_titles[key]
        title.setStyleSheet("font-weight: bold; font-size: 11pt; padding: 2px 0;")
        title.setWordWrap(key == "steps")  # a model's caption after "Steps" must not widen the region
        v.addWidget(title)
        if key == "inputs":
            v.addWidget(self.notes_scroll)
        v.addWidget(widget, 1)
        return box

    def _build_actions(self) -> None:
        def action(shortcut=None, slot=None) -> QAction:
            a = QAction(self)
            if shortcut is not None:
                a.setShortcuts(shortcut if isinstance(shortcut, list) else QKeySequence.keyBindings(shortcut))
            if slot is not None:
                a.triggered.connect(slot)
            return a

        K = QKeySequence.StandardKey
        self.new_action = action(K.New, self.new_file)
        self.open_action = action(K.Open, lambda: self.open_file())
        self.save_action = action(K.Save, self.save)
        self.save_as_action = action(K.SaveAs, self.save_as)
        self.export_pane_action = action(None, self.export_pane)
        self.export_csv_action = action(None, self.export_csv)
        self.quit_action = action(QKeySequence.keyBindings(K.Quit) or [QKeySequence("Ctrl+Q")], self.close)
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        stack = self.document.undo_stack
        # our own actions, not stack.createUndoAction: that one writes Qt's untranslated "Undo %1"
        # back into the text at every change, so menus and the toolbar stayed English in Chinese
        self.undo_action = action(None, stack.undo)
        self.undo_action.setShortcuts(QKeySequence.keyBindings(K.Undo))
        self.redo_action = action(None, stack.redo)
        for signal in (stack.canUndoChanged, stack.canRedoChanged, stack.undoTextChanged, stack.redoTextChanged):
            signal.connect(self._update_undo_texts)
        redo_keys = QKeySequence.keyBindings(K.Redo)
        for extra in (QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")):
            if extra not in redo_keys:
                redo_keys.append(extra)
        self.redo_action.setShortcuts(redo_keys)
        self.copy_action = action(K.Copy, lambda: self.inputs.current_editor().copy())
        self.paste_action = action(K.Paste, lambda: self.inputs.current_editor().paste())
        for a in (self.copy_action, self.paste_action):
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.inputs.addAction(a)  # only while the Inputs region has focus: spin boxes keep their own copy/paste
        self.lang_group = QActionGroup(self)
        self.lang_actions = {}
        for lang, text in (("en", "English"), ("zh", "中文")):
            a = QAction(text, self, checkable=True)
            a.triggered.connect(lambda _=False, lg=lang: self.set_language(lg))
            self.lang_group.addAction(a)
            self.lang_actions[lang] = a

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("")
        self.file_menu.addAction(self.new_action)
        self.file_menu.addAction(self.open_action)
        self.preset_menu = self.file_menu.addMenu("")
        self.recent_menu = self.file_menu.addMenu("")
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.save_action)
        self.file_menu.addAction(self.save_as_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.export_pane_action)
        self.file_menu.addAction(self.export_csv_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.edit_menu = bar.addMenu("")
        self.edit_menu.addAction(self.undo_action)
        self.edit_menu.addAction(self.redo_action)
        self.edit_menu.addSeparator()
        self.edit_menu.addAction(self.copy_action)
        self.edit_menu.addAction(self.paste_action)
        self.view_menu = bar.addMenu("")
        self.language_menu = self.view_menu.addMenu("")
        for a in self.lang_actions.values():
            self.language_menu.addAction(a)

    def _build_toolbar(self) -> None:
        """The window's toolbar: its own actions; features add theirs through the host."""
        self.toolbar = QToolBar(self)
        self.toolbar.setObjectName("MainToolBar")
        self.toolbar.setMovable(False)
        for action in (self.open_action, self.save_action, None, self.undo_action, self.redo_action):
            if action is None:
                self.toolbar.addSeparator()
            else:
                self.toolbar.addAction(action)
        self.addToolBar(self.toolbar)

    def _feature_host(self) -> FeatureHost:
        """What features may use of this window (app.features), with the groups of its menus."""
        # late-bound: the window's dialogs and messages are looked up per call (tests replace them)
        host = FeatureHost(
            window=self, document=self.document, recompute=self.recompute, view=self.view, inputs=self.inputs,
            settings=self.settings, toolbar=self.toolbar, undo_action=self.undo_action, redo_action=self.redo_action,
            last_result=lambda: self.last_result(), status=lambda text: self.statusBar().showMessage(text, 6000),
            show_messages=lambda title, lines: self.show_messages(title, lines),
            show_error=lambda text: self.show_error(text), run_export=lambda write, path: self._export(write, path),
            ask_save_path=lambda title, name, filters: self.ask_save_path(title, name, filters),
            dialog_dir=lambda: self._dialog_dir())
        host.register_menu("file", self.file_menu, {
            "open": [self.new_action, self.open_action, self.preset_menu.menuAction(), self.recent_menu.menuAction()],
            "save": [self.save_action, self.save_as_action],
            "export": [self.export_pane_action, self.export_csv_action],
            "quit": [self.quit_action]}, last="quit")
        host.register_menu("edit", self.edit_menu, {"undo": [self.undo_action, self.redo_action],
                                                    "clipboard": [self.copy_action, self.paste_action]})
        host.register_menu("view", self.view_menu, {"language": [self.language_menu.menuAction()]})
        return host

    def _install_features(self) -> None:
        """Each feature installs through the host (app.features); the controllers stay reachable."""
        self.handout = export_menu.install(self.host)  # File ▸ Export handout… / worksheet… / Python script…
        self.cell_tools = cell_tools.install(self.host)  # Explain panel, Compare (pin / difference), Quiz
        self.presentation = install_presentation(self.host)  # F5, toolbar button, live slides
        self.token_lines = token_lines.install(self.host)  # View ▸ Token lines (BertViz's head view of the weights)
        self.what_if = what_if.install(self.host)  # View ▸ What if sliders (scale, selected cell; one undo per drag)
        self.by_hand = by_hand.install(self.host)  # View ▸ By-hand layout (Ctrl+Shift+B)
        self.scale_locks = scale_locks.install(self.host)  # View ▸ Lock all colour scales
        self.pipeline_map = pipeline_map.install(self.host)  # the map of steps above the panels, "you are here"
        self.tiles = install_tiles(self.host)  # View ▸ FlashAttention tiles… (tiles and online softmax)
        self.mask_painter = mask_painter.install(self.host)  # Edit ▸ Mask editor… (window; drawn mask)
        # not yet through the host: these two still take the window itself
        self.import_layer = import_layer.install(self)  # File ▸ Import layer… (a trained layer from a weights file)
        self.models = model_tools.install(self)  # File ▸ Open model folder…, the Sentence box, the model view
        self.window_keys = WindowKeys(self)  # Ctrl+E also while a spin box or text field has the focus
        self.window_keys.claim(self.cell_tools.panel_action)

    def last_result(self) -> Optional[Result]:
        """The last trace on screen with its scenario and the batch item shown, or None."""
        if self.last_trace is None or self.last_scenario is None:
            return None
        return Result(self.last_trace, self.last_scenario, self._batch_for(self.last_scenario))

    def _connect(self) -> None:
        doc = self.document
        doc.undo_stack.cleanChanged.connect(self._on_clean_changed)
        doc.path_changed.connect(self._update_title)
        doc.loaded.connect(self._on_loaded)
        doc.changed.connect(self._show_notes)  # undo / redo of a step that changed them (a model's sentence)
        self.recompute.ready.connect(self._on_ready)
        self.recompute.failed.connect(self._on_failed)
        self.recompute.busy_changed.connect(self._on_busy)
        self.inputs.batch_changed.connect(self._show_batch)
        self.params.edit_matrix.connect(self.inputs.open_matrix)
        for editor in (*self.inputs.editors.values(), self.params.valid_editor):
            editor.message.connect(self._status)

    @Slot(bool)
    def _on_clean_changed(self, clean: bool) -> None:
        self.setWindowModified(not clean)

    @Slot(str)
    def _status(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    # ---- settings ----------------------------------------------------------------------------
    def _restore_settings(self) -> None:
        self._restore_geometry()
        self._share_regions()
        for name, splitter in self._splitters().items():
            state = self.settings.splitter_state(name)
            if state is not None:
                splitter.restoreState(state)
        lang = self.settings.language() or i18n.system_language()
        self.set_language(lang, remember=False)
        self._rebuild_recent_menu()

    def _restore_geometry(self) -> None:
        """The remembered size and place when they still fit a screen attached now, else the
        window fitted to its screen (app.services.window_fit): never title-bar buttons or a status
        bar off-screen."""
        geometry = self.settings.geometry()
        if geometry is not None and self.restoreGeometry(geometry):
            normal = self.normalGeometry() if self.normalGeometry().isValid() else self.geometry()
            if window_fit.fits_a_screen(normal, [s.availableGeometry() for s in QGuiApplication.screens()]):
                return
            self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMaximized)
        screen = self.screen() or QGuiApplication.primaryScreen()
        place = window_fit.first_placement(screen.availableGeometry())
        self.setGeometry(place.rect)
        if place.maximized:
            self.setWindowState(self.windowState() | Qt.WindowState.WindowMaximized)

    def _share_regions(self) -> None:
        """Parameters | Inputs | Steps for the width the window opens at (a remembered splitter
        state replaces it): Parameters as narrow as they go, Inputs up to INPUTS_WIDTH (a 4-column
        matrix whole) while Steps keep STEPS_MIN_WIDTH, Steps the rest."""
        width = self.geometry().width() - 16  # margins and the splitter's handles
        panel = self.cell_tools.panel
        if not panel.isHidden() and not panel.isFloating():
            width -= panel.sizeHint().width() + 6
        params = self.splitter.widget(0).minimumSizeHint().width()
        inputs_min = self.splitter.widget(1).minimumSizeHint().width()
        inputs = max(inputs_min, min(INPUTS_WIDTH, round(0.3 * width), width - params - STEPS_MIN_WIDTH))
        self.splitter.setSizes([params, inputs, max(STEPS_MIN_WIDTH, width - params - inputs)])

    def _splitters(self) -> dict[str, QSplitter]:
        return {"main": self.splitter, "inputs": self.inputs.splitter}

    def _save_settings(self) -> None:
        self.settings.set_geometry(self.saveGeometry())
        for name, splitter in self._splitters().items():
            self.settings.set_splitter_state(name, splitter.saveState())
        self.settings.sync()

    # ---- engine results ----------------------------------------------------------------------
    def _on_ready(self, trace: Trace, scenario: Scenario, seconds: float) -> None:
        self._failed_lines = None
        self.last_trace, self.last_scenario = trace, scenario
        self.view.show_trace(trace, scenario, batch=self._batch_for(scenario))
        self.view.set_stale(False, "")
        self.params.clear_problems()
        self.inputs.show_problems({})
        if self.message_bar.source == "engine":
            self.message_bar.clear()
        if trace.warnings:
            self.message_bar.show_message(self.tr("Note"), list(trace.warnings), "warning", "engine")
        self.statusBar().showMessage(self.tr("Computed all steps in {0:.0f} ms").format(seconds * 1000), 4000)

    def _on_failed(self, lines: list, scenario: Scenario) -> None:
        """`lines`: the problems (attention.datamodel.problem.Problem) that stop the engine."""
        self._failed_lines = list(lines)
        grouped = group_by_control(lines)
        leftover = self.params.show_problems(lines)
        self.inputs.show_problems(grouped)
        leftover = [line for line in leftover if group_by_control([line]).keys().isdisjoint(INPUT_KEYS)]
        if leftover:
            self.message_bar.show_message(self.tr("Cannot compute this scenario"), leftover, "error", "engine")
        elif self.message_bar.source == "engine":
            self.message_bar.clear()
        reason = render(lines[0] if lines else "").rstrip(".")
        if len(lines) > 1:
            reason += " " + self.tr("(and {0} more; see the messages next to the controls)").format(len(lines) - 1)
        self.view.set_stale(True, reason)
        self.statusBar().showMessage(reason, 8000)

    #: a computation shorter than this never greys the panes: a 128-token sentence edit (about 80 ms) greyed
    #: and un-greyed every pane's title (a relayout each way) for a result that was there a moment later
    STALE_AFTER_MS = 150

    def _on_busy(self, busy: bool) -> None:
        self.busy_label.setText(self.tr("Computing...") if busy else "")
        timer = getattr(self, "_stale_timer", None)
        if timer is None:
            timer = self._stale_timer = QTimer(self)
            timer.setSingleShot(True)
            timer.timeout.connect(self._grey_while_computing)
        if busy:
            timer.start(self.STALE_AFTER_MS)
        else:
            timer.stop()

    def _grey_while_computing(self) -> None:
        # grey the panes only when they show another scenario's numbers: before the first result
        # there are none to call "the last good result", and a start-up trace kept from the last
        # launch (attention.files.trace_cache) is this very scenario's
        if (self.recompute.is_busy() and self.view.current_trace() is not None
                and self.last_scenario is not self.document.scenario):
            self.view.set_stale(True, self.tr("computing"))

    def _batch_for(self, scenario: Scenario) -> int:
        return min(self.inputs.current_batch(), scenario.batch - 1)

    def _show_batch(self, batch: int) -> None:
        if self.last_trace is not None and batch < self.last_scenario.batch:
            self.view.show_trace(self.last_trace, self.last_scenario, batch=batch)

    # ---- files -------------------------------------------------------------------------------
    def ask_save_changes(self) -> QMessageBox.StandardButton:
        """Save / Discard / Cancel for unsaved changes (tests replace this method)."""
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Unsaved changes"),
                          self.tr("\"{0}\" has changes that are not saved. Save them first?").format(
                              self.document_name()),
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel,
                          self)
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        return QMessageBox.StandardButton(box.exec())

    def ask_open_path(self) -> Optional[str]:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open scenario"), self._dialog_dir(),
                                              self.tr("Scenario files (*.json);;All files (*)"))
        return path or None

    def ask_save_path(self, title: str, name: str, filters: str) -> Optional[str]:
        path, _ = QFileDialog.getSaveFileName(self, title, str(Path(self._dialog_dir()) / name), filters)
        return path or None

    def ask_choice(self, title: str, label: str, items: list[str]) -> Optional[int]:
        """Index of the chosen item, or None (tests replace this method)."""
        if not items:
            return None
        text, ok = QInputDialog.getItem(self, title, label, items, 0, False)
        return items.index(text) if ok and text in items else None

    def _dialog_dir(self) -> str:
        if self.document.path is not None:
            return str(self.document.path.parent)
        recent = self.settings.recent_files()
        return str(Path(recent[0]).parent) if recent else str(Path.home())

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current document (saved, discarded or unchanged)."""
        if not self.document.is_modified():
            return True
        choice = self.ask_save_changes()
        if choice == QMessageBox.StandardButton.Save:
            return self.save()
        return choice == QMessageBox.StandardButton.Discard

    def new_file(self) -> bool:
        if not self.maybe_save():
            return False
        self._doc_title = None
        self.document.load(fresh_scenario(), None)
        return True

    def open_file(self, path: Optional[str] = None) -> bool:
        if not self.maybe_save():
            return False
        path = path or self.ask_open_path()
        return bool(path) and self.load_path(path)

    def load_path(self, path: str | Path) -> bool:
        """Open a scenario file.  One that cannot be read or parsed changes nothing and every
        problem is listed; one that parses but cannot run opens anyway (nothing saved is ever
        locked out): its problems appear next to their controls and the panes keep the last
        good numbers, marked stale, as while editing."""
        path = Path(path)
        safe_write.remove_stale(path)  # leftovers of this file's interrupted saves
        data: Optional[bytes] = None
        try:
            data, stamp = _read_stamped(path)
            scenario, problems = scenario_io.loads(data), []
        except ScenarioError as e:
            try:
                if data is None:  # not read at all
                    raise
                scenario, problems = scenario_io.loads(data, check=False), list(e.problems)
                if not _controls_can_show(scenario):
                    raise ScenarioError(e.problems, e.omitted)
            except ScenarioError:
                self.show_messages(self.tr("Could not open {0}; the current scenario is unchanged.").format(path.name),
                                   list(e.problems), omitted=e.omitted)
                return False
        self._doc_title = None
        self.document.load(scenario, path, stamp)
        self.settings.add_recent(path)
        self._rebuild_recent_menu()
        if problems:
            self.show_messages(self.tr("Opened {0}, but it cannot be computed as it stands: fix the problems shown "
                                       "next to their controls (the panes keep the last good numbers).")
                               .format(path.name), [], "warning")  # the lines themselves: by their controls
        else:
            self.statusBar().showMessage(self.tr("Opened {0}").format(path), 5000)
        return True

    def open_preset(self, path: Path, title: dict) -> bool:
        if not self.maybe_save():
            return False
        return self._load_preset(path, title)

    def _load_preset(self, path: Path, title: dict) -> bool:
        try:
            scenario = scenario_io.load(path)
        except ScenarioError as e:
            self.show_messages(self.tr("Could not open the preset {0}").format(path.name), list(e.problems),
                               omitted=e.omitted)
            return False
        self._doc_title = {lang: title.get(lang) or path.stem for lang in i18n.LANGUAGES}
        self.document.load(scenario, None)
        return True

    def load_scenario(self, scenario: Scenario, title: Optional[dict] = None) -> None:
        """A new, unsaved document made elsewhere (a model's layer): fresh undo history; `title`
        {"en", "zh"} names it until it is saved.  The caller asks maybe_save first."""
        self._doc_title = {lang: (title or {}).get(lang) or self.tr("Untitled") for lang in i18n.LANGUAGES}
        self.document.load(scenario, None)

    def open_default(self) -> None:
        """The seed's toy preset (the first preset), else a fresh scenario."""
        presets = resources.list_presets()
        if not presets or not self._load_preset(*presets[0]):
            self._doc_title = None
            self.document.load(fresh_scenario(), None)

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self.write(self.document.path)

    def save_as(self) -> bool:
        name = safe_file_name(self.document_name(), ".json")  # a preset's title may hold a ':' (not on Windows)
        path = self.ask_save_path(self.tr("Save scenario as"), name, self.tr("Scenario files (*.json)"))
        if not path:
            return False
        path = Path(path)
        if path.suffix.lower() != ".json":
            path = path.with_name(path.name + ".json")
        return self.write(path)

    def ask_overwrite_protected(self, path: Path) -> bool:
        """Replace a write-protected file?  (tests replace this method)"""
        answer = QMessageBox.question(
            self, self.tr("Write-protected file"),
            self.tr("\"{0}\" is write-protected. Replace it anyway (it stays write-protected)?").format(path.name),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def ask_overwrite_changed(self, path: Path, now: DiskStamp) -> str:
        """"overwrite", "save_as" or "cancel" when `path` changed on disk since this window
        opened or last saved it (another window or program wrote it).  Tests replace this."""
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("File changed on disk"),
                          self.changed_on_disk_text(path, now), QMessageBox.StandardButton.NoButton, self)
        overwrite = box.addButton(self.tr("Overwrite"), QMessageBox.ButtonRole.DestructiveRole)
        save_as = box.addButton(self.tr("Save As..."), QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(save_as)
        box.setEscapeButton(cancel)
        box.exec()
        return {overwrite: "overwrite", save_as: "save_as"}.get(box.clickedButton(), "cancel")

    def changed_on_disk_text(self, path: Path, now: DiskStamp) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now.mtime_ns / 1e9))
        return self.tr("\"{0}\" was changed on disk at {1}, after this window opened or last saved it (another "
                       "window or program wrote it). Saving now would replace that version with yours. "
                       "Overwrite it, save yours under another name, or cancel?").format(path.name, when)

    def _replaces_a_changed_file(self, path: Path) -> Optional[str]:
        """None to go on writing `path`; "save_as" or "cancel" when it is the document's own file,
        changed on disk since it was opened or saved, and the person would rather not replace it."""
        doc = self.document
        if doc.path is None or doc.disk_stamp is None or not _same_file(path, doc.path):
            return None
        now = changed_since(path, doc.disk_stamp)
        if now is None:
            return None
        choice = self.ask_overwrite_changed(path, now)
        return None if choice == "overwrite" else choice

    def write(self, path: Path) -> bool:
        sc = self.document.scenario
        refused = self._replaces_a_changed_file(path)
        if refused == "save_as":
            return self.save_as()
        if refused:
            self.statusBar().showMessage(self.tr("Not saved: {0} was changed on disk").format(path), 8000)
            return False
        try:
            try:
                scenario_io.save(sc, path)
            except scenario_io.WriteProtectedError:
                if not self.ask_overwrite_protected(path):
                    self.statusBar().showMessage(self.tr("Not saved: {0} is write-protected").format(path), 8000)
                    return False
                scenario_io.save(sc, path, overwrite_protected=True)
        except ScenarioError as e:
            self.show_messages(self.tr("Could not save {0}; nothing was written.").format(path.name), list(e.problems),
                               omitted=e.omitted)
            return False
        self.document.mark_saved(path, stamp_file(path))
        self.settings.add_recent(path)
        self._rebuild_recent_menu()
        try:
            cannot_run = scenario_problems(sc)
        except (OverflowError, ValueError) as e:  # numbers too big to even check
            cannot_run = [f"sizes: {e}"]
        if cannot_run:  # saved (work is never lost), but say it will not compute as it stands
            self.show_messages(self.tr("Saved {0}, but it cannot be computed as it stands; it opens with these "
                                       "problems next to their controls.").format(path.name), cannot_run, "warning")
        else:
            self.statusBar().showMessage(self.tr("Saved {0}").format(path), 5000)
        return True

    def show_messages(self, title: str, lines: list, level: str = "error", omitted: int = 0) -> None:
        self.message_bar.show_message(title, lines, level, omitted=omitted)
        self.statusBar().showMessage(title, 8000)

    def show_error(self, text: str) -> None:
        """An unexpected error (the excepthook): one line, the work is kept."""
        self.show_messages(self.tr("Something went wrong; your work is kept."), [text])

    # ---- exports -----------------------------------------------------------------------------
    def _step_names(self, ids: list[str]) -> list[str]:
        lang = i18n.current_language()
        return [f"{self.last_trace[s].title[lang]}  ({s})" if s in self.last_trace else s for s in ids]

    def export_pane(self) -> bool:
        if self.last_trace is None:
            self.show_messages(self.tr("Nothing to export yet: no step has been computed."), [])
            return False
        ids = list(self.view.pane_ids())
        i = self.ask_choice(self.tr("Export pane as image"), self.tr("Pane"), self._step_names(ids))
        if i is None:
            return False
        path = self.ask_save_path(self.tr("Export pane as image"), f"{ids[i]}.png",
                                  self.tr("PNG image (*.png);;SVG drawing (*.svg)"))
        if not path:
            return False
        if Path(path).suffix.lower() not in (".png", ".svg"):
            path += ".png"
        return self._export(lambda: export_pane_image(self.view, ids[i], path), path)

    def export_csv(self) -> bool:
        if self.last_trace is None:
            self.show_messages(self.tr("Nothing to export yet: no step has been computed."), [])
            return False
        ids = list(self.last_trace.ids)
        i = self.ask_choice(self.tr("Export step as CSV"), self.tr("Step"), self._step_names(ids))
        if i is None:
            return False
        refusal = self.cell_tools.quiz.export_refusal(ids[i])  # a quiz's hidden numbers stay hidden
        if refusal:
            self.show_messages(refusal, [])
            return False
        path = self.ask_save_path(self.tr("Export step as CSV"), f"{ids[i]}.csv", self.tr("CSV files (*.csv)"))
        if not path:
            return False
        if Path(path).suffix.lower() != ".csv":
            path += ".csv"
        batch = self._batch_for(self.last_scenario)
        trace, scenario = self.last_trace, self.last_scenario
        return self._export(lambda: step_to_csv(trace, ids[i], batch, path, labels=scenario), path)

    def _export(self, write, path: str) -> bool:
        try:
            write()
        except (OSError, ValueError) as e:
            self.show_messages(self.tr("Could not export {0}").format(Path(path).name), [str(e)])
            return False
        self.statusBar().showMessage(self.tr("Exported {0}").format(path), 5000)
        return True

    # ---- menus that list things --------------------------------------------------------------
    def _rebuild_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.settings.recent_files()
        for f in files:
            a = self.recent_menu.addAction(Path(f).name)
            a.setToolTip(f)
            a.setStatusTip(f)
            a.triggered.connect(lambda _=False, p=f: self._open_recent(p))
        self.recent_menu.setEnabled(bool(files))

    def _open_recent(self, path: str) -> None:
        if not Path(path).exists():
            self.settings.remove_recent(path)
            self._rebuild_recent_menu()
            self.show_messages(self.tr("Could not open {0}").format(path), [self.tr("file: it no longer exists")])
            return
        self.open_file(path)

    def _rebuild_preset_menu(self) -> None:
        self.preset_menu.clear()
        lang = i18n.current_language()
        for path, title in resources.list_presets():
            a = self.preset_menu.addAction(title.get(lang) or path.stem)
            a.setStatusTip(path.name)
            a.triggered.connect(lambda _=False, p=path, t=title: self.open_preset(p, t))

    # ---- language ------------------------------------------------------------------------------
    def set_language(self, lang: str, remember: bool = True) -> None:
        lang = i18n.set_language(lang)
        # Qt posts LanguageChange to every window; deliver it now so all widgets switch together
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
        with QSignalBlocker(self.lang_group):
            self.lang_actions[lang].setChecked(True)
        if remember:
            self.settings.set_language(lang)
        self.view.set_language(lang)
        self.retranslate()
        self._show_notes()
        if self._failed_lines and self.last_scenario is not None:
            self._on_failed(self._failed_lines, self.document.scenario)  # the stale reason, re-worded

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.file_menu.setTitle(self.tr("&File"))
        self.edit_menu.setTitle(self.tr("&Edit"))
        self.view_menu.setTitle(self.tr("&View"))
        self.language_menu.setTitle(self.tr("Language"))
        self.preset_menu.setTitle(self.tr("Open preset"))
        self.recent_menu.setTitle(self.tr("Recent files"))
        for a, text, tip in (
            (self.new_action, self.tr("&New"), self.tr("Start a small fresh scenario")),
            (self.open_action, self.tr("&Open..."), self.tr("Open a scenario file (.json)")),
            (self.save_action, self.tr("&Save"), self.tr("Save the scenario")),
            (self.save_as_action, self.tr("Save &As..."), self.tr("Save the scenario under a new name")),
            (self.export_pane_action, self.tr("Export pane as PNG or SVG..."),
             self.tr("Save one step pane as an image")),
            (self.export_csv_action, self.tr("Export step as CSV..."),
             self.tr("Save the numbers of one step as a table")),
            (self.quit_action, self.tr("&Quit"), self.tr("Close the window")),
            (self.copy_action, self.tr("&Copy cells"), self.tr("Copy the selected cells as tab-separated text")),
            (self.paste_action, self.tr("&Paste cells"), self.tr("Paste a spreadsheet block at the current cell")),
        ):
            a.setText(text)
            a.setStatusTip(tip)
            a.setToolTip(tip)
        self._update_undo_texts()
        self.region_titles["params"].setText(self.tr("Parameters"))
        self.region_titles["inputs"].setText(self.tr("Inputs"))
        self.region_titles["steps"].setText(self.tr("Steps"))
        self.toolbar.setWindowTitle(self.tr("Toolbar"))
        self._rebuild_preset_menu()
        self._update_title()
        self.host.retranslate()
        problem = self.autosave.problem if hasattr(self, "autosave") else None
        if problem:  # "Recovery off" and its reason in the new language
            on_bar = self.message_bar.source == "autosave" and not self.message_bar.isHidden()
            self._show_recovery_off(problem, bar=on_bar)

    def _update_undo_texts(self, *_) -> None:
        """"Undo Edit cell (1, 2)": the menu item and the tooltip name the step it takes back, in
        the UI language.  The toolbar button keeps a short fixed word: named after the step, it
        changed width at every edit and pushed the buttons after it around (and relaid the
        toolbar out on every keystroke)."""
        stack = self.document.undo_stack
        state = (stack.canUndo(), stack.undoText(), stack.canRedo(), stack.redoText(), i18n.current_language())
        if state == self._undo_state:  # one push emits four signals; the texts change once
            return
        self._undo_state = state
        for a, can, what, plain, named, short in (
            (self.undo_action, stack.canUndo(), stack.undoText(), self.tr("&Undo"), self.tr("&Undo {0}"),
             self.tr("Undo")),
            (self.redo_action, stack.canRedo(), stack.redoText(), self.tr("&Redo"), self.tr("&Redo {0}"),
             self.tr("Redo")),
        ):
            text = named.format(what) if can and what else plain
            a.setEnabled(can)
            a.setText(text)
            a.setIconText(short)
            a.setToolTip(without_mnemonic(text))

    def document_name(self) -> str:
        """The file name, else the preset's title in the current language, else "Untitled"."""
        if self.document.path is not None:
            return self.document.path.name
        if self._caption:
            return self._caption[i18n.current_language()]
        if self._doc_title:
            return self._doc_title[i18n.current_language()]
        return self.tr("Untitled")

    def set_caption(self, caption: Optional[dict]) -> None:
        """What part of a model the document is, {"en", "zh"} ("MiniLM · layer 3 · head 2"), or None:
        it names the unsaved document in the title bar and follows "Steps" in that region's header."""
        self._caption = caption
        self._update_title()

    def _update_title(self) -> None:
        name = self.document_name()
        self.setWindowTitle(self.tr("{0}[*] - Attention Explorer").format(name))
        self.setWindowModified(self.document.is_modified())
        steps = self.tr("Steps")
        self.region_titles["steps"].setText(steps if not self._caption else words.text(
            "model_view.steps_caption", steps=steps, caption=self._caption[i18n.current_language()]))

    def _on_loaded(self) -> None:
        """Another scenario: its steps are read from the top (the old scroll position belonged
        to the old one)."""
        self.last_trace = None
        self.view.scroll.verticalScrollBar().setValue(0)
        self.message_bar.clear()
        self._update_title()
        self._show_notes()

    def _show_notes(self) -> None:
        notes = self.document.scenario.notes or {}
        text = notes.get(i18n.current_language()) or notes.get("en") or ""
        if text == self.notes.text() and self.notes_scroll.isVisible() == bool(text):
            return  # the commonest change (a typed number) leaves them as they are
        self.notes_scroll.set_text(text)
        self.notes_scroll.setVisible(bool(text))

    # ---- drag and drop -------------------------------------------------------------------------
    @staticmethod
    def _dropped_file(urls: list[QUrl]) -> Optional[str]:
        for url in urls:
            if url.isLocalFile() and url.toLocalFile().lower().endswith(".json"):
                return url.toLocalFile()
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and self._dropped_file(event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        self.dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        path = self._dropped_file(event.mimeData().urls()) if event.mimeData().hasUrls() else None
        if path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.open_file(path)

    # ---- autosave and crash recovery ----------------------------------------------------------
    def _autosave_description(self) -> dict:
        """What an autosave records besides the scenario: the file or preset it came from."""
        path, stamp = self.document.path, self.document.disk_stamp
        return {"source": str(path) if path is not None else None, "title": self._doc_title,
                "source_stamp": stamp.to_json() if path is not None and stamp is not None else None}

    def _on_autosave_failed(self, why: str) -> None:
        """Recovery is off: say so where a person looks (the message bar, once per reason: a
        failure at every edit must not keep bringing it back), and keep it on the status bar."""
        said = self.recovery_label.isVisibleTo(self) and self.recovery_label.toolTip() == self._recovery_tip(why)
        self._show_recovery_off(why, bar=not said)

    def _recovery_tip(self, why: str) -> str:
        return self.tr("Autosave failed: {0}").format(why)

    def _show_recovery_off(self, why: str, bar: bool) -> None:
        self.recovery_label.setText(self.tr("Recovery off"))
        self.recovery_label.setToolTip(self._recovery_tip(why))
        self.recovery_label.show()
        if bar:
            self.message_bar.show_message(
                self.tr("Recovery is off: the unsaved changes could not be autosaved ({0}). "
                        "Save your work to keep it.").format(why), [], "warning", "autosave")

    def _on_autosave_resumed(self) -> None:
        self.recovery_label.hide()
        if self.message_bar.source == "autosave":
            self.message_bar.clear()
        self.statusBar().showMessage(self.tr("Autosave works again: recovery is on"), 6000)

    def ask_restore(self, orphan: Orphan) -> str:
        """"restore", "discard" or "later" for unsaved changes a crashed window left (tests
        replace this method)."""
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Restore unsaved changes?"), self.restore_text(orphan),
                          QMessageBox.StandardButton.NoButton, self)
        restore = box.addButton(self.tr("Restore"), QMessageBox.ButtonRole.AcceptRole)
        discard = box.addButton(self.tr("Discard them"), QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(self.tr("Not now"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(restore)
        box.exec()
        return {restore: "restore", discard: "discard"}.get(box.clickedButton(), "later")

    def restore_text(self, orphan: Orphan) -> str:
        """What and when, in the window's language."""
        name = orphan.name(i18n.current_language()) or self.tr("Untitled")
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(orphan.saved_at))
        sc = orphan.scenario
        sizes = f"B={sc.batch} L={sc.L} S={sc.S} d_model={sc.d_model} H={sc.n_heads}"
        text = self.tr("Attention Explorer did not close normally. It kept the changes to \"{0}\" that were not "
                       "saved ({1}), as they were at {2}. Restore them? You can then save them or keep editing.")\
            .format(name, sizes, when)
        newer = orphan.disk_changed()
        if newer is not None:
            text += " " + self.tr("The file on disk is newer: it was changed at {0}, after these changes began. "
                                  "Saving will ask before replacing it.").format(
                time.strftime("%Y-%m-%d %H:%M", time.localtime(newer.mtime_ns / 1e9)))
        return text

    def offer_recovery(self) -> bool:
        """Offer the autosaves of windows that did not close normally, newest first; True
        when one was restored (this window then holds it, modified, under its old name)."""
        skipped: list[Skipped] = []
        orphans = find_orphans(self.autosave.folder, skipped)
        restored = False
        for orphan in orphans:
            if restored:
                orphan.release()  # one document per window: the others wait for the next launch
                continue
            choice = self.ask_restore(orphan)
            if choice == "restore" and self.maybe_save():
                self._doc_title = orphan.title if not orphan.source else None
                # the stamp of the file the changes began from: a save over a file changed since asks
                self.document.load(orphan.scenario, Path(orphan.source) if orphan.source else None,
                                   orphan.base_stamp())
                self.document.undo_stack.resetClean()  # unsaved: the title shows *, quitting asks
                orphan.remove()
                self._update_title()
                self.statusBar().showMessage(self.tr("Restored the unsaved changes to {0}")
                                             .format(self.document_name()), 8000)
                restored = True
            elif choice == "discard":
                orphan.remove()
            else:
                orphan.release()
        if skipped:  # after a restore, which clears the message bar
            self._show_skipped(skipped)
        return restored

    def _show_skipped(self, skipped: list[Skipped]) -> None:
        lines = [self.tr("{0}: {1}; set aside as {2}").format(s.file.name, s.reason, s.kept_as.name) if s.kept_as
                 else self.tr("{0}: {1}").format(s.file.name, s.reason) for s in skipped]
        self.show_messages(self.tr("Skipped {0} damaged autosave(s) in {1}; they are not offered.")
                           .format(len(skipped), self.autosave.folder), lines, "warning")

    # ---- closing -------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self._save_settings()
        self.autosave.close()  # a normal quit: the changes were saved or discarded
        self.recompute.shutdown()
        event.accept()


def _read_stamped(path: Path) -> tuple[bytes, DiskStamp]:
    """The scenario file's bytes and their stamp: the hash is of the very bytes parsed, so a
    file rewritten while it is read never passes for the version this window holds."""
    try:
        mtime = path.stat().st_mtime_ns
    except (OSError, ValueError):
        mtime = 0  # read_file says why it cannot be read
    data = scenario_io.read_file(path)
    return data, DiskStamp.of_bytes(data, mtime)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return a == b
