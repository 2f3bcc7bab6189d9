"""The step registry (attention/step_registry.py): every step a trace can hold has one record, and
every record is complete: its dims are the documented ones, its kind is known, its words exist in
every language, and the explainer, lesson and script snippet it names exist."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from attention import Additive, Scenario, explain, run, scenario_io, script_export, step_registry, words
from attention.step_registry import KINDS, RECORDS
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
    for line in (ROOT / "docs" / "trace-format.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `((?:projection|head_split|extra)\.[a-z_]+|scores|masked_scores|attention_weights|"
                     r"weighted_sum|concat|output)` \| ([^|(]+)", line)
        if m:
            out[m.group(1)] = tuple(d.strip() for d in m.group(2).split(","))
    return out


def test_records_keep_the_documented_ids_order_and_dims():
    documented = _documented_steps()
    assert list(documented) == [r.id for r in RECORDS]
    assert {r.id: r.dims for r in RECORDS} == documented


def test_every_record_is_complete():
    from app.viewmodel import lessons

    bad = []
    for r in RECORDS:
        where = r.id
        if r.kind not in KINDS:
            bad.append(f"{where}: kind {r.kind!r}")
        if (r.kind == "index") != (r.points_into is not None):
            bad.append(f"{where}: points_into goes with kind 'index'")
        if r.points_into is not None and r.points_into not in ("L", "S"):
            bad.append(f"{where}: points_into {r.points_into!r}")
        if "*" not in r.formula:
            bad.append(f"{where}: no formula for every scoring ('*')")
        for key in (r.title, *r.formula.values()):
            for lang in words.LANGS:
                if key not in words.table(lang):
                    bad.append(f"{where}: no {lang} words for {key}")
        if not callable(getattr(explain, r.explain, None)):
            bad.append(f"{where}: explainer {r.explain} is not in attention/explain.py")
        if not callable(getattr(lessons, r.lesson, None)):
            bad.append(f"{where}: lesson {r.lesson} is not in app/viewmodel/lessons.py")
        if r.extra != (r.script is None):
            bad.append(f"{where}: the main pipeline, and only it, is in the exported script")
        if r.script is not None and not callable(getattr(script_export, r.script, None)):
            bad.append(f"{where}: snippet {r.script} is not in attention/script_export.py")
        parameter = re.compile(r"queries|keys|values|projection\.[a-z]+\.weight")
        for name in r.inputs:
            if name not in step_registry.BY_ID and not parameter.fullmatch(name):
                bad.append(f"{where}: input {name!r} is neither a step nor a parameter")
    assert bad == []


def test_every_record_has_a_lesson_in_both_languages():
    from app.viewmodel import lessons

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
    from attention import trace_cache

    sc = next(s for s in PRESETS.values() if s.scoring == "additive")
    trace = run(sc)
    assert trace_cache.save(trace, sc, tmp_path / "t.npz")
    back = trace_cache.load(sc, tmp_path / "t.npz")
    assert back is not None
    assert [s.formula for s in back.steps] == [s.formula for s in trace.steps]
    assert "tanh" in back["scores"].formula["en"]
