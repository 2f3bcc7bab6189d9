"""A ProbSparse scenario carrying a recorded key sample (prob_sparse.sample_index, as
attention.capture writes) opens with that sample; changing the factor or L in the panel goes
back to sampling from the seed (the recorded sample fits only its own sizes), and Undo brings
the recorded sample back.  While the recorded sample is used the seed draws nothing, so its box
is greyed with the reason in its tooltip (issue 17 item 5), in English and Chinese."""
from __future__ import annotations

import dataclasses

import numpy as np
from PySide6.QtCore import Qt

from attention import run
from attention.files import scenario_io
from resources import list_presets


def test_recorded_sample_survives_opening_and_gives_way_to_factor_and_size(make_window, check_panes, tmp_path, qtbot):
    path = next(p for p, _ in list_presets() if p.name.startswith("07_"))
    sc = scenario_io.load(path)
    L, S = sc.L, sc.S
    n_sample = sc.prob_sparse_sizes()[0]
    recorded = (np.arange(L * n_sample).reshape(L, n_sample) * 7 + 3) % S  # not what seed 0 draws
    assert not np.array_equal(recorded, run(sc).array("extra.sample_index"))
    file = tmp_path / "recorded.json"
    scenario_io.save(dataclasses.replace(sc, sample_index=recorded), file)
    window = make_window()
    assert window.load_path(file)
    window.recompute.recompute_now()
    check_panes(window)
    assert np.array_equal(window.view.displayed_arrays("extra.sample_index")[0], recorded)
    panel, doc = window.params, window.document
    seed = panel.controls["seed"]
    _assert_seed_greyed_for_the_recording(window, seed)
    # a person's keys and clicks on the greyed seed change nothing
    seed_shown = doc.scenario
    qtbot.keyClick(seed, Qt.Key.Key_Up)
    qtbot.mouseClick(seed, Qt.MouseButton.LeftButton)
    assert doc.scenario is seed_shown and np.array_equal(doc.scenario.sample_index, recorded)
    for change in (lambda: panel.controls["factor"].setValue(sc.factor + 1),
                   lambda: panel.controls["L"].setValue(L + 1)):
        change()
        assert doc.scenario.sample_index is None
        assert seed.isEnabled() and "recorded" not in seed.toolTip()  # the seed draws the sample again
        window.recompute.recompute_now()
        check_panes(window)  # runs: no "sample_index: expected shape" problem
        doc.undo_stack.undo()
        assert np.array_equal(doc.scenario.sample_index, recorded)
        _assert_seed_greyed_for_the_recording(window, seed)


def _assert_seed_greyed_for_the_recording(window, seed) -> None:
    assert not seed.isEnabled()
    assert seed.toolTip().startswith("The scenario carries a recorded key sample (sample_index")
    assert "the seed draws nothing" in seed.toolTip()
    window.set_language("zh")
    assert not seed.isEnabled() and seed.toolTip().startswith("此场景带有记录下来的键采样")
    window.set_language("en")
    assert seed.toolTip().startswith("The scenario carries a recorded key sample")
