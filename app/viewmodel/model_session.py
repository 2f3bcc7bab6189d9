"""A loaded real model and what the person chose: sentences, the open layer, the focused head.

Qt-free half of the model view (app/models_view): the widget draws `grid()` and asks
`hover_text`; the window turns `scenario()` into the document.  The model, its tokenizer and
the forward pass live in attention.models and are imported only when a model is opened, so
the window starts without torch (it imports torch on a thread of its own).
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Hashable, Optional

import numpy as np

from attention.datamodel import numbers

if TYPE_CHECKING:
    from attention import Scenario
    from attention.models.sentences import ModelRun

#: what the Sentence box holds when a model is first opened (two sentences: a padded batch)
DEFAULT_SENTENCES = ("The cat sat on the mat because it was tired.", "Attention is all you need.")
#: B*L up to which a sentence edit runs on the GUI thread (the whole forward takes a few ms)
SYNC_TOKENS = 64
#: What the grid shows of a sentence pair, as BertViz's head_view filter with sentence_b_start:
#: every query and key, or rows (queries) from one sentence and columns (keys) from one
FILTERS = ("all", "aa", "ab", "ba", "bb")
#: runs kept for undo / redo without a forward pass (the shown one and the newest before it); older
#: undo steps recompute theirs from the sentences (issue 17: 100 edits of 128 tokens kept 250 MB)
RUNS_KEPT = 3


def sentence_lines(text: str) -> tuple[str, ...]:
    """The Sentence box's text as sentences: one per non-empty line."""
    return tuple(line.strip() for line in text.splitlines() if line.strip())


@dataclass(frozen=True)
class ModelState:
    """What the model view shows, as one value: an undo step keeps the one before and after it,
    so Undo brings back the sentences, the grid and the pickers together with the step panes.

    It names the run by `key` (the sentences, or a decoder's token ids) instead of holding its
    arrays: a 128-token run is 6 MB, and the undo history keeps two states a step.  `restore`
    takes the run from the session's few kept runs or runs the model again."""

    key: Optional[Hashable]  # ModelSession.run_key of the run shown (None: none yet)
    layer: int
    head: int
    item: int
    sentences: tuple[str, ...]
    edits: tuple = ()  # the altered heads (attention.models.head_edits.HeadEdit); (): the model as trained
    second: str = ""  # the second prompt that patched heads take their outputs from

    def nbytes(self) -> int:
        """Bytes this state keeps alive beyond the session (the undo budget counts them): none, no arrays."""
        return 0


@dataclass
class ModelSession:
    """One opened model folder and the choices made on it."""

    model: Any  # attention.models.bert.BertModel
    tokenizer: Any  # attention.models.tokenizer.SentenceTokenizer
    label: str  # what the window calls it ("MiniLM (bundled)" or the folder's name)
    run: Optional["ModelRun"] = None
    layer: int = 0
    head: int = -1  # -1: all heads side by side
    item: int = 0  # which sentence the model view shows
    sentences: tuple[str, ...] = field(default=DEFAULT_SENTENCES)
    pair: bool = False  # two sentences run as one BERT sentence pair, not as a padded batch
    filter: str = "all"  # of a pair: the part of the weights the grid shows (FILTERS)
    edits: tuple = ()  # knocked-out / patched heads (app.viewmodel.head_view): every run is of the altered model
    second: str = ""  # the second prompt that patched heads take their outputs from
    #: the newest runs by run_key (at most RUNS_KEPT): undo / redo of the last steps without a forward
    _runs: "OrderedDict[Hashable, Any]" = field(default_factory=OrderedDict, repr=False, compare=False)

    @classmethod
    def open(cls, folder: str | Path, label: Optional[str] = None) -> "ModelSession":
        """Load weights and tokenizer; attention.models.bert.ModelError (one line) when unusable."""
        from attention.models.bert import BertModel
        from attention.models.tokenizer import SentenceTokenizer

        model = BertModel.load(folder)
        if label:
            model.name = label  # what titles and notes call it
        tokenizer = SentenceTokenizer.load(folder, model.config.pad_token_id)
        return cls(model, tokenizer, label or model.name)

    # ---- sizes ---------------------------------------------------------------------------------
    @property
    def n_layers(self) -> int:
        return self.model.config.n_layers

    @property
    def n_heads(self) -> int:
        return self.model.config.n_heads

    # ---- sentences -----------------------------------------------------------------------------
    def token_count(self, sentences: tuple[str, ...]) -> int:
        """B * L of a batch of these sentences (to decide where to run it); cheap: tokenizes only."""
        lens = [len(self.tokenizer.encode(s).ids) for s in sentences]
        return len(lens) * max(lens, default=0)

    def compute(self, sentences: tuple[str, ...]) -> "ModelRun":
        """Tokens and the whole forward pass (two sentences as a pair when `pair` is chosen); safe on
        a worker thread (reads only the weights)."""
        from attention.models.sentences import run_sentences

        if self.edits:
            from app.viewmodel import head_view

            return head_view.encoder_run(self, sentences)
        return run_sentences(self.model, self.tokenizer, sentences, pair=self.pair)

    def accept(self, run: "ModelRun") -> None:
        """Make `run` the one shown; the sentence picker stays within the new batch."""
        self.run = run
        self.sentences = run.batch.sentences
        self.item = min(self.item, len(run.batch.tokens) - 1)
        if not self.is_pair():
            self.filter = "all"
        self._keep(run)

    def run_key(self, run) -> Hashable:
        """What names a run in an undo step: its sentences and whether they ran as a pair (tokenizing
        them again the same way gives the same ids)."""
        from app.viewmodel import head_view

        return head_view.key((run.batch.sentences, bool(getattr(run.batch, "is_pair", False))), run)

    def rerun(self, state: ModelState):
        """The run `state` showed, computed again (deterministic: the same ids through the same forward),
        as a batch or a pair as it ran then."""
        from app.viewmodel import head_view

        was = self.pair
        self.pair = head_view.base_key(state.key)[1]
        try:
            return self.compute(state.sentences)
        finally:
            self.pair = was

    def _keep(self, run) -> None:
        runs = self._runs
        key = self.run_key(run)
        runs.pop(key, None)
        runs[key] = run
        while len(runs) > RUNS_KEPT:
            runs.popitem(last=False)

    def state(self) -> ModelState:
        key = self.run_key(self.run) if self.run is not None else None
        return ModelState(key, self.layer, self.head, self.item, self.sentences, self.edits, self.second)

    def restore(self, state: ModelState) -> None:
        """Show `state` again (undo / redo of a sentence or layer change): its run from the kept ones,
        else the model runs again on its sentences (or token ids); two sentences bring back how they ran
        (a batch or a pair: the choice is the run's); the altered heads come back with it."""
        self.edits, self.second = state.edits, state.second
        if state.key is None:
            run = None
        elif self.run is not None and self.run_key(self.run) == state.key:
            run = self.run
        else:
            run = self._runs.get(state.key)
            if run is None:
                run = self.rerun(state)
            self._keep(run)
        self.run, self.layer, self.head, self.item, self.sentences = (
            run, state.layer, state.head, state.item, state.sentences)
        if self.run is not None and len(self.run.batch.sentences) == 2:
            self.pair = self.is_pair()
        if not self.is_pair():
            self.filter = "all"

    def is_pair(self) -> bool:
        """Whether the shown run is one sentence pair (a decoder's prompt never is)."""
        return self.run is not None and bool(getattr(self.run.batch, "is_pair", False))

    def items(self) -> int:
        """Batch items the run has (a pair is one)."""
        return len(self.run.batch.tokens) if self.run is not None else 1

    def scenario(self, layer: Optional[int] = None) -> "Scenario":
        """The open layer (or `layer`) on the hidden states entering it, with its real weights."""
        from attention.models.sentences import layer_scenario

        if layer is not None:
            self.layer = layer
        return layer_scenario(self.model, self.run, self.layer, self.tokenizer.pad_token)

    # ---- the model view ------------------------------------------------------------------------
    def tokens(self) -> tuple[str, ...]:
        """The shown sentence's tokens (no padding)."""
        return self.run.batch.tokens[self.item] if self.run is not None else ()

    def labels(self) -> tuple[str, ...]:
        """The shown tokens as the model view names them: a pair's named for their sentence ("A: the")."""
        return self.run.batch.pair_labels() if self.is_pair() else self.tokens()

    def grid(self) -> np.ndarray:
        """(n_layers, H, n, n) attention weights of the shown sentence, padding cut off."""
        if self.run is None:
            return np.zeros((self.n_layers, self.n_heads, 0, 0), dtype=np.float32)
        n = int(self.run.batch.valid_lens[self.item])
        return self.run.forward.attentions[:, self.item, :, :n, :n]

    def spans(self) -> tuple[range, range]:
        """(query rows, key columns) the grid shows: all of them, or of a pair the sentences the filter
        names (A = [CLS] A [SEP], B = B [SEP]: BertViz's slices at sentence_b_start)."""
        n = len(self.tokens())
        if not self.is_pair() or self.filter not in FILTERS[1:]:
            return range(n), range(n)
        start = self.run.batch.sentence_b_start
        part = {"a": range(0, start), "b": range(start, n)}
        return part[self.filter[0]], part[self.filter[1]]

    def shown_grid(self) -> np.ndarray:
        """(n_layers, H, rows, cols): grid() cut to the filter's rows and columns."""
        rows, cols = self.spans()
        g = self.grid()
        return g[:, :, rows.start:rows.stop, cols.start:cols.stop]

    def weight(self, layer: int, head: int, q: int, k: int) -> float:
        return float(self.grid()[layer, head, q, k])

    def cell_text(self, layer: int, head: int, r: int, c: int, template: str) -> str:
        """The hover line of row r, column c of the shown grid's cell (layer, head): `template` with {layer}
        {head} (numbered from 1) {query} {key} {weight} filled."""
        rows, cols = self.spans()
        q, k = rows[r], cols[c]
        names = self.labels()
        return template.format(layer=numbers.position(layer), head=numbers.position(head), query=names[q],
                               key=names[k], weight=numbers.rounded(self.weight(layer, head, q, k)))

    def caption(self) -> dict[str, str]:
        """{"en", "zh"}: the open layer and head ("MiniLM · layer 3 · head 2"), for the window title and
        the Steps header."""
        from attention import words

        out = {}
        for lang in words.LANGS:
            if self.head < 0:
                out[lang] = words.text("model_view.caption_all", lang, model=self.label,
                                       layer=numbers.position(self.layer))
            else:
                out[lang] = words.text("model_view.caption", lang, model=self.label, layer=numbers.position(self.layer),
                                       head=numbers.position(self.head))
        from app.viewmodel import head_view

        return head_view.captioned(self, out)
