"""Printable worksheets: the handout with chosen steps left blank, and its answer key.

A worksheet is the handout page (app.teaching.handout) where each chosen step shows an empty grid
of the step's own shape instead of its picture: one table per head, the row and column labels
kept (tokens or indices, as on screen), every cell empty for a student to fill in by hand.  Steps
that repeat a chosen step's numbers (app.viewmodel.quiz_data.plan: V = I makes the weighted sum
equal the weights) are left blank as well, with a line saying why, so the page never gives an
answer away.  The answer key is the same page with the grids filled in from the engine's trace.
No picture is written for a blank step, so the folder holds no answer either.

Both pages go into one folder: worksheet.html and answer_key.html (plus the other steps' PNGs).
Reached from File ▸ Export worksheet… (a dialog to choose the steps) and from
`python main.py render FILE --out DIR --blank STEP[,STEP]` (app.startup.render_cli).

Beside the steps, `tiles` (TILES) chooses FlashAttention's running values: the tiles worksheet and
its answer key (attention/teaching/tiles_worksheet.py: blank running m / ℓ / O per tile), written into the
same folder under their own names, with the default blocks of the tiled view (about 2 × 3 tiles).
"""
from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from PySide6.QtCore import QCoreApplication, QSize, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.services import i18n, window_fit
from app.teaching.handout import HandoutStep, handout_html, pages_in_language, render_steps
from app.viewmodel.export_errors import cannot_write
from app.viewmodel.pane_data import PaneData, pane_data, tokens_of
from app.viewmodel.quiz_data import plan
from attention import words

if TYPE_CHECKING:
    from attention import Scenario, Trace

WORKSHEET_NAME = "worksheet.html"
KEY_NAME = "answer_key.html"
#: the step a worksheet leaves blank unless told otherwise (the one a class works out by hand)
DEFAULT_BLANK = "attention_weights"
#: the choice, next to the step ids, of FlashAttention's running values (the tiles worksheet)
TILES = "tiles"


def grid_html(data: PaneData, lang: str, answers: bool) -> str:
    """The step as tables (one per head), row and column labels kept; the cells empty unless
    `answers` (then each holds the number the pane prints, from the trace).  A cell the engine
    never computed (ProbSparse's "n/c") says so in both: that is structure, not an answer."""
    lay = data.layout
    n, rows, cols = data.block.shape
    corner = html.escape(f"{lay.rows.name(lang)} \\ {lay.cols.name(lang)}")
    out = []
    for m in range(n):
        if lay.per_head and n > 1:
            out.append(f'<p class="grid-head">{html.escape(data.matrix_title(m, lang))}</p>')
        head = "".join(f"<th>{html.escape(lay.cols.tick(c))}</th>" for c in range(cols))
        body = []
        for r in range(rows):
            cells = []
            for c in range(cols):
                value = data.block[m, r, c]
                shown = data.cell_text(m, r, c) if answers or (value != value) else ""
                cells.append(f"<td>{html.escape(shown)}</td>")
            body.append(f"<tr><th>{html.escape(lay.rows.tick(r))}</th>{''.join(cells)}</tr>")
        out.append(f'<table class="grid" data-step="{html.escape(data.step.id)}" data-matrix="{m}">'
                   f"<tr><th>{corner}</th>{head}</tr>{''.join(body)}</table>")
    return "\n".join(out)


def _blank_sections(steps: list[HandoutStep], scenario: "Scenario", trace: "Trace", blanks: Sequence[str],
                    lang: str, batch: int, answers: bool) -> list[HandoutStep]:
    qt, kt = tokens_of(scenario)
    hidden = plan(trace, blanks)
    out = []
    for s in steps:
        if not hidden.hides(s.id):
            out.append(s)
            continue
        note = (words.text("worksheet.left_blank", lang)
                if s.id in hidden.chosen
                else hidden.covered_note(trace, s.id, lang, key="blank_too"))
        if answers:
            note = words.text("worksheet.answers_note", lang)
        grid = grid_html(pane_data(trace, s.id, batch, qt, kt), lang, answers)
        out.append(HandoutStep(s.id, s.title, s.formula, s.shape, s.explanation, None, note=note, grid=grid))
    return out


def _intro(trace: "Trace", blanks: Sequence[str], lang: str, answers: bool) -> str:
    hidden = plan(trace, blanks)
    names = ", ".join(f"“{trace[s].title[lang]}”" for s in hidden.chosen + tuple(hidden.covered))
    if answers:
        key = words.text("worksheet.key_intro", lang, names=names)
        return f'<p class="sheet">{html.escape(key)}</p>'
    name = html.escape(words.text("worksheet.name", lang))
    task = html.escape(words.text("worksheet.task", lang, names=names))
    return f'<p class="sheet">{name} ______________________</p>\n<p class="sheet">{task}</p>'


def check_blanks(trace: "Trace", blanks: Sequence[str]) -> list[str]:
    """The chosen steps (and `tiles`), checked: a ValueError naming each id the trace does not have."""
    blanks = [b.strip() for b in blanks if b.strip()]
    unknown = [b for b in blanks if b not in trace and b != TILES]
    if unknown:
        raise ValueError(f"no step {', '.join(repr(u) for u in unknown)} "
                         f"(steps: {', '.join(trace.ids)}, or {TILES})")
    if not blanks:
        raise ValueError("choose at least one step to leave blank")
    return blanks


def tiles_refusal(trace: "Trace", lang: str) -> Optional[str]:
    """Why this trace's running values cannot be a worksheet (ProbSparse, sinks …), in `lang`; None
    when they can.  The engine's own check (attention.teaching.tiles.method) decides."""
    from attention.teaching.tiles import TilesError, method

    opts = trace.options
    try:
        method(opts.get("scoring"), trace.ids, [p.get("kind") for p in opts.get("modifiers", ())])
    except TilesError as e:
        return words.text("worksheet.tiles_refused", lang, why=e.text(lang))
    return None


def write_tiles(trace: "Trace", out_dir, lang: str, batch: int = 0, head: int = 0) -> list[Path]:
    """The tiles worksheet and its answer key of one batch item and head, with the tiled view's
    default blocks; their paths.  ValueError (the refusal, in `lang`) for a kind with no tiles."""
    from attention.teaching.tiles import TilesError, default_blocks, tiled
    from attention.teaching.tiles_worksheet import write

    why = tiles_refusal(trace, lang)
    if why is not None:
        raise ValueError(why)
    _, _, L, S = trace.array("masked_scores").shape
    try:
        result = tiled(trace, *default_blocks(L, S))
    except TilesError as e:  # numbers the tiles cannot take (an overflow): said, not a traceback
        raise ValueError(words.text("worksheet.tiles_refused", lang, why=e.text(lang))) from e
    return write(result, trace, Path(out_dir), batch, head, lang)


def write_chosen(scenario: "Scenario", trace: "Trace", out_dir, blanks: Sequence[str],
                 lang: Optional[str] = None, batch: int = 0) -> list[Path]:
    """Every page the choice asks for: the steps' worksheet and key (when a step is chosen) and
    the tiles' worksheet and key (when `tiles` is); the tiles are refused before anything is written."""
    blanks = check_blanks(trace, blanks)
    lang = lang or i18n.current_language()
    steps = [b for b in blanks if b != TILES]
    if TILES in blanks and (why := tiles_refusal(trace, lang)) is not None:
        raise ValueError(why)
    pages: list[Path] = list(write_worksheet(scenario, trace, out_dir, steps, lang=lang, batch=batch)) if steps else []
    if TILES in blanks:
        pages += write_tiles(trace, out_dir, lang, batch=batch)
    return pages


def write_worksheet(scenario: "Scenario", trace: "Trace", out_dir, blanks: Sequence[str],
                    lang: Optional[str] = None, batch: int = 0) -> tuple[Path, Path]:
    """Write worksheet.html and answer_key.html (and the PNGs of the steps that are not blank)
    into `out_dir`; return both pages' paths.  `lang` as handout.write_handout.  Raises
    ValueError for a step the trace does not have, OSError when a file cannot be written."""
    blanks = check_blanks(trace, blanks)
    out_dir = Path(out_dir)
    with pages_in_language(out_dir, lang) as lang:
        hidden = plan(trace, blanks)
        skip = hidden.chosen + tuple(hidden.covered)
        steps = render_steps(scenario, trace, out_dir, lang, batch, skip=skip)
        pages = []
        for name, answers, heading in ((WORKSHEET_NAME, False, words.text("worksheet.heading", lang)),
                                       (KEY_NAME, True, words.text("worksheet.key_heading", lang))):
            sections = _blank_sections(steps, scenario, trace, blanks, lang, batch, answers)
            page = out_dir / name
            text = handout_html(scenario, trace, sections, lang, batch, heading=heading,
                                intro=_intro(trace, blanks, lang, answers))
            try:
                page.write_text(text, encoding="utf-8")
            except OSError as e:
                raise OSError(cannot_write("page", page, e)) from e
            pages.append(page)
        return pages[0], pages[1]


class WorksheetDialog(QDialog):
    """Choose the steps to leave blank (each step of the trace, with a check box)."""

    def __init__(self, trace: "Trace", checked: Sequence[str], parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(QCoreApplication.translate("Worksheet", "Export worksheet"))
        lang = i18n.current_language()
        self.label = QLabel(QCoreApplication.translate(
            "Worksheet", "Leave these steps blank for students to fill in "
                         "(an answer key is written beside the worksheet):"))
        self.label.setWordWrap(True)
        self.steps = QListWidget()
        for sid in trace.ids:
            item = QListWidgetItem(f"{trace[sid].title[lang]}  ({sid})")
            item.setData(Qt.ItemDataRole.UserRole, sid)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if sid in checked else Qt.CheckState.Unchecked)
            self.steps.addItem(item)
        self.steps.addItem(self._tiles_item(trace, TILES in checked, lang))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.steps.itemChanged.connect(self._sync)
        lay = QVBoxLayout(self)
        lay.addWidget(self.label)
        lay.addWidget(self.steps, 1)
        lay.addWidget(self.buttons)
        window_fit.fit_dialog(self, QSize(520, 420))
        self._sync()

    @staticmethod
    def _tiles_item(trace: "Trace", checked: bool, lang: str) -> QListWidgetItem:
        """The running values (tiles) as one more choice; greyed out, saying why, for a kind without tiles."""
        item = QListWidgetItem(words.text("worksheet.tiles_choice", lang))
        item.setData(Qt.ItemDataRole.UserRole, TILES)
        why = tiles_refusal(trace, lang)
        if why is None:
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        else:
            item.setFlags((item.flags() | Qt.ItemFlag.ItemIsUserCheckable) & ~Qt.ItemFlag.ItemIsEnabled)
            item.setCheckState(Qt.CheckState.Unchecked)
            item.setToolTip(why)
        return item

    def chosen(self) -> list[str]:
        items = (self.steps.item(i) for i in range(self.steps.count()))
        return [it.data(Qt.ItemDataRole.UserRole) for it in items if it.checkState() == Qt.CheckState.Checked]

    def _sync(self, *_) -> None:
        """OK only with at least one step chosen."""
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(self.chosen()))


def ask_steps(host, trace: "Trace") -> Optional[list[str]]:
    """The dialog, modal; the chosen step ids, or None when cancelled."""
    quiz = getattr(host, "quiz", None)
    checked = list(quiz.hidden_steps()) if quiz is not None and quiz.hidden_steps() else [DEFAULT_BLANK]
    dialog = WorksheetDialog(trace, checked, host.window)
    return dialog.chosen() if dialog.exec() == QDialog.DialogCode.Accepted else None
