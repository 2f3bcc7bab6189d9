"""The teaching texts: two or three sentences per step, in the current Qt language.

Presentation mode and the HTML handouts read the same texts from here.  Every sentence goes
through `QCoreApplication.translate("Lessons", ...)` so that lupdate finds it and the installed
QTranslator gives the Chinese; numbers taken from the trace's options (the scale actually used,
the fill value, d_k, the kind) are put in afterwards with `str.format`, so a translation keeps
the `{placeholders}`.  This module holds no attention math: it only reads what the engine
resolved (`trace.options`, which steps and parameters exist).
"""
from __future__ import annotations

import math
from typing import Any, Optional

from PySide6.QtCore import QCoreApplication

from attention import numbers
from attention.trace import PIPELINE

CONTEXT = "Lessons"  # the literal "Lessons" is written out in each call so that lupdate finds it

#: ProbSparse extras shown in presentation, in the order Informer computes them.
PROB_SPARSE_LESSONS: tuple[str, ...] = (
    "extra.sample_count", "extra.sampled_scores", "extra.sparsity", "extra.selected",
)


# --- numbers as a teacher writes them --------------------------------------------------------

def format_number(value: Any) -> str:
    """A number as every text writes it (attention.numbers.rounded: -1e6, -∞, 0.7071); a value
    that is not a number (a placeholder such as "d_k") is written as it is."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    return numbers.rounded(v)


def _is_neg_inf(fill: Any) -> bool:
    try:
        return math.isinf(float(fill)) and float(fill) < 0
    except (TypeError, ValueError):
        return str(fill).lower() in ("-inf", "-infinity")


def _values(options: Optional[dict]) -> dict[str, Any]:
    """The placeholders every text may use, with defaults when no trace is at hand."""
    o = options or {}
    dk = o.get("d_keys") or "d_k"
    scale = o.get("scale")
    head_width = o.get("query_head_width") or dk
    default_scale = o.get("default_scale")  # the engine's rule, not worked out again here
    custom = scale is not None and default_scale is not None and float(scale) != float(default_scale)
    return {
        "custom_scale": custom,
        "scale_unknown": scale is None or default_scale is None,
        "dk": str(head_width),
        "dv": str(o.get("d_values") or "d_v"),
        "heads": str(o.get("n_heads") or "H"),
        "d_model": str(o.get("d_model") or "d_model"),
        "scale": format_number(scale) if scale is not None else "1/√d_k",
        "sqrt_dk": format_number(1 / default_scale) if default_scale else "√d_k",
        "fill": format_number(o.get("fill_value", -1e6)),
        "S": str(o.get("S") or "S"),
        "L": str(o.get("L") or "L"),
        "hidden": str(o.get("hidden") or "h"),
        "n_top": str(o.get("n_top") or "u"),
        "n_sample": str(o.get("n_sample") or "n_sample"),
    }


# --- the texts --------------------------------------------------------------------------------

def _projection(step_id: str) -> str:
    which = step_id.split(".", 1)[1]
    first = {
        "query": QCoreApplication.translate("Lessons", "Each query row is multiplied by the learned matrix W_q (plus a bias): Q is a "
                     "projection of the input, not the input itself."),
        "key": QCoreApplication.translate("Lessons", "Each key row is multiplied by its own learned matrix W_k (plus a bias), so "
                   "keys live in the same space as the projected queries and can be compared with "
                   "them."),
        "value": QCoreApplication.translate("Lessons", "Each value row is multiplied by W_v (plus a bias): the values are what "
                     "will be mixed together, and the model learns what information to carry."),
    }[which]
    why = QCoreApplication.translate("Lessons", "Three different projections of the same tokens let the model learn separately "
              "what to look for (Q), what to be found by (K) and what to hand over (V). "
              "With the projection switched off (d2l's scoring functions have none) the input "
              "passes unchanged.")
    return f"{first} {why}"


def _head_split(step_id: str, v: dict[str, Any]) -> str:
    width = v["dv"] if step_id.endswith("value") else v["dk"]
    if v["heads"] == "1":  # _values gives strings ("H" when unknown)
        return QCoreApplication.translate("Lessons", "With one head nothing is cut: the single head owns all {width} "
            "columns of the projected row, and the view only adds a head axis of size 1. Set H to 2 or more to see "
            "d_model shared out between heads.").format(width=width)
    return " ".join((
        QCoreApplication.translate("Lessons", "The {heads} heads do not get new weights: the projected row is cut into {heads} "
            "blocks of {width} columns, head h owning columns h·{width} … (h+1)·{width}−1.")
        .format(heads=v["heads"], width=width),
        QCoreApplication.translate("Lessons", "So d_model is shared out rather than copied: {heads} heads of width {width} cost "
            "the same as one wide head, yet each head can attend to different positions.")
        .format(heads=v["heads"], width=width),
    ))


def _scores(kind: str, v: dict[str, Any]) -> str:
    if kind == "additive":
        return " ".join((
            QCoreApplication.translate("Lessons", "Additive attention (d2l) scores a query and a key with a small network: "
                "w_v · tanh(W_q q + W_k k), with {hidden} hidden units.").format(**v),
            QCoreApplication.translate("Lessons", "Queries and keys may have different widths, since W_q and W_k map both into "
                "the same hidden space; tanh keeps each feature in [−1, 1], and no scale is "
                "applied."),
        ))
    if kind == "dot":
        return " ".join((
            QCoreApplication.translate("Lessons", "Each score is the dot product q · k of one query with one key: large when they "
                "point the same way."),
            QCoreApplication.translate("Lessons", "This kind does not scale (scale = {scale}); with wide heads the scores grow "
                "and the softmax becomes almost one-hot.").format(**v),
        ))
    if v["scale_unknown"]:
        return " ".join((
            QCoreApplication.translate("Lessons", "Each score is the dot product q · k of one query with one key, multiplied "
                        "by the scale 1/√d_k."),
            QCoreApplication.translate("Lessons", "Why 1/√d_k: a dot product of d_k independent terms of variance 1 has "
                        "variance d_k, so dividing by √d_k keeps the scores near unit size and the "
                        "softmax from saturating."),
        ))
    if v["custom_scale"]:
        first = QCoreApplication.translate("Lessons", "Each score is the dot product q · k of one query with one key, multiplied by "
                    "the scale {scale}, set by hand (the default would be 1/√{dk}).").format(**v)
    else:
        first = QCoreApplication.translate("Lessons", "Each score is the dot product q · k of one query with one key, multiplied by "
                    "the scale {scale} = 1/√{dk}.").format(**v)
    text = " ".join((
        first,
        QCoreApplication.translate("Lessons", "Why 1/√d_k: a dot product of d_k independent terms of variance 1 has variance d_k, "
            "so dividing by √{dk} = {sqrt_dk} keeps the scores near unit size and the softmax "
            "from saturating.").format(**v),
    ))
    if kind == "prob_sparse":
        text += " " + QCoreApplication.translate("Lessons", "ProbSparse computes these scores only for its chosen queries; the "
                          "other rows were never computed and are drawn as such.")
    return text


def _masked_scores(options: dict, v: dict[str, Any]) -> str:
    has_mask = options.get("valid_lens") is not None or bool(options.get("causal"))
    if not has_mask and options:
        return QCoreApplication.translate("Lessons", "No mask is set, so the masked scores are the scores unchanged. Set valid "
                   "lengths or causal to see padding or future keys excluded.")
    text = QCoreApplication.translate("Lessons", "Every masked position is replaced by the fill value {fill}: keys at or beyond "
               "a row's valid length (d2l's sequence_mask: keep position s when s < valid_len), "
               "and with causal masking every key after the query (s > l).").format(**v)
    if _is_neg_inf(options.get("fill_value", -1e6)):
        text += " " + QCoreApplication.translate("Lessons", "Time-Series-Library fills with −∞, so a masked key gets exactly "
                          "zero weight.")
    else:
        text += " " + QCoreApplication.translate("Lessons", "Like d2l's −1e6, the fill is a very large negative number "
                          "rather than −∞: its exponential underflows to zero, and the "
                          "arithmetic never meets an infinity.")
    return text


def _weights(options: dict, v: dict[str, Any]) -> str:
    parts = [QCoreApplication.translate("Lessons", "Softmax turns each row of scores into weights that are positive and sum to 1: "
                 "the weight at (query l, key s) is how much query l takes from value s."),
             QCoreApplication.translate("Lessons", "The weights have shape (batch, queries, key-value pairs), one such matrix per "
                 "head: row l says how query l shares its attention among the keys.")]
    has_mask = options.get("valid_lens") is not None or bool(options.get("causal"))
    if has_mask or not options:
        if _is_neg_inf(options.get("fill_value", -1e6)):
            parts.append(QCoreApplication.translate("Lessons", "Masked keys get weight 0. If every key of a row is masked, the row "
                             "is all −∞ and softmax gives NaN (0/0) in that row."))
        else:
            parts.append(QCoreApplication.translate("Lessons", "Masked keys get weight 0. If every key of a row is masked, the "
                             "row is all {fill} and softmax gives uniform weights 1/{S} over all "
                             "keys, padding included; with −∞ it would be NaN.").format(**v))
    if options.get("scoring") == "prob_sparse":
        parts.append(QCoreApplication.translate("Lessons", "For queries ProbSparse did not choose, the effective weights are 1/S "
                         "(their output is the mean of V), or with causal masking 1 for every "
                         "key up to the query (a cumulative sum)."))
    return " ".join(parts)


def _weighted_sum() -> str:
    return " ".join((
        QCoreApplication.translate("Lessons", "Each output row is the weighted sum Σ_s a_ls v_s of the value rows, with that "
            "query's weights: an average of the values, leaning towards the keys it attends to."),
        QCoreApplication.translate("Lessons", "In shapes: (batch, queries, key-value pairs) × (batch, key-value pairs, d_v) → "
            "(batch, queries, d_v), as torch.bmm computes it, in every head."),
    ))


def _concat(options: dict, v: dict[str, Any]) -> str:
    text = QCoreApplication.translate("Lessons", "The heads' outputs are put side by side again: a plain view of (B, L, {heads}, "
               "{dv}) as (B, L, {heads}·{dv}), no arithmetic, so each row holds what every head "
               "found for that query.").format(**v)
    if options.get("mix"):
        text += " " + QCoreApplication.translate("Lessons", "With Time-Series-Library's ProbSparse layout the view is taken "
                          "without a transpose, so a row mixes positions and heads.")
    return text


def _output() -> str:
    return " ".join((
        QCoreApplication.translate("Lessons", "The out projection W_o (plus a bias) multiplies the concatenated row: this is "
            "where the heads' results are mixed with each other."),
        QCoreApplication.translate("Lessons", "It gives back a row of width d_model for each query, the same shape the layer "
            "received, so attention layers can be stacked. Switched off, the output is the "
            "concatenation itself."),
    ))


def _extra(step_id: str, v: dict[str, Any]) -> str:
    texts = {
        "extra.mask": lambda: " ".join((
            QCoreApplication.translate("Lessons", "The mask marks the keys a query may not see (True = masked)."),
            QCoreApplication.translate("Lessons", "d2l builds it by comparing arange(S) with each valid length: position s is "
                "kept when s < valid_len; causal masking also hides every key s > l."),
        )),
        "extra.fully_masked": lambda: QCoreApplication.translate("Lessons",
            "These rows have every key masked, for instance a valid length of 0. Their softmax "
            "has nothing left to choose from: uniform weights with a finite fill such as −1e6, "
            "NaN with −∞."),
        "extra.sample_index": lambda: QCoreApplication.translate("Lessons",
            "ProbSparse draws {n_sample} random keys for every query (with replacement, from the "
            "seeded generator); the same draw serves every batch item and head.").format(**v),
        "extra.sample_count": lambda: " ".join((
            QCoreApplication.translate("Lessons", "ProbSparse (Informer) does not score every query against every key at first: "
                "it samples {n_sample} keys per query. This shows how often each key was drawn "
                "for each query.").format(**v),
            QCoreApplication.translate("Lessons", "Sampling is enough to tell which queries are 'active', at a cost of "
                "L·ln S instead of L·S dot products."),
        )),
        "extra.sampled_scores": lambda: QCoreApplication.translate("Lessons",
            "The unscaled dot products of each query with its sampled keys only. They are used "
            "to measure how peaked each query's attention is, not as the final scores."),
        "extra.sparsity": lambda: " ".join((
            QCoreApplication.translate("Lessons", "The sparsity measure M = max − sum / S over the sampled scores."),
            QCoreApplication.translate("Lessons", "A query whose attention is close to uniform has M near 0; a large M means a "
                "few keys stand out, so that query is worth computing exactly."),
        )),
        "extra.top_index": lambda: QCoreApplication.translate("Lessons",
            "The {n_top} queries with the largest M in each head; only they get full scores and "
            "a softmax.").format(**v),
        "extra.selected": lambda: " ".join((
            QCoreApplication.translate("Lessons", "The {n_top} queries with the largest M in each head are chosen (True); only "
                "their rows get full scores and a softmax.").format(**v),
            QCoreApplication.translate("Lessons", "The other, 'lazy' queries keep a cheap default output: the mean of the values "
                "(or their cumulative sum when causal)."),
        )),
    }
    make = texts.get(step_id)
    return make() if make else ""


def explanation(step_id: str, options: Optional[dict] = None) -> str:
    """Two or three sentences about `step_id` in the current Qt language ("" for unknown ids).

    `options` is `trace.options`; with it the text names the real scale, fill value and kind."""
    text = _explanation(step_id, options or {})
    # sentences are joined with a space, which Chinese text does not put after its full stop
    return text.replace("。 ", "。").replace("） ", "）")


def _explanation(step_id: str, o: dict) -> str:
    v = _values(o)
    kind = o.get("scoring", "scaled_dot")
    if step_id.startswith("projection."):
        return _projection(step_id)
    if step_id.startswith("head_split."):
        return _head_split(step_id, v)
    simple = {
        "scores": lambda: _scores(kind, v),
        "masked_scores": lambda: _masked_scores(o, v),
        "attention_weights": lambda: _weights(o, v),
        "weighted_sum": _weighted_sum,
        "concat": lambda: _concat(o, v),
        "output": _output,
    }
    if step_id in simple:
        return simple[step_id]()
    return _extra(step_id, v)


# --- which steps, in which order, with which inputs --------------------------------------------

def _any_true(trace: Any, step_id: str) -> bool:
    return step_id in trace and bool(trace.array(step_id).any())


def lesson_ids(trace: Any) -> list[str]:
    """The steps presentation mode shows, in teaching order.

    The pipeline, with the mask just before the masked scores, the fully-masked rows after the
    weights when some row has every key masked, and ProbSparse's sampling and selection before
    the scores (the order Informer computes them in)."""
    ids: list[str] = []
    for step_id in PIPELINE:
        if step_id == "scores":
            ids += [s for s in PROB_SPARSE_LESSONS if s in trace]
        if step_id == "masked_scores" and "extra.mask" in trace:
            ids.append("extra.mask")
        ids.append(step_id)
        if step_id == "attention_weights" and _any_true(trace, "extra.fully_masked"):
            ids.append("extra.fully_masked")
    return ids


def _present(names: list[str], trace: Any) -> list[str]:
    return [n for n in names if n in trace or n in getattr(trace, "parameters", {})]


def inputs_of(step_id: str, trace: Any) -> list[str]:
    """What is shown beside `step_id` as its inputs: step ids, or parameter names such as
    "queries" or "projection.query.weight" (only those the trace holds)."""
    if step_id.startswith("projection."):
        which = step_id.split(".", 1)[1]
        source = {"query": "queries", "key": "keys", "value": "values", "out": "concat"}[which]
        return _present([source, f"projection.{which}.weight"], trace)
    if step_id.startswith("head_split."):
        return _present(["projection." + step_id.split(".", 1)[1]], trace)
    table = {
        "scores": ["head_split.query", "head_split.key"],
        "masked_scores": ["scores", "extra.mask"],
        "attention_weights": ["masked_scores"],
        "weighted_sum": ["attention_weights", "head_split.value"],
        "concat": ["weighted_sum"],
        "output": ["concat", "projection.out.weight"],
        "extra.mask": [],
        "extra.fully_masked": ["extra.mask"],
        "extra.sample_index": [],
        "extra.sample_count": ["extra.sample_index"],
        "extra.sampled_scores": ["head_split.query", "head_split.key"],
        "extra.sparsity": ["extra.sampled_scores"],
        "extra.top_index": ["extra.sparsity"],
        "extra.selected": ["extra.sparsity"],
    }
    return _present(table.get(step_id, []), trace)


def parameter_title(name: str) -> str:
    """A display title for a parameter shown as an input ("queries", "projection.out.weight")."""
    titles = {
        "queries": QCoreApplication.translate("Lessons", "Queries (input)"),
        "keys": QCoreApplication.translate("Lessons", "Keys (input)"),
        "values": QCoreApplication.translate("Lessons", "Values (input)"),
        "projection.query.weight": QCoreApplication.translate("Lessons", "Query projection weight W_q"),
        "projection.key.weight": QCoreApplication.translate("Lessons", "Key projection weight W_k"),
        "projection.value.weight": QCoreApplication.translate("Lessons", "Value projection weight W_v"),
        "projection.out.weight": QCoreApplication.translate("Lessons", "Output projection weight W_o"),
    }
    return titles.get(name, name)
