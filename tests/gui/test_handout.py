"""Handouts: a PNG of every step and one self-contained HTML page, from the command line
(`main.py render`) and from the window's File menu."""
from __future__ import annotations

import base64
import html
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QImage

import attention
import resources
from app.services import i18n
from app.teaching import handout
from app.viewmodel import lessons
from attention.files import scenario_io
from attention.registry import step_registry

pytestmark = [pytest.mark.gui, pytest.mark.slow]  # each test renders a handout
ROOT = Path(__file__).resolve().parents[2]
PRESETS = [p for p, _ in resources.list_presets()]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CROSS = ROOT / "resources" / "scenarios" / "05_translation_cross_attention.json"


def _check_png(data: bytes, what: str) -> QImage:
    assert data[:8] == PNG_MAGIC, what
    img = QImage.fromData(data, "PNG")
    assert not img.isNull(), what
    assert 200 <= img.width() <= 8000 and 100 <= img.height() <= 8000, (what, img.width(), img.height())
    # a picture, not a blank page: the heatmap's colours and the text are in it
    step = max(5, img.width() // 120)
    colours = {img.pixel(x, y) for x in range(0, img.width(), step) for y in range(0, img.height(), step)}
    assert len(colours) > 8, what
    return img


def _embedded(page: str) -> list[bytes]:
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)]


def _sections(page: str) -> list[str]:
    return re.findall(r'<section class="step" id="([^"]+)">', page)


def check_handout(folder: Path, sc, trace, lang: str) -> str:
    """Every step: one PNG file named for it, one embedded image, its title, formula and
    explanation in `lang`; the scenario's title and notes before the first step."""
    ids = step_registry.in_order(trace.ids)  # the Steps region's order, the pipeline's
    pngs = sorted(folder.glob("*.png"))
    assert len(pngs) == len(ids)
    for png, sid in zip(pngs, ids):
        assert sid.replace(".", "_") in png.name
        _check_png(png.read_bytes(), png.name)
    page = (folder / handout.HTML_NAME).read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert f'<html lang="{"zh-CN" if lang == "zh" else "en"}">' in page
    assert '<meta charset="utf-8">' in page
    assert all(src.startswith("data:image/png;base64,") for src in re.findall(r'src="([^"]*)"', page))  # self-contained
    images = _embedded(page)
    assert len(images) == len(ids)
    assert images == [p.read_bytes() for p in pngs]  # the same pictures, in step order
    assert _sections(page) == ids
    head = page[: page.index("<section")]
    assert html.escape(sc.title[lang]) in head
    if sc.notes[lang]:
        assert html.escape(sc.notes[lang].split("\n")[0][:60]) in head
    for sid, body in zip(ids, page.split("<section")[1:]):
        step = trace[sid]
        title, formula = step.title[lang], step.formula[lang]
        assert html.escape(title) in body, sid
        assert html.escape(formula) in body, sid
        assert "(" + ", ".join(str(n) for n in step.shape) + ")" in body, sid  # the shape
        text = lessons.explanation(sid, trace.options, lang)  # the page's language, whatever the window speaks
        assert text and html.escape(text.split("\n")[0][:50]) in body, sid
        if lang == "zh":
            assert re.search(r"[\u4e00-\u9fff]", text), sid  # the explanation really is Chinese
    return page


@pytest.mark.parametrize("path", PRESETS, ids=[p.stem for p in PRESETS])
def test_handout_of_every_preset(qapp, tmp_path, path):
    sc = scenario_io.load(path)
    trace = attention.run(sc)
    page = handout.write_handout(sc, trace, tmp_path / "out", lang="en")
    assert page == tmp_path / "out" / handout.HTML_NAME
    check_handout(tmp_path / "out", sc, trace, "en")
    # the other language's step titles are nowhere on an English page
    text = page.read_text(encoding="utf-8")
    assert not any(trace[s].title["zh"] in text for s in trace.ids if trace[s].title["zh"] != trace[s].title["en"])


def test_eight_heads_wrap_into_rows_of_four(qtbot, tmp_path):
    """The handout's picture of an 8-head step holds two rows of 4 heads: about half as wide
    and twice as tall as the window's one-row pane exported as it is."""
    from app.panes.export import export_pane_image
    from app.panes.steps_view import StepsView

    sc = scenario_io.load(ROOT / "resources" / "scenarios" / "02_tsl_real_config.json")
    trace = attention.run(sc)
    assert trace.options["n_heads"] == 8
    handout.write_handout(sc, trace, tmp_path / "ho", lang="en")
    view = StepsView()
    qtbot.addWidget(view)
    view.resize(*handout.VIEW_SIZE)
    view.show()
    view.show_trace(trace, sc)
    qtbot.wait(100)  # let the list lay the panes out at their full width
    for sid in ("head_split.query", "attention_weights"):
        with view.pane(sid).heads_in_one_row():  # the window's pane wraps its heads itself when narrow
            export_pane_image(view, sid, str(tmp_path / "strip.png"))
        strip = QImage(str(tmp_path / "strip.png"))
        wrapped = QImage(str(tmp_path / "ho" / handout.image_name(step_registry.in_order(trace.ids).index(sid), sid)))
        assert wrapped.width() < 0.65 * strip.width(), sid
        assert wrapped.height() > 1.5 * strip.height(), sid
    # one-row steps (concat: heads as column groups of one matrix) are left as the window draws them
    sid = "concat"
    export_pane_image(view, sid, str(tmp_path / "strip.png"))
    strip = QImage(str(tmp_path / "strip.png"))
    same = QImage(str(tmp_path / "ho" / handout.image_name(step_registry.in_order(trace.ids).index(sid), sid)))
    assert (same.width(), same.height()) == (strip.width(), strip.height())


def test_chinese_handout_and_the_language_comes_back(qapp, tmp_path):
    sc = scenario_io.load(CROSS)  # Chinese query tokens, English key tokens, notes in both
    trace = attention.run(sc)
    assert i18n.current_language() == "en"
    handout.write_handout(sc, trace, tmp_path, lang="zh")
    assert i18n.current_language() == "en"
    check_handout(tmp_path, sc, trace, "zh")


def test_a_later_batch_item_is_drawn_and_named(qapp, tmp_path):
    path = ROOT / "resources" / "scenarios" / "03_d2l_masked_softmax.json"
    sc = scenario_io.load(path)
    trace = attention.run(sc)
    page = handout.write_handout(sc, trace, tmp_path / "b1", lang="en", batch=1).read_text(encoding="utf-8")
    assert "batch item 2" in page  # index 1: the second batch item, counted from 1
    b0 = handout.write_handout(sc, trace, tmp_path / "b0", lang="en", batch=0)
    # item 1 keeps 3 keys, item 0 only 2: the weights' pictures differ
    name = handout.image_name(step_registry.in_order(trace.ids).index("attention_weights"), "attention_weights")
    assert (tmp_path / "b1" / name).read_bytes() != (b0.parent / name).read_bytes()
    with pytest.raises(ValueError, match="batch"):
        handout.write_handout(sc, trace, tmp_path / "b2", lang="en", batch=2)


def test_a_file_where_the_folder_should_be(qapp, tmp_path):
    sc = scenario_io.load(CROSS)
    trace = attention.run(sc)
    blocker = tmp_path / "taken"
    blocker.write_text("x")
    with pytest.raises(OSError, match="taken"):
        handout.write_handout(sc, trace, blocker, lang="en")
    with pytest.raises(OSError, match="taken"):
        handout.write_handout(sc, trace, blocker / "sub", lang="en")


# ---- the command line ----------------------------------------------------------------------------
def _render(*args, timeout=240) -> subprocess.CompletedProcess:
    res = subprocess.run([sys.executable, "main.py", "render", *map(str, args)], cwd=ROOT,
                         capture_output=True, text=True, encoding="utf-8", timeout=timeout)
    assert res.returncode not in (139, -11), res.stderr  # no crash at exit (PySide6 before torch)
    assert "Traceback" not in res.stderr
    return res


def test_cli_renders_a_chinese_handout(tmp_path):
    out = tmp_path / "深 folder"
    res = _render(CROSS, "--out", out, "--lang", "zh", "--dtype", "float32")
    assert res.returncode == 0, res.stderr
    assert res.stderr.strip() == ""
    assert Path(res.stdout.strip()) == out / handout.HTML_NAME
    sc = scenario_io.load(CROSS)
    trace = attention.run(sc, dtype="float32")
    page = (out / handout.HTML_NAME).read_text(encoding="utf-8")
    assert len(_embedded(page)) == len(trace.ids) == len(list(out.glob("*.png")))
    assert 'lang="zh-CN"' in page and "float32" in page
    for sid in trace.ids:
        assert html.escape(trace[sid].title["zh"]) in page and html.escape(trace[sid].formula["zh"]) in page


@pytest.mark.parametrize("args, expect", [
    (["no/such/scenario.json", "--out", "{tmp}/o"], "no/such/scenario.json"),
    (["{tmp}/broken.json", "--out", "{tmp}/o"], "broken.json"),
    ([str(CROSS), "--out", "{tmp}/file.txt/o"], "file.txt"),
    ([str(CROSS), "--out", "{tmp}/o", "--batch", "5"], "--batch"),
    ([str(CROSS), "--out", "{tmp}/o", "--lang", "fr"], "--lang"),
    ([str(CROSS)], "--out"),
])
def test_cli_bad_input_is_one_clear_line_and_exit_2(tmp_path, args, expect):
    (tmp_path / "broken.json").write_text("{ not json", encoding="utf-8")
    (tmp_path / "file.txt").write_text("x")
    res = _render(*[a.replace("{tmp}", str(tmp_path)) for a in args], timeout=120)
    assert res.returncode == 2, res.stderr
    assert expect in res.stderr
    assert not (tmp_path / "o").exists()  # nothing written on bad input


@pytest.mark.parametrize("name", [handout.HTML_NAME, "01_projection_query.png"])
def test_cli_never_writes_through_a_planted_link(tmp_path, name):
    """`render` chooses its files' names: a symbolic link planted at one of them is refused, and the file it points
    to is left as it was (issue 31, as `run`'s layerN.json)."""
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / name).symlink_to(victim)
    res = _render(CROSS, "--out", out, "--dtype", "float32", timeout=120)
    assert res.returncode == 2, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and str(out / name) in res.stderr and "symbolic link" in res.stderr
    assert victim.read_text(encoding="utf-8") == "the user's own file" and list(out.iterdir()) == [out / name]


# ---- the File menu -------------------------------------------------------------------------------
def test_file_menu_writes_a_handout_in_the_window_language(window, tmp_path):
    actions = window.file_menu.actions()
    i = actions.index(window.export_csv_action)
    assert actions[i + 1 : i + 4] == [window.handout.handout_action, window.handout.worksheet_action,
                                      window.handout.script_action]
    window.handout.ask_folder = lambda: str(tmp_path / "ho")
    window.set_language("zh")
    try:
        assert window.handout.handout_action.text() == QCoreApplication.translate("Handout", "Export handout...")
        window.handout.handout_action.trigger()
        assert i18n.current_language() == "zh"
    finally:
        window.set_language("en")
    assert window.handout.handout_action.text() == "Export handout..."
    check_handout(tmp_path / "ho", window.last_scenario, window.last_trace, "zh")
    assert str(tmp_path / "ho" / handout.HTML_NAME) in window.statusBar().currentMessage()


def test_file_menu_handout_cancelled_or_unwritable(window, tmp_path):
    window.handout.ask_folder = lambda: None
    assert window.handout.export_handout() is False
    (tmp_path / "taken").write_text("x")
    window.handout.ask_folder = lambda: str(tmp_path / "taken")
    shown = []
    window.show_messages = lambda title, lines, *a, **k: shown.append((title, lines))
    assert window.handout.export_handout() is False
    assert shown and "taken" in " ".join(shown[0][1])


def test_file_menu_exports_a_python_script(window, tmp_path):
    from attention.teaching import script_export

    target = tmp_path / "steps"
    window.ask_save_path = lambda title, name, filters: str(target)
    assert window.handout.script_action.isEnabled()
    window.handout.script_action.trigger()
    written = tmp_path / "steps.py"
    assert written.read_text(encoding="utf-8") == script_export.python_script(window.document.scenario)
    assert str(written) in window.statusBar().currentMessage()
