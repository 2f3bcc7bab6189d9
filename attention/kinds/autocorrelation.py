"""Autoformer's Auto-Correlation as separate pure steps, in Time-Series-Library's own order.

TSL's ``layers/AutoCorrelation.py`` (MIT, thuml), AutoCorrelation.forward on heads already split
by AutoCorrelationLayer, q (B, L, H, E), k (B, S, H, E), v (B, S, H, D):

1. align_lengths: L > S: keys and values get L - S zero steps appended (zeros shaped like the
   QUERIES, so the library needs E == D there); L <= S: keys and values cut to their first L steps.
2. correlation: per head and channel, over time (the library permutes to (B, H, E, L)):
       corr = irfft(rfft(q) * conj(rfft(k)))          (B, H, E, L')
   corr[..., tau] = sum_t q[(t + tau) mod L] · k[t]  (circular cross-correlation at lag tau).
   Quirk: irfft is called without n, so its length is L' = 2·(L // 2): L for even L, L - 1 for
   odd L, and for odd L the curve is not the exact circular correlation (the Nyquist-less
   spectrum is read back as an even-length signal) and lag L - 1 can never be picked.
3. mean over heads and channels: mean_corr (B, L') (the two means the library takes, dims 1, 1).
4. top-k lags, k = int(factor · ln L) (L = the aligned length; factor is the layer's, default 1):
     training (module.train()): one set of lags for the whole batch, the top k of the batch mean
         of mean_corr; each series keeps its own mean_corr values at those lags as its scores;
     inference (module.eval()): each series its own top k lags and scores (torch.topk, sorted).
5. lag_weights = softmax of the k scores (per series).
6. rolled copies of V: the copy for lag tau holds, at step t, v[(t + tau) mod L]:
   training: torch.roll(v, -tau, -1) (a roll to the LEFT, -tau: Autoformer#128's question);
   inference: the same values through gather on v repeated twice along time at index t + tau.
7. output[t] = sum_i lag_weights[i] · v[(t + lag_i) mod L]    (B, L, H, D)

So a step t of the output reads the values tau steps LATER (wrapping round the end): with the
correlation peaking at the period P, step t borrows the value one period ahead, which is the same
phase of the cycle.  `contributions` lists, for one output cell, each lag, the step it read, the
weight and the product: the numbers explain shows.

There is no scale, no softmax over keys and no mask (attn_mask is ignored; mask_flag unused).
With output_attention the module returns corr permuted to (B, L', H, E).

Shapes: B batch, L query steps, S key steps, H heads, E key width, D value width, k lags.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

import attention.words as words
from attention.datamodel.fields import Field
from attention.datamodel.numbers import rounded
from attention.kinds.dot_product import DotProduct

if TYPE_CHECKING:  # torch loads when first computing: the registry is read before torch has loaded
    import torch


def align_lengths(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Keys and values to the queries' length L: zero-padded at the end when L > S, cut when L < S."""
    import torch

    B, L, H, E = q.shape
    S, D = v.shape[1], v.shape[3]
    if L > S:
        if D != E:
            raise ValueError(f"with more queries than keys (L={L} > S={S}) the library pads values with "
                             f"zeros shaped like the queries: it needs d_values == d_keys (got {D} and {E})")
        zeros = torch.zeros(B, L - S, H, E, dtype=q.dtype, device=q.device)
        return torch.cat([k, zeros], dim=1), torch.cat([v, zeros], dim=1)
    return k[:, :L], v[:, :L]


def correlation(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """q, k (B, L, H, E) (k already aligned) -> corr (B, H, E, L'), L' = 2·(L // 2) (irfft without n)."""
    import torch

    q_fft = torch.fft.rfft(q.permute(0, 2, 3, 1).contiguous(), dim=-1)  # (B, H, E, L // 2 + 1)
    k_fft = torch.fft.rfft(k.permute(0, 2, 3, 1).contiguous(), dim=-1)
    return torch.fft.irfft(q_fft * torch.conj(k_fft), dim=-1)


def curve_length(L: int) -> int:
    """Length of the correlation curve: irfft's default n, 2·(L // 2 + 1 - 1)."""
    return 2 * (L // 2)


def mean_correlation(corr: torch.Tensor) -> torch.Tensor:
    """(B, H, E, L') -> (B, L'): the mean over heads, then over channels (the library's two means)."""
    return corr.mean(dim=1).mean(dim=1)


def top_k(factor: float, L: int) -> int:
    """k = int(factor · ln L), truncated toward zero; refused when it exceeds the curve's length."""
    k = int(factor * math.log(L))
    if k > curve_length(L):
        raise ValueError(f"factor={factor} asks for {k} lags but a length-{L} series has only "
                         f"{curve_length(L)} on its correlation curve")
    return k


@dataclass(frozen=True)
class Lags:
    lags: torch.Tensor  # (B, k) int64, the same row for every series in training
    scores: torch.Tensor  # (B, k)  mean_corr at those lags
    shared: bool  # True: training path (lags from the batch mean)


def top_lags_training(mean_corr: torch.Tensor, k: int) -> Lags:
    """Training path: lags = top k of the batch-mean curve; each series' own values at them."""
    import torch

    index = torch.topk(mean_corr.mean(dim=0), k, dim=-1)[1]  # (k,)
    scores = mean_corr[:, index]  # (B, k)
    return Lags(index.unsqueeze(0).expand(mean_corr.shape[0], k), scores, True)


def top_lags_inference(mean_corr: torch.Tensor, k: int) -> Lags:
    """Inference path: every series its own top k lags (sorted, largest first)."""
    import torch

    scores, lags = torch.topk(mean_corr, k, dim=-1)  # (B, k) each
    return Lags(lags, scores, False)


def lag_weights(scores: torch.Tensor) -> torch.Tensor:
    """softmax over the k lag scores of each series: (B, k)."""
    import torch

    return torch.softmax(scores, dim=-1)


def rolled(v: torch.Tensor, lags: torch.Tensor) -> torch.Tensor:
    """v (B, L, H, D), lags (B, k) -> (B, k, L, H, D): copy i of series b holds v[b, (t + lag) mod L].

    Written as an index (t + lag) mod L, the same numbers as the library's roll(-lag) (training)
    and its gather from v repeated twice (inference)."""
    import torch

    B, L = v.shape[:2]
    t = torch.arange(L, device=v.device)  # (L,)
    src = (t[None, None, :] + lags[:, :, None]) % L  # (B, k, L)
    b = torch.arange(B, device=v.device)[:, None, None]
    return v[b, src]  # (B, k, L, H, D)


def aggregate(copies: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """copies (B, k, L, H, D), w (B, k) -> sum_i w[i] · copy_i: (B, L, H, D)."""
    import torch

    return torch.einsum("bklhd,bk->blhd", copies, w)


@dataclass(frozen=True)
class AutoCorrelationParts:
    keys: torch.Tensor  # (B, L, H, E) aligned
    values: torch.Tensor  # (B, L, H, D) aligned
    corr: torch.Tensor  # (B, H, E, L')
    mean_corr: torch.Tensor  # (B, L')
    lags: Lags  # (B, k)
    weights: torch.Tensor  # (B, k)
    copies: torch.Tensor  # (B, k, L, H, D)
    output: torch.Tensor  # (B, L, H, D)


def autocorrelation(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, factor: float = 1.0,
                    training: bool = False) -> AutoCorrelationParts:
    """AutoCorrelation.forward with every step kept.  `training` picks the module's path
    (its self.training flag), not dropout: the layer has no dropout in its arithmetic."""
    keys, values = align_lengths(q, k, v)
    corr = correlation(q, keys)
    mean_corr = mean_correlation(corr)
    n = top_k(factor, values.shape[1])
    lags = top_lags_training(mean_corr, n) if training else top_lags_inference(mean_corr, n)
    w = lag_weights(lags.scores)
    copies = rolled(values, lags.lags)
    return AutoCorrelationParts(keys, values, corr, mean_corr, lags, w, copies, aggregate(copies, w))


@dataclass(frozen=True)
class Contribution:
    """One term of an output cell: weight · v[source] for one lag."""

    lag: int
    roll: int  # the library's torch.roll shift: -lag (a roll to the left)
    source: int  # (t + lag) mod L: the value step it read
    weight: float
    value: float
    product: float


def contributions(parts: AutoCorrelationParts, b: int, t: int, h: int, d: int) -> list[Contribution]:
    """The k terms that add up to output[b, t, h, d], in the lags' order (explain's table)."""
    L = parts.values.shape[1]
    out = []
    for i in range(parts.lags.lags.shape[1]):
        lag = int(parts.lags.lags[b, i])
        source = (t + lag) % L
        weight = float(parts.weights[b, i])
        value = float(parts.values[b, source, h, d])
        out.append(Contribution(lag, -lag, source, weight, value, weight * value))
    return out


def describe(term: Contribution, t: int, lang: Optional[str] = None) -> str:
    """One line of explain for a term of output step t (time steps as the series numbers them, from 0)."""
    return words.text("tsl.autocorr.term", lang, lag=term.lag, roll=term.roll, source=term.source, t=t,
                      weight=rounded(term.weight), value=rounded(term.value), product=rounded(term.product))


# ---- the scoring kind "autocorrelation" and its options, Part("autocorrelation", {factor, path}) ------
# Auto-Correlation through the pipeline's own steps (one weight per key, as every kind): with
# lag(t, s) = (s - t) mod L, key s is the value step that lag brings to output step t, so
#   scores[b, h, t, s]       = mean_corr[b, lag(t, s)]          (a circulant: the curve along each row)
#                              NaN, never computed, where the library has no such score: a key it
#                              cut off (s >= L when L < S) or lag L - 1 of an odd L (the curve has L - 1)
#   masked_scores            = -inf where lag(t, s) is not one of the series' top k lags
#   attention_weights        = the library's softmax over the k lag scores, each at the key its lag
#                              reads (the other keys weigh exactly 0); when L > S a lag may read one of
#                              the L - S zero steps the library appends: that weight multiplies a zero
#                              and is on no key, so the row sums to less than 1
#   weighted_sum[b, t, h, :] = Σ_i w_i · v[(t + lag_i) mod L]  (the rolled copies' weighted sum)
# Its own steps: the correlation per head and channel, their mean, the top lags, their weights and
# the rolled copies of V (of the keys and values aligned to L, as the library: padded with zeros or
# cut).  The library needs no scale and reads no mask.

NAME = "autocorrelation"
PATHS = ("inference", "training")
#: (step id, dims, kind): the kind's own steps in computing order (records below)
STEPS = (("extra.correlation", ("B", "H", "dk", "lag"), "signed"),
         ("extra.mean_correlation", ("B", "lag"), "signed"),
         ("extra.top_lags", ("B", "k"), "count"),
         ("extra.lag_weights", ("B", "k"), "weights"),
         ("extra.rolled_values", ("B", "H", "L", "k*dv"), "signed"))


class AutoCorrelationOptions:
    """The layer's factor and the module's path (train(): lags shared by the batch; eval(): per series)."""

    name = NAME
    fields = (
        Field("modifiers.factor", "float", "field.modifiers.autocorrelation.factor.label",
              "field.modifiers.autocorrelation.factor.help", default=1.0, minimum=0.0, maximum=1e6,
              group="modifiers"),
        Field("modifiers.path", "choice", "field.modifiers.autocorrelation.path.label",
              "field.modifiers.autocorrelation.path.help", default="inference", choices=PATHS,
              choice_words=tuple(f"field.modifiers.autocorrelation.path.{p}" for p in PATHS), group="modifiers"),
    )

    def __repr__(self) -> str:
        return f"<modifier {self.name}>"

    def part_problems(self, sc: Any, part: Any, path: str, kinds: Any) -> list:
        from attention.datamodel.problem import Problem

        if sc.scoring != NAME:
            return [Problem("autocorrelation_scoring", path, {"scoring": NAME})]
        return []


def options_of(sc: Any) -> tuple[float, bool]:
    """(factor, training) of the scenario: its part's, or the module's defaults (1, eval)."""
    from attention.datamodel import parts

    p = parts.find(sc, "modifiers", NAME)
    if p is None:
        return 1.0, False
    f, path = AUTOCORRELATION_OPTIONS.fields
    return float(parts.value(p, f)), parts.value(p, path) == "training"


def lag_grid(L: int, device=None, S: Optional[int] = None) -> "torch.Tensor":
    """(L, S) int64: lag(t, s) = (s - t) mod L, the lag that brings value step s to output step t."""
    import torch

    t = torch.arange(L, device=device)
    s = torch.arange(L if S is None else S, device=device)
    return (s[None, :] - t[:, None]) % L


def scored(L: int, S: int, device=None) -> "torch.Tensor":
    """(L, S) bool: the cells the library has a score for: key s is one of the L aligned steps it
    kept (s < L) and its lag is on the curve (lag < 2·(L // 2): not lag L - 1 of an odd L)."""
    import torch

    grid = lag_grid(L, device, S)
    return (torch.arange(S, device=device)[None, :] < L) & (grid < curve_length(L))


class AutoCorrelationKind(DotProduct):
    """Autoformer's Auto-Correlation: period-based dependencies from the FFT correlation curve."""

    extra_steps = tuple(sid for sid, _, _ in STEPS)
    not_computed_steps = ("scores",)  # a key the library cut off, or lag L - 1 of an odd L: no score (NaN)
    tiled = None  # its softmax is over k lags, not a row of scores over keys: no tiles
    not_tiled_words = f"tiles.not_applicable.{NAME}"
    grouped_kv = False

    def __init__(self):
        super().__init__(NAME, scaled=False,
                         titles={"scores": f"step.scores.title.{NAME}",
                                 "masked_scores": f"step.masked_scores.title.{NAME}",
                                 "attention_weights": f"step.attention_weights.title.{NAME}"},
                         formulas={"scores": f"step.scores.formula.{NAME}",
                                   "masked_scores": f"step.masked_scores.formula.{NAME}",
                                   "attention_weights": f"step.attention_weights.formula.{NAME}",
                                   "weighted_sum": f"step.weighted_sum.formula.{NAME}"})

    def records(self) -> tuple:
        from attention.datamodel.step_record import StepRecord
        from attention.text import lesson

        def active(sc, kinds) -> bool:  # the scenario's scoring kind is this one
            return kinds.scoring is self
        compute = {"extra.correlation": correlation_step, "extra.mean_correlation": part_step,
                   "extra.top_lags": part_step, "extra.lag_weights": part_step, "extra.rolled_values": rolled_step}
        explainer = {"extra.correlation": explain_correlation, "extra.mean_correlation": explain_mean,
                     "extra.top_lags": explain_top_lag, "extra.lag_weights": explain_lag_weight,
                     "extra.rolled_values": explain_rolled}
        inputs = {"extra.correlation": ("head_split.query", "head_split.key"),
                  "extra.mean_correlation": ("extra.correlation",), "extra.top_lags": ("extra.mean_correlation",),
                  "extra.lag_weights": ("extra.mean_correlation", "extra.top_lags"),
                  "extra.rolled_values": ("head_split.value", "extra.top_lags")}
        return tuple(StepRecord(sid, dims, kind, f"step.{sid}.title", f"step.{sid}.formula", compute[sid], active,
                                explainer[sid], lesson._sentences, None, inputs[sid],
                                before="weighted_sum" if sid == "extra.rolled_values" else "scores")
                     for sid, dims, kind in STEPS)

    # ---- the scenario ------------------------------------------------------------------------
    def default_scale(self, sc) -> float:
        return 1.0

    def option_problems(self, sc, errs: list) -> list:
        from attention.datamodel import parts
        from attention.datamodel.problem import Problem

        out = []
        if sc.L > sc.S and sc.dk != sc.dv:  # zeros_like(queries[:, :(L - S), :]) joins the values
            out.append(Problem("autocorrelation_lengths", "keys", {"L": sc.L, "S": sc.S, "dk": sc.dk, "dv": sc.dv}))
        if sc.causal:
            out.append(Problem("autocorrelation_mask", "causal"))
        if sc.valid_lens is not None:
            out.append(Problem("autocorrelation_mask", "valid_lens"))
        if parts.of(sc, "masks"):
            out.append(Problem("autocorrelation_mask", "masks"))
        if sc.scale is not None:
            out.append(Problem("autocorrelation_scale", "scale"))
        if not out and not errs:
            factor, _ = options_of(sc)
            k, n = int(factor * math.log(sc.L)), curve_length(sc.L)
            if not 1 <= k <= n:
                out.append(Problem("autocorrelation_k", "modifiers", {"k": k, "n": n, "factor": repr(factor),
                                                                       "L": sc.L}))
        return out

    def options(self, sc) -> dict:
        factor, training = options_of(sc)
        return {"lag_factor": factor, "lag_path": PATHS[int(training)], "n_lags": int(factor * math.log(sc.L))}

    # ---- the engine ------------------------------------------------------------------------------
    def compute_scores(self, run):
        mean = run.state["parts"]["mean_correlation"]  # (B, L')
        B, H, L, S = mean.shape[0], run.sc.n_heads, run.sc.L, run.sc.S
        grid = lag_grid(L, mean.device, S).clamp(max=mean.shape[1] - 1)  # (L, S); the unscored cells below
        scores = mean[:, grid].masked_fill(~scored(L, S, mean.device), float("nan"))  # (B, L, S)
        return scores[:, None].expand(B, H, L, S)

    def compute_masked(self, run):
        lags = run.state["parts"]["top_lags"]  # (B, k)
        L, S = run.sc.L, run.sc.S
        grid = lag_grid(L, lags.device, S)  # (L, S)
        keep = (grid[None, :, :, None] == lags[:, None, None, :]).any(-1) & scored(L, S, lags.device)  # (B, L, S)
        return run.inputs["scores"].masked_fill(~keep[:, None], float("-inf"))

    def compute_weights(self, run):
        """The k lag weights, each at the key its lag reads at row t: (t + lag) mod L (none when that
        is one of the zero steps appended for L > S)."""
        import torch

        lags, w = run.state["parts"]["top_lags"], run.state["parts"]["lag_weights"]  # (B, k) each
        B, H, L, S = w.shape[0], run.sc.n_heads, run.sc.L, run.sc.S
        src = (torch.arange(L, device=w.device)[None, :, None] + lags[:, None, :]) % L  # (B, L, k)
        hit = src[..., None] == torch.arange(S, device=w.device)  # (B, L, k, S)
        A = (hit.to(w.dtype) * w[:, None, :, None]).sum(2)  # (B, L, S)
        return A[:, None].expand(B, H, L, S).contiguous()

    def scored_cells(self, values) -> "torch.Tensor":
        """(B, H, L, S) bool: the score cells the library computes (NaN elsewhere on purpose)."""
        t = values["scores"]
        return scored(t.shape[2], t.shape[3], t.device).expand(t.shape)

    # ---- explain, lessons, script ----------------------------------------------------------------
    def explain_cell(self, ctx, step_id: str, idx: tuple[int, ...]):
        own = {"scores": explain_score, "masked_scores": explain_masked, "attention_weights": explain_weight,
               "weighted_sum": explain_output}
        return own[step_id](ctx, step_id, idx) if step_id in own else None

    def lesson_keys(self, step_id: str, keys: list[str], v: dict) -> list[str]:
        if step_id == "scores":
            return [f"lesson.scores.{NAME}", f"lesson.scores.{NAME}_circulant"]
        if step_id == "attention_weights":
            return [f"lesson.attention_weights.{NAME}"]
        return keys

    def script(self, plan, step_id: str) -> Optional[str]:
        sc = plan.sc
        from attention.text import script as se

        factor, training = options_of(sc)
        k = int(factor * math.log(sc.L))
        if step_id == "scores":
            return se.section(plan, step_id) + _SCRIPT_SCORES + se.show(step_id, "scores")
        if step_id == "masked_scores":
            lags = ("index = torch.topk(mean_corr.mean(dim=0), top_k, dim=-1)[1]  # training: one set for the batch\n"
                    "lags = index[None].expand(B, top_k)\n" if training else
                    "lags = torch.topk(mean_corr, top_k, dim=-1)[1]  # inference: each series its own top k\n")
            return (se.section(plan, step_id) + f"top_k = {k}  # int(factor * ln L) = int({factor!r} * ln {sc.L})\n"
                    + lags + "keep = (lag_of[None, :, :, None] == lags[:, None, None, :]).any(-1) & has  # (B, L, S)\n"
                    'masked_scores = scores.masked_fill(~keep[:, None], float("-inf"))  # only the top k lags\n'
                    + se.show(step_id, "masked_scores"))
        if step_id == "attention_weights":
            return se.section(plan, step_id) + _SCRIPT_WEIGHTS + se.show(step_id, "attention_weights")
        if step_id == "weighted_sum":
            return se.section(plan, step_id) + _SCRIPT_ROLL + se.show(step_id, "out")
        return None

    def scale_why(self, sc) -> str:
        return "Auto-Correlation has no scale"


AUTOCORRELATION = AutoCorrelationKind()
AUTOCORRELATION_OPTIONS = AutoCorrelationOptions()

_SCRIPT_SCORES = '''# Auto-Correlation (Autoformer, TSL layers/AutoCorrelation.py): keys and values aligned to L
if L > S:  # the library appends zeros shaped like the queries (it needs d_v == d_k)
    zeros = torch.zeros_like(q[:, :(L - S)])
    k_al, v_al = torch.cat([k, zeros], dim=1), torch.cat([v, zeros], dim=1)
else:  # or cuts the keys and values to their first L steps
    k_al, v_al = k[:, :L], v[:, :L]
# the correlation curve over lags
q_fft = torch.fft.rfft(q.permute(0, 2, 3, 1).contiguous(), dim=-1)
k_fft = torch.fft.rfft(k_al.permute(0, 2, 3, 1).contiguous(), dim=-1)
corr = torch.fft.irfft(q_fft * torch.conj(k_fft), dim=-1)  # (B, H, d_k, 2 * (L // 2)): lag tau at [..., tau]
mean_corr = torch.mean(torch.mean(corr, dim=1), dim=1)  # (B, L'): over heads, then channels
t_pos = torch.arange(L)
lag_of = (torch.arange(S)[None, :] - t_pos[:, None]) % L  # (L, S): the lag that brings value step s to step t
has = (torch.arange(S)[None, :] < L) & (lag_of < mean_corr.shape[1])  # a score the library has (else NaN)
scores = mean_corr[:, lag_of.clamp(max=mean_corr.shape[1] - 1)].masked_fill(~has, float("nan"))
scores = scores[:, None].expand(B, H, L, S)  # each row: the curve, rolled
'''

_SCRIPT_WEIGHTS = '''# the softmax over the k lag scores, each at the key its lag reads (none on an appended zero step)
w = torch.softmax(torch.gather(mean_corr, 1, lags), dim=-1)  # (B, k)
source = (t_pos[None, :, None] + lags[:, None, :]) % L  # (B, L, k): the step each lag reads at row t
attention_weights = ((source[..., None] == torch.arange(S)).to(dtype) * w[:, None, :, None]).sum(2)
attention_weights = attention_weights[:, None].expand(B, H, L, S)
'''

_SCRIPT_ROLL = '''# the library's aggregation: the k rolled copies of V (aligned to L), weighted (torch.roll(v, -lag))
out = torch.zeros_like(q[..., :1].expand(*q.shape[:3], v.shape[-1]))  # (B, L, H, d_v)
for b in range(B):
    for i in range(lags.shape[1]):
        out[b] += w[b, i] * torch.roll(v_al[b], -int(lags[b, i]), dims=0)  # step t reads v[(t + lag) mod L]
'''


# ---- compute ---------------------------------------------------------------------------------------

def correlation_step(run, step_id: str):
    """extra.correlation, and the lags and their weights kept for the next steps (run.state)."""
    q = run.inputs["head_split.query"]  # (B, L, H, E)
    k, v = align_lengths(q, run.inputs["head_split.key"], run.inputs["head_split.value"])  # (B, L, H, E|D)
    factor, training = options_of(run.sc)
    corr = correlation(q, k)  # (B, H, E, L')
    mean = mean_correlation(corr)  # (B, L')
    n = top_k(factor, q.shape[1])
    lags = top_lags_training(mean, n) if training else top_lags_inference(mean, n)
    run.state["parts"] = {"mean_correlation": mean, "top_lags": lags.lags, "lag_weights": lag_weights(lags.scores),
                          "values": v}
    return corr


def part_step(run, step_id: str):
    """extra.mean_correlation, top_lags, lag_weights: kept by the correlation step."""
    return run.state["parts"][step_id.removeprefix("extra.")]


def rolled_step(run, step_id: str):
    """extra.rolled_values (B, H, L, k*dv): copy i of head h at row t is v[(t + lag_i) mod L] (v aligned to L)."""
    copies = rolled(run.state["parts"]["values"], run.state["parts"]["top_lags"])  # (B, k, L, H, D)
    B, k, L, H, D = copies.shape
    return copies.permute(0, 3, 2, 1, 4).reshape(B, H, L, k * D)


# ---- explain ---------------------------------------------------------------------------------------

def _lags(ctx, b: int) -> list[int]:
    return [int(x) for x in ctx.raw("extra.top_lags")[b]]


def _aligned_key(ctx, b: int, h: int, e: int):
    """The keys' channel as the library aligns it to L: cut to L, or zero steps appended (None)."""
    k = ctx.a("head_split.key")[b, :, h, e]
    L = ctx.raw("head_split.query").shape[1]
    return [float(k[t]) if t < k.shape[0] else None for t in range(L)]


def odd_kernel(L: int, delta: int, tau: int) -> float:
    """What q[t]·k[u] (t − u = delta) counts for at lag tau when irfft reads the L // 2 + 1 bins of an
    odd L back as a length n = L − 1 signal: (1/n) Σ_m c_m cos(2π m (tau/n − delta/L)), c = 1 at
    m = 0 and m = n/2 (their imaginary parts dropped), 2 between.  For even L this is 1 exactly when
    delta ≡ tau (mod L): the circular correlation."""
    n = curve_length(L)
    total = 0.0
    for m in range(n // 2 + 1):
        c = 1.0 if m in (0, n // 2) else 2.0
        total += c * math.cos(2.0 * math.pi * m * (tau / n - delta / L))
    return total / n


def explain_correlation(ctx, step_id: str, idx: tuple[int, ...]):
    """corr[b, h, e, tau] = Σ_t q[(t + tau) mod L, e] · k[t, e] for even L (the circular
    correlation); for odd L every product q[t]·k[u] weighted by `odd_kernel` (irfft without n).
    The keys are the aligned ones: cut to L, or padded with zeros (those products are 0, left out)."""
    from attention.text import explanation as ex

    b, h, e, tau = idx
    q, k = ctx.a("head_split.query")[b, :, h, e], _aligned_key(ctx, b, h, e)
    L = q.shape[0]
    terms = []
    if L % 2 == 0:
        for t in range(L):
            if k[t] is None:
                continue
            tq = (t + tau) % L
            terms.append(ex.Term(ex._same(f"q[{tq}]·k[{t}] = {ex.fmt(q[tq])} × {ex.fmt(k[t])}"), float(q[tq] * k[t]),
                                 (ex.Source("head_split.query", (b, tq, h, e)),
                                  ex.Source("head_split.key", (b, t, h, e))), factors=(float(q[tq]), k[t])))
        summary = ex._tx("explain.autocorr.corr_summary", tau=tau, h1=ex.P(h), e=e, L=L)
    else:
        for t in range(L):
            for u in range(L):
                if k[u] is None:
                    continue
                w = odd_kernel(L, t - u, tau)
                terms.append(ex.Term(ex._same(f"q[{t}]·k[{u}]·{ex.fmt(w)} = {ex.fmt(q[t])} × {ex.fmt(k[u])} × "
                                              f"{ex.fmt(w)}"), float(q[t] * k[u] * w),
                                     (ex.Source("head_split.query", (b, t, h, e)),
                                      ex.Source("head_split.key", (b, u, h, e))), factors=(float(q[t]), k[u], w)))
        summary = ex._tx("explain.autocorr.corr_odd_summary", tau=tau, h1=ex.P(h), e=e, L=L, n=L - 1)
    vals = [t.value for t in terms]
    result = ex._fsum(vals)
    return ex._explanation(step_id, idx, ctx.value(step_id, idx),
                           ex._tx("explain.autocorr.corr_formula", b=b, h=h, e=e, tau=tau), terms, result, summary,
                           ex._same(f"{ex._sum_text(vals)} = {ex.fmt(result)}"))


def explain_mean(ctx, step_id: str, idx: tuple[int, ...]):
    from attention.text import explanation as ex

    b, tau = idx
    corr = ctx.raw("extra.correlation")[b, :, :, tau]  # (H, E)
    H, E = corr.shape
    terms = [ex.Term(ex._same(f"corr[{b},{h},{e},{tau}] = {ex.fmt(corr[h, e])}"), float(corr[h, e]),
                     (ex.Source("extra.correlation", (b, h, e, tau)),)) for h in range(H) for e in range(E)]
    result = ex._fsum([t.value for t in terms]) / (H * E)
    return ex._explanation(step_id, idx, ctx.value(step_id, idx),
                           ex._tx("explain.autocorr.mean_formula", b=b, tau=tau), terms, result,
                           ex._tx("explain.autocorr.mean_summary", tau=tau, n=H * E),
                           ex._same(f"({ex._sum_text([t.value for t in terms])}) / {H * E} = {ex.fmt(result)}"))


def explain_top_lag(ctx, step_id: str, idx: tuple[int, ...]):
    from attention.text import explanation as ex

    b, i = idx
    lag = _lags(ctx, b)[i]
    mean = ctx.raw("extra.mean_correlation")
    training = ctx.opts.get("lag_path") == "training"
    curve = mean.mean(axis=0) if training else mean[b]
    key = "explain.autocorr.top_training" if training else "explain.autocorr.top_inference"
    term = ex.Term(ex._same(f"lag {lag}"), float(lag), (ex.Source("extra.mean_correlation", (b, lag)),))
    return ex._explanation(step_id, idx, float(lag), ex._tx("explain.autocorr.top_formula", b=b, i=i), [term],
                           float(lag),
                           ex._tx(key, i1=ex.P(i), lag=lag, v=ex.fmt(curve[lag]), k=len(_lags(ctx, b)), b1=ex.P(b)),
                           ex._same(str(lag)), (ex.Source("extra.mean_correlation", (b, lag)),))


def explain_lag_weight(ctx, step_id: str, idx: tuple[int, ...]):
    from attention.text import explanation as ex

    b, i = idx
    lags = _lags(ctx, b)
    mean = ctx.raw("extra.mean_correlation")[b]
    vals = [float(mean[x]) for x in lags]
    top = max(vals)
    exps = [math.exp(v - top) for v in vals]
    result = exps[i] / math.fsum(exps)
    terms = [ex.Term(ex._same(f"lag {x}: exp({ex.fmt(v)} − {ex.fmt(top)}) = {ex.fmt(e)}"), e,
                     (ex.Source("extra.mean_correlation", (b, x)),)) for x, v, e in zip(lags, vals, exps)]
    return ex._explanation(step_id, idx, ctx.value(step_id, idx),
                           ex._tx("explain.autocorr.weight_formula", b=b, i=i), terms, result,
                           ex._tx("explain.autocorr.weight_summary", lag=lags[i], k=len(lags)),
                           ex._same(f"{ex.fmt(exps[i])} / {ex.fmt(math.fsum(exps))} = {ex.fmt(result)}"))


def explain_rolled(ctx, step_id: str, idx: tuple[int, ...]):
    from attention.text import explanation as ex

    b, h, t, j = idx
    lags = _lags(ctx, b)
    D = ctx.raw("head_split.value").shape[-1]
    i, d = divmod(j, D)
    L, S = ctx.raw("head_split.query").shape[1], ctx.raw("head_split.value").shape[1]
    source = (t + lags[i]) % L
    if source >= S:  # one of the zero steps the library appends when L > S
        term = ex.Term(ex._tx("explain.autocorr.padded_value", source=source, S=S), 0.0)
        return ex._explanation(step_id, idx, ctx.value(step_id, idx),
                               ex._tx("explain.autocorr.rolled_formula", b=b, h=h, t=t, i=i, d=d), [term], 0.0,
                               ex._tx("explain.autocorr.rolled_summary", lag=lags[i], roll=-lags[i], source=source,
                                      t=t, i1=ex.P(i), d=d), ex._same("0"), (ex.Source("extra.top_lags", (b, i)),))
    v = float(ctx.raw("head_split.value")[b, source, h, d])
    term = ex.Term(ex._same(f"v[{b},{source},{h},{d}] = {ex.fmt(v)}"), v,
                   (ex.Source("head_split.value", (b, source, h, d)),))
    return ex._explanation(step_id, idx, ctx.value(step_id, idx),
                           ex._tx("explain.autocorr.rolled_formula", b=b, h=h, t=t, i=i, d=d), [term], v,
                           ex._tx("explain.autocorr.rolled_summary", lag=lags[i], roll=-lags[i], source=source, t=t,
                                  i1=ex.P(i), d=d),
                           ex._same(ex.fmt(v)), (ex.Source("head_split.value", (b, source, h, d)),
                                                 ex.Source("extra.top_lags", (b, i))))


def explain_score(ctx, step_id: str, idx: tuple[int, ...]):
    from attention.text import explanation as ex

    b, h, t, s = idx
    L = ctx.raw("head_split.query").shape[1]
    lag = (s - t) % L
    if s >= L or lag >= curve_length(L):  # the library has no such score: never computed
        why = (ex._tx("explain.autocorr.score_cut", s=s, L=L) if s >= L
               else ex._tx("explain.autocorr.score_no_lag", lag=lag, L=L, n=curve_length(L)))
        return ex._explanation(step_id, idx, ctx.value(step_id, idx),
                               ex._tx("explain.autocorr.score_formula", b=b, t=t, s=s),
                               [ex.Term(ex._tx("explain.autocorr.not_computed"), math.nan)], math.nan, why,
                               ex._same("NaN"))
    v = float(ctx.raw("extra.mean_correlation")[b, lag])
    return ex._explanation(step_id, idx, ctx.value(step_id, idx),
                           ex._tx("explain.autocorr.score_formula", b=b, t=t, s=s),
                           [ex.Term(ex._same(f"mean_corr[{b},{lag}] = {ex.fmt(v)}"), v,
                                    (ex.Source("extra.mean_correlation", (b, lag)),))], v,
                           ex._tx("explain.autocorr.score_summary", lag=lag, s=s, t=t, L=L),
                           ex._same(ex.fmt(v)), (ex.Source("extra.mean_correlation", (b, lag)),))


def explain_masked(ctx, step_id: str, idx: tuple[int, ...]):
    from attention.text import explanation as ex

    b, h, t, s = idx
    L = ctx.raw("head_split.query").shape[1]
    lag = (s - t) % L
    lags = _lags(ctx, b)
    kept = lag in lags and s < L
    v = ctx.value(step_id, idx)
    key = "explain.autocorr.masked_kept" if kept else "explain.autocorr.masked_dropped"
    term = ex.Term(ex._same(f"scores[{b},{h},{t},{s}] = {ex.fmt(ctx.value('scores', idx))}" if kept else "−∞"), v,
                   (ex.Source("scores", idx),), masked=not kept)
    return ex._explanation(step_id, idx, v, ex._tx("explain.autocorr.masked_formula"), [term], v,
                           ex._tx(key, lag=lag, k=len(lags), lags=", ".join(map(str, lags))), ex._same(ex.fmt(v)),
                           (ex.Source("extra.top_lags", (b, lags.index(lag) if kept else 0)),))


def explain_weight(ctx, step_id: str, idx: tuple[int, ...]):
    """A weight: the softmax over the k lag scores, each lag's exp at the key it reads at row t (the
    other keys 0); a lag that reads one of the zero steps appended for L > S adds a term on no key."""
    from attention.text import explanation as ex

    b, h, t, s = idx
    L, S = ctx.raw("head_split.query").shape[1], ctx.raw("head_split.key").shape[1]
    lags = _lags(ctx, b)
    mean = ctx.raw("extra.mean_correlation")[b]
    scores = [float(mean[x]) for x in lags]
    top = max(scores)
    at = {(t + lag) % L: i for i, lag in enumerate(lags)}  # source step -> which lag reads it
    terms = []
    for j in range(S):
        i = at.get(j)
        e = math.exp(scores[i] - top) if i is not None else 0.0
        terms.append(ex.Term(ex._same(f"lag {lags[i]}: exp({ex.fmt(scores[i])} − {ex.fmt(top)}) = {ex.fmt(e)}"
                                      if i is not None else "0"), e, (ex.Source("masked_scores", (b, h, t, j)),),
                             masked=i is None))
    for src, i in sorted(at.items()):
        if src >= S:
            e = math.exp(scores[i] - top)
            terms.append(ex.Term(ex._tx("explain.autocorr.weight_padded", lag=lags[i], source=src, e=ex.fmt(e)), e,
                                 (ex.Source("extra.mean_correlation", (b, lags[i])),)))
    exps = [tm.value for tm in terms]
    result = exps[s] / math.fsum(exps)
    lag = (s - t) % L
    summ = (ex._tx("explain.autocorr.weight_cell", lag=lag, i1=ex.P(lags.index(lag)), t=t, s=s) if at.get(s) is not None
            else ex._tx("explain.autocorr.weight_zero", lag=lag))
    return ex._explanation(step_id, idx, ctx.value(step_id, idx), ex._tx("explain.autocorr.weight_cell_formula"),
                           terms, result, summ, ex._same(f"{ex.fmt(exps[s])} / {ex.fmt(math.fsum(exps))} = "
                                                         f"{ex.fmt(result)}"))


def explain_output(ctx, step_id: str, idx: tuple[int, ...]):
    """An output cell: the k terms weight_i · v[(t + lag_i) mod L], each saying which lag and roll."""
    from attention.text import explanation as ex

    b, t, h, d = idx
    lags = _lags(ctx, b)
    w = ctx.raw("extra.lag_weights")[b]
    v = ctx.raw("head_split.value")[b, :, h, d]
    L, S = ctx.raw("head_split.query").shape[1], v.shape[0]
    terms = []
    for i, lag in enumerate(lags):
        source = (t + lag) % L
        value = float(v[source]) if source < S else 0.0  # a zero step appended for L > S
        c = Contribution(lag, -lag, source, float(w[i]), value, float(w[i]) * value)
        read = (ex.Source("head_split.value", (b, source, h, d)),) if source < S else ()
        terms.append(ex.Term({lang: describe(c, t, lang) for lang in words.LANGS}, c.product,
                             (ex.Source("extra.lag_weights", (b, i)), *read), factors=(c.weight, c.value)))
    vals = [x.value for x in terms]
    result = ex._fsum(vals)
    return ex._explanation(step_id, idx, ctx.value(step_id, idx),
                           ex._tx("explain.autocorr.output_formula", b=b, t=t, h=h, d=d), terms, result,
                           ex._tx("explain.autocorr.output_summary", t=t, k=len(lags)),
                           ex._same(f"{ex._sum_text(vals)} = {ex.fmt(result)}"))
