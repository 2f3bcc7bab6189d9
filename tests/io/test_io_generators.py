"""Generator objects: seeded, deterministic, shaped as asked, checked before allocating."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from attention import ScenarioError
from attention.files.generators import MAX_ELEMENTS, check, generate, linear_init


def test_normal_is_seeded_and_independent_of_global_rng():
    spec = {"generate": "normal", "shape": [2, 3, 4], "seed": 5, "mean": 1.5, "std": 2.0}
    torch.manual_seed(123)
    a = generate(spec)
    torch.manual_seed(999)
    b = generate(spec)
    assert a.dtype == np.float64 and a.shape == (2, 3, 4)
    assert np.array_equal(a, b)
    expected = torch.randn((2, 3, 4), generator=torch.Generator().manual_seed(5), dtype=torch.float64) * 2.0 + 1.5
    np.testing.assert_array_equal(a, expected.numpy())
    assert not np.array_equal(a, generate({**spec, "seed": 6}))


def test_uniform_stays_in_range():
    a = generate({"generate": "uniform", "shape": [1000], "seed": 1, "low": -2, "high": 3})
    assert a.min() >= -2 and a.max() < 3 and a.std() > 1  # spread over the range, not constant


def test_zeros_ones_identity():
    assert np.array_equal(generate({"generate": "zeros", "shape": [2, 3]}), np.zeros((2, 3)))
    assert np.array_equal(generate({"generate": "ones", "shape": [3]}), np.ones(3))
    assert np.array_equal(generate({"generate": "identity", "shape": [3, 4]}), np.eye(3, 4))
    batched = generate({"generate": "identity", "shape": [2, 3, 3]})
    assert np.array_equal(batched, np.stack([np.eye(3), np.eye(3)]))


def test_arange_with_repeat_matches_d2l_values():
    """d2l: torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)."""
    a = generate({"generate": "arange", "shape": [1, 10, 4], "repeat": [2, 1, 1]})
    expected = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
    np.testing.assert_array_equal(a, expected.double().numpy())
    b = generate({"generate": "arange", "shape": [2, 2], "start": 10, "step": 0.5})
    np.testing.assert_array_equal(b, [[10, 10.5], [11, 11.5]])


def test_repeat_may_add_leading_dimensions():
    a = generate({"generate": "arange", "shape": [3], "repeat": [2, 1, 2]})
    np.testing.assert_array_equal(a, np.tile(np.arange(3.0), (2, 1, 2)))
    assert a.shape == (2, 1, 6)


def test_oversize_is_refused_before_allocating():
    spec = {"generate": "normal", "shape": [100000, 100000, 100000], "seed": 0}
    with pytest.raises(ScenarioError) as err:
        generate(spec, "queries")
    assert err.value.lines == [
        f"queries: this generator would make 1,000,000,000,000,000 numbers (shape [100000, 100000, 100000]); "
        f"at most {MAX_ELEMENTS:,} are allowed"]
    errs, _ = check({"generate": "ones", "shape": [10], "repeat": [10**9]}, "keys")
    assert errs and str(errs[0]).startswith(
        "keys: this generator would make 10,000,000,000 numbers (shape [10000000000])")


def test_check_reports_every_problem():
    errs, shape = check({"generate": "uniform", "shape": [2, -1], "seed": 1.5, "low": "a", "extra": 1}, "w")
    assert shape is None
    assert sorted(p.text("en") for p in errs) == sorted([
        "w.extra: unknown field; expected one of generate, shape, repeat, seed, low, high",
        "w.shape: expected a list of 1 to 8 whole numbers >= 1, e.g. [2, 4, 8], got [2, -1]",
        "w.seed: expected a whole number from 0 to 2^63-1, got 1.5",
        "w.low: expected a finite number between -1e300 and 1e300, got 'a'",
    ])


def test_linear_init_uses_nn_linear_bounds():
    gen = torch.Generator().manual_seed(0)
    w = linear_init((64, 16), 16, gen)
    assert np.abs(w).max() <= 0.25 and np.abs(w).max() > 0.2  # bound 1/sqrt(16), nearly reached


def test_an_unknown_kind_is_quoted_at_most_60_characters():
    """Issue 21: a 1,000-character kind was quoted at ~300 characters (the argument cap, not the quote cap)."""
    from attention.datamodel.problem import MAX_QUOTE
    from attention.files import scenario_io

    doc = {"format": "attention-explorer/scenario", "version": 1,
           "queries": {"generate": "k" * 1000, "shape": [1, 4, 4]}}
    with pytest.raises(ScenarioError) as e:
        scenario_io.from_dict(doc)
    (line,) = [ln for ln in e.value.lines if "unknown generator kind" in ln]
    quoted = line.split("unknown generator kind ")[1].split("; expected")[0]
    assert MAX_QUOTE == 60 and len(quoted) <= MAX_QUOTE and quoted.startswith("'kkk") and quoted.endswith("\u2026")
