"""The dot-product scorings: scaled dot (Vaswani et al.) and plain dot (d2l's DotProductAttention
without the scale).  Both score q · k per head, mask with the fill value, and soft-max the rows.

`DotProduct` also holds what every kind shares unless it says otherwise (the default hooks):
another scoring subclasses it and overrides only what it computes differently.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Optional

from attention.datamodel.fields import Field


class DotProduct:
    """q · k (times the scale) per head; `scaled`: the default scale is 1/√d_k, else 1."""

    fields: tuple[Field, ...] = ()
    extra_steps: tuple[str, ...] = ()
    weights_attr: Optional[str] = None
    #: how the FlashAttention view (attention/teaching/tiles.py) gets a tile's scores: "dot" computes
    #: Q_i K_j^T * scale from the head split (checked against the trace), "read" takes the block
    #: from the trace's masked scores, None: the weights are not one softmax per row (no tiles)
    tiled: Optional[str] = "dot"
    not_tiled_words: str = "tiles.not_applicable.unknown"  # why there are no tiles, where tiled is None
    weight_matrices: tuple[tuple[str, bool], ...] = ()  # (name, one matrix per head): the editor's buttons
    free_widths = False
    grouped_kv = True  # query heads may share key/value heads (n_kv_heads < n_heads: GQA, MQA)
    not_computed_steps: tuple[str, ...] = ()
    capture_mismatch = "capture.mismatch_other"  # the hint when a recorded call is not reproduced

    def __init__(self, name: str, scaled: bool, titles: Optional[Mapping[str, str]] = None,
                 formulas: Optional[Mapping[str, str]] = None):
        self.name, self.scaled = name, scaled
        self.titles: Mapping[str, str] = dict(titles or {})
        self.formulas: Mapping[str, str] = dict(formulas or {})

    def __repr__(self) -> str:
        return f"<scoring {self.name}>"

    # ---- the scenario ------------------------------------------------------------------------
    def default_scale(self, sc) -> float:
        return 1.0 / math.sqrt(sc.dk) if self.scaled else 1.0

    def parameters(self, sc, dev, dt) -> dict:
        return {}

    def parameter_paths(self, sc) -> tuple[str, ...]:
        """The scenario paths of this kind's own weights (shown as inputs, named by problems)."""
        return ()

    def weight_problems(self, sc, check_values: bool) -> list:
        return []

    def option_problems(self, sc, errs: list) -> list:
        return []

    def stray_problems(self, sc) -> list:
        """Problems of this kind's own options when another kind is chosen (set but meaningless)."""
        return []

    def memory_terms(self, sc) -> tuple[int, int]:
        """(hidden, n_sample) for attention.datamodel.scenario.estimate_trace_bytes."""
        return 0, 0

    def options(self, sc) -> dict[str, Any]:
        """What this kind adds to trace.options."""
        return {}

    # ---- the engine (run: attention.compute.engine.Run) ------------------------------------------------
    def compute_scores(self, run):
        from attention.ops import steps

        q, k = run.inputs["head_split.query"], run.inputs["head_split.key"]  # (B, L, H, E), (B, S, Hkv, E)
        return steps.dot_scores(q, steps.repeat_kv(k, q.shape[2]), run.scale)  # (B, H, L, S)

    def compute_masked(self, run):
        from attention.ops import steps

        return steps.apply_mask(run.inputs["scores"], run.inputs.get("extra.mask"), run.sc.fill_value)

    def compute_weights(self, run):
        from attention.ops import steps

        return steps.softmax(run.inputs["masked_scores"])  # (B, H, L, S)

    # ---- explain, lessons, script ----------------------------------------------------------------
    def explain_cell(self, ctx, step_id: str, idx: tuple[int, ...]):
        """This kind's own explanation of a cell, or None: the step's record explains it."""
        return None

    def lazy_row(self, ctx, b: int, h: int, l: int) -> bool:
        """Whether query l of head h was left out of the scoring (ProbSparse's lazy queries)."""
        return False

    def lesson_keys(self, step_id: str, keys: list[str], v: dict[str, Any]) -> list[str]:
        """The lesson's sentences (catalogue keys) for `step_id`, given the generic ones `keys`."""
        if step_id != "scores":
            return keys
        if not self.scaled:
            return ["lesson.scores.dot", "lesson.scores.dot_unscaled"]
        if v["scale_unknown"]:
            return ["lesson.scores.scaled", "lesson.scores.why_sqrt_dk"]
        first = "lesson.scores.scaled_custom" if v["custom_scale"] else "lesson.scores.scaled_default"
        return [first, "lesson.scores.why_sqrt"]

    def script(self, plan, step_id: str) -> Optional[str]:
        """This kind's own snippet for `step_id` in the exported script, or None: the record's."""
        sc = plan.sc
        if step_id != "scores":
            return None
        from attention.text import script as se

        what = "scaled dot product" if self.scaled else "dot product"
        return (se.section(plan, step_id) + se.repeat_kv(sc, "k")
                + f"# {what}\n"
                "qh = q.transpose(1, 2)  # (B, H, L, d_k)\n"
                "kh = k.transpose(1, 2)  # (B, H, S, d_k)\n"
                "scores = (qh * scale) @ kh.transpose(-2, -1)  "
                "# (B, H, L, S); the scale is applied to q first, as the engine does\n"
                + se.show(step_id, "scores"))

    def script_numbers(self, sc) -> str:
        """The literals of this kind's own weights in the exported script."""
        return ""

    def scale_why(self, sc) -> str:
        """The exported script's comment on a default scale."""
        if self.scaled:
            return f"the default 1/sqrt(d_keys) = 1/sqrt({sc.dk})"
        return f"the default for {self.name}: no scaling"


SCALED_DOT = DotProduct("scaled_dot", scaled=True)
DOT = DotProduct("dot", scaled=False, titles={"scores": "step.scores.title.dot"})

