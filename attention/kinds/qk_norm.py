"""QK-norm (Qwen3, Gemma 3; also OLMo 2 per head): each head's q and k rows are RMS-normalised and
scaled by a learned per-column weight, after the head split and BEFORE RoPE, so that the score
q . k cannot blow up with the size of the projections.

    rms(x) = sqrt(mean(x ** 2) + eps)   over one head's d columns
    "qwen3":  w * (x / rms(x))            (Qwen3RMSNorm; weights stored around 1)
    "gemma3": (1 + w) * (x / rms(x))      (Gemma3RMSNorm; weights stored around 0)
The style is always named: the same stored weights give different numbers under the other one.
The weight has one entry per head column (d,), shared by all heads (as both models).

Precision (hf_float32): both transformers norms cast the input to float32 first, even in a
float64 model.  Qwen3 normalises in float32, casts back, then multiplies by the weight in the
model's dtype; Gemma 3 also multiplies by (1 + w.float()) in float32 and only then casts back.
hf_float32=True follows those casts; the default computes everything in x's dtype.
The order x * rsqrt(mean + eps) is theirs too.

Shapes: B batch, N positions, H heads, d head width; weight (d,).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # torch is imported inside the functions: the kinds' table is read before torch loads
    import torch

Style = Literal["qwen3", "gemma3"]
STYLES: tuple[Style, ...] = ("qwen3", "gemma3")


def inv_rms(x: torch.Tensor, eps: float) -> torch.Tensor:
    """(B, N, H, d) -> (B, N, H, 1): 1 / sqrt(mean of squares over the head's columns + eps)."""
    import torch

    return torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float, style: Style,
             hf_float32: bool = False) -> torch.Tensor:
    """x (B, N, H, d), weight (d,) -> (B, N, H, d), each head's row normalised and scaled."""
    import torch

    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, not {style!r}")
    dt = x.dtype
    work = torch.float32 if hf_float32 else dt
    xw = x.to(work)
    normed = xw * inv_rms(xw, eps)  # (B, N, H, d)
    if style == "qwen3":
        return weight.to(dt) * normed.to(dt)  # Qwen3: cast back, then scale in the model's dtype
    return (normed * (1.0 + weight.to(work))).to(dt)  # Gemma 3: scale in the working dtype, then cast


def effective_scale(weight: torch.Tensor, style: Style) -> torch.Tensor:
    """(d,) the factor each normalised column is multiplied by: w (qwen3) or 1 + w (gemma3)."""
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, not {style!r}")
    return weight if style == "qwen3" else 1.0 + weight


# ---- the kind: Part("qk_norm", ...) in a scenario's modifiers (attention/datamodel/parts.py) ---------------
# Registered in attention/registry/kinds.py (MODIFIERS).  Two steps, qk_norm.query and
# qk_norm.key, each standing for the head split it normalises and placed just before RoPE's
# rotation of the same (Qwen3 and Gemma 3 normalise first, then rotate).

from attention.datamodel.fields import Field  # noqa: E402  (the kind below; the math above needs neither)

NAME = "qk_norm"
#: query / key -> (the step it normalises, its own step, the step it comes before, its weight field)
_STEPS = {"query": ("head_split.query", "qk_norm.query", "rope.query", "query_weight"),
          "key": ("head_split.key", "qk_norm.key", "rope.key", "key_weight")}


def _f(name: str, type_: str, **kw) -> Field:
    return Field(f"modifiers.{NAME}.{name}", type_, f"field.qk_norm.{name}.label", f"field.qk_norm.{name}.help",
                 group="modifiers", **kw)


FIELDS: tuple[Field, ...] = (
    _f("style", "choice", default="qwen3", choices=STYLES,
       choice_words=tuple(f"field.qk_norm.style.{s}" for s in STYLES)),
    _f("eps", "float", default=1e-6, minimum=0.0, maximum=1.0),
    _f("query_weight", "matrix", default=None, nullable=True),  # (query head width,); None: no learned scale
    _f("key_weight", "matrix", default=None, nullable=True),  # (key head width,)
)


def _settings(part) -> dict:
    return {f.name: part.values.get(f.name, f.default) for f in FIELDS}


def norm_step(run, step_id: str):
    """qk_norm.query / qk_norm.key: (B, N, H, d) each head's row over its RMS, times the weight."""
    import numpy as np
    import torch

    from attention.datamodel import parts

    which = step_id.split(".", 1)[1]
    src, _, _, wname = _STEPS[which]
    x = run.inputs[src]  # (B, N, H, d)
    s = _settings(parts.find(run.sc, "modifiers", NAME))
    if s[wname] is None:  # no learned scale: the factor is 1 in either style
        w = torch.full((x.shape[-1],), 1.0 if s["style"] == "qwen3" else 0.0, dtype=x.dtype, device=x.device)
    else:
        w = torch.as_tensor(np.asarray(s[wname], dtype=np.float64), dtype=x.dtype, device=x.device)
    run.params[f"{NAME}.{wname}"] = w  # the trace's parameters: explain reads the weight there
    return rms_norm(x, w, float(s["eps"]), s["style"])


def part_problems(sc, part, path: str, kinds) -> list:
    """Each weight, when given, has one finite number per column of its head."""
    import numpy as np

    from attention.datamodel.problem import Problem, literal

    s = _settings(part)
    errs = []
    for wname, width in (("query_weight", sc.query_head_width), ("key_weight", sc.key_head_width)):
        if s[wname] is None:
            continue
        try:
            a = np.asarray(s[wname], dtype=np.float64)
        except (TypeError, ValueError):
            errs.append(Problem("expected_number", f"{path}.{wname}", {"got": literal(type(s[wname]).__name__)}))
            continue
        if a.shape != (width,):
            errs.append(Problem("shape", f"{path}.{wname}", {"expected": f"[{width}]", "got": list(a.shape)}))
        elif not np.isfinite(a).all():
            errs.append(Problem("not_finite", f"{path}.{wname}"))
    return errs


def options_of(opts) -> dict:
    for p in opts.get("modifiers") or ():
        if p.get("kind") == NAME:
            return {f.name: p.get(f.name, f.default) for f in FIELDS}
    return {f.name: f.default for f in FIELDS}


def explain_cell(ctx, step_id: str, idx: tuple[int, ...]):
    """One normalised cell: the row's mean square, its RMS, and x[e] / rms times the weight."""
    import math

    from attention.text import explanation as ex

    which = step_id.split(".", 1)[1]
    src, _, _, wname = _STEPS[which]
    b, n, h, e = idx
    read = ctx.reads(src, before=step_id)
    x = ctx.a(read)[b, n, h]  # (d,)
    s = options_of(ctx.opts)
    w = float(ctx.param(f"{NAME}.{wname}")[e])
    factor = w if s["style"] == "qwen3" else 1.0 + w
    sym = "q" if which == "query" else "k"
    terms = [ex.Term(ex._same(f"{sym}[{i}]² = {_sq(ex.fmt(float(v)))} = {ex.fmt(float(v) * float(v))}"),
                     float(v) * float(v), (ex.Source(read, (b, n, h, i)),), factors=(float(v), float(v)))
             for i, v in enumerate(x)]
    mean = ex._fsum([t.value for t in terms]) / len(x)
    rms = math.sqrt(mean + float(s["eps"]))
    result = float(x[e]) / rms * factor
    terms.append(ex.Term(ex._same(f"w[{e}] = {ex.fmt(w)}"), w, (ex.Source(f"{NAME}.{wname}", (e,)),)))
    scale = f"w[{e}]" if s["style"] == "qwen3" else f"(1 + w[{e}])"
    formula = ex._same(f"{sym}'[{e}] = {sym}[{e}] / √(mean_i {sym}[i]² + eps) · {scale}")
    combine = ex._same(f"{ex.fmt(float(x[e]))} / √({ex.fmt(mean)} + {ex.fmt(float(s['eps']))}) × {ex.fmt(factor)} "
                       f"= {ex.fmt(float(x[e]))} / {ex.fmt(rms)} × {ex.fmt(factor)} = {ex.fmt(result)}")
    summary = ex._tx(f"explain.qk_norm.summary.{s['style']}", e=ex.P(e), n=ex.P(n), h1=ex.P(h),
                     name=ex._tx(f"explain.qk_norm.{which}"), d=len(x), rms=ex.fmt(rms), w=ex.fmt(w),
                     factor=ex.fmt(factor))
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), formula, terms, result, summary, combine)


def _sq(text: str) -> str:
    """A number squared as written: (-0.5)², 0.5²."""
    return f"({text})²" if text.startswith("-") else f"{text}²"


def lesson(step_id: str, options: dict, v: dict, lang: str, kinds) -> str:
    import attention.words as words

    s = options_of(options)
    keys = ["lesson.qk_norm.what", f"lesson.qk_norm.{s['style']}", "lesson.qk_norm.why"]
    from attention.text.lesson import format_number

    return " ".join(words.text(k, lang, eps=format_number(s["eps"])) for k in keys)


_HELPER = '''
def qk_norm(x, w, eps, style):
    """x (B, N, H, d): each head's row divided by its RMS, then times w (Qwen3) or 1 + w (Gemma 3)."""
    normed = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return w * normed if style == "qwen3" else normed * (1.0 + w)

'''


def script(plan, step_id: str) -> str:
    sc = plan.sc
    from attention.datamodel import parts
    from attention.text import script as se

    if step_id not in ("qk_norm.query", "qk_norm.key"):
        return None  # script export asks every modifier for every step (sinks computes one its way)
    s = _settings(parts.find(sc, "modifiers", NAME))
    which = step_id.split(".", 1)[1]
    _, _, _, wname = _STEPS[which]
    name, width = ("q", sc.query_head_width) if which == "query" else ("k", sc.key_head_width)
    w = s[wname]
    weight = (f"torch.full(({width},), {1.0 if s['style'] == 'qwen3' else 0.0}, dtype=dtype)  # no learned scale"
              if w is None else f"torch.tensor({se.literal(w)}, dtype=dtype)")
    head = _HELPER if which == "query" else ""
    return (se.section(plan, step_id) + head
            + f"qk_norm_{name}_weight = {weight}\n"
            + f"{name} = qk_norm({name}, qk_norm_{name}_weight, {se._num(float(s['eps']))}, {s['style']!r})  "
              "# before RoPE\n"
            + se.show(step_id, name))


class QkNorm:
    """QK-norm as a score modifier of the kinds' table (it changes the scores through q and k)."""

    name = NAME
    fields = FIELDS
    compute = staticmethod(norm_step)
    explain = staticmethod(explain_cell)
    lesson = staticmethod(lesson)
    script = staticmethod(script)
    part_problems = staticmethod(part_problems)

    def __repr__(self) -> str:
        return f"<modifier {self.name}>"

    def records(self) -> tuple:
        from attention.datamodel import parts
        from attention.datamodel.step_record import StepRecord

        active = parts.present("modifiers", NAME)
        return tuple(
            StepRecord(sid, ("B", "L" if which == "query" else "S", "H", "dk"), "signed", f"step.{sid}.title",
                       f"step.{sid}.formula", norm_step, active, explain_cell, lesson, script, (src,),
                       before=before, stands_for=src, by_hand=("q",) if which == "query" else ("kt",))
            for which, (src, sid, before, _) in _STEPS.items())


QK_NORM = QkNorm()
