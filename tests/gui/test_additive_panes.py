"""Additive scoring in the real window (issue 12, defect 2): the Steps region and the slides show
the hidden features tanh(W_q q + W_k k) as a step, and every pane of an additive scenario carries
the additive kind's own title and formula (none says q . k)."""
from __future__ import annotations

import numpy as np
from gui_helpers import expected_matrices
from PySide6.QtCore import Qt

import attention
import resources

DOT_WORDS = ("q_l . k_s", "q · k", "Scaled scores", "缩放后的分数")


def _open_additive(window):
    presets = resources.list_presets()
    path, title = next((p, t) for p, t in presets if attention.files.scenario_io.load(p).scoring == "additive")
    assert window.open_preset(path, title)
    window.recompute.wait_idle()


def test_the_steps_region_shows_the_features_with_the_engines_numbers(window):
    _open_additive(window)
    view = window.view
    assert "extra.additive_features" in view.pane_ids()
    trace = attention.run(window.document.scenario)
    shown = view.displayed_arrays("extra.additive_features")
    want = expected_matrices(trace, "extra.additive_features", 0)
    assert len(shown) == len(want) == trace.options["n_heads"]
    for s, w in zip(shown, want):
        assert np.array_equal(np.asarray(s), w.astype(np.float32))
    assert "Additive: hidden features" in view.pane("extra.additive_features").title_text()
    assert "Additive scores" in view.pane("scores").title_text()
    for sid in view.pane_ids():
        pane = view.pane(sid)
        for text in (pane.title_text(), pane.formula.text()):
            assert not any(w in text for w in DOT_WORDS), (sid, text)


def test_the_slides_show_the_features_before_the_scores_in_both_languages(qtbot, window, presentation):
    _open_additive(window)
    view = presentation(window)
    ids = view.lesson_ids()
    assert ids.index("extra.additive_features") == ids.index("scores") - 1
    trace = window.last_trace
    for lang in ("en", "zh"):
        window.set_language(lang)
        for i, sid in enumerate(ids):
            view.go_to(i)
            texts = (view.title.text(), view.formula.text(), view.explanation_text())
            assert not any(w in t for w in DOT_WORDS for t in texts), (lang, sid, texts)
        view.go_to(ids.index("extra.additive_features"))
        # slides keep a formula on one line with no-break spaces (app/viewmodel/nowrap.py)
        assert "tanh((W_q q_l)[n] + (W_k k_s)[n])" in view.formula.text().replace("\xa0", " ")
        assert view.title.text() == trace["extra.additive_features"].title[lang]
    qtbot.keyClick(view, Qt.Key.Key_Escape)
