"""Every step of the trace, one record each: the step graph the engine walks.  Start here to read or add a step.

A record says everything the rest of the code needs to know about one step id:

- ``dims``: what each axis of its tensor indexes (the public contract of docs/trace-format.md);
- ``kind``: how its numbers read: ``signed`` (any real), ``weights`` (in [0, 1], rows sum to 1),
  ``bool`` (a mask or a flag), ``count`` (whole numbers), ``index`` (positions into ``points_into``);
- ``title`` and ``formula``: catalogue keys (attention/words/steps.py); a scoring kind that names
  or computes the step differently says so itself (``ScoringKind.titles`` / ``.formulas``);
- ``compute``: the function that computes it, ``(run, step_id) -> tensor`` (attention/step_compute.py,
  a kind module, attention/kinds/mask_rules.py); ``active``: ``(scenario) -> bool``, whether the
  step is in that scenario's trace; ``inputs``: the steps and parameters it reads (presentation
  mode shows them beside it; every input step is computed before it);
- ``explain``, ``lesson``, ``script``: the functions that explain one cell (attention/explain.py or
  the kind's module), write the teaching text (attention/lessons.py) and write the step into the
  exported Python script (attention/script_export.py; ``None``: not in the script);
- ``slide``: whether presentation mode shows it ("always", "never", "when_true": when some cell is
  True); ``repeats``: the inputs whose numbers this step can repeat and why (a reason id,
  quiz.reason.<id>: the quiz warns that a hidden step can be read off them); ``by_hand``: the
  blocks of the by-hand sheet that show its numbers (app/viewmodel/by_hand.py and the slides'
  by-hand layout both read this one table, `BY_HAND`).

The engine (attention/engine.py) walks the active records in `ORDER` (each extra just before the
main step it feeds) and calls each one's ``compute``; the trace lists the steps in ``RECORDS``
order.  Nothing here imports torch: the compute functions import it when first called.

Inserting a step between two others is one declaration: a record with ``before=`` the main step
it comes before, and ``stands_for=`` the earlier step whose place it takes when later steps
should read it instead (a rotation of the queries after the head split stands for
``head_split.query``: the scores then read the rotated queries; the trace keeps both).

Adding a step: one record (here in ``_BASE``, or returned by its kind's ``records()``; with
``before=`` the main step it is computed before unless it is in every trace), its compute
function, its words (title, formula, lesson) in attention/words/, and its dims in
docs/trace-format.md.  tests/test_step_registry.py fails when a reference does not resolve,
a key has no words or an input is computed after the step that reads it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from attention import explain as ex
from attention import kinds, words
from attention import lessons as le
from attention import script_export as se
from attention import step_compute as sc_
from attention.kinds import additive, mask_rules, prob_sparse

KINDS = ("signed", "weights", "bool", "count", "index")
SLIDE = ("always", "never", "when_true")

Compute = Callable[[Any, str], Any]  # (run: attention.engine.Run, step_id) -> tensor


@dataclass(frozen=True)
class StepRecord:
    id: str
    dims: tuple[str, ...]
    kind: str
    title: str
    formula: str  # catalogue key; a scoring kind that computes the step otherwise has its own (kind.formulas)
    compute: Compute
    active: Callable[[Any], bool]  # (scenario) -> whether the step is in its trace
    explain: Callable  # (ctx, step_id, index) -> attention.explain.Explanation
    lesson: Callable  # (step_id, options, values, lang) -> str
    script: Optional[Callable]  # (scenario, step_id) -> code; None: not in the exported script
    inputs: tuple[str, ...] = ()
    points_into: Optional[str] = None  # kind "index": the dim its values are positions of
    veiled: bool = False  # the pane draws extra.mask over it (masked cells veiled)
    before: Optional[str] = None  # an extra: the main step it is computed and shown just before (see ORDER)
    slide: str = "always"
    by_hand: tuple[str, ...] = ()  # blocks of the by-hand sheet that show this step's numbers
    stands_for: Optional[str] = None  # a step every later step reads this one in place of (see the docstring)
    repeats: tuple[tuple[str, str], ...] = ()  # (input, reason id): when this step can hold that input's numbers
    # (step, reason id): a step this one can be worked out from (sinks.mass = 1 - a row of the weights):
    # a quiz hiding this step hides that one too
    gives_away: tuple[tuple[str, str], ...] = ()

    @property
    def extra(self) -> bool:
        """Not part of the main pipeline: the mask and the kinds' intermediate results."""
        return self.id.startswith("extra.")

    def formula_key(self, scoring: Optional[str] = None) -> str:
        kind = _kind(scoring)
        return kind.formulas.get(self.id, self.formula) if kind is not None else self.formula

    def title_key(self, scoring: Optional[str] = None) -> str:
        kind = _kind(scoring)
        return kind.titles.get(self.id, self.title) if kind is not None else self.title


def _kind(scoring: Optional[str]):
    return kinds.SCORING.get(scoring) if isinstance(scoring, str) else None


def _scoring_has(step_id: str) -> Callable[[Any], bool]:
    """The `active` predicate of a kind's own step: the scenario's scoring kind computes it."""
    def active(sc: Any) -> bool:
        return step_id in kinds.SCORING[sc.scoring].extra_steps
    active.__qualname__ = f"scoring_has[{step_id}]"
    return active


def _main(sid: str, dims: tuple[str, ...], kind: str, compute: Compute, explain: Callable, lesson: Callable,
          script: Callable, inputs: tuple[str, ...], **more) -> StepRecord:
    return StepRecord(sid, dims, kind, f"step.{sid}.title", f"step.{sid}.formula", compute, sc_.always,
                      explain, lesson, script, inputs, **more)


def _extra(sid: str, dims: tuple[str, ...], kind: str, compute: Compute, active: Callable[[Any], bool],
           explain: Callable, inputs: tuple[str, ...], lesson: Callable = le._sentences, **more) -> StepRecord:
    return StepRecord(sid, dims, kind, f"step.{sid}.title", f"step.{sid}.formula", compute, active,
                      explain, lesson, None, inputs, **more)


#: The steps every scenario may have, the main pipeline first and in order, then the extras.
_BASE: tuple[StepRecord, ...] = (
    _main("projection.query", ("B", "L", "H*dk"), "signed", sc_.projection, ex._projection, le._projection,
          se._projection, ("queries", "projection.query.weight"), by_hand=("q",),
          repeats=(("queries", "wq"),)),
    _main("projection.key", ("B", "S", "H*dk"), "signed", sc_.projection, ex._projection, le._projection,
          se._projection, ("keys", "projection.key.weight"), by_hand=("kt",),
          repeats=(("keys", "wk"),)),
    _main("projection.value", ("B", "S", "H*dv"), "signed", sc_.projection, ex._projection, le._projection,
          se._projection, ("values", "projection.value.weight"), by_hand=("v",),
          repeats=(("values", "wv"),)),
    _main("head_split.query", ("B", "L", "H", "dk"), "signed", sc_.head_split, ex._head_split, le._head_split,
          se._head_split, ("projection.query",), by_hand=("q",),
          repeats=(("projection.query", "split"),)),
    _main("head_split.key", ("B", "S", "H", "dk"), "signed", sc_.head_split, ex._head_split, le._head_split,
          se._head_split, ("projection.key",), by_hand=("kt",),
          repeats=(("projection.key", "split"),)),
    _main("head_split.value", ("B", "S", "H", "dv"), "signed", sc_.head_split, ex._head_split, le._head_split,
          se._head_split, ("projection.value",), by_hand=("v",),
          repeats=(("projection.value", "split"),)),
    _main("scores", ("B", "H", "L", "S"), "signed", sc_.scores, ex._scores, le._scores, se._scores,
          ("head_split.query", "head_split.key"), by_hand=("scores",),
          # scores repeat Q where the keys are one-hot, and K where the queries are
          repeats=(("head_split.query", "k_picks"), ("head_split.key", "q_picks"))),
    _main("masked_scores", ("B", "H", "L", "S"), "signed", sc_.masked_scores, ex._masked_scores,
          le._masked_scores, se._masked_scores, ("scores", "extra.mask"), veiled=True, by_hand=("scores",),
          repeats=(("scores", "mask"),)),
    _main("attention_weights", ("B", "H", "L", "S"), "weights", sc_.attention_weights, ex._weights, le._weights,
          se._weights, ("masked_scores",), veiled=True, by_hand=("weights",)),
    _main("weighted_sum", ("B", "L", "H", "dv"), "signed", sc_.weighted_sum, ex._weighted_sum, le._sentences,
          se._weighted_sum, ("attention_weights", "head_split.value"), by_hand=("output",),
          repeats=(("attention_weights", "v_identity"), ("head_split.value", "w_picks"))),
    _main("concat", ("B", "L", "H*dv"), "signed", sc_.concat, ex._concat, le._concat, se._concat,
          ("weighted_sum",), by_hand=("output",), repeats=(("weighted_sum", "concat"),)),
    _main("output", ("B", "L", "d_out"), "signed", sc_.projection, ex._projection, le._sentences, se._output,
          ("concat", "projection.out.weight"), repeats=(("concat", "wo"),)),
    _extra("extra.mask", ("B", "L", "S"), "bool", mask_rules.mask_step, mask_rules.any_applies, ex._mask_cell, (),
           before="masked_scores", by_hand=("scores", "weights"),  # the sheet veils the masked cells of both
           lesson=le._mask),  # a sentence per rule that applies
    _extra("extra.fully_masked", ("B", "L"), "bool", mask_rules.fully_masked_step, mask_rules.any_applies,
           ex._fully_masked, ("extra.mask",), before="weighted_sum", slide="when_true"),
    # additive scoring only: d2l's hidden features, one L x S block per hidden unit (N*S: unit-major)
    _extra("extra.additive_features", ("B", "H", "L", "N*S"), "signed", additive.features_step,
           _scoring_has("extra.additive_features"), additive.explain_features, ("head_split.query", "head_split.key"),
           before="scores"),
    # ProbSparse only: the sample, the sparsity measure and the chosen queries (Informer's order)
    _extra("extra.sample_index", ("L", "n_sample"), "index", prob_sparse.select_step,
           _scoring_has("extra.sample_index"), ex._sample_index, (), points_into="S", before="scores", slide="never"),
    _extra("extra.sample_count", ("L", "S"), "count", prob_sparse.part_step, _scoring_has("extra.sample_count"),
           ex._sample_count, ("extra.sample_index",), before="scores"),
    _extra("extra.sampled_scores", ("B", "H", "L", "n_sample"), "signed", prob_sparse.part_step,
           _scoring_has("extra.sampled_scores"), ex._sampled_scores, ("head_split.query", "head_split.key"),
           before="scores", by_hand=("scores",)),
    _extra("extra.sparsity", ("B", "H", "L"), "signed", prob_sparse.part_step, _scoring_has("extra.sparsity"),
           ex._sparsity, ("extra.sampled_scores",), before="scores"),
    _extra("extra.top_index", ("B", "H", "n_top"), "index", prob_sparse.part_step, _scoring_has("extra.top_index"),
           ex._top_index, ("extra.sparsity",), points_into="L", before="scores", slide="never"),
    _extra("extra.selected", ("B", "H", "L"), "bool", prob_sparse.part_step, _scoring_has("extra.selected"),
           ex._selected, ("extra.sparsity",), before="scores"),
)



def kind_records() -> tuple[StepRecord, ...]:
    """The steps the kinds of the table add (attention/kinds/: a position encoding's rotated q
    and k, a modifier's bias ...): each kind's ``records()``, placed by their ``before``."""
    out: list[StepRecord] = []
    for table in (kinds.SCORING, kinds.POSITIONS, kinds.MODIFIERS, kinds.MASK_RULES):
        for kind in table.values():
            make = getattr(kind, "records", None)
            out += make() if make is not None else []
    return tuple(out)


#: Every step (trace order): the base steps, then the steps the kinds add.
RECORDS: tuple[StepRecord, ...] = _BASE + kind_records()

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


def active(sc: Any) -> list[StepRecord]:
    """The records of the steps in `sc`'s trace, in computing order."""
    return [r for r in COMPUTE_ORDER if r.active(sc)]


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


def title(step_id: str, scoring: Optional[str] = None) -> dict[str, str]:
    """The step's title in every language, as the scoring function `scoring` names it."""
    key = BY_ID[step_id].title_key(scoring)
    return {lang: words.text(key, lang) for lang in words.LANGS}


def formula(step_id: str, scoring: Optional[str] = None, modifiers: tuple[str, ...] = ()) -> dict[str, str]:
    """The step's formula in every language, as the scoring function `scoring` computes it, or a score
    modifier among `modifiers` (names) that computes it its own way (sinks: the weights), or a mask
    rule among them that makes the mask its own way (Pyraformer's pyramid)."""
    from attention import kinds

    key = BY_ID[step_id].formula_key(scoring)
    for name in modifiers:  # a score modifier, or a mask rule that writes the mask its own way (a pyramid)
        part = kinds.MODIFIERS.get(name) or kinds.MASK_RULES.get(name)
        key = getattr(part, "formulas", {}).get(step_id, key)
    return {lang: words.text(key, lang) for lang in words.LANGS}
