"""Knock a head out, or patch it from another prompt, and see the prediction move: head interventions.

Head h's share of a layer's output is its slice of the concatenated heads times its columns of the output
projection:

    out = concat @ W_Oᵀ (+ b)          concat = [ctx_1 | ... | ctx_H]   (B, L, H·dv), W_O (d, H·dv)

- zero ablation: ctx_h := 0 (the same as zeroing head h's columns of W_O);
- mean ablation: ctx_h := its mean over the prompt's positions (the valid ones of a padded sentence);
- patching: ctx_h := ctx_h of another prompt of the same length, at the same layer (activation patching).

The engine computes `concat` (the step of that name) on the layer's scenario, the one the window opens for the
layer, so no attention is computed here; what the edit changes is added to the layer's own output:

    out' = out + (concat' − concat) @ W_Oᵀ

An edit that changes nothing adds exactly zero, so patching a head from the same prompt gives the same numbers
bit for bit.  The layer's own output comes from the model's `attend` hook (the engine, or the model's reference
attention for a model the size of SmolLM2); both must agree on the unedited layer, and `check_layer` refuses a
model whose scenario does not reproduce its attention instead of showing a wrong number.

Every decoder on the protocol of attention.models.decoder (`forward(ids, attend=...)`, `attention_weights`,
`config`) gets these edits without code of its own; a model whose layer needs more than
decoder_layer.layer_scenario says may offer `layer_scenario(normed, layer, start=..., dtype=...)` itself.  A BERT
encoder (MiniLM) is edited through BertModel.forward's `attend` hook and measured on its output states.
Layers and heads are counted from 0 here and from 1 in every word a person reads.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np
import torch

import attention.words as words
from attention.compute import threads
from attention.datamodel import numbers
from attention.models.decoder import Attend, DecoderForward
from attention.models.errors import ModelError

#: What a knocked head's output becomes.
HOWS = ("zero", "mean", "patch")
#: The largest difference between the engine's unedited layer and the model's own, relative to the output's size,
#: that is rounding (SmolLM2's float32 forward against the engine's float64: ~1e-6).
AGREE = 1e-3


@dataclass(frozen=True, order=True)
class HeadEdit:
    """One head of one layer, and what its output becomes (layer and head from 0)."""

    layer: int
    head: int
    how: str = "zero"

    def name(self) -> str:
        """'L2.H3' (from 1, as the window's grid labels its cells)."""
        return f"L{numbers.position(self.layer)}.H{numbers.position(self.head)}"

    def label(self, lang: Optional[str] = None, short: bool = False) -> str:
        """'L2.H3 set to its mean over the positions' / 'L2.H3 取其在各位置上的均值'; `short`: 'L2.H3 mean' (titles)."""
        return words.text(f"heads_{'short' if short else 'how'}_{self.how}", lang, head=self.name())


Edits = tuple[HeadEdit, ...]


def sizes(model: Any) -> tuple[int, int]:
    """(layers, heads) of a decoder or an encoder."""
    c = model.config
    return int(c.n_layers), int(c.n_heads)


def parse_head(text: str, n_layers: Optional[int] = None, n_heads: Optional[int] = None) -> tuple[int, int]:
    """'L.H' counted from 1 (as the window) -> (layer, head) from 0; ModelError naming what is wrong.  Without the
    sizes only the form is checked (the CLI does so before a model loads)."""
    parts = str(text).strip().split(".")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ModelError("heads_bad_head", got=text)
    layer, head = int(parts[0]), int(parts[1])
    if layer < 1 or head < 1:
        raise ModelError("heads_from_one", got=text)
    if n_layers is not None and layer > n_layers:
        raise ModelError("heads_layer_range", got=text, layer=layer, count=n_layers)
    if n_heads is not None and head > n_heads:
        raise ModelError("heads_head_range", got=text, head=head, count=n_heads)
    return layer - 1, head - 1


def engine_draws(model: Any) -> bool:
    """Whether a run computes every layer through the engine in float64 (glassllm's four small layers, as the
    window draws them) rather than with the model's own attention in float32 (SmolLM2, Gemma 3, an imported
    decoder: the knocked layers' concat still comes from the engine)."""
    return type(model).__name__ == "GlassDecoder"


def check_edits(edits: Iterable[HeadEdit], n_layers: int, n_heads: int) -> Edits:
    """The edits sorted, one per head (a later one replaces an earlier of the same head); out of range: ModelError."""
    kept: dict[tuple[int, int], HeadEdit] = {}
    for e in edits:
        if e.how not in HOWS:
            raise ModelError("heads_bad_how", how=e.how, hows=", ".join(HOWS))
        if not 0 <= e.layer < n_layers or not 0 <= e.head < n_heads:
            raise ModelError("heads_head_range", got=e.name(), head=e.head + 1, count=n_heads) \
                if 0 <= e.layer < n_layers else ModelError("heads_layer_range", got=e.name(), layer=e.layer + 1,
                                                             count=n_layers)
        kept[(e.layer, e.head)] = e
    return tuple(sorted(kept.values()))


# ---- one layer through the engine -------------------------------------------------------------------------
def is_encoder(model: Any) -> bool:
    """A BERT-family encoder (bidirectional, measured on its output states) rather than a decoder."""
    return hasattr(model, "layer_weights") and not hasattr(model, "attention_weights")


def layer_trace(model: Any, k: int, x: torch.Tensor, start: int = 0, valid_lens: Optional[np.ndarray] = None):
    """Layer k on its input x (B, L, d) through the engine in float64: the scenario the window opens for the layer
    (a decoder's RMS-normed input with RoPE from `start`; an encoder's hidden states with its padding)."""
    from attention.compute.engine import run

    a = x.detach().double().cpu().numpy()
    if is_encoder(model):
        from attention.models.bert import MASK_FILL
        from attention.models.layer import to_scenario

        padded = None if valid_lens is None or int(np.min(valid_lens)) >= a.shape[1] else np.asarray(valid_lens)
        sc = to_scenario(model.layer_weights(k), a, valid_lens=padded, fill_value=MASK_FILL, dtype="float64")
    else:
        own = getattr(model, "layer_scenario", None)
        if own is not None:
            sc = own(a, k, start=start, dtype="float64")
        else:
            from attention.models.decoder_layer import layer_scenario

            sc = layer_scenario(model, a, k, start=start, dtype="float64")
    return run(sc, device="cpu")


@dataclass(frozen=True)
class LayerHeads:
    """What the engine computed of one layer that edits need: concat (B, L, H·dv), W_O (d, H·dv), output (B, L, d)."""

    concat: torch.Tensor
    W_O: torch.Tensor
    output: torch.Tensor
    weights: torch.Tensor  # (B, H, L, S)
    n_heads: int

    @classmethod
    def of(cls, trace) -> "LayerHeads":
        return cls(torch.from_numpy(np.asarray(trace.array("concat"))), trace.parameters["projection.out.weight"],
                   torch.from_numpy(np.asarray(trace.array("output"))),
                   torch.from_numpy(np.asarray(trace.array("attention_weights"))), int(trace.options["n_heads"]))

    def columns(self, head: int) -> slice:
        dv = self.concat.shape[-1] // self.n_heads
        return slice(head * dv, (head + 1) * dv)

    def replaced(self, plan: dict[int, str], source: Optional[torch.Tensor] = None,
                 valid_lens: Optional[np.ndarray] = None) -> torch.Tensor:
        """concat with the planned heads' columns replaced ({head: how}); `source` is the other prompt's concat."""
        new = self.concat.clone()
        for head, how in plan.items():
            cols = self.columns(head)
            if how == "zero":
                new[..., cols] = 0.0
            elif how == "mean":
                new[..., cols] = position_mean(self.concat[..., cols], valid_lens)
            else:
                if source is None:
                    raise ModelError("heads_patch_missing")
                new[..., cols] = source[..., cols]
        return new

    def change(self, new_concat: torch.Tensor) -> torch.Tensor:
        """(concat' − concat) @ W_Oᵀ: what an edit adds to the layer's output (B, L, d); no bias (it cancels)."""
        from attention.ops.steps import project  # the engine's own output projection

        return project(new_concat - self.concat, self.W_O, None)


def position_mean(x: torch.Tensor, valid_lens: Optional[np.ndarray] = None) -> torch.Tensor:
    """x (B, L, w) -> its mean over the positions of each item (the first valid_lens[b] of item b), (B, 1, w)."""
    if valid_lens is None:
        return x.mean(dim=1, keepdim=True)
    lens = torch.as_tensor(np.asarray(valid_lens), dtype=torch.long)
    keep = (torch.arange(x.shape[1])[None, :] < lens[:, None]).to(x.dtype)[..., None]  # (B, L, 1)
    return (x * keep).sum(dim=1, keepdim=True) / lens.to(x.dtype)[:, None, None]


def check_layer(model: Any, k: int, own: torch.Tensor, engine: torch.Tensor) -> None:
    """The model's own output of layer k must be the engine's (rounding aside): else its scenario is not its layer."""
    diff = float((own.double() - engine.double()).abs().max())
    scale = 1.0 + float(engine.abs().max())
    if not math.isfinite(diff) or diff > AGREE * scale:
        raise ModelError("heads_mismatch", model=getattr(model, "name", "?"), layer=k + 1, diff=numbers.rounded(diff))


def plans(edits: Edits) -> dict[int, dict[int, str]]:
    """{layer: {head: how}}."""
    out: dict[int, dict[int, str]] = {}
    for e in edits:
        out.setdefault(e.layer, {})[e.head] = e.how
    return out


# ---- decoders ----------------------------------------------------------------------------------------------
def base_attend(model: Any, engine: bool) -> Attend:
    """The attend hook a run uses: every layer through the engine, or the model's own reference attention (a
    decoder without one runs through the engine)."""
    if engine or not hasattr(model, "reference_attention"):
        from attention.models.decoder_layer import engine_attend

        return engine_attend(model)
    return lambda k, h, start: model.reference_attention(k, h, start)


class EditedAttend:
    """An `Attend` hook that computes each layer as `base` does and applies the edits of its layer (see module)."""

    def __init__(self, model: Any, edits: Edits, base: Attend, engine: bool = False,
                 source: Optional["PatchSource"] = None, cancelled: Optional[Callable[[], bool]] = None):
        self.model, self.base, self.engine, self.source = model, base, engine, source
        self.plan = plans(edits)
        self.cancelled = cancelled
        self.layers: dict[int, LayerHeads] = {}  # the edited layers as the engine computed them (unedited)

    def __call__(self, k: int, h: torch.Tensor, start: int) -> tuple[torch.Tensor, torch.Tensor]:
        if self.cancelled is not None and self.cancelled():
            raise Cancelled()
        plan = self.plan.get(k)
        if not plan:
            return self.base(k, h, start)
        heads = LayerHeads.of(layer_trace(self.model, k, h, start))
        if self.engine:
            out, w = heads.output.to(h.dtype), heads.weights.to(h.dtype)
        else:
            out, w = self.base(k, h, start)
            check_layer(self.model, k, out, heads.output)
        self.layers[k] = heads
        source = self.source.concat(k) if self.source is not None and "patch" in plan.values() else None
        return out + heads.change(heads.replaced(plan, source)).to(out.dtype), w


class Cancelled(Exception):
    """A long sweep was cancelled by the person (the map's Cancel)."""


class PatchSource:
    """The other prompt of a patch: its clean run, and each layer's concat through the engine when first asked."""

    def __init__(self, model: Any, ids: Sequence[int], base: Attend, dtype: torch.dtype, length: int,
                 forward: Optional[DecoderForward] = None):
        if len(ids) != length:
            raise ModelError("heads_patch_length", n=length, m=len(ids))
        self.model, self.ids = model, list(ids)
        self.forward = forward if forward is not None else run_forward(model, self.ids, base, dtype)
        self._concat: dict[int, torch.Tensor] = {}

    def concat(self, k: int) -> torch.Tensor:
        if k not in self._concat:
            self._concat[k] = LayerHeads.of(layer_trace(self.model, k, self.forward.normed[k])).concat
        return self._concat[k]


def run_forward(model: Any, ids: Sequence[int], attend: Attend, dtype: torch.dtype, **kw) -> DecoderForward:
    """model.forward with the keywords it takes of `dtype` and `kw` (the protocol needs only `ids` and `attend`: a
    decoder without `last_logits` computes every position's logits, one without `dtype` runs in its own)."""
    import inspect

    takes = inspect.signature(model.forward).parameters
    kw = {"dtype": dtype, **kw}
    return model.forward(list(ids), attend=attend, **{k: v for k, v in kw.items() if k in takes})


def log_probs(logits: torch.Tensor) -> torch.Tensor:
    """log softmax of the last position's logits, in float64: (B, L, vocab) -> (B, vocab)."""
    return torch.log_softmax(logits[:, -1].double(), dim=-1)


@dataclass(frozen=True)
class Outcome:
    """A prompt before and after the edits: the next-token top 10 of each, and the chosen token (the top one
    before) with its probability and log-probability before and after.  With a patch, `answers` are the top
    tokens of the two prompts and `ld_*` the logit difference logit(answer 1) − logit(answer 2)."""

    edits: Edits
    before: DecoderForward
    after: DecoderForward
    top_before: list[tuple[int, str, float]]
    top_after: list[tuple[int, str, float]]
    chosen: tuple[int, str]
    logp_before: float
    logp_after: float
    answers: Optional[tuple[tuple[int, str], tuple[int, str]]] = None
    ld_before: Optional[float] = None
    ld_after: Optional[float] = None

    @property
    def p_before(self) -> float:
        return math.exp(self.logp_before)

    @property
    def p_after(self) -> float:
        return math.exp(self.logp_after)

    @property
    def dp(self) -> float:
        return self.p_after - self.p_before

    @property
    def dlogp(self) -> float:
        return self.logp_after - self.logp_before


def logit_difference(logits: torch.Tensor, a: int, b: int) -> torch.Tensor:
    """logit(a) − logit(b) after the last position, per item: (B, L, vocab) -> (B,)."""
    last = logits[:, -1].double()
    return last[:, a] - last[:, b]


def precision(engine: bool, dtype: Optional[torch.dtype] = None) -> torch.dtype:
    """The dtype of a run: as asked, else float64 through the engine and float32 with the model's own attention
    (how the window draws each: glassllm, SmolLM2)."""
    return dtype if dtype is not None else torch.float64 if engine else torch.float32


def knock(model: Any, ids: Sequence[int], edits: Iterable[HeadEdit], engine: bool = True,
          dtype: Optional[torch.dtype] = None, patch_ids: Optional[Sequence[int]] = None,
          before: Optional[DecoderForward] = None, n: int = 10) -> Outcome:
    """The decoder on `ids` with `edits` applied (layer by layer, each later layer reading the changed stream),
    against the unedited run (`before`, or computed here the same way), every run at one thread count."""
    with threads.held():
        return _knock(model, ids, edits, engine, dtype, patch_ids, before, n)


def _knock(model: Any, ids: Sequence[int], edits: Iterable[HeadEdit], engine: bool,
           dtype: Optional[torch.dtype], patch_ids: Optional[Sequence[int]], before: Optional[DecoderForward],
           n: int) -> Outcome:
    from attention.models.decoder_layer import next_tokens

    dtype = precision(engine, dtype)
    L, H = sizes(model)
    edits = check_edits(edits, L, H)
    base = base_attend(model, engine)
    if before is None:
        before = run_forward(model, ids, base, dtype)
    needs_source = patch_ids is not None
    if any(e.how == "patch" for e in edits) and not needs_source:
        raise ModelError("heads_patch_missing")
    source = PatchSource(model, patch_ids, base, dtype, len(ids)) if needs_source else None
    after = run_forward(model, ids, EditedAttend(model, edits, base, engine, source), dtype)
    chosen = int(torch.argmax(before.logits[0, -1]))
    lb, la = float(log_probs(before.logits)[0, chosen]), float(log_probs(after.logits)[0, chosen])
    out = dict(edits=edits, before=before, after=after, top_before=next_tokens(model, before.logits, n),
               top_after=next_tokens(model, after.logits, n), chosen=(chosen, model.token_labels([chosen])[0]),
               logp_before=lb, logp_after=la)
    if source is not None:
        other = int(torch.argmax(source.forward.logits[0, -1]))
        out["answers"] = ((chosen, out["chosen"][1]), (other, model.token_labels([other])[0]))
        out["ld_before"] = float(logit_difference(before.logits, chosen, other)[0])
        out["ld_after"] = float(logit_difference(after.logits, chosen, other)[0])
    return Outcome(**out)


def layer_changes(before: DecoderForward, after: DecoderForward) -> list[tuple[float, float]]:
    """Per layer (largest |Δ| of its normed input, largest |Δ| of its attention weights): what the steps of the
    later layers show changed."""
    return [(float((a - b).abs().max()), float((wa - wb).abs().max()))
            for a, b, wa, wb in zip(after.normed, before.normed, after.weights, before.weights)]


# ---- encoders (MiniLM): measured on the output states ----------------------------------------------------------
def edited_encoder_attend(model: Any, edits: Edits, source: Optional[Callable[[int], torch.Tensor]] = None):
    """BertModel.forward's `attend` hook with the edits (zero / mean over each sentence's valid tokens / patch)."""
    plan = plans(edits)

    def attend(k: int, x: torch.Tensor, keep: torch.Tensor):
        out, w = model._attention(x, keep, k)
        p = plan.get(k)
        if not p:
            return out, w
        lens = keep.sum(dim=1).numpy()
        heads = LayerHeads.of(layer_trace(model, k, x, valid_lens=lens))
        check_layer(model, k, out, heads.output)
        src = source(k) if source is not None and "patch" in p.values() else None
        return out + heads.change(heads.replaced(p, src, lens)).to(out.dtype), w

    return attend


@dataclass(frozen=True)
class StateChange:
    """An encoder's output states before and after: per token ‖Δh‖ / ‖h‖, and per sentence the cosine of the
    mean-pooled sentence embeddings (all-MiniLM-L6-v2's own pooling: the mean over the valid tokens)."""

    edits: Edits
    before: Any  # bert.Forward
    after: Any
    relative: np.ndarray  # (B, L): zero at padding
    cosine: np.ndarray  # (B,)


def knock_sentences(model: Any, batch: Any, edits: Iterable[HeadEdit], source_batch: Any = None,
                    before: Any = None) -> StateChange:
    """The encoder on a sentence batch (sentences.Batch) with `edits`, against the unedited pass."""
    L, H = sizes(model)
    edits = check_edits(edits, L, H)
    if before is None:
        before = model.forward(batch.ids, batch.valid_lens, batch.type_ids)
    source = None
    if any(e.how == "patch" for e in edits):
        if source_batch is None:
            raise ModelError("heads_patch_missing")
        if source_batch.ids.shape != batch.ids.shape or not np.array_equal(source_batch.valid_lens, batch.valid_lens):
            raise ModelError("heads_patch_length", n=int(batch.valid_lens.max()), m=int(source_batch.valid_lens.max()))
        other = model.forward(source_batch.ids, source_batch.valid_lens, source_batch.type_ids)

        def source(k: int) -> torch.Tensor:
            return LayerHeads.of(layer_trace(model, k, torch.from_numpy(other.hidden[k]),
                                             valid_lens=source_batch.valid_lens)).concat

    after = model.forward(batch.ids, batch.valid_lens, batch.type_ids, attend=edited_encoder_attend(model, edits,
                                                                                                     source))
    hb, ha = before.hidden[-1].astype(np.float64), after.hidden[-1].astype(np.float64)  # (B, L, d)
    keep = np.arange(hb.shape[1])[None, :] < np.asarray(batch.valid_lens)[:, None]
    rel = np.where(keep, np.linalg.norm(ha - hb, axis=-1) / np.maximum(np.linalg.norm(hb, axis=-1), 1e-30), 0.0)
    pool = keep[..., None].astype(np.float64)
    eb, ea = (hb * pool).sum(1) / pool.sum(1), (ha * pool).sum(1) / pool.sum(1)  # (B, d)
    cos = (eb * ea).sum(-1) / (np.linalg.norm(eb, axis=-1) * np.linalg.norm(ea, axis=-1))
    return StateChange(edits, before, after, rel, cos)
