"""The main steps' snippets of the exported script: each step computed with plain torch and shown.

One function per main step (a kind that computes a step its own way writes its own snippet, in
its module); attention.teaching.script_export joins them, in computing order, into one script.
"""
from __future__ import annotations

from attention.kinds.plan import Plan
from attention.text.script import repeat_kv, section, show

_PROJECTED = {  # which -> (input, weight, bias, result, its shape)
    "query": ("queries", "W_q", "b_q", "Q", "(B, L, H*d_k)"),
    "key": ("keys", "W_k", "b_k", "K", "(B, S, H*d_k)"),
    "value": ("values", "W_v", "b_v", "V", "(B, S, H*d_v)"),
}


def _projection(plan: Plan, step_id: str) -> str:
    x, w, b, out, shape = _PROJECTED[step_id.split(".", 1)[1]]
    return section(plan, step_id) + f"{out} = linear({x}, {w}, {b})  # {shape}\n" + show(step_id, out)


def _head_split(plan: Plan, step_id: str) -> str:
    sc = plan.sc
    which = step_id.split(".", 1)[1]
    name, source, n, d = {"query": ("q", "Q", "L", "d_k"), "key": ("k", "K", "S", "d_k"),
                          "value": ("v", "V", "S", "d_v")}[which]
    H = "H_kv" if which != "query" and sc.kv_heads != sc.n_heads else "H"
    return (section(plan, step_id, f"{source}.view(B, {n}, {H}, {d})")
            + f"{name} = {source}.view(B, {n}, {H}, -1)  "
              f"# (B, {n}, {H}, {d}): head h owns columns h*{d} ... (h+1)*{d} - 1\n"
            + show(step_id, name))


def _scores(plan: Plan, step_id: str) -> str:
    """The dot-product kinds' scores (every scoring kind writes its own: `ScoringKind.script`)."""
    from attention.kinds.dot_product import SCALED_DOT

    return SCALED_DOT.script(plan, step_id)


def mask_snippet(plan: Plan) -> str:
    """The mask (True = this key is hidden from this query), or None: each mask rule's lines."""
    from attention.kinds import mask_rules

    return mask_rules.script(plan)


def _masked_scores(plan: Plan, step_id: str) -> str:
    masked = ("# d2l style, on the scaled scores\n"
              "masked_scores = scores if mask is None else scores.masked_fill(mask[:, None, :, :], fill_value)\n")
    return section(plan, step_id) + mask_snippet(plan) + masked + show(step_id, "masked_scores")


def _weights(plan: Plan, step_id: str) -> str:
    return (section(plan, step_id)
            + "# A fully masked row: with -1e6 every entry is equal, so the weights are uniform 1/S;\n"
            "# with -inf, exp(-inf - (-inf)) is NaN, so the row is NaN.\n"
            "attention_weights = torch.softmax(masked_scores, dim=-1)  # (B, H, L, S)\n"
            + show(step_id, "attention_weights"))


def _weighted_sum(plan: Plan, step_id: str) -> str:
    sc = plan.sc
    return (section(plan, step_id) + repeat_kv(sc, "v")
            + "out = (attention_weights @ v.transpose(1, 2)).transpose(1, 2)  # (B, L, H, d_v)\n"
            + show(step_id, "out"))


def _concat(plan: Plan, step_id: str) -> str:
    sc = plan.sc
    concat = ("concat = out.transpose(1, 2).contiguous().view(B, L, -1)  "
              "# mix: Time-Series-Library views the (B, H, L, d_v)\n"
              "# context as (B, L, H*d_v) without a transpose, so one row holds pieces of several positions\n"
              if sc.mix else "concat = out.reshape(B, L, -1)  # heads side by side: (B, L, H*d_v)\n")
    return section(plan, step_id) + concat + show(step_id, "concat")


def _output(plan: Plan, step_id: str) -> str:
    return section(plan, step_id) + "output = linear(concat, W_o, b_o)  # (B, L, d_out)\n" + show(step_id, "output")
