"""docs/scenario-format.md's complete example is a real, working scenario file."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from attention import run
from attention.files import scenario_io

DOC = Path(__file__).resolve().parents[2] / "docs" / "scenario-format.md"


def test_the_documented_example_loads_and_runs():
    text = DOC.read_text(encoding="utf-8")
    example = re.search(r"## A complete small example.*?```json\n(.*?)```", text, re.S).group(1)
    sc = scenario_io.loads(example)
    assert (sc.batch, sc.L, sc.S, sc.d_model, sc.n_heads, sc.causal) == (1, 3, 3, 2, 2, True)
    np.testing.assert_array_equal(sc.values, [[[0, 1], [2, 3], [4, 5]]])
    weights = run(sc).array("attention_weights")
    assert (weights[0, :, 0] == [1, 0, 0]).all()  # "Row 1 sees only itself."


def test_every_documented_generator_kind_exists():
    from attention.files.generators import KINDS

    text = DOC.read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `(\w+)` \| (?:`seed`|none|`start`)", text, re.M))
    assert documented == set(KINDS)
