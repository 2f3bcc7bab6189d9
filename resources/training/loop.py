"""The training loop both trained presets share (09: periodic_tsl, 10: reverse_digits).

Seeded batches from their own generator, Adam, a line every `every` steps; the scripts say
only what a batch is, what the loss is and what the line reports.  One loop, so a change (a
scheduler, gradient clipping) reaches both presets' scripts at once.
"""
from __future__ import annotations

import time
from typing import Any, Callable

import torch
from torch import nn

#: sample(gen) -> one batch; loss_of(model, batch) -> (loss, what report needs); report(model, loss, that) -> words
Sample = Callable[[torch.Generator], Any]
LossOf = Callable[[nn.Module, Any], tuple[torch.Tensor, Any]]
Report = Callable[[nn.Module, float, Any], str]


def fit(model: nn.Module, sample: Sample, loss_of: LossOf, report: Report, *, steps: int, seed: int, lr: float,
        every: int, log: Callable[[str], None] = print) -> nn.Module:
    """Train `model` for `steps` Adam steps on batches drawn from a generator seeded with `seed`
    (the global generator, which initialised the model, is not touched); logs
    "step N: <report>, T s" every `every` steps and at the last; returns the model in eval mode."""
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    start = time.perf_counter()
    for step in range(1, steps + 1):
        loss, seen = loss_of(model, sample(gen))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % every == 0 or step == steps:
            log(f"step {step}: {report(model, loss.item(), seen)}, {time.perf_counter() - start:.0f} s")
    return model.eval()


def script_main(argv, doc: str, steps: int, train: Callable[[int, int], nn.Module],
                figures: Callable[[nn.Module, int], str], export: Callable[[nn.Module, Any, int], Any]) -> int:
    """The command line every training script shares: train with --steps/--seed on --threads, print the
    trained model's figures, write the preset with --out, and say the time taken (wall and CPU, since the
    issue's budget is 5 minutes on 2 cores and a shared machine inflates the wall clock)."""
    import argparse
    from pathlib import Path

    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--steps", type=int, default=steps)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="scenario file to write (default: none)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    start, cpu = time.perf_counter(), time.process_time()
    model = train(args.steps, args.seed)
    print(figures(model, args.seed))
    if args.out is not None:
        print(f"wrote {export(model, args.out, args.seed)}")
    print(f"total {time.perf_counter() - start:.1f} s wall, {time.process_time() - cpu:.1f} s CPU")
    return 0
