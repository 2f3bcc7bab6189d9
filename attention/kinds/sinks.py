"""Attention sinks (gpt-oss): each head h has one learned logit sink_h that joins every row's
softmax as an extra column and is dropped afterwards.  The sink takes part of the mass, so a
row's weights sum to 1 - sink_mass < 1: a query may attend to "nothing" instead of being forced
to spread a full unit of weight over keys it does not need.

Matches transformers' gpt_oss eager_attention_forward step by step: the (masked) scores and the
sink column are concatenated, the row maximum INCLUDING the sink is subtracted, softmax runs over
the S + 1 columns, and the sink column is dropped.  A row whose keys are all masked (-inf) is not
NaN here: the sink alone takes the whole mass and every key weight is 0.

Shapes: B batch, H heads, L queries, S keys; sinks (H,).
"""
from __future__ import annotations

import torch


def with_sink_column(masked_scores: torch.Tensor, sinks: torch.Tensor) -> torch.Tensor:
    """(B, H, L, S), (H,) -> (B, H, L, S + 1): the sink logit appended to every row of its head."""
    B, H, L, S = masked_scores.shape
    col = sinks.to(masked_scores.dtype).reshape(1, H, 1, 1).expand(B, H, L, 1)
    return torch.cat([masked_scores, col], dim=-1)


def softmax_with_sink(masked_scores: torch.Tensor, sinks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, H, L, S), (H,) -> weights (B, H, L, S) and the sink's mass (B, H, L).

    weights + sink mass sums to 1 along each row; the weights alone sum to less."""
    combined = with_sink_column(masked_scores, sinks)  # (B, H, L, S + 1)
    combined = combined - combined.max(dim=-1, keepdim=True).values  # the max includes the sink: finite
    probs = torch.softmax(combined, dim=-1)
    return probs[..., :-1], probs[..., -1]


def sink_mass(masked_scores: torch.Tensor, sinks: torch.Tensor) -> torch.Tensor:
    """(B, H, L): the share of each row the sink took, 1 / (1 + sum_s exp(score_s - sink_h))."""
    return softmax_with_sink(masked_scores, sinks)[1]
