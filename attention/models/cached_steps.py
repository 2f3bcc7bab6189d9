"""Next token for a decoder whose own forward draws the model view (a GGUF decoder such as SmolLM2): its KV cache.

Why not kv_cache.Generation: that one runs every layer's new position through the engine as a scenario, in
float64 (30 engine traces a token for SmolLM2, ~0.45 s; and its check recomputes all positions through the
engine, ~0.7 s).  Here the model's own float32 attention (attention.models.llama, `forward(ids, cache=...)`)
keeps the cache (llama.KVCache: per layer keys after RoPE and values, (1, S, H_kv, E)) and reads only the new
position through every layer: one token costs one position's matrix-vector products with the weights
(SmolLM2: ~70 ms CPU on one core, mostly reading 540 MB of float32 weights).  The layer a person opens still
goes through the engine, as the document's scenario.

The model view's cache panes read a CachedGeneration as they read kv_cache.Generation: `model`, `ids`, `keys` /
`values` per layer (1, S, H_kv·E), `last` (StepRecord: the new query's (1, H, 1, S) weight row per layer).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np
import torch

from attention.models.decoder_layer import next_tokens
from attention.models.kv_cache import StepRecord
from attention.models.llama import KVCache


@dataclass
class CachedGeneration:
    """A prompt and the tokens after it, with the model's own cache."""

    model: Any  # attention.models.llama.LlamaDecoder
    ids: list[int]
    cache: KVCache
    logits: torch.Tensor  # (vocab,) after the last position
    last: Optional[StepRecord] = None  # the last step
    step: Any = None  # DecoderForward of the last new position: normed[k] (1, 1, d), weights[k] (1, H, 1, S)
    rope_applied: bool = True  # its K are rotated (the model's cache); kv_cache.Generation's are not
    float32: bool = True
    checking: bool = False  # the window's flag: a check against a full recomputation is on its way

    @classmethod
    def start(cls, model: Any, ids: Sequence[int], cache: Optional[KVCache] = None,
              logits: Optional[torch.Tensor] = None) -> "CachedGeneration":
        """From the cache a forward over `ids` filled (with the logits after its last position), else reading
        `ids` again."""
        if cache is None or logits is None or cache.length != len(ids):
            cache = KVCache()
            logits = model.forward(list(ids), cache=cache, last_logits=True).logits[0, -1]
        return cls(model, list(ids), cache, logits)

    def snapshot(self) -> KVCache:
        """The cache as it is now.  Its lists are copied; its tensors are shared, never changed in place (a step
        replaces a layer's entry by a longer one), so later steps leave the snapshot as it is."""
        return KVCache(list(self.cache.keys), list(self.cache.values))

    def fork(self) -> "CachedGeneration":
        """A copy whose steps leave this one (and the run it came from: undo) as they are."""
        return dataclasses.replace(self, ids=list(self.ids), cache=self.snapshot(), checking=False)

    @property
    def keys(self) -> list[np.ndarray]:
        return [k.reshape(1, k.shape[1], -1).numpy() for k in self.cache.keys]  # (1, S, H_kv·E) views

    @property
    def values(self) -> list[np.ndarray]:
        return [v.reshape(1, v.shape[1], -1).numpy() for v in self.cache.values]

    def next(self, sample: bool = False, seed: int = 0) -> StepRecord:
        """Append the greedy (or seeded sampled, drawn as kv_cache.Generation draws) token; only its position
        runs through the layers."""
        p = torch.softmax(self.logits.double(), dim=-1)
        if sample:
            g = torch.Generator().manual_seed(int(np.random.SeedSequence([seed, len(self.ids)]).generate_state(1)[0]))
            token = int(torch.multinomial(p, 1, generator=g))
        else:
            token = int(torch.argmax(p))
        position = len(self.ids)
        f = self.step = self.model.forward([token], cache=self.cache)
        self.ids.append(token)
        self.logits = f.logits[0, -1]
        rows = [w.numpy() for w in f.weights]  # (1, H, 1, S) per layer
        self.last = StepRecord(token, self.model.token_labels([token])[0], position, rows,
                               next_tokens(self.model, f.logits))
        return self.last

    def check_input(self) -> tuple:
        """What check_step needs, taken now (the generation may step again while the check runs)."""
        return self.model, tuple(self.ids), self.logits, list(self.last.rows) if self.last else []


def check_step(model: Any, ids: Sequence[int], logits: torch.Tensor, rows: list[np.ndarray]) -> float:
    """Largest difference between cached decoding and a full recomputation (the model's own float32 forward over
    every position): the last step's weight rows and the logits after the last token.  A full pass: the window
    runs it off the GUI thread."""
    full = model.forward(list(ids), last_logits=True)
    diff = float((full.logits[0, -1] - logits).abs().max())
    for k, row in enumerate(rows):
        diff = max(diff, float(np.abs(full.weights[k][:, :, -1:, :].numpy() - row).max()))
    return diff
