"""Saving over a compact file of generator recipes keeps it compact (issue 12, defect 5).

A matrix loaded from a generator object is written as that object again while its numbers are
still bit for bit what the object makes; an edited one is written as numbers.  The expected
numbers are made here with torch directly (the generator kinds' documented meaning), not by the
loader."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import torch

from attention.datamodel.scenario import same
from attention.files import scenario_io
from resources import list_presets

L, D = 256, 64  # big enough that literal numbers would be about a megabyte

GENERATED = {
    "format": "attention-explorer/scenario", "version": 1,
    "queries": {"generate": "normal", "shape": [1, L, D], "seed": 1},
    "keys": {"generate": "uniform", "shape": [1, L, D], "seed": 2, "low": -1, "high": 1},
    "values": {"generate": "arange", "shape": [1, L, D], "step": 0.5},
    "n_heads": 4,
    "projections": {"query": {"weight": {"generate": "identity", "shape": [D, D]},
                              "bias": {"generate": "zeros", "shape": [D]}}},
    "mask": {"valid_lens": {"generate": "ones", "shape": [1]}},
}


def _write(path, doc: dict) -> None:
    path.write_text(json.dumps(doc), encoding="utf-8")


def test_unedited_matrices_stay_recipes_and_an_edited_one_becomes_numbers(tmp_path):
    path = tmp_path / "lesson.json"
    _write(path, GENERATED)
    compact = path.stat().st_size
    sc = scenario_io.load(path)
    keys = sc.keys.copy()
    keys[0, 3, 5] = 0.25  # one edited cell
    edited = dataclasses.replace(sc, keys=keys)
    scenario_io.save(edited, path)  # saved over the file it came from
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["queries"] == GENERATED["queries"]
    assert doc["values"] == GENERATED["values"]
    assert doc["projections"]["query"] == GENERATED["projections"]["query"]
    assert doc["mask"]["valid_lens"] == GENERATED["mask"]["valid_lens"]
    assert isinstance(doc["keys"], list)  # the edited matrix, as numbers
    back = scenario_io.load(path)
    assert same(back, edited)
    # the numbers, made independently: torch's seeded normal, arange * step
    expected_q = torch.randn((1, L, D), generator=torch.Generator().manual_seed(1), dtype=torch.float64).numpy()
    np.testing.assert_array_equal(back.queries, expected_q)
    np.testing.assert_array_equal(back.values, (np.arange(L * D, dtype=np.float64) * 0.5).reshape(1, L, D))
    assert back.keys[0, 3, 5] == 0.25
    literal = len(json.dumps(keys.tolist()))
    assert path.stat().st_size < compact + literal + 2_000  # only the edited matrix grew
    every_number = sum(len(json.dumps(a.tolist())) for a in (sc.queries, keys, sc.values))
    assert literal > 300_000 and path.stat().st_size < every_number / 2  # not megabytes of every matrix


def test_saving_an_unedited_file_writes_every_recipe_back(tmp_path):
    path = tmp_path / "lesson.json"
    _write(path, GENERATED)
    sc = scenario_io.load(path)
    scenario_io.save(sc, path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    for field in ("queries", "keys", "values"):
        assert doc[field] == GENERATED[field]
    assert path.stat().st_size < 4_000
    assert same(scenario_io.load(path), sc)


def test_numbers_edited_back_to_the_original_bits_are_a_recipe_again_and_a_sign_of_zero_is_an_edit(tmp_path):
    path = tmp_path / "lesson.json"
    _write(path, GENERATED)
    sc = scenario_io.load(path)
    q = sc.queries.copy()
    q[0, 0, 0] = float(sc.queries[0, 0, 0])  # typed back to the very same number
    bias = sc.projection("query").bias.copy()
    bias[1] = -0.0  # equal to 0.0, but not the bits "zeros" makes: written as numbers
    proj = dict(sc.projections, query=dataclasses.replace(sc.projection("query"), bias=bias))
    scenario_io.save(dataclasses.replace(sc, queries=q, projections=proj), path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["queries"] == GENERATED["queries"]
    assert isinstance(doc["projections"]["query"]["bias"], list)
    assert np.signbit(scenario_io.load(path).projection("query").bias[1])


def test_a_resized_matrix_is_written_as_numbers(tmp_path):
    path = tmp_path / "lesson.json"
    _write(path, GENERATED)
    sc = scenario_io.load(path)
    smaller = dataclasses.replace(sc, values=sc.values[:, :, : D // 2].copy(), d_values=D // 8)
    scenario_io.save(smaller, path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(doc["values"], list) and np.shape(doc["values"]) == (1, L, D // 2)
    assert same(scenario_io.load(path), smaller)


def test_additive_weights_left_to_the_seed_stay_left_out_until_they_change(tmp_path):
    preset = next(p for p, _ in list_presets() if "additive" in json.loads(p.read_text(encoding="utf-8")))
    original = json.loads(preset.read_text(encoding="utf-8"))
    assert set(original["additive"]) == {"hidden"}  # the premise: W_q, W_k, w_v drawn from the seed
    sc = scenario_io.load(preset)
    path = tmp_path / "additive.json"
    scenario_io.save(sc, path)
    assert set(json.loads(path.read_text(encoding="utf-8"))["additive"]) == {"hidden"}
    assert same(scenario_io.load(path), sc)
    # one edited weight: that one is written, the other two are still drawn (one generator draws all three)
    w_v = sc.additive.w_v.copy()
    w_v[0, 0] = 0.5
    edited = dataclasses.replace(sc, additive=dataclasses.replace(sc.additive, w_v=w_v))
    scenario_io.save(edited, path)
    assert set(json.loads(path.read_text(encoding="utf-8"))["additive"]) == {"hidden", "w_v"}
    assert same(scenario_io.load(path), edited)
    # another seed would draw other weights: the scenario's own ones are written out
    reseeded = dataclasses.replace(sc, seed=sc.seed + 1)
    scenario_io.save(reseeded, path)
    assert set(json.loads(path.read_text(encoding="utf-8"))["additive"]) == {"hidden", "W_q", "W_k", "w_v"}
    assert same(scenario_io.load(path), reseeded)


def test_recipes_do_not_make_two_scenarios_differ():
    path = next(p for p, _ in list_presets() if '"generate"' in p.read_text(encoding="utf-8"))
    sc = scenario_io.load(path)
    assert sc.recipes
    assert same(sc, dataclasses.replace(sc, recipes={}))
