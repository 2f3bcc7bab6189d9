"""The Qt-free half of the model view (app/viewmodel/model_session.py) on the real MiniLM."""
from __future__ import annotations

import numpy as np

from app.viewmodel.model_session import ModelSession, sentence_lines
from attention.datamodel import numbers


def test_sentence_lines():
    assert sentence_lines("  one \n\n two\n   \n") == ("one", "two")
    assert sentence_lines("") == ()


def test_session_grid_cuts_padding_and_names_cells(minilm_folder):
    s = ModelSession.open(minilm_folder, "MiniLM")
    assert s.model.name == "MiniLM" and (s.n_layers, s.n_heads) == (6, 12)
    run = s.compute(("Hello there.", "The quick brown fox jumps."))
    s.item = 1
    s.accept(run)
    assert s.item == 1 and s.sentences == ("Hello there.", "The quick brown fox jumps.")
    n0, n1 = (int(n) for n in run.batch.valid_lens)
    assert s.grid().shape == (6, 12, n1, n1)
    s.item = 0
    g = s.grid()
    assert g.shape == (6, 12, n0, n0)
    assert np.allclose(g.sum(-1), 1.0, atol=1e-5)  # padding carries no weight: the cut rows still sum to 1
    text = s.cell_text(2, 3, 1, 0, "{layer}/{head}: {query}->{key} {weight}")
    # the weight written as every number a person reads (attention.datamodel.numbers: 4 significant digits)
    assert text == f"3/4: hello->[CLS] {numbers.rounded(float(g[2, 3, 1, 0]))}"
    sc = s.scenario(4)
    assert s.layer == 4 and sc.title["en"] == "MiniLM, layer 5 of 6"
    assert s.token_count(("Hello there.", "The quick brown fox jumps.")) == 2 * max(n0, n1)
    s.accept(s.compute(("Only one.",)))
    assert s.item == 0


def test_a_pair_spans_filters_and_caption(minilm_folder):
    """A pair's grid shows BertViz's slices at sentence_b_start; the caption names layer and head (en, zh)."""
    s = ModelSession.open(minilm_folder, "MiniLM")
    s.pair = True
    s.accept(s.compute(("Hello there.", "Hi.")))
    assert s.is_pair() and s.items() == 1
    assert s.labels() == ("A: [CLS]", "A: hello", "A: there", "A: .", "A: [SEP]", "B: hi", "B: .", "B: [SEP]")
    full = s.run.forward.attentions[:, 0]  # (layers, H, 8, 8)
    for part, rows, cols in (("all", slice(0, 8), slice(0, 8)), ("aa", slice(0, 5), slice(0, 5)),
                             ("ab", slice(0, 5), slice(5, 8)), ("ba", slice(5, 8), slice(0, 5)),
                             ("bb", slice(5, 8), slice(5, 8))):
        s.filter = part
        assert np.array_equal(s.shown_grid(), full[:, :, rows, cols]), part
    s.filter = "ab"
    weight = numbers.rounded(float(full[0, 1, 1, 7]))  # row 1 of A, column 2 of B = position 5 + 2
    assert s.cell_text(0, 1, 1, 2, "{query}|{key}|{weight}") == f"A: hello|B: [SEP]|{weight}"
    batch = s.state()
    s.pair = False
    s.accept(s.compute(("Hello there.", "Hi.")))  # the same two sentences as a padded batch
    assert not s.is_pair() and s.items() == 2 and s.filter == "all"
    s.layer, s.head = 2, 1
    assert s.caption() == {"en": "MiniLM · layer 3 · head 2", "zh": "MiniLM · 第 3 层 · 头 2"}
    s.head = -1
    assert s.caption()["en"] == "MiniLM · layer 3 · all heads"
    s.restore(batch)  # undo brings the pair back, and the choice with it
    assert s.pair and s.is_pair()
