"""The words of `attention.teaching.explain`: formulas with words in them, the summaries and term lines.

Placeholders are filled by attention/teaching/explain.py; numbers arrive already written by
`attention.datamodel.numbers` (so a translation never formats a number itself).  Pure notation that reads
the same in both languages (``q[0]·k[0] = 1 × 2 = 2``) is not a word and is built in explain.py.
Positions and indices (attention.datamodel.numbers.position): in a sentence, b (batch item), h1 (head), l
(query), s (key), n, o, c, d, e, j, r (rows, columns, elements, draws, entries) are positions a
person reads, counted from 1; in a formula or a term written as code (``scores[{b},{h},{l},{s}]``,
``bias {bs}[{o}]``) the same names are the code's indices, from 0.  Where a sentence names both,
the index has its own placeholder (h, col0, c0, e0, d0, i: "index h = 0").  m: a number M; S: the
number of keys.
"""
from __future__ import annotations

EN: dict[str, str] = {
    # joining words and tags
    "explain.and": " and ",
    "explain.masked_tag": " (masked)",
    "explain.n_cells": "{n} cells",
    # projection names, as they appear in a sentence
    "explain.name.query": "query",
    "explain.name.key": "key",
    "explain.name.value": "value",
    "explain.name.out": "out",
    # projections
    "explain.proj.identity_formula": "{ys}[b,n,o] = {xs}[b,n,o] (no {name} projection: identity)",
    "explain.proj.identity_summary": "No {name} projection weight is given, so this cell is input column {o} copied "
                                     "unchanged (as d2l's scoring functions).",
    "explain.proj.bias_term": "bias {bs}[{o}] = {v}",
    "explain.proj.no_bias_combine": "{sum} = {result} (no bias)",
    "explain.proj.plus_bias": "plus bias {bs}[{o}]",
    "explain.proj.no_bias": "no bias (the projection has none)",
    "explain.proj.summary": "Row {n} of the input (batch {b}) dotted with row {o} of the {name} weight, {note}.",
    # head split
    "explain.head_split.summary": "Head {h1} owns columns {first} … {last} of projection.{name}; its element {e} is "
                                  "column {col} there (index h·{E}+e = {h}·{E}+{e0} = {col0}, counted from 0), copied "
                                  "(a view, nothing computed).",
    # ProbSparse: a score never computed
    "explain.lazy.formula": "not computed (ProbSparse scores only the top-u queries by M)",
    "explain.lazy.summary": "Never computed ({nan}): query {l} of head {h1} is not among the u = {u} queries chosen "
                            "by the sparsity measure (its M = {m}; the chosen queries' smallest M = {floor}). Its "
                            "output is built from V directly.",
    # scores
    "explain.scores.dot_formula": "scores[{b},{h},{l},{s}] = q_{l} · k_{s} (dot product, no scale)",
    "explain.scores.dot_why": "the dot kind does not scale",
    "explain.scores.formula": "scores[{b},{h},{l},{s}] = scale × Σ_e q[{b},{l},{h},e] · k[{b},{s},{h},e]",
    "explain.scores.scale_set": "scale = {scale} (as set)",
    "explain.scores.scale_auto": "scale = 1/√d_k = 1/√{dk}",
    "explain.scores.summary": "Query {l} against key {s} in head {h1} (batch {b}): the dot product of their head-{h1} "
                              "vectors, {why}.",
    "explain.additive.unit": "n={n}: {rest}",
    "explain.additive.formula": "scores[{b},{h},{l},{s}] = Σ_n w_v[n] · tanh(Σ_e W_q[n,e] q[e] + Σ_e W_k[n,e] k[e])",
    "explain.additive.summary_scaled": "d2l additive attention, head {h1}: query {l} and key {s} are each mapped to "
                                       "{units} hidden units, added, squashed by tanh and weighed by w_v, then "
                                       "multiplied by the scale {scale}.",
    "explain.additive.summary": "d2l additive attention, head {h1}: query {l} and key {s} are each mapped to {units} "
                                "hidden units, added, squashed by tanh and weighed by w_v (no scale).",
    "explain.features.formula": "features[{b},{h},{l},{n}·S+{s}] = tanh(Σ_e W_q[{n},e] q[e] + Σ_e W_k[{n},e] k[e])",
    "explain.features.query_part": "(W_q q)[{n}] = {sum} = {v}",
    "explain.features.key_part": "(W_k k)[{n}] = {sum} = {v}",
    "explain.features.summary": "d2l additive attention, head {h1}: hidden unit {n} of query {l} (W_q q) plus "
                                "hidden unit {n} of key {s} (W_k k), squashed into (−1, 1) by tanh. The score of "
                                "query {l} and key {s} is w_v · these {units} features.",
    # masks
    "explain.mask.of_row": "batch {b}, query row {l}",
    "explain.mask.of_item": "batch item {b}",
    "explain.mask.beyond_length": "key {s} > valid length {n} of {of}",
    "explain.mask.within_length": "key {s} ≤ valid length {n} of {of}",
    "explain.mask.after_query": "causal: key {s} comes after query {l}",
    "explain.mask.not_after_query": "causal: key {s} ≤ query {l}",
    "explain.masked.score_term": "scores[{b},{h},{l},{s}] = {v}",
    "explain.masked.no_mask_formula": "no mask: masked_scores = scores",
    "explain.masked.no_mask_summary": "Kept: this scenario has no mask (no valid lengths, not causal).",
    "explain.masked.fill_term": "fill value = {v}",
    "explain.masked.fill_d2l": "d2l's -1e6",
    "explain.masked.fill_tsl": "-inf, as Time-Series-Library",
    "explain.masked.fill_chosen": "the chosen fill",
    "explain.masked.masked_formula": "masked: masked_scores := fill value",
    "explain.masked.masked_summary": "Replaced by the fill value {fill} ({what}) because {why}; the score {score} is "
                                     "discarded.",
    "explain.masked.kept_formula": "kept: masked_scores = scores",
    "explain.masked.kept_summary": "Kept: {why}.",
    "explain.mask_cell.masked": "Masked: {why}.",
    "explain.mask_cell.kept": "Not masked: {why}.",
    "explain.fully.formula": "fully_masked[{b},{l}] = all_s mask[{b},{l},s]",
    "explain.fully.uniform": "Every key of query {l} (batch {b}) is masked, so every score of this row becomes the "
                             "fill {fill}: the softmax is uniform, 1/S = 1/{S} for every key, padding included (as "
                             "d2l's masked_softmax).",
    "explain.fully.nan": "Every key of query {l} (batch {b}) is masked with -inf: the softmax computes exp(-inf − "
                         "(-inf)) = NaN, so this row's weights and its weighted sum are NaN.",
    "explain.fully.partly": "Not fully masked: query {l} (batch {b}) still sees {kept} of {S} keys ({shown}), so its "
                            "softmax is an ordinary one.",
    # softmax
    "explain.lazy.causal": "Query {l} of head {h1} was not selected by ProbSparse (not in the top-u by M), so it is "
                           "never scored: as in Informer its output is the cumulative sum of V up to position {l}, "
                           "i.e. weight 1 for every key s ≤ {l} and 0 after.",
    "explain.lazy.mean": "Query {l} of head {h1} was not selected by ProbSparse (not in the top-u by M), so it is "
                         "never scored: its output is the mean of V over all {S} keys, i.e. weight 1/S = 1/{S} for "
                         "every key.",
    "explain.lazy.terms_note": "{lazy} These are the terms the engine sums.",
    "explain.weights.causal_rule": "1 if s ≤ l else 0",
    "explain.weights.effective_term": "effective weight = {rule} = {w}",
    "explain.weights.lazy_formula": "lazy query: effective weight (no softmax)",
    "explain.weights.uniform": "Every key of this row is masked, so every score is the fill {fill}: all exps are "
                               "equal and the softmax is uniform, 1/S = 1/{S} over all keys, padding included (d2l's "
                               "masked_softmax does the same).",
    "explain.weights.nan": "Every key of this row is masked with -inf: the row's maximum is -inf, exp(-inf − (-inf)) "
                           "is NaN, so every weight of this row is NaN (and so is its weighted sum).",
    "explain.weights.masked_keys": " {n} masked key(s) contribute exp(fill − max) = 0.",
    "explain.weights.summary": "Softmax over the {S} keys of query {l} in head {h1}: exp of this key's score over the "
                               "sum of the row's exps (the row maximum {m} is subtracted first; it cancels).{extra}",
    "explain.weights.formula": "A[{b},{h},{l},{s}] = exp(x_{s} − m) / Σ_j exp(x_j − m),  x = "
                               "masked_scores[{b},{h},{l},:], m = max_j x_j",
    # weighted sum, concat
    "explain.weighted.summary": "Element {d} of head {h1}'s output for query {l}: the values of all keys weighted by "
                                "query {l}'s attention weights.",
    "explain.weighted.formula": "out[{b},{l},{h},{d}] = Σ_s A[{b},{h},{l},s] · v[{b},s,{h},{d}]",
    "explain.concat.mix": "mix (Time-Series-Library's quirk): the (B, H, L, D) context is viewed as (B, L, H·D) "
                          "without a transpose, so column {c} of row {l} is element {d} of head {h1} at position "
                          "{src}.",
    "explain.concat.mix_moved": "mix (Time-Series-Library's quirk): the (B, H, L, D) context is viewed as (B, L, H·D) "
                                "without a transpose, so column {c} of row {l} is element {d} of head {h1} at "
                                "position {src} (another position!).",
    "explain.concat.summary": "Column {c} is element {d} of head {h1}'s output for query {l} (index h·{D}+d = "
                              "{h}·{D}+{d0} = {c0}, counted from 0; heads side by side, nothing computed).",
    "explain.concat.term": "out[{b},{l},{h},{d}] = {v}",
    "explain.concat.mix_formula": "concat = out.transpose(1, 2).view(B, L, H·D) (mix)",
    "explain.concat.formula": "concat[b,l,h·{D}+d] = out[b,l,h,d]",
    # ProbSparse extras
    "explain.sampled.formula": "sampled[{b},{h},{l},{j}] = q_{l} · k_{s} (unscaled), s = sample_index[{l},{j}]",
    "explain.sampled.summary": "Sample {j} of query {l} is key {s} (drawn by the seeded generator); its unscaled dot "
                               "product in head {h1}.",
    "explain.sparsity.term": "sample {j}: {v}",
    "explain.sparsity.formula": "M = max_j sampled_j − Σ_j sampled_j / S  (S = {S}, all keys, not the sample count)",
    "explain.sparsity.chosen": "The sparsity measure of query {l} in head {h1}: a peaked query (one large dot "
                               "product) has a large M. It is among the chosen top-u queries.",
    "explain.sparsity.left_out": "The sparsity measure of query {l} in head {h1}: a peaked query (one large dot "
                                 "product) has a large M. It is not among the chosen top-u queries.",
    "explain.sample_index.term": "draw {j} of query {l}: key {s}",
    "explain.sample_index.formula": "sample_index = {call}; sample_index[{l},{j}] = the drawn number at position "
                                    "{l}·{n}+{j} = {pos} (row-major, from 0)",
    "explain.sample_index.summary": "A random draw, not a computation: index {i}, key {s} of 1 … {S}, drawn "
                                    "uniformly (with "
                                    "replacement) by the generator seeded with {seed}, as Informer's torch.randint. "
                                    "One draw is shared by every batch item and head; the same seed gives the same "
                                    "keys.",
    "explain.sample_count.term": "draw {jp}: sample_index[{l},{j}] = {s}",
    "explain.sample_count.never": "0 (no draw picked this key)",
    "explain.sample_count.summary": "Of query {l}'s {n} draws, {hits} picked key {s}. The draws are with replacement, "
                                    "so a key can be sampled more than once or never; row {l} adds up to n_sample = "
                                    "{n}.",
    "explain.top.left_out": "; the largest M left out is {m}",
    "explain.top.all_chosen": "; every query is chosen (full attention)",
    "explain.top.term": "query {l}: M = {m} (rank {rank} of {L})",
    "explain.top.summary": "Entry {r} of head {h1}'s chosen queries is query {l}, whose M = {m} ranks {rank} of {L} "
                           "(1 = largest). The u = {u} largest M are chosen (smallest chosen M = {low}{next}); "
                           "topk(sorted=False) does not order them, so the entry's position is not a rank.",
    "explain.selected.active": "Active: query {l} is entry {r} of head {h1}'s top-u list (its M = {m} ≥ the smallest "
                               "chosen M {low}), so it gets full scores and a softmax.",
    "explain.selected.lazy": "Lazy: query {l} is not in head {h1}'s top-u list [{listed}] (its M = {m}; the smallest "
                             "chosen M = {low}), so it is never scored and its output comes from V directly.",
}

ZH: dict[str, str] = {
    "explain.and": "且",
    "explain.masked_tag": "（已掩蔽）",
    "explain.n_cells": "{n} 个单元格",
    "explain.name.query": "查询",
    "explain.name.key": "键",
    "explain.name.value": "值",
    "explain.name.out": "输出",
    "explain.proj.identity_formula": "{ys}[b,n,o] = {xs}[b,n,o]（无{name}投影：恒等）",
    "explain.proj.identity_summary": "未给出{name}投影权重，所以此单元格就是输入第 {o} 列，原样复制（同 d2l 的打分函数"
                                     "）。",
    "explain.proj.bias_term": "偏置 {bs}[{o}] = {v}",
    "explain.proj.no_bias_combine": "{sum} = {result}（无偏置）",
    "explain.proj.plus_bias": "加上偏置 {bs}[{o}]",
    "explain.proj.no_bias": "无偏置（该投影没有偏置）",
    "explain.proj.summary": "输入第 {n} 行（批次 {b}）与{name}投影权重第 {o} 行的点积，{note}。",
    "explain.head_split.summary": "第 {h1} 头拥有“{name}”的第 {first} … {last} 列；"
                                  "其第 {e} 个元素就是其中第 {col} 列（下标 h·{E}+e = {h}·{E}+{e0} = {col0}，"
                                  "从 0 数），原样复制（只是 .view()，不做计算）。",
    "explain.lazy.formula": "未计算（ProbSparse 只对 M 最大的 u 个查询打分）",
    "explain.lazy.summary": "从未计算（{nan}）：第 {h1} 头的查询 {l} 不在按稀疏度量 M 选出的 u = {u} 个查询之中（它的 "
                            "M = {m}；被选查询中最小的 M = {floor}）。它的输出直接由 V 得到。",
    "explain.scores.dot_formula": "分数[{b},{h},{l},{s}] = q_{l} · k_{s}（点积，不缩放）",
    "explain.scores.dot_why": "点积注意力不缩放",
    "explain.scores.formula": "分数[{b},{h},{l},{s}] = 缩放系数 × Σ_e q[{b},{l},{h},e] · k[{b},{s},{h},e]",
    "explain.scores.scale_set": "缩放系数 = {scale}（按设定）",
    "explain.scores.scale_auto": "缩放系数 = 1/√d_k = 1/√{dk}",
    "explain.scores.summary": "第 {h1} 头中查询 {l} 对键 {s}（批次 {b}）：两者第 {h1} 头向量的点积，{why}。",
    "explain.additive.unit": "隐藏单元 n={n}: {rest}",
    "explain.additive.formula": "分数[{b},{h},{l},{s}] = Σ_n w_v[n] · tanh(Σ_e W_q[n,e] q[e] + Σ_e W_k[n,e] k[e])",
    "explain.additive.summary_scaled": "d2l 加性注意力，第 {h1} 头：查询 {l} 和键 {s} 各自映射到 {units} 个隐藏单元，"
                                       "相加、经 tanh 压缩、再用 w_v 加权，最后乘以缩放 {scale}。",
    "explain.additive.summary": "d2l 加性注意力，第 {h1} 头：查询 {l} 和键 {s} 各自映射到 {units} 个隐藏单元，相加、经"
                                " tanh 压缩、再用 w_v 加权（不缩放）。",
    "explain.features.formula": "特征[{b},{h},{l},{n}·S+{s}] = tanh(Σ_e W_q[{n},e] q[e] + Σ_e W_k[{n},e] k[e])",
    "explain.features.query_part": "(W_q q)[{n}] = {sum} = {v}",
    "explain.features.key_part": "(W_k k)[{n}] = {sum} = {v}",
    "explain.features.summary": "d2l 加性注意力，第 {h1} 头：查询 {l} 的隐藏单元 {n}（W_q q）"
                                "加上键 {s} 的隐藏单元 {n}（W_k k），再由 tanh 压缩到 (−1, 1)。"
                                "查询 {l} 与键 {s} 的分数是 w_v 与这 {units} 个特征的点积。",
    "explain.mask.of_row": "批次 {b} 查询行 {l} ",
    "explain.mask.of_item": "批次 {b} ",
    "explain.mask.beyond_length": "键 {s} > {of}的有效长度 {n}",
    "explain.mask.within_length": "键 {s} ≤ {of}的有效长度 {n}",
    "explain.mask.after_query": "因果：键 {s} 在查询 {l} 之后",
    "explain.mask.not_after_query": "因果：键 {s} ≤ 查询 {l}",
    "explain.masked.score_term": "分数[{b},{h},{l},{s}] = {v}",
    "explain.masked.no_mask_formula": "无掩码：掩蔽后的分数 = 分数",
    "explain.masked.no_mask_summary": "保留：此场景没有掩码（无有效长度，也不是因果）。",
    "explain.masked.fill_term": "填充值 = {v}",
    "explain.masked.fill_d2l": "d2l 的 -1e6",
    "explain.masked.fill_tsl": "-inf，同 Time-Series-Library",
    "explain.masked.fill_chosen": "所选填充值",
    "explain.masked.masked_formula": "被掩蔽：掩蔽后的分数 := 填充值",
    "explain.masked.masked_summary": "被替换为填充值 {fill}（{what}），因为{why}；原分数 {score} 被丢弃。",
    "explain.masked.kept_formula": "保留：掩蔽后的分数 = 分数",
    "explain.masked.kept_summary": "保留：{why}。",
    "explain.mask_cell.masked": "被掩蔽：{why}。",
    "explain.mask_cell.kept": "未被掩蔽：{why}。",
    "explain.fully.formula": "fully_masked[{b},{l}] = 掩码[{b},{l},s] 对所有 s 全为 ✓",
    "explain.fully.uniform": "批次 {b} 查询 {l} 的每个键都被掩蔽，这一行的所有分数都变成填充值 {fill}：softmax 均匀分"
                             "布，每个键（包括填充位置）权重都是 1/S = 1/{S}（同 d2l 的 masked_softmax）。",
    "explain.fully.nan": "批次 {b} 查询 {l} 的每个键都被 -inf 掩蔽：softmax 计算 exp(-inf − (-inf)) = NaN，所以这一行"
                         "的权重和加权和都是 NaN。",
    "explain.fully.partly": "未被完全掩蔽：批次 {b} 查询 {l} 仍能看到 {S} 个键中的 {kept} 个（{shown}），所以它的 soft"
                            "max 是普通的。",
    "explain.lazy.causal": "第 {h1} 头的查询 {l} 未被 ProbSparse 选中（不在 M 的前 u 名），所以从未打分：同 Informer，"
                           "它的输出是 V 到位置 {l} 的累加和，即 s ≤ {l} 的键权重为 1，其后为 0。",
    "explain.lazy.mean": "第 {h1} 头的查询 {l} 未被 ProbSparse 选中（不在 M 的前 u 名），所以从未打分：它的输出是所有 "
                         "{S} 个键上 V 的平均，即每个键权重 1/S = 1/{S}。",
    "explain.lazy.terms_note": "{lazy}下面就是引擎相加的各项。",
    "explain.weights.causal_rule": "s ≤ l 时为 1，否则为 0",
    "explain.weights.effective_term": "有效权重 = {rule} = {w}",
    "explain.weights.lazy_formula": "惰性查询：有效权重（无 softmax）",
    "explain.weights.uniform": "这一行的每个键都被掩蔽，所有分数都是填充值 {fill}：各项 exp 相等，softmax 均匀分布，所"
                               "有键（包括填充位置）权重都是 1/S = 1/{S}（d2l 的 masked_softmax 同样如此）。",
    "explain.weights.nan": "这一行的每个键都被 -inf 掩蔽：行最大值为 -inf，exp(-inf − (-inf)) 为 NaN，所以这一行的权重"
                           "全是 NaN（加权和也是 NaN）。",
    "explain.weights.masked_keys": " {n} 个被掩蔽的键贡献 exp(填充值 − 最大值) = 0。",
    "explain.weights.summary": "第 {h1} 头查询 {l} 在 {S} 个键上的 softmax：本键分数的 exp 除以整行 exp 之和（先减去行"
                               "最大值 {m}，它会约掉）。{extra}",
    "explain.weights.formula": "A[{b},{h},{l},{s}] = exp(x_{s} − m) / Σ_j exp(x_j − m)，x = 掩蔽后的分数[{b},{h},{l},:"
                               "]，m = max_j x_j",
    "explain.weighted.summary": "第 {h1} 头对查询 {l} 的输出的第 {d} 个元素：所有键的值按查询 {l} 的注意力权重加权求和"
                                "。",
    "explain.weighted.formula": "输出[{b},{l},{h},{d}] = Σ_s A[{b},{h},{l},s] · v[{b},s,{h},{d}]",
    "explain.concat.mix": ("多头混合（Time-Series-Library 的怪癖）：(B, H, L, D) 的上下文不转置直接用 .view() "
                           "变成 (B, L, H·D)，所以第 {l} 行第 {c} 列是第 {h1} 头位置 {src} 的第 {d} 个元素。"),
    "explain.concat.mix_moved": ("多头混合（Time-Series-Library 的怪癖）：(B, H, L, D) 的上下文不转置直接用 .view() "
                                 "变成 (B, L, H·D)，所以第 {l} 行第 {c} 列是第 {h1} 头位置 {src} 的第 {d} 个元素"
                                 "（另一个位置！）。"),
    "explain.concat.summary": "第 {c} 列是第 {h1} 头对查询 {l} 输出的第 {d} 个元素"
                              "（下标 h·{D}+d = {h}·{D}+{d0} = {c0}，从 0 数；多头并排，不做计算）。",
    "explain.concat.term": "输出[{b},{l},{h},{d}] = {v}",
    "explain.concat.mix_formula": "拼接 = out.transpose(1, 2).view(B, L, H·D)（多头混合）",
    "explain.concat.formula": "拼接[b,l,h·{D}+d] = 输出[b,l,h,d]",
    "explain.sampled.formula": "采样分数[{b},{h},{l},{j}] = q_{l} · k_{s}（未缩放），s = sample_index[{l},{j}]",
    "explain.sampled.summary": "查询 {l} 的第 {j} 个采样是键 {s}（由带种子的生成器抽取）；第 {h1} 头中未缩放的点积。",
    "explain.sparsity.term": "采样 {j}：{v}",
    "explain.sparsity.formula": "M = max_j 采样分数_j − Σ_j 采样分数_j / S（S = {S}，全部键数，不是采样数）",
    "explain.sparsity.chosen": "第 {h1} 头查询 {l} 的稀疏度量：注意力集中（有一个很大的点积）的查询 M 较大。它在被选中"
                               "的前 u 个查询之中。",
    "explain.sparsity.left_out": "第 {h1} 头查询 {l} 的稀疏度量：注意力集中（有一个很大的点积）的查询 M 较大。它不在被"
                                 "选中的前 u 个查询之中。",
    "explain.sample_index.term": "查询 {l} 的第 {j} 次抽取：键 {s}",
    "explain.sample_index.formula": "sample_index = {call}；sample_index[{l},{j}] = 抽出的第 {l}·{n}+{j} = {pos} 个数"
                                    "（按行优先，从 0 数起）",
    "explain.sample_index.summary": "这是随机抽取，不是计算：由种子为 {seed} 的生成器在 1 … {S} 中均匀（有放回）抽"
                                    "到键 {s}（下标 {i}），同 Informer 的 torch.randint。"
                                    "所有批次和所有头共用这一次抽取；种子相同，抽到的键也相同。",
    "explain.sample_count.term": "第 {jp} 次抽取：sample_index[{l},{j}] = {s}",
    "explain.sample_count.never": "0（没有一次抽到这个键）",
    "explain.sample_count.summary": "查询 {l} 的 {n} 次抽取中有 {hits} 次抽到键 {s}。抽取是有放回的，所以一个键可能被"
                                    "抽到多次，也可能一次都没有；第 {l} 行之和为 n_sample = {n}。",
    "explain.top.left_out": "；落选查询中最大的 M 是 {m}",
    "explain.top.all_chosen": "；所有查询都被选中（即完整注意力）",
    "explain.top.term": "查询 {l}：M = {m}（{L} 个中排第 {rank}）",
    "explain.top.summary": "第 {h1} 头被选查询的第 {r} 项是查询 {l}，它的 M = {m} 在 {L} 个中排第 {rank}。M 最大的 u ="
                           " {u} 个被选中（被选中的最小 M = {low}{next}）；topk(sorted=False) 不排序，所以这一项的位置"
                           "不是名次。",
    "explain.selected.active": "活跃：查询 {l} 是第 {h1} 头前 u 名列表的第 {r} 项（它的 M = {m} ≥ 被选中的最小 M {low}"
                               "），所以它有完整的分数和 softmax。",
    "explain.selected.lazy": "惰性：查询 {l} 不在第 {h1} 头的前 u 名列表 [{listed}] 中（它的 M = {m}；被选中的最小 M ="
                             " {low}），所以它从未打分，输出直接由 V 得到。",
}
