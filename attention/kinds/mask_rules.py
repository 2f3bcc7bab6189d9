"""The mask rules: each one reason a key is hidden from a query.  True = masked, everywhere.

- causal: key s is masked when s > l, aligned at the top-left when L != S (as Informer's
  TriangularCausalMask and scaled_dot_product_attention's is_causal);
- valid lengths (d2l): key s is masked when s >= len, one length per batch item (B,) or per
  batch item and query row (B, L).

Each rule builds its own part of the (B, L, S) mask (`mask`), says from a trace's options why
one cell is masked or kept (`reason`), and writes its lines of the exported script (`script`);
the engine (`build`), explain, lessons, script export and capture all ask the rules that apply,
resolved once by the table (`Kinds.rules`).  torch is imported inside the functions that need it:
the registry is read before torch has loaded.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

import numpy as np

from attention.datamodel.fields import Field


def causal_part(L: int, S: int, dev=None):
    """(1, L, S) bool: key s after query l."""
    import torch

    s, l = torch.arange(S, device=dev), torch.arange(L, device=dev)
    return (s[None, :] > l[:, None])[None]


def length_part(lens, L: int, S: int, dev=None):
    """(B, L, S) bool: key s at or beyond the length; lens (B,) or (B, L), any numeric tensor."""
    import torch

    lens = lens.to(device=dev, dtype=torch.float64)
    lens = lens[:, None].expand(-1, L) if lens.dim() == 1 else lens  # (B, L)
    s = torch.arange(S, device=dev)
    return s[None, None, :] >= lens[:, :, None]


def _explain_words(key: str, **args) -> dict[str, str]:
    from attention.text import explanation as ex

    return ex._tx(key, **args)


class Causal:
    name = "causal"
    attribute = "causal"  # kept in the scenario's own attribute, not as a part (attention/datamodel/parts.py)
    fields = (Field("mask.causal", "bool", "field.mask.causal.label", "field.mask.causal.help", default=False,
                    group="mask", file_key="mask.causal"),)

    def applies(self, sc) -> bool:
        return bool(sc.causal)

    def applies_to(self, options: Mapping[str, Any]) -> bool:
        return bool(options.get("causal"))

    def mask(self, sc, B: int, L: int, S: int, dev=None):
        return causal_part(L, S, dev)  # (1, L, S), broadcast over the batch

    def reason(self, options: Mapping[str, Any], b: int, l: int, s: int) -> Optional[tuple[bool, dict[str, str]]]:
        if not self.applies_to(options):
            return None
        from attention.datamodel.numbers import position as P

        if s > l:
            return True, _explain_words("explain.mask.after_query", s=P(s), l=P(l))
        return False, _explain_words("explain.mask.not_after_query", s=P(s), l=P(l))

    def script(self, sc) -> str:
        return ("l_pos = torch.arange(L)\n"
                "mask |= (s_pos[None, :] > l_pos[:, None])[None]  # causal: key s masked when s > query l\n")

    def problems(self, sc) -> list:
        return []


class ValidLens:
    name = "valid_lens"
    attribute = "valid_lens"
    fields = (Field("mask.valid_lens", "matrix", "field.mask.valid_lens.label", "field.mask.valid_lens.help",
                    nullable=True, group="mask", file_key="mask.valid_lens"),)

    def applies(self, sc) -> bool:
        return sc.valid_lens is not None

    def applies_to(self, options: Mapping[str, Any]) -> bool:
        return options.get("valid_lens") is not None

    def mask(self, sc, B: int, L: int, S: int, dev=None):
        import torch

        lens = torch.as_tensor(np.asarray(sc.valid_lens, dtype=np.float64))
        return length_part(lens, L, S, dev)  # (B, L, S)

    def reason(self, options: Mapping[str, Any], b: int, l: int, s: int) -> Optional[tuple[bool, dict[str, str]]]:
        lens = options.get("valid_lens")
        if lens is None:
            return None
        from attention.datamodel.numbers import position as P

        two_d = isinstance(lens[0], list)
        n = lens[b][l] if two_d else lens[b]
        of = (_explain_words("explain.mask.of_row", b=P(b), l=P(l)) if two_d
              else _explain_words("explain.mask.of_item", b=P(b)))
        if s >= n:  # index s from 0: key s + 1 (a position from 1) lies beyond the length n
            return True, _explain_words("explain.mask.beyond_length", s=P(s), n=n, of=of)
        return False, _explain_words("explain.mask.within_length", s=P(s), n=n, of=of)

    def script(self, sc) -> str:
        if np.asarray(sc.valid_lens).ndim == 1:
            lens = "lens = valid_lens[:, None].expand(B, L)  # every query row of item b uses item b's length\n"
        else:
            lens = "lens = valid_lens  # one length per query row\n"
        return lens + "mask |= s_pos[None, None, :] >= lens[:, :, None]  # key s masked when s >= valid length\n"

    def problems(self, sc) -> list:
        from attention.datamodel.problem import Problem, index_path
        from attention.datamodel.problem import shape as _shape

        v = sc.valid_lens
        if v is None:
            return []
        B, L, S = sc.batch, sc.L, sc.S
        if v.ndim == 1 and v.shape != (B,) or v.ndim == 2 and v.shape != (B, L) or v.ndim not in (1, 2):
            return [Problem("valid_lens_shape", "valid_lens", {"B": B, "L": L, "got": _shape(v.shape)})]
        if not np.all(np.isfinite(v)) or np.any(v != np.round(v)):
            return [Problem("valid_lens_whole", "valid_lens")]
        for bad in (v < 0, v > S):
            if np.any(bad):
                idx = tuple(int(i) for i in np.argwhere(bad)[0])
                return [Problem("valid_len_range", index_path("valid_lens", idx), {"S": S, "got": int(v[idx])})]
        return []


VALID_LENS = ValidLens()
CAUSAL = Causal()
#: In the order their parts are combined and their reasons are said (lengths first, as d2l).
RULES = (VALID_LENS, CAUSAL)


def any_applies(sc, kinds) -> bool:
    """The `active` predicate of the mask's steps: some rule masks something (`kinds.rules`)."""
    return bool(kinds.rules)


def build(rules, sc, B: int, L: int, S: int, dev=None):
    """(B, L, S) bool, True where one of `rules` (those that apply to `sc`) masks; None for no rule."""
    import torch

    if not rules:
        return None
    mask = torch.zeros(B, L, S, dtype=torch.bool, device=dev)
    for rule in rules:
        mask |= rule.mask(sc, B, L, S, dev)
    return mask


def mask_step(run, step_id: str):
    """extra.mask: every rule's part, combined."""
    sc = run.sc
    return build(run.kinds.rules, sc, sc.batch, sc.L, sc.S, run.dev)


def fully_masked_step(run, step_id: str):
    """extra.fully_masked: query rows whose every key is masked, (B, L)."""
    return run.inputs["extra.mask"].all(dim=-1)


def reasons(rules, options: Mapping[str, Any], b: int, l: int,
            s: int) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(why masked, why kept) for key s of query l in batch item b, one reason per rule of `rules`
    (those that apply to the trace's options)."""
    masked, kept = [], []
    for rule in rules:
        said = rule.reason(options, b, l, s)
        if said is not None:
            (masked if said[0] else kept).append(said[1])
    return masked, kept


def script(plan) -> str:
    """The exported script's mask (True = this key is hidden from this query), or None."""
    sc, rules = plan.sc, plan.kinds.rules
    lines = ["# the mask: True = this key is hidden from this query\n"]
    if not rules:
        lines.append("mask = None  # no valid lengths, not causal: nothing is masked\n")
        return "".join(lines)
    lines.append("s_pos = torch.arange(S)  # key positions\n")
    lines.append("mask = torch.zeros(B, L, S, dtype=torch.bool)\n")
    lines += [r.script(sc) for r in rules]
    return "".join(lines)

