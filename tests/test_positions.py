"""Defect 11: one convention for every index a person reads: positions count from 1 (row 1, head 1,
batch item 1); code keeps its index from 0 (the exported script, file and trace paths, a formula's
brackets).  One test per surface; the expected texts are written out by hand here."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.viewmodel.pane_data import pane_data
from attention import run
from attention.datamodel import numbers
from attention.datamodel.problem import Problem
from attention.datamodel.scenario import Projection, Scenario, ScenarioError
from attention.files import scenario_io
from attention.teaching.explain import explain
from attention.teaching.script_export import python_script
from resources import scenarios_dir

ROOT = Path(__file__).resolve().parents[1]
TOY = scenarios_dir() / "01_tsl_toy.json"


def toy(**kw) -> Scenario:
    q = np.array([[[1, 0, 2, 1], [0, 1, 1, 2], [1, 1, 0, 1], [2, 0, 1, 0]]], float)
    eye = Projection(np.eye(4), np.zeros(4))
    args = dict(queries=q, keys=q.copy(), values=q.copy(), n_heads=2, projections={n: eye for n in
                                                                                  ("query", "key", "value", "out")})
    args.update(kw)
    return Scenario(**args)


# ---- the one function ---------------------------------------------------------------------------------
def test_position_is_the_index_plus_one_and_reads_back():
    assert numbers.FIRST == 1
    assert [numbers.position(i) for i in (0, 2, 9)] == ["1", "3", "10"]
    assert numbers.positions((0, 3)) == "1, 4"
    assert numbers.index_of(" 3 ") == 2
    with pytest.raises(ValueError):
        numbers.index_of("x")


# ---- heatmap axes, hover, shape (app/viewmodel/pane_data.py) -------------------------------------------
def test_pane_axes_hover_and_shape_count_from_one():
    trace = run(toy())
    d = pane_data(trace, "projection.query", 0)
    assert [d.layout.rows.tick(i) for i in range(4)] == ["1", "2", "3", "4"]
    assert [d.layout.cols.tick(i) for i in range(4)] == ["1", "2", "3", "4"]
    # row index 2, column index 3: query 3, feature 4, which is head 2's second feature
    assert d.hover_text(0, 2, 3, "en").startswith("query 3, feature 4 (head 2, #2) = ")
    assert d.hover_text(0, 2, 3, "zh").startswith("查询3，特征4 (第 2 头，第 2 个) = ")
    assert "batch item 1" in d.shape_text("en") and "批次第 1 项" in d.shape_text("zh")
    scores = pane_data(trace, "scores", 0)
    assert scores.hover_text(1, 0, 0, "en").startswith("Head 2 · query 1, key 1 = ")


def test_an_index_cell_names_its_index_and_the_position_it_points_at():
    sc = scenario_io.load(scenarios_dir() / "07_informer_probsparse.json")
    trace = run(sc)
    d = pane_data(trace, "extra.sample_index", 0)
    drawn = int(trace.array("extra.sample_index")[0, 1])  # query index 0, draw index 1
    assert d.cell_text(0, 0, 1) == str(drawn)  # the cell holds the trace's own index
    assert d.hover_text(0, 0, 1, "en").endswith(f"= index {drawn} → key {drawn + 1}")
    assert d.hover_text(0, 0, 1, "zh").endswith(f"= 索引 {drawn} → 键{drawn + 1}")


# ---- problems (attention/datamodel/problem.py) ------------------------------------------------------------------
def test_a_problem_on_a_cell_keeps_the_file_path_and_names_positions_from_one():
    doc = json.loads(TOY.read_text(encoding="utf-8"))
    doc["queries"][0][2][1] = "x"  # batch item 1, row 3, column 2
    with pytest.raises(ScenarioError) as err:
        scenario_io.loads(json.dumps(doc))
    (p,) = [p for p in err.value.problems if p.path.startswith("queries")]
    assert p.path == "queries[0][2][1]"
    assert p.text("en").startswith("queries[0][2][1] (batch item 1, row 3, column 2): ")
    assert p.text("zh").startswith("queries[0][2][1]（批次第 1 项，第 3 行，第 2 列）")


@pytest.mark.parametrize("path,en", [
    ("mask.valid_lens[1][2]", "batch item 2, query 3"),
    ("projections.query.weight[3][0]", "row 4, column 1"),
    ("projections.key.bias[2]", "entry 3"),
    ("query_tokens[4]", "token 5"),
])
def test_problem_positions_by_field(path, en):
    assert Problem("expected_number", path, {"got": "x"}).text("en").startswith(f"{path} ({en}): ")


def test_a_fully_masked_row_warning_counts_from_one():
    sc = toy(valid_lens=np.array([[4, 4, 0, 4]]))  # batch item 1, query 3 sees no key
    (w,) = [w for w in run(sc).warnings if "masked" in w.text("en")]
    assert "(batch 1, query 3)" in w.text("en")
    assert "批次 1 的查询 3" in w.text("zh")


# ---- explain (attention/teaching/explain.py): sentences from 1, formulas and terms as code from 0 ---------------
def test_explain_sentences_count_from_one_and_formulas_stay_code():
    trace = run(toy())
    ex = explain(trace, "scores", (0, 1, 2, 3))  # batch 0, head 1, query 2, key 3 (indices)
    assert ex.summary["en"].startswith("Query 3 against key 4 in head 2 (batch 1)")
    assert ex.summary["zh"].startswith("第 2 头中查询 3 对键 4（批次 1）")
    assert ex.formula["en"].startswith("scores[0,1,2,3] = ")  # code: the index from 0


def test_explain_names_both_where_both_appear():
    trace = run(toy())
    ex = explain(trace, "head_split.query", (0, 2, 1, 0))  # head index 1, element index 0: column index 2
    assert ("Head 2 owns columns 3 … 4 of projection.query; its element 1 is column 3 there "
            "(index h·2+e = 1·2+0 = 2, counted from 0)") in ex.summary["en"]
    assert "下标 h·2+e = 1·2+0 = 2" in ex.summary["zh"]
    assert "第 2 头拥有“查询投影”的第 3 … 4 列" in ex.summary["zh"]


def test_explain_mask_reasons_compare_positions():
    sc = toy(causal=True, valid_lens=np.array([2]))
    trace = run(sc)
    ex = explain(trace, "extra.mask", (0, 0, 2))  # query index 0, key index 2
    assert "key 3 > valid length 2 of batch item 1" in ex.summary["en"]
    assert "causal: key 3 comes after query 1" in ex.summary["en"]
    kept = explain(trace, "extra.mask", (0, 1, 1))
    assert "key 2 ≤ valid length 2" in kept.summary["en"] and "key 2 ≤ query 2" in kept.summary["en"]


# ---- words of the head split, lessons, the window's head tooltip --------------------------------------
def test_head_split_formula_and_lesson_count_heads_from_one():
    from app.viewmodel import lessons

    trace = run(toy())
    assert trace["head_split.query"].formula["en"].endswith("head h owns columns (h-1)*d_k+1 to h*d_k")
    assert "(h-1)*d_k+1" in trace["head_split.query"].formula["zh"]
    text = lessons.explanation("head_split.query", trace.options, "en")
    assert "head h owning columns (h−1)·2+1 … h·2 (head 1 the first 2)" in text


# ---- the exported script stays code: indices from 0 --------------------------------------------------
def test_script_export_keeps_zero_based_indices():
    script = python_script(toy())
    assert "q = Q.view(B, L, H, -1)  # (B, L, H, d_k): head h owns columns h*d_k ... (h+1)*d_k - 1" in script
    assert "# ---- head_split.query: Q.view(B, L, H, d_k) ---" in script
    assert "(h-1)" not in script


# ---- the CLI, as a person runs it ---------------------------------------------------------------------
@pytest.mark.slow  # starts Python in a child process
def test_cli_explain_and_validate_text_count_from_one(tmp_path):
    out = subprocess.run([sys.executable, "main.py", "explain", str(TOY), "scores", "0", "0", "0", "3"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "scores[0, 0, 0, 3]" in out.stdout  # the cell named as code
    assert "Query 1 against key 4 in head 1 (batch 1)" in out.stdout
    doc = json.loads(TOY.read_text(encoding="utf-8"))
    doc["queries"][0][1][3] = "x"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    out = subprocess.run([sys.executable, "main.py", "validate", str(bad)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode != 0
    assert "queries[0][1][3] (batch item 1, row 2, column 4): " in out.stdout + out.stderr
