"""Gemma 3 in the model view: a decoder session whose local layers' window a teacher may narrow.  Qt-free.

Everything a DecoderSession does (the prompt, the 18 x 4 grid drawn by the model's own float32 forward, the open
layer through the engine as the document, Next token through the model's KV cache, rollout) holds as it is; this
adds what Gemma 3 has and a Llama has not:

- every layer is local (window 512, RoPE base 10,000) or global (RoPE base 1,000,000): `layer_kinds` for the
  grid's rows, `layer_item` for the layer picker, the hover line and the legend say which;
- the teaching window: `window_run(W)` runs the prompt again through `model.with_window(W)` (the same weights);
  once accepted, every title, caption and note names the model altered (its own window is 512).  Each run
  remembers its window (`GemmaRun.window`), so undo / redo bring the window back with the run, and the runs kept
  for undo are named by window and ids.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import attention.words as words
from app.viewmodel.decoder_session import DecoderRun, DecoderSession
from attention.datamodel import numbers
from attention.models.errors import ModelError

#: what the prompt box holds when Gemma 3 is first opened (transformers: next token "，" 0.26)
PROMPT = ("注意力机制让模型在处理一个词时",)


def open_gguf(path) -> DecoderSession:
    """File ▸ Open model...'s session for a GGUF file: Gemma 3's for a gemma3 file (its local and global layers),
    else a Llama-family decoder's (DecoderSession.open_gguf); ModelError naming the file and the reason."""
    from attention.models.checkpoint import CheckpointError
    from attention.models.gguf_header import architecture

    try:
        gemma = architecture(path) == "gemma3"  # reads no further than that key
    except CheckpointError as e:
        raise ModelError(e.key, **e.args_) from None
    return GemmaSession.open(path, Path(path).stem) if gemma else DecoderSession.open_gguf(path)


@dataclass(frozen=True)
class GemmaRun(DecoderRun):
    """A run and the local window it was computed with."""

    window: int = 512


@dataclass
class GemmaSession(DecoderSession):
    """An opened Gemma 3 and the choices made on it (the teaching window among them)."""

    @classmethod
    def open(cls, path, label: Optional[str] = None) -> "GemmaSession":
        """The gemma3 GGUF at `path` (gemma3.load; `label`: what titles call it, the bundled model's name by default);
        ModelError naming the file and the reason when it cannot be read."""
        from attention.models import gemma3
        from attention.models.checkpoint import CheckpointError

        try:
            model = gemma3.load(path, label or gemma3.LABEL)
        except CheckpointError as e:  # the same catalogue ids: the window words it in either language
            raise ModelError(e.key, **e.args_) from None
        return cls(model, model.tokenizer, model.spec.name, sentences=PROMPT, engine_layers=False)

    # ---- the teaching window ------------------------------------------------------------------------
    @property
    def window(self) -> int:
        return int(self.model.spec.window)

    @property
    def own_window(self) -> int:
        return int(self.model.spec.own_window)

    def altered(self) -> bool:
        return bool(self.model.spec.altered)

    def window_run(self, window: int) -> GemmaRun:
        """The shown ids run again with the local window `window` (safe on a worker: the session is left as it is;
        a copy of it holding the other window computes the run, knocked-out heads included)."""
        other = dataclasses.replace(self, model=self.model.with_window(window), generation=None)
        r = self.run
        ids = list(r.ids) if r is not None else other.model.encode(self.sentences[0])
        return other.run_ids(ids, r.batch.sentences[0] if r is not None else self.sentences[0])

    def _use_window(self, window: Optional[int]) -> None:
        """Make the model the one with local window `window` (its cache is the other window's: it starts again)."""
        if window is not None and window != self.window:
            self.model = self.model.with_window(window)
            self.generation, self.last_diff = None, None

    @staticmethod
    def _tagged(run: DecoderRun, window: int) -> GemmaRun:
        if isinstance(run, GemmaRun) and run.window == window:
            return run
        return GemmaRun(**{f.name: getattr(run, f.name) for f in dataclasses.fields(DecoderRun)}, window=window)

    # ---- runs carry their window ------------------------------------------------------------------------
    def run_ids(self, ids: list[int], text: str) -> GemmaRun:
        return self._tagged(super().run_ids(ids, text), self.window)

    def prepare_next(self, sample: bool = False, seed: int = 0):
        g, run = super().prepare_next(sample, seed)
        return g, self._tagged(run, self.window)

    def run_key(self, run) -> tuple:
        """(the run's window, what names it for a DecoderSession: its ids and the heads knocked out)."""
        return (run.window if isinstance(run, GemmaRun) else self.window), super().run_key(run)

    def rerun(self, state):
        """The run an undo step names, with the model at that step's window (restore has set it)."""
        return super().rerun(dataclasses.replace(state, key=state.key[1]))

    def accept(self, run) -> None:
        self._use_window(run.window if isinstance(run, GemmaRun) else None)
        super().accept(run)

    def restore(self, state) -> None:
        if state.key is not None:
            self._use_window(state.key[0])
        super().restore(state)
        self._use_window(self.run.window if isinstance(self.run, GemmaRun) else None)

    # ---- local and global layers, in every place that names a layer -----------------------------------------
    def layer_kinds(self) -> list[bool]:
        """Per layer: True for a global layer (the grid's ● rows), False for a local one (○)."""
        return list(self.model.spec.is_global)

    def layer_item(self, k: int, lang: Optional[str] = None) -> str:
        """'Layer 6 · global (every earlier token, RoPE base 1,000,000)' for the layer picker."""
        return words.text("gemma.layer_item", lang, layer=numbers.position(k), kind=self.model.spec.layer_kind(k, lang))

    def legend(self, lang: Optional[str] = None) -> str:
        """The grid's key: which rows (●) are global and which (○) local, with each one's window and base."""
        return self.model.spec.legend(lang)

    def legend_short(self, lang: Optional[str] = None) -> str:
        return self.model.spec.legend_short(lang)

    def cell_text(self, layer: int, head: int, r: int, c: int, template: str) -> str:
        return super().cell_text(layer, head, r, c, template) + " · " + self.model.spec.layer_kind(layer)

    def titled(self, title: str, lang: Optional[str] = None) -> str:
        text = super().titled(title, lang)
        if not self.altered():
            return text
        return words.text("gguf_titled", lang, title=text, weights=words.text(
            "gemma.window.altered", lang, window=numbers.grouped(self.window), own=numbers.grouped(self.own_window)))

    def weights_note(self, lang: Optional[str] = None) -> str:
        spec = self.model.spec
        return words.text("gguf_weights_short", lang, bits=spec.bits, kind=spec.storage) if spec.bits else ""

    def scenario(self, layer: Optional[int] = None):
        """The open layer through the engine (QK-norm, RoPE at its base, MQA, its window), its notes naming the
        file's mix of quantized blocks."""
        from attention.models.decoder_layer import layer_scenario

        if layer is not None:
            self.layer = layer
        r = self.run
        sc = layer_scenario(self.model, r.forward.hidden[self.layer], self.layer, r.batch.tokens[0],
                            text=r.batch.sentences[0])
        # the title names the model altered already (gemma3.title_name); it adds how the weights were stored
        title = {lang: words.text("gguf_titled", lang, title=sc.title[lang], weights=self.weights_note(lang))
                 for lang in words.LANGS}
        notes = {lang: sc.notes[lang] + "\n\n" + self.model.spec.weights_note(lang) for lang in words.LANGS}
        return dataclasses.replace(sc, title=title, notes=notes)
