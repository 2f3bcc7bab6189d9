"""Grouped-query and multi-query attention: n_kv_heads key/value heads shared by the n_heads query
heads (query head h reads key/value head h // (n_heads / n_kv_heads)).  Expected numbers come
from torch's own F.scaled_dot_product_attention(enable_gqa=True) and from a float64 numpy
reference written here, never from the engine."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attention import Additive, Projection, Scenario, problems, run
from attention.datamodel.scenario import ScenarioError
from attention.teaching import explain, script_export


def _gqa(rng, B=2, L=4, S=5, d=12, H=6, kv=2, dk=3, dv=2, **options) -> Scenario:
    lin = lambda o, i: Projection(rng.normal(size=(o, i)) / np.sqrt(i), rng.normal(size=(o,)))  # noqa: E731
    return Scenario(rng.normal(size=(B, L, d)), rng.normal(size=(B, S, d)), rng.normal(size=(B, S, d)), n_heads=H,
                    n_kv_heads=kv, d_keys=dk, d_values=dv,
                    projections={"query": lin(H * dk, d), "key": lin(kv * dk, d), "value": lin(kv * dv, d),
                                 "out": lin(d, H * dv)}, **options)


def _numpy_reference(sc: Scenario) -> np.ndarray:
    """float64, head by head, the key/value head of query head h being h // (H / kv)."""
    P = sc.projections
    lin = lambda x, p: x @ p.weight.T + p.bias  # noqa: E731
    Q, K, V = lin(sc.queries, P["query"]), lin(sc.keys, P["key"]), lin(sc.values, P["value"])
    H, kv, dk, dv = sc.n_heads, sc.n_kv_heads, sc.d_keys, sc.d_values
    B, L, S = sc.batch, sc.L, sc.S
    ctx = np.zeros((B, L, H * dv))
    for b in range(B):
        for h in range(H):
            j = h // (H // kv)
            q, k, v = Q[b, :, h * dk:(h + 1) * dk], K[b, :, j * dk:(j + 1) * dk], V[b, :, j * dv:(j + 1) * dv]
            s = q @ k.T / np.sqrt(dk)
            if sc.causal:
                s = np.where(np.arange(S)[None, :] > np.arange(L)[:, None], sc.fill_value, s)
            w = np.exp(s - s.max(-1, keepdims=True))
            ctx[b, :, h * dv:(h + 1) * dv] = (w / w.sum(-1, keepdims=True)) @ v
    return lin(ctx, P["out"])


@pytest.mark.parametrize("kv", [1, 2, 3, 6])
@pytest.mark.parametrize("causal", [False, True])
def test_shared_key_value_heads_against_a_float64_reference(kv, causal):
    sc = _gqa(np.random.default_rng(kv), kv=kv, causal=causal)
    trace = run(sc)
    np.testing.assert_allclose(trace.array("output"), _numpy_reference(sc), rtol=1e-12, atol=1e-12)
    assert trace.array("head_split.key").shape == (2, 5, kv, 3)
    assert trace.array("head_split.value").shape == (2, 5, kv, 2)
    assert trace.options["n_kv_heads"] == kv


def test_against_sdpa_enable_gqa():
    sc = _gqa(np.random.default_rng(7), kv=2, causal=True)
    trace = run(sc)
    q = torch.from_numpy(trace.array("head_split.query")).transpose(1, 2)  # (B, H, L, E)
    k = torch.from_numpy(trace.array("head_split.key")).transpose(1, 2)  # (B, kv, S, E)
    v = torch.from_numpy(trace.array("head_split.value")).transpose(1, 2)
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)  # (B, H, L, D)
    np.testing.assert_allclose(trace.array("weighted_sum"), want.transpose(1, 2).numpy(), rtol=1e-12, atol=1e-12)


def test_explain_reads_the_shared_key_and_value_head():
    sc = _gqa(np.random.default_rng(3), kv=2)
    trace = run(sc)
    e = explain.explain(trace, "scores", (1, 5, 2, 4))  # query head 5 reads key head 5 // 3 = 1
    assert {s.index[2] for s in e.sources if s.ref == "head_split.key"} == {1}
    assert e.result == pytest.approx(e.value, rel=1e-12)
    w = explain.explain(trace, "weighted_sum", (0, 1, 2, 1))  # head 2 reads value head 0
    assert {s.index[2] for s in w.sources if s.ref == "head_split.value"} == {0}
    assert w.result == pytest.approx(w.value, rel=1e-12)


@pytest.mark.slow  # runs the exported script in a child process
def test_the_exported_script_reproduces_a_grouped_trace(tmp_path):
    sc = _gqa(np.random.default_rng(5), kv=3, causal=True)
    path = tmp_path / "gqa.py"
    path.write_text(script_export.python_script(sc), encoding="utf-8")
    out = subprocess.run([sys.executable, str(path), "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    trace = run(sc)
    for sid in trace.ids:
        if not sid.startswith("extra."):
            np.testing.assert_allclose(np.array(got[sid]), trace.array(sid), rtol=1e-12, atol=1e-12, err_msg=sid)


def test_bad_key_value_head_counts_are_named():
    sc = _gqa(np.random.default_rng(1), kv=2)
    for kv, code in ((4, "kv_heads_divide"), (0, "expected_int_or_null"), (2.0, "expected_int_or_null")):
        (p,) = problems(dataclasses.replace(sc, n_kv_heads=kv))
        assert (p.code, p.path) == (code, "n_kv_heads")
        assert p.text("en") and p.text("zh")
    with pytest.raises(ScenarioError):
        run(dataclasses.replace(sc, n_kv_heads=4))
    # a key projection sized for one head per query head is refused, naming it
    wide = dataclasses.replace(sc, projections={**sc.projections, "key": Projection(np.ones((18, 12)))})
    assert [p.path for p in problems(wide)] == ["projections.key.weight"]
    # no key projection: the keys' width must be n_kv_heads * d_keys, and the sentence says n_kv_heads
    (p,) = problems(dataclasses.replace(sc, projections={**sc.projections, "key": None}))
    assert (p.code, p.path) == ("identity_width_kv", "projections.key")
    assert "n_kv_heads * d_keys = 2 * 3 = 6" in p.text("en") and "n_kv_heads" in p.text("zh")


def test_kinds_without_shared_keys_refuse_them():
    rng = np.random.default_rng(2)
    sc = _gqa(rng, kv=2)
    add = dataclasses.replace(sc, scoring="additive",
                              additive=Additive(2, rng.normal(size=(6, 2, 3)), rng.normal(size=(6, 2, 3)),
                                                rng.normal(size=(6, 2))))
    assert [p.code for p in problems(add)] == ["kv_heads_kind"]
    assert problems(dataclasses.replace(sc, scoring="dot")) == []
