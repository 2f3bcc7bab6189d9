"""Inner attentions that compute with the engine's own kinds, and the export of a trained layer.

Presets 40 and 41 train Time-Series-Library layers whose arithmetic is not plain dot-product
attention (Autoformer's Auto-Correlation, Non-stationary Transformer's DSAttention).  Their inner
module here calls the engine's step functions (attention/kinds/autocorrelation.py,
ds_attention.py) during training, so the numbers that ship are the numbers the window computes:
one implementation, trained through.  The outer layer is TSL's own AttentionLayer /
AutoCorrelationLayer (resources/training/tsl_style.py); the engine's functions themselves are
checked against the library's verbatim module code in tests/engine/test_tsl_family.py.

`record_layer` keeps one call's inputs (a forward pre-hook, kwargs included) and output;
`layer_scenario` turns it into a Scenario with the layer's four projections, and `check_same`
runs the engine on it and refuses a scenario whose output differs from the module's.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

import numpy as np
import torch
from torch import nn

from attention.datamodel.parts import Part
from attention.datamodel.scenario import Projection, Scenario
from attention.kinds import autocorrelation as ac
from attention.kinds import ds_attention as ds


class EngineAutoCorrelation(nn.Module):
    """TSL's AutoCorrelation(mask_flag, factor, ...) computed by attention.kinds.autocorrelation:
    the training path (lags shared by the batch) in train(), the inference path in eval()."""

    def __init__(self, factor: float = 1.0):
        super().__init__()
        self.factor = factor

    def forward(self, queries, keys, values, attn_mask=None):
        parts = ac.autocorrelation(queries, keys, values, factor=self.factor, training=self.training)
        return parts.output.contiguous(), parts  # (B, L, H, D), every step kept


class EngineDSAttention(nn.Module):
    """TSL's DSAttention(mask_flag=False) computed by attention.kinds.ds_attention (no dropout)."""

    def forward(self, queries, keys, values, attn_mask=None, tau=None, delta=None):
        parts = ds.ds_attention(queries, keys, values, tau=tau, delta=delta)
        return parts.output.contiguous(), parts.weights  # (B, L, H, D), (B, H, L, S)


@dataclass
class Recorded:
    """One call of an attention layer: its query/key/value inputs, tau/delta, and its output."""

    inputs: dict[str, torch.Tensor] = field(default_factory=dict)
    output: Optional[torch.Tensor] = None


@contextlib.contextmanager
def record_layer(layer: nn.Module) -> Iterator[Recorded]:
    """Keep the next call of `layer` (positional queries, keys, values; tau and delta by keyword)."""
    rec = Recorded()

    def pre(_m, args, kwargs):
        if rec.output is None:
            rec.inputs = {"queries": args[0].detach().clone(), "keys": args[1].detach().clone(),
                          "values": args[2].detach().clone()}
            for name in ("tau", "delta"):
                if kwargs.get(name) is not None:
                    rec.inputs[name] = kwargs[name].detach().clone()

    def post(_m, _args, _kwargs, out):
        if rec.output is None:
            rec.output = out[0].detach().clone()

    handles = [layer.register_forward_pre_hook(pre, with_kwargs=True),
               layer.register_forward_hook(post, with_kwargs=True)]
    try:
        yield rec
    finally:
        for h in handles:
            h.remove()


def _projection(m: nn.Linear) -> Projection:
    w = m.weight.detach().double().numpy().copy()
    b = None if m.bias is None else m.bias.detach().double().numpy().copy()
    return Projection(w, b)


def layer_scenario(layer: nn.Module, rec: Recorded, scoring: str, modifiers: tuple[Part, ...], **more: Any
                   ) -> Scenario:
    """The scenario of one recorded call: TSL's four projections, the call's inputs, float64."""
    H = int(layer.n_heads)
    q_w = layer.query_projection.weight
    v_w = layer.value_projection.weight
    projections = {role: _projection(getattr(layer, f"{role}_projection")) for role in ("query", "key", "value", "out")}
    x = {k: rec.inputs[k].double().numpy().copy() for k in ("queries", "keys", "values")}
    return Scenario(queries=x["queries"], keys=x["keys"], values=x["values"], n_heads=H,
                    d_keys=int(q_w.shape[0]) // H, d_values=int(v_w.shape[0]) // H, projections=projections,
                    scoring=scoring, modifiers=modifiers, fill_value=float("-inf"), dtype="float64", **more)


def check_same(sc: Scenario, module_output: torch.Tensor, atol: float = 1e-4) -> float:
    """Run the engine on `sc` and compare its output with the module's (float32) output; returns
    the largest difference, raises when it exceeds `atol` (the export would not be what trained)."""
    from attention import run

    got = run(sc).array("output")
    diff = float(np.abs(got - module_output.double().numpy()).max())
    if not diff <= atol:
        raise AssertionError(f"the engine's output differs from the trained module's by {diff:.2e} (> {atol})")
    return diff
