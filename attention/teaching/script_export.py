"""Export a scenario as a standalone Python script a student can run in a notebook.

`python_script(scenario)` writes every number of the scenario (inputs, weights, biases, valid
lengths, the resolved scale and fill value, ProbSparse's sampled key indices) as Python
literals with full float precision, then computes every pipeline step with plain torch, one
step at a time with comments, and prints each step's id and tensor.  The script imports only
torch (and the standard library's json and sys); it reproduces the engine's trace, which the
tests check by running it.

Run the exported script with `--json` to get one JSON object {step id: nested list} instead of
the printed tensors, and with `--dtype float64|float32` to override the scenario's dtype.

Each step of the main pipeline writes its own part of the script (the snippet its record in
attention/registry/step_registry.py holds, or the scenario's scoring kind's own where it computes the
step its way), headed by its id and formula, in pipeline order.
"""
from __future__ import annotations

import numpy as np

from attention.compute.check import check
from attention.datamodel.scenario import Scenario, ScenarioError
from attention.kinds.plan import Plan
from attention.text.script import _num, literal, tensor_literal


def python_script(sc: Scenario) -> str:
    """The standalone script for `sc` (raises ScenarioError when the engine could not run it)."""
    return plan_script(check(sc))


def plan_script(plan: Plan) -> str:
    """The standalone script of a checked scenario: the plan's steps in computing order, each written
    by the kind that computes it its own way, else by its record (the main steps' snippets:
    attention/pipeline/script.py).  A plan with problems: ScenarioError."""
    if plan.problems:
        raise ScenarioError(plan.problems)
    sc = plan.sc
    kind = plan.kinds.scoring
    own = [m for m in plan.kinds.modifiers if hasattr(m, "script_step")]  # a modifier computing a main step (sinks)
    parts = [_header(sc), _numbers(sc, kind, plan.scale), _LINEAR]
    for rec in plan.records:  # computing order: a kind's step (RoPE, ALiBi's bias) where it is computed
        if rec.script is not None:  # the kind's own snippet where it computes the step its way, else the record's
            snippet = next(filter(None, (m.script_step(plan, rec.id) for m in own)), None)
            parts.append(snippet or kind.script(plan, rec.id) or rec.script(plan, rec.id))
    for block in plan.kinds.blocks:  # the steps after the output (an encoder layer, its distilling)
        parts.append(block.script_after(plan))
    parts.append(_TAIL)
    return "".join(parts)


# ---- the script's parts ----------------------------------------------------------------------

def _header(sc: Scenario) -> str:
    title = sc.title.get("en") or sc.title.get("zh") or "(untitled)"
    title_zh = sc.title.get("zh") or ""
    return f'''"""Attention Explorer scenario as plain torch: {title}
{title_zh}

Exported by Attention Explorer.  Every number of the scenario is written out below; every
step of multi-head attention is then computed with plain torch and printed, the same numbers
the app shows.  Run it as it is, or cell by cell in a notebook.

    python this_script.py              # print every step's id, shape and tensor
    python this_script.py --json       # one JSON object: step id -> nested list
    python this_script.py --dtype float64
"""
import json
import sys

import torch

DTYPE_NAME = {sc.dtype!r}  # the scenario's dtype; --dtype overrides it
if "--dtype" in sys.argv:
    DTYPE_NAME = sys.argv[sys.argv.index("--dtype") + 1]
dtype = {{"float32": torch.float32, "float64": torch.float64}}[DTYPE_NAME]
AS_JSON = "--json" in sys.argv
torch.set_printoptions(precision=6, sci_mode=False, linewidth=120)

steps = {{}}  # step id -> tensor, in the order computed


def show(step_id, tensor):
    """Keep and print one step."""
    steps[step_id] = tensor
    if not AS_JSON:
        print(f"== {{step_id}} {{tuple(tensor.shape)}}")
        print(tensor)
        print()

'''


def _numbers(sc: Scenario, scoring, scale: float) -> str:
    B, L, S, H = sc.batch, sc.L, sc.S, sc.n_heads
    why = "as set in the scenario" if sc.scale is not None else scoring.scale_why(sc)
    out = ["# ---- the scenario's numbers ----------------------------------------------------------\n",
           f"B, L, S, H = {B}, {L}, {S}, {H}  # batch, queries, keys, heads\n",
           *([f"H_kv = {sc.kv_heads}  # key/value heads: query head h reads key/value head h // {H // sc.kv_heads}\n"]
             if sc.kv_heads != H else []),
           f"d_keys, d_values = {sc.dk}, {sc.dv}  # per-head widths\n",
           f"scale = {_num(scale)}  # {why}\n",
           f"causal = {sc.causal!r}\n",
           f"fill_value = {_num(float(sc.fill_value))}  "
           "# masked scores are replaced by this (d2l: -1e6; Time-Series-Library: -inf)\n\n",
           tensor_literal("queries", sc.queries, f"(B, L, d_model) = {tuple(sc.queries.shape)}"),
           tensor_literal("keys", sc.keys, f"(B, S, key width) = {tuple(sc.keys.shape)}"),
           tensor_literal("values", sc.values, f"(B, S, value width) = {tuple(sc.values.shape)}")]
    if sc.valid_lens is None:
        out.append("valid_lens = None  # no valid lengths\n")
    else:
        v = np.asarray(sc.valid_lens)
        kind = "one per batch item (B,)" if v.ndim == 1 else "one per batch item and query row (B, L)"
        out.append(f"valid_lens = torch.tensor({literal(v.astype(int))})  # {kind}: key s is masked when s >= length\n")
    for name, sym in (("query", "q"), ("key", "k"), ("value", "v"), ("out", "o")):
        p = sc.projection(name)
        if p is None:
            out.append(f"W_{sym} = None  # no {name} projection: identity\n")
            out.append(f"b_{sym} = None\n")
            continue
        note = f"; {sc.weights_note['en']}" if sc.weights_note.get("en") else ""  # dequantized 4-bit (Q4_1)
        out.append(tensor_literal(f"W_{sym}", p.weight,
                           f"{name} projection weight, nn.Linear layout (out, in) = {tuple(p.weight.shape)}{note}"))
        if p.bias is None:
            out.append(f"b_{sym} = None  # no bias\n")
        else:
            out.append(tensor_literal(f"b_{sym}", p.bias, f"{name} projection bias ({p.bias.shape[0]},)"))
    out.append(scoring.script_numbers(sc))
    return "".join(out)


_LINEAR = """
def linear(x, W, b):
    \"\"\"nn.Linear: y = x @ W.T + b; no weight: the input itself (d2l's scoring functions have none).\"\"\"
    if W is None:
        return x
    y = x @ W.T
    return y if b is None else y + b
"""

_TAIL = """
if AS_JSON:  # NaN and infinities are written as NaN / Infinity / -Infinity (Python's json reads them)
    print(json.dumps({name: t.tolist() for name, t in steps.items()}))
"""
