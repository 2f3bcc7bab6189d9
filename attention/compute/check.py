"""Checking a scenario: everything that stops the engine from running it, named by field, and the
plan of what it computes: the kinds it uses resolved once, and the steps of its trace.

`problems(sc)` is the one check the loader, `validate`, the engine and the window share: shapes,
sizes (against the memory free now), each kind's own checks and its parts'.  `plan(sc)` looks
the scenario's kinds up in the table (attention/registry/kinds.py) and picks the step records of
its trace; what comes after reads the plan instead of looking a kind up by name again.
"""
from __future__ import annotations

import math
import numbers
import os
from typing import Any, Optional

from attention.compute import memory
from attention.datamodel import parts
from attention.datamodel.problem import Phrase, Problem, count
from attention.datamodel.scenario import DEVICES, DTYPES, Scenario, _got, _r, _shape, _shape_problem, _value_problem
from attention.kinds.plan import Kinds, Plan
from attention.registry import kinds as table
from attention.registry import step_registry


def default_scale(sc: Scenario, scoring: Any = None) -> float:
    """The scale when none is set, the scoring kind's: 1/√d_keys for scaled dot and ProbSparse, else 1."""
    return (scoring or table.scoring(sc)).default_scale(sc)


def resolved_scale(sc: Scenario, scoring: Any = None) -> float:
    """The number the scores are multiplied by (an explicit 0 is honoured)."""
    return float(sc.scale) if sc.scale is not None else default_scale(sc, scoring)


#: Refuse traces whose tensors would need more than this many bytes (estimated before
#: allocating anything).  Default: the memory free now (attention.compute.memory), at most 60% of physical
#: memory; override with AE_MEMORY_LIMIT (bytes).
def memory_limit() -> int:
    env = os.environ.get("AE_MEMORY_LIMIT")
    if env:
        return int(float(env))
    return min(int(0.6 * memory.physical_bytes()), memory.available_bytes())


def estimate_trace_bytes(
    B: int, L: int, S: int, H: int, dk: int, dv: int, d_q: int, d_k: int, d_v: int,
    d_out: int, hidden: int = 0, itemsize: int = 8, n_sample: int = 0,
) -> int:
    """Upper estimate of the bytes a trace keeps (plus the largest temporary)."""
    bhls = B * H * L * S
    per_row = B * (L * (d_q + 3 * H * dk + 2 * H * dv + d_out) + S * (d_k + d_v + 4 * H * max(dk, dv)))
    temp = B * H * L * S * hidden if hidden else 0  # additive: tanh features (B,H,L,hidden,S), kept in the trace
    temp += B * H * L * n_sample * (dk + 1)  # prob_sparse: sampled keys (B,H,L,n_sample,dk) and scores
    return itemsize * (4 * bhls + per_row + temp)


def check(sc: Scenario, check_values: bool = True) -> Plan:
    """The frozen plan of `sc`: its problems, and when it has none, the kind objects it uses, the
    steps of its trace, its sizes, its scale and the memory its trace will need.

    check_values=False skips the scan of every number for NaN, infinity and float32's range: the
    engine scans the tensors it converts anyway (cheaper than a second pass over the numpy arrays)
    and asks again with check_values=True only when that scan finds something."""
    errs = _problems(sc, check_values)
    if errs:
        return Plan(sc, problems=tuple(errs))
    found = table.resolve(sc)
    size = sizes(sc, found)
    need = memory_need(sc, found, size)
    limit = memory_limit()
    if need > limit:
        return Plan(sc, problems=(Problem("sizes", "sizes", {"need": _gib(need), "limit": _gib(limit)}),))
    return Plan(sc, found, tuple(step_registry.active(sc, found)), resolved_scale(sc, found.scoring),
                default_scale(sc, found.scoring), size, need, table.part_options(sc))


def problems(sc: Scenario, check_values: bool = True) -> list[Problem]:
    """Everything that stops the engine from running `sc`, one `Problem` per problem (check(sc)'s)."""
    return list(check(sc, check_values).problems)


def sizes(sc: Scenario, kinds: Kinds) -> dict[str, int]:
    """The sizes every step's shape is made of: batch, queries, keys, heads, widths, and the scoring
    kind's own (additive's hidden units, ProbSparse's sampled keys)."""
    hidden, n_sample = kinds.scoring.memory_terms(sc)
    return {"B": sc.batch, "L": sc.L, "S": sc.S, "H": sc.n_heads, "H_kv": sc.kv_heads, "d_model": sc.d_model,
            "d_k_in": int(sc.keys.shape[2]), "d_v_in": int(sc.values.shape[2]), "dk": sc.dk, "dv": sc.dv,
            "d_out": sc.d_out, "hidden": hidden, "n_sample": n_sample}


def memory_need(sc: Scenario, kinds: Kinds, size: dict[str, int]) -> int:
    """Bytes the trace of `sc` will keep (an upper estimate, the largest temporary included)."""
    itemsize = 4 if sc.dtype == "float32" else 8
    need = estimate_trace_bytes(size["B"], size["L"], size["S"], size["H"], size["dk"], size["dv"], size["d_model"],
                                size["d_k_in"], size["d_v_in"], size["d_out"], size["hidden"], itemsize,
                                size["n_sample"])
    # the numbers a score modifier's steps keep (ALiBi's bias and biased scores, a sink's column ...)
    return need + itemsize * sum(m.memory_numbers(sc) for m in kinds.modifiers if hasattr(m, "memory_numbers"))


def _problems(sc: Scenario, check_values: bool) -> list[Problem]:
    """Every problem but the memory guard's (check() adds it once the kinds are resolved)."""
    errs: list[Problem] = []
    for name, arr in (("queries", sc.queries), ("keys", sc.keys), ("values", sc.values)):
        if arr.ndim != 3:
            errs.append(Problem("expected_3d", name, {"ndim": arr.ndim}))
        elif 0 in arr.shape:
            errs.append(Problem("empty_dimension", name, {"shape": _shape(arr.shape)}))
        elif check_values:
            bad = _value_problem(name, arr, sc.dtype)
            if bad is not None:
                errs.append(bad)
    if errs:
        return errs
    B, L, d_q = sc.queries.shape
    _, S, d_kin = sc.keys.shape
    if sc.keys.shape[0] != B:
        errs.append(Problem("batch_differs", "keys", {"batch": sc.keys.shape[0], "queries": B}))
    if sc.values.shape[0] != B:
        errs.append(Problem("batch_differs", "values", {"batch": sc.values.shape[0], "queries": B}))
    if sc.values.shape[1] != S:
        errs.append(Problem("positions", "values", {"n": sc.values.shape[1], "S": S}))
    if not table.known_scoring(sc.scoring):
        choices = ", ".join(table.SCORING)
        errs.append(Problem("scoring_unknown", "scoring", {"kind": _r(sc.scoring), "choices": choices}))
        return errs
    kind = table.scoring(sc)
    H = sc.n_heads
    if not isinstance(H, int) or isinstance(H, bool) or H < 1:
        errs.append(Problem("expected_int", "n_heads", {"minimum": 1, "got": _got(H)}))
        return errs
    for fld in ("d_keys", "d_values"):
        v = getattr(sc, fld)
        if v is not None and (not isinstance(v, int) or v < 1):
            errs.append(Problem("expected_int_or_null", fld, {"minimum": 1, "got": _got(v)}))
    kv = sc.n_kv_heads
    if kv is not None and (isinstance(kv, bool) or not isinstance(kv, int) or kv < 1):
        errs.append(Problem("expected_int_or_null", "n_kv_heads", {"minimum": 1, "got": _got(kv)}))
    elif kv is not None and H % kv:
        errs.append(Problem("kv_heads_divide", "n_kv_heads", {"kv": kv, "H": H}))
    elif kv is not None and kv != H and not kind.grouped_kv:
        errs.append(Problem("kv_heads_kind", "n_kv_heads", {"kv": kv, "H": H, "kind": _r(sc.scoring)}))
    if errs:
        return errs
    if (sc.d_keys is None or sc.d_values is None) and d_q % H:
        which = [f for f in ("d_keys", "d_values") if getattr(sc, f) is None]
        names = which[0] if len(which) == 1 else Phrase("both", {"a": which[0], "b": which[1]})
        errs.append(Problem("heads_divide", "n_heads", {"H": H, "d_model": d_q, "which": names}))
        return errs
    dk, dv, Hkv = sc.dk, sc.dv, sc.kv_heads
    errs += _projection_problems(sc, "query", d_q, H * dk, not kind.free_widths, check_values)
    errs += _projection_problems(sc, "key", d_kin, Hkv * dk, not kind.free_widths, check_values, Hkv)
    errs += _projection_problems(sc, "value", sc.values.shape[2], Hkv * dv, True, check_values, Hkv)
    out = sc.projection("out")
    if out is not None:
        if out.weight.ndim != 2 or out.weight.shape[1] != H * dv:
            rows = out.weight.shape[0] if out.weight.ndim == 2 else d_q
            errs.append(_shape_problem("projections.out.weight", [rows, H * dv], out.weight.shape))
        elif out.bias is not None and out.bias.shape != (out.weight.shape[0],):
            errs.append(_shape_problem("projections.out.bias", [out.weight.shape[0]], out.bias.shape))
        elif check_values:
            for path, a in (("projections.out.weight", out.weight), ("projections.out.bias", out.bias)):
                bad = None if a is None else _value_problem(path, a, sc.dtype)
                if bad is not None:
                    errs.append(bad)
                    break
    if not errs:
        errs += kind.weight_problems(sc, check_values)  # the kind's own weights (additive's W_q, W_k, w_v)
    for rule in table.MASK_RULES.values():
        errs += rule.problems(sc)
    errs += kind.option_problems(sc, errs)  # the kind's own options (ProbSparse's factor, sample ...)
    errs += part_problems(sc)  # the generic parts: known kinds, values their fields allow
    for other in table.SCORING.values():
        if other is not kind:
            errs += other.stray_problems(sc)  # another kind's option set: it would mean nothing here
    if sc.scale is not None and (isinstance(sc.scale, bool) or not isinstance(sc.scale, numbers.Real)
                                 or not math.isfinite(sc.scale)):
        errs.append(Problem("expected_number_or_null", "scale", {"got": _got(sc.scale)}))
    if (isinstance(sc.fill_value, bool) or not isinstance(sc.fill_value, numbers.Real)
            or not (sc.fill_value == -math.inf or math.isfinite(sc.fill_value))):
        errs.append(Problem("fill_bad", "fill_value", {"got": _r(sc.fill_value)}))
    if sc.device not in DEVICES:
        errs.append(Problem("device_bad", "device", {"got": _r(sc.device)}))
    if sc.dtype not in DTYPES:
        errs.append(Problem("dtype_bad", "dtype", {"got": _r(sc.dtype)}))
    for name, toks, n in (("query_tokens", sc.query_tokens, L), ("key_tokens", sc.key_tokens, S)):
        if toks is not None and len(toks) != n:
            code = "query_labels" if name[0] == "q" else "key_labels"
            errs.append(Problem(code, name, {"n": n, "got": len(toks)}))
    return errs


def _gib(n: int) -> str:
    """Bytes in GiB with one decimal; sizes beyond what a float holds are said by their size."""
    return f"{n / 2**30:.1f}" if n.bit_length() < 1000 else count(n // 2**30)


def _projection_problems(sc: Scenario, name: str, in_width: int, out_width: int, dims_fixed: bool,
                         check_values: bool = True, heads: Optional[int] = None) -> list[Problem]:
    """`heads`: the heads this projection is split into (the key/value heads for K and V)."""
    p = sc.projection(name)
    path = f"projections.{name}"
    H = sc.n_heads if heads is None else heads
    grouped = heads is not None and heads != sc.n_heads
    src = {"query": "queries", "key": "keys", "value": "values"}[name]
    if p is None:
        if dims_fixed and in_width != out_width:
            knob = "d_values" if name == "value" else "d_keys"
            fix = in_width // H if in_width % H == 0 else Phrase("a_divisor")
            code = "identity_width_kv" if grouped else "identity_width"
            return [Problem(code, path, {"src": src, "width": in_width, "knob": knob, "H": H,
                                                     "per_head": out_width // H, "out": out_width, "fix": fix})]
        if not dims_fixed and in_width % H:
            return [Problem("identity_divisible", path, {"src": src, "width": in_width, "H": H})]
        return []
    w = p.weight
    expected_out = out_width if dims_fixed else (w.shape[0] if w.ndim == 2 and w.shape[0] % H == 0 else out_width)
    if w.ndim != 2 or w.shape != (expected_out, in_width):
        return [_shape_problem(f"{path}.weight", [expected_out, in_width], w.shape)]
    if check_values:
        bad = _value_problem(f"{path}.weight", w, sc.dtype)
        if bad is not None:
            return [bad]
    if p.bias is not None:
        if p.bias.shape != (w.shape[0],):
            return [_shape_problem(f"{path}.bias", [w.shape[0]], p.bias.shape)]
        if check_values:
            bad = _value_problem(f"{path}.bias", p.bias, sc.dtype)
            if bad is not None:
                return [bad]
    return []


def part_problems(sc: Any, kinds: Optional[Kinds] = None) -> list[Problem]:
    """Every part that names no known kind, repeats a kind (unless the kind `combines`: windows,
    drawn masks; `repeats`), holds a field its kind does not have, or a value its field does not allow;
    then each kind's own checks (`kind.part_problems(sc, part, path, kinds)`;
    `kinds`: the kind objects `sc` uses, resolved from the table when not given)."""
    errs: list[Problem] = repeats(sc)
    for family in parts.FAMILIES:
        used = parts.of(sc, family)
        if not used:
            continue  # the engine asks on every edit: a scenario without parts costs nothing here
        known = table.of_family(family)
        for i, part in enumerate(used):
            path = f"{family}[{i}]"
            if not isinstance(part, parts.Part) or part.kind not in known:
                got = part.kind if isinstance(part, parts.Part) else part
                errs.append(Problem("expected_choice", path, {"choices": ", ".join(known) or "—",
                                                              "got": parts._quoted(got)}))
                continue
            kind = known[part.kind]
            fields = {f.name: f for f in kind.fields}
            for name in part.values:
                if name not in fields:
                    errs.append(Problem("unknown_field", f"{path}.{name}", {"allowed": ", ".join(fields) or "—"}))
            for f in kind.fields:
                bad = parts.field_problem(f, parts.value(part, f), f"{path}.{f.name}")
                if bad is not None:
                    errs.append(bad)
            check = getattr(kind, "part_problems", None)
            if check is not None and not errs:
                kinds = kinds or table.resolve(sc)
                errs += check(sc, part, path, kinds)
    return errs


def repeats(sc: Any) -> list[Problem]:
    """A kind listed more than once in its family, named once at its first repeat (with how often
    and where it came first): the engine computes a kind's steps once, so a second RoPE (or QK-norm,
    cap, sink ...) would be silently ignored.  A kind whose parts combine says so (`combines = True`:
    each window narrows, each drawn mask adds its cells) and may repeat."""
    errs: list[Problem] = []
    for family in parts.FAMILIES:
        used = parts.of(sc, family)
        if len(used) < 2:
            continue
        known, seen = table.of_family(family), {}
        for i, part in enumerate(used):
            if isinstance(part, parts.Part) and part.kind in known and not getattr(known[part.kind], "combines", False):
                seen.setdefault(part.kind, []).append(i)
        for kind, at in sorted(seen.items(), key=lambda item: item[1][1:2]):  # in the order of the repeats
            if len(at) > 1:
                errs.append(Problem("part_twice", f"{family}[{at[1]}]",
                                    {"kind": kind, "n": len(at), "first": f"{family}[{at[0]}]"}))
    return errs
