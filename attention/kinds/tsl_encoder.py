"""Time-Series-Library's EncoderLayer around attention, as optional steps after the output
projection: Part("encoder_layer", {...}) in the scenario's `modifiers` (the only generic slot for
a kind's values; it modifies no score).  The math is attention/ops/encoder_layer.py (TSL's
layers/Transformer_EncDec.py, MIT, thuml), one step each:

    extra.residual_attention = x + output            x: the queries (the layer's input, self-attention)
    extra.norm_first         = LayerNorm1(that)      the mean and biased variance of each row
    extra.ffn_hidden         = act(conv1(norm_first))   a kernel-1 conv: x @ W1ᵀ + b1, d_model -> d_ff
    extra.ffn_out            = conv2(ffn_hidden)        @ W2ᵀ + b2, d_ff -> d_model
    extra.residual_ffn       = norm_first + ffn_out
    extra.norm_second        = LayerNorm2(that)      the encoder layer's output

Dropout is the identity (eval).  Off unless the scenario has the part.  Weights: conv1_weight
(d_ff, d_model) (the Conv1d's (d_ff, d_model, 1) without its kernel axis), conv1_bias (d_ff,),
conv2_weight (d_model, d_ff), conv2_bias (d_model,), norm1/norm2 weight and bias (d_model,)
(absent: 1 and 0, a fresh LayerNorm).  Informer's distilling ConvLayer is not a step yet.
"""
from __future__ import annotations

from typing import Any

from attention.datamodel.fields import Field

NAME = "encoder_layer"
#: (step id, dims): the steps in computing order (all after the output projection)
STEPS = (("extra.residual_attention", ("B", "L", "d_out")), ("extra.norm_first", ("B", "L", "d_out")),
         ("extra.ffn_hidden", ("B", "L", "d_ff")), ("extra.ffn_out", ("B", "L", "d_out")),
         ("extra.residual_ffn", ("B", "L", "d_out")), ("extra.norm_second", ("B", "L", "d_out")))
WEIGHTS = ("conv1_weight", "conv1_bias", "conv2_weight", "conv2_bias", "norm1_weight", "norm1_bias",
           "norm2_weight", "norm2_bias")


def _matrix(name: str) -> Field:
    return Field(f"modifiers.{name}", "matrix", f"field.modifiers.encoder_layer.{name}.label",
                 f"field.modifiers.encoder_layer.{name}.help", group="modifiers")


class EncoderLayerPart:
    """The encoder layer's weights and activation: TSL's EncoderLayer after AttentionLayer."""

    name = NAME
    fields = (Field("modifiers.activation", "choice", "field.modifiers.encoder_layer.activation.label",
                    "field.modifiers.encoder_layer.activation.help", default="relu", choices=("relu", "gelu"),
                    group="modifiers"),
              *(_matrix(n) for n in WEIGHTS))

    def __repr__(self) -> str:
        return f"<modifier {self.name}>"

    def records(self) -> tuple:
        from attention.datamodel import parts
        from attention.datamodel.step_record import StepRecord
        from attention.text import lesson

        inputs = {"extra.residual_attention": ("queries", "output"),
                  "extra.norm_first": ("extra.residual_attention",), "extra.ffn_hidden": ("extra.norm_first",),
                  "extra.ffn_out": ("extra.ffn_hidden",), "extra.residual_ffn": ("extra.norm_first", "extra.ffn_out"),
                  "extra.norm_second": ("extra.residual_ffn",)}
        explainer = {"extra.residual_attention": explain_residual, "extra.norm_first": explain_norm,
                     "extra.ffn_hidden": explain_conv, "extra.ffn_out": explain_conv,
                     "extra.residual_ffn": explain_residual, "extra.norm_second": explain_norm}
        active = parts.present("modifiers", NAME)
        return tuple(StepRecord(sid, dims, "signed", f"step.{sid}.title", f"step.{sid}.formula", compute_step, active,
                                explainer[sid], lesson._sentences, None, inputs[sid]) for sid, dims in STEPS)

    def part_problems(self, sc: Any, part: Any, path: str, kinds: Any) -> list:
        """Shapes: d_model = the queries' width = the output's; d_ff from conv1_weight's rows."""
        import numpy as np

        from attention.datamodel.problem import Problem
        from attention.datamodel.problem import shape as _shape

        d = sc.d_model
        if sc.d_out != d:
            return [Problem("encoder_layer_width", path, {"d_out": sc.d_out, "d_model": d})]
        w1 = part.get("conv1_weight")
        if w1 is None:
            return [Problem("required", f"{path}.conv1_weight")]
        w1 = np.asarray(w1)
        d_ff = w1.shape[0] if w1.ndim >= 1 else 0
        want = {"conv1_weight": (d_ff, d), "conv1_bias": (d_ff,), "conv2_weight": (d, d_ff), "conv2_bias": (d,),
                "norm1_weight": (d,), "norm1_bias": (d,), "norm2_weight": (d,), "norm2_bias": (d,)}
        for name, shape in want.items():
            v = part.get(name)
            if v is None:
                if name.startswith("conv"):
                    return [Problem("required", f"{path}.{name}")]
                continue
            arr = np.asarray(v, dtype=np.float64)
            if arr.ndim == 3 and arr.shape[-1] == 1 and name.endswith("weight"):
                arr = arr[..., 0]  # the Conv1d's own (out, in, 1)
            if arr.shape != shape:
                return [Problem("encoder_layer_shape", f"{path}.{name}",
                                {"expected": _shape(shape), "got": _shape(arr.shape)})]
            if not np.all(np.isfinite(arr)):
                return [Problem("encoder_layer_finite", f"{path}.{name}")]
        return []

    def script_after(self, plan) -> str:
        """The exported script's lines after the output projection (attention/teaching/script_export.py)."""
        sc = plan.sc
        import numpy as np

        from attention.datamodel import parts
        from attention.text import script as se

        p = parts.find(sc, "modifiers", NAME)
        if p is None:
            return ""
        w = weights_np(sc)
        out = ["\n# ---- Time-Series-Library EncoderLayer (layers/Transformer_EncDec.py), eval: dropout = identity\n"]
        for name in WEIGHTS:
            out.append(se.tensor_literal(f"E_{name}", w[name], f"encoder layer {name} {tuple(np.shape(w[name]))}"))
        act = ("torch.clamp(h, min=0)  # relu" if _activation(sc) == "relu"
               else "0.5 * h * (1.0 + torch.erf(h / 2.0 ** 0.5))  # gelu (exact, erf)")
        out.append(
            "x_in = queries.to(dtype)  # the layer's input x (self-attention: queries = keys = values = x)\n"
            "r1 = x_in + output\n" + se.show("extra.residual_attention", "r1")
            + "n1 = torch.nn.functional.layer_norm(r1, (r1.shape[-1],), E_norm1_weight, E_norm1_bias, 1e-5)\n"
            + se.show("extra.norm_first", "n1")
            + "h = n1 @ E_conv1_weight.T + E_conv1_bias  # conv1, kernel 1: a matrix product per step\n"
            f"h = {act}\n" + se.show("extra.ffn_hidden", "h")
            + "f = h @ E_conv2_weight.T + E_conv2_bias  # conv2, kernel 1\n" + se.show("extra.ffn_out", "f")
            + "r2 = n1 + f\n" + se.show("extra.residual_ffn", "r2")
            + "n2 = torch.nn.functional.layer_norm(r2, (r2.shape[-1],), E_norm2_weight, E_norm2_bias, 1e-5)\n"
            + se.show("extra.norm_second", "n2"))
        return "".join(out)


ENCODER_LAYER = EncoderLayerPart()


def _activation(sc: Any) -> str:
    from attention.datamodel import parts

    return parts.value(parts.find(sc, "modifiers", NAME), ENCODER_LAYER.fields[0])


def weights_np(sc: Any) -> dict:
    """The part's weights as float64 arrays, kernel axes dropped; LayerNorm's absent ones 1 and 0."""
    import numpy as np

    from attention.datamodel import parts

    p = parts.find(sc, "modifiers", NAME)
    d = sc.d_model
    out = {}
    for name in WEIGHTS:
        v = p.get(name)
        if v is None:
            v = np.ones(d) if name.endswith("weight") else np.zeros(d)
        arr = np.asarray(v, dtype=np.float64)
        out[name] = arr[..., 0] if arr.ndim == 3 else arr
    return out


def compute_step(run, step_id: str):
    """Every encoder step is computed at the first (attention/ops/encoder_layer.py), then read back."""
    if step_id == "extra.residual_attention":
        from attention.ops import encoder_layer as enc
        from attention.ops.tensors import tensor

        w = {k: tensor(v, run.dev, run.dt) for k, v in weights_np(run.sc).items()}
        layer = enc.EncoderLayerWeights(w["conv1_weight"], w["conv1_bias"], w["conv2_weight"], w["conv2_bias"],
                                        w["norm1_weight"], w["norm1_bias"], w["norm2_weight"], w["norm2_bias"],
                                        _activation(run.sc))
        x = run.params["queries"]
        p = enc.encoder_layer(x, run.inputs["output"], layer)
        run.state["encoder"] = {"extra.residual_attention": p.added1, "extra.norm_first": p.norm1.out,
                                "extra.ffn_hidden": p.hidden, "extra.ffn_out": p.ffn, "extra.residual_ffn": p.added2,
                                "extra.norm_second": p.norm2.out}
        run.params.update({f"{NAME}.{k}": v for k, v in w.items()})  # the trace's parameters: explain reads them
    return run.state["encoder"][step_id]


# ---- explain ---------------------------------------------------------------------------------------

def _weights(ctx) -> dict:
    return {n: ctx.param(f"{NAME}.{n}") for n in WEIGHTS}


def explain_residual(ctx, step_id: str, idx: tuple[int, ...]):
    from attention.text import explanation as ex

    b, t, c = idx
    a_ref, b_ref = ("queries", "output") if step_id == "extra.residual_attention" else ("extra.norm_first",
                                                                                        "extra.ffn_out")
    get = (lambda ref: ctx.param(ref)) if a_ref == "queries" else ctx.raw
    x, y = float(get(a_ref)[b, t, c]), float(ctx.raw(b_ref)[b, t, c])
    terms = [ex.Term(ex._same(f"{a_ref}[{b},{t},{c}] = {ex.fmt(x)}"), x, (ex.Source(a_ref, idx),)),
             ex.Term(ex._same(f"{b_ref}[{b},{t},{c}] = {ex.fmt(y)}"), y, (ex.Source(b_ref, idx),))]
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), ex._tx(f"explain.encoder.{step_id[6:]}"), terms,
                           x + y, ex._tx("explain.encoder.residual_summary"),
                           ex._same(f"{ex.fmt(x)} + {ex.fmt(y)} = {ex.fmt(x + y)}"))


def explain_norm(ctx, step_id: str, idx: tuple[int, ...]):
    """One LayerNorm cell: its row's mean and biased variance, then (x − mean)/√(var + eps)·γ + β."""
    from attention.text import explanation as ex

    b, t, c = idx
    src = "extra.residual_attention" if step_id == "extra.norm_first" else "extra.residual_ffn"
    which = "norm1" if step_id == "extra.norm_first" else "norm2"
    row = [float(v) for v in ctx.raw(src)[b, t]]
    terms = [ex.Term(ex._same(f"x[{j}] = {ex.fmt(v)}"), v, (ex.Source(src, (b, t, j)),)) for j, v in enumerate(row)]
    return norm_explanation(ctx, step_id, idx, ex._tx("explain.encoder.norm_formula"), terms, row, f"{NAME}.{which}")


def norm_explanation(ctx, step_id: str, idx: tuple[int, ...], formula, terms: list, row: list[float], norm: str):
    """The explanation of one cell of TSL's nn.LayerNorm (eps 1e-5) over `row`, with γ, β at `norm`_weight /
    `norm`_bias: the encoder layer's norm1/norm2 and Crossformer's norm1..norm4 read it the same way."""
    import math

    from attention.text import explanation as ex

    c = idx[-1]
    n = len(row)
    mean = ex._fsum(row) / n
    var = ex._fsum([(v - mean) ** 2 for v in row]) / n
    g, beta = float(ctx.param(f"{norm}_weight")[c]), float(ctx.param(f"{norm}_bias")[c])
    normed = (row[c] - mean) / math.sqrt(var + 1e-5)
    result = normed * g + beta
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), formula, terms, result,
                           ex._tx("explain.encoder.norm_summary", mean=ex.fmt(mean), var=ex.fmt(var), n=n,
                                  x=ex.fmt(row[c]), normalized=ex.fmt(normed), gamma=ex.fmt(g), beta=ex.fmt(beta),
                                  out=ex.fmt(result)),
                           ex._same(f"({ex.fmt(row[c])} − {ex.fmt(mean)}) / √({ex.fmt(var)} + 1e-5) × {ex.fmt(g)} + "
                                    f"{ex.fmt(beta)} = {ex.fmt(result)}"),
                           (ex.Source(f"{norm}_weight", (c,)), ex.Source(f"{norm}_bias", (c,))))


def explain_conv(ctx, step_id: str, idx: tuple[int, ...]):
    """A kernel-1 conv cell as a matrix product: bias + Σ_j W[c, j] · x[t, j] (then the activation)."""
    import math

    from attention.text import explanation as ex

    b, t, c = idx
    first = step_id == "extra.ffn_hidden"
    src, conv = ("extra.norm_first", "conv1") if first else ("extra.ffn_hidden", "conv2")
    x = ctx.raw(src)[b, t].astype(float)
    W, bias = ctx.param(f"{NAME}.{conv}_weight")[c], float(ctx.param(f"{NAME}.{conv}_bias")[c])
    terms = [ex.Term(ex._same(f"W[{c},{j}]·x[{j}] = {ex.fmt(W[j])} × {ex.fmt(x[j])}"), float(W[j] * x[j]),
                     (ex.Source(f"{NAME}.{conv}_weight", (c, j)), ex.Source(src, (b, t, j))),
                     factors=(float(W[j]), float(x[j]))) for j in range(x.shape[0])]
    terms.append(ex.Term(ex._same(f"b[{c}] = {ex.fmt(bias)}"), bias, (ex.Source(f"{NAME}.{conv}_bias", (c,)),)))
    pre = ex._fsum([tm.value for tm in terms])
    act = ctx.opts.get("modifiers", [{}])
    activation = next((m.get("activation") for m in act if m.get("kind") == NAME), "relu")
    if first:
        result = max(pre, 0.0) if activation == "relu" else 0.5 * pre * (1.0 + math.erf(pre / math.sqrt(2.0)))
        combine = f"{activation}({ex.fmt(pre)}) = {ex.fmt(result)}"
    else:
        result, combine = pre, f"= {ex.fmt(pre)}"
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), ex._tx(f"explain.encoder.{conv}_formula"), terms,
                           result, ex._tx("explain.encoder.conv_summary", bias=ex.fmt(bias), n=x.shape[0], t=t, c=c),
                           ex._same(f"{ex._sum_text([tm.value for tm in terms])} {combine}"))

