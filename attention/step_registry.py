"""Every step of the trace, one record each: start here to read or add a step.

A record says everything the rest of the code needs to know about one step id:

- ``dims``: what each axis of its tensor indexes (the public contract of docs/trace-format.md);
- ``kind``: how its numbers read: ``signed`` (any real), ``weights`` (in [0, 1], rows sum to 1),
  ``bool`` (a mask or a flag), ``count`` (whole numbers), ``index`` (positions into ``points_into``);
- ``title`` and ``formula``: catalogue keys (attention/words/steps.py); ``formula`` maps a scoring
  function to its key where that scoring computes the step differently (``"*"``: every other),
  and ``titles`` does the same for the title where a scoring names the step differently;
- ``explain``, ``lesson``, ``script``: the names of the functions that explain one cell
  (attention/explain.py), write the teaching text (app/viewmodel/lessons.py) and write the step
  into the exported Python script (attention/script_export.py; ``None``: not in the script);
- ``inputs``: what presentation mode shows beside it (step ids or keys of ``trace.parameters``).

Why names and not the functions themselves: the engine reads this module (for the dims), and the
trace cache hashes every module the engine imports, so importing the explanations or the lessons
here would make every rewording invalidate kept traces; and the lessons live in app/, which the
engine never imports.  Each of those modules looks its function up by the name given here, and
tests/test_step_registry.py fails when a name does not resolve or a key has no words.

Adding a step: one record here, its compute function (attention/steps.py) called by
attention/engine.py, its words (title, formula, lesson) in attention/words/, and the three
functions named in the record.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from attention import words

KINDS = ("signed", "weights", "bool", "count", "index")


@dataclass(frozen=True)
class StepRecord:
    id: str
    dims: tuple[str, ...]
    kind: str
    title: str
    formula: dict[str, str]  # scoring function -> catalogue key; "*" for every other scoring
    explain: str  # function in attention/explain.py: (ctx, step_id, index) -> Explanation
    lesson: str  # function in app/viewmodel/lessons.py: (step_id, options, values, lang) -> str
    script: Optional[str]  # function in attention/script_export.py: (scenario, step_id) -> code; None: not exported
    inputs: tuple[str, ...] = ()
    titles: dict[str, str] = field(default_factory=dict)  # scoring function -> title key, where it differs
    points_into: Optional[str] = None  # kind "index": the dim its values are positions of
    veiled: bool = False  # the pane draws extra.mask over it (masked cells veiled)
    before: Optional[str] = None  # an extra: the main step it is shown just before (see ORDER)

    @property
    def extra(self) -> bool:
        """Not part of the main pipeline: the mask and ProbSparse's intermediate results."""
        return self.id.startswith("extra.")

    def formula_key(self, scoring: Optional[str] = None) -> str:
        return self.formula.get(scoring or "*", self.formula["*"])

    def title_key(self, scoring: Optional[str] = None) -> str:
        return self.titles.get(scoring or "*", self.title)


def _main(sid: str, dims: tuple[str, ...], kind: str, explain: str, lesson: str, script: str,
          inputs: tuple[str, ...], **more) -> StepRecord:
    formula = {"*": f"step.{sid}.formula", **{k: f"step.{sid}.formula.{k}" for k in more.pop("formulas", ())}}
    more["titles"] = {k: f"step.{sid}.title.{k}" for k in more.pop("titles", ())}
    return StepRecord(sid, dims, kind, f"step.{sid}.title", formula, explain, lesson, script, inputs, **more)


def _extra(sid: str, dims: tuple[str, ...], kind: str, explain: str, inputs: tuple[str, ...], **more) -> StepRecord:
    return StepRecord(sid, dims, kind, f"step.{sid}.title", {"*": f"step.{sid}.formula"}, explain, "_sentences", None,
                      inputs, **more)


#: Every step, the main pipeline first and in order, then the extras (trace order).
RECORDS: tuple[StepRecord, ...] = (
    _main("projection.query", ("B", "L", "H*dk"), "signed", "_projection", "_projection", "_projection",
          ("queries", "projection.query.weight")),
    _main("projection.key", ("B", "S", "H*dk"), "signed", "_projection", "_projection", "_projection",
          ("keys", "projection.key.weight")),
    _main("projection.value", ("B", "S", "H*dv"), "signed", "_projection", "_projection", "_projection",
          ("values", "projection.value.weight")),
    _main("head_split.query", ("B", "L", "H", "dk"), "signed", "_head_split", "_head_split", "_head_split",
          ("projection.query",)),
    _main("head_split.key", ("B", "S", "H", "dk"), "signed", "_head_split", "_head_split", "_head_split",
          ("projection.key",)),
    _main("head_split.value", ("B", "S", "H", "dv"), "signed", "_head_split", "_head_split", "_head_split",
          ("projection.value",)),
    _main("scores", ("B", "H", "L", "S"), "signed", "_scores", "_scores", "_scores",
          ("head_split.query", "head_split.key"), formulas=("additive", "prob_sparse"), titles=("additive", "dot")),
    _main("masked_scores", ("B", "H", "L", "S"), "signed", "_masked_scores", "_masked_scores", "_masked_scores",
          ("scores", "extra.mask"), veiled=True),
    _main("attention_weights", ("B", "H", "L", "S"), "weights", "_weights", "_weights", "_weights",
          ("masked_scores",), veiled=True, formulas=("prob_sparse",)),
    _main("weighted_sum", ("B", "L", "H", "dv"), "signed", "_weighted_sum", "_sentences", "_weighted_sum",
          ("attention_weights", "head_split.value")),
    _main("concat", ("B", "L", "H*dv"), "signed", "_concat", "_concat", "_concat", ("weighted_sum",)),
    _main("output", ("B", "L", "d_out"), "signed", "_projection", "_sentences", "_output",
          ("concat", "projection.out.weight")),
    _extra("extra.mask", ("B", "L", "S"), "bool", "_mask_cell", (), before="masked_scores"),
    _extra("extra.fully_masked", ("B", "L"), "bool", "_fully_masked", ("extra.mask",), before="weighted_sum"),
    # additive scoring only: d2l's hidden features, one L x S block per hidden unit (N*S: unit-major)
    _extra("extra.additive_features", ("B", "H", "L", "N*S"), "signed", "_additive_features",
           ("head_split.query", "head_split.key"), before="scores"),
    _extra("extra.sample_index", ("L", "n_sample"), "index", "_sample_index", (), points_into="S", before="scores"),
    _extra("extra.sample_count", ("L", "S"), "count", "_sample_count", ("extra.sample_index",), before="scores"),
    _extra("extra.sampled_scores", ("B", "H", "L", "n_sample"), "signed", "_sampled_scores",
           ("head_split.query", "head_split.key"), before="scores"),
    _extra("extra.sparsity", ("B", "H", "L"), "signed", "_sparsity", ("extra.sampled_scores",), before="scores"),
    _extra("extra.top_index", ("B", "H", "n_top"), "index", "_top_index", ("extra.sparsity",), points_into="L",
           before="scores"),
    _extra("extra.selected", ("B", "H", "L"), "bool", "_selected", ("extra.sparsity",), before="scores"),
)

BY_ID: dict[str, StepRecord] = {r.id: r for r in RECORDS}

#: The main pipeline, in order: every trace has these steps, whatever its scoring.
PIPELINE: tuple[str, ...] = tuple(r.id for r in RECORDS if not r.extra)


def _order() -> tuple[str, ...]:
    out: list[str] = []
    for sid in PIPELINE:
        out += [r.id for r in RECORDS if r.extra and r.before == sid]  # in the order they are computed
        out.append(sid)
    return tuple(out)


#: Every step in the order the computation needs them, extras included: each extra just before
#: the main step it feeds (the mask before the masked scores, ProbSparse's sampling and selection
#: before the scores, the fully-masked rows after the weights).  The Steps region and the slides
#: both show their steps in this order (`in_order`).
ORDER: tuple[str, ...] = _order()


def in_order(step_ids) -> list[str]:
    """`step_ids` sorted into pipeline order (ORDER); ids no record has go last, as given."""
    rank = {sid: i for i, sid in enumerate(ORDER)}
    return sorted(step_ids, key=lambda sid: rank.get(sid, len(ORDER)))


def record(step_id: str) -> StepRecord:
    """The record of `step_id`; KeyError for an id no step has."""
    return BY_ID[step_id]


def title(step_id: str, scoring: Optional[str] = None) -> dict[str, str]:
    """The step's title in every language, as the scoring function `scoring` names it."""
    key = BY_ID[step_id].title_key(scoring)
    return {lang: words.text(key, lang) for lang in words.LANGS}


def formula(step_id: str, scoring: Optional[str] = None) -> dict[str, str]:
    """The step's formula in every language, as the scoring function `scoring` computes it."""
    key = BY_ID[step_id].formula_key(scoring)
    return {lang: words.text(key, lang) for lang in words.LANGS}
