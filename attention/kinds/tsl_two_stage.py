"""Crossformer's Two-Stage Attention layer (TSL's TwoStageAttentionLayer) as steps of a trace:
a two-stage part in the scenario's `modifiers`, with the mask rule it brings.

The layer reads x (b, D, seg, d): D variables, seg segments each.  The scenario holds it as
tokens, one batch item per series and token l = v·seg + s (variable v, segment s: x flattened
variable by variable), queries = keys = values = x.  Then the main pipeline IS the cross-time
stage: TSL runs `time_attention` on each variable's seg segments alone ((b·D, seg, d)), which
is the same arithmetic as attention over all D·seg tokens with every other variable's keys
masked (the rule "two_stage_variables": block-diagonal, one seg × seg block per variable; a
masked key weighs exactly 0).  The projections are time_attention's, the scale its 1/√dk.

After the output projection, one step each (TSL's layers/SelfAttention_Family.py, MIT, thuml;
dropout the identity in eval; the math is attention/kinds/two_stage.py's):

  cross-time stage, per token
    extra.tsa_time_norm       = norm1(x + output)
    extra.tsa_time_mlp_hidden = GELU(time_norm @ W1ᵀ + b1)            MLP1's first Linear, d -> d_ff
    extra.tsa_time_mlp        = hidden @ W2ᵀ + b2                     MLP1's second Linear
    extra.tsa_dim_in          = norm2(time_norm + time_mlp)           TSL's dim_in
  cross-dimension stage, per segment s (TSL: dim_send = dim_in as (b·seg, D, d))
    extra.tsa_router_scores   (B, H, seg*factor, D)  the router as QUERIES: row s·factor + r is
                              router[s, r] projected by dim_sender's query Linear, against the D
                              variables' dim_in at segment s (its key Linear), × 1/√dk
    extra.tsa_router_weights  softmax over the D variables: how router slot r gathers segment s
    extra.tsa_buffer          (B, seg*factor, d_out)  dim_sender's output: TSL's dim_buffer
    extra.tsa_receive_scores  (B, H, L, factor)  token (v, s) as the query against its segment's
                              factor buffer rows (dim_receiver)
    extra.tsa_receive_weights softmax over the factor slots: how each variable reads back
    extra.tsa_receive         (B, L, d_out)  dim_receiver's output: TSL's dim_receive
    extra.tsa_dim_norm        = norm3(dim_in + receive)
    extra.tsa_dim_mlp_hidden  = GELU(dim_norm @ W1ᵀ + b1)             MLP2
    extra.tsa_dim_mlp         = hidden @ W2ᵀ + b2
    extra.tsa_output          = norm4(dim_norm + dim_mlp): the layer's output, TSL's final_out
                              (b, D, seg, d) flattened to tokens v·seg + s

The router is an editable (seg·factor, d_model) matrix: row s·factor + r is TSL's
router[s, r] (the nn.Parameter (seg_num, factor, d_model) reshaped).  Weights: sender_* and
receiver_* (query/key/value/out Linear weight (out, in) and bias; absent: the identity and 0),
norm1..norm4 weight and bias (absent: 1 and 0, a fresh LayerNorm), mlp1/mlp2 in/out weight and
bias (weights required; absent bias: 0).  n_heads is the scenario's (TSL gives all three
attentions the same), each head dk = d_model / n_heads wide.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Optional

from attention.datamodel.fields import INT_MAX, Field
from attention.kinds.dot_product import SCALED_DOT

NAME = "two_stage"
RULE = "two_stage_variables"
ATTNS = ("sender", "receiver")
PROJS = ("query", "key", "value", "out")
LINEARS = tuple(f"{a}_{p}_{wb}" for a in ATTNS for p in PROJS for wb in ("weight", "bias"))
NORMS = tuple(f"norm{i}_{wb}" for i in range(1, 5) for wb in ("weight", "bias"))
MLPS = tuple(f"mlp{i}_{io}_{wb}" for i in (1, 2) for io in ("in", "out") for wb in ("weight", "bias"))
MATRICES = ("router",) + LINEARS + NORMS + MLPS

#: (step id, dims, kind) in computing order, all after the output projection
STEPS = (("extra.tsa_time_norm", ("B", "L", "d_out"), "signed"),
         ("extra.tsa_time_mlp_hidden", ("B", "L", "d_ff"), "signed"),
         ("extra.tsa_time_mlp", ("B", "L", "d_out"), "signed"),
         ("extra.tsa_dim_in", ("B", "L", "d_out"), "signed"),
         ("extra.tsa_router_scores", ("B", "H", "seg*factor", "D"), "signed"),
         ("extra.tsa_router_weights", ("B", "H", "seg*factor", "D"), "weights"),
         ("extra.tsa_buffer", ("B", "seg*factor", "d_out"), "signed"),
         ("extra.tsa_receive_scores", ("B", "H", "L", "factor"), "signed"),
         ("extra.tsa_receive_weights", ("B", "H", "L", "factor"), "weights"),
         ("extra.tsa_receive", ("B", "L", "d_out"), "signed"),
         ("extra.tsa_dim_norm", ("B", "L", "d_out"), "signed"),
         ("extra.tsa_dim_mlp_hidden", ("B", "L", "d_ff"), "signed"),
         ("extra.tsa_dim_mlp", ("B", "L", "d_out"), "signed"),
         ("extra.tsa_output", ("B", "L", "d_out"), "signed"))
INPUTS = {"extra.tsa_time_norm": ("queries", "output"), "extra.tsa_time_mlp_hidden": ("extra.tsa_time_norm",),
          "extra.tsa_time_mlp": ("extra.tsa_time_mlp_hidden",),
          "extra.tsa_dim_in": ("extra.tsa_time_norm", "extra.tsa_time_mlp"),
          "extra.tsa_router_scores": ("extra.tsa_dim_in",), "extra.tsa_router_weights": ("extra.tsa_router_scores",),
          "extra.tsa_buffer": ("extra.tsa_router_weights", "extra.tsa_dim_in"),
          "extra.tsa_receive_scores": ("extra.tsa_dim_in", "extra.tsa_buffer"),
          "extra.tsa_receive_weights": ("extra.tsa_receive_scores",),
          "extra.tsa_receive": ("extra.tsa_receive_weights", "extra.tsa_buffer"),
          "extra.tsa_dim_norm": ("extra.tsa_dim_in", "extra.tsa_receive"),
          "extra.tsa_dim_mlp_hidden": ("extra.tsa_dim_norm",), "extra.tsa_dim_mlp": ("extra.tsa_dim_mlp_hidden",),
          "extra.tsa_output": ("extra.tsa_dim_norm", "extra.tsa_dim_mlp")}
#: the LayerNorm steps: (the two steps whose sum it normalises, the norm's weight prefix)
NORM_STEPS = {"extra.tsa_time_norm": (("queries", "output"), "norm1"),
              "extra.tsa_dim_in": (("extra.tsa_time_norm", "extra.tsa_time_mlp"), "norm2"),
              "extra.tsa_dim_norm": (("extra.tsa_dim_in", "extra.tsa_receive"), "norm3"),
              "extra.tsa_output": (("extra.tsa_dim_norm", "extra.tsa_dim_mlp"), "norm4")}
#: the Linear steps: (input: a step or a parameter of the trace, weight prefix, GELU after it)
LINEAR_STEPS = {"extra.tsa_time_mlp_hidden": ("extra.tsa_time_norm", "mlp1_in", True),
                "extra.tsa_time_mlp": ("extra.tsa_time_mlp_hidden", "mlp1_out", False),
                "extra.tsa_buffer": (f"{NAME}.sender_context", "sender_out", False),
                "extra.tsa_receive": (f"{NAME}.receiver_context", "receiver_out", False),
                "extra.tsa_dim_mlp_hidden": ("extra.tsa_dim_norm", "mlp2_in", True),
                "extra.tsa_dim_mlp": ("extra.tsa_dim_mlp_hidden", "mlp2_out", False)}


def _matrix(name: str) -> Field:
    return Field(f"modifiers.{name}", "matrix", f"field.modifiers.two_stage.{name}.label",
                 f"field.modifiers.two_stage.{name}.help", group="modifiers")


def _part(sc: Any):
    from attention.datamodel import parts

    return parts.find(sc, "modifiers", NAME)


def _active(sc: Any) -> bool:
    """Whether the scenario has a two-stage part (the variables rule applies then)."""
    return _part(sc) is not None


def _option_part(options: Mapping[str, Any]) -> Optional[Mapping[str, Any]]:
    return next((m for m in options.get("modifiers") or () if isinstance(m, dict) and m.get("kind") == NAME), None)


class TwoStagePart:
    """Crossformer's TwoStageAttentionLayer around the time stage the main pipeline computes."""

    name = NAME
    editable = ("router",)  # the window's Inputs > Weights tab edits it (app/viewmodel/matrix_ref.py)
    fields = (Field("modifiers.variables", "int", "field.modifiers.two_stage.variables.label",
                    "field.modifiers.two_stage.variables.help", minimum=1, maximum=INT_MAX, group="modifiers"),
              Field("modifiers.factor", "int", "field.modifiers.two_stage.factor.label",
                    "field.modifiers.two_stage.factor.help", default=1, minimum=1, maximum=INT_MAX,
                    group="modifiers"),
              *(_matrix(n) for n in MATRICES))

    def __repr__(self) -> str:
        return f"<modifier {self.name}>"

    def records(self) -> tuple:
        from attention.datamodel import parts
        from attention.datamodel.step_record import StepRecord
        from attention.text import lesson

        explainer = {sid: explain_norm for sid in NORM_STEPS} | {sid: explain_linear for sid in LINEAR_STEPS}
        explainer |= {"extra.tsa_router_scores": explain_scores, "extra.tsa_receive_scores": explain_scores,
                      "extra.tsa_router_weights": explain_weights, "extra.tsa_receive_weights": explain_weights}
        active = parts.present("modifiers", NAME)
        return tuple(StepRecord(sid, dims, kind, f"step.{sid}.title", f"step.{sid}.formula", compute_step, active,
                                explainer[sid], lesson._sentences, None, INPUTS[sid]) for sid, dims, kind in STEPS)

    def part_problems(self, sc: Any, part: Any, path: str, kinds: Any) -> list:
        """The layer's shapes, named by field; its time stage is TSL's FullAttention(mask_flag=False)."""
        from attention.datamodel import parts
        from attention.datamodel.problem import Problem

        D = int(part.get("variables"))
        if kinds.scoring is not SCALED_DOT or sc.scale is not None:
            return [Problem("two_stage_scoring", path)]
        if sc.causal or sc.valid_lens is not None or parts.of(sc, "masks"):
            return [Problem("two_stage_mask", path)]
        if any(block is not self for block in kinds.blocks):  # an encoder layer or its distilling
            return [Problem("two_stage_alone", path)]
        if sc.S != sc.L or sc.L % D:
            return [Problem("two_stage_tokens", f"{path}.variables", {"L": sc.L, "S": sc.S, "D": D})]
        d, H = sc.d_model, sc.n_heads
        if sc.d_out != d or d % H:
            return [Problem("two_stage_width", path, {"d_out": sc.d_out, "d_model": d, "H": H})]
        return _shape_problems(sc, part, path, sc.L // D, d)

    def script_after(self, plan) -> str:
        """The exported script's lines after the output projection: the library's layout, (b·seg, D, d)."""
        sc = plan.sc
        from attention.text import script as se

        if _part(sc) is None:
            return ""
        w, D, factor = weights_np(sc), variables(sc), factor_of(sc)
        out = ["\n# ---- Crossformer's TwoStageAttentionLayer (TSL layers/SelfAttention_Family.py), eval: dropout = "
               "identity\n# the time stage was the attention above (each variable's segments only: the mask)\n"]
        for name in MATRICES:
            out.append(se.tensor_literal(f"T_{name}", w[name], f"two-stage {name} {w[name].shape}"))
        out.append(_SCRIPT.format(D=D, factor=factor, H=sc.n_heads))
        return "".join(out)


TWO_STAGE = TwoStagePart()

_SCRIPT = '''D, factor, H_tsa = {D}, {factor}, {H}  # variables, router slots per segment, heads
b_, seg = queries.shape[0], queries.shape[1] // D
gelu = lambda h: 0.5 * h * (1.0 + torch.erf(h / 2.0 ** 0.5))  # nn.GELU (exact)
ln = lambda v, g, b: torch.nn.functional.layer_norm(v, (v.shape[-1],), g, b, 1e-5)
lin = lambda v, name: v @ globals()["T_" + name + "_weight"].T + globals()["T_" + name + "_bias"]


def attend(xq, xkv, who):
    """AttentionLayer(FullAttention(mask_flag=False)): (N, Lq, d), (N, Lk, d) -> weights, output."""
    N, Lq, Lk = xq.shape[0], xq.shape[1], xkv.shape[1]
    q = lin(xq, who + "_query").view(N, Lq, H_tsa, -1)
    k = lin(xkv, who + "_key").view(N, Lk, H_tsa, -1)
    v = lin(xkv, who + "_value").view(N, Lk, H_tsa, -1)
    A = torch.softmax(torch.einsum("blhe,bshe->bhls", q, k) / q.shape[-1] ** 0.5, dim=-1)
    return A, lin(torch.einsum("bhls,bshd->blhd", A, v).reshape(N, Lq, -1), who + "_out")


x_in = queries.to(dtype)  # tokens v*seg + s: x (b, D, seg, d) flattened
n1 = ln(x_in + output, T_norm1_weight, T_norm1_bias)
show("extra.tsa_time_norm", n1)
h1 = gelu(lin(n1, "mlp1_in"))
show("extra.tsa_time_mlp_hidden", h1)
m1 = lin(h1, "mlp1_out")
show("extra.tsa_time_mlp", m1)
dim_in = ln(n1 + m1, T_norm2_weight, T_norm2_bias)
show("extra.tsa_dim_in", dim_in)
# rearrange '(b ts_d) seg_num d_model -> (b seg_num) ts_d d_model'
dim_send = dim_in.reshape(b_, D, seg, -1).permute(0, 2, 1, 3).reshape(b_ * seg, D, -1)
router = T_router.reshape(seg, factor, -1).repeat(b_, 1, 1)  # (b*seg, factor, d): row b*seg + s is router[s]
A_send, dim_buffer = attend(router, dim_send, "sender")  # the router slots are the QUERIES
d_k = T_sender_query_weight.shape[0] // H_tsa
q_r = lin(router, "sender_query").view(b_ * seg, factor, H_tsa, -1)
k_v = lin(dim_send, "sender_key").view(b_ * seg, D, H_tsa, -1)
send_scores = torch.einsum("blhe,bshe->bhls", q_r, k_v) / d_k ** 0.5
tok = lambda a: a.reshape(b_, seg, *a.shape[1:])  # (b*seg, ...) -> (b, seg, ...)
show("extra.tsa_router_scores", tok(send_scores).permute(0, 2, 1, 3, 4).reshape(b_, H_tsa, seg * factor, D))
show("extra.tsa_router_weights", tok(A_send).permute(0, 2, 1, 3, 4).reshape(b_, H_tsa, seg * factor, D))
show("extra.tsa_buffer", dim_buffer.reshape(b_, seg * factor, -1))
A_recv, dim_receive = attend(dim_send, dim_buffer, "receiver")  # each variable reads back from the slots
q_v = lin(dim_send, "receiver_query").view(b_ * seg, D, H_tsa, -1)
k_r = lin(dim_buffer, "receiver_key").view(b_ * seg, factor, H_tsa, -1)
recv_scores = torch.einsum("blhe,bshe->bhls", q_v, k_r) / d_k ** 0.5
show("extra.tsa_receive_scores", tok(recv_scores).permute(0, 2, 3, 1, 4).reshape(b_, H_tsa, D * seg, factor))
show("extra.tsa_receive_weights", tok(A_recv).permute(0, 2, 3, 1, 4).reshape(b_, H_tsa, D * seg, factor))
show("extra.tsa_receive", tok(dim_receive).permute(0, 2, 1, 3).reshape(b_, D * seg, -1))
n3 = ln(dim_send + dim_receive, T_norm3_weight, T_norm3_bias)
show("extra.tsa_dim_norm", tok(n3).permute(0, 2, 1, 3).reshape(b_, D * seg, -1))
h2 = gelu(lin(n3, "mlp2_in"))
show("extra.tsa_dim_mlp_hidden", tok(h2).permute(0, 2, 1, 3).reshape(b_, D * seg, -1))
m2 = lin(h2, "mlp2_out")
show("extra.tsa_dim_mlp", tok(m2).permute(0, 2, 1, 3).reshape(b_, D * seg, -1))
dim_enc = ln(n3 + m2, T_norm4_weight, T_norm4_bias)
# rearrange '(b seg_num) ts_d d_model -> b ts_d seg_num d_model', then tokens v*seg + s
final_out = dim_enc.reshape(b_, seg, D, -1).permute(0, 2, 1, 3)
show("extra.tsa_output", final_out.reshape(b_, D * seg, -1))
'''


def _shape_problems(sc: Any, part: Any, path: str, seg: int, d: int) -> list:
    import numpy as np

    from attention.datamodel import parts
    from attention.datamodel.problem import Problem
    from attention.datamodel.problem import shape as _shape

    factor = int(parts.value(part, TWO_STAGE.fields[1]))
    w1 = part.get("mlp1_in_weight")
    d_ff = np.asarray(w1).shape[0] if w1 is not None and np.ndim(w1) == 2 else 0
    want = {"router": (seg * factor, d)}
    for a in ATTNS:
        for p in PROJS:
            want[f"{a}_{p}_weight"], want[f"{a}_{p}_bias"] = (d, d), (d,)
    want |= {n: (d,) for n in NORMS}
    for i in (1, 2):
        want |= {f"mlp{i}_in_weight": (d_ff, d), f"mlp{i}_in_bias": (d_ff,), f"mlp{i}_out_weight": (d, d_ff),
                 f"mlp{i}_out_bias": (d,)}
    for name in MATRICES:
        v = part.get(name)
        if v is None:
            if name == "router" or name.startswith("mlp") and name.endswith("weight"):
                return [Problem("required", f"{path}.{name}")]
            continue
        arr = np.asarray(v, dtype=np.float64)
        if arr.shape != want[name] or name == "mlp1_in_weight" and d_ff == 0:
            return [Problem("two_stage_shape", f"{path}.{name}",
                            {"expected": _shape(want[name]), "got": _shape(arr.shape)})]
        if not np.all(np.isfinite(arr)):
            from attention.datamodel.problem import index_path

            bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
            return [Problem("expected_finite", index_path(f"{path}.{name}", bad), {"got": str(arr[bad])})]
    return []


def variables(sc: Any) -> int:
    return int(_part(sc).get("variables"))


def factor_of(sc: Any) -> int:
    from attention.datamodel import parts

    return int(parts.value(_part(sc), TWO_STAGE.fields[1]))


def weights_np(sc: Any) -> dict:
    """The part's matrices as float64 arrays; an absent Linear the identity and 0, a LayerNorm 1 and 0."""
    import numpy as np

    p, d = _part(sc), sc.d_model
    out = {}
    for name in MATRICES:
        v = p.get(name)
        if v is not None:
            out[name] = np.asarray(v, dtype=np.float64)
        elif name.startswith("norm"):
            out[name] = np.ones(d) if name.endswith("weight") else np.zeros(d)
        elif name.endswith("weight"):
            out[name] = np.eye(d)
        else:
            rows = np.asarray(p.get(name.replace("_bias", "_weight"))).shape[0] if name.startswith("mlp") else d
            out[name] = np.zeros(rows)
    return out


def from_state_dict(state: Mapping[str, Any], variables: int) -> tuple[dict, dict]:
    """(the two_stage part's values, the time stage's projections {name: (weight, bias)}) from a
    TwoStageAttentionLayer's state_dict (TSL's own names, arrays or tensors): what an importer of
    Crossformer needs to write a scenario of one layer.  The router (seg, factor, d) becomes
    (seg·factor, d); MLPi.0 / MLPi.2 are mlpi_in / mlpi_out."""
    import numpy as np

    def a(name: str):
        v = state[name]
        v = v.detach().cpu().numpy() if hasattr(v, "detach") else v
        return np.asarray(v, dtype=np.float64)

    router = a("router")
    values: dict[str, Any] = {"variables": int(variables), "factor": int(router.shape[1]),
                              "router": router.reshape(-1, router.shape[-1])}
    for who, module in (("sender", "dim_sender"), ("receiver", "dim_receiver")):
        for p in PROJS:
            for wb in ("weight", "bias"):
                values[f"{who}_{p}_{wb}"] = a(f"{module}.{p}_projection.{wb}")
    for i in range(1, 5):
        for wb in ("weight", "bias"):
            values[f"norm{i}_{wb}"] = a(f"norm{i}.{wb}")
    for i in (1, 2):
        for io, j in (("in", 0), ("out", 2)):
            for wb in ("weight", "bias"):
                values[f"mlp{i}_{io}_{wb}"] = a(f"MLP{i}.{j}.{wb}")
    projections = {p: (a(f"time_attention.{p}_projection.weight"), a(f"time_attention.{p}_projection.bias"))
                   for p in PROJS}
    return values, projections


# ---- compute ---------------------------------------------------------------------------------------

def compute_step(run, step_id: str):
    """Every step of the layer is computed at the first, then read back (run.state)."""
    if step_id == "extra.tsa_time_norm":
        from attention.ops.tensors import tensor

        w = {k: tensor(v, run.dev, run.dt) for k, v in weights_np(run.sc).items()}
        steps, params = layer_steps(run.params["queries"], run.inputs["output"], w, variables(run.sc),
                                    factor_of(run.sc), run.sc.n_heads)
        run.state[NAME] = steps
        run.params.update({f"{NAME}.{k}": v for k, v in w.items()})  # the trace's parameters: explain reads them
        run.params.update({f"{NAME}.{k}": v for k, v in params.items()})
    return run.state[NAME][step_id]


def _heads_attention(q, k, v, H: int):
    """q (N, Lq, H·dk), k (N, Lk, H·dk), v (N, Lk, H·dv) -> scaled scores and weights (N, H, Lq, Lk),
    context (N, Lq, H·dv)."""
    import torch

    N, Lq, _ = q.shape
    Lk = k.shape[1]
    qh, kh, vh = q.view(N, Lq, H, -1), k.view(N, Lk, H, -1), v.view(N, Lk, H, -1)
    scores = torch.einsum("nlhe,nshe->nhls", qh, kh) * (1.0 / math.sqrt(qh.shape[-1]))  # FullAttention's scale
    A = torch.softmax(scores, dim=-1)
    return scores, A, torch.einsum("nhls,nshd->nlhd", A, vh).reshape(N, Lq, -1)


def layer_steps(x, time_out, w: dict, D: int, factor: int, H: int) -> tuple[dict, dict]:
    """x (b, D·seg, d) the layer's input as tokens, time_out (b, D·seg, d) the time attention's
    output -> (every step in token layout, the projected q/k/v and contexts explain reads)."""
    from attention.kinds.two_stage import linear
    from attention.ops.encoder_layer import activate, layer_norm

    def lin(v, name):
        return linear(v, (w[f"{name}_weight"], w[f"{name}_bias"]))

    b, L, d = x.shape
    seg = L // D
    time_norm = layer_norm(x + time_out, w["norm1_weight"], w["norm1_bias"]).out
    h1 = activate(lin(time_norm, "mlp1_in"), "gelu")
    m1 = lin(h1, "mlp1_out")
    dim_in = layer_norm(time_norm + m1, w["norm2_weight"], w["norm2_bias"]).out  # (b, L, d)
    dim_send = dim_in.reshape(b, D, seg, d).permute(0, 2, 1, 3).reshape(b * seg, D, d)  # TSL's dim_send
    router = w["router"].reshape(seg, factor, d).repeat(b, 1, 1)  # (b·seg, factor, d): row b·seg + s = router[s]
    q_r, k_s, v_s = lin(router, "sender_query"), lin(dim_send, "sender_key"), lin(dim_send, "sender_value")
    send_scores, send_A, send_ctx = _heads_attention(q_r, k_s, v_s, H)  # (b·seg, H, factor, D)
    buffer = lin(send_ctx, "sender_out")  # (b·seg, factor, d): TSL's dim_buffer
    q_v, k_r, v_r = lin(dim_send, "receiver_query"), lin(buffer, "receiver_key"), lin(buffer, "receiver_value")
    recv_scores, recv_A, recv_ctx = _heads_attention(q_v, k_r, v_r, H)  # (b·seg, H, D, factor)
    receive = lin(recv_ctx, "receiver_out")  # (b·seg, D, d): TSL's dim_receive

    def tokens(a):  # (b·seg, D, ...) -> (b, D·seg, ...): token v·seg + s
        return a.reshape(b, seg, D, *a.shape[2:]).transpose(1, 2).reshape(b, D * seg, *a.shape[2:])

    def slots(a):  # (b·seg, factor, ...) -> (b, seg·factor, ...): row s·factor + r
        return a.reshape(b, seg * factor, *a.shape[2:])

    receive_t = tokens(receive)
    dim_norm = layer_norm(dim_in + receive_t, w["norm3_weight"], w["norm3_bias"]).out  # row-wise: token layout
    h2 = activate(lin(dim_norm, "mlp2_in"), "gelu")
    m2 = lin(h2, "mlp2_out")
    out = layer_norm(dim_norm + m2, w["norm4_weight"], w["norm4_bias"]).out
    H_ = send_A.shape[1]
    steps = {"extra.tsa_time_norm": time_norm, "extra.tsa_time_mlp_hidden": h1, "extra.tsa_time_mlp": m1,
             "extra.tsa_dim_in": dim_in,
             "extra.tsa_router_scores": send_scores.reshape(b, seg, H_, factor, D).transpose(1, 2).reshape(
                 b, H_, seg * factor, D),
             "extra.tsa_router_weights": send_A.reshape(b, seg, H_, factor, D).transpose(1, 2).reshape(
                 b, H_, seg * factor, D),
             "extra.tsa_buffer": slots(buffer),
             "extra.tsa_receive_scores": recv_scores.reshape(b, seg, H_, D, factor).permute(0, 2, 3, 1, 4).reshape(
                 b, H_, D * seg, factor),
             "extra.tsa_receive_weights": recv_A.reshape(b, seg, H_, D, factor).permute(0, 2, 3, 1, 4).reshape(
                 b, H_, D * seg, factor),
             "extra.tsa_receive": receive_t, "extra.tsa_dim_norm": dim_norm, "extra.tsa_dim_mlp_hidden": h2,
             "extra.tsa_dim_mlp": m2, "extra.tsa_output": out}
    params = {"sender_q": slots(q_r), "sender_k": tokens(k_s), "sender_context": slots(send_ctx),
              "receiver_q": tokens(q_v), "receiver_k": slots(k_r), "receiver_context": tokens(recv_ctx)}
    return steps, params


# ---- the mask rule: the time stage sees one variable's segments --------------------------------------

class VariablesRule:
    """Key s is hidden from query l unless both are segments of the same variable: TSL's time
    stage attends over each variable's segments alone ((b·D, seg, d))."""

    name = RULE
    attribute = "modifiers"  # set by the two_stage part in `modifiers`, never a part of its own
    fields: tuple = ()
    lesson_key = "lesson.extra.mask.two_stage"

    def applies(self, sc: Any) -> bool:
        return _active(sc)

    def applies_to(self, options: Mapping[str, Any]) -> bool:
        return _option_part(options) is not None

    def mask(self, sc: Any, B: int, L: int, S: int, dev=None):
        import torch

        seg = L // variables(sc)
        return (torch.arange(L, device=dev)[:, None] // seg != torch.arange(S, device=dev)[None, :] // seg)[None]

    def reason(self, options: Mapping[str, Any], b: int, l: int, s: int):
        part = _option_part(options)
        if part is None:
            return None
        from attention.datamodel.numbers import position as P
        from attention.kinds.mask_rules import _explain_words

        seg = int(options["L"]) // int(part["variables"])
        vl, vs = l // seg, s // seg
        if vl != vs:
            return True, _explain_words("explain.mask.two_stage_other", s=P(s), l=P(l), vs=P(vs), vl=P(vl))
        return False, _explain_words("explain.mask.two_stage_same", s=P(s), l=P(l), v=P(vl))

    def script(self, sc: Any) -> str:
        return (f"seg = L // {variables(sc)}  # Crossformer's time stage: each variable's segments alone\n"
                "mask |= (torch.arange(L)[:, None] // seg != s_pos[None, :] // seg)[None]\n")

    def problems(self, sc: Any) -> list:
        return []  # the part checks the shapes (TwoStagePart.part_problems)


VARIABLES_RULE = VariablesRule()


# ---- explain ---------------------------------------------------------------------------------------

def _read(ctx, ref: str):
    return ctx.param(ref) if ref in ("queries",) or ref.startswith(f"{NAME}.") else ctx.raw(ref)


def explain_norm(ctx, step_id: str, idx: tuple[int, ...]):
    """A LayerNorm cell: its row is the sum of two steps (a residual); the row's mean and variance."""
    from attention.kinds.tsl_encoder import norm_explanation
    from attention.text import explanation as ex

    b, t, c = idx
    (a_ref, b_ref), norm = NORM_STEPS[step_id]
    x, y = _read(ctx, a_ref)[b, t].astype(float), _read(ctx, b_ref)[b, t].astype(float)
    row = [float(u + v) for u, v in zip(x, y)]
    terms = [ex.Term(ex._same(f"x[{j}] = {ex.fmt(x[j])} + {ex.fmt(y[j])} = {ex.fmt(v)}"), v,
                     (ex.Source(a_ref, (b, t, j)), ex.Source(b_ref, (b, t, j)))) for j, v in enumerate(row)]
    return norm_explanation(ctx, step_id, idx, ex._tx("explain.two_stage.norm_formula", norm=norm), terms, row,
                            f"{NAME}.{norm}")


def explain_linear(ctx, step_id: str, idx: tuple[int, ...]):
    """A Linear cell as a matrix product: bias + Σ_j W[c, j] · x[j] (then GELU for an MLP's hidden)."""
    from attention.text import explanation as ex

    b, t, c = idx
    src, name, gelu = LINEAR_STEPS[step_id]
    x = _read(ctx, src)[b, t].astype(float)
    W, bias = ctx.param(f"{NAME}.{name}_weight")[c], float(ctx.param(f"{NAME}.{name}_bias")[c])
    terms = [ex.Term(ex._same(f"W[{c},{j}]·x[{j}] = {ex.fmt(W[j])} × {ex.fmt(x[j])}"), float(W[j] * x[j]),
                     (ex.Source(f"{NAME}.{name}_weight", (c, j)), ex.Source(src, (b, t, j))),
                     factors=(float(W[j]), float(x[j]))) for j in range(x.shape[0])]
    terms.append(ex.Term(ex._same(f"b[{c}] = {ex.fmt(bias)}"), bias, (ex.Source(f"{NAME}.{name}_bias", (c,)),)))
    pre = ex._fsum([tm.value for tm in terms])
    result = 0.5 * pre * (1.0 + math.erf(pre / math.sqrt(2.0))) if gelu else pre
    combine = f"GELU({ex.fmt(pre)}) = {ex.fmt(result)}" if gelu else f"= {ex.fmt(pre)}"
    return ex._explanation(step_id, idx, ctx.value(step_id, idx),
                           ex._tx("explain.two_stage.linear_formula", name=name, gelu="GELU" if gelu else ""),
                           terms, result, ex._tx(f"explain.two_stage.{step_id[10:]}"),
                           ex._same(f"{ex._sum_text([tm.value for tm in terms])} {combine}"))


def _score_sources(ctx, step_id: str, idx: tuple[int, ...]) -> tuple[str, tuple, str, tuple, dict]:
    """(q parameter, its row, k parameter, its row, the words' numbers) of a score cell."""
    b, h, i, j = idx
    opts = _option_part(ctx.opts)
    D, factor = int(opts["variables"]), int(opts["factor"])
    seg = int(ctx.opts["L"]) // D
    if step_id == "extra.tsa_router_scores":  # row i = s·factor + r, column j = variable v
        s, r, v = i // factor, i % factor, j
        return f"{NAME}.sender_q", (b, i), f"{NAME}.sender_k", (b, v * seg + s), {"s": s, "r": r, "v": v, "h": h}
    v, s, r = i // seg, i % seg, j  # token i = v·seg + s against slot j of segment s
    return f"{NAME}.receiver_q", (b, i), f"{NAME}.receiver_k", (b, s * factor + r), {"s": s, "r": r, "v": v, "h": h}


def explain_scores(ctx, step_id: str, idx: tuple[int, ...]):
    """scale · Σ_e q[e]·k[e] over head h's columns: a router slot against a variable, or a variable
    against a router slot's buffer row, both at one segment."""
    from attention.text import explanation as ex

    q_ref, qi, k_ref, ki, at = _score_sources(ctx, step_id, idx)
    q_all, k_all = ctx.param(q_ref), ctx.param(k_ref)
    H = int(ctx.opts.get("n_heads") or 1)
    dk = q_all.shape[-1] // H
    q, k = q_all[qi], k_all[ki]
    terms = [ex.Term(ex._same(f"q[{e}]·k[{e}] = {ex.fmt(q[e])} × {ex.fmt(k[e])}"), float(q[e] * k[e]),
                     (ex.Source(q_ref, (*qi, e)), ex.Source(k_ref, (*ki, e))), factors=(float(q[e]), float(k[e])))
             for e in range(at["h"] * dk, (at["h"] + 1) * dk)]
    scale = 1.0 / math.sqrt(dk)
    dot = ex._fsum([tm.value for tm in terms])
    words = "router_summary" if step_id == "extra.tsa_router_scores" else "receive_summary"
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), ex._tx("explain.two_stage.scores_formula"), terms,
                           scale * dot, ex._tx(f"explain.two_stage.{words}", **{k: ex.P(v) for k, v in at.items()}),
                           ex._same(f"({ex._sum_text([tm.value for tm in terms])}) × {ex.fmt(scale)} = "
                                    f"{ex.fmt(scale * dot)}"))


def explain_weights(ctx, step_id: str, idx: tuple[int, ...]):
    """softmax over the row: over the D variables (the router gathering) or the factor slots (reading back)."""
    import numpy as np

    from attention.text import explanation as ex

    scores_id = step_id.replace("_weights", "_scores")
    row = ctx.a(scores_id)[idx[:-1]]
    m = float(np.max(row))
    terms = [ex.Term(ex._same(f"j={j}: exp({ex.fmt(float(x))} − {ex.fmt(m)}) = {ex.fmt(math.exp(float(x) - m))}"),
                     math.exp(float(x) - m), (ex.Source(scores_id, (*idx[:-1], j)),)) for j, x in enumerate(row)]
    exps = [tm.value for tm in terms]
    denom = ex._fsum(exps)
    result = exps[idx[-1]] / denom
    words = "router_weights_summary" if step_id == "extra.tsa_router_weights" else "receive_weights_summary"
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), ex._tx("explain.two_stage.weights_formula"), terms,
                           result, ex._tx(f"explain.two_stage.{words}", n=len(exps)),
                           ex._same(f"{ex.fmt(exps[idx[-1]])} / {ex.fmt(denom)} = {ex.fmt(result)}"))
