"""Train the Time-Series-Library-style encoder of preset 09 and export its attention layer.

The task is built so that only looking one period back predicts the answer.  Each window is a
fresh series with period P = 7 ("a week of days"): the first week is random, and every later day
is the same weekday one week earlier plus new noise, x[t] = x[t-7] + 0.3 * e[t] (e independent
standard normal).  The encoder sees three weeks of history and seven empty "to forecast" slots
(value 0, flag 1) and must fill in the slots.  The best possible forecast of x[t] is x[t-7]
(two weeks back is worse: more noise lies in between; the noise itself is unpredictable from
anything), so a head that reads the key exactly one period back is what training has to find.

    python -m resources.training.periodic_tsl --out resources/scenarios/09_trained_tsl_period.json

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


def export(model: Forecaster, out: Path, seed: int) -> Path:
    """One fresh window through the model, recorded by attention.capture, saved with its notes."""
    from attention import scenario_io
    from attention.capture import capture

    inputs, _ = windows(1, torch.Generator().manual_seed(seed + 2))
    with torch.no_grad(), capture(model, [LAYER], dtype="float64") as rec:
        model(inputs)
    (_, sc), = rec.scenarios
    labels = tuple(f"d{t}" for t in range(HISTORY)) + tuple(f"?{t}" for t in range(HISTORY, L))
    sc = dataclasses.replace(
        sc, query_tokens=labels, key_tokens=labels,
        title={"en": "Trained: a TSL encoder finds the period", "zh": "训练后：TSL 编码器找到了周期"},
        notes={"en": ("A Time-Series-Library encoder layer (d_model 32, 8 heads) trained on series where each day "
                      "equals the same weekday one week earlier plus unpredictable noise. "
                      "The last seven queries (?21 to ?27) are the days to forecast. "
                      "Look at their rows in the attention weights: at least one head puts most of its weight "
                      "on the key exactly seven days back, the one value that predicts the answer."),
               "zh": ("一个 Time-Series-Library 编码器层（d_model 32，8 个头），训练数据中每天的值等于一周前同一天的值"
                      "加上无法预测的噪声。最后七个查询（?21 … ?27）是要预测的日子。"
                      "看注意力权重中它们的那几行：至少有一个头把大部分权重放在正好七天之前的键上，"
                      "那正是唯一能预测答案的值。")})
    out.parent.mkdir(parents=True, exist_ok=True)
    scenario_io.save(sc, out)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="scenario file to write (default: none)")
    args = ap.parse_args(argv)
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
