"""The main pipeline's step records: projections, head split, scores, mask, softmax, weighted sum,
concat and output, each with the functions that compute, explain, teach and export it.

These are the steps every trace has (and the mask's, when something is masked); a kind adds its
own in its module's `records()`.  The registry (attention/registry/step_registry.py) joins both
into one step graph in computing order.  What each field of a record means: the registry's
docstring.
"""
from __future__ import annotations

from typing import Any, Callable

from attention.datamodel.step_record import Compute, StepRecord
from attention.kinds import mask_rules
from attention.pipeline import explain as ex
from attention.pipeline import lessons as le
from attention.pipeline import script as se
from attention.pipeline import step_compute as sc_
from attention.text.lesson import _sentences


def _main(sid: str, dims: tuple[str, ...], kind: str, compute: Compute, explain: Callable, lesson: Callable,
          script: Callable, inputs: tuple[str, ...], **more) -> StepRecord:
    return StepRecord(sid, dims, kind, f"step.{sid}.title", f"step.{sid}.formula", compute, sc_.always,
                      explain, lesson, script, inputs, **more)


def _extra(sid: str, dims: tuple[str, ...], kind: str, compute: Compute, active: Callable[[Any], bool],
           explain: Callable, inputs: tuple[str, ...], lesson: Callable = _sentences, **more) -> StepRecord:
    return StepRecord(sid, dims, kind, f"step.{sid}.title", f"step.{sid}.formula", compute, active,
                      explain, lesson, None, inputs, **more)


#: The main pipeline's steps, in order, then the mask's (a kind's own steps are in its module's `records()`).
BASE: tuple[StepRecord, ...] = (
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
    _main("weighted_sum", ("B", "L", "H", "dv"), "signed", sc_.weighted_sum, ex._weighted_sum, _sentences,
          se._weighted_sum, ("attention_weights", "head_split.value"), by_hand=("output",),
          repeats=(("attention_weights", "v_identity"), ("head_split.value", "w_picks"))),
    _main("concat", ("B", "L", "H*dv"), "signed", sc_.concat, ex._concat, le._concat, se._concat,
          ("weighted_sum",), by_hand=("output",), repeats=(("weighted_sum", "concat"),)),
    _main("output", ("B", "L", "d_out"), "signed", sc_.projection, ex._projection, _sentences, se._output,
          ("concat", "projection.out.weight"), repeats=(("concat", "wo"),)),
    _extra("extra.mask", ("B", "L", "S"), "bool", mask_rules.mask_step, mask_rules.any_applies, ex._mask_cell, (),
           before="masked_scores", by_hand=("scores", "weights"),  # the sheet veils the masked cells of both
           lesson=le._mask),  # a sentence per rule that applies
    _extra("extra.fully_masked", ("B", "L"), "bool", mask_rules.fully_masked_step, mask_rules.any_applies,
           ex._fully_masked, ("extra.mask",), before="weighted_sum", slide="when_true"),
)
