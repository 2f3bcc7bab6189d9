"""Nothing saved is ever locked out (issue 13 item 11, issue 12 item 4): a file that parses but
cannot run opens with its problems next to their controls, the panes keep the last good numbers
(stale, as while editing), it can be fixed in the window and saved; saving what cannot run
warns; `validate` still exits 2 on it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from attention import ScenarioError
from attention.compute.check import problems
from attention.datamodel.scenario import same
from attention.files import scenario_io
from resources import list_presets

ROOT = Path(__file__).resolve().parents[2]
TOY = list_presets()[0][0]


def _toy() -> dict:
    return json.loads(TOY.read_text(encoding="utf-8"))


def _valid_too_long(doc):  # issue 12's example: a valid length 5 with S = 4
    doc["mask"]["valid_lens"] = [5]


def _heads_do_not_divide(doc):
    doc["n_heads"] = 3


def _wrong_weight_shape(doc):
    doc["projections"]["query"]["weight"] = [row[:3] for row in doc["projections"]["query"]["weight"]]


def _tokens_count(doc):
    doc["query_tokens"] = ["a", "b"]


def _mix_without_prob_sparse(doc):
    doc["prob_sparse"] = {"factor": 5, "mix": True}


def _too_many_heads(doc):
    doc["n_heads"] = 2**31 - 1  # the largest the format allows; the control holds it, says why it cannot run


def _valid_lens_per_row_wrong_count(doc):
    doc["mask"]["valid_lens"] = [[1, 2]]


BROKEN = [_valid_too_long, _heads_do_not_divide, _wrong_weight_shape, _tokens_count, _mix_without_prob_sparse,
          _too_many_heads, _valid_lens_per_row_wrong_count]


def _write(tmp_path, change) -> Path:
    doc = _toy()
    change(doc)
    path = tmp_path / f"{change.__name__.strip('_')}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("change", BROKEN, ids=lambda f: f.__name__.strip("_"))
def test_a_file_that_cannot_run_opens_with_its_problems(window, tmp_path, change):
    path = _write(tmp_path, change)
    with pytest.raises(ScenarioError):
        scenario_io.load(path)  # what validate and trace refuse
    good = window.view.current_trace()
    assert good is not None
    assert window.load_path(path)
    window.recompute.wait_idle()
    sc = window.document.scenario
    assert same(sc, scenario_io.load(path, check=False)) and window.document.path == path
    assert window.view._stale and window.view.current_trace() is good  # last good numbers, stale
    shown = [line for label in window.params.problem_labels.values() for line in label.lines()]
    shown += window.message_bar.lines()
    shown += [line for label in window.inputs.problem_labels.values() for line in label.lines()]
    want = ScenarioError(problems(sc)).lines  # the engine's problems, as the window words them
    assert want and sorted(want) == sorted(str(x) for x in shown)
    c = window.params.controls  # every control shows the file's values (none clamped, none left behind)
    assert c["n_heads"].value() == sc.n_heads and c["L"].value() == sc.L and c["S"].value() == sc.S


def test_fix_it_in_the_window_and_save(window, tmp_path, check_panes):
    path = _write(tmp_path, _heads_do_not_divide)
    assert window.load_path(path)
    window.recompute.wait_idle()
    assert window.params.problem_labels["n_heads"].lines()
    window.params.controls["n_heads"].setValue(2)
    window.recompute.wait_idle()
    assert not window.view._stale and not window.params.problem_labels["n_heads"].lines()
    check_panes(window)
    assert window.save()
    assert scenario_io.load(path).n_heads == 2  # loads cleanly now


def test_saving_what_cannot_run_warns_and_reopens(window, tmp_path, make_window):
    window.params.controls["n_heads"].setValue(3)  # 3 heads do not divide d_model = 4
    window.recompute.wait_idle()
    target = tmp_path / "three heads.json"
    window.ask_save_path = lambda *a: str(target)
    assert window.save_as()
    assert target.exists() and not window.isWindowModified()
    assert window.message_bar.level == "warning" and "cannot be computed" in window.message_bar.title()
    assert any(line.startswith("n_heads:") for line in window.message_bar.lines())
    other = make_window()
    assert other.load_path(target)  # not locked out
    assert other.document.scenario.n_heads == 3
    r = subprocess.run([sys.executable, "main.py", "validate", str(target)], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 2 and "n_heads" in r.stderr


def test_a_file_that_does_not_parse_still_changes_nothing(window, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "attention-explorer/scenario", "version": 1, "queries": [[[1, "x"]]]}',
                   encoding="utf-8")
    before = window.document.scenario
    assert not window.load_path(bad)
    assert window.document.scenario is before


def test_saving_a_valid_length_longer_than_s_warns_and_reopens_with_it_flagged(window, tmp_path, make_window):
    """Issue 12 item 4's own example: valid length 5 with S = 4 was saved with a plain "Saved"."""
    import numpy as np

    from app.viewmodel.matrix_ref import MatrixRef

    window.params.controls["valid_mode"].setCurrentIndex(1)  # one length per batch item
    window.document.set_block(MatrixRef("valid_lens"), 0, 0, np.array([[5.0]]), "valid length 5")
    window.recompute.wait_idle()
    assert window.document.scenario.S == 4 and window.view._stale
    target = tmp_path / "valid five.json"
    window.ask_save_path = lambda *a: str(target)
    assert window.save_as() and target.exists()
    assert window.message_bar.level == "warning" and "cannot be computed" in window.message_bar.title()
    assert any(line.startswith("valid_lens") for line in window.message_bar.lines())
    other = make_window()
    assert other.load_path(target)  # opens, with the problem next to the valid-lengths control
    other.recompute.wait_idle()
    assert other.view._stale and other.params.problem_labels["valid_lens"].lines()
