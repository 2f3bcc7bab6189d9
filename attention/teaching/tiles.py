"""FlashAttention-2's tiled computation with an online softmax, run on a trace's own numbers.

`tiled(trace, block_q, block_k)` walks the score matrix tile by tile in FlashAttention-2 order
(for each query block, over the key blocks) and keeps, per query row, only the running maximum
m, the running sum l and the running un-normalised output O:

    m_new = max(m_old, max_j s_ij)                       row maximum so far
    c     = exp(m_old - m_new)                           correction of what was summed so far
    p_ij  = exp(s_ij - m_new)
    l_new = c * l_old + sum_j p_ij
    O_new = c * O_old + sum_j p_ij v_j                   (divided by l only at the end)

so that O / l equals softmax(masked scores) @ V, the trace's weighted_sum, without the L x S
matrix ever being stored.  Every number comes from the trace: the dot-product kinds compute the
tile's scores Q_i K_j^T * scale from the head-split steps (FlashAttention's own work) and check
them against the trace's masked scores; other kinds (additive) read the block from the trace.
Which kinds can be tiled at all is decided in one place, `method`.

Masks follow the engine exactly (attention/compute/engine.py, steps.apply_mask): a masked cell holds the
fill value.  A tile whose every cell is masked is skipped, as kernels skip them under a causal
mask -- but only where skipping changes nothing: with a -inf fill always; with a finite fill when
exp(fill - m) is exactly 0 in the dtype for every row of the tile, m being the row's largest
unmasked score.  A fully masked row (extra.fully_masked) is never skipped under a finite fill, so
it comes out as the engine's does: every key weighted 1/S (d2l's masked_softmax); under -inf
its m stays -inf, l stays 0 and O / l is NaN, as the engine's (the kernel's guard: an all -inf
row subtracts 0, not -inf, so no NaN appears before the division).

Pure numpy (a trace read back from disk works too); shapes: B batch, H heads, L queries, S keys,
E = d_k, D = d_v, br x bc one tile.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Optional

import numpy as np

from attention.compute import threads
from attention.compute.trace import Trace
from attention.datamodel import numbers
from attention.registry import kinds

#: The steps of plain multi-head attention (trace format 1).  A trace holding any other step has
#: something between the head split and the weights (a rotation of q and k, a bias, a cap ...):
#: its tiles then read their scores from the trace instead of multiplying q and k themselves.
_PLAIN_STEPS = frozenset({
    "projection.query", "projection.key", "projection.value", "head_split.query", "head_split.key",
    "head_split.value", "scores", "masked_scores", "attention_weights", "weighted_sum", "concat", "output",
    "extra.mask", "extra.fully_masked", "extra.additive_features"})


class TilesError(ValueError):
    """A scenario or request the tiled view cannot take: `key` and `values` fill catalogue words."""

    def __init__(self, key: str, **args) -> None:
        self.key, self.values = key, args
        super().__init__(self.text("en"))

    def text(self, lang: str = "en") -> str:
        import attention.words as words

        return words.text(self.key, lang, **args_in(self.values, lang))


def args_in(args: dict, lang: str) -> dict:
    """Placeholders whose values are themselves catalogue keys ('@key') put into words."""
    import attention.words as words

    return {k: words.text(v[1:], lang) if isinstance(v, str) and v.startswith("@") else v for k, v in args.items()}


def method(scoring: Optional[str], step_ids: Iterable[str] = (), modifiers: Iterable[str] = ()) -> str:
    """How a kind's tiles are scored ("dot" or "read"); TilesError when the kind is no row softmax.

    Each kind object says which (`tiled`, `not_tiled_words`): ProbSparse does not apply -- its
    lazy rows are never scored, they take the mean (or the running sum) of the values,
    so there is no row softmax to compute online.  A dot
    kind whose trace has steps beyond plain attention (`step_ids`) reads its blocks too."""
    if not kinds.known_scoring(scoring):
        raise TilesError("tiles.not_applicable.unknown", kind=str(scoring))
    kind = kinds.SCORING[scoring]
    for name in modifiers:  # a modifier that changes the softmax itself (sinks) says why there are no tiles
        mod = kinds.MODIFIERS.get(name)
        if mod is not None and getattr(mod, "tiled", "read") is None:  # no word: it leaves the softmax alone
            raise TilesError(mod.not_tiled_words, kind=name)
    if kind.tiled is None:  # the kind object says how its tiles are scored, or why there are none
        raise TilesError(kind.not_tiled_words, kind=str(scoring))
    if kind.tiled == "dot" and not set(step_ids) <= _PLAIN_STEPS:
        return "read"
    return kind.tiled


def default_blocks(L: int, S: int) -> tuple[int, int]:
    """Block sizes giving about a 2 x 3 grid of tiles (fewer where L or S is smaller)."""
    return max(1, math.ceil(L / 2)), max(1, math.ceil(S / 3))


@dataclass(frozen=True)
class Tile:
    """One step of the walk: tile (q_block, k_block) for every batch item and head at once.

    Arrays are (B, H, ...); `rows` and `cols` are the half-open query and key ranges."""

    order: int  # position in the walk, from 0
    q_block: int
    k_block: int
    rows: tuple[int, int]
    cols: tuple[int, int]
    skipped: np.ndarray  # (B, H) bool: every cell masked and skipping exact
    scores: np.ndarray  # (B, H, br, bc) the tile's scores, masked cells holding the fill
    masked: np.ndarray  # (B, br, bc) bool, True = masked
    m_old: np.ndarray  # (B, H, br)
    m_new: np.ndarray  # (B, H, br)
    correction: np.ndarray  # (B, H, br) exp(m_old - m_new); 1 where skipped
    p: np.ndarray  # (B, H, br, bc) exp(s - m_new); 0 where skipped
    l_old: np.ndarray  # (B, H, br)
    l_new: np.ndarray  # (B, H, br)
    O_old: np.ndarray  # (B, H, br, D)
    O_new: np.ndarray  # (B, H, br, D)


@dataclass(frozen=True)
class Tiled:
    """The whole walk and its result beside the engine's."""

    block_q: int
    block_k: int
    n_q: int  # query blocks
    n_k: int  # key blocks
    tiles: tuple[Tile, ...]  # FlashAttention-2 order: q_block outer, k_block inner
    output: np.ndarray  # (B, H, L, D) O / l
    exact: np.ndarray  # (B, H, L, D) the trace's weighted_sum, transposed
    max_abs_diff: float  # over every cell; NaN where both are NaN counts as equal
    fully_masked: np.ndarray  # (B, L) bool
    fill: float
    how: str  # "dot" or "read" (see `method`)
    dtype: str
    values: np.ndarray  # (B, H, S, D) the head-split values the running O sums (explain reads them)

    @property
    def shape(self) -> tuple[int, int, int, int, int]:
        """B, H, L, S, D."""
        B, H, L, D = self.output.shape
        return B, H, L, int(self.tiles[-1].cols[1]) if self.tiles else 0, D

    def tile(self, q_block: int, k_block: int) -> Tile:
        return self.tiles[q_block * self.n_k + k_block]


#: At most this many query blocks and this many key blocks (1,024 tiles a head): the walk keeps each
#: tile's running values and a person reads them tile by tile, so `tiles --block-q 1 --block-k 1` on
#: 1024 positions (a million tiles, 46 s and 3 GB) is refused from the sizes; the window's block
#: spin boxes start at the same bound (app/teaching/tiles_view.py).
MAX_BLOCKS = 32


def check_blocks(L: int, S: int, block_q: int, block_k: int, names: tuple[str, str] = ("block_q", "block_k")) -> None:
    """TilesError naming the block size that cuts L (or S) into more than MAX_BLOCKS blocks, with the
    smallest size that fits."""
    for name, n, b in ((names[0], L, block_q), (names[1], S, block_k)):
        blocks = -(-n // b)
        if blocks > MAX_BLOCKS:
            raise TilesError("tiles.error.too_many", field=name, got=b, n=n, blocks=f"{blocks:,}", most=MAX_BLOCKS,
                             least=-(-n // MAX_BLOCKS))


def check_block(name: str, value: object) -> int:
    """A block size as a whole number >= 1, else TilesError naming the field."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < 1:
        raise TilesError("tiles.error.block", field=name, got=repr(value))
    return int(value)


def tiled(trace: Trace, block_q: int, block_k: int) -> Tiled:
    """Run the tiles of `trace` with query blocks of `block_q` rows and key blocks of `block_k`."""
    opts = trace.options
    how = method(opts.get("scoring"), trace.ids, [p.get("kind") for p in opts.get("modifiers", ())])
    br, bc = check_block("block_q", block_q), check_block("block_k", block_k)
    masked_scores = trace.array("masked_scores")  # (B, H, L, S)
    B, H, L, S = masked_scores.shape
    check_blocks(L, S, br, bc)
    threads.use(B * H * L * S * 2 * trace["head_split.value"].shape[-1])  # numpy's BLAS: the policy
    fill = float(opts.get("fill_value", -math.inf))
    mask = trace.array("extra.mask") if "extra.mask" in trace else np.zeros((B, L, S), dtype=bool)  # (B, L, S)
    _refuse_overflow(masked_scores, mask)
    v = _per_query_head(trace.array("head_split.value").transpose(0, 2, 1, 3), H)  # (B, H, S, D)
    dt = masked_scores.dtype
    safe = _skip_is_exact(masked_scores, fill)  # (B, H, L)
    q = k = None
    bound = 0.0
    from attention.registry.step_registry import read_as

    qid, kid = read_as("head_split.query", trace.ids), read_as("head_split.key", trace.ids)  # RoPE: rotated
    if how == "dot" and trace[kid].shape[2] != H:  # shared key heads: read the blocks
        how = "read"
    if how == "dot":
        q = np.ascontiguousarray(trace.array(qid).transpose(0, 2, 1, 3) * dt.type(opts["scale"]))
        # q: (B, H, L, E), the scale folded in first, as the engine does
        k = np.ascontiguousarray(trace.array(kid).transpose(0, 2, 1, 3))  # (B, H, S, E)
        bound = _rounding_bound(q, k)
    n_q, n_k = -(-L // br), -(-S // bc)
    D = v.shape[-1]
    out = np.empty((B, H, L, D), dtype=dt)
    tiles: list[Tile] = []
    for i in range(n_q):
        r0, r1 = i * br, min(L, (i + 1) * br)
        m = np.full((B, H, r1 - r0), -np.inf, dtype=dt)
        l_ = np.zeros((B, H, r1 - r0), dtype=dt)
        O = np.zeros((B, H, r1 - r0, D), dtype=dt)
        for j in range(n_k):
            c0, c1 = j * bc, min(S, (j + 1) * bc)
            blk_mask = mask[:, r0:r1, c0:c1]  # (B, br, bc)
            s = _scores(how, masked_scores, q, k, blk_mask, fill, (r0, r1), (c0, c1), bound)  # (B, H, br, bc)
            skip = blk_mask.all(axis=(1, 2))[:, None] & safe[:, :, r0:r1].all(axis=-1)  # (B, H)
            tile = _update(len(tiles), (i, j), (r0, r1), (c0, c1), s, blk_mask, skip, m, l_, O, v[:, :, c0:c1])
            tiles.append(tile)
            m, l_, O = tile.m_new, tile.l_new, tile.O_new
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, :, r0:r1] = O / l_[..., None]  # 0 / 0 = NaN: a fully masked row under a -inf fill
    exact = trace.array("weighted_sum").transpose(0, 2, 1, 3)  # (B, H, L, D)
    full = mask.all(axis=-1) if S else np.ones((B, L), dtype=bool)
    diff = largest_difference(out, exact)
    _refuse_other_weights(trace, diff, v)
    return Tiled(br, bc, n_q, n_k, tuple(tiles), out, exact, diff, full, fill, how, str(dt), v)


def _per_query_head(v: np.ndarray, H: int) -> np.ndarray:
    """(B, Hkv, S, D) values as (B, H, S, D): with fewer key/value heads than query heads (grouped
    queries), query head h reads key/value head h // (H / Hkv), as Hugging Face's repeat_kv."""
    Hkv = v.shape[1]
    if Hkv != H and Hkv and H % Hkv == 0:
        v = np.repeat(v, H // Hkv, axis=1)
    return np.ascontiguousarray(v)


def _refuse_other_weights(trace: Trace, diff: float, v: np.ndarray) -> None:
    """A trace with steps beyond plain attention whose weights are not the row softmax of its
    masked scores (a sink's extra column, say) gives a different output: refused, naming the
    steps, rather than shown as a failed proof.  Plain traces are proven by the tests instead."""
    other = [sid for sid in trace.ids if sid not in _PLAIN_STEPS]
    if not other:
        return
    eps = float(np.finfo(v.dtype).eps)
    if diff <= 1e4 * eps * (1.0 + float(np.abs(v).max(initial=0.0))):
        return
    raise TilesError("tiles.not_applicable.steps", steps=", ".join(other))


def _refuse_overflow(masked_scores: np.ndarray, mask: np.ndarray) -> None:
    """Scores that overflowed (inf or NaN where no fill put them) have no softmax to tile."""
    bad = ~np.isfinite(masked_scores) & ~mask[:, None]
    if bad.any():
        b, h, l_, s = (int(x) for x in np.argwhere(bad)[0])
        raise TilesError("tiles.error.overflow", b=b + 1, h=h + 1, l=l_ + 1, s=s + 1)


def _skip_is_exact(masked_scores: np.ndarray, fill: float) -> np.ndarray:
    """(B, H, L) bool: a masked cell of this row adds exactly nothing, whatever tile it is in.

    True under a -inf fill; under a finite fill when exp(fill - m) is 0 in the dtype, m being the
    row's maximum (m only grows towards it).  Where the fill is below the row's unmasked scores
    that maximum is the largest of them; a fully masked row's is the fill itself, exp(0) = 1:
    never skipped under a finite fill (its weights are uniform, as the engine's)."""
    B, H, L, S = masked_scores.shape
    if fill == -math.inf:
        return np.ones((B, H, L), dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.exp(masked_scores.dtype.type(fill) - masked_scores.max(axis=-1, initial=-np.inf)) == 0


def _scores(how: str, masked_scores: np.ndarray, q: Optional[np.ndarray], k: Optional[np.ndarray],
            blk_mask: np.ndarray, fill: float, rows: tuple[int, int], cols: tuple[int, int],
            bound: float) -> np.ndarray:
    """The tile's scores (B, H, br, bc), masked cells := fill, as the engine's masked scores."""
    (r0, r1), (c0, c1) = rows, cols
    block = masked_scores[:, :, r0:r1, c0:c1]
    if how == "read":
        return block
    s = q[:, :, r0:r1] @ k[:, :, c0:c1].swapaxes(-1, -2)  # (B, H, br, E) @ (B, H, E, bc)
    if blk_mask.any():
        s[np.broadcast_to(blk_mask[:, None], s.shape)] = fill
    _check_same(s, block, bound)
    return s


def _rounding_bound(q: np.ndarray, k: np.ndarray) -> float:
    """How far two orders of summing one scaled dot product q.k can differ: a few ulps per term."""
    eps, E = float(np.finfo(q.dtype).eps), max(q.shape[-1], 1)
    return 4 * eps * E * float(np.abs(q).max(initial=0)) * float(np.abs(k).max(initial=0)) + float(
        np.finfo(q.dtype).tiny)


def _check_same(s: np.ndarray, block: np.ndarray, bound: float) -> None:
    """The tile's own product equals the trace's block up to the rounding of a dot product."""
    with np.errstate(invalid="ignore"):  # -inf - -inf where a -inf fill sits in both
        gap = np.abs(s - block).max(initial=0)
        if gap <= bound:
            return
        same = (s == block) | (np.abs(s - block) <= bound)
    if not same.all():
        raise AssertionError(f"tile scores differ from the trace's masked scores by {np.abs(s - block).max()}")


def _update(order: int, ij: tuple[int, int], rows: tuple[int, int], cols: tuple[int, int], s: np.ndarray,
            blk_mask: np.ndarray, skip: np.ndarray, m: np.ndarray, l_: np.ndarray, O: np.ndarray,
            v: np.ndarray) -> Tile:
    """One online-softmax update for every batch item and head (skipped ones keep their state)."""
    dt = s.dtype
    m_new = np.maximum(m, s.max(axis=-1, initial=-np.inf))  # (B, H, br)
    any_skip = bool(skip.any())
    if any_skip:
        m_new = np.where(skip[..., None], m, m_new)
    base = np.where(np.isfinite(m_new), m_new, dt.type(0))  # the kernels' guard for an all -inf row
    corr = np.exp(m - base)  # (B, H, br); exp(-inf) = 0 on a row's first real tile
    p = np.subtract(s, base[..., None])  # (B, H, br, bc)
    np.exp(p, out=p)
    if any_skip:
        corr = np.where(skip[..., None], dt.type(1), corr)
        p[skip] = 0
    l_new = corr * l_ + p.sum(axis=-1)
    O_new = corr[..., None] * O + p @ v  # (B, H, br, bc) @ (B, H, bc, D)
    return Tile(order, ij[0], ij[1], rows, cols, skip, s, blk_mask, m, m_new, corr, p, l_, l_new, O, O_new)


def largest_difference(a: np.ndarray, b: np.ndarray) -> float:
    """max |a - b| over every cell; a cell NaN in both counts as equal, NaN in one as inf."""
    if a.size == 0:
        return 0.0
    both = np.isnan(a) & np.isnan(b)
    with np.errstate(invalid="ignore"):
        d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    d = np.where(both, 0.0, d)
    d = np.where(np.isnan(d), np.inf, d)
    return float(d.max())


# ---- memory -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Memory:
    """Numbers held per (batch item, head): the exact way vs one tile at a time."""

    L: int
    S: int
    block_q: int
    block_k: int
    d_v: int
    itemsize: int

    @property
    def exact_numbers(self) -> int:
        """The L x S score matrix (its weights overwrite it in place, at best)."""
        return self.L * self.S

    @property
    def tiled_numbers(self) -> int:
        """One br x bc tile of scores, the running m and l (br each) and O (br x d_v)."""
        br, bc = min(self.block_q, self.L), min(self.block_k, self.S)
        return br * bc + 2 * br + br * self.d_v

    @property
    def exact_bytes(self) -> int:
        return self.exact_numbers * self.itemsize

    @property
    def tiled_bytes(self) -> int:
        return self.tiled_numbers * self.itemsize


def memory(result: Tiled, L: Optional[int] = None, S: Optional[int] = None) -> Memory:
    """The memory figures of `result`'s blocks, for its own L x S or another (4096, 32768, ...)."""
    B, H, L0, S0, D = result.shape
    itemsize = np.dtype(result.dtype).itemsize
    return Memory(L0 if L is None else L, S0 if S is None else S, result.block_q, result.block_k, D, itemsize)


def human_bytes(n: int) -> str:
    """1536 -> '1.5 KiB': bytes in binary units, three significant figures (attention.datamodel.numbers: 1000 KiB,
    never '1e+03 KiB')."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{numbers.rounded(size, 3)} {unit}"
        size /= 1024
    return f"{n} B"
