"""The compute function of each step record of the main pipeline: (run, step_id) -> tensor.

`run` is the engine's working state (attention.compute.engine.Run): the scenario, its numbers as tensors
(`run.params`), every step computed so far as later steps read it (`run.inputs`, by step id: a
step that stands for another is read in its place) and the scoring kind.  Each function reads
the steps and parameters its record declares as inputs.  The arithmetic itself is
in attention/ops/steps.py; the scoring steps are the scoring kind's (attention/kinds/).  torch is
imported on first call, not here: the registry that holds these functions is read before torch
has loaded.
"""
from __future__ import annotations

from typing import Any

#: a projection step's input in the parameters (the output projection reads the concat step)
_SOURCE = {"query": "queries", "key": "keys", "value": "values"}


def projection(run: Any, step_id: str):
    """projection.query / .key / .value (B, N, H*E) and output (B, L, d_out): nn.Linear, or identity."""
    from attention.ops import steps

    name = "out" if step_id == "output" else step_id.split(".", 1)[1]
    x = run.inputs["concat"] if name == "out" else run.params[_SOURCE[name]]
    return steps.project(x, run.params.get(f"projection.{name}.weight"), run.params.get(f"projection.{name}.bias"))


def head_split(run: Any, step_id: str):
    """head_split.*: (B, N, H*E) -> (B, N, H, E), a view (keys and values: the key/value heads)."""
    from attention.ops import steps

    which = step_id.split(".", 1)[1]
    heads = run.sc.n_heads if which == "query" else run.sc.kv_heads
    return steps.split_heads(run.inputs["projection." + which], heads)


def scores(run: Any, step_id: str):
    """(B, H, L, S), as the scenario's scoring kind computes them."""
    return run.kind.compute_scores(run)


def masked_scores(run: Any, step_id: str):
    """(B, H, L, S): the fill where extra.mask is True (the kind's way)."""
    return run.kind.compute_masked(run)


def attention_weights(run: Any, step_id: str):
    """(B, H, L, S): the rows' softmax (the kind's way; a modifier that changes the softmax, sinks, its way)."""
    own = next((m for m in run.kinds.modifiers if hasattr(m, "compute_weights")), None)
    return (own or run.kind).compute_weights(run)


def weighted_sum(run: Any, step_id: str):
    """(B, L, H, D): the weights times the values, per head."""
    from attention.ops import steps

    weights = run.inputs["attention_weights"]  # (B, H, L, S)
    return steps.weighted_sum(weights, steps.repeat_kv(run.inputs["head_split.value"], weights.shape[1]))


def concat(run: Any, step_id: str):
    """(B, L, H*D): the heads side by side (TSL's mix quirk when the scenario asks)."""
    from attention.ops import steps

    return steps.concat_heads(run.inputs["weighted_sum"], mix=run.sc.mix)


def always(sc: Any, kinds: Any) -> bool:
    """The `active` predicate of every main step: in every trace."""
    return True
