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

from typing import Literal, NamedTuple

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


def inv_frequencies(rot_dim: int, base: float, dtype: torch.dtype = torch.float64,
                    device: torch.device | None = None, hf_float32: bool = False) -> torch.Tensor:
    """(r/2,) inv_freq[i] = 1 / base ** (2i / r), the angle per position of pair i.

    The expression is transformers' own, step by step (integer arange, cast, divide, power,
    reciprocal); hf_float32 does those steps in float32 as transformers does, then casts."""
    work = torch.float32 if hf_float32 else dtype
    exponent = torch.arange(0, rot_dim, 2, dtype=torch.int64, device=device).to(work) / rot_dim  # (r/2,)
    return (1.0 / (base ** exponent)).to(dtype)


def positions(n: int, offset: int = 0, device: torch.device | None = None) -> torch.Tensor:
    """(N,) int64 positions offset, offset + 1, ..., offset + n - 1."""
    return torch.arange(n, device=device) + offset


def angles(pos: torch.Tensor, inv_freq: torch.Tensor, hf_float32: bool = False) -> torch.Tensor:
    """pos (N,) or (B, N), inv_freq (r/2,) -> angles (N, r/2) or (B, N, r/2), in inv_freq's dtype
    (rounded through float32 first when hf_float32: one float32 product, as transformers)."""
    work = torch.float32 if hf_float32 else inv_freq.dtype
    return (pos.to(work)[..., None] * inv_freq.to(work)).to(inv_freq.dtype)


def cos_sin(pos: torch.Tensor, rot_dim: int, base: float, dtype: torch.dtype = torch.float64,
            hf_float32: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of every (position, pair) angle: each (N, r/2) or (B, N, r/2), in dtype.

    One value per pair (not per column): the pairing decides which columns share it."""
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
              dtype: torch.dtype = torch.float64, hf_float32: bool = False) -> RopeCell | None:
    """The pair, angle, cos and sin behind one cell; None for a column that does not rotate.

    Computed with the very functions the engine uses (same dtype and hf_float32), so the numbers
    explain shows are the numbers that rotated the cell."""
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
