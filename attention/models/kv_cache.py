"""Generation with a visible KV cache: each new token runs only its own position through the layers.

Why: a decoder that has read N tokens need not read them again for token N + 1; per layer it keeps the
keys and values of the positions it has seen (the KV cache) and the new position's query attends over
them.  The explorer shows that cache as real tensors: per layer the cached key projections K (1, S, H_kv·E,
before RoPE; the engine turns them at their positions) and values V (1, S, H_kv·E), the new query's 1 × S
weight row per head, and the largest difference between cached decoding and a full recomputation.

A cached step of layer k is an ordinary scenario the engine runs: the new position's normed input as the
query (with the layer's query and output projections), the cached K and V as keys and values (their
projections are done once, when their token was new), n_kv_heads, a RoPE part with offset = the new
position and key_offset 0.  So the attention math stays in the engine; this module only keeps the cache
and projects each new token's key and value once (h @ W_kᵀ, h @ W_vᵀ).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import torch

from attention.compute.engine import run
from attention.datamodel.parts import Part
from attention.datamodel.scenario import Projection, Scenario
from attention.kinds.rope import ROPE
from attention.models.decoder_layer import engine_attend, next_tokens, pairing_of


@dataclass
class StepRecord:
    """What the last cached step saw: per layer the weights (1, H, 1, S) of the new query."""

    token: int
    label: str
    position: int
    rows: list[np.ndarray]
    top: list[tuple[int, str, float]]


@dataclass
class Generation:
    """A prompt and the tokens generated after it, with the cache kept per layer."""

    model: Any
    ids: list[int]
    keys: list[np.ndarray] = field(default_factory=list)  # per layer (1, S, H_kv·E), before RoPE
    values: list[np.ndarray] = field(default_factory=list)  # per layer (1, S, H_kv·E)
    logits: Optional[torch.Tensor] = None  # (vocab,) after the last position
    last: Optional[StepRecord] = None
    full: Any = None  # the last check's full recomputation (DecoderForward of every position)

    @property
    def length(self) -> int:
        return int(self.keys[0].shape[1]) if self.keys else 0

    # ---- filling the cache -------------------------------------------------------------------
    def prefill(self) -> None:
        """Read the prompt once (the engine through the attend hook) and keep every layer's K and V."""
        f = self.model.forward(self.ids, attend=engine_attend(self.model), dtype=torch.float64)
        self.keys, self.values = [], []
        for k, h in enumerate(f.normed):
            kk, vv = self._project(k, h.numpy())
            self.keys.append(kk)
            self.values.append(vv)
        self.logits = f.logits[0, -1]
        self.last = None

    def _project(self, k: int, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The key and value projections of normed inputs h (1, n, d): done once per token."""
        w = self.model.attention_weights(k)
        return h @ w["key"].T, h @ w["value"].T  # (1, n, H_kv·E) each

    # ---- one step --------------------------------------------------------------------------------
    def step_scenario(self, k: int, h: np.ndarray) -> Scenario:
        """Layer k for the new position only: query h (1, 1, d) over the cached K, V (which include it)."""
        c = self.model.config
        w = self.model.attention_weights(k)
        pos = int(self.keys[k].shape[1]) - 1  # the new position: the cache already holds its key
        return Scenario(queries=h, keys=self.keys[k], values=self.values[k], n_heads=c.n_heads,
                        n_kv_heads=c.n_kv_heads, d_keys=c.head_dim, d_values=c.head_dim,
                        projections={"query": Projection(w["query"], None), "out": Projection(w["out"], None)},
                        positions=(Part(ROPE.name, {"base": float(c.rope_base), "pairing": pairing_of(self.model),
                                                 "offset": int(pos), "key_offset": 0}),),
                        dtype="float64")

    def next(self, sample: bool = False, seed: int = 0) -> StepRecord:
        """Append the greedy (or seeded sampled) next token and run only its position through the cache."""
        if self.logits is None:
            self.prefill()
        p = torch.softmax(self.logits.double(), dim=-1)
        if sample:
            g = torch.Generator().manual_seed(int(np.random.SeedSequence([seed, len(self.ids)]).generate_state(1)[0]))
            token = int(torch.multinomial(p, 1, generator=g))
        else:
            token = int(torch.argmax(p))
        position = len(self.ids)
        rows: list[np.ndarray] = []

        def attend(k: int, h: torch.Tensor, start: int) -> tuple[torch.Tensor, torch.Tensor]:
            x = h.numpy()  # (1, 1, d)
            kk, vv = self._project(k, x)
            self.keys[k] = np.concatenate([self.keys[k], kk], axis=1)  # the cache grows by one position
            self.values[k] = np.concatenate([self.values[k], vv], axis=1)
            t = run(self.step_scenario(k, x), device="cpu")
            wr = np.asarray(t.array("attention_weights"))  # (1, H, 1, S)
            rows.append(wr)
            return torch.from_numpy(np.asarray(t.array("output"))), torch.from_numpy(wr)

        f = self.model.forward([token], attend=attend, dtype=torch.float64, start=position)
        self.ids.append(token)
        self.logits = f.logits[0, -1]
        self.last = StepRecord(token, self.model.token_labels([token])[0], position, rows,
                               next_tokens(self.model, f.logits))
        return self.last

    # ---- the check ----------------------------------------------------------------------------------
    def check(self) -> float:
        """Largest difference between cached decoding and a full recomputation of every position: the
        last step's weight rows and the logits after the last token."""
        full = self.full = self.model.forward(self.ids, attend=engine_attend(self.model), dtype=torch.float64)
        diff = float((full.logits[0, -1] - self.logits).abs().max())
        if self.last is not None:
            for k, row in enumerate(self.last.rows):
                diff = max(diff, float(np.abs(full.weights[k][:, :, -1:, :].numpy() - row).max()))
        return diff
