"""The exported Python script (attention.teaching.script_export) run in a subprocess reproduces the engine's
trace within 1e-6, for every preset and every kind, mask and fill; it imports only torch (and the
standard library's json and sys)."""
from __future__ import annotations

import ast
import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from attention import PIPELINE, Additive, Projection, Scenario, ScenarioError, run
from attention.files import scenario_io
from attention.registry import step_registry
from attention.teaching.script_export import python_script
from resources import list_presets

PRESETS = {p.name: scenario_io.load(p) for p, _ in list_presets()}


def _variants() -> dict[str, Scenario]:
    rng = np.random.default_rng(11)
    n = rng.normal
    sparse = PRESETS["07_informer_probsparse.json"]
    return {
        "lens2_inf_causal": Scenario(n(size=(2, 3, 4)), n(size=(2, 3, 4)), n(size=(2, 3, 4)), n_heads=2,
                                     projections={"query": Projection(n(size=(4, 4)), n(size=4)),
                                                  "value": Projection(n(size=(4, 4)))},
                                     valid_lens=np.array([[0.0, 2.0, 3.0], [1.0, 0.0, 2.0]]), causal=True,
                                     fill_value=-np.inf),
        "lens1_zero_dot_scale": Scenario(n(size=(2, 2, 2)), n(size=(2, 4, 2)), n(size=(2, 4, 3)), n_heads=1,
                                         d_values=3, scoring="dot", scale=0.37, valid_lens=np.array([0.0, 3.0]),
                                         projections={"out": Projection(n(size=(5, 3)), n(size=5))}),
        "additive_scaled": Scenario(n(size=(1, 2, 4)), n(size=(1, 3, 6)), n(size=(1, 3, 2)), n_heads=2, d_values=1,
                                    scoring="additive", scale=2.5, valid_lens=np.array([2.0]),
                                    additive=Additive(3, n(size=(2, 3, 2)), n(size=(2, 3, 3)), n(size=(2, 3)))),
        "float32_scenario": dataclasses.replace(PRESETS["06_causal_self_attention.json"], dtype="float32"),
        "sparse_causal_inf": dataclasses.replace(sparse, causal=True, fill_value=-np.inf),
        "sparse_mix": dataclasses.replace(sparse, mix=True, seed=5),
    }


CASES = PRESETS | _variants()


# Runs each script with fresh globals, as `python SCRIPT --json --dtype float64` would, in one
# interpreter (one torch import instead of one per script on a shared 2-core machine).
DRIVER = """
import contextlib, io, json, runpy, sys
out = {}
for path in sys.argv[1:]:
    sys.argv = [path, "--json", "--dtype", "float64"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        runpy.run_path(path, run_name="__main__")
    out[path] = buf.getvalue()
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """name -> (script text, its JSON stdout); "__text__" -> the toy script's plain printout,
    run on its own as a student runs it (`python toy.py`)."""
    folder = tmp_path_factory.mktemp("scripts")
    paths = {}
    for i, (name, sc) in enumerate(CASES.items()):
        paths[name] = folder / f"case_{i}.py"
        paths[name].write_text(python_script(sc), encoding="utf-8")
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, *map(str, paths.values())], cwd=folder,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    alone = subprocess.Popen([sys.executable, str(paths["01_tsl_toy.json"])], cwd=folder, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    stdout, stderr = driver.communicate(timeout=600)
    assert driver.returncode == 0, stderr
    printed = json.loads(stdout)
    out = {name: (path.read_text(encoding="utf-8"), printed[str(path)]) for name, path in paths.items()}
    stdout, stderr = alone.communicate(timeout=300)
    assert alone.returncode == 0, stderr
    out["__text__"] = stdout
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_script_reproduces_the_trace(outputs, name):
    _, stdout = outputs[name]
    got = json.loads(stdout)
    tr = run(CASES[name], dtype="float64")
    # the main pipeline, and a kind's steps where they are computed (RoPE's rotated q and k), then a part's
    # steps after the output (an encoder layer)
    main = [sid for sid in step_registry.ORDER if sid in tr.ids and not sid.startswith("extra.")]
    assert list(got)[:len(main)] == main
    assert set(got) <= set(tr.ids)
    for sid in got:
        np.testing.assert_allclose(np.array(got[sid], dtype=np.float64), tr.array(sid), rtol=0, atol=1e-6,
                                   err_msg=f"{name}: {sid}")


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_script_imports_only_torch(outputs, name):
    text, _ = outputs[name]
    tree = ast.parse(text)
    imported = {a.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"torch", "json", "sys", "math"}, imported  # torch and the standard library only


def test_numbers_are_written_with_full_precision():
    sc = PRESETS["02_tsl_real_config.json"]
    text = python_script(sc)
    w = sc.projection("query").weight
    for x in (w[0, 0], w[-1, -1], sc.queries[0, 2, 5]):
        assert repr(float(x)) in text


def test_prob_sparse_writes_the_engine_sample():
    sc = PRESETS["07_informer_probsparse.json"]
    tr = run(sc)
    idx = tr.array("extra.sample_index")
    text = python_script(sc)
    assert "[" + ", ".join(str(int(i)) for i in idx[0]) + "]" in text
    assert f"manual_seed({sc.seed})" in text


@pytest.mark.slow
def test_text_mode_prints_every_step(outputs):
    stdout = outputs["__text__"]
    headers = [l for l in stdout.splitlines() if l.startswith("== ")]
    assert [h.split()[1] for h in headers] == list(PIPELINE)
    assert "13.000000" in stdout  # the seed: row 2 of head 1 is exactly [13, 14]


def test_a_scenario_that_cannot_run_is_refused():
    sc = dataclasses.replace(PRESETS["01_tsl_toy.json"], n_heads=3)
    with pytest.raises(ScenarioError, match="n_heads"):
        python_script(sc)
