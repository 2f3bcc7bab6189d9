"""The map of steps and the slide's explanation, Qt-free: chip order and names, which chip is current,
how many terms a slide shows, what a quiz keeps back and which cells a number came from."""
from __future__ import annotations

import numpy as np

import attention
from app.viewmodel import pipeline_map, slide_explain
from app.viewmodel.param_steps import parameter_pane_data
from attention import words
from attention.datamodel.scenario import Projection, Scenario
from attention.teaching.explain import explain
from attention.text.explanation import Source

TOY_MAIN = ["projection.query", "projection.key", "projection.value", "head_split.query", "head_split.key",
            "head_split.value", "scores", "masked_scores", "attention_weights", "weighted_sum", "concat", "output"]


def toy(batch: int = 1) -> Scenario:
    """The seed's toy (identity projections: head h of a row is its columns 2h, 2h+1)."""
    q = np.array([[[1, 0, 2, 1], [0, 1, 1, 2], [1, 1, 0, 1], [2, 0, 1, 0]]] * batch, float)
    v = np.arange(16 * batch, dtype=float).reshape(batch, 4, 4)
    eye = Projection(np.eye(4), np.zeros(4))
    return Scenario(queries=q, keys=q.copy(), values=v, n_heads=2,
                    projections={n: eye for n in ("query", "key", "value", "out")})


# ---- the map -------------------------------------------------------------------------------------
def test_chips_follow_the_pipeline_with_the_extras_where_they_are_computed():
    traced = ["output", *TOY_MAIN[:-1], "extra.mask", "extra.fully_masked", "extra.sample_index", "extra.selected"]
    order = pipeline_map.map_order(traced)
    # written out by hand: ProbSparse's sampling before the scores, the mask before the masked scores,
    # the fully masked rows after the weights
    assert order == ["projection.query", "projection.key", "projection.value", "head_split.query",
                     "head_split.key", "head_split.value", "extra.sample_index", "extra.selected", "scores",
                     "extra.mask", "masked_scores", "attention_weights", "extra.fully_masked", "weighted_sum",
                     "concat", "output"]
    assert pipeline_map.map_order(["output", "new.step", "scores"]) == ["scores", "output", "new.step"]


def test_chip_names_and_tooltips_come_from_the_catalogue_in_both_languages():
    en = pipeline_map.chips(["projection.query", "attention_weights", "not.a.step"], "en")
    zh = pipeline_map.chips(["projection.query", "attention_weights"], "zh")
    assert [c.label for c in en] == ["Project Q", "Softmax", "not.a.step"]
    assert [c.label for c in zh] == ["投影 Q", "Softmax 权重"]
    assert en[1].tooltip.startswith("Attention weights (softmax)\nA = softmax(")
    assert en[1].tooltip_here.endswith("You are here.") and zh[1].tooltip_here.endswith("你在这里。")
    assert zh[0].tooltip.startswith(words.text("step.projection.query.title", "zh"))
    # a step the map has no short name for shows its title
    assert pipeline_map.chip_label("scores", "en") == "Scores"


def test_the_current_step_is_the_highest_pane_in_sight_or_the_one_chosen():
    boxes = [("a", 0, 99), ("b", 100, 399), ("c", 100, 199), ("d", 400, 499)]
    assert pipeline_map.current_in_sight(boxes, 0, 300) == "a"
    assert pipeline_map.current_in_sight(boxes, 60, 360) == "b"  # less than half of a shows
    assert pipeline_map.current_in_sight(boxes, 60, 360, chosen="c") == "c"
    assert pipeline_map.current_in_sight(boxes, 250, 550, chosen="c") == "d"  # c is out of sight
    assert pipeline_map.current_in_sight([("big", 0, 5000)], 1000, 1300) == "big"  # fills the view
    assert pipeline_map.current_in_sight([], 0, 100) is None


# ---- the explanation on a slide ------------------------------------------------------------------
def test_long_sums_keep_the_first_terms_and_the_last():
    texts = [f"t{i}" for i in range(10)]
    assert slide_explain.shown_terms(texts, 10, "… {n} more") == tuple(texts)
    assert slide_explain.shown_terms(texts, 6, "… {n} more") == ("t0", "t1", "t2", "t3", "… 5 more", "t9")


def test_slide_lines_are_the_engines_words_and_a_quiz_keeps_the_numbers_back():
    trace = attention.run(toy())
    expl = explain(trace, "weighted_sum", (0, 1, 0, 1))
    lines = slide_explain.slide_lines(expl, "en")
    full = expl.text("en").splitlines()
    assert lines.header == full[0]
    assert lines.terms == tuple(t.text["en"] for t in expl.terms)
    assert lines.combine == f"= {expl.combine['en']}" and lines.summary == expl.summary["en"]
    hidden = slide_explain.slide_lines(expl, "zh", slide_explain.HIDDEN_CELL)
    assert hidden.terms == () and hidden.combine == "" and hidden.summary == ""
    assert hidden.header == "值的加权和: weighted_sum[0, 1, 0, 1]"  # no value
    assert hidden.note == words.text("slide_explain.hidden_cell", "zh")
    srcs = expl.sources
    assert slide_explain.hidden_reason(lambda sid: False, False, srcs) is None
    hides = lambda hidden: (lambda sid: sid == hidden)  # noqa: E731
    assert slide_explain.hidden_reason(hides("attention_weights"), False, srcs) == slide_explain.HIDDEN_SOURCE
    assert slide_explain.hidden_reason(hides("head_split.value"), False, srcs) == slide_explain.HIDDEN_SOURCE
    assert slide_explain.hidden_reason(hides("output"), False, srcs) is None
    assert slide_explain.hidden_reason(hides("weighted_sum"), True, srcs) == slide_explain.HIDDEN_CELL


def test_source_cells_land_where_each_pane_draws_them():
    trace = attention.run(toy(batch=2))
    panes = {"head_split.query": trace["head_split.query"], "head_split.key": trace["head_split.key"]}
    expl = explain(trace, "scores", (1, 1, 2, 3))  # batch item 1, head 2, query 2, key 3
    cells = slide_explain.source_cells(expl.sources, panes, batch=1)
    # by hand: head 2 is matrix 1; query 2's row and key 3's row, both head features
    assert cells == {"head_split.query": {(1, 2, 0), (1, 2, 1)}, "head_split.key": {(1, 3, 0), (1, 3, 1)}}
    assert slide_explain.source_cells(expl.sources, panes, batch=0) == {}  # another batch item: nothing
    weight = [Source("projection.query.weight", (2, 1))]
    w_step = parameter_pane_data(trace, "projection.query.weight").step
    assert slide_explain.source_cells(weight, {"projection.query.weight": w_step}, batch=1) == {
        "projection.query.weight": {(0, 2, 1)}}  # a parameter has no batch axis
