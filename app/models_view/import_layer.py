"""File ▸ Import layer…: a trained attention layer from a weights file becomes the open document.

The flow is Open's: ask before dropping unsaved work, pick a file or a Hugging Face model folder
(Qt's own file dialog, in which Open on a model folder picks the folder), then a dialog lists
every attention layer the file holds with its shapes — the ones the engine cannot reproduce
exactly greyed out with the reason — with a head-count picker (config.json's count where there is
one, else the divisors of the width) and a token count for the generated inputs.  Import builds
the scenario with attention.models.importing (the same code as `main.py import`) and loads it as
a new, unsaved document.

A Time-Series-Library AttentionLayer's file cannot say which inner attention it ran (FullAttention
and ProbAttention have no weights): for such a layer the dialog asks (FullAttention, or ProbAttention
with its factor and TSL's head/position mixing), and Import waits for the answer.

The layer dialog opens with `open()` (window-modal, not blocking), so a test picks a row, a head
count and presses Import as a person does; tests may replace `ask_path` (the file dialog).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Optional

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QBrush, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.services import i18n
from attention import words
from attention.datamodel.fields import INT_MAX
from attention.models.checkpoint import HF_WEIGHTS, CheckpointError, TensorSource
from attention.models.importing import (
    DEFAULT_TOKENS,
    FULL,
    PROB_SPARSE,
    Inner,
    asks_inner,
    import_layer,
    kind_facts,
    list_header,
    nothing_found,
    open_layers,
)
from attention.models.recognise import Found

#: Pixels for the Notes column (a reason wraps onto more lines rather than hiding the shapes).
NOTES_WIDTH = 320
#: Head count suggested when the file does not say (TSL's default), if the widths allow it.
USUAL_HEADS = 8


def default_heads(found: Found) -> int:
    """The file's own head count, else 8 if it divides the widths, else the largest divisor below 8."""
    choices = found.head_choices()
    if found.n_heads in choices:
        return found.n_heads
    return USUAL_HEADS if USUAL_HEADS in choices else max(h for h in choices if h <= USUAL_HEADS)


class LayerDialog(QDialog):
    """Every attention layer of one file; pick one (supported), a head count, Import."""

    def __init__(self, source: TensorSource, layers: list[Found], parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.source, self.layers = source, layers
        lang = i18n.current_language()
        self.setWindowTitle(self.tr("Import layer"))
        self.setMinimumWidth(960)
        self.header = QLabel(list_header(source, len(layers), lang))
        self.header.setWordWrap(True)
        self.tree = QTreeWidget()
        columns = [self.tr("Layer"), self.tr("Kind"), self.tr("Notes"), self.tr("Shapes")]
        self.tree.setColumnCount(len(columns))
        self.tree.setHeaderLabels(columns)
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setWordWrap(True)  # a long reason wraps in its row instead of running off the side
        header = self.tree.header()
        header.setStretchLastSection(False)
        for col, mode in enumerate((QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.ResizeToContents,
                                    QHeaderView.ResizeMode.Interactive, QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(col, mode)
        header.resizeSection(2, NOTES_WIDTH)
        grey = QBrush(self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        for f in layers:
            item = QTreeWidgetItem([f.name, words.text(f"models.family.{f.family}", lang), self._notes(f, lang),
                                    f.shape_text()])
            if not f.supported:  # greyed, never importable; clicked, it says why below the list
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)
                for col in range(len(columns)):
                    item.setForeground(col, grey)
                    item.setToolTip(col, f.reason(lang))
            self.tree.addTopLevelItem(item)
        self.heads = QComboBox()
        self.heads_note = QLabel()
        self.tokens = QSpinBox()
        self.tokens.setRange(1, 512)
        self.tokens.setValue(DEFAULT_TOKENS)
        form = QFormLayout()
        form.addRow(self.tr("Heads"), self.heads)
        form.addRow("", self.heads_note)
        form.addRow(self.tr("Tokens (generated inputs)"), self.tokens)
        self.inner_box = self._inner_box(lang)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.import_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.import_button.setText(self.tr("Import"))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(self.tr("Cancel"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.tree, 1)
        layout.addLayout(form)
        layout.addWidget(self.inner_box)
        layout.addWidget(self.buttons)
        self.tree.currentItemChanged.connect(lambda *_: self._on_layer())
        self.tree.itemDoubleClicked.connect(lambda *_: self.import_button.isEnabled() and self.accept())
        first = next((i for i, f in enumerate(layers) if f.supported), None)
        if first is not None:
            self.tree.setCurrentItem(self.tree.topLevelItem(first))
        self._on_layer()

    def _inner_box(self, lang: str) -> QWidget:
        """The question a TSL layer needs answered: FullAttention or ProbAttention (factor, mix); no default,
        since the file cannot say and a wrong guess gives other numbers without a word."""
        box = QWidget()
        self.inner_question = QLabel(words.text("inner.question", lang))
        self.inner_question.setWordWrap(True)
        self.inner = QComboBox()
        self.inner.addItem(words.text("inner.full", lang), FULL)
        self.inner.addItem(words.text("inner.prob", lang), PROB_SPARSE)
        self.inner.setPlaceholderText(words.text("inner.choose", lang))
        self.inner.setCurrentIndex(-1)
        self.factor = QSpinBox()
        self.factor.setRange(1, INT_MAX)
        self.factor.setValue(Inner().factor)
        self.factor.setToolTip(words.text("inner.factor_help", lang))
        self.mix = QCheckBox(words.text("inner.mix", lang))
        self.mix.setChecked(Inner().mix)
        self.mix.setToolTip(words.text("inner.mix_help", lang))
        form = QFormLayout(box)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(self.inner_question)
        form.addRow(words.text("inner.label", lang), self.inner)
        form.addRow(words.text("inner.factor", lang), self.factor)
        form.addRow("", self.mix)
        self.inner.currentIndexChanged.connect(lambda *_: self._on_inner())
        return box

    def inner_choice(self) -> Optional[Inner]:
        """The answer for a TSL layer (None: not answered yet, or a layer that needs none)."""
        found = self.chosen()
        if found is None or not asks_inner(found) or self.inner.currentIndex() < 0:
            return None
        inner = Inner(self.inner.currentData())
        return dataclasses.replace(inner, factor=self.factor.value(), mix=self.mix.isChecked()) if inner.sparse \
            else inner

    def _on_inner(self) -> None:
        """Factor and mix belong to ProbAttention; Import waits for an answer where the file cannot say."""
        found = self.chosen()
        asking = found is not None and asks_inner(found)
        self.inner_box.setVisible(asking)
        prob = asking and self.inner.currentIndex() >= 0 and Inner(self.inner.currentData()).sparse
        self.factor.setEnabled(prob)
        self.mix.setEnabled(prob)
        self.import_button.setEnabled(found is not None and (not asking or self.inner.currentIndex() >= 0))
        self.import_button.setToolTip(words.text("inner.needed", i18n.current_language())
                                      if asking and self.inner.currentIndex() < 0 else "")

    @staticmethod
    def _notes(f: Found, lang: str) -> str:
        if not f.supported:
            return words.text("models.list.unsupported", lang, reason=f.reason(lang))
        notes = [words.text("models.list.heads", lang, heads=f.n_heads)] if f.n_heads else []
        if f.causal:
            notes.append(words.text("models.list.causal", lang))
        if f.cross:
            notes.append(words.text("models.list.cross", lang))
        return ", ".join(notes + kind_facts(f, lang))

    def chosen(self) -> Optional[Found]:
        item = self.tree.currentItem()
        if item is None:
            return None
        found = self.layers[self.tree.indexOfTopLevelItem(item)]
        return found if found.supported else None

    def head_count(self) -> int:
        return int(self.heads.currentData())

    def _on_layer(self) -> None:
        found = self.chosen()
        self.import_button.setEnabled(found is not None)
        self.heads.setEnabled(found is not None)
        self.heads.clear()
        if found is None:
            self._on_inner()
            item = self.tree.currentItem()
            greyed = self.layers[self.tree.indexOfTopLevelItem(item)] if item is not None else None
            self.heads_note.setText(greyed.reason(i18n.current_language()) if greyed is not None else
                                    self.tr("Choose a layer that can be imported."))
            return
        for h in found.head_choices():
            self.heads.addItem(str(h), h)
        self.heads.setCurrentIndex(found.head_choices().index(default_heads(found)))
        self.heads_note.setText(self.tr("From the model's configuration.") if found.n_heads else
                                self.tr("The file does not say how many heads: choose (the divisors of its width)."))
        self._on_inner()


def is_model_folder(path: str) -> bool:
    """A folder the importer opens as a whole: it holds config.json or a model.safetensors."""
    folder = Path(path)
    return folder.is_dir() and any((folder / n).is_file() for n in ("config.json", *HF_WEIGHTS))


class WeightsFileDialog(QFileDialog):
    """Qt's own (not the system's) file dialog, so that both work: Open on a file picks it, Open on a
    Hugging Face model folder picks the folder instead of going into it."""

    def __init__(self, parent: QWidget, caption: str, directory: str):
        super().__init__(parent, caption, directory)
        self.setOption(QFileDialog.Option.DontUseNativeDialog)
        self.setFileMode(QFileDialog.FileMode.ExistingFile)
        self._folder: Optional[str] = None

    def accept(self) -> None:
        files = self.selectedFiles()
        if files and is_model_folder(files[0]):
            self._folder = files[0]
            QDialog.accept(self)
            return
        super().accept()

    def path(self) -> Optional[str]:
        if self._folder:
            return self._folder
        files = self.selectedFiles()
        return files[0] if files else None


class ImportLayerAction(QObject):
    """File ▸ Import layer…, after Open; kept on window.import_layer."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.dialog: Optional[LayerDialog] = None
        self.action = QAction(window)
        self.action.triggered.connect(self.start)
        menu = window.file_menu
        actions = menu.actions()
        anchor = actions[actions.index(window.open_action) + 1] if window.open_action in actions else None
        menu.insertAction(anchor, self.action)
        self.retranslate()
        window.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        return False

    def retranslate(self) -> None:
        self.action.setText(self.tr("&Import layer..."))
        tip = self.tr("Open one trained attention layer from a weights file (.pt, .safetensors, Hugging Face folder)")
        self.action.setStatusTip(tip)
        self.action.setToolTip(tip)

    def file_dialog(self) -> WeightsFileDialog:
        d = WeightsFileDialog(self.window, self.tr("Import layer from weights file"), self.window._dialog_dir())
        d.setNameFilters([self.tr("Weights files or model folders (*.pt *.pth *.bin *.ckpt *.safetensors config.json)"),
                          self.tr("All files (*)")])
        return d

    def ask_path(self) -> Optional[str]:
        """A weights file, or a Hugging Face folder (chosen as a folder, or by its config.json)."""
        d = self.file_dialog()
        return d.path() if d.exec() else None

    def start(self) -> bool:
        """Menu action: ask about unsaved work, pick a file, list its layers in the dialog."""
        w = self.window
        if not w.maybe_save():
            return False
        path = self.ask_path()
        if not path:
            return False
        lang = i18n.current_language()
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            source, layers = open_layers(path, notice=self._notice)
            if not layers:
                raise nothing_found(source)
        except CheckpointError as e:
            w.show_messages(self.tr("Could not import from {0}; the current scenario is unchanged.").format(
                Path(path).name), [e.line(lang)])
            return False
        finally:
            QApplication.restoreOverrideCursor()
        self.dialog = LayerDialog(source, layers, w)
        self.dialog.accepted.connect(self.finish)
        self.dialog.open()
        return True

    def _notice(self, line: str) -> None:
        """A big .pt is named with its size before torch reads it whole."""
        self.window.statusBar().showMessage(line)
        QApplication.processEvents()

    def finish(self) -> bool:
        """Import pressed: build the scenario and open it as a new document."""
        w, dialog = self.window, self.dialog
        found = dialog.chosen() if dialog is not None else None
        inner = dialog.inner_choice() if found is not None else None
        if found is None or (asks_inner(found) and inner is None):  # Import waits for the answer
            return False
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            scenario = import_layer(dialog.source, found, heads=dialog.head_count(), tokens=dialog.tokens.value(),
                                    inner=inner)
        except CheckpointError as e:
            w.show_messages(self.tr("Could not import {0}; the current scenario is unchanged.").format(found.name),
                            [e.line(i18n.current_language())])
            return False
        finally:
            QApplication.restoreOverrideCursor()
        w._doc_title = dict(scenario.title)
        w.document.load(scenario, None)
        w.statusBar().showMessage(self.tr("Imported {0} from {1}").format(found.name, dialog.source.path.name), 5000)
        return True


def install(window) -> ImportLayerAction:
    window.import_layer = ImportLayerAction(window)
    return window.import_layer
