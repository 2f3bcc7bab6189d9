"""Scenario edits the window offers, as pure functions (no Qt): resizing, switches, fills.

Each returns a new Scenario and shares every array it did not change, so the undo stack can
keep old and new scenarios for a resize without copying the matrices that stayed put.

Resizing keeps every value that still fits and fills new cells with 0 (new valid lengths with
S, i.e. "nothing masked").  Arrays whose size follows from the parameters (projection
weights, additive weights, valid lengths, token labels) follow them; a width that is free (the
output projection's rows, the additive kind's projection rows) follows only when it equalled
the old value, so a deliberate choice survives.  When the heads cannot be split (H does not
divide d_model), dependent arrays are left alone: `attention.problems` then says why.
"""
from __future__ import annotations

import dataclasses
import math
import re
from typing import Optional

import numpy as np

from app.viewmodel import mask_edits
from app.viewmodel.matrix_ref import set_array
from attention import Additive, Projection, Scenario
from attention.files.generators import generate
from attention.registry import kinds

FILLS = ("zeros", "ones", "identity", "arange", "normal", "uniform", "linear")
VALID_MODES = ("none", "batch", "row")  # no lengths / one per batch item (B,) / one per query row (B, L)


def resize(arr: np.ndarray, shape: tuple[int, ...], fill: float = 0.0) -> np.ndarray:
    """`arr` cut or padded to `shape`; the same object when the shape is already right."""
    shape = tuple(int(n) for n in shape)
    if arr.shape == shape:
        return arr
    out = np.full(shape, fill, dtype=np.float64)
    overlap = tuple(slice(0, min(a, b)) for a, b in zip(arr.shape, shape))
    out[overlap] = arr[overlap]
    return out


def _labels(labels: Optional[tuple], n: int, prefix: str) -> Optional[tuple]:
    """Token labels cut or extended to n; new ones continue a numbered pattern (t4 -> t5, t6)."""
    if labels is None or len(labels) == n:
        return labels
    kept = tuple(labels[:n])
    match = re.fullmatch(r"(\D*)(\d+)", str(labels[-1])) if labels else None
    if match:
        stem, last = match.group(1), int(match.group(2))
        new = (f"{stem}{last + 1 + i}" for i in range(n - len(labels)))
    else:
        new = (f"{prefix}{i}" for i in range(len(labels), n))
    return kept + tuple(new)


def heads_split(sc: Scenario) -> bool:
    """Whether per-head widths are defined (H >= 1 and, with default d_keys/d_values, H | d_model)."""
    H = sc.n_heads
    if not isinstance(H, int) or isinstance(H, bool) or H < 1:
        return False
    return bool(sc.d_keys and sc.d_values) or sc.d_model % H == 0


def with_sizes(sc: Scenario, *, batch: Optional[int] = None, L: Optional[int] = None,
               S: Optional[int] = None, d_model: Optional[int] = None,
               key_width: Optional[int] = None, value_width: Optional[int] = None) -> Scenario:
    """Resize the inputs (B, L, S, widths) and everything that follows from them."""
    B = sc.batch if batch is None else batch
    L = sc.L if L is None else L
    S = sc.S if S is None else S
    dq = sc.d_model if d_model is None else d_model
    dk_in = sc.keys.shape[2] if key_width is None else key_width
    dv_in = sc.values.shape[2] if value_width is None else value_width
    new = dataclasses.replace(
        sc,
        queries=resize(sc.queries, (B, L, dq)),
        keys=resize(sc.keys, (B, S, dk_in)),
        values=resize(sc.values, (B, S, dv_in)),
    )
    return conform(new, sc)


def with_fields(sc: Scenario, **changes) -> Scenario:
    """Change options (n_heads, d_keys, d_values, ...) and resize what depends on them."""
    return conform(dataclasses.replace(sc, **changes), sc)


def with_hidden(sc: Scenario, hidden: int) -> Scenario:
    """The additive kind's hidden size; W_q, W_k and w_v follow."""
    return conform(dataclasses.replace(sc, additive=dataclasses.replace(sc.additive, hidden=hidden)), sc)


def _has_field(scoring: str, name: str) -> bool:
    """Whether the scoring kind `scoring` has the option `name` (ProbSparse's mix, sample_index ...)."""
    return kinds.known_scoring(scoring) and any(f.name == name for f in kinds.scoring(scoring).fields)


def conform(new: Scenario, old: Scenario) -> Scenario:
    """`new` with every dependent array resized to `new`'s parameters (see the module doc)."""
    B, L, S = new.batch, new.L, new.S
    changes: dict = {
        "query_tokens": _labels(new.query_tokens, L, "q"),
        "key_tokens": _labels(new.key_tokens, S, "k"),
    }
    if new.sample_index is not None and (not _has_field(new.scoring, "sample_index") or (L, S, new.factor, new.seed) !=
                                         (old.L, old.S, old.factor, old.seed)):
        changes["sample_index"] = None  # a recorded key sample fits only its own L, S and factor
    vl = new.valid_lens
    if vl is not None and vl.ndim in (1, 2):
        changes["valid_lens"] = resize(vl, (B,) if vl.ndim == 1 else (B, L), fill=S)
    out = mask_edits.fitted(dataclasses.replace(new, **changes))  # a drawn mask keeps what still fits
    if not heads_split(out):
        return out
    return _conform_weights(out, old)


def _conform_weights(sc: Scenario, old: Scenario) -> Scenario:
    H, dq = sc.n_heads, sc.d_model
    h_dk, h_dv = H * sc.dk, H * sc.dv
    kv_dk, kv_dv = sc.kv_heads * sc.dk, sc.kv_heads * sc.dv  # key/value heads (grouped-query: fewer)
    old_h_dk = old.n_heads * old.dk if heads_split(old) else None
    # a kind whose query/key projections may have any width divisible by H (additive)
    free = kinds.known_scoring(sc.scoring) and kinds.scoring(sc).free_widths

    def rows_for(name: str, rows: int) -> int:
        if name == "value":
            return kv_dv
        if name == "out":
            return dq if rows == old.d_model else rows
        if free and rows != old_h_dk and rows % H == 0:
            return rows
        return kv_dk if name == "key" else h_dk

    in_width = {"query": dq, "key": sc.keys.shape[2], "value": sc.values.shape[2], "out": h_dv}
    projections = {}
    for name, p in sc.projections.items():
        if p is None:
            continue
        w = p.weight
        if w.ndim != 2:
            projections[name] = p
            continue
        rows = rows_for(name, w.shape[0])
        weight = resize(w, (rows, in_width[name]))
        bias = None if p.bias is None else resize(p.bias, (rows,))
        projections[name] = p if (weight is w and bias is p.bias) else Projection(weight, bias)
    sc = dataclasses.replace(sc, projections=projections)
    a = sc.additive
    if a is not None and isinstance(a.hidden, int) and a.hidden >= 1:
        n, qw, kw = a.hidden, sc.query_head_width, sc.key_head_width
        new_a = Additive(n, resize(a.W_q, (H, n, qw)), resize(a.W_k, (H, n, kw)), resize(a.w_v, (H, n)))
        if any(x is not y for x, y in zip((new_a.W_q, new_a.W_k, new_a.w_v), (a.W_q, a.W_k, a.w_v))):
            sc = dataclasses.replace(sc, additive=new_a)
    return sc


# ---- switches -------------------------------------------------------------------------------

def weight_shape(sc: Scenario, name: str) -> tuple[int, int]:
    """The (out, in) an nn.Linear for projection `name` needs here (TSL: out projects to d_model)."""
    split = heads_split(sc)
    h_dk = sc.n_heads * sc.dk if split else sc.d_model
    h_dv = sc.n_heads * sc.dv if split else sc.d_model
    kv_dk = sc.kv_heads * sc.dk if split else sc.d_model  # key/value heads (grouped-query: fewer)
    kv_dv = sc.kv_heads * sc.dv if split else sc.d_model
    return {
        "query": (h_dk, sc.d_model),
        "key": (kv_dk, int(sc.keys.shape[2])),
        "value": (kv_dv, int(sc.values.shape[2])),
        "out": (sc.d_model, h_dv),
    }[name]


def with_projection(sc: Scenario, name: str, on: bool, init: str = "identity", seed: int = 0) -> Scenario:
    """Switch projection `name` on (a fresh identity-like or nn.Linear-init weight) or off (identity)."""
    path = f"projections.{name}.weight"
    if not on:
        return set_array(sc, path, None)
    if sc.projection(name) is not None:
        return sc
    return set_array(sc, path, fill_block(init, weight_shape(sc, name), seed))


def with_bias(sc: Scenario, name: str, on: bool) -> Scenario:
    p = sc.projection(name)
    if p is None or (p.bias is not None) == on:
        return sc
    return set_array(sc, f"projections.{name}.bias", np.zeros(p.weight.shape[0]) if on else None)


def default_additive(sc: Scenario, hidden: Optional[int] = None) -> Additive:
    """d2l AdditiveAttention weights (nn.Linear init, seeded by the scenario's seed)."""
    H = max(int(sc.n_heads), 1) if isinstance(sc.n_heads, int) else 1
    n = hidden or max(sc.dk if heads_split(sc) else sc.d_model, 1)
    qw, kw = max(sc.query_head_width, 1), max(sc.key_head_width, 1)
    return Additive(
        n,
        fill_block("linear", (H, n, qw), sc.seed),
        fill_block("linear", (H, n, kw), sc.seed + 1),
        fill_block("linear", (H, n), sc.seed + 2, fan_in=n),
    )


def with_scoring(sc: Scenario, kind: str) -> Scenario:
    """Change the scoring kind, creating additive weights when needed and clearing `mix` when
    it would no longer mean anything (both are what a person switching kinds expects)."""
    changes: dict = {"scoring": kind}
    chosen = kinds.scoring(kind)
    if chosen.weights_attr is not None and getattr(sc, chosen.weights_attr) is None:
        changes[chosen.weights_attr] = default_additive(sc)  # the one kind with weights of its own
    if not _has_field(kind, "mix") and sc.mix:
        changes["mix"] = False
    return conform(dataclasses.replace(sc, **changes), sc)


def valid_mode(sc: Scenario) -> str:
    v = sc.valid_lens
    return "none" if v is None else ("batch" if v.ndim == 1 else "row")


def with_valid_mode(sc: Scenario, mode: str) -> Scenario:
    """none / one length per batch item / one per query row; converts what is there."""
    v, B, L, S = sc.valid_lens, sc.batch, sc.L, sc.S
    if mode == valid_mode(sc):
        return sc
    if mode == "none":
        new = None
    elif mode == "batch":
        new = np.full(B, float(S)) if v is None else np.asarray(v, dtype=np.float64).max(axis=1)
    else:
        base = np.full(B, float(S)) if v is None else np.asarray(v, dtype=np.float64)
        new = np.repeat(base[:, None], L, axis=1)
    return dataclasses.replace(sc, valid_lens=new)


# ---- fills ----------------------------------------------------------------------------------

def fill_block(kind: str, shape: tuple[int, ...], seed: int = 0, fan_in: Optional[int] = None) -> np.ndarray:
    """Numbers for a fill action, made by the scenario file's own generators (same recipes).

    normal/uniform are rounded to two decimals so that a class can read them off the cells;
    linear is nn.Linear's default init, uniform(-1/sqrt(in), 1/sqrt(in)), unrounded.
    """
    shape = tuple(int(n) for n in shape)
    if kind == "linear":
        fan = fan_in or shape[-1]
        bound = 1.0 / math.sqrt(max(fan, 1))
        return generate({"generate": "uniform", "shape": list(shape), "seed": int(seed), "low": -bound, "high": bound})
    if kind == "identity" and len(shape) < 2:
        return generate({"generate": "ones", "shape": list(shape)})
    spec: dict = {"generate": kind, "shape": list(shape)}
    if kind in ("normal", "uniform"):
        spec["seed"] = int(seed)
        if kind == "uniform":
            spec["low"] = -1.0
        return np.round(generate(spec), 2)
    return generate(spec)


def fresh_scenario() -> Scenario:
    """File > New: B = 1, L = S = 3, d_model = 4, H = 2, no projections, small seeded numbers."""
    q = fill_block("normal", (1, 3, 4), 1)
    k = fill_block("normal", (1, 3, 4), 2)
    v = fill_block("normal", (1, 3, 4), 3)
    return Scenario(q, k, v, n_heads=2, title={"en": "New scenario", "zh": "新场景"},
                    notes={"en": "", "zh": ""})
