"""Every step of the trace, one record each: the step graph the engine walks.  Start here to read or add a step.

A record says everything the rest of the code needs to know about one step id:

- ``dims``: what each axis of its tensor indexes (the public contract of docs/trace-format.md);
- ``kind``: how its numbers read: ``signed`` (any real), ``weights`` (in [0, 1], rows sum to 1),
  ``bool`` (a mask or a flag), ``count`` (whole numbers), ``index`` (positions into ``points_into``);
- ``title`` and ``formula``: catalogue keys (attention/words/steps.py); a scoring kind that names
  or computes the step differently says so itself (``ScoringKind.titles`` / ``.formulas``);
- ``compute``: the function that computes it, ``(run, step_id) -> tensor``
  (attention/pipeline/step_compute.py, a kind module, attention/kinds/mask_rules.py); ``active``:
  ``(scenario, kinds) -> bool``, whether the step is in that scenario's trace (`kinds`: the kind
  objects it uses, attention/kinds/plan.py); ``inputs``: the steps and parameters it reads
  (presentation mode shows them beside it; every input step is computed before it);
- ``explain``, ``lesson``, ``script``: the functions that explain one cell, write the teaching text
  and write the step into the exported Python script (``None``: not in the script): the main
  steps' in attention/pipeline/ (explain.py, lessons.py, script.py), a kind's in its module;
- ``slide``: whether presentation mode shows it ("always", "never", "when_true": when some cell is
  True); ``repeats``: the inputs whose numbers this step can repeat and why (a reason id,
  quiz.reason.<id>: the quiz warns that a hidden step can be read off them); ``by_hand``: the
  blocks of the by-hand sheet that show its numbers (app/viewmodel/by_hand.py and the slides'
  by-hand layout both read this one table, `BY_HAND`).

The record type is attention/datamodel/step_record.py; the main pipeline's records are
attention/pipeline/records.py (`BASE`), each kind's come from its ``records()``.  The engine
(attention/compute/engine.py) walks the active records in `ORDER` (each extra just before the
main step it feeds) and calls each one's ``compute``; the trace lists the steps in ``RECORDS``
order.  Nothing here imports torch: the compute functions import it when first called.

Inserting a step between two others is one declaration: a record with ``before=`` the main step
it comes before, and ``stands_for=`` the earlier step whose place it takes when later steps
should read it instead (a rotation of the queries after the head split stands for
``head_split.query``: the scores then read the rotated queries; the trace keeps both).

Adding a step: one record (in ``BASE``, or returned by its kind's ``records()``; with
``before=`` the main step it is computed before unless it is in every trace), its compute
function, its words (title, formula, lesson) in attention/words/, and its dims in
docs/trace-format.md.  tests/test_step_registry.py fails when a reference does not resolve,
a key has no words or an input is computed after the step that reads it.
"""
from __future__ import annotations

from typing import Any, Optional

import attention.words as words
from attention.datamodel.step_record import StepRecord
from attention.kinds.plan import Kinds
from attention.pipeline import step_compute as sc_
from attention.pipeline.records import BASE
from attention.registry import kinds


def _kind(scoring: Any):
    """A scoring kind given as the object itself (what a plan holds) or by name (a trace's options)."""
    if isinstance(scoring, str):
        return kinds.SCORING.get(scoring)
    return scoring  # the kind object, or None


def kind_records() -> tuple[StepRecord, ...]:
    """The steps the kinds of the table add (attention/kinds/: a position encoding's rotated q
    and k, a modifier's bias ...): each kind's ``records()``, placed by their ``before``."""
    out: list[StepRecord] = []
    for table in (kinds.SCORING, kinds.POSITIONS, kinds.MODIFIERS, kinds.BLOCKS, kinds.MASK_RULES):
        for kind in table.values():
            make = getattr(kind, "records", None)
            out += make() if make is not None else []
    return tuple(out)


#: Every step (trace order): the base steps, then the steps the kinds add.
RECORDS: tuple[StepRecord, ...] = BASE + kind_records()

BY_ID: dict[str, StepRecord] = {r.id: r for r in RECORDS}

#: The main pipeline, in order: every trace has these steps, whatever its scoring.
PIPELINE: tuple[str, ...] = tuple(r.id for r in RECORDS if not r.extra and r.active is sc_.always)


def _order() -> tuple[str, ...]:
    out: list[str] = []

    def place(sid: str) -> None:
        """`sid` after the steps placed before it: those that stand for an input first (a later
        extra of the same step, ProbSparse's sample, then reads the rotated q and k), and a
        step placed before another extra (QK-norm before RoPE) just before that one."""
        ahead = [r for r in RECORDS if r.before == sid]
        for r in sorted(ahead, key=lambda r: r.stands_for is None):  # stable: otherwise as declared
            place(r.id)
        out.append(sid)

    for sid in PIPELINE:
        place(sid)
    return tuple(out + [r.id for r in RECORDS if r.extra and r.before is None])  # after the output: a layer around


#: Every step in the order the computation needs them, extras included: each extra just before
#: the main step it feeds (the mask before the masked scores, ProbSparse's sampling and selection
#: before the scores, the fully-masked rows after the weights).  The Steps region and the slides
#: both show their steps in this order (`in_order`).
ORDER: tuple[str, ...] = _order()
#: The records in computing order (ORDER): what the engine walks.
COMPUTE_ORDER: tuple[StepRecord, ...] = tuple(BY_ID[sid] for sid in ORDER)

#: Which blocks of the by-hand sheet show each step's numbers: the one table the sheet (a quiz
#: hiding a step hides these) and the slides' by-hand layout (the current step's blocks are
#: outlined) both read.
BY_HAND: dict[str, tuple[str, ...]] = {r.id: r.by_hand for r in RECORDS if r.by_hand}


def active(sc: Any, kinds: Kinds) -> list[StepRecord]:
    """The records of the steps in `sc`'s trace, in computing order (`kinds`: the kinds it uses)."""
    return [r for r in COMPUTE_ORDER if r.active(sc, kinds)]


def in_order(step_ids) -> list[str]:
    """`step_ids` sorted into pipeline order (ORDER); ids no record has go last, as given."""
    rank = {sid: i for i, sid in enumerate(ORDER)}
    return sorted(step_ids, key=lambda sid: rank.get(sid, len(ORDER)))


def read_as(step_id: str, present, before: Optional[str] = None) -> str:
    """The step later steps read in place of `step_id` in a trace holding the steps `present`:
    the last one computed that stands for it (RoPE's rotated queries for head_split.query), or
    `step_id` itself.  `before`: what that step read (stand-ins computed before it only)."""
    have = set(present)
    limit = ORDER.index(before) if before is not None else len(ORDER)
    found = step_id
    for sid in ORDER[:limit]:
        if sid in have and BY_ID[sid].stands_for == step_id:
            found = sid
    return found


def record(step_id: str) -> StepRecord:
    """The record of `step_id`; KeyError for an id no step has."""
    return BY_ID[step_id]


def title(step_id: str, scoring: Any = None) -> dict[str, str]:
    """The step's title in every language, as the scoring kind `scoring` (the object, or its name) names it."""
    key = BY_ID[step_id].title_key(_kind(scoring))
    return {lang: words.text(key, lang) for lang in words.LANGS}


def formula(step_id: str, scoring: Optional[str] = None, modifiers: tuple[str, ...] = ()) -> dict[str, str]:
    """The step's formula in every language, as the scoring function `scoring` computes it, or a score
    modifier among `modifiers` (names) that computes it its own way (sinks: the weights), or a mask
    rule among them that makes the mask its own way (Pyraformer's pyramid)."""
    from attention.registry import kinds

    key = BY_ID[step_id].formula_key(_kind(scoring))
    for name in modifiers:  # a score modifier, or a mask rule that writes the mask its own way (a pyramid)
        part = kinds.MODIFIERS.get(name) or kinds.MASK_RULES.get(name)
        key = getattr(part, "formulas", {}).get(step_id, key)
    return {lang: words.text(key, lang) for lang in words.LANGS}
