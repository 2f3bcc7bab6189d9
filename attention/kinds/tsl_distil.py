"""Informer's distilling ConvLayer as optional steps after the output projection (and after the
encoder layer's norm2 when the scenario has an `encoder_layer` part): a distil part in the
scenario's `modifiers`.  The math is attention/ops/encoder_layer.py (TSL's layers/Transformer_EncDec.py
ConvLayer, MIT, thuml), one step each, x (B, L, C) the layer's input:

    extra.distil_conv = Conv1d(C, C, 3, padding=2, padding_mode="circular")(x)   (B, L + 2, C)
                        a matrix product: the unfolded, circularly padded steps @ W(C, C·3)ᵀ + b
    extra.distil_norm = BatchNorm1d(C), eval: (x − running_mean) / √(running_var + 1e-5) · γ + β
    extra.distil_elu  = ELU (alpha 1): x where x > 0, exp(x) − 1 elsewhere
    extra.distil_pool = MaxPool1d(3, stride 2, padding 1): L + 2 -> floor((L + 1) / 2) + 1 steps

Off unless the scenario has the part.  Weights: conv_weight (C, C, 3) (the Conv1d's own),
conv_bias (C,), running_mean / running_var / norm_weight / norm_bias (C,) (absent: 0, 1, 1, 0,
a fresh BatchNorm1d).  Why a part of its own next to the encoder layer's: Informer runs the
distilling layer after every encoder layer but the last; a scenario may show either alone.
"""
from __future__ import annotations

from typing import Any

from attention.datamodel.fields import Field

NAME = "distil"
#: (step id, dims): the steps in computing order (all after the output, after the encoder layer's)
STEPS = (("extra.distil_conv", ("B", "L+2", "d_out")), ("extra.distil_norm", ("B", "L+2", "d_out")),
         ("extra.distil_elu", ("B", "L+2", "d_out")), ("extra.distil_pool", ("B", "L_pool", "d_out")))
WEIGHTS = ("conv_weight", "conv_bias", "running_mean", "running_var", "norm_weight", "norm_bias")
#: an absent BatchNorm number: a fresh layer's
_FRESH = {"running_mean": 0.0, "running_var": 1.0, "norm_weight": 1.0, "norm_bias": 0.0}
ENCODER_OUT = "extra.norm_second"


def _matrix(name: str) -> Field:
    return Field(f"modifiers.{name}", "matrix", f"field.modifiers.distil.{name}.label",
                 f"field.modifiers.distil.{name}.help", group="modifiers")


def source_of(ids) -> str:
    """The step the distilling layer reads: the encoder layer's output when the trace has it, else
    the attention's output projection."""
    return ENCODER_OUT if ENCODER_OUT in ids else "output"


class DistilPart:
    """Informer's distilling ConvLayer: conv (kernel 3, circular padding 2), BatchNorm, ELU, max-pool."""

    name = NAME
    fields = tuple(_matrix(n) for n in WEIGHTS)

    def __repr__(self) -> str:
        return f"<modifier {self.name}>"

    def records(self) -> tuple:
        from attention.datamodel import parts
        from attention.datamodel.step_record import StepRecord
        from attention.text import lesson

        inputs = {"extra.distil_conv": ("output", ENCODER_OUT), "extra.distil_norm": ("extra.distil_conv",),
                  "extra.distil_elu": ("extra.distil_norm",), "extra.distil_pool": ("extra.distil_elu",)}
        explainer = {"extra.distil_conv": explain_conv, "extra.distil_norm": explain_norm,
                     "extra.distil_elu": explain_elu, "extra.distil_pool": explain_pool}
        active = parts.present("modifiers", NAME)
        return tuple(StepRecord(sid, dims, "signed", f"step.{sid}.title", f"step.{sid}.formula", compute_step, active,
                                explainer[sid], lesson._sentences, None, inputs[sid]) for sid, dims in STEPS)

    def part_problems(self, sc: Any, part: Any, path: str, kinds: Any) -> list:
        """Shapes: C = the output's width; conv_weight (C, C, 3) required with its bias; L >= 2
        (circular padding 2 wraps two steps round)."""
        import numpy as np

        from attention.datamodel.problem import Problem
        from attention.datamodel.problem import shape as _shape

        C = sc.d_out
        if sc.L < 2:
            return [Problem("distil_length", path, {"L": sc.L})]
        want = {"conv_weight": (C, C, 3), "conv_bias": (C,), "running_mean": (C,), "running_var": (C,),
                "norm_weight": (C,), "norm_bias": (C,)}
        for name, shape in want.items():
            v = part.get(name)
            if v is None:
                if name.startswith("conv"):
                    return [Problem("required", f"{path}.{name}")]
                continue
            arr = np.asarray(v, dtype=np.float64)
            if arr.shape != shape:
                return [Problem("distil_shape", f"{path}.{name}",
                                {"expected": _shape(shape), "got": _shape(arr.shape)})]
            if not np.all(np.isfinite(arr)):
                return [Problem("encoder_layer_finite", f"{path}.{name}")]
            if name == "running_var" and np.any(arr < 0):
                return [Problem("distil_variance", f"{path}.{name}")]
        return []

    def script_after(self, plan) -> str:
        """The exported script's lines after the output projection (and the encoder layer's)."""
        sc = plan.sc
        import numpy as np

        from attention.datamodel import parts
        from attention.kinds import tsl_encoder
        from attention.text import script as se

        if parts.find(sc, "modifiers", NAME) is None:
            return ""
        w = weights_np(sc)
        src = "n2" if parts.find(sc, "modifiers", tsl_encoder.NAME) is not None else "output"
        out = ["\n# ---- Informer's distilling ConvLayer (TSL layers/Transformer_EncDec.py), eval: BatchNorm's running "
               "statistics\n"]
        for name in WEIGHTS:
            out.append(se.tensor_literal(f"D_{name}", w[name], f"distil {name} {tuple(np.shape(w[name]))}"))
        out.append(
            f"xc = {src}.transpose(1, 2)  # (B, C, L): Conv1d reads channels first\n"
            "xc = torch.cat([xc[..., -2:], xc, xc[..., :2]], dim=-1)  # circular padding 2 on each side\n"
            "dc = torch.nn.functional.conv1d(xc, D_conv_weight, D_conv_bias)  # kernel 3: L + 2 steps\n"
            + se.show("extra.distil_conv", "dc.transpose(1, 2)")
            + "dn = (dc - D_running_mean[:, None]) / torch.sqrt(D_running_var[:, None] + 1e-5) "
              "* D_norm_weight[:, None] + D_norm_bias[:, None]  # BatchNorm1d in eval\n"
            + se.show("extra.distil_norm", "dn.transpose(1, 2)")
            + "de = torch.where(dn > 0, dn, torch.expm1(dn))  # ELU, alpha 1\n"
            + se.show("extra.distil_elu", "de.transpose(1, 2)")
            + "dp = torch.nn.functional.max_pool1d(de, kernel_size=3, stride=2, padding=1)  # halves the steps\n"
            + se.show("extra.distil_pool", "dp.transpose(1, 2)"))
        return "".join(out)


DISTIL = DistilPart()


def weights_np(sc: Any) -> dict:
    """The part's numbers as float64 arrays; BatchNorm's absent ones a fresh layer's."""
    import numpy as np

    from attention.datamodel import parts

    p = parts.find(sc, "modifiers", NAME)
    C = sc.d_out
    out = {}
    for name in WEIGHTS:
        v = p.get(name)
        out[name] = np.full(C, _FRESH[name]) if v is None else np.asarray(v, dtype=np.float64)
    return out


def compute_step(run, step_id: str):
    """Every distilling step is computed at the first (attention/ops/encoder_layer.py), then read back."""
    if step_id == "extra.distil_conv":
        from attention.ops import encoder_layer as enc
        from attention.ops.tensors import tensor

        w = {k: tensor(v, run.dev, run.dt) for k, v in weights_np(run.sc).items()}
        x = run.inputs[source_of(run.inputs)]  # (B, L, C)
        p = enc.distil(x, enc.DistilWeights(w["conv_weight"], w["conv_bias"], w["running_mean"], w["running_var"],
                                            w["norm_weight"], w["norm_bias"]))
        run.state[NAME] = {"extra.distil_conv": p.conv.out, "extra.distil_norm": p.norm.out,
                           "extra.distil_elu": p.activated, "extra.distil_pool": p.pooled}
        run.params.update({f"{NAME}.{k}": v for k, v in w.items()})  # the trace's parameters: explain reads them
    return run.state[NAME][step_id]


# ---- explain ---------------------------------------------------------------------------------------

def explain_conv(ctx, step_id: str, idx: tuple[int, ...]):
    """A conv cell as a matrix product: bias + Σ over input channels and the 3 taps of W · x, the
    taps reading input steps (t + j − 2) mod L (circular padding: some wrap round)."""
    from attention.ops import encoder_layer as enc
    from attention.text import explanation as ex

    b, t, c = idx
    src = source_of(ctx.trace.ids)
    x = ctx.raw(src)[b].astype(float)  # (L, C)
    L, C = x.shape
    W, bias = ctx.param(f"{NAME}.conv_weight"), float(ctx.param(f"{NAME}.conv_bias")[c])
    steps = enc.conv_sources(L, t)
    terms = [ex.Term(ex._same(f"W[{c},{i},{j}]·x[{s},{i}] = {ex.fmt(W[c, i, j])} × {ex.fmt(x[s, i])}"),
                     float(W[c, i, j] * x[s, i]),
                     (ex.Source(f"{NAME}.conv_weight", (c, i, j)), ex.Source(src, (b, s, i))),
                     factors=(float(W[c, i, j]), float(x[s, i])))
             for i in range(C) for j, s in enumerate(steps)]
    terms.append(ex.Term(ex._same(f"b[{c}] = {ex.fmt(bias)}"), bias, (ex.Source(f"{NAME}.conv_bias", (c,)),)))
    result = ex._fsum([tm.value for tm in terms])
    wrapped = enc.wrapped_sources(L, t)
    summary = ex._tx("explain.distil.conv_summary", t=t, steps=", ".join(map(str, steps)), n=C, bias=ex.fmt(bias))
    if wrapped:
        summary = ex._cat(summary, " ", ex._tx("tsl.conv.wrapped", steps=", ".join(map(str, wrapped))))
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), ex._tx("explain.distil.conv_formula"), terms,
                           result, summary, ex._same(f"{ex._sum_text([tm.value for tm in terms])} = {ex.fmt(result)}"))


def explain_norm(ctx, step_id: str, idx: tuple[int, ...]):
    """BatchNorm in eval: the channel's running mean and variance, never this batch's."""
    import math

    from attention.text import explanation as ex

    b, t, c = idx
    x = float(ctx.raw("extra.distil_conv")[idx])
    mean, var = float(ctx.param(f"{NAME}.running_mean")[c]), float(ctx.param(f"{NAME}.running_var")[c])
    g, beta = float(ctx.param(f"{NAME}.norm_weight")[c]), float(ctx.param(f"{NAME}.norm_bias")[c])
    normed = (x - mean) / math.sqrt(var + 1e-5)
    result = normed * g + beta
    term = ex.Term(ex._same(f"conv[{b},{t},{c}] = {ex.fmt(x)}"), x, (ex.Source("extra.distil_conv", idx),))
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), ex._tx("explain.distil.norm_formula"), [term],
                           result, ex._tx("explain.distil.norm_summary", c=c, mean=ex.fmt(mean), var=ex.fmt(var)),
                           ex._same(f"({ex.fmt(x)} − {ex.fmt(mean)}) / √({ex.fmt(var)} + 1e-5) × {ex.fmt(g)} + "
                                    f"{ex.fmt(beta)} = {ex.fmt(result)}"),
                           tuple(ex.Source(f"{NAME}.{n}", (c,)) for n in WEIGHTS[2:]))


def explain_elu(ctx, step_id: str, idx: tuple[int, ...]):
    import math

    from attention.text import explanation as ex

    x = float(ctx.raw("extra.distil_norm")[idx])
    result = x if x > 0 else math.expm1(x)
    term = ex.Term(ex._same(f"norm[{','.join(map(str, idx))}] = {ex.fmt(x)}"), x,
                   (ex.Source("extra.distil_norm", idx),))
    combine = f"{ex.fmt(x)} > 0: {ex.fmt(x)}" if x > 0 else f"exp({ex.fmt(x)}) − 1 = {ex.fmt(result)}"
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), ex._tx("explain.distil.elu_formula"), [term],
                           result, ex._tx("explain.distil.elu_summary"), ex._same(combine))


def explain_pool(ctx, step_id: str, idx: tuple[int, ...]):
    """The largest of the (up to three) activated steps 2t − 1, 2t, 2t + 1; the first on a tie."""
    from attention.text import explanation as ex

    b, t, c = idx
    act = ctx.raw("extra.distil_elu")[b, :, c].astype(float)
    steps = [s for s in range(2 * t - 1, 2 * t + 2) if 0 <= s < act.shape[0]]
    terms = [ex.Term(ex._same(f"elu[{b},{s},{c}] = {ex.fmt(act[s])}"), float(act[s]),
                     (ex.Source("extra.distil_elu", (b, s, c)),)) for s in steps]
    winner = max(steps, key=lambda s: (act[s], -s))
    result = float(act[winner])
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), ex._tx("explain.distil.pool_formula"), terms,
                           result, ex._tx("explain.distil.pool_summary", steps=", ".join(map(str, steps)),
                                          winner=winner, t=t),
                           ex._same(f"max({', '.join(ex.fmt(act[s]) for s in steps)}) = {ex.fmt(result)}"))
