"""The head-importance map: every layer x head knocked out alone, and what that does to the next token.

    map[l, h] = log p_after(chosen) − log p_before(chosen)      chosen = the top next token before

(or, patching each head alone from a second prompt, the change of the logit difference between the two prompts'
answers).  Done the cheap way, which gives the same numbers as knocking each head out in a whole new forward:

- one unedited forward keeps the residual stream entering every layer and every layer's attention output;
- per layer l the engine computes its concat once (head_edits.LayerHeads); its H edited outputs are
  out_l + (concat'_h − concat) @ W_Oᵀ, one per head, stacked into a batch of H;
- the forward resumes at layer l on the kept residual (the decoder's `from_layer` / `resid`: the layers before l
  are not run again) with that batch, so the H variants share every matrix product of the later layers, and
  only the last position's logits are made where the decoder can (`last_logits`).

A decoder whose forward cannot resume replays the kept outputs of the layers before l instead (same numbers,
slower).  `progress(done, total)` is called after each layer; `cancelled()` is asked before each layer of every
forward, and a True ends the sweep with head_edits.Cancelled.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

import numpy as np
import torch

from attention.compute import threads
from attention.models.decoder import Attend, DecoderForward
from attention.models.head_edits import (
    Cancelled,
    LayerHeads,
    PatchSource,
    base_attend,
    check_layer,
    layer_trace,
    log_probs,
    logit_difference,
    precision,
    run_forward,
    sizes,
)

KINDS = ("knock", "patch")


@dataclass(frozen=True)
class HeadMap:
    """values (n_layers, H): Δ log p of the chosen token (kind "knock") or Δ logit difference ("patch")."""

    kind: str
    values: np.ndarray
    chosen: tuple[int, str]  # the top next token before
    base: float  # log p_before(chosen), or the logit difference before
    answers: Optional[tuple[tuple[int, str], tuple[int, str]]] = None  # "patch": the two prompts' top tokens

    def rows(self) -> list[tuple[int, int, float]]:
        """(layer, head, value), layers and heads from 1, layer by layer: the CSV's rows."""
        n_layers, n_heads = self.values.shape
        return [(k + 1, h + 1, float(self.values[k, h])) for k in range(n_layers) for h in range(n_heads)]


def _resumed(model: Any, ids: Sequence[int], attend: Attend, dtype: torch.dtype, layer: int,
             clean: DecoderForward) -> torch.Tensor:
    """Logits (B, 1 or L, vocab) of the forward from `layer` on the kept residual, `attend` from there on."""
    takes = inspect.signature(model.forward).parameters
    if "from_layer" in takes and "resid" in takes:
        return run_forward(model, ids, attend, dtype, from_layer=layer, resid=clean.resid[layer],
                           last_logits=True).logits

    def replay(k: int, h: torch.Tensor, start: int) -> tuple[torch.Tensor, torch.Tensor]:
        return (clean.attn_out[k], clean.weights[k]) if k < layer else attend(k, h, start)

    return run_forward(model, ids, replay, dtype, last_logits=True).logits


def sweep(model: Any, ids: Sequence[int], kind: str = "knock", engine: bool = True,
          dtype: Optional[torch.dtype] = None, patch_ids: Optional[Sequence[int]] = None,
          progress: Optional[Callable[[int, int], None]] = None, cancelled: Optional[Callable[[], bool]] = None,
          clean: Optional[DecoderForward] = None) -> HeadMap:
    """The map of `kind` over every layer x head (see the module); Cancelled when `cancelled()` says so.  Every
    run at one thread count (attention.compute.threads.held)."""
    with threads.held():
        return _sweep(model, ids, kind, engine, dtype, patch_ids, progress, cancelled, clean)


def _sweep(model: Any, ids: Sequence[int], kind: str, engine: bool, dtype: Optional[torch.dtype],
           patch_ids: Optional[Sequence[int]], progress: Optional[Callable[[int, int], None]],
           cancelled: Optional[Callable[[], bool]], clean: Optional[DecoderForward]) -> HeadMap:
    n_layers, n_heads = sizes(model)
    dtype = precision(engine, dtype)
    base = base_attend(model, engine)
    if clean is None:
        clean = run_forward(model, ids, base, dtype)
    chosen = int(torch.argmax(clean.logits[0, -1]))
    source = None
    if kind == "patch":
        source = PatchSource(model, patch_ids or [], base, dtype, len(ids))
        other = int(torch.argmax(source.forward.logits[0, -1]))
        answers = ((chosen, model.token_labels([chosen])[0]), (other, model.token_labels([other])[0]))

        def metric(logits: torch.Tensor) -> torch.Tensor:
            return logit_difference(logits, chosen, other)
    else:
        answers = None

        def metric(logits: torch.Tensor) -> torch.Tensor:
            return log_probs(logits)[:, chosen]

    before = float(metric(clean.logits)[0])
    values = np.zeros((n_layers, n_heads))

    def check() -> None:
        if cancelled is not None and cancelled():
            raise Cancelled()

    for layer in range(n_layers):
        check()
        heads = LayerHeads.of(layer_trace(model, layer, clean.normed[layer]))
        if not engine:
            check_layer(model, layer, clean.attn_out[layer], heads.output)
        src = source.concat(layer) if source is not None else None
        how = "patch" if kind == "patch" else "zero"
        edited = torch.cat([heads.replaced({h: how}, src) for h in range(n_heads)])  # (H, L, H·dv)
        out = clean.attn_out[layer] + heads.change(edited).to(clean.attn_out[layer].dtype)  # (H, L, d)
        w = clean.weights[layer].expand(n_heads, *clean.weights[layer].shape[1:])

        def attend(k: int, h: torch.Tensor, start: int, layer=layer, out=out, w=w):
            check()
            return (out, w) if k == layer else base(k, h, start)

        values[layer] = (metric(_resumed(model, ids, attend, dtype, layer, clean)) - before).numpy()
        if progress is not None:
            progress((layer + 1) * n_heads, n_layers * n_heads)
    return HeadMap(kind, values, (chosen, model.token_labels([chosen])[0]), before, answers)
