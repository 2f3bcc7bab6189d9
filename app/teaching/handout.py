"""A handout of one scenario: a PNG of every step of its trace and one self-contained HTML page.

The pictures are the window's own: the trace is shown in a StepsView that is never put on
screen, and each pane is written with app.panes.export's PNG export (the step's title and formula
inside the picture), so a handout looks like the window.  The page holds, per step, the title,
the picture (embedded as a base64 data URI, so the one file can be mailed or printed), the
formula, the shape and the step's explanation from app.viewmodel.lessons; the scenario's title and notes
come first.  Nothing here computes attention: every number is the engine's trace.

A quiz's hidden steps stay hidden here (`hide`: their pictures show "?", and so do the steps that
repeat their numbers, app.viewmodel.quiz_data.plan).  A worksheet (app.teaching.worksheet) is this
page with chosen steps as empty grids, and its answer key the same grids filled in.

Used by `python main.py render` (app.startup.render_cli) and by the window's File menu (`install`).
"""
from __future__ import annotations

import base64
import contextlib
import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from PySide6.QtCore import QCoreApplication, QEvent, QRectF, QStandardPaths, Qt
from PySide6.QtGui import QColor, QImage, QPainter

from app.panes.export import PNG_SCALE, export_pane_image
from app.panes.steps_view import StepsView
from app.services import i18n
from app.viewmodel import lessons, wrapped
from app.viewmodel.export_errors import cannot_write
from attention import words
from attention.datamodel import numbers

if TYPE_CHECKING:
    from attention import Scenario, Trace

HTML_NAME = "handout.html"
#: width of the hidden Steps list the pictures are drawn in (wide: a pane is never squeezed)
VIEW_SIZE = (2400, 1400)
#: heads side by side in one row of a handout picture (more wrap to further rows)
HEADS_PER_ROW = 4
#: the menu entries are QCoreApplication.translate("Handout", ...), the page's words attention.words ("handout.*"),
#: written out in each call so that lupdate finds it


@dataclass(frozen=True)
class HandoutStep:
    """What the page says about one step (`png` None: the page shows `grid` instead, HTML)."""

    id: str
    title: str
    formula: str
    shape: str
    explanation: str
    png: Optional[Path]
    note: str = ""  # a line above the picture (what the quiz hides, and why)
    grid: str = ""  # HTML in place of the picture (a worksheet's empty grid or its answers)


def image_name(index: int, step_id: str) -> str:
    """'03_projection_value.png': pipeline order first, so a folder listing reads in order."""
    return f"{index + 1:02d}_{step_id.replace('.', '_')}.png"


def is_image_name(name: str) -> bool:
    """Whether `name` is one `image_name` could give (`main.py render` never writes through a link at one)."""
    return re.fullmatch(r"\d{2,}_.+\.png", name) is not None


@contextlib.contextmanager
def _hidden_view(lang: str):
    """A StepsView laid out as on screen but never shown there."""
    view = StepsView()
    view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    view.set_language(lang)
    view.resize(*VIEW_SIZE)
    view.show()
    try:
        yield view
    finally:
        view.hide()
        view.deleteLater()


def _settle() -> None:
    """Let the hidden list lay its panes out (the pictures take their sizes from it)."""
    app = QCoreApplication.instance()
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        app.processEvents()


def render_steps(scenario: "Scenario", trace: "Trace", out_dir: Path, lang: str, batch: int = 0,
                 hide: Sequence[str] = (), skip: Sequence[str] = ()) -> list[HandoutStep]:
    """Write one PNG per step of `trace` (batch item `batch`) into `out_dir`; return what the
    page says about each.  Steps in `hide` (a quiz's) are drawn with their numbers hidden, as are
    the steps that repeat them; steps in `skip` get no picture at all (a worksheet's grids).
    Raises OSError when a file cannot be written."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OSError(cannot_write("folder", out_dir, e)) from e
    steps: list[HandoutStep] = []
    with _hidden_view(lang) as view:
        lens = _quiz_lens(view, hide)
        view.show_trace(trace, scenario, batch=batch)
        _settle()
        hidden = lens.plan(trace) if lens is not None else None
        ids = view.pane_ids()
        for i, sid in enumerate(ids):
            path: Optional[Path] = out_dir / image_name(i, sid)
            stale = path
            if sid in skip:
                path = None
            else:
                _rows_for_a_long_row(view, sid, lang)  # 1 x 80 features: rows of 10, readable on paper
                with view.pane(sid).heads_in_one_row():  # the strip that _wrap_heads cuts into rows of four
                    grid = _head_grid(view.pane(sid))
                    export_pane_image(view, sid, str(path))
                if grid is not None:
                    _wrap_heads(grid, path)
            if path is None and stale.exists():  # an earlier handout's picture of a step now left blank
                stale.unlink()
            step = trace[sid]
            pane = view.pane(sid)
            note = ""
            if hidden is not None and sid in hidden.chosen:
                note = hidden.note(trace, lang, instruction=False).split("\n")[0]
            elif hidden is not None:
                note = hidden.covered_note(trace, sid, lang)
            steps.append(HandoutStep(
                id=sid, title=step.title[lang], formula=step.formula[lang],
                shape=pane.data.shape_text(lang) if pane.data is not None else "",
                explanation=lessons.explanation(sid, trace.options, lang), png=path, note=note))
    return steps


def _rows_for_a_long_row(view: StepsView, sid: str, lang: str) -> None:
    """A one-row matrix too long for a page (additive attention's 1 x 80 hidden features was a
    4700 x 444 picture whose labels shrank to a quarter at page width) is drawn in rows
    (app.viewmodel.wrapped), as on the slides; the numbers are the trace's, reshaped."""
    pane = view.pane(sid)
    data = pane.data
    if data is not None and not isinstance(data, wrapped.WrappedData) and wrapped.row_width(data) is not None:
        pane.show_data(wrapped.wrap(data), lang, -1)


def _quiz_lens(view: StepsView, hide: Sequence[str]):
    """The quiz's lens on the handout's own view, hiding the first step of `hide` (None: none)."""
    if not hide:
        return None
    from app.teaching.quiz import QuizLens

    lens = QuizLens()
    lens.step_id = hide[0]
    view.add_lens(lens)
    return lens


def _head_grid(pane) -> Optional[dict]:
    """Where the pieces of a many-head pane lie in its exported picture (layout pixels, measured
    with the export's title in place, as export_pane_image lays it out); None for other panes."""
    data = pane.data
    heads = pane.visible_heads()
    if data is None or not data.layout.per_head or len(heads) <= HEADS_PER_ROW:
        return None

    def cols(*items) -> tuple[float, float]:
        rects = [it.mapRectToItem(ci, it.boundingRect()) for it in items]
        return min(r.left() for r in rects), max(r.right() for r in rects)

    with pane.export_header() as ci:
        ci.scene().prepareForPaint()
        first = pane.heatmaps[heads[0]]
        grid = {
            "width": ci.boundingRect().width(),
            "top": first.title.mapRectToItem(ci, first.title.boundingRect()).top(),
            "bottom": first.bottom.mapRectToItem(ci, first.bottom.boundingRect()).bottom(),
            "left": cols(pane.left), "bar": cols(pane.bar),
            "heads": [cols(pane.heatmaps[m].title, pane.heatmaps[m].vb, pane.heatmaps[m].bottom) for m in heads],
        }
    return grid


def _wrap_heads(grid: dict, path: Path) -> None:
    """A pane with more than HEADS_PER_ROW heads side by side is one long strip (8 heads: about
    2400 px), unreadable once a page shrinks it to its width.  Cut the exported picture into
    rows of HEADS_PER_ROW heads, each row with the row axis and the colour bar, under the
    title, and write it back.  Pieces of the same picture only: nothing is drawn anew."""
    image = QImage(str(path))
    if image.isNull() or grid["width"] <= 0:
        return
    k = image.width() / grid["width"]  # image pixels per layout pixel
    top, bottom, left, bar = grid["top"], grid["bottom"], grid["left"], grid["bar"]
    gap = 6.0
    rows = [grid["heads"][i:i + HEADS_PER_ROW] for i in range(0, len(grid["heads"]), HEADS_PER_ROW)]
    row_w = (left[1] - left[0]) + sum(b - a + gap for a, b in rows[0]) + (bar[1] - bar[0]) + gap
    row_h = bottom - top
    out = QImage(round(row_w * k), round((top + len(rows) * (row_h + gap)) * k), image.format())
    out.fill(QColor("white"))
    painter = QPainter(out)
    try:
        def copy(x0: float, x1: float, y0: float, y1: float, at_x: float, at_y: float) -> None:
            src = QRectF(x0 * k, y0 * k, (x1 - x0) * k, (y1 - y0) * k)
            painter.drawImage(QRectF(at_x * k, at_y * k, src.width(), src.height()), image, src)

        copy(0, min(grid["width"], row_w), 0, top, 0, 0)  # the title and formula
        for r, row in enumerate(rows):
            y = top + r * (row_h + gap)
            copy(*left, top, bottom, 0, y)
            x = left[1] - left[0] + gap
            for a, b in row:
                copy(a, b, top, bottom, x, y)
                x += b - a + gap
            copy(*bar, top, bottom, x, y)
    finally:
        painter.end()
    if not out.save(str(path), "PNG"):
        raise OSError(cannot_write("png", path))


def _title_of(scenario: "Scenario", lang: str) -> str:
    other = "zh" if lang == "en" else "en"
    return scenario.title.get(lang) or scenario.title.get(other) or words.text("handout.untitled", lang)


def _paragraphs(text: str) -> str:
    """Plain text -> escaped <p> paragraphs (blank lines part them, single newlines break)."""
    parts = [p.strip() for p in text.replace("\r\n", "\n").split("\n\n")]
    return "\n".join(f"<p>{html.escape(p).replace(chr(10), '<br>')}</p>" for p in parts if p)


def scoring_name(kind, lang: str) -> str:
    """The scoring function's name in `lang` ("缩放点积", not the id the scenario file writes)."""
    key = f"handout.scoring.{kind}"
    return words.text(key, lang) if words.has(key) else str(kind)


def _setup_line(scenario: "Scenario", trace: "Trace", batch: int, lang: str) -> str:
    """Sizes, scoring, mask and the batch item shown (counted from 1, as every label), in one line."""
    o = trace.options
    mask = []
    if o.get("causal"):
        mask.append(words.text("handout.causal", lang))
    if o.get("valid_lens") is not None:
        mask.append(words.text("handout.valid_lengths", lang, lens=o["valid_lens"]))
    parts = [
        f"B = {o.get('batch')}, L = {o.get('L')}, S = {o.get('S')}, d_model = {o.get('d_model')}, "
        f"H = {o.get('n_heads')}",
        words.text("handout.scoring", lang, kind=scoring_name(o.get("scoring"), lang)),
        words.text("handout.scale", lang, scale=numbers.rounded(o.get("scale", 1.0))),
        words.text("handout.mask", lang, mask=" + ".join(mask) if mask else words.text("handout.none", lang)),
        words.text("handout.numbers", lang, dtype=o.get("dtype")),
    ]
    if int(o.get("batch", 1)) > 1:
        parts.append(words.text("handout.batch_item", lang, b=batch + 1, n=int(o["batch"])))
    return " · ".join(html.escape(p) for p in parts)


CSS = ("""
body { font-family: 'Noto Sans', 'Noto Sans CJK SC', 'DejaVu Sans', sans-serif; color: #111;
       max-width: 1100px; margin: 24px auto; padding: 0 16px; line-height: 1.45; }
h1 { font-size: 26px; margin: 0 0 8px; }
.setup { color: #444; font-size: 14px; margin: 0 0 10px; }
.notes { background: #fbfbf3; border: 1px solid #ddd; padding: 6px 12px; font-size: 15px; }
section.step { border-top: 1px solid #ccc; margin-top: 22px; padding-top: 10px;"""
       """ page-break-inside: avoid; break-inside: avoid; }
h2 { font-size: 20px; margin: 0 0 4px; }
h2 .num { color: #666; font-weight: normal; }
.formula { font-family: 'DejaVu Sans Mono', 'Noto Sans Mono CJK SC', monospace; font-size: 15px;
           background: #f4f4f4; padding: 3px 8px; display: inline-block; }
.shape { color: #555; font-size: 13px; margin: 4px 0; }
.step img { max-width: 100%; height: auto; display: block; margin: 6px 0; }
.explanation { font-size: 15px; }
.quiz { background: #eef3ff; border: 1px solid #b8c8e8; padding: 4px 10px; font-size: 15px; }
.sheet { font-size: 16px; margin: 6px 0 0; }
.grid-head { font-size: 15px; font-weight: 600; margin: 8px 0 2px; }
table.grid { border-collapse: collapse; margin: 2px 0 10px; }
table.grid th { font-weight: normal; color: #444; font-size: 13px; padding: 2px 6px; }
table.grid td { border: 1px solid #333; min-width: 64px; height: 34px; text-align: center;
                font-family: 'DejaVu Sans Mono', monospace; font-size: 15px; }
footer { color: #777; font-size: 12px; margin-top: 28px; border-top: 1px solid #ccc; padding-top: 6px; }
@media print { body { margin: 0; max-width: none; } }
""")


def _display_size(png: bytes) -> str:
    """width and height attributes: the pane's size in the window (the PNG holds PNG_SCALE
    pixels per screen pixel, crisp in print)."""
    image = QImage.fromData(png, "PNG")
    w, h = (max(1, round(n / PNG_SCALE)) for n in (image.width(), image.height()))
    return f'width="{w}" height="{h}"'


def handout_html(scenario: "Scenario", trace: "Trace", steps: list[HandoutStep], lang: str, batch: int = 0,
                 heading: str = "", intro: str = "") -> str:
    """The page: scenario title, setup and notes, then one section per step.  `heading` goes
    before the title ("Worksheet"), `intro` (HTML) after the notes."""
    title = _title_of(scenario, lang)
    if heading:
        title = f"{heading}: {title}"
    notes = scenario.notes.get(lang) or ""
    out = [
        "<!DOCTYPE html>",
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}">',
        "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title>", f"<style>{CSS}</style>", "</head>", "<body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="setup">{_setup_line(scenario, trace, batch, lang)}</p>',
    ]
    if notes.strip():
        out.append(f'<div class="notes">{_paragraphs(notes)}</div>')
    if intro:
        out.append(intro)
    for i, s in enumerate(steps):
        num = html.escape(words.text("handout.step_of", lang, i=i + 1, n=len(steps)))
        out += [
            f'<section class="step" id="{html.escape(s.id)}">',
            f'<h2><span class="num">{num} ·</span> {html.escape(s.title)}</h2>',
            f'<div class="formula">{html.escape(s.formula)}</div>',
            f'<p class="shape">{html.escape(s.shape)}</p>',
        ]
        if s.note:
            out.append(f'<p class="quiz">{html.escape(s.note)}</p>')
        if s.png is not None:
            raw = s.png.read_bytes()
            data = base64.b64encode(raw).decode("ascii")
            out.append(f'<img src="data:image/png;base64,{data}" {_display_size(raw)} alt="{html.escape(s.title)}">')
        out += [s.grid, f'<div class="explanation">{_paragraphs(s.explanation)}</div>', "</section>"]
    footer = words.text("handout.footer", lang)
    out += [f"<footer>{html.escape(footer)}</footer>",
            "</body>", "</html>", ""]
    return "\n".join(out)


def write_handout(scenario: "Scenario", trace: "Trace", out_dir, lang: Optional[str] = None, batch: int = 0,
                  hide: Sequence[str] = ()) -> Path:
    """Write the PNGs and handout.html into `out_dir` (created if missing); return the page's path.
    `hide`: a quiz's step, whose numbers (and those of the steps repeating them) show as "?".

    `lang` None: the window's language (app.services.i18n); another is written without touching the
    window's (pages_in_language).  Raises OSError when the folder or a file cannot be written,
    ValueError for a batch item the trace does not have."""
    out_dir = Path(out_dir)
    with pages_in_language(out_dir, lang) as lang:
        steps = render_steps(scenario, trace, out_dir, lang, batch, hide=hide)
        page = out_dir / HTML_NAME
        try:
            page.write_text(handout_html(scenario, trace, steps, lang, batch), encoding="utf-8")
        except OSError as e:
            raise OSError(cannot_write("handout", page, e)) from e
        return page


@contextlib.contextmanager
def pages_in_language(out_dir: Path, lang: Optional[str]):
    """The language printed pages are written in (`lang`, None: the window's), checked, and the
    folder checked; yields the language.  Nothing is installed: the pages' words are looked up
    in that language (attention.words), so exporting in the other language never switches the
    window's translators back and forth.  The handout and the worksheet share this so that both
    refuse the same bad language and folder alike."""
    previous = i18n.current_language()
    lang = lang or previous
    if lang not in i18n.LANGUAGES:
        raise ValueError(f"language: expected one of {', '.join(i18n.LANGUAGES)}, got {lang!r}")
    if out_dir.exists() and not out_dir.is_dir():
        raise OSError(f"{out_dir}: expected a folder, found a file")
    yield lang  # every word of the pages is looked up in `lang`: the window keeps its own language


def export_start_dir(scenario_dir: str) -> str:
    """Where a handout's folder dialog opens: the scenario's own folder, but never the app's presets
    folder (a preset opened from the menu lives there: handouts do not belong among the app's files);
    then the person's Documents, else their home."""
    import resources

    try:
        inside = Path(scenario_dir).resolve().is_relative_to(Path(resources.scenarios_dir()).resolve())
    except (OSError, ValueError):
        inside = True
    if scenario_dir and not inside and Path(scenario_dir).is_dir():
        return scenario_dir
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return docs if docs and Path(docs).is_dir() else str(Path.home())
