"""Next token through a KV cache for one causal layer (an imported GPT-2 layer, preset 06): no model around it.

Why: a single layer has no LM head and no sampler, so its "next token" is its next input row.  A causal layer
that has read rows 0 .. k-1 keeps their key and value projections (the cache); row k then costs one query
projection, one key and one value projection, and one 1 × (k+1) score row — the rows before it are not read
again.  Causal masking needs nothing for that row: its keys are rows 0 .. k, all at or before it (the causal
mask aligned at the bottom-right, as transformers aligns it for cached decoding; the engine's `causal` rule
aligns at the top-left when L ≠ S, as SDPA's is_causal, and would hide keys 1 .. k from a 1-row query).

A step is an ordinary scenario the engine runs (as kv_cache.Generation's steps): the new row as the query
(the layer's query and output projections), the cached K and V as keys and values (their projections already
done), the same heads, scale and scoring, RoPE with the query at its own position and the keys from the
layer's first.  The check runs the layer on rows 0 .. k (a full causal recomputation) and compares the step's
weight row and output with that run's row k.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Optional

import numpy as np
import torch

from attention.compute import check
from attention.compute.engine import run
from attention.datamodel.parts import Part
from attention.datamodel.scenario import Projection, Scenario
from attention.kinds.dot_product import DOT, SCALED_DOT
from attention.kinds.rope import ROPE
from attention.models.errors import ModelError
from attention.models.kv_cache import StepRecord
from attention.ops.steps import project

#: scorings whose scores for one query row need only that row and the keys (additive too, but its key
#: weights act inside the scoring: its cache would not be K; ProbSparse picks rows from all queries)
SCORINGS = (SCALED_DOT.name, DOT.name)


def problem(sc: Scenario) -> Optional[ModelError]:
    """Why `sc` cannot step through a cache (None: it can): causal, L = S, at least 2 rows, a dot-product
    scoring, RoPE as its only part, no valid lengths."""
    if not sc.causal:
        return ModelError("layer_cache_not_causal")
    if sc.L != sc.S or sc.L < 2:
        return ModelError("layer_cache_sizes", L=sc.L, S=sc.S)
    if sc.scoring not in SCORINGS:
        return ModelError("layer_cache_scoring", scoring=sc.scoring)
    other = [p.kind for p in (*sc.positions, *sc.modifiers, *sc.masks) if p.kind != ROPE.name]
    if other:
        return ModelError("layer_cache_parts", parts=", ".join(other))
    if sc.valid_lens is not None:
        return ModelError("layer_cache_valid_lens")
    return None


def _projected(sc: Scenario, name: str, x: np.ndarray) -> np.ndarray:
    """x (B, n, width) through projection `name` (identity when it is off), float64: done once per row."""
    p = sc.projection(name)
    if p is None:
        return np.asarray(x, dtype=np.float64)
    b = None if p.bias is None else _viewed(p.bias)
    return project(_viewed(x), _viewed(p.weight), b).numpy()


def _viewed(a: np.ndarray) -> torch.Tensor:
    """A float64 tensor reading `a`'s numbers without a copy where it can: a model's weights are read-only arrays
    (decoder.KeptWeights), which torch.from_numpy would take with a warning."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    return torch.from_numpy(a) if a.flags.writeable else torch.from_dlpack(a)


def step_scenario(sc: Scenario, keys: np.ndarray, values: np.ndarray, k: int) -> Scenario:
    """Row k of `sc` as the query over the cached K, V (B, k+1, ·) of rows 0 .. k."""
    projections = {n: sc.projection(n) for n in ("query", "out") if sc.projection(n) is not None}
    positions = tuple(
        Part(ROPE.name, {**p.values, "offset": int(p.values.get("offset") or 0) + k,
                      "key_offset": int(p.values.get("offset") or 0) if p.values.get("key_offset") is None
                      else int(p.values["key_offset"])})
        for p in sc.positions)
    return Scenario(queries=sc.queries[:, k:k + 1], keys=keys, values=values, n_heads=sc.n_heads,
                    n_kv_heads=sc.n_kv_heads, d_keys=sc.dk, d_values=sc.dv,
                    projections={n: Projection(p.weight, p.bias) for n, p in projections.items()},
                    scoring=sc.scoring, scale=check.resolved_scale(sc), causal=False, positions=positions,
                    fill_value=sc.fill_value, dtype=sc.dtype, device=sc.device)


@dataclass
class LayerCache:
    """A causal layer read row by row: `read` rows are in the cache; `next()` reads one more.

    Shown by the window's KV cache panes as a decoder's cache is: `config` (n_heads, n_kv_heads, head_dim),
    `keys` / `values` ([(1, S, H_kv·E)], the shown batch item: one layer), `last` (StepRecord of the last step:
    its (1, H, 1, S) weight row), `diff` (the last check)."""

    scenario: Scenario
    batch: int = 0
    read: int = 1
    last: Optional[StepRecord] = None
    diff: Optional[float] = None
    output: Optional[np.ndarray] = None  # (B, 1, d_out): the last step's output row
    rope_applied: bool = False  # K as projected; the engine turns them at their positions
    float32: bool = False

    def __post_init__(self) -> None:
        bad = problem(self.scenario)
        if bad is not None:
            raise bad
        sc = self.scenario
        self.config = SimpleNamespace(n_heads=sc.n_heads, n_kv_heads=sc.kv_heads, head_dim=sc.dk)
        self._k = _projected(sc, "key", sc.keys)  # (B, S, H_kv·dk): every row's key, taken as its row is read
        self._v = _projected(sc, "value", sc.values)  # (B, S, H_kv·dv)

    @property
    def total(self) -> int:
        return self.scenario.L

    @property
    def done(self) -> bool:
        return self.read >= self.total

    def cache(self) -> tuple[np.ndarray, np.ndarray]:
        """K, V of the rows read so far, every batch item: (B, read, H_kv·dk), (B, read, H_kv·dv)."""
        return self._k[:, :self.read], self._v[:, :self.read]

    @property
    def keys(self) -> list[np.ndarray]:
        return [self.cache()[0][self.batch:self.batch + 1]]

    @property
    def values(self) -> list[np.ndarray]:
        return [self.cache()[1][self.batch:self.batch + 1]]

    def label(self, k: int) -> str:
        tokens = self.scenario.query_tokens
        return str(tokens[k]) if tokens is not None else str(k + 1)

    def next(self) -> StepRecord:
        """Read the next row through the cache: its key and value join it, its query attends over it."""
        if self.done:
            raise ModelError("layer_cache_done", count=self.total)
        k = self.read
        self.read += 1
        keys, values = self.cache()  # (B, k+1, ·): the cache now holds row k too
        t = run(step_scenario(self.scenario, keys, values, k), device="cpu")
        rows = np.asarray(t.array("attention_weights"))  # (B, H, 1, k+1)
        self.output = np.asarray(t.array("output"))  # (B, 1, d_out)
        self.last = StepRecord(k, self.label(k), k, [rows[self.batch:self.batch + 1]], [])
        self.diff = self.check(rows)
        return self.last

    def check(self, rows: np.ndarray) -> float:
        """Largest difference between the step (weight row, output row) and the layer run on rows 0 .. k with
        its causal mask (every position recomputed)."""
        k = self.read - 1
        sc = self.scenario
        prefix = dataclasses.replace(sc, queries=sc.queries[:, :k + 1], keys=sc.keys[:, :k + 1],
                                     values=sc.values[:, :k + 1], query_tokens=None, key_tokens=None,
                                     recipes={})
        full = run(prefix, device="cpu")
        w = np.asarray(full.array("attention_weights"))[:, :, k:k + 1, :]  # (B, H, 1, k+1)
        out = np.asarray(full.array("output"))[:, k:k + 1]
        return max(float(np.abs(w - rows).max()), float(np.abs(out - self.output).max()))
