"""A decoder language model in the model view (glassllm, bundled): a prompt instead of sentences.

Qt-free.  It holds what ModelSession holds for an encoder, under the same names, so the Model dock
(app/models_view) shows either: `run.batch` (the prompt's tokens), `run.forward.attentions`
(n_layers, 1, H, L, L), `grid()`, `scenario(layer)`.  What a decoder adds: the next-token
distribution (`run.top`).  Every layer's attention is computed by the engine (the decoder's `attend`
hook is attention.models.decoder_layer.engine_attend), so the grid shows the engine's weights.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from app.viewmodel.model_session import ModelSession
from attention.models.decoder_layer import next_tokens

#: what the prompt box holds when glassllm is first opened (its training text is Lewis Carroll's)
DEFAULT_PROMPT = ("Alice was beginning to get very tired of sitting by her",)
TOP_N = 10


@dataclass(frozen=True)
class PromptBatch:
    """The prompt as the dock reads a batch: one item, no padding."""

    sentences: tuple[str, ...]
    tokens: tuple[tuple[str, ...], ...]
    valid_lens: np.ndarray  # (1,)

    @property
    def L(self) -> int:  # noqa: N802 (the batch's name for it)
        return int(self.valid_lens[0])


@dataclass(frozen=True)
class DecoderArrays:
    """attentions (n_layers, 1, H, L, L); hidden[k] (1, L, d) the RMS-normed input of layer k."""

    attentions: np.ndarray
    hidden: list[np.ndarray]


@dataclass(frozen=True)
class DecoderRun:
    batch: PromptBatch
    ids: tuple[int, ...]
    forward: DecoderArrays
    top: list[tuple[int, str, float]]  # the next token: (id, label, probability), most likely first


def prompt_of(sentences: tuple[str, ...]) -> str:
    """The prompt box's lines as one text (a decoder reads one sequence)."""
    return " ".join(s for s in sentences if s)


@dataclass
class DecoderSession(ModelSession):
    """An opened decoder and the choices made on it."""

    sentences: tuple[str, ...] = field(default=DEFAULT_PROMPT)
    is_decoder: bool = True
    generation: Any = None  # attention.models.kv_cache.Generation of the shown tokens (made on Next token)
    last_diff: Optional[float] = None  # the last step's cached-vs-full difference

    @classmethod
    def open_glassllm(cls) -> "DecoderSession":
        """glassllm's English model; attention.models.errors.ModelError when the package is missing."""
        from attention.models.glassllm import GlassDecoder

        model = GlassDecoder.load()
        label = "glassllm"
        model.name = label
        return cls(model, model.tokenizer, label)

    def token_count(self, sentences: tuple[str, ...]) -> int:
        return len(self.model.encode(prompt_of(sentences))) if prompt_of(sentences).strip() else 0

    def compute(self, sentences: tuple[str, ...]) -> DecoderRun:
        """Tokens, every layer through the engine, and the next-token distribution."""
        from attention.models.decoder_layer import run_prompt
        from attention.models.errors import ModelError

        text = prompt_of(sentences)
        if not text.strip():
            raise ModelError("model_no_tokens")
        ids = self.model.encode(text)
        f = run_prompt(self.model, ids)
        return self._run_from(f, ids, text)

    def _run_from(self, f, ids, text: str) -> DecoderRun:
        """The run the dock shows, from a DecoderForward of `ids`."""
        labels = tuple(self.model.token_labels(ids))
        att = np.stack([w.numpy() for w in f.weights])  # (n_layers, 1, H, L, L)
        arrays = DecoderArrays(att, [h.numpy() for h in f.normed])
        batch = PromptBatch((text,), (labels,), np.array([len(ids)], dtype=np.int64))
        return DecoderRun(batch, tuple(ids), arrays, next_tokens(self.model, f.logits))

    def scenario(self, layer: Optional[int] = None):
        """The open layer (or `layer`) on the normed hidden states entering it, with its real weights."""
        from attention.models.decoder_layer import layer_scenario

        if layer is not None:
            self.layer = layer
        r = self.run
        return layer_scenario(self.model, r.forward.hidden[self.layer], self.layer, r.batch.tokens[0],
                              text=r.batch.sentences[0])

    def next_token(self, sample: bool = False, seed: int = 0) -> DecoderRun:
        """Append the next token through the KV cache (only its position runs), check it against a full
        recomputation (`last_diff`), and return the run of the longer text."""
        from attention.models.kv_cache import Generation

        g = self.generation
        if g is None or tuple(g.ids) != tuple(self.run.ids):
            g = self.generation = Generation(self.model, list(self.run.ids))
        g.next(sample, seed)
        self.last_diff = g.check()
        return self._run_from(g.full, list(g.ids), self.model.tokenizer.decode(list(g.ids)))

    def run_key(self, run) -> tuple[int, ...]:
        """A decoder's run is named by its token ids: a generated text need not tokenize back to them."""
        return tuple(run.ids)

    def rerun(self, state):
        """The run of the ids in `state`, every layer through the engine again (as `compute` and the
        cached-vs-full check make it)."""
        from attention.models.decoder_layer import run_prompt

        ids = list(state.key)
        return self._run_from(run_prompt(self.model, ids), ids, state.sentences[0])

    def accept(self, run) -> None:
        super().accept(run)
        if self.generation is not None and tuple(self.generation.ids) != tuple(run.ids):
            self.generation, self.last_diff = None, None  # a typed prompt: the cache starts again

    def next_text(self) -> list[tuple[str, float]]:
        """The next-token distribution as (token, probability), most likely first."""
        return [(label, p) for _, label, p in self.run.top] if self.run is not None else []
