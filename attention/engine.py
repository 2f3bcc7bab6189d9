"""run(scenario) -> Trace: the one place attention is computed.

Orchestration only; the arithmetic of each step lives in steps.py, masks.py and prob_sparse.py.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np
import torch

from attention import masks, prob_sparse, steps
from attention.scenario import PROJECTIONS, Scenario, ScenarioError, problems
from attention.trace import Step, Trace


def resolve_device(name: str) -> torch.device:
    if name == "cuda":
        if not torch.cuda.is_available():
            raise ScenarioError(["device: CUDA was requested but torch.cuda.is_available() is False on this machine; use 'cpu'"])
        return torch.device("cuda")
    if name != "cpu":
        raise ScenarioError([f"device: expected 'cpu' or 'cuda', got {name!r}"])
    return torch.device("cpu")


def resolve_dtype(name: str) -> torch.dtype:
    try:
        return {"float32": torch.float32, "float64": torch.float64}[name]
    except KeyError:
        raise ScenarioError([f"dtype: expected 'float32' or 'float64', got {name!r}"]) from None


def run(sc: Scenario, device: Optional[str] = None, dtype: Optional[str] = None) -> Trace:
    """Every intermediate of multi-head attention for `sc` (device/dtype override the scenario's)."""
    errs = problems(sc)
    if errs:
        raise ScenarioError(errs)
    dev = resolve_device(device or sc.device)
    dt = resolve_dtype(dtype or sc.dtype)
    with torch.inference_mode():
        return _run(sc, dev, dt)


def _t(a: Optional[np.ndarray], dev: torch.device, dt: torch.dtype) -> Optional[torch.Tensor]:
    return None if a is None else torch.as_tensor(np.asarray(a), dtype=dt).to(dev)


def _run(sc: Scenario, dev: torch.device, dt: torch.dtype) -> Trace:
    B, L, S, H = sc.batch, sc.L, sc.S, sc.n_heads
    scale = sc.resolved_scale()
    params: dict[str, torch.Tensor] = {
        "queries": _t(sc.queries, dev, dt), "keys": _t(sc.keys, dev, dt), "values": _t(sc.values, dev, dt),
    }
    for name in PROJECTIONS:
        p = sc.projection(name)
        if p is not None:
            params[f"projection.{name}.weight"] = _t(p.weight, dev, dt)
            if p.bias is not None:
                params[f"projection.{name}.bias"] = _t(p.bias, dev, dt)

    def proj(name: str, x: torch.Tensor) -> torch.Tensor:
        return steps.project(x, params.get(f"projection.{name}.weight"), params.get(f"projection.{name}.bias"))

    out: list[Step] = []
    add = lambda sid, t, dims: out.append(Step(sid, t, dims))  # noqa: E731

    Q = proj("query", params["queries"])  # (B, L, H*E)
    K = proj("key", params["keys"])  # (B, S, H*E)
    V = proj("value", params["values"])  # (B, S, H*D)
    add("projection.query", Q, ("B", "L", "H*dk"))
    add("projection.key", K, ("B", "S", "H*dk"))
    add("projection.value", V, ("B", "S", "H*dv"))
    q, k, v = steps.split_heads(Q, H), steps.split_heads(K, H), steps.split_heads(V, H)
    add("head_split.query", q, ("B", "L", "H", "dk"))
    add("head_split.key", k, ("B", "S", "H", "dk"))
    add("head_split.value", v, ("B", "S", "H", "dv"))

    valid = None if sc.valid_lens is None else torch.as_tensor(np.asarray(sc.valid_lens, dtype=np.float64))
    mask = masks.build_mask(B, L, S, sc.causal, valid, dev)  # (B, L, S) or None
    extras: list[Step] = []
    warnings: list[str] = []

    if sc.scoring in ("scaled_dot", "dot"):
        scores = steps.dot_scores(q, k, scale)
        masked = steps.apply_mask(scores, mask, sc.fill_value)
        weights = steps.softmax(masked)
    elif sc.scoring == "additive":
        a = sc.additive
        for name, arr in (("W_q", a.W_q), ("W_k", a.W_k), ("w_v", a.w_v)):
            params[f"additive.{name}"] = _t(arr, dev, dt)
        fq, fk = steps.additive_features(q, k, params["additive.W_q"], params["additive.W_k"])
        scores = steps.additive_scores(fq, fk, params["additive.w_v"], scale)
        masked = steps.apply_mask(scores, mask, sc.fill_value)
        weights = steps.softmax(masked)
    else:  # prob_sparse
        n_sample, n_top = sc.prob_sparse_sizes()
        parts = prob_sparse.select_queries(q, k, n_sample, n_top, sc.seed)
        scores = prob_sparse.scores_on_selected(q, k, parts, scale)
        masked = steps.apply_mask(scores, mask, sc.fill_value)
        masked = torch.where(parts.selected[..., None], masked, scores)  # lazy rows stay NaN
        weights = prob_sparse.effective_weights(masked, parts.selected, sc.causal)
        extras += [
            Step("extra.sample_index", parts.sample_index, ("L", "n_sample")),
            Step("extra.sample_count", parts.sample_count, ("L", "S")),
            Step("extra.sampled_scores", parts.sampled_scores, ("B", "H", "L", "n_sample")),
            Step("extra.sparsity", parts.sparsity, ("B", "H", "L")),
            Step("extra.top_index", parts.top_index, ("B", "H", "n_top")),
            Step("extra.selected", parts.selected, ("B", "H", "L")),
        ]
    add("scores", scores, ("B", "H", "L", "S"))
    add("masked_scores", masked, ("B", "H", "L", "S"))
    add("attention_weights", weights, ("B", "H", "L", "S"))

    ctx = steps.weighted_sum(weights, v)  # (B, L, H, D)
    add("weighted_sum", ctx, ("B", "L", "H", "dv"))
    cat = steps.concat_heads(ctx, mix=sc.mix)
    add("concat", cat, ("B", "L", "H*dv"))
    add("output", proj("out", cat), ("B", "L", "d_out"))

    if mask is not None:
        full = mask.all(dim=-1)  # (B, L)
        extras.insert(0, Step("extra.fully_masked", full, ("B", "L")))
        extras.insert(0, Step("extra.mask", mask, ("B", "L", "S")))
        for b, l in full.nonzero().tolist():
            what = "uniform weights over all keys" if math.isfinite(sc.fill_value) else "NaN weights"
            warnings.append(f"batch {b}, query {l}: every key is masked, so the fill value {sc.fill_value:g} gives {what}")

    options = {
        "n_heads": H, "d_model": sc.d_model, "d_keys": sc.dk, "d_values": sc.dv,
        "query_head_width": q.shape[-1], "key_head_width": k.shape[-1],
        "scoring": sc.scoring, "scale": scale, "causal": sc.causal,
        "valid_lens": None if sc.valid_lens is None else np.asarray(sc.valid_lens).astype(int).tolist(),
        "fill_value": sc.fill_value, "factor": sc.factor, "seed": sc.seed, "mix": sc.mix,
        "device": dev.type, "dtype": str(dt).removeprefix("torch."),
        "batch": B, "L": L, "S": S, "d_out": sc.d_out,
        "hidden": sc.additive.hidden if sc.scoring == "additive" else None,
    }
    if sc.scoring == "prob_sparse":
        options["n_sample"], options["n_top"] = sc.prob_sparse_sizes()
    return Trace(tuple(out) + tuple(extras), options, params, tuple(warnings))
