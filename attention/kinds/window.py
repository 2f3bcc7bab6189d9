"""Sliding-window attention (Mistral, Gemma 2/3 local layers, gpt-oss): a query sees only the last
W keys, itself included.

transformers (masking_utils.sliding_window_causal_mask_function) keeps key s for query l when
    s <= l            (causal_mask_function: kv_idx <= q_idx)
and s > l - W         (sliding_window_overlay: kv_idx > q_idx - sliding_window)
so query l sees s in (l - W, l]: exactly W keys once l >= W - 1 (its own and W - 1 before it).
Its flash-attention path agrees: window_size = (W - 1, ...) counts W - 1 keys to the left plus
the query's own.  (transformers before the masking_utils rewrite let the flash path see W + 1
keys while eager saw W; the eager/sdpa semantics above are the ones every current path shares.)

This rule masks only the "too far back" part, s <= l - W; the future part s > l is the causal
rule's, so that explain can say which rule hid a cell.  Sliding-window models always run it with
the causal rule (as transformers ANDs the two).  Top-left aligned like masks.build_mask's causal
rule: query row l is position l, key column s is position s.

Shapes: B batch, L queries, S keys.  True = masked, as everywhere in the engine.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional

from attention.datamodel.fields import Field

if TYPE_CHECKING:  # torch loads when first computing (the registry is read before torch has loaded)
    import torch


def window_mask(L: int, S: int, W: int, device: torch.device | None = None) -> torch.Tensor:
    """(L, S) bool: True where key s is more than W - 1 positions before query l (s <= l - W)."""
    import torch

    if W < 1:
        raise ValueError(f"window={W} must be >= 1")
    l = torch.arange(L, device=device)[:, None]  # (L, 1)
    s = torch.arange(S, device=device)[None, :]  # (1, S)
    return s <= l - W  # (L, S)


def sliding_window_causal_mask(L: int, S: int, W: int, device: torch.device | None = None) -> torch.Tensor:
    """(L, S) bool: the whole Mistral mask, window and causal together (visible iff l - W < s <= l)."""
    import torch

    l = torch.arange(L, device=device)[:, None]
    s = torch.arange(S, device=device)[None, :]
    return window_mask(L, S, W, device) | (s > l)


def masked_by_window(l: int, s: int, W: int) -> bool:
    """The rule for one cell, for explain: is key s too far back for query l?"""
    return s <= l - W


# ---- the mask rule (attention/kinds/base.py MaskRule) --------------------------------------------
# A part of the scenario: Part("window", {"size": W}); several windows: the narrowest decides.


def _sizes(sc: Any) -> list[int]:
    """The window sizes of the scenario's window parts (usually one)."""
    from attention.datamodel import parts

    return [int(parts.value(p, WINDOW.fields[0])) for p in parts.of(sc, "masks")
            if isinstance(p, parts.Part) and p.kind == WINDOW.name]


def _option_sizes(options: Mapping[str, Any]) -> list[int]:
    return [int(m["size"]) for m in options.get("masks") or () if m.get("kind") == WINDOW.name]


class Window:
    """Sliding window: query l sees only keys l - W < s <= l; this rule masks s <= l - W."""

    name = "window"
    in_panel = True  # the Parameters panel's "Position & modifiers" group offers it
    panel_start = {"size": 3}  # the panel's first window (the field has no default: files must give one)
    attribute = None  # a part of the scenario (Scenario.masks), not an attribute of its own
    combines = True  # several windows: the narrowest decides (attention.compute.check.repeats lets them repeat)
    fields = (Field("masks.size", "int", "field.masks.window.size.label", "field.masks.window.size.help",
                    minimum=1, maximum=2**31 - 1, group="masks"),)
    lesson_key = "lesson.extra.mask.window"

    def applies(self, sc: Any) -> bool:
        return bool(_sizes(sc))

    def applies_to(self, options: Mapping[str, Any]) -> bool:
        return bool(_option_sizes(options))

    def mask(self, sc: Any, B: int, L: int, S: int, dev=None) -> "torch.Tensor":
        import torch

        out = torch.zeros(1, L, S, dtype=torch.bool, device=dev)
        for W in _sizes(sc):
            out |= window_mask(L, S, W, dev)[None]  # (1, L, S), broadcast over the batch
        return out

    def reason(self, options: Mapping[str, Any], b: int, l: int, s: int) -> Optional[tuple[bool, dict[str, str]]]:
        sizes = _option_sizes(options)
        if not sizes:
            return None
        from attention.datamodel.numbers import position as P
        from attention.kinds.mask_rules import _explain_words

        W = min(sizes)  # the narrowest window decides
        if masked_by_window(l, s, W):
            return True, _explain_words("explain.mask.window_far", s=P(s), l=P(l), W=W, d=l - s)
        return False, _explain_words("explain.mask.window_near", s=P(s), l=P(l), W=W)

    def script(self, sc: Any) -> str:
        return "".join(f"W = {W}  # sliding window: query l sees keys l - W < s <= l\n"
                       "mask |= (s_pos[None, :] <= torch.arange(L)[:, None] - W)[None]  # too far back\n"
                       for W in _sizes(sc))

    def problems(self, sc: Any) -> list:
        return []  # the size is checked against its field by attention/datamodel/parts.py


WINDOW = Window()
