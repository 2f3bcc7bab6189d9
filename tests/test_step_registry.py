"""The step registry (attention/registry/step_registry.py): every step a trace can hold has one record, and
every record is complete: its dims are the documented ones, its kind is known, its words exist in
every language, and the explainer, lesson and script snippet it names exist."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from attention import Additive, Scenario, run, words
from attention.datamodel.parts import Part
from attention.datamodel.step_record import KINDS, SLIDE, StepRecord
from attention.files import scenario_io
from attention.pipeline import explain
from attention.registry import step_registry
from attention.registry.step_registry import RECORDS
from resources import list_presets

ROOT = Path(__file__).resolve().parents[1]
PRESETS = {p.name: scenario_io.load(p) for p, _ in list_presets()}


def _all_kinds_of_trace():
    """Traces that between them hold every step: each preset, each scoring, a mask, ProbSparse."""
    rng = np.random.default_rng(3)
    n = rng.normal
    base = Scenario(n(size=(1, 3, 4)), n(size=(1, 4, 4)), n(size=(1, 4, 4)), n_heads=2,
                    valid_lens=np.array([3.0]), causal=True)
    traces = {name: run(sc) for name, sc in PRESETS.items()}
    traces["dot"] = run(dataclasses.replace(base, scoring="dot"))
    traces["additive"] = run(dataclasses.replace(base, scoring="additive",
                                                 additive=Additive(3, n(size=(2, 3, 2)), n(size=(2, 3, 2)),
                                                                   n(size=(2, 3)))))
    traces["prob_sparse"] = run(dataclasses.replace(base, scoring="prob_sparse", valid_lens=None, causal=False))
    traces["rope_qk_norm"] = run(dataclasses.replace(base, positions=(Part("rope"),), modifiers=(Part("qk_norm"),)))
    traces["modifiers"] = run(dataclasses.replace(base, modifiers=(  # ALiBi, soft-capping, sinks
        Part("alibi"), Part("softcap", {"cap": 1.5}), Part("sinks", {"logits": [0.5, -1.0]}))))
    return traces


@pytest.fixture(scope="module")
def traces():
    return _all_kinds_of_trace()


def test_every_step_of_every_trace_has_a_record_with_its_dims(traces):
    seen = set()
    for name, trace in traces.items():
        for step in trace.steps:
            assert step.id in step_registry.BY_ID, f"{name}: {step.id} has no record"
            assert step.dims == step_registry.record(step.id).dims, f"{name}: {step.id}"
            seen.add(step.id)
    assert seen == set(step_registry.BY_ID), "a record no trace uses"
    for trace in traces.values():
        assert trace.ids[:len(step_registry.PIPELINE)] == step_registry.PIPELINE


def _documented_steps() -> dict[str, tuple[str, ...]]:
    """id -> dims from the two step tables of docs/trace-format.md (the public contract)."""
    out = {}
    text = (ROOT / "docs" / "trace-format.md").read_text(encoding="utf-8")
    steps = text.split("### `steps`", 1)[1].split("### `warnings`", 1)[0]  # the step tables only
    for line in steps.splitlines():
        m = re.match(r"\| `((?:[a-z_]+)\.[a-z_]+|scores|masked_scores|attention_weights|"
                     r"weighted_sum|concat|output)` \| ([^|(]+)", line)
        if m:
            out[m.group(1)] = tuple(d.strip() for d in m.group(2).split(","))
    return out


def test_records_keep_the_documented_ids_order_and_dims():
    documented = _documented_steps()
    assert list(documented) == [r.id for r in RECORDS]
    assert {r.id: r.dims for r in RECORDS} == documented


#: where a record's lesson function may live besides a kind: the main steps' and the shared one
LESSON_MODULES = ("attention.pipeline.lessons", "attention.text.lesson")


def _module_of(fn) -> str:
    return getattr(fn, "__module__", "") or ""


def test_every_record_is_complete():
    from attention.registry import kinds

    bad = []
    for r in RECORDS:
        where = r.id
        if r.kind not in KINDS:
            bad.append(f"{where}: kind {r.kind!r}")
        if (r.kind == "index") != (r.points_into is not None):
            bad.append(f"{where}: points_into goes with kind 'index'")
        if r.points_into is not None and r.points_into not in ("L", "S"):
            bad.append(f"{where}: points_into {r.points_into!r}")
        if r.slide not in SLIDE:
            bad.append(f"{where}: slide {r.slide!r}")
        keys = [r.title, r.formula] + [k.formulas.get(r.id) for k in kinds.SCORING.values()] \
            + [k.titles.get(r.id) for k in kinds.SCORING.values()]
        for key in filter(None, keys):
            for lang in words.LANGS:
                if key not in words.table(lang):
                    bad.append(f"{where}: no {lang} words for {key}")
        # real references, each in the module that holds that family of functions
        if not callable(r.compute) or not _module_of(r.compute).startswith("attention."):
            bad.append(f"{where}: compute {r.compute!r}")
        if not callable(r.active):
            bad.append(f"{where}: active {r.active!r}")
        if not callable(r.explain) or _module_of(r.explain) != "attention.pipeline.explain" \
                and not _module_of(r.explain).startswith("attention.kinds."):
            bad.append(f"{where}: explainer {r.explain!r} is not in attention/pipeline/explain.py or a kind")
        if not callable(r.lesson) or _module_of(r.lesson) not in LESSON_MODULES \
                and not _module_of(r.lesson).startswith("attention.kinds."):
            bad.append(f"{where}: lesson {r.lesson!r} is not in {' or '.join(LESSON_MODULES)} or a kind")
        if r.extra != (r.script is None):
            bad.append(f"{where}: the main pipeline, and only it, is in the exported script")
        if r.script is not None and _module_of(r.script) != "attention.pipeline.script" \
                and not _module_of(r.script).startswith("attention.kinds."):
            bad.append(f"{where}: snippet {r.script!r} is not in attention/pipeline/script.py or a kind")
        parameter = re.compile(r"queries|keys|values|projection\.[a-z]+\.weight")
        for name in r.inputs:
            if name not in step_registry.BY_ID and not parameter.fullmatch(name):
                bad.append(f"{where}: input {name!r} is neither a step nor a parameter")
        for name, reason in r.repeats:
            if name not in r.inputs:
                bad.append(f"{where}: repeats {name!r}, which is not one of its inputs")
            if f"quiz.reason.{reason}" not in words.table("en"):
                bad.append(f"{where}: no words for the quiz reason {reason!r}")
    assert bad == []


def test_every_input_is_computed_before_the_step_that_reads_it():
    rank = {sid: i for i, sid in enumerate(step_registry.ORDER)}
    late = [(r.id, name) for r in RECORDS for name in r.inputs if name in rank and rank[name] >= rank[r.id]]
    assert late == []
    assert [r.id for r in step_registry.COMPUTE_ORDER] == list(step_registry.ORDER)


def test_each_kinds_own_steps_have_records_and_only_that_kind_computes_them(traces):
    from attention.registry import kinds

    for kind in kinds.SCORING.values():
        for sid in kind.extra_steps:
            assert sid in step_registry.BY_ID, f"{kind.name}: {sid} has no record"
    for name in ("additive", "prob_sparse", "dot"):
        trace = traces[name]
        own = set(kinds.scoring(name).extra_steps)
        others = {sid for k in kinds.SCORING.values() for sid in k.extra_steps} - own
        assert own <= set(trace.ids) and not others & set(trace.ids), name


def test_one_by_hand_table_for_the_sheet_and_the_slides():
    """The by-hand sheet (quiz hiding) and the slides' by-hand layout (outline) read the records' table."""
    from app.viewmodel import by_hand

    assert by_hand.SHOWS_STEP is step_registry.BY_HAND
    assert step_registry.BY_HAND["head_split.key"] == ("kt",)
    assert step_registry.BY_HAND["extra.mask"] == ("scores", "weights")
    assert set(b for blocks in step_registry.BY_HAND.values() for b in blocks) <= set(by_hand.ORDER)
    slide = (ROOT / "app" / "teaching" / "presentation" / "by_hand_slide.py").read_text(encoding="utf-8")
    assert "BLOCK_OF_STEP: dict[str, tuple[str, ...]] = step_registry.BY_HAND" in slide


def test_every_record_has_a_lesson_in_both_languages():
    from attention.teaching import lessons

    for r in RECORDS:
        en, zh = (lessons.explanation(r.id, {}, lang) for lang in ("en", "zh"))
        assert en and zh and en != zh, r.id
        assert re.search(r"[\u4e00-\u9fff]", zh), r.id


def test_the_formula_follows_the_scoring(traces):
    """The additive scores pane shows the additive formula, not the dot product's; ProbSparse's
    says which rows were computed; the other scorings keep the dot product."""
    additive = traces["additive"]["scores"].formula
    assert "tanh(W_q q_l + W_k k_s)" in additive["en"] and "w_v" in additive["en"]
    assert "tanh" in additive["zh"]
    assert "tanh" not in traces["dot"]["scores"].formula["en"]
    assert traces["dot"]["scores"].formula == step_registry.formula("scores")
    assert "top-u" in traces["prob_sparse"]["scores"].formula["en"]
    assert traces["prob_sparse"]["attention_weights"].formula["en"] != traces["dot"]["attention_weights"].formula["en"]
    # a step whose formula does not depend on the scoring reads the same in every trace
    assert traces["additive"]["concat"].formula == traces["dot"]["concat"].formula


def test_a_trace_read_back_from_disk_keeps_its_formulas(tmp_path):
    from attention.files import trace_cache

    sc = next(s for s in PRESETS.values() if s.scoring == "additive")
    trace = run(sc)
    assert trace_cache.save(trace, sc, tmp_path / "t.npz")
    back = trace_cache.load(sc, tmp_path / "t.npz")
    assert back is not None
    assert [s.formula for s in back.steps] == [s.formula for s in trace.steps]
    assert "tanh" in back["scores"].formula["en"]


# ---- the records drive the engine ---------------------------------------------------------------

def _with_records(monkeypatch, records):
    """The registry as if `records` were declared in it (the order tables rebuilt from them)."""
    monkeypatch.setattr(step_registry, "RECORDS", tuple(records))
    monkeypatch.setattr(step_registry, "BY_ID", {r.id: r for r in records})
    order = step_registry._order()
    monkeypatch.setattr(step_registry, "ORDER", order)
    monkeypatch.setattr(step_registry, "COMPUTE_ORDER", tuple(step_registry.BY_ID[sid] for sid in order))


def _small() -> Scenario:
    rng = np.random.default_rng(11)
    return Scenario(rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 4)), n_heads=2,
                    valid_lens=np.array([4.0, 2.0]))


def test_a_step_declared_in_one_record_is_computed_in_its_place(monkeypatch):
    """One declaration inserts a step: the engine computes it between the steps it sits between,
    after its input, and the trace holds it (numbers checked by hand: twice the scores)."""
    from attention.text import lesson

    computed_before: list[list[str]] = []

    def doubled(run, step_id):
        computed_before.append(list(run.values))
        return run.values["scores"] * 2

    rec = StepRecord("extra.doubled", ("B", "H", "L", "S"), "signed", "step.scores.title",
                                   "step.scores.formula", doubled, lambda sc, kinds: sc.n_heads == 2, explain._scores,
                                   lesson._sentences, None, ("scores",), before="masked_scores")
    plain = run(_small())
    _with_records(monkeypatch, RECORDS + (rec,))
    trace = run(_small())
    assert "extra.doubled" in trace.ids
    np.testing.assert_array_equal(trace.array("extra.doubled"), 2 * plain.array("scores"))
    (before,) = computed_before
    assert "scores" in before and "extra.mask" in before and "masked_scores" not in before
    # not active for this scenario: not computed, not in the trace
    assert "extra.doubled" not in run(dataclasses.replace(_small(), n_heads=1)).ids


def test_the_engine_calls_each_records_compute_function(monkeypatch):
    """Replacing the concat record's compute function changes the output: nothing is computed
    outside the records (zero concat: the output is the output projection's bias)."""
    import torch

    sc = _small()
    rng = np.random.default_rng(2)
    bias = rng.normal(size=(3,))
    from attention import Projection

    sc = dataclasses.replace(sc, projections={"out": Projection(rng.normal(size=(3, 4)), bias)})
    zero = dataclasses.replace(step_registry.BY_ID["concat"],
                               compute=lambda run, sid: torch.zeros_like(run.values["weighted_sum"]).flatten(2))
    _with_records(monkeypatch, [zero if r.id == "concat" else r for r in RECORDS])
    out = run(sc).array("output")
    np.testing.assert_allclose(out, np.broadcast_to(bias, out.shape), rtol=0, atol=0)


def test_a_step_that_stands_for_another_is_read_in_its_place(monkeypatch):
    """An inserted step declared `stands_for="head_split.query"` is what the scores read: queries
    doubled before the scores double every score (by hand: scale · (2q) · k = 2 · scale · q · k);
    the trace keeps head_split.query as it was."""
    from attention.pipeline import explain
    from attention.text import lesson

    def doubled_queries(run, step_id):
        return run.inputs["head_split.query"] * 2

    rec = StepRecord("extra.doubled_queries", ("B", "L", "H", "dk"), "signed",
                                   "step.head_split.query.title", "step.head_split.query.formula", doubled_queries,
                                   lambda sc, kinds: True, explain._head_split, lesson._sentences, None,
                                   ("head_split.query",), before="scores", stands_for="head_split.query")
    plain = run(_small())
    _with_records(monkeypatch, RECORDS + (rec,))
    trace = run(_small())
    np.testing.assert_array_equal(trace.array("head_split.query"), plain.array("head_split.query"))
    np.testing.assert_allclose(trace.array("scores"), 2 * plain.array("scores"), rtol=1e-12, atol=0)
