"""The trained presets show learned patterns, measured on the shipped files by the engine; their
training scripts run (a few seeded steps) and export through attention.capture."""
from __future__ import annotations

import numpy as np
import pytest

from attention import run, scenario_io
from resources import scenarios_dir

PERIOD_PRESET = scenarios_dir() / "09_trained_tsl_period.json"
REVERSE_PRESET = scenarios_dir() / "10_trained_reverse_digits.json"


def _weights(path):
    sc = scenario_io.load(path)
    return sc, run(sc).array("attention_weights")  # (B, H, L, S)


def test_a_head_of_the_tsl_encoder_looks_exactly_one_period_back():
    sc, w = _weights(PERIOD_PRESET)
    assert (sc.d_model, sc.n_heads, sc.L, sc.S) == (32, 8, 28, 28) and not sc.causal
    slots = [i for i, t in enumerate(sc.query_tokens) if t.startswith("?")]
    assert slots == list(range(21, 28))  # the seven days to forecast
    per_head = np.array([[w[0, h, q, q - 7] for q in slots] for h in range(sc.n_heads)]).mean(axis=1)
    assert per_head.max() >= 0.5, per_head
    # and it is the period, not any old offset: the same head's weight two periods back is small
    best = int(per_head.argmax())
    assert np.mean([w[0, best, q, q - 14] for q in slots]) < 0.2


def test_a_head_of_the_reverser_reads_the_mirror_position():
    sc, w = _weights(REVERSE_PRESET)
    tokens = sc.query_tokens
    assert sc.causal and sc.L == 12 and tokens[6] == ">"
    assert list(tokens[7:]) == list(reversed(tokens[:6]))[:5]  # the input really is a reversal
    rows = range(6, 12)
    per_head = np.array([[w[0, h, q, 11 - q] for q in rows] for h in range(sc.n_heads)]).mean(axis=1)
    assert per_head.max() >= 0.5, per_head
    # causal: no weight on later keys
    assert np.all(np.triu(w[0], 1) == 0)


@pytest.mark.parametrize("module,preset", [("periodic_tsl", PERIOD_PRESET), ("reverse_digits", REVERSE_PRESET)])
def test_training_script_runs_a_few_seeded_steps_and_exports(module, preset, tmp_path, capsys):
    import importlib

    script = importlib.import_module(f"resources.training.{module}")
    outs = []
    for run_no in range(2):
        out = tmp_path / f"{run_no}.json"
        assert script.main(["--steps", "3", "--threads", "1", "--out", str(out)]) == 0
        outs.append(scenario_io.load(out))
    assert "wrote" in capsys.readouterr().out
    a, b = outs
    assert np.array_equal(a.queries, b.queries)  # seeded: the same steps give the same numbers
    assert all(np.array_equal(a.projection(r).weight, b.projection(r).weight) for r in ("query", "key", "value", "out"))
    shipped = scenario_io.load(preset)
    # same task, same layer and labels as the shipped preset; only the training differs
    assert (a.queries.shape, a.n_heads, a.causal, a.query_tokens[-1][0]) == \
           (shipped.queries.shape, shipped.n_heads, shipped.causal, shipped.query_tokens[-1][0])
    assert a.title == shipped.title and a.notes == shipped.notes
    assert not np.array_equal(a.projection("query").weight, shipped.projection("query").weight)
