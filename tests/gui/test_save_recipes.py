"""The window's Save keeps a file of generator recipes compact (issue 12, defect 5): open a file
whose matrices are generator objects, type one number, press Save: only the edited matrix is
written as numbers."""
from __future__ import annotations

import json

from attention.datamodel.scenario import same
from attention.files import scenario_io

DOC = {
    "format": "attention-explorer/scenario", "version": 1,
    "queries": {"generate": "normal", "shape": [1, 64, 16], "seed": 5},
    "keys": {"generate": "normal", "shape": [1, 64, 16], "seed": 6},
    "values": {"generate": "arange", "shape": [1, 64, 16]},
    "n_heads": 2,
}


def test_save_writes_unedited_matrices_back_as_their_recipes(window, tmp_path):
    path = tmp_path / "recipes.json"
    path.write_text(json.dumps(DOC), encoding="utf-8")
    assert window.load_path(path)
    model = window.inputs.editors["queries"].model
    model.setData(model.index(2, 3), "0.5")  # one typed number, as a person does
    assert window.isWindowModified()
    window.save_action.trigger()  # File ▸ Save (Ctrl+S): the same path, no dialog
    assert not window.isWindowModified()
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["keys"] == DOC["keys"] and doc["values"] == DOC["values"]
    assert isinstance(doc["queries"], list) and doc["queries"][0][2][3] == 0.5
    one_matrix = len(json.dumps(window.document.scenario.keys.tolist()))
    assert path.stat().st_size < 1.5 * one_matrix  # the edited matrix as numbers, not all three
    assert same(scenario_io.load(path), window.document.scenario)
