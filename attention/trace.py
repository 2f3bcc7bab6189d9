"""The trace: every intermediate tensor of one attention call, under a fixed step id.

Everything the window, the CLI, the exports and the tests show is read from a `Trace`; nothing
recomputes attention anywhere else.  Step ids and their dims are a public contract, documented
in docs/trace-format.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # annotations only: the window imports this module before torch is loaded
    import torch

#: The main pipeline, in order.  dims name what each axis indexes.
PIPELINE: tuple[str, ...] = (
    "projection.query", "projection.key", "projection.value",
    "head_split.query", "head_split.key", "head_split.value",
    "scores", "masked_scores", "attention_weights",
    "weighted_sum", "concat", "output",
)

#: id -> (title en, title zh, formula en, formula zh)
STEP_TEXT: dict[str, tuple[str, str, str, str]] = {
    "projection.query": ("Query projection", "查询投影", "Q = X_q W_q^T + b_q", "Q = X_q W_q^T + b_q（无投影时 Q = X_q）"),
    "projection.key": ("Key projection", "键投影", "K = X_k W_k^T + b_k", "K = X_k W_k^T + b_k（无投影时 K = X_k）"),
    "projection.value": ("Value projection", "值投影", "V = X_v W_v^T + b_v", "V = X_v W_v^T + b_v（无投影时 V = X_v）"),
    "head_split.query": ("Queries split into heads", "查询拆分为多头", "Q.view(B, L, H, d_k): head h owns columns h*d_k ... (h+1)*d_k-1", "Q.view(B, L, H, d_k)：第 h 头取第 h*d_k 到 (h+1)*d_k-1 列"),
    "head_split.key": ("Keys split into heads", "键拆分为多头", "K.view(B, S, H, d_k)", "K.view(B, S, H, d_k)"),
    "head_split.value": ("Values split into heads", "值拆分为多头", "V.view(B, S, H, d_v)", "V.view(B, S, H, d_v)"),
    "scores": ("Scaled scores", "缩放后的分数", "scores[b,h,l,s] = scale * q_l . k_s", "分数 = scale × q_l · k_s"),
    "masked_scores": ("Masked scores", "掩蔽后的分数", "masked positions := fill value", "被掩蔽的位置替换为填充值"),
    "attention_weights": ("Attention weights (softmax)", "注意力权重（softmax）", "A = softmax(masked scores, over keys)", "A = softmax(掩蔽后的分数, 对键求)"),
    "weighted_sum": ("Weighted sum of values", "值的加权和", "out[b,l,h] = sum_s A[b,h,l,s] v[b,s,h]", "输出[b,l,h] = Σ_s A[b,h,l,s] · v[b,s,h]"),
    "concat": ("Heads concatenated", "多头拼接", "concat = out.view(B, L, H*d_v)", "拼接 = out.view(B, L, H*d_v)"),
    "output": ("Output projection", "输出投影", "Y = concat W_o^T + b_o", "Y = 拼接 W_o^T + b_o（无投影时 Y = 拼接）"),
    "extra.mask": ("Mask (True = masked)", "掩码（True 表示被掩蔽）", "masked if s >= valid_len or (causal and s > l)", "s ≥ 有效长度或（因果时）s > l 则被掩蔽"),
    "extra.fully_masked": ("Rows with every key masked", "所有键都被掩蔽的行", "all(mask[b,l,:])", "mask[b,l,:] 全为 True"),
    "extra.sample_index": ("ProbSparse: sampled key indices", "ProbSparse：采样的键下标", "torch.randint(S, (L, n_sample)) from the seeded generator", "由种子生成器 torch.randint(S, (L, n_sample))"),
    "extra.sample_count": ("ProbSparse: sampled keys per query", "ProbSparse：每个查询采样到的键", "count[l,s] = times key s was sampled for query l", "count[l,s] = 查询 l 采到键 s 的次数"),
    "extra.sampled_scores": ("ProbSparse: scores on sampled keys", "ProbSparse：采样键上的分数", "q_l . k_sample (unscaled)", "q_l · k_采样（未缩放）"),
    "extra.sparsity": ("ProbSparse: sparsity measure M", "ProbSparse：稀疏度量 M", "M = max_s(q.k_s) - sum_s(q.k_s) / S over sampled keys", "M = 采样键上的 max(q·k) − Σ(q·k) / S"),
    "extra.top_index": ("ProbSparse: chosen queries (top-u by M)", "ProbSparse：选中的查询（M 的前 u 个）", "top_index = topk(M, n_top)", "top_index = topk(M, n_top)"),
    "extra.selected": ("ProbSparse: active queries", "ProbSparse：活跃查询", "selected[b,h,l] = l in top_index", "selected[b,h,l] = l 属于 top_index"),
}


@dataclass(frozen=True)
class Step:
    id: str
    tensor: torch.Tensor
    dims: tuple[str, ...]

    @property
    def title(self) -> dict[str, str]:
        t = STEP_TEXT[self.id]
        return {"en": t[0], "zh": t[1]}

    @property
    def formula(self) -> dict[str, str]:
        t = STEP_TEXT[self.id]
        return {"en": t[2], "zh": t[3]}

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.tensor.shape)

    def numpy(self) -> np.ndarray:
        """A CPU numpy view (zero-copy on CPU).  Treat as read-only.

        `tensor` is a numpy array already in a trace read back from disk (attention.trace_cache)."""
        if isinstance(self.tensor, np.ndarray):
            return self.tensor
        return self.tensor.detach().cpu().numpy()


@dataclass(frozen=True)
class Trace:
    """Ordered steps plus the resolved options and parameters that produced them."""

    steps: tuple[Step, ...]
    options: dict  # every resolved option (n_heads, d_keys, scale used, ...)
    parameters: dict[str, torch.Tensor]  # queries, keys, values, projection.*.weight/bias, additive.*
    warnings: tuple = field(default=())  # attention.problem.Problem each: notes on a trace that ran

    def __getitem__(self, step_id: str) -> Step:
        for s in self.steps:
            if s.id == step_id:
                return s
        raise KeyError(step_id)

    def __contains__(self, step_id: str) -> bool:
        return any(s.id == step_id for s in self.steps)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.steps)

    def array(self, step_id: str) -> np.ndarray:
        return self[step_id].numpy()
