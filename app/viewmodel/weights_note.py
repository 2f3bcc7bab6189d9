"""Where a scenario's weights came from, in the words shown beside them (Qt-free).

A layer of a quantized GGUF file (SmolLM2's Q4_1) carries `Scenario.weights_note` ("dequantized 4-bit (Q4_1)",
set by attention.models.decoder_layer.layer_scenario and kept in its file); every place its weights show says
so: Parameters ▸ Projections, Inputs ▸ Weights and the step panes computed with a projection weight.  The
panels read the scenario only: nothing here reaches into a model.
"""
from __future__ import annotations

from typing import Optional

from attention import words
from attention.datamodel.scenario import Scenario


def shown(sc: Optional[Scenario], lang: Optional[str] = None) -> str:
    """'Weights: dequantized 4-bit (Q4_1)' in `lang` (default: the current language), or '' when the scenario
    says nothing about its weights."""
    if sc is None:
        return ""
    note = sc.weights_note.get(words.normalize(lang or words.language()), "")
    return words.text("weights_note.shown", lang, note=note) if note else ""


def projection_of(step_id: str) -> Optional[str]:
    """The projection whose weight step `step_id` multiplies by (its registry inputs: 'projection.query.weight'
    -> 'query'), or None."""
    from attention.registry import step_registry

    rec = step_registry.BY_ID.get(step_id)
    for name in rec.inputs if rec is not None else ():
        if name.startswith("projection.") and name.endswith(".weight"):
            return name.split(".")[1]
    return None


def for_pane(sc: Optional[Scenario], step_id: str) -> dict[str, str]:
    """{"en", "zh"}: the note a step pane shows under its formula, where the step is computed with one of the
    scenario's projection weights (Q, K, V and the output of a GGUF layer); empty words otherwise."""
    name = projection_of(step_id)
    on = sc is not None and name is not None and sc.projection(name) is not None
    return {lang: shown(sc, lang) if on else "" for lang in words.LANGS}
