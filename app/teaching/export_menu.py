"""The window's File menu entries for printed pages: Export handout…, Export worksheet…, Export as Python script….

The pages themselves are app.teaching.handout's (a picture of every step and one HTML page) and
app.teaching.worksheet's (chosen steps left blank, and the answer key); this module only asks where
and writes them, so that neither of the two has to import the other.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from PySide6.QtCore import QCoreApplication, QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QFileDialog

from app.teaching import worksheet
from app.teaching.handout import export_start_dir, write_handout
from app.viewmodel.export_errors import cannot_write

if TYPE_CHECKING:
    from app.features import FeatureHost
    from attention import Trace


# ---- the window's File menu -----------------------------------------------------------------------
class HandoutActions(QObject):
    """"Export handout…" and "Export as Python script…" in the window's File menu, after the
    other exports.  Tests replace `ask_folder` (the folder dialog); the script's file dialog is
    the host's `ask_save_path`."""

    def __init__(self, host: "FeatureHost") -> None:
        super().__init__(host.window)
        self.host = host
        self.handout_action = QAction(host.window)
        self.handout_action.triggered.connect(self.export_handout)
        self.worksheet_action = QAction(host.window)
        self.worksheet_action.triggered.connect(self.export_worksheet)
        self.script_action = QAction(host.window)
        self.script_action.triggered.connect(self.export_script)
        host.add_action(self.handout_action, "file", group="export")
        host.add_action(self.worksheet_action, "file", group="export")
        host.add_action(self.script_action, "file", group="export")
        host.on_language_change(self.retranslate)
        self.retranslate()

    def retranslate(self) -> None:
        for a, text, tip in (
            (self.handout_action, QCoreApplication.translate("Handout", "Export handout..."),
             QCoreApplication.translate("Handout",
                                        "Write a picture of every step and one HTML page to print or share")),
            (self.worksheet_action, QCoreApplication.translate("Handout", "Export worksheet..."),
             QCoreApplication.translate("Handout", "Write a handout with chosen steps left blank for students "
                                                   "to fill in, and its answer key")),
            (self.script_action, QCoreApplication.translate("Handout", "Export as Python script..."),
             QCoreApplication.translate("Handout", "Write a plain torch script that recomputes every step")),
        ):
            a.setText(text)
            a.setStatusTip(tip)
            a.setToolTip(tip)

    def ask_folder(self) -> Optional[str]:
        path = QFileDialog.getExistingDirectory(
            self.host.window, QCoreApplication.translate("Handout", "Export handout to folder"),
            export_start_dir(self.host.dialog_dir()))
        return path or None

    def ask_worksheet_steps(self, trace: "Trace") -> Optional[list[str]]:
        """The steps to leave blank (a dialog; tests replace this)."""
        return worksheet.ask_steps(self.host, trace)

    def _last_computed(self, nothing: str):
        """The last computed result, or None after saying `nothing` (no step computed yet)."""
        last = self.host.last_result()
        if last is None:
            self.host.show_messages(nothing, [])
        return last

    def _write(self, write: Callable[[], None], folder: str) -> bool:
        """`write` through the host's export (its refusals shown), with the wait cursor while it draws."""
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            return self.host.run_export(write, folder)
        finally:
            QApplication.restoreOverrideCursor()

    def export_worksheet(self) -> bool:
        """File ▸ Export worksheet…: choose the steps, then the folder; write both pages."""
        last = self._last_computed(
            QCoreApplication.translate("Worksheet", "Nothing to export yet: no step has been computed."))
        if last is None:
            return False
        blanks = self.ask_worksheet_steps(last.trace)
        if not blanks:
            return False
        folder = self.ask_folder()
        if not folder:
            return False
        pages: list[Path] = []
        ok = self._write(lambda: pages.extend(worksheet.write_chosen(last.scenario, last.trace, folder, blanks,
                                                                     batch=last.batch)), folder)
        if ok:
            self.host.status(QCoreApplication.translate("Worksheet", "Worksheet and answer key written to {0}")
                             .format(pages[0].parent))
        return ok

    def export_handout(self) -> bool:
        host = self.host
        last = self._last_computed(
            QCoreApplication.translate("Handout", "Nothing to export yet: no step has been computed."))
        if last is None:
            return False
        folder = self.ask_folder()
        if not folder:
            return False
        page: list[Path] = []
        hide = host.quiz.hidden_steps() if getattr(host, "quiz", None) is not None else ()  # a quiz stays a quiz
        ok = self._write(
            lambda: page.append(write_handout(last.scenario, last.trace, folder, batch=last.batch, hide=hide)), folder)
        if ok:
            host.status(QCoreApplication.translate("Handout", "Handout written to {0}").format(page[0]))
        return ok

    def export_script(self) -> bool:
        host = self.host
        scenario = host.document.scenario
        path = host.ask_save_path(QCoreApplication.translate("Handout", "Export as Python script"),
                                  "attention_steps.py",
                                  QCoreApplication.translate("Handout", "Python scripts (*.py)"))
        if not path:
            return False
        if Path(path).suffix.lower() != ".py":
            path += ".py"

        def write() -> None:
            from attention.teaching.script_export import python_script

            try:
                Path(path).write_text(python_script(scenario), encoding="utf-8")
            except OSError as e:
                raise OSError(cannot_write("script", path, e)) from e

        return host.run_export(write, path)


def install(host: "FeatureHost") -> HandoutActions:
    """Add the handout and script exports to the File menu's export group; returns their controller."""
    return HandoutActions(host)
