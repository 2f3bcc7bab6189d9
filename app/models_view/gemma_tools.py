"""File ▸ Gemma 3 270M (bundled): the licence first, the file assembled once, then the model in the Model dock.

What a person sees, in order:

1. the first time (per settings): the Gemma Terms of Use dialog.  It says that Gemma is provided under and
   subject to those terms, where they are (the package's data/GEMMA_TERMS.html; "Read the terms" opens it), and
   goes on only on Accept, which the settings remember; Decline leaves the window as it was, with one line saying
   why nothing opened;
2. the first time the file is needed: a progress dialog while the four chunk packages are assembled into the
   app's data folder (attention.models.gemma3_bundle: sha256 checked, nothing half-written left behind, Cancel
   honoured).  It is not modal and the work runs on the model worker: the window stays usable;
3. the model read on the worker (app.models_view.tools: the document stays until it is ready), then its layer 1
   as the document, the prompt 注意力机制让模型在处理一个词时, the 18 x 4 grid with every row marked ● global or
   ○ local, and under the pickers the key to those marks and the teaching window:
4. "Local window" (a spin box, 1 to the model's own 512): narrowing it runs the prompt again with the local
   layers' window narrowed (one undo step); while it differs from 512 the dock says "altered (its own: 512)" in
   red beside it, and the window title, the Steps header and the layer's title and notes say the model is altered
   and what its own window is.

The attention math stays in attention/ (the model's forward draws the grid, the engine the open layer).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from PySide6.QtCore import QEvent, QObject, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressDialog,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

import attention.words as words
from app.services import i18n
from attention.datamodel import numbers
from attention.models import gemma3_bundle
from attention.models.errors import ModelError

TERMS = "gemma"  # the settings' name of the licence (Settings.terms_accepted)
LABEL = "Gemma 3 270M"
PROGRESS_STEPS = 1000


class TermsDialog(QMessageBox):
    """The Gemma Terms of Use, with Accept / Decline and a button that opens the terms without closing."""

    def __init__(self, parent, path: Path) -> None:
        super().__init__(parent)
        lang = i18n.current_language()
        self.setIcon(QMessageBox.Icon.Information)
        self.setWindowTitle(words.text("gemma.terms.title", lang))
        self.setText(words.text("gemma.terms.text", lang, path=str(path)))
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.path = path
        self.accept_button = self.addButton(words.text("gemma.terms.accept", lang), QMessageBox.ButtonRole.AcceptRole)
        self.decline_button = self.addButton(words.text("gemma.terms.decline", lang),
                                             QMessageBox.ButtonRole.RejectRole)
        self.read_button = self.addButton(words.text("gemma.terms.read", lang), QMessageBox.ButtonRole.HelpRole)
        self.read_button.clicked.disconnect()  # a help button would close the box: this one only opens the file
        self.read_button.clicked.connect(self.read_terms)
        self.setDefaultButton(self.decline_button)
        self.setEscapeButton(self.decline_button)

    def read_terms(self) -> bool:
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.path)))

    def accepted_terms(self) -> bool:
        return self.clickedButton() is self.accept_button


class WindowControl(QWidget):
    """Two short rows (the dock is narrow and, at 1280 x 720, short): the key to the grid's row marks, and the
    teaching window with what it is now (Gemma 3's own, or altered in red); the full sentences are tooltips."""

    windowChosen = Signal(int)

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.legend = QLabel()
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # never widens the dock
        self.label = QLabel()
        self.spin = QSpinBox()
        self.spin.setKeyboardTracking(False)  # typing 4 over 512 is one change, not "4" then more
        self.spin.setRange(1, 512)
        self.state = QLabel()  # "Gemma 3's own window", or "altered (its own: 512)" in red
        self.state.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label)
        row.addWidget(self.spin)
        row.addWidget(self.state, 1)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(2)
        v.addWidget(self.legend)
        v.addLayout(row)
        self.spin.valueChanged.connect(self.windowChosen.emit)
        self.session = None

    def show_session(self, session) -> None:
        """Show the session's window and layer pattern (hidden for a model without local layers)."""
        self.session = session
        on = session is not None and hasattr(session, "window_run") and session.run is not None
        self.setVisible(on)
        if not on:
            return
        self.spin.blockSignals(True)
        self.spin.setMaximum(max(session.own_window, session.window))
        self.spin.setValue(session.window)
        self.spin.blockSignals(False)
        self.retranslate()

    def altered_text(self) -> str:
        """The whole 'altered' line ('' while the window is the model's own)."""
        s, lang = self.session, i18n.current_language()
        if s is None or not hasattr(s, "window_run") or not s.altered():
            return ""
        return words.text("gemma.window.altered", lang, window=numbers.grouped(s.window),
                          own=numbers.grouped(s.own_window))

    def retranslate(self) -> None:
        s = self.session
        lang = i18n.current_language()
        self.label.setText(words.text("gemma.window.label", lang))
        if s is None or not hasattr(s, "window_run"):
            return
        own = numbers.grouped(s.own_window)
        tip = words.text("gemma.window.tip", lang, own=own)
        self.legend.setText(s.legend_short(lang))
        self.legend.setToolTip(s.legend(lang))
        if s.altered():
            self.state.setText(words.text("gemma.window.altered_short", lang, own=own))
            self.state.setStyleSheet("color: #b00020; font-weight: bold;")
            tip = self.altered_text() + "\n\n" + tip
        else:
            self.state.setText(words.text("gemma.window.own", lang))
            self.state.setStyleSheet("color: #555;")
        for w in (self.label, self.spin, self.state):
            w.setToolTip(tip)


class GemmaTools(QObject):
    """The menu entry, the terms, the assembly and the teaching window, on top of app.models_view.tools."""

    _progress = Signal(str, int, int)  # "checking" / "assembling", bytes done, bytes in all (worker -> GUI, queued)

    def __init__(self, tools) -> None:
        super().__init__(tools)
        self.tools = tools
        self.window = tools.window
        self.assembling = False
        self._cancel = False
        self.progress: Optional[QProgressDialog] = None
        self.action = QAction(self.window)
        self.action.triggered.connect(lambda: self.open())
        self.action.setVisible(gemma3_bundle.available())
        menu = self.window.file_menu
        menu.insertAction(self.window.preset_menu.menuAction(), self.action)
        tools.extra_actions.append(self.action)  # disabled with the others while a model loads
        self.control = WindowControl()
        tools.panel.insert_on_page(self.control, before=tools.panel.next_label)
        self.control.hide()
        self.control.windowChosen.connect(self.set_window)
        self._progress.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)
        for signal in (self.window.document.loaded, self.window.document.changed):
            signal.connect(self._follow)
        self.window.installEventFilter(self)
        self.retranslate()

    # ---- opening ------------------------------------------------------------------------------------
    def data_folder(self) -> Path:
        """The app's data folder (the window's settings say where; a test's are a temporary folder)."""
        return Path(self.window.settings.data_folder())

    def open(self) -> bool:
        """File ▸ Gemma 3 270M (bundled): terms, the file (assembled once), then the model on the worker.
        True when the file step started."""
        w, lang = self.window, i18n.current_language()
        if self.assembling or self.tools.is_loading():
            return False
        try:
            terms = gemma3_bundle.terms_path()
            if not w.settings.terms_accepted(TERMS):
                if not self.ask_terms(terms):
                    w.show_messages(words.text("gemma.terms.declined", lang), [], "warning")
                    return False
                w.settings.set_terms_accepted(TERMS)
            gemma3_bundle.chunk_paths()  # a missing part is said now, before any dialog
        except ModelError as e:
            w.show_messages(words.text("gemma.failed", lang), [e.text(lang)])
            return False
        folder = self.data_folder()
        path = gemma3_bundle.target(folder)
        if gemma3_bundle.trusted(path):  # assembled and checked before: straight to the model
            self._assembled(path, None)
            return True
        self.assembling, self._cancel = True, False
        self.action.setEnabled(False)
        self._show_progress()

        def work():
            found = gemma3_bundle.ready(folder, lambda done, total: self._report("checking", done, total))
            return found or gemma3_bundle.assemble(folder, lambda done, total: self._report("assembling", done,
                                                                                            total))

        self.tools._background(work, self._assembled, LABEL)
        return True

    def ask_terms(self, path: Path) -> bool:
        """The terms dialog (modal: nothing opens until it is answered); True on Accept."""
        box = TermsDialog(self.window, path)
        box.exec()
        return box.accepted_terms()

    def _report(self, phase: str, done: int, total: int) -> bool:
        """On the worker: tell the dialog how far; False once the person pressed Cancel."""
        self._progress.emit(phase, done, total)
        return not self._cancel

    def _show_progress(self) -> None:
        d = QProgressDialog("", words.text("gemma.cancel", i18n.current_language()), 0, PROGRESS_STEPS, self.window)
        d.setWindowTitle(LABEL)
        d.setWindowModality(Qt.WindowModality.NonModal)  # the window stays usable meanwhile
        d.setAutoClose(False)
        d.setAutoReset(False)
        d.setMinimumDuration(0)
        d.canceled.connect(self._on_cancel)
        self.progress = d
        self._on_progress("assembling", 0, 1)
        d.show()

    @Slot(str, int, int)
    def _on_progress(self, phase: str, done: int, total: int) -> None:
        d = self.progress
        if d is None:
            return
        lang = i18n.current_language()
        text = (words.text("gemma.bundle.checking", lang) if phase == "checking" else
                words.text("gemma.bundle.assembling", lang, size="253 MB", folder=str(self.data_folder())))
        if d.labelText() != text:
            d.setLabelText(text)
        d.setValue(int(PROGRESS_STEPS * done / max(total, 1)))

    def _on_cancel(self) -> None:
        self._cancel = True

    def _assembled(self, path, error) -> None:
        self.assembling = False
        self.action.setEnabled(not self.tools.is_loading())
        if self.progress is not None:
            self.progress.close()
            self.progress.deleteLater()
            self.progress = None
        lang = i18n.current_language()
        if error is not None:
            self.window.show_messages(words.text("gemma.failed", lang), [error.text(lang)])
            return
        self.window.statusBar().showMessage(words.text("gemma.bundle.ready", lang, path=str(path)), 5000)
        from app.viewmodel.gemma_session import GemmaSession

        self.tools._open_in_background(lambda: GemmaSession.open(path), LABEL)

    # ---- the teaching window ------------------------------------------------------------------------
    def set_window(self, window: int) -> None:
        """Run the prompt again with the local layers' window `window` (on the worker), then one undo step."""
        t = self.tools
        s = t.session
        if s is None or s.run is None or not hasattr(s, "window_run") or int(window) == s.window:
            return
        t.generation += 1
        gen = t.generation
        t._set_busy(+1)

        def done(run, error) -> None:
            t._set_busy(-1)
            if gen != t.generation or t.session is not s:
                self._follow()
                return  # a newer prompt or model is what the window shows now
            if error is not None:
                t.panel.show_problem(error)
                self._follow()
                return
            before = t._state()
            s.accept(run)
            t.panel.show_problem(None)
            t.panel.refresh()
            self._follow()
            lang = i18n.current_language()
            if t.attached:
                t._push(s.scenario(), words.text("gemma.window.edit", lang, window=numbers.grouped(window)), before)

        t._background(lambda: s.window_run(int(window)), done, s.label)

    def _follow(self, *_) -> None:
        """The control shows the open session's window (after a load, an undo, a run)."""
        s = self.tools.session
        self.control.show_session(s if s is not None and self.tools.attached else None)
        if s is not None and hasattr(s, "window_run"):
            from PySide6.QtWidgets import QComboBox

            # "Layer 6 · global (...)" must not widen the dock (the Steps column pays for every pixel)
            box = self.tools.panel.layer_box
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(10)

    # ---- language ----------------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:
        if watched is self.window and event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        return False

    def retranslate(self) -> None:
        lang = i18n.current_language()
        self.action.setText(words.text("gemma.action", lang))
        self.action.setStatusTip(words.text("gemma.tip", lang) if gemma3_bundle.available()
                                 else words.text("gemma.bundle.missing", lang, pip=gemma3_bundle.PIP_NAME))
        self.control.retranslate()


def install(tools) -> GemmaTools:
    return GemmaTools(tools)
