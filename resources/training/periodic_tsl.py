"""Train the Time-Series-Library-style encoder of preset 09 and export its attention layer.

The task is built so that only looking one period back predicts the answer.  Each window is a
fresh series with period P = 7 ("a week of days"): the first week is random, and every later day
is the same weekday one week earlier plus new noise, x[t] = x[t-7] + 0.3 * e[t] (e independent
standard normal).  The encoder sees three weeks of history and seven empty "to forecast" slots
(value 0, flag 1) and must fill in the slots.  The best possible forecast of x[t] is x[t-7]
(two weeks back is worse: more noise lies in between; the noise itself is unpredictable from
anything), so a head that reads the key exactly one period back is what training has to find.

    python -m resources.training.periodic_tsl --out resources/scenarios/09_trained_tsl_period.json
    python -m resources.training.periodic_tsl --relabel resources/scenarios/09_trained_tsl_period.json

Labels and notes count days and heads from 1, as the window numbers rows and heads; the notes name
the head that looks one period back, measured on the exported weights (`describe`).

Seeded (--seed).  The default 3000 steps took 77 s of CPU time on one thread (5 min 49 s of wall
clock on a shared 2-core machine running eight other jobs); the shipped preset 09 is this
script's output with the defaults.  The printed
"one period back" share is the mean attention weight a head puts on key t-7 from the forecast
slots (uniform attention would give 1/28 = 0.036).
"""
from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import torch
from torch import nn

from resources.training.loop import fit
from resources.training.tsl_style import AttentionLayer, DataEmbedding, Encoder, EncoderLayer, FullAttention

PERIOD, WEEKS = 7, 3
HISTORY = PERIOD * WEEKS  # 21 known days
L = HISTORY + PERIOD  # + 7 slots to forecast = 28 tokens
NOISE = 0.3
D_MODEL, N_HEADS, D_FF = 32, 8, 64  # the seed's Time-Series-Library config: d_model 32, 8 heads
LAYER = "encoder.attn_layers.0.attention"


class Forecaster(nn.Module):
    """TSL-style: DataEmbedding -> one encoder layer -> a per-position projection to one value."""

    def __init__(self, dropout: float = 0.1):
        super().__init__()
        self.enc_embedding = DataEmbedding(2, D_MODEL, dropout)
        attention = AttentionLayer(FullAttention(False, attention_dropout=dropout, output_attention=True),
                                   D_MODEL, N_HEADS)
        self.encoder = Encoder([EncoderLayer(attention, D_MODEL, D_FF, dropout, activation="gelu")],
                               norm_layer=nn.LayerNorm(D_MODEL))
        self.projection = nn.Linear(D_MODEL, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, list]:
        h, attns = self.encoder(self.enc_embedding(x))  # (B, L, d_model)
        return self.projection(h).squeeze(-1), attns  # (B, L)


def windows(batch: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs (B, L, 2): value and "to forecast" flag, series (B, L)): x[t] = x[t-7] + noise."""
    x = torch.empty(batch, L)
    x[:, :PERIOD] = torch.randn(batch, PERIOD, generator=gen)
    noise = torch.randn(batch, L, generator=gen) * NOISE
    for t in range(PERIOD, L):
        x[:, t] = x[:, t - PERIOD] + noise[:, t]
    future = torch.zeros(batch, L)
    future[:, HISTORY:] = 1.0
    inputs = torch.stack([x * (1 - future), future], dim=-1)  # the slots' values are hidden
    return inputs, x


def period_share(attn: torch.Tensor) -> torch.Tensor:
    """Per head: mean weight from the forecast slots t on key t - PERIOD.  attn (B, H, L, L)."""
    rows = torch.arange(HISTORY, L)
    return attn[:, :, rows, rows - PERIOD].mean(dim=(0, 2))  # (H,)


def train(steps: int, seed: int, batch: int = 64, lr: float = 3e-3, log=print) -> Forecaster:
    torch.manual_seed(seed)
    model = Forecaster(dropout=0.0)  # no dropout: a sharp head is the point, and it comes sooner

    def loss_of(m: Forecaster, window) -> tuple[torch.Tensor, None]:
        inputs, x = window
        pred, _ = m(inputs)
        return ((pred[:, HISTORY:] - x[:, HISTORY:]) ** 2).mean(), None

    def report(m: Forecaster, loss: float, _) -> str:
        share = evaluate(m.eval(), seed).max().item()
        m.train()
        return (f"forecast MSE {loss:.4f} (noise floor {NOISE ** 2:.2f}), "
                f"best head one period back {share:.2f}")

    return fit(model, lambda gen: windows(batch, gen), loss_of, report, steps=steps, seed=seed, lr=lr, every=500,
               log=log)


def evaluate(model: Forecaster, seed: int) -> torch.Tensor:
    with torch.no_grad():
        inputs, _ = windows(512, torch.Generator().manual_seed(seed + 1))
        return period_share(model(inputs)[1][0])


def labels() -> tuple[str, ...]:
    """Days counted from 1, as the window numbers rows and heads: d1 ... d21 known, ?22 ... ?28 to forecast."""
    return tuple(f"d{t + 1}" for t in range(HISTORY)) + tuple(f"?{t + 1}" for t in range(HISTORY, L))


def notes(head: int, share: float) -> dict[str, str]:
    """The preset's notes, naming the head (counted from 1, as the window does) that looks one period back
    and the weight it puts there from the forecast slots."""
    first, last = labels()[HISTORY], labels()[-1]
    return {"en": (f"A Time-Series-Library encoder layer (d_model {D_MODEL}, {N_HEADS} heads) trained on series "
                   "where each day equals the same weekday one week earlier plus unpredictable noise. "
                   f"The last seven queries ({first} to {last}) are the days to forecast. "
                   f"Look at their rows in the attention weights of head {head}: it puts {share:.2f} of its weight "
                   "on the key exactly seven days back (uniform attention would give 1/28 = 0.036), "
                   "the one value that predicts the answer."),
            "zh": (f"一个 Time-Series-Library 编码器层（d_model {D_MODEL}，{N_HEADS} 个头），训练数据中每天的值等于"
                   f"一周前同一天的值加上无法预测的噪声。最后七个查询（{first} … {last}）是要预测的日子。"
                   f"看第 {head} 个头的注意力权重中它们的那几行：它把 {share:.2f} 的权重放在正好七天之前的键上"
                   "（均匀注意力只有 1/28 = 0.036），那正是唯一能预测答案的值。")}


def describe(sc):
    """Labels and notes for the scenario as it is: the period head measured on its own weights (the engine)."""
    from attention import run

    w = torch.as_tensor(run(sc).array("attention_weights"))  # (1, H, L, L)
    share = period_share(w)  # (H,)
    head = int(share.argmax())
    return dataclasses.replace(
        sc, query_tokens=labels(), key_tokens=labels(),
        title={"en": "Trained: a TSL encoder finds the period", "zh": "训练后：TSL 编码器找到了周期"},
        notes=notes(head + 1, float(share[head])))


def export(model: Forecaster, out: Path, seed: int) -> Path:
    """One fresh window through the model, recorded by attention.capture, saved with its labels and notes."""
    from attention.capture import capture
    from attention.files import scenario_io

    inputs, _ = windows(1, torch.Generator().manual_seed(seed + 2))
    with torch.no_grad(), capture(model, [LAYER], dtype="float64") as rec:
        model(inputs)
    (_, sc), = rec.scenarios
    out.parent.mkdir(parents=True, exist_ok=True)
    scenario_io.save(describe(sc), out)
    return out


def relabel(path: Path) -> Path:
    """Rewrite the labels and notes of an exported file (the weights untouched), e.g. the shipped preset."""
    from attention.files import scenario_io

    scenario_io.save(describe(scenario_io.load(path)), path)
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="scenario file to write (default: none)")
    ap.add_argument("--relabel", type=Path, default=None, help="only rewrite this exported file's labels and notes")
    args = ap.parse_args(argv)
    if args.relabel is not None:
        print(f"wrote {relabel(args.relabel)}")
        return 0
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    model = train(args.steps, args.seed)
    share = evaluate(model, args.seed)
    print("one period back, per head: " + " ".join(f"{s:.2f}" for s in share.tolist()))
    if args.out is not None:
        print(f"wrote {export(model, args.out, args.seed)}")
    print(f"total {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
