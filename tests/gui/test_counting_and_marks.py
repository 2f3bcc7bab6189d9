"""Counting and marks a person reads (issue 30, items 3 and 4): lags from 0 (a lag is an amount), yes/no cells as
✓ / ✗ with a legend, every axis named in both languages, axis names that never break inside a Chinese word, and
invisible tokens drawn visibly (a newline as ↵)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import attention
import resources
from app.viewmodel import pane_text
from app.viewmodel.pane_data import pane_data
from attention import words
from attention.files import scenario_io
from attention.registry import step_registry

AUTOCORR = resources.scenarios_dir() / "32_tsl_autoformer_autocorrelation.json"
CAUSAL = resources.scenarios_dir() / "06_causal_self_attention.json"


def _correlation(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Σ_t q[(t + τ) mod L] · k[t], averaged over the channels, for every lag τ = 0 … L − 1 (by hand, no FFT)."""
    L = q.shape[0]
    return np.array([np.mean([sum(q[(t + tau) % L, e] * k[t, e] for t in range(L)) for e in range(q.shape[1])])
                     for tau in range(L)])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_lag_axis_counts_from_0_where_the_lags_are_read(lang):
    sc = scenario_io.load(AUTOCORR)  # no projections: the correlation is the series' own
    trace = attention.run(sc)
    data = pane_data(trace, "extra.mean_correlation", 0)
    lags = data.layout.rows if data.layout.rows.dim == "lag" else data.layout.cols
    want = _correlation(sc.queries[0], sc.keys[0])
    shown = data.block[0].ravel()
    for tau in range(sc.L):  # the row whose tick reads "τ" holds the correlation at lag τ
        assert lags.tick(tau) == str(tau)
        assert shown[tau] == pytest.approx(want[tau], rel=1e-5, abs=1e-6), tau
    # the top-lags pane names lags the axis reads at the same place (it put lag 0 at tick 1)
    for lag in trace.array("extra.top_lags")[0].tolist():
        assert lags.tick(int(lag)) == str(int(lag))
        assert lags.describe(int(lag), lang).endswith(str(int(lag)))
    assert lags.name(lang) == words.text("dim.lag.axis", lang) and "lag" not in lags.name("zh")


@pytest.mark.parametrize("lang, yes", [("en", "True"), ("zh", "是")])
def test_a_mask_cell_reads_a_mark_the_legend_names(lang, yes):
    sc = scenario_io.load(CAUSAL)
    trace = attention.run(sc)
    data = pane_data(trace, "extra.mask", 0)
    for l in range(sc.L):
        for s in range(sc.S):  # causal: key s is masked for query l when s > l
            assert data.cell_text(0, l, s) == ("✓" if s > l else "✗")
    assert data.value_phrase(0, 0, 1, lang).startswith(yes)
    legend = pane_text.ui("legend_bool", lang, yes="✓", no="✗")
    assert "✓" in legend and "✗" in legend and (yes in legend)
    assert "T" not in data.cell_texts(0) and "F" not in data.cell_texts(0)


def test_every_axis_any_step_has_is_named_in_both_languages():
    """Step dims an axis may show (every record's, not only the presets'): a missing one showed "lag", "D",
    "seg*factor" as they are in the Chinese window."""
    dims = {d for r in step_registry.RECORDS for d in r.dims} - {"B"}
    for dim in sorted(dims):
        for part in ("axis", "noun"):  # a key exists in both languages (tests/test_words.py)
            assert words.has(f"dim.{dim}.{part}"), (dim, part)
        zh = words.text(f"dim.{dim}.axis", "zh")
        assert re.search(r"[\u4e00-\u9fff]", zh), (dim, zh)


def test_an_axis_name_never_breaks_inside_a_chinese_word(qapp):
    from app.panes.heatmap import _HAN, wrapped_name

    for key, name in words.table("zh").items():
        if not (key.startswith("dim.") and key.endswith(".axis")):
            continue
        for length in (20, 40, 60, 90, 140):
            lines = wrapped_name(name, 13, length).split("<br>")
            for before, after in zip(lines, lines[1:]):
                # a break after punctuation or a space, or before a bracket: never between two Han characters
                # of one word ("滞" / "后")
                assert not (_HAN.match(before[-1]) and _HAN.match(after[0])), (name, length, lines)
            assert "".join(x.replace("\u00a0", " ") for x in lines).replace(" ", "") == name.replace(" ", "")


@pytest.mark.parametrize("text, shown", [
    ("\n", "↵"), (" fox", "▁fox"), ("\t", "⇥"), ("a\r\n", "a␍↵"), ("", "∅"), ("\u200b", "⟨U+200B⟩"),
    ("\x00", "␀"), ("猫", "猫"), ("▁the", "▁the"),
])
def test_an_invisible_token_is_drawn_visibly(text, shown):
    from attention.models.token_text import visible

    assert visible(text) == shown


def test_glassllms_newline_token_reads_as_a_return_mark():
    pytest.importorskip("glassllm")
    from attention.models.glassllm import GlassDecoder

    model = GlassDecoder.load()
    ids = model.encode("her\nAlice")
    labels = model.token_labels(ids)
    assert "↵" in labels and all(label.strip() for label in labels)
    assert "\n" not in "".join(labels)
