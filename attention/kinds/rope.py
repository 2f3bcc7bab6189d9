"""Rotary position embedding (RoPE): q and k rotated, after the head split, by angles that grow
with the position, so that q_l . k_s depends on the positions only through l - s.

The first rot_dim columns of each head are cut into rot_dim / 2 pairs; pair i of the token at
position p turns by the angle p * inv_freq[i], inv_freq[i] = base ** (-2i / rot_dim).  The other
head_dim - rot_dim columns pass through unchanged (partial rotary: GPT-NeoX's rotary_pct, Phi's
partial_rotary_factor, GPT-J's rotary_dim).

Two pairings exist in real checkpoints and are NOT interchangeable (the same weights give other
scores), so the caller always names one:
  "halves"   pair i = columns (i, i + rot_dim/2)  Hugging Face rotate_half: Llama, Mistral, Qwen,
                                                  Gemma, GPT-NeoX, Phi, gpt-oss
  "adjacent" pair i = columns (2i, 2i + 1)        Meta's reference (complex numbers), GPT-J
Either way a pair (x, y) becomes (x cos - y sin, y cos + x sin).

Precision (hf_float32).  transformers computes inv_freq, the angles and cos/sin in float32 even
when the model runs in float64: inv_freq = 1 / base ** (arange(0, rot, 2).float() / rot) (int64
arange cast to float32, a float32 division, a float32 power and reciprocal); the angles are a
float32 product position * inv_freq (the rotary module's forward disables autocast and calls
.float()), cos/sin are taken in float32 and only then cast to the activations' dtype.  Meta's
precompute_freqs_cis and GPT-J's create_sinusoidal_positions do the same float32 steps.  At
position p the float32 angle is off by up to half an ulp of p * inv_freq (about 6e-5 rad at
p = 1000), so a float64 run that must match transformers passes hf_float32=True; the default
computes every step in the requested dtype (exact in float64).  In a float32 run the two
settings give the same bits.

Shapes: B batch, N positions (L for queries, S for keys), H heads, d head width, r = rot_dim.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:  # torch is imported inside the functions: the kinds' table is read before torch loads
    import torch

Pairing = Literal["halves", "adjacent"]
PAIRINGS: tuple[Pairing, ...] = ("halves", "adjacent")


def rotary_dim(head_dim: int, fraction: float = 1.0) -> int:
    """Columns of each head that rotate: int(head_dim * fraction), as transformers truncates it.
    Must be even and >= 2 (pairs); the caller's problems() names the field when it is not."""
    r = int(head_dim * fraction)
    if r < 2 or r % 2 or r > head_dim:
        raise ValueError(f"rotary dimension int({head_dim} * {fraction}) = {r} must be even, >= 2 and <= {head_dim}")
    return r


def inv_frequencies(rot_dim: int, base: float, dtype: torch.dtype | None = None,
                    device: torch.device | None = None, hf_float32: bool = False) -> torch.Tensor:
    """(r/2,) inv_freq[i] = 1 / base ** (2i / r), the angle per position of pair i.

    The expression is transformers' own, step by step (integer arange, cast, divide, power,
    reciprocal); hf_float32 does those steps in float32 as transformers does, then casts."""
    import torch

    dtype = torch.float64 if dtype is None else dtype  # None: float64 (torch is not loaded at import)
    work = torch.float32 if hf_float32 else dtype
    exponent = torch.arange(0, rot_dim, 2, dtype=torch.int64, device=device).to(work) / rot_dim  # (r/2,)
    return (1.0 / (base ** exponent)).to(dtype)


def positions(n: int, offset: int = 0, device: torch.device | None = None) -> torch.Tensor:
    """(N,) int64 positions offset, offset + 1, ..., offset + n - 1."""
    import torch

    return torch.arange(n, device=device) + offset


def angles(pos: torch.Tensor, inv_freq: torch.Tensor, hf_float32: bool = False) -> torch.Tensor:
    """pos (N,) or (B, N), inv_freq (r/2,) -> angles (N, r/2) or (B, N, r/2), in inv_freq's dtype
    (rounded through float32 first when hf_float32: one float32 product, as transformers)."""
    import torch

    work = torch.float32 if hf_float32 else inv_freq.dtype
    return (pos.to(work)[..., None] * inv_freq.to(work)).to(inv_freq.dtype)


def cos_sin(pos: torch.Tensor, rot_dim: int, base: float, dtype: torch.dtype | None = None,
            hf_float32: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of every (position, pair) angle: each (N, r/2) or (B, N, r/2), in dtype.

    One value per pair (not per column): the pairing decides which columns share it."""
    import torch

    dtype = torch.float64 if dtype is None else dtype
    inv = inv_frequencies(rot_dim, base, torch.float32 if hf_float32 else dtype, pos.device, hf_float32)
    theta = angles(pos, inv, hf_float32)
    return theta.cos().to(dtype), theta.sin().to(dtype)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, pairing: Pairing) -> torch.Tensor:
    """x (B, N, H, d) rotated: cos, sin (N, r/2) or (B, N, r/2) with r = 2 * cos.shape[-1] <= d.

    Returns a new tensor; columns r.. of each head are copied unchanged.  The arithmetic order is
    rotate_half's (x * cos, then + or - the partner * sin), so "halves" matches transformers'
    apply_rotary_pos_emb elementwise.  The pairs are strided views of x ((2, r/2) or (r/2, 2) per
    head row) and the results are written straight into the output's matching views: no
    gather, no concatenation, two temporaries of half the rotated width."""
    import torch

    half = cos.shape[-1]
    r = 2 * half
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing must be one of {PAIRINGS}, not {pairing!r}")
    if r > x.shape[-1]:
        raise ValueError(f"rotary dimension {r} is wider than the head ({x.shape[-1]})")
    c = cos[..., None, :].to(x.dtype)  # (N, 1, r/2) or (B, N, 1, r/2): the same angle for every head
    s = sin[..., None, :].to(x.dtype)
    out = torch.empty_like(x)
    split = (2, half) if pairing == "halves" else (half, 2)
    xv, ov = x[..., :r].unflatten(-1, split), out[..., :r].unflatten(-1, split)  # views
    if pairing == "halves":  # pair i = columns (i, i + r/2)
        first, second, o1, o2 = xv[..., 0, :], xv[..., 1, :], ov[..., 0, :], ov[..., 1, :]
    else:  # pair i = columns (2i, 2i + 1)
        first, second, o1, o2 = xv[..., 0], xv[..., 1], ov[..., 0], ov[..., 1]
    torch.mul(first, c, out=o1).sub_(second * s)  # x cos - partner sin   (B, N, H, r/2)
    torch.mul(second, c, out=o2).add_(first * s)  # partner cos + x sin
    if r < x.shape[-1]:
        out[..., r:] = x[..., r:]  # partial rotary: the rest passes through
    return out


def rotate(x: torch.Tensor, base: float = 10000.0, fraction: float = 1.0, pairing: Pairing = "halves",
           offset: int = 0, hf_float32: bool = False) -> torch.Tensor:
    """x (B, N, H, d) rotated for positions offset .. offset + N - 1 (the whole recipe in one call).
    pairing has a default here only for brevity in tests; a scenario always names it."""
    r = rotary_dim(x.shape[-1], fraction)
    c, s = cos_sin(positions(x.shape[1], offset, x.device), r, base, x.dtype, hf_float32)
    return apply_rope(x, c, s, pairing)


def pair_of(column: int, rot_dim: int, pairing: Pairing) -> tuple[int, int, int] | None:
    """(pair index i, first column, second column) of the pair holding `column`; None when the
    column is at or past rot_dim (it passes through unrotated)."""
    if not 0 <= column < rot_dim:
        return None
    half = rot_dim // 2
    if pairing == "halves":
        i = column % half
        return i, i, i + half
    if pairing == "adjacent":
        i = column // 2
        return i, 2 * i, 2 * i + 1
    raise ValueError(f"pairing must be one of {PAIRINGS}, not {pairing!r}")


class RopeCell(NamedTuple):
    """What explain shows for one column of one rotated q or k row."""
    column: int  # the column asked about
    partner: int  # the other column of its pair
    pair: int  # pair index i (its frequency)
    is_first: bool  # True: out = x cos - partner sin; False: out = x cos + partner sin
    position: int
    inv_freq: float
    angle: float  # position * inv_freq, radians
    cos: float
    sin: float


def rope_cell(column: int, position: int, head_dim: int, base: float, fraction: float, pairing: Pairing,
              dtype: torch.dtype | None = None, hf_float32: bool = False) -> RopeCell | None:
    """The pair, angle, cos and sin behind one cell; None for a column that does not rotate.

    Computed with the very functions the engine uses (same dtype and hf_float32), so the numbers
    explain shows are the numbers that rotated the cell."""
    import torch

    dtype = torch.float64 if dtype is None else dtype
    r = rotary_dim(head_dim, fraction)
    found = pair_of(column, r, pairing)
    if found is None:
        return None
    i, first, second = found
    inv = inv_frequencies(r, base, torch.float32 if hf_float32 else dtype, None, hf_float32)
    theta = angles(torch.tensor([position]), inv, hf_float32)[0]  # (r/2,)
    c, s = cos_sin(torch.tensor([position]), r, base, dtype, hf_float32)
    return RopeCell(column, second if column == first else first, i, column == first, position,
                    float(inv[i]), float(theta[i]), float(c[0, i]), float(s[0, i]))


def rotated_value(cell: RopeCell, x_column: float, x_partner: float) -> float:
    """The rotated cell from its input and its partner's: the one line explain writes out."""
    sign = -1.0 if cell.is_first else 1.0
    return x_column * cell.cos + sign * x_partner * cell.sin


# ---- the kind: Part("rope", ...) in a scenario's positions (attention/datamodel/parts.py) ------------------
# Registered in attention/registry/kinds.py (POSITIONS).  Two steps, rope.query and rope.key,
# computed after the head split; each stands for the head split it rotates, so the scores (and
# ProbSparse's sample, the tiles, the by-hand sheet, explain) read the rotated q and k.

from attention.datamodel.fields import INT_MAX, Field  # noqa: E402  (the kind below; the math above needs neither)

NAME = "rope"
#: query / key -> (the step it rotates, the step id, the positions' field)
_STEPS = {"query": ("head_split.query", "rope.query"), "key": ("head_split.key", "rope.key")}


def _f(name: str, type_: str, **kw) -> Field:
    return Field(f"positions.{NAME}.{name}", type_, f"field.rope.{name}.label", f"field.rope.{name}.help",
                 group="positions", **kw)


FIELDS: tuple[Field, ...] = (
    _f("base", "float", default=10000.0, minimum=1.0, maximum=1e12),
    _f("fraction", "float", default=1.0, minimum=0.0, maximum=1.0),
    _f("pairing", "choice", default="halves", choices=PAIRINGS,
       choice_words=tuple(f"field.rope.pairing.{p}" for p in PAIRINGS)),
    _f("offset", "int", default=0, minimum=0, maximum=INT_MAX),
    # a decoder step with a cache: queries at offset .. offset + L - 1, keys at key_offset .. (None: offset)
    _f("key_offset", "int", default=None, minimum=0, maximum=INT_MAX, nullable=True),
    _f("frequencies", "matrix", default=None, nullable=True),
)


def _settings(part) -> dict:
    """The part's field values (defaults filled in)."""
    return {f.name: part.values.get(f.name, f.default) for f in FIELDS}


def key_start(settings) -> int:
    """The keys' first position: key_offset, or the queries' offset when it is None."""
    k = settings.get("key_offset")
    return int(settings.get("offset") or 0) if k is None else int(k)


def rotate_step(run, step_id: str):
    """rope.query / rope.key: (B, N, H, d) the head split (or what stands for it: QK-norm's
    output) rotated at positions offset + n (keys: key_offset + n)."""
    import numpy as np
    import torch

    from attention.datamodel import parts

    which = step_id.split(".", 1)[1]
    x = run.inputs[_STEPS[which][0]]  # (B, N, H, d)
    s = _settings(parts.find(run.sc, "positions", NAME))
    start = int(s["offset"]) if which == "query" else key_start(s)
    pos = positions(x.shape[1], start, x.device)  # (N,)
    r = rotary_dim(x.shape[-1], s["fraction"])
    if s["frequencies"] is None:
        c, sn = cos_sin(pos, r, s["base"], x.dtype)  # (N, r/2)
    else:
        inv = torch.as_tensor(np.asarray(s["frequencies"], dtype=np.float64), dtype=x.dtype, device=x.device)
        run.params[f"{NAME}.frequencies"] = inv  # the trace's parameters: explain reads the angles from them
        theta = angles(pos, inv)
        c, sn = theta.cos(), theta.sin()
    return apply_rope(x, c, sn, s["pairing"])


def part_problems(sc, part, path: str, kinds) -> list:
    """The rotated width of each head must be an even number >= 2 (pairs); given frequencies
    must be (r/2,) finite numbers."""
    import numpy as np

    from attention.datamodel.problem import Problem, literal

    s = _settings(part)
    errs = []
    widths = dict.fromkeys((sc.query_head_width, sc.key_head_width))
    for width in widths:
        r = int(width * s["fraction"])
        if r < 2 or r % 2:
            errs.append(Problem("rope_rotary_dim", f"{path}.fraction",
                                {"width": width, "fraction": literal(s["fraction"]), "r": r}))
    f = s["frequencies"]
    if f is not None and not errs:
        r = int(sc.query_head_width * s["fraction"])
        try:
            a = np.asarray(f, dtype=np.float64)
        except (TypeError, ValueError):
            return [Problem("expected_number", f"{path}.frequencies", {"got": literal(type(f).__name__)})]
        if a.shape != (r // 2,):
            errs.append(Problem("shape", f"{path}.frequencies", {"expected": f"[{r // 2}]", "got": list(a.shape)}))
        elif not np.isfinite(a).all():
            errs.append(Problem("not_finite", f"{path}.frequencies"))
    return errs


# ---- explain, lesson, script ----------------------------------------------------------------------

def options_of(opts) -> dict:
    """The RoPE part of a trace's options (attention.datamodel.parts.options), defaults filled in."""
    for p in opts.get("positions") or ():
        if p.get("kind") == NAME:
            return {f.name: p.get(f.name, f.default) for f in FIELDS}
    return {f.name: f.default for f in FIELDS}


def explain_cell(ctx, step_id: str, idx: tuple[int, ...]):
    """One rotated cell: its pair, the angle, cos and sin, and x[e]·cos ∓ x[partner]·sin."""
    import math

    from attention.text import explanation as ex

    which = step_id.split(".", 1)[1]
    b, n, h, e = idx
    src = ctx.reads(_STEPS[which][0], before=step_id)  # what this step rotated
    x = ctx.a(src)[b, n, h]  # (d,)
    s = options_of(ctx.opts)
    pos = (int(s["offset"]) if which == "query" else key_start(s)) + n
    d = x.shape[0]
    sym = "q" if which == "query" else "k"
    value = ctx.value(step_id, idx)
    where = dict(e=ex.P(e), n=ex.P(n), h1=ex.P(h), name=ex._tx(f"explain.rope.{which}"), pos=pos)
    r = rotary_dim(d, s["fraction"])
    found = pair_of(e, r, s["pairing"])
    if found is None:
        term = ex.Term(ex._same(f"{sym}[{e}] = {ex.fmt(x[e])}"), float(x[e]), (ex.Source(src, (b, n, h, e)),))
        return ex._explanation(step_id, idx, value, ex._same(f"{sym}'[{e}] = {sym}[{e}]"), [term], float(x[e]),
                               ex._tx("explain.rope.passes", r=r, d=d, **where), ex._same(ex.fmt(x[e])))
    i, first, second = found
    partner = second if e == first else first
    freqs = ctx.param(f"{NAME}.frequencies")
    if freqs is None:  # the engine's own functions, in float64
        cell = rope_cell(e, pos, d, s["base"], s["fraction"], s["pairing"])
        inv, angle, c, sn = cell.inv_freq, cell.angle, cell.cos, cell.sin
    else:
        inv = float(freqs[i])
        angle = pos * inv
        c, sn = math.cos(angle), math.sin(angle)
    sign = -1.0 if e == first else 1.0
    a, p = float(x[e]), float(x[partner])
    terms = [ex.Term(ex._same(f"{sym}[{e}]·cos θ = {ex.fmt(a)} × {ex.fmt(c)} = {ex.fmt(a * c)}"), a * c,
                     (ex.Source(src, (b, n, h, e)),), factors=(a, c)),
             ex.Term(ex._same(f"{'−' if sign < 0 else '+'} {sym}[{partner}]·sin θ = "
                              f"{'−' if sign < 0 else '+'} ({ex.fmt(p)} × {ex.fmt(sn)}) = {ex.fmt(sign * p * sn)}"),
                     sign * p * sn, (ex.Source(src, (b, n, h, partner)),), factors=(sign * p, sn))]
    result = a * c + sign * p * sn
    op = "−" if sign < 0 else "+"
    formula = ex._same(f"{sym}'[{e}] = {sym}[{e}]·cos θ {op} {sym}[{partner}]·sin θ,  θ = p·θ_{i}")
    how = ex._tx("explain.rope.given" if freqs is not None else "explain.rope.from_base",
                 i=i, r=r, base=ex.fmt(s["base"]))
    summary = ex._tx("explain.rope.summary", i=i, first=ex.P(first), second=ex.P(second), inv=ex.fmt(inv),
                     angle=ex.fmt(angle), cos=ex.fmt(c), sin=ex.fmt(sn), how=how,
                     pairing=ex._tx(f"field.rope.pairing.{s['pairing']}"), **where)
    combine = ex._same(f"{ex._signed([a * c, sign * p * sn])} = {ex.fmt(result)}")
    return ex._explanation(step_id, idx, value, formula, terms, result, summary, combine)


def lesson(step_id: str, options: dict, v: dict, lang: str, kinds) -> str:
    """What the rotation does and why the scores then depend only on l - s."""
    import attention.words as words
    from attention.text.lesson import format_number as num

    s = options_of(options)
    args = dict(base=num(s["base"]), fraction=num(s["fraction"]), offset=s["offset"], key_offset=key_start(s),
                pairing=words.text(f"field.rope.pairing.{s['pairing']}", lang))
    keys = ["lesson.rope.what", "lesson.rope.pairs", "lesson.rope.relative"]
    if s["fraction"] < 1:
        keys.append("lesson.rope.partial")
    if s["offset"] or key_start(s):
        keys.append("lesson.rope.offset")
    return " ".join(words.text(k, lang, **args) for k in keys)


_HELPER = '''
def rope(x, start, base, fraction, pairing, inv_freq=None):
    """x (B, N, H, d) rotated at positions start .. start + N - 1: pair i of the first
    r = int(d * fraction) columns turns by position * inv_freq[i], inv_freq[i] = base ** (-2i / r)."""
    d = x.shape[-1]
    r = int(d * fraction)
    half = r // 2
    if inv_freq is None:
        inv_freq = 1.0 / base ** (torch.arange(0, r, 2, dtype=torch.int64).to(dtype) / r)  # (r/2,)
    theta = (torch.arange(x.shape[1]) + start).to(dtype)[:, None] * inv_freq  # (N, r/2)
    cos, sin = theta.cos()[:, None, :], theta.sin()[:, None, :]  # (N, 1, r/2): the same for every head
    if pairing == "halves":  # pair i = columns (i, i + r/2): Hugging Face's rotate_half
        x1, x2 = x[..., :half], x[..., half:r]
    else:  # "adjacent": pair i = columns (2i, 2i + 1): Meta's reference, GPT-J
        x1, x2 = x[..., 0:r:2], x[..., 1:r:2]
    y1 = x1 * cos - x2 * sin
    y2 = x2 * cos + x1 * sin
    rotated = torch.cat([y1, y2], -1) if pairing == "halves" else torch.stack([y1, y2], -1).flatten(-2)
    return torch.cat([rotated, x[..., r:]], -1)  # partial rotary: the other columns pass through

'''


def script(plan, step_id: str) -> str:
    """rope.query (with the helper and the settings) / rope.key: rebinds q / k, read by the scores."""
    sc = plan.sc
    from attention.datamodel import parts
    from attention.text import script as se

    s = _settings(parts.find(sc, "positions", NAME))
    which = step_id.split(".", 1)[1]
    head = ""
    if which == "query":
        inv = "None" if s["frequencies"] is None else f"torch.tensor({se.literal(s['frequencies'])}, dtype=dtype)"
        head = (_HELPER + f"rope_base, rope_fraction, rope_pairing = {se._num(float(s['base']))}, "
                f"{se._num(float(s['fraction']))}, {s['pairing']!r}\n"
                f"rope_inv_freq = {inv}  # None: computed from the base\n")
    name, start = ("q", int(s["offset"])) if which == "query" else ("k", key_start(s))
    return (se.section(plan, step_id) + head
            + f"{name} = rope({name}, {start}, rope_base, rope_fraction, rope_pairing, rope_inv_freq)  "
              f"# positions {start} ... {start} + {'L' if which == 'query' else 'S'} - 1\n"
            + se.show(step_id, name))


class Rope:
    """Rotary position embedding as a position encoding of the kinds' table."""

    name = NAME
    in_panel = True  # the Parameters panel's "Position & modifiers" group offers it
    fields = FIELDS
    compute = staticmethod(rotate_step)
    explain = staticmethod(explain_cell)
    lesson = staticmethod(lesson)
    script = staticmethod(script)
    part_problems = staticmethod(part_problems)

    def __repr__(self) -> str:
        return f"<position {self.name}>"

    def records(self) -> tuple:
        from attention.datamodel import parts
        from attention.datamodel.step_record import StepRecord

        active = parts.present("positions", NAME)
        return tuple(
            StepRecord(sid, ("B", "L" if which == "query" else "S", "H", "dk"), "signed", f"step.{sid}.title",
                       f"step.{sid}.formula", rotate_step, active, explain_cell, lesson, script, (src,),
                       before="scores", stands_for=src, by_hand=("q",) if which == "query" else ("kt",))
            for which, (src, sid) in _STEPS.items())


ROPE = Rope()
