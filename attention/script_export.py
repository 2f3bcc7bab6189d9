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
attention/step_registry.py names), headed by its id and formula, in pipeline order.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from attention import step_registry
from attention.scenario import Scenario, ScenarioError, problems


def python_script(sc: Scenario) -> str:
    """The standalone script for `sc` (raises ScenarioError when the engine could not run it)."""
    errs = problems(sc)
    if errs:
        raise ScenarioError(errs)
    parts = [_header(sc), _numbers(sc), _LINEAR]
    for rec in step_registry.RECORDS:
        if rec.script is not None:  # each step's record names its snippet, one of the functions below
            parts.append(globals()[rec.script](sc, rec.id))
    parts.append(_TAIL)
    return "".join(parts)


# ---- literals --------------------------------------------------------------------------------

def _num(x) -> str:
    """A Python literal for one number, exact for float64 (repr is the shortest round trip)."""
    if isinstance(x, (bool, np.bool_)):
        return repr(bool(x))
    if isinstance(x, (int, np.integer)):
        return repr(int(x))
    x = float(x)
    if math.isnan(x):
        return 'float("nan")'
    if math.isinf(x):
        return 'float("inf")' if x > 0 else 'float("-inf")'
    return repr(x)


def _lit(a, level: int = 1) -> str:
    """Nested list literal of an array: innermost rows on one line each, 4 spaces per level."""
    a = np.asarray(a)
    if a.ndim == 0:
        return _num(a.item())
    if a.ndim == 1:
        return "[" + ", ".join(_num(x) for x in a.tolist()) + "]"
    pad = "    " * level
    return "[\n" + "".join(f"{pad}{_lit(x, level + 1)},\n" for x in a) + "    " * (level - 1) + "]"


def _tensor(name: str, a, comment: str) -> str:
    return f"{name} = torch.tensor({_lit(a)}, dtype=dtype)  # {comment}\n"


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


def _numbers(sc: Scenario) -> str:
    B, L, S, H = sc.batch, sc.L, sc.S, sc.n_heads
    scale = sc.resolved_scale()
    if sc.scale is not None:
        why = "as set in the scenario"
    elif sc.scoring in ("scaled_dot", "prob_sparse"):
        why = f"the default 1/sqrt(d_keys) = 1/sqrt({sc.dk})"
    else:
        why = f"the default for {sc.scoring}: no scaling"
    out = ["# ---- the scenario's numbers ----------------------------------------------------------\n",
           f"B, L, S, H = {B}, {L}, {S}, {H}  # batch, queries, keys, heads\n",
           f"d_keys, d_values = {sc.dk}, {sc.dv}  # per-head widths\n",
           f"scale = {_num(scale)}  # {why}\n",
           f"causal = {sc.causal!r}\n",
           f"fill_value = {_num(float(sc.fill_value))}  "
           "# masked scores are replaced by this (d2l: -1e6; Time-Series-Library: -inf)\n\n",
           _tensor("queries", sc.queries, f"(B, L, d_model) = {tuple(sc.queries.shape)}"),
           _tensor("keys", sc.keys, f"(B, S, key width) = {tuple(sc.keys.shape)}"),
           _tensor("values", sc.values, f"(B, S, value width) = {tuple(sc.values.shape)}")]
    if sc.valid_lens is None:
        out.append("valid_lens = None  # no valid lengths\n")
    else:
        v = np.asarray(sc.valid_lens)
        kind = "one per batch item (B,)" if v.ndim == 1 else "one per batch item and query row (B, L)"
        out.append(f"valid_lens = torch.tensor({_lit(v.astype(int))})  # {kind}: key s is masked when s >= length\n")
    for name, sym in (("query", "q"), ("key", "k"), ("value", "v"), ("out", "o")):
        p = sc.projection(name)
        if p is None:
            out.append(f"W_{sym} = None  # no {name} projection: identity\n")
            out.append(f"b_{sym} = None\n")
            continue
        out.append(_tensor(f"W_{sym}", p.weight,
                           f"{name} projection weight, nn.Linear layout (out, in) = {tuple(p.weight.shape)}"))
        if p.bias is None:
            out.append(f"b_{sym} = None  # no bias\n")
        else:
            out.append(_tensor(f"b_{sym}", p.bias, f"{name} projection bias ({p.bias.shape[0]},)"))
    if sc.scoring == "additive":
        a = sc.additive
        out.append(_tensor("A_W_q", a.W_q,
                           f"additive W_q per head (H, hidden, query head width) = {tuple(a.W_q.shape)}"))
        out.append(_tensor("A_W_k", a.W_k, f"additive W_k per head (H, hidden, key head width) = {tuple(a.W_k.shape)}"))
        out.append(_tensor("A_w_v", a.w_v, f"additive w_v per head (H, hidden) = {tuple(a.w_v.shape)}"))
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


def _section(sc: Scenario, step_id: str, formula: Optional[str] = None) -> str:
    """The comment that heads a step's snippet: its id and its formula (`formula`: the code's own
    words where the window's formula counts positions from 1 and the code counts from 0)."""
    title = f"# ---- {step_id}: {formula or step_registry.formula(step_id, sc.scoring)['en']} "
    return "\n" + title + "-" * max(4, 100 - len(title)) + "\n"


def _show(step_id: str, name: str) -> str:
    return f'show("{step_id}", {name})\n'


# ---- one snippet per step, in pipeline order ---------------------------------------------------

_PROJECTED = {  # which -> (input, weight, bias, result, its shape)
    "query": ("queries", "W_q", "b_q", "Q", "(B, L, H*d_k)"),
    "key": ("keys", "W_k", "b_k", "K", "(B, S, H*d_k)"),
    "value": ("values", "W_v", "b_v", "V", "(B, S, H*d_v)"),
}


def _projection(sc: Scenario, step_id: str) -> str:
    x, w, b, out, shape = _PROJECTED[step_id.split(".", 1)[1]]
    return _section(sc, step_id) + f"{out} = linear({x}, {w}, {b})  # {shape}\n" + _show(step_id, out)


def _head_split(sc: Scenario, step_id: str) -> str:
    which = step_id.split(".", 1)[1]
    name, source, n, d = {"query": ("q", "Q", "L", "d_k"), "key": ("k", "K", "S", "d_k"),
                          "value": ("v", "V", "S", "d_v")}[which]
    return (_section(sc, step_id, f"{source}.view(B, {n}, H, {d})")
            + f"{name} = {source}.view(B, {n}, H, -1)  "
              f"# (B, {n}, H, {d}): head h owns columns h*{d} ... (h+1)*{d} - 1\n"
            + _show(step_id, name))


def _scores(sc: Scenario, step_id: str) -> str:
    if sc.scoring == "additive":
        scale = ("scores = scores * scale  # an explicit scale\n" if sc.resolved_scale() != 1.0
                 else "# additive attention is not scaled\n")
        return (_section(sc, step_id)
                + "# d2l additive attention, per head\n"
                'fq = torch.einsum("blhe,hne->bhln", q, A_W_q)  # W_q q for every query: (B, H, L, hidden)\n'
                'fk = torch.einsum("bshe,hne->bhsn", k, A_W_k)  # W_k k for every key: (B, H, S, hidden)\n'
                "features = torch.tanh(fq[:, :, :, None, :] + fk[:, :, None, :, :])  # (B, H, L, S, hidden)\n"
                "scores = (features @ A_w_v[None, :, None, :, None]).squeeze(-1)  # w_v . features: (B, H, L, S)\n"
                + scale + _show(step_id, "scores"))
    if sc.scoring == "prob_sparse":
        return _prob_sparse_scores(sc, step_id)
    what = "scaled dot product" if sc.scoring == "scaled_dot" else "dot product"
    return (_section(sc, step_id)
            + f"# {what}\n"
            "qh = q.transpose(1, 2)  # (B, H, L, d_k)\n"
            "kh = k.transpose(1, 2)  # (B, H, S, d_k)\n"
            "scores = (qh * scale) @ kh.transpose(-2, -1)  "
            "# (B, H, L, S); the scale is applied to q first, as the engine does\n"
            + _show(step_id, "scores"))


def _prob_sparse_scores(sc: Scenario, step_id: str) -> str:
    import torch  # only to write down the engine's draw of sampled keys

    n_sample, n_top = sc.prob_sparse_sizes()
    gen = torch.Generator(device="cpu").manual_seed(int(sc.seed))
    idx = torch.randint(sc.S, (sc.L, n_sample), generator=gen).numpy()
    return _section(sc, step_id) + f'''# ProbSparse (Informer): score only the most "peaked" queries
n_sample, n_top = {n_sample}, {n_top}  # factor c = {sc.factor}: c*ceil(ln S), c*ceil(ln L), clipped to S and L
# The keys sampled for each query, as the engine drew them:
#   torch.randint(S, (L, n_sample), generator=torch.Generator(device="cpu").manual_seed({int(sc.seed)}))
# (Informer draws the same after torch.manual_seed({int(sc.seed)})).  Written out so the script does not
# depend on torch's random number generator staying the same between versions.
sample_index = torch.tensor({_lit(idx)})  # (L, n_sample)
qh, kh, vh = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # (B, H, L|S, d)
k_sample = kh[:, :, sample_index, :]  # (B, H, L, n_sample, d_k)
sampled_scores = (qh.unsqueeze(-2) @ k_sample.transpose(-2, -1)).squeeze(-2)  # (B, H, L, n_sample), unscaled
M = sampled_scores.max(-1).values - sampled_scores.sum(-1) / S  # sparsity measure, divided by the full S
top_index = M.topk(n_top, sorted=False).indices  # (B, H, n_top): the chosen ("active") queries
b_i = torch.arange(B)[:, None, None]
h_i = torch.arange(H)[None, :, None]
q_top = qh[b_i, h_i, top_index]  # (B, H, n_top, d_k)
top = (q_top @ kh.transpose(-2, -1)) * scale  # (B, H, n_top, S): scores of the chosen queries only
rows = top_index[..., None].expand(-1, -1, -1, S)  # where the chosen rows go in (B, H, L, S)
scores = torch.full((B, H, L, S), float("nan"), dtype=dtype)  # NaN: never computed
scores.scatter_(2, rows, top)
''' + _show(step_id, "scores")


def _mask(sc: Scenario) -> str:
    """The mask (True = this key is hidden from this query), or None."""
    lines = ["# the mask: True = this key is hidden from this query\n"]
    if sc.valid_lens is None and not sc.causal:
        lines.append("mask = None  # no valid lengths, not causal: nothing is masked\n")
        return "".join(lines)
    lines.append("s_pos = torch.arange(S)  # key positions\n")
    lines.append("mask = torch.zeros(B, L, S, dtype=torch.bool)\n")
    if sc.valid_lens is not None:
        if np.asarray(sc.valid_lens).ndim == 1:
            lines.append("lens = valid_lens[:, None].expand(B, L)  # every query row of item b uses item b's length\n")
        else:
            lines.append("lens = valid_lens  # one length per query row\n")
        lines.append("mask |= s_pos[None, None, :] >= lens[:, :, None]  # key s masked when s >= valid length\n")
    if sc.causal:
        lines.append("l_pos = torch.arange(L)\n")
        lines.append("mask |= (s_pos[None, :] > l_pos[:, None])[None]  # causal: key s masked when s > query l\n")
    return "".join(lines)


def _masked_scores(sc: Scenario, step_id: str) -> str:
    if sc.scoring == "prob_sparse":  # causal only: ProbSparse has no valid lengths
        masked = ("top_masked = top\nmasked_scores = scores  # no mask\n" if not sc.causal else
                  "top_masked = top.masked_fill(mask[b_i, top_index], fill_value)  "
                  "# the mask rows of the chosen queries\n"
                  "masked_scores = torch.full((B, H, L, S), float(\"nan\"), dtype=dtype)\n"
                  "masked_scores.scatter_(2, rows, top_masked)\n")
    else:
        masked = ("# d2l style, on the scaled scores\n"
                  "masked_scores = scores if mask is None else scores.masked_fill(mask[:, None, :, :], fill_value)\n")
    return _section(sc, step_id) + _mask(sc) + masked + _show(step_id, "masked_scores")


def _weights(sc: Scenario, step_id: str) -> str:
    if sc.scoring == "prob_sparse":
        lazy = ("lazy = torch.ones(L, S, dtype=dtype).tril()  "
                "# causal: a lazy query's output is the cumulative sum of V up to l\n"
                "base = lazy.expand(B, H, L, S).clone()\n" if sc.causal else
                "base = torch.full((B, H, L, S), 1.0 / S, dtype=dtype)  "
                "# a lazy query's output is the mean of V over all keys\n")
        return (_section(sc, step_id)
                + "# softmax on the chosen rows; the weights the lazy rows really use\n" + lazy
                + "attention_weights = base.scatter_(2, rows, torch.softmax(top_masked, dim=-1))\n"
                + _show(step_id, "attention_weights"))
    return (_section(sc, step_id)
            + "# A fully masked row: with -1e6 every entry is equal, so the weights are uniform 1/S;\n"
            "# with -inf, exp(-inf - (-inf)) is NaN, so the row is NaN.\n"
            "attention_weights = torch.softmax(masked_scores, dim=-1)  # (B, H, L, S)\n"
            + _show(step_id, "attention_weights"))


def _weighted_sum(sc: Scenario, step_id: str) -> str:
    return (_section(sc, step_id)
            + "out = (attention_weights @ v.transpose(1, 2)).transpose(1, 2)  # (B, L, H, d_v)\n"
            + _show(step_id, "out"))


def _concat(sc: Scenario, step_id: str) -> str:
    concat = ("concat = out.transpose(1, 2).contiguous().view(B, L, -1)  "
              "# mix: Time-Series-Library views the (B, H, L, d_v)\n"
              "# context as (B, L, H*d_v) without a transpose, so one row holds pieces of several positions\n"
              if sc.mix else "concat = out.reshape(B, L, -1)  # heads side by side: (B, L, H*d_v)\n")
    return _section(sc, step_id) + concat + _show(step_id, "concat")


def _output(sc: Scenario, step_id: str) -> str:
    return _section(sc, step_id) + "output = linear(concat, W_o, b_o)  # (B, L, d_out)\n" + _show(step_id, "output")
