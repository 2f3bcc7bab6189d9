"""Step titles and formulas: what every pane, handout, export and explanation calls a step.

Keys: ``step.<step id>.title`` and ``step.<step id>.formula``; ``step.<step id>.formula.<scoring>``
where one scoring function computes the step differently (attention/registry/step_registry.py names
which key each step uses).  Formulas are plain text in the engine's own notation.
"""
from __future__ import annotations

EN: dict[str, str] = {
    # the main pipeline, in order (attention.compute.trace.PIPELINE)
    "step.projection.query.title": "Query projection",
    "step.projection.query.formula": "Q = X_q W_q^T + b_q (without a projection: Q = X_q)",
    "step.projection.key.title": "Key projection",
    "step.projection.key.formula": "K = X_k W_k^T + b_k (without a projection: K = X_k)",
    "step.projection.value.title": "Value projection",
    "step.projection.value.formula": "V = X_v W_v^T + b_v (without a projection: V = X_v)",
    "step.head_split.query.title": "Queries split into heads",
    "step.head_split.query.formula": "Q.view(B, L, H, d_k): head h owns columns (h-1)*d_k+1 to h*d_k",
    "step.head_split.key.title": "Keys split into heads",
    "step.head_split.key.formula": "K.view(B, S, H, d_k)",
    "step.head_split.value.title": "Values split into heads",
    "step.head_split.value.formula": "V.view(B, S, H, d_v)",
    "step.scores.title": "Scaled scores",
    "step.scores.formula": "scores[b,h,l,s] = scale × q_l · k_s",
    "step.scores.title.additive": "Additive scores",
    "step.scores.title.dot": "Scores (dot product, unscaled)",
    "step.scores.formula.additive": "scores[b,h,l,s] = w_v · tanh(W_q q_l + W_k k_s) × scale",
    "step.scores.formula.prob_sparse": (
        "scores[b,h,l,s] = scale × q_l · k_s for the top-u queries l by M; the other rows are never computed"
    ),
    "step.masked_scores.title": "Masked scores",
    "step.masked_scores.formula": "masked positions := fill value",
    "step.attention_weights.title": "Attention weights (softmax)",
    "step.attention_weights.formula": "A = softmax(masked scores, over keys)",
    "step.attention_weights.formula.prob_sparse": (
        "A = softmax(masked scores, over keys) for the chosen queries; the others: 1/S (causal: 1 for s ≤ l)"
    ),
    "step.weighted_sum.title": "Weighted sum of values",
    "step.weighted_sum.formula": "out[b,l,h] = Σ_s A[b,h,l,s] · v[b,s,h]",
    "step.concat.title": "Heads concatenated",
    "step.concat.formula": "concat = out.view(B, L, H*d_v)",
    "step.output.title": "Output projection",
    "step.output.formula": "Y = concat W_o^T + b_o (without a projection: Y = concat)",
    # extras: the mask, additive attention's hidden features, ProbSparse's sampling and selection
    "step.extra.mask.title": "Mask (✓ = masked)",
    "step.extra.mask.formula": "masked if s > valid_len, or causal and s > l, or s ≤ l − W (window), or drawn",
    "step.extra.fully_masked.title": "Rows with every key masked",
    "step.extra.fully_masked.formula": "all(mask[b,l,:])",
    "step.extra.additive_features.title": "Additive: hidden features",
    "step.extra.additive_features.formula": (
        "features[b,h,l,n,s] = tanh((W_q q_l)[n] + (W_k k_s)[n]): one L × S block per hidden unit n"
    ),
    "step.extra.sample_index.title": "ProbSparse: sampled key indices",
    "step.extra.sample_index.formula": "torch.randint(S, (L, n_sample)) from the seeded generator",
    "step.extra.sample_count.title": "ProbSparse: sampled keys per query",
    "step.extra.sample_count.formula": "count[l,s] = times key s was sampled for query l",
    "step.extra.sampled_scores.title": "ProbSparse: scores on sampled keys",
    "step.extra.sampled_scores.formula": "q_l · k_sample (unscaled)",
    "step.extra.sparsity.title": "ProbSparse: sparsity measure M",
    "step.extra.sparsity.formula": "M = max(q·k) − Σ(q·k) / S over sampled keys",
    "step.extra.top_index.title": "ProbSparse: chosen queries (top-u by M)",
    "step.extra.top_index.formula": "top_index = topk(M, n_top)",
    "step.extra.selected.title": "ProbSparse: active queries",
    "step.extra.selected.formula": "selected[b,h,l] = l in top_index",
}

ZH: dict[str, str] = {
    # the main pipeline, in order (attention.compute.trace.PIPELINE)
    "step.projection.query.title": "查询投影",
    "step.projection.query.formula": "Q = X_q W_q^T + b_q（无投影时 Q = X_q）",
    "step.projection.key.title": "键投影",
    "step.projection.key.formula": "K = X_k W_k^T + b_k（无投影时 K = X_k）",
    "step.projection.value.title": "值投影",
    "step.projection.value.formula": "V = X_v W_v^T + b_v（无投影时 V = X_v）",
    "step.head_split.query.title": "查询拆分为多头",
    "step.head_split.query.formula": "Q.view(B, L, H, d_k)：第 h 头取第 (h-1)*d_k+1 到 h*d_k 列",
    "step.head_split.key.title": "键拆分为多头",
    "step.head_split.key.formula": "K.view(B, S, H, d_k)",
    "step.head_split.value.title": "值拆分为多头",
    "step.head_split.value.formula": "V.view(B, S, H, d_v)",
    "step.scores.title": "缩放后的分数",
    "step.scores.formula": "分数[b,h,l,s] = 缩放系数 × q_l · k_s",
    "step.scores.title.additive": "加性分数",
    "step.scores.title.dot": "分数（点积，不缩放）",
    "step.scores.formula.additive": "分数[b,h,l,s] = w_v · tanh(W_q q_l + W_k k_s) × 缩放系数",
    "step.scores.formula.prob_sparse": "分数[b,h,l,s] = 缩放系数 × q_l · k_s，只算 M 最大的 u 个查询 l；其余行从未计算",
    "step.masked_scores.title": "掩蔽后的分数",
    "step.masked_scores.formula": "被掩蔽的位置 := 填充值",
    "step.attention_weights.title": "注意力权重（softmax）",
    "step.attention_weights.formula": "A = softmax(掩蔽后的分数, 对键求)",
    "step.attention_weights.formula.prob_sparse": (
        "选中的查询：A = softmax(掩蔽后的分数, 对键求)；其余查询：1/S（因果时 s ≤ l 为 1）"
    ),
    "step.weighted_sum.title": "值的加权和",
    "step.weighted_sum.formula": "输出[b,l,h] = Σ_s A[b,h,l,s] · v[b,s,h]",
    "step.concat.title": "多头拼接",
    "step.concat.formula": "拼接 = out.view(B, L, H*d_v)",
    "step.output.title": "输出投影",
    "step.output.formula": "Y = 拼接 W_o^T + b_o（无投影时 Y = 拼接）",
    # extras: the mask and ProbSparse's sampling and selection
    "step.extra.mask.title": "掩码（✓ 表示被掩蔽）",
    "step.extra.mask.formula": "s > 有效长度、或（因果时）s > l、或 s ≤ l − W（窗口）、或手绘时被掩蔽",
    "step.extra.fully_masked.title": "所有键都被掩蔽的行",
    "step.extra.fully_masked.formula": "掩码[b,l,:] 全为 ✓",
    "step.extra.additive_features.title": "加性注意力：隐藏特征",
    "step.extra.additive_features.formula": (
        "特征[b,h,l,n,s] = tanh((W_q q_l)[n] + (W_k k_s)[n])：每个隐藏单元 n 一块 L × S"
    ),
    "step.extra.sample_index.title": "ProbSparse：采样的键下标",
    "step.extra.sample_index.formula": "由种子生成器 torch.randint(S, (L, n_sample))",
    "step.extra.sample_count.title": "ProbSparse：每个查询采样到的键",
    "step.extra.sample_count.formula": "次数[l,s] = 查询 l 采到键 s 的次数",
    "step.extra.sampled_scores.title": "ProbSparse：采样键上的分数",
    "step.extra.sampled_scores.formula": "q_l · k_采样（未缩放）",
    "step.extra.sparsity.title": "ProbSparse：稀疏度量 M",
    "step.extra.sparsity.formula": "M = 采样键上的 max(q·k) − Σ(q·k) / S",
    "step.extra.top_index.title": "ProbSparse：选中的查询（M 的前 u 个）",
    "step.extra.top_index.formula": "top_index = topk(M, n_top)",
    "step.extra.selected.title": "ProbSparse：活跃查询",
    "step.extra.selected.formula": "选中[b,h,l] = l 属于 top_index",
}
