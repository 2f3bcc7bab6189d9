"""Knocked-out heads in the model view (Qt-free): the altered model's runs, and the words the dock shows of them.

A session (ModelSession, DecoderSession) holds `edits` (attention.models.head_edits.HeadEdit, the altered model)
and `second` (the second prompt patched heads take their outputs from).  Its runs are then computed with the
edits (`decoder_run`, `encoder_run`): the grid shows the altered model's weights, the open layer's scenario reads
the altered hidden states (the later layers' steps show what changed), and `run.heads` keeps what the edits did
(head_edits.Outcome: the next-token top 10 before and after; an encoder's head_edits.StateChange).  Undo steps
carry the edits (ModelState.edits / .second) and name an altered run by its ids, edits and second prompt.
Every number here is read from those records; nothing is computed.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Hashable, Optional

from attention import words
from attention.datamodel import numbers
from attention.models.errors import ModelError

#: what the grid writes in the corner of an altered head's cell
MARKS = {"zero": "0", "mean": "μ", "patch": "P"}
#: edits named one by one in the window title; more are counted
TITLE_EDITS = 2
#: later layers listed in "what changed" (the open one is always said)
CHANGED_SHOWN = 6


@dataclass(frozen=True)
class HeadsInfo:
    """What the edits of a run did: the edits, the second prompt, head_edits.Outcome or StateChange."""

    edits: tuple
    second: str
    outcome: Any


def _patching(edits) -> bool:
    return any(e.how == "patch" for e in edits)


# ---- the altered model's runs -----------------------------------------------------------------------------------
def decoder_run(session: Any, ids: list[int], text: str):
    """The decoder's run of `ids` with the session's edits (the engine's float64 layers, or the model's own float32
    for a model-drawn decoder as SmolLM2): a DecoderRun whose `heads` says what changed."""
    from attention.models import head_edits

    engine = bool(getattr(session, "engine_layers", True))
    patch_ids = None
    if _patching(session.edits):
        if not session.second.strip():
            raise ModelError("heads_patch_missing")
        patch_ids = session.model.encode(session.second)
    o = head_edits.knock(session.model, ids, session.edits, engine=engine, patch_ids=patch_ids)
    run = session._run_from(o.after, ids, text)
    return dataclasses.replace(run, heads=HeadsInfo(o.edits, session.second, o))


@dataclass(frozen=True)
class EditedRun:
    """An encoder's run with edits: the batch, the altered forward (as sentences.ModelRun), what changed."""

    batch: Any
    forward: Any
    heads: HeadsInfo


def encoder_run(session: Any, sentences: tuple[str, ...]) -> EditedRun:
    """The encoder's run of `sentences` (a batch or, as the session chose, a pair) with the session's edits."""
    from attention.models import head_edits
    from attention.models.sentences import run_sentences

    clean = run_sentences(session.model, session.tokenizer, sentences, pair=session.pair)
    source = None
    if _patching(session.edits):
        if not session.second.strip():
            raise ModelError("heads_patch_missing")
        source = run_sentences(session.model, session.tokenizer, (session.second,)).batch
    ch = head_edits.knock_sentences(session.model, clean.batch, session.edits, source, before=clean.forward)
    return EditedRun(clean.batch, ch.after, HeadsInfo(ch.edits, session.second, ch))


def key(base: Hashable, run: Any) -> Hashable:
    """An undo step's name for a run: `base` (the session's own), with the edits and second prompt of an altered
    run (so the runs kept for undo tell the altered model from the unaltered one)."""
    info = getattr(run, "heads", None)
    return base if info is None else ("heads", base, info.edits, info.second)


def base_key(k: Hashable) -> Hashable:
    """The session's own part of a key made by `key`."""
    return k[1] if isinstance(k, tuple) and len(k) == 4 and k[0] == "heads" else k


# ---- choosing edits -------------------------------------------------------------------------------------------
def with_edit(edits: tuple, layer: int, head: int, how: str) -> tuple:
    """`edits` with head (layer, head) altered `how` (replacing what it had)."""
    from attention.models.head_edits import HeadEdit

    kept = [e for e in edits if (e.layer, e.head) != (layer, head)]
    return tuple(sorted(kept + [HeadEdit(layer, head, how)]))


def without(edits: tuple, layer: int, head: int) -> tuple:
    return tuple(e for e in edits if (e.layer, e.head) != (layer, head))


def edit_of(edits: tuple, layer: int, head: int) -> Optional[Any]:
    return next((e for e in edits if (e.layer, e.head) == (layer, head)), None)


def marks(session: Any) -> dict[tuple[int, int], str]:
    """{(layer, head): mark} of the altered heads (the grid's corner letters)."""
    return {(e.layer, e.head): MARKS[e.how] for e in getattr(session, "edits", ())}


def undo_text(edits_after: tuple, edits_before: tuple, lang: Optional[str] = None) -> str:
    """The Edit menu's words for the step from `edits_before` to `edits_after`."""
    added = [e for e in edits_after if e not in edits_before]
    if added:
        return words.text("heads_undo_edit", lang, what=added[0].label(lang))
    if not edits_after:
        return words.text("heads_undo_clear", lang)
    gone = [e for e in edits_before if e not in edits_after]
    return words.text("heads_undo_restore", lang, head=gone[0].name() if gone else "")


def captioned(session: Any, caption: dict[str, str]) -> dict[str, str]:
    """The window title's caption, saying that the model is altered and how ("… · altered: L2.H3 zeroed")."""
    edits = getattr(session, "edits", ())
    if not edits:
        return caption
    out = {}
    for lang, title in caption.items():
        if len(edits) <= TITLE_EDITS:
            out[lang] = words.text("heads_caption", lang, title=title,
                                   edits=", ".join(e.label(lang, short=True) for e in edits))
        else:
            out[lang] = words.text("heads_caption_many", lang, title=title, n=len(edits))
    return out


# ---- what the dock says ------------------------------------------------------------------------------------------
def _item(label: str, p: float, lang: str) -> str:
    return words.text("heads_top_item", lang, token=label, p=numbers.rounded(p))


def _signed(v: float) -> str:
    return ("+" if v > 0 else "") + numbers.rounded(v)


def lines(session: Any, lang: str) -> list[str]:
    """What the Heads panel says of the shown run: the altered heads, the next token before → after with the
    chosen token's change (a decoder), or the output states' change (an encoder), and what changed later."""
    run = getattr(session, "run", None)
    info = getattr(run, "heads", None)
    if info is None or not info.edits:
        return [words.text("heads_panel_hint", lang)]
    out = [words.text("heads_altered", lang, edits=", ".join(e.label(lang) for e in info.edits))]
    o = info.outcome
    if hasattr(o, "top_before"):
        out.append(words.text("heads_before_after", lang, n=len(o.top_before)))
        for rank, ((_, lb, pb), (_, la, pa)) in enumerate(zip(o.top_before, o.top_after), 1):
            out.append(words.text("heads_top_row", lang, rank=rank, before=_item(lb, pb, lang),
                                  after=_item(la, pa, lang)))
        out.append(words.text("heads_chosen", lang, token=o.chosen[1], pb=numbers.rounded(o.p_before),
                              pa=numbers.rounded(o.p_after), dp=_signed(o.dp), lb=numbers.rounded(o.logp_before),
                              la=numbers.rounded(o.logp_after), dlp=_signed(o.dlogp)))
        if o.answers is not None:
            (_, a), (_, b) = o.answers
            out.append(words.text("heads_ld", lang, a=a, b=b, before=numbers.rounded(o.ld_before),
                                  after=numbers.rounded(o.ld_after), d=_signed(o.ld_after - o.ld_before)))
        out += _changes(session, o, lang)
    else:
        item = min(session.item, len(run.batch.tokens) - 1)
        toks = run.batch.tokens[item]
        worst = int(o.relative[item, :len(toks)].argmax())
        out.append(words.text("heads_states", lang, cos=numbers.rounded(float(o.cosine[item])), token=toks[worst],
                              rel=numbers.rounded(float(o.relative[item, worst]))))
    return out


def _changes(session: Any, o: Any, lang: str) -> list[str]:
    """The largest change of each later layer's input and weights (from the first altered layer on)."""
    from attention.models.head_edits import layer_changes

    first = min(e.layer for e in o.edits)
    rows = list(enumerate(layer_changes(o.before, o.after)))[first + 1:]
    if not rows:
        return []
    shown = rows[:CHANGED_SHOWN]
    if session.layer > first and all(k != session.layer for k, _ in shown):
        shown.append(rows[session.layer - first - 1])  # the open layer: its steps show these numbers
    out = [words.text("heads_changes", lang)]
    for k, (dx, dw) in shown:
        out.append(words.text("heads_change_row", lang, layer=k + 1, dx=numbers.rounded(dx), dw=numbers.rounded(dw))
                   if dx or dw else words.text("heads_change_none", lang, layer=k + 1))
    return out


def second_count(session: Any, lang: str) -> str:
    """'5 tokens; the prompt has 5' for the second prompt box (an encoder counts its one sentence's tokens)."""
    text = getattr(session, "second", "")
    if not text.strip() or session.run is None:
        return words.text("heads_second_empty", lang)
    if getattr(session, "is_decoder", False):
        m, n = len(session.model.encode(text)), len(session.run.ids)
    else:
        m, n = len(session.tokenizer.encode(text).ids), int(session.run.batch.L)
    return words.text("heads_second_count", lang, m=m, n=n)
