"""Words of the Time-Series-Library family: token labels that are time (PatchTST patches,
iTransformer variates, dated steps), Pyraformer's pyramid links, Auto-Correlation's lag terms,
explain lines of DSAttention's scores, LayerNorm, the distilling conv and its max-pool.

Not yet in words.TOPICS (the lead registers "time_series" there when merging).

Placeholders: p (a patch or segment, counted from 1), start / end (first and last time step it covers, as
the series numbers them), pad_start (first padded step), last (the last real step, which the
padding repeats), i (a variable or time feature, counted from 1), scale / index (a pyramid node:
its scale, 1 = the input steps, and its place in it, both counted from 1), distance (steps within a scale),
lag, roll, t, source, steps, winner (time steps, written as the code indexes them, from 0, like
the time labels' t), weight / value / product and the other numbers (already written by
attention.datamodel.numbers.rounded), n (a count), k (taps of a convolution).
"""
from __future__ import annotations

EN: dict[str, str] = {
    "tsl.patch": "patch {p} · t {start}–{end}",
    "tsl.patch_padded": "patch {p} · t {start}–{end} ({pad_start}–{end} repeat t {last})",
    "tsl.segment": "segment {p} · t {start}–{end}",
    "tsl.segment_padded": "segment {p} · t {start}–{end} ({pad_start}–{end} repeat t {last})",
    "tsl.variate": "variable {i}",
    "tsl.time_feature": "time feature {i}",
    "tsl.node": "scale {scale} node {index}",
    "tsl.pyramid.self": "{query} sees itself",
    "tsl.pyramid.neighbour": "{key} is {query}'s neighbour on the same scale ({distance} step(s) away, "
                             "within the inner window)",
    "tsl.pyramid.parent": "{key} is {query}'s parent (one scale coarser)",
    "tsl.pyramid.child": "{key} is one of {query}'s children (one scale finer)",
    "tsl.pyramid.masked": "masked: {key} is neither a near neighbour of {query} on its scale, nor its parent, "
                          "nor its child",
    "tsl.autocorr.term": "lag {lag}: torch.roll(V, {roll}) brings step {source} to step {t}; "
                         "weight {weight} × value {value} = {product}",
    "tsl.ds.cell": "q·k = {raw}; × τ {tau} + Δ {delta} = {score}; the softmax sees scale {scale} × {score} = "
                   "{scaled} (so Δ adds scale × Δ = {scaled_delta}, not Δ)",
    "tsl.norm.cell": "mean {mean}, variance {var} (over {n} values); ({x} − {mean}) / √({var} + 1e-5) = "
                     "{normalized}; × γ {gamma} + β {beta} = {out}",
    "tsl.conv.cell": "step {t} = bias {bias} + Σ over {n} channels × {k} taps of input steps {steps} = {out}",
    "tsl.conv.wrapped": "steps {steps} are wrapped round from the other end (circular padding)",
    "tsl.pool.cell": "max of conv steps {steps} = {value}, from step {winner}",
    # Pyraformer's pyramid mask as a mask rule (attention/kinds/pyramid.py)
    "field.masks.pyramid.input_size.label": "Pyramid: input steps",
    "field.masks.pyramid.input_size.help": (
        "How many input time steps the pyramid starts from (Pyraformer's input_size); the queries and keys "
        "must be all N pyramid nodes: these steps, then every coarser scale."),
    "field.masks.pyramid.window_size.label": "Pyramid: windows",
    "field.masks.pyramid.window_size.help": (
        "One whole number per coarser scale: how many nodes of a scale make one node of the next "
        "(Pyraformer's window_size, e.g. [4, 4])."),
    "step.extra.mask.formula.pyramid": ("masked unless key s is on query l's scale within ⌊inner window / 2⌋ "
                                        "steps of l, or l's parent (one scale coarser), or one of l's children"),
    "field.masks.pyramid.inner_size.label": "Pyramid: inner window",
    "field.masks.pyramid.inner_size.help": (
        "A node sees the nodes of its own scale at most inner_size // 2 steps away (Pyraformer's inner_size)."),
    "lesson.extra.mask.pyramid": (
        "Pyraformer's pyramid: the rows and columns are the input steps followed by each coarser scale; a node "
        "sees its near neighbours on its own scale, its parent and its children, so any two steps are joined "
        "through a few coarse nodes while every row keeps only a handful of keys."),
    "tsl.pyramid.reason": "pyramid: {why}",
    "tsl.pyramid.far": "{key} is neither a near neighbour of {query} on its scale, nor its parent, nor its child",
    "problem.pyramid_windows": "expected a list of whole numbers, one per coarser scale; got shape {got}",
    "problem.time_axis_start": "expected the first step's date, written as 2016-07-01 or 2016-07-01 00:00; got {got}",
    "problem.time_axis_freq": ("expected a frequency in Time-Series-Library's spelling (s, t or min, h, d, b, w, m, "
                               "with an optional multiple such as 15min or 3h); got {got}"),
    "problem.pyramid_window": "expected a whole number >= 1, got {got}",
    "problem.pyramid_empty_scale": (
        "the pyramid's scales would hold {sizes} nodes: scale {scale} is empty; use fewer or smaller windows"),
    "problem.pyramid_nodes": (
        "the pyramid has {N} nodes ({sizes}); the queries and keys must both be {N} long, got {L} and {S}"),
    # DSAttention (Non-stationary Transformer) as a scoring kind (attention/kinds/ds_attention.py)
    "field.scoring.ds_attention": "De-stationary (Non-stationary Transformer)",
    "field.modifiers.destationary.tau.label": "τ (one per series)",
    "field.modifiers.destationary.tau.help": (
        "DSAttention's τ: one positive number per batch item (series) that multiplies every q·k of it; the model "
        "learns it from the series' standard deviation. Absent: 1, as the library's tau=None."),
    "field.modifiers.destationary.delta.label": "Δ (one per key)",
    "field.modifiers.destationary.delta.help": (
        "DSAttention's Δ: one number per batch item and key, added to every query's score of that key (then "
        "multiplied by the scale). Absent: 0, as the library's delta=None."),
    "step.extra.destationary.title": "De-stationary scores q·k·τ + Δ",
    "step.extra.destationary.formula": "destationary[b,h,l,s] = (q_l . k_s) * tau[b] + delta[b,s]",
    "step.scores.title.ds_attention": "Scores the softmax sees",
    "step.scores.formula.ds_attention": "scores[b,h,l,s] = scale * ((q_l . k_s) * tau[b] + delta[b,s])",
    "lesson.extra.destationary": (
        "Non-stationary Transformer normalises each series before attention, which would make every series "
        "look alike; DSAttention puts the lost scale and level back: τ multiplies the dot products of a series "
        "(τ > 1 sharpens its weights, τ < 1 flattens them) and Δ adds the same amount to one key's score for "
        "every query."),
    "lesson.scores.ds_attention": (
        "The softmax sees scale × (q·k × τ + Δ): Time-Series-Library scales after adding Δ, so each key's Δ "
        "counts scale × Δ ({scale} × Δ), not Δ."),
    "lesson.scores.ds_attention_delta": (
        "Since Δ is the same for every query, it only moves weight between keys: a key with a larger Δ gets "
        "more weight in every row."),
    "explain.destationary.formula": (
        "destationary[{b},{h},{l},{s}] = (Σ_e q[{b},{l},"
        "{h},e] · k[{b},{s},{h},e]) × τ[{b}] + Δ[{b},{s}]"),
    "explain.destationary.summary": (
        "The dot product times τ = {tau} of series {b1}, plus Δ = {delta} of key {s}: the library's scores "
        "before the scale."),
    "explain.ds_scores.formula": "scores[{b},{h},{l},{s}] = scale × destationary[{b},{h},{l},{s}]",
    "explain.ds_scores.summary": (
        "scale {scale} multiplies the whole de-stationary score: {scaled_raw} from τ·q·k (q·k = {raw}, "
        "τ = {tau}) plus {scaled_delta} from Δ = {delta} (scale × Δ, not Δ)."),
    "problem.destationary_scoring": "τ and Δ are read only by the scoring {scoring}; choose it or remove this part",
    "problem.destationary_shape": "expected shape {expected}, got {got}",
    "problem.destationary_tau": "τ must be positive (the model computes exp(...)), got {got}",
    "param.ds_attention.tau": "τ (per series)",
    "param.ds_attention.delta": "Δ (per key)",
    # Auto-Correlation (Autoformer) as a scoring kind (attention/kinds/autocorrelation.py)
    "field.scoring.autocorrelation": "Auto-Correlation (Autoformer)",
    "field.modifiers.autocorrelation.factor.label": "Auto-Correlation: factor",
    "field.modifiers.autocorrelation.factor.help": (
        "The layer's factor c: the top k = int(c · ln L) lags are kept (Time-Series-Library's --factor; the "
        "module's default 1)."),
    "field.modifiers.autocorrelation.path.label": "Auto-Correlation: path",
    "field.modifiers.autocorrelation.path.help": (
        "inference (module.eval()): each series its own top lags; training (module.train()): one set of lags "
        "for the whole batch, from the batch's mean curve."),
    "field.modifiers.autocorrelation.path.inference": "inference (lags per series)",
    "field.modifiers.autocorrelation.path.training": "training (lags shared by the batch)",
    "step.extra.correlation.title": "Correlation over lags, per head and channel",
    "step.extra.correlation.formula": (
        "corr[b,h,e,tau] = irfft(rfft(q) * conj(rfft(k)))[tau] = sum_t q[(t+tau) mod L] k[t]"),
    "step.extra.mean_correlation.title": "Mean correlation curve",
    "step.extra.mean_correlation.formula": "mean_corr[b,tau] = mean over heads and channels of corr[b,h,e,tau]",
    "step.extra.top_lags.title": "Top k lags",
    "step.extra.top_lags.formula": "lags = topk(mean_corr, k = int(factor * ln L))",
    "step.extra.lag_weights.title": "Lag weights (softmax over the k)",
    "step.extra.lag_weights.formula": "w[b,i] = softmax_i(mean_corr[b, lag_i])",
    "step.extra.rolled_values.title": "Rolled copies of V",
    "step.extra.rolled_values.formula": "copy_i[t] = torch.roll(v, -lag_i)[t] = v[(t + lag_i) mod L]",
    "step.scores.title.autocorrelation": "Correlation at lag (s − t) mod L",
    "step.scores.formula.autocorrelation": "scores[b,h,t,s] = mean_corr[b, (s - t) mod L]",
    "step.masked_scores.title.autocorrelation": "Only the top k lags",
    "step.masked_scores.formula.autocorrelation": "-inf where (s - t) mod L is not one of the top k lags",
    "step.attention_weights.title.autocorrelation": "Lag weights, at the keys they read",
    "step.attention_weights.formula.autocorrelation": "a[b,h,t,s] = w[b,i] where lag_i = (s - t) mod L, else 0",
    "step.weighted_sum.formula.autocorrelation": "out[t] = sum_i w_i * v[(t + lag_i) mod L]",
    "lesson.extra.correlation": (
        "Auto-Correlation compares the queries with the keys shifted by every lag τ at once: the FFT computes "
        "the circular correlation Σ_t q[(t + τ) mod L]·k[t] for each head and channel."),
    "lesson.extra.mean_correlation": (
        "The curves are averaged over heads and channels: one curve per series, whose peaks are the periods "
        "of the series."),
    "lesson.extra.top_lags": (
        "Only the k = int(factor · ln L) highest lags are kept; in training one set for the whole batch (the "
        "batch's mean curve), at inference each series its own."),
    "lesson.extra.lag_weights": "The k correlations go through a softmax: k weights that sum to 1.",
    "lesson.extra.rolled_values": (
        "For lag τ the library rolls V left by τ (torch.roll(v, -τ)): output step t reads the value τ steps "
        "later, wrapping round the end, the same phase one period ahead."),
    "lesson.scores.autocorrelation": (
        "Auto-Correlation scores a query step t against a key step s by the correlation at their lag "
        "(s − t) mod L, not by a dot product: every row holds the same curve, rolled."),
    "lesson.scores.autocorrelation_circulant": (
        "There is no scale and no mask: the library ignores attn_mask."),
    "lesson.attention_weights.autocorrelation": (
        "Each row keeps only the k keys its top lags point at, with the softmax of their correlations; the "
        "weighted sum then adds the k rolled copies of V."),
    "explain.autocorr.corr_formula": "corr[{b},{h},{e},{tau}] = Σ_t q[(t + {tau}) mod L, {e}] · k[t, {e}]",
    "explain.autocorr.corr_summary": (
        "Channel {e} of head {h1} at lag {tau}: each query step t + {tau} against key step t, round the "
        "{L} steps."),
    "explain.autocorr.mean_formula": "mean_corr[{b},{tau}] = mean over h, e of corr[{b},h,e,{tau}]",
    "explain.autocorr.mean_summary": "The mean of the {n} curves (heads × channels) at lag {tau}.",
    "explain.autocorr.top_formula": "top_lags[{b},{i}]",
    "explain.autocorr.top_inference": (
        "Lag {lag} is series {b1}'s number {i1} of the top {k} on its own curve (mean correlation {v})."),
    "explain.autocorr.top_training": (
        "Lag {lag} is number {i1} of the top {k} on the batch's mean curve ({v}): training shares it with every "
        "series."),
    "explain.autocorr.weight_formula": "w[{b},{i}] = softmax over the k lag scores",
    "explain.autocorr.weight_summary": "The weight of lag {lag}: its exp over the sum of the {k} exps.",
    "explain.autocorr.rolled_formula": "rolled[{b},{h},{t}, copy {i}, {d}] = v[(t + lag) mod L]",
    "explain.autocorr.rolled_summary": (
        "Copy {i1} is torch.roll(V, {roll}) (lag {lag}): step {t} holds value step {source}, channel {d}."),
    "explain.autocorr.score_formula": "scores[{b},h,{t},{s}] = mean_corr[{b}, ({s} − {t}) mod L]",
    "explain.autocorr.score_summary": (
        "Key step {s} is {lag} steps after query step {t} (mod {L}): the mean correlation at lag {lag}, the "
        "same in every head."),
    "explain.autocorr.masked_formula": "kept when (s − t) mod L is a top lag, else −∞",
    "explain.autocorr.masked_kept": "Lag {lag} is one of the top {k} lags ({lags}): kept.",
    "explain.autocorr.masked_dropped": "Lag {lag} is not one of the top {k} lags ({lags}): −∞.",
    "explain.autocorr.weight_cell_formula": "a[t, s] = w[lag] where lag = (s − t) mod L is a top lag, else 0",
    "explain.autocorr.weight_zero": "Lag {lag} was not kept: this key adds nothing to output step t.",
    "explain.autocorr.weight_cell": (
        "The weight of top lag number {i1} (lag {lag}): output step {t} reads value step {s} with it."),
    "explain.autocorr.output_formula": "out[{b},{t},{h},{d}] = Σ_i w_i · v[({t} + lag_i) mod L]",
    "explain.autocorr.output_summary": (
        "Output step {t} is the weighted sum of {k} rolled copies of V: one term per kept lag."),
    "problem.autocorrelation_scoring": (
        "the factor and path are read only by the scoring {scoring}; choose it or remove this part"),
    "problem.autocorrelation_lengths": (
        "with more queries than keys (L = {L} > S = {S}) the library appends zeros shaped like the queries to the "
        "keys and the values: d_values ({dv}) must equal d_keys ({dk})"),
    "problem.autocorrelation_mask": "Auto-Correlation reads no mask (the library ignores attn_mask); remove it",
    "problem.autocorrelation_scale": "Auto-Correlation has no scale; leave it automatic",
    "problem.autocorrelation_k": (
        "factor {factor} keeps k = int(factor · ln {L}) = {k} lags; k must be from 1 to {n}"),
    "tiles.not_applicable.autocorrelation": (
        "No tiles: Auto-Correlation's softmax is over its k top lags, not over a row of scores, so there is "
        "no running row maximum for FlashAttention to keep."),
    # Time-Series-Library's EncoderLayer after the output projection (attention/kinds/tsl_encoder.py)
    "field.modifiers.encoder_layer.conv1_weight.label": "Encoder layer: conv1 weight",
    "field.modifiers.encoder_layer.conv1_weight.help": (
        "conv1's (d_ff, d_model) matrix (the Conv1d's kernel-1 weight without its last axis)"),
    "field.modifiers.encoder_layer.conv1_bias.label": "Encoder layer: conv1 bias",
    "field.modifiers.encoder_layer.conv1_bias.help": "conv1's bias, one per hidden channel (d_ff,)",
    "field.modifiers.encoder_layer.conv2_weight.label": "Encoder layer: conv2 weight",
    "field.modifiers.encoder_layer.conv2_weight.help": "conv2's (d_model, d_ff) matrix",
    "field.modifiers.encoder_layer.conv2_bias.label": "Encoder layer: conv2 bias",
    "field.modifiers.encoder_layer.conv2_bias.help": "conv2's bias (d_model,)",
    "field.modifiers.encoder_layer.norm1_weight.label": "Encoder layer: norm1 γ",
    "field.modifiers.encoder_layer.norm1_weight.help": "the first LayerNorm's scale γ (d_model,); absent: 1",
    "field.modifiers.encoder_layer.norm1_bias.label": "Encoder layer: norm1 β",
    "field.modifiers.encoder_layer.norm1_bias.help": "the first LayerNorm's shift β (d_model,); absent: 0",
    "field.modifiers.encoder_layer.norm2_weight.label": "Encoder layer: norm2 γ",
    "field.modifiers.encoder_layer.norm2_weight.help": "the second LayerNorm's scale γ (d_model,); absent: 1",
    "field.modifiers.encoder_layer.norm2_bias.label": "Encoder layer: norm2 β",
    "field.modifiers.encoder_layer.norm2_bias.help": "the second LayerNorm's shift β (d_model,); absent: 0",
    "field.modifiers.encoder_layer.activation.label": "Encoder layer: activation",
    "field.modifiers.encoder_layer.activation.help": "relu, or gelu (exact erf form) as TSL's F.gelu",
    "step.extra.residual_attention.title": "Encoder: x + attention output",
    "step.extra.residual_attention.formula": "x + dropout(output)   (dropout = identity in eval)",
    "step.extra.norm_first.title": "Encoder: norm1",
    "step.extra.norm_first.formula": "LayerNorm: (x - mean) / sqrt(var + 1e-5) * gamma + beta, per row",
    "step.extra.ffn_hidden.title": "Encoder: conv1 (kernel 1) + activation",
    "step.extra.ffn_hidden.formula": "act(norm1 @ W1^T + b1): d_model -> d_ff at every step",
    "step.extra.ffn_out.title": "Encoder: conv2 (kernel 1)",
    "step.extra.ffn_out.formula": "hidden @ W2^T + b2: d_ff -> d_model at every step",
    "step.extra.residual_ffn.title": "Encoder: norm1 + feed-forward",
    "step.extra.residual_ffn.formula": "norm1 + dropout(conv2)",
    "step.extra.norm_second.title": "Encoder layer output (norm2)",
    "step.extra.norm_second.formula": "LayerNorm(norm1 + conv2): the encoder layer's output",
    "lesson.extra.residual_attention": (
        "Time-Series-Library's EncoderLayer adds the attention's output back to its input x (a residual "
        "connection): attention only has to learn a correction."),
    "lesson.extra.norm_first": (
        "LayerNorm then rescales each time step on its own: minus the row's mean, divided by the square root "
        "of its (biased) variance plus 1e-5, times γ plus β."),
    "lesson.extra.ffn_hidden": (
        "conv1 has kernel size 1, so it is a matrix product at every time step (d_model to d_ff), followed "
        "by the activation."),
    "lesson.extra.ffn_out": "conv2, also kernel 1, maps the d_ff hidden channels back to d_model.",
    "lesson.extra.residual_ffn": "A second residual connection adds the feed-forward result to norm1's output.",
    "lesson.extra.norm_second": (
        "norm2 gives the encoder layer's output, which the next layer (or Informer's distilling conv) reads."),
    "explain.encoder.residual_attention": "x[b,t,c] + output[b,t,c]",
    "explain.encoder.residual_ffn": "norm1[b,t,c] + conv2[b,t,c]",
    "explain.encoder.residual_summary": "A residual connection: the two numbers are added (dropout is off in eval).",
    "explain.encoder.norm_formula": "(x[c] − mean(x)) / √(var(x) + 1e-5) × γ[c] + β[c], over the row's channels",
    "explain.encoder.norm_summary": (
        "The row's mean is {mean} and its biased variance {var} (over {n} values); ({x} − {mean}) / √({var} + "
        "1e-5) = {normalized}; × γ {gamma} + β {beta} = {out}."),
    "explain.encoder.conv1_formula": "act(b1[c] + Σ_j W1[c, j] · norm1[t, j])",
    "explain.encoder.conv2_formula": "b2[c] + Σ_j W2[c, j] · hidden[t, j]",
    "explain.encoder.conv_summary": (
        "A kernel-1 convolution is a matrix product at each step: bias {bias} plus {n} products of row {c} of "
        "the weight with step {t}'s channels."),
    "problem.encoder_layer_width": (
        "the encoder layer adds the output to the queries: the output width ({d_out}) must be d_model ({d_model})"),
    "problem.encoder_layer_shape": "expected shape {expected}, got {got}",
    "problem.encoder_layer_finite": "every number must be finite",
}

ZH: dict[str, str] = {
    "tsl.patch": "第 {p} 块 · t {start}–{end}",
    "tsl.patch_padded": "第 {p} 块 · t {start}–{end}（{pad_start}–{end} 重复 t {last}）",
    "tsl.segment": "第 {p} 段 · t {start}–{end}",
    "tsl.segment_padded": "第 {p} 段 · t {start}–{end}（{pad_start}–{end} 重复 t {last}）",
    "tsl.variate": "变量 {i}",
    "tsl.time_feature": "时间特征 {i}",
    "tsl.node": "第 {scale} 层第 {index} 个节点",
    "tsl.pyramid.self": "{query} 看见自己",
    "tsl.pyramid.neighbour": "{key} 是 {query} 同一尺度上的邻居（相距 {distance} 步，在内窗口之内）",
    "tsl.pyramid.parent": "{key} 是 {query} 的父节点（粗一级的尺度）",
    "tsl.pyramid.child": "{key} 是 {query} 的子节点之一（细一级的尺度）",
    "tsl.pyramid.masked": "已遮蔽：{key} 既不是 {query} 同尺度上的近邻，也不是它的父节点或子节点",
    "tsl.autocorr.term": "滞后 {lag}：torch.roll(V, {roll}) 把第 {source} 步移到第 {t} 步；"
                         "权重 {weight} × 值 {value} = {product}",
    "tsl.ds.cell": "q·k = {raw}；× τ {tau} + Δ {delta} = {score}；softmax 的输入是 scale {scale} × {score} = "
                   "{scaled}（所以 Δ 实际加的是 scale × Δ = {scaled_delta}，而不是 Δ）",
    "tsl.norm.cell": "均值 {mean}，方差 {var}（对 {n} 个值）；({x} − {mean}) / √({var} + 1e-5) = "
                     "{normalized}；× γ {gamma} + β {beta} = {out}",
    "tsl.conv.cell": "第 {t} 步 = 偏置 {bias} + 对 {n} 个通道 × {k} 个抽头、输入第 {steps} 步求和 = {out}",
    "tsl.conv.wrapped": "第 {steps} 步是从另一端绕回来的（循环填充）",
    "tsl.pool.cell": "卷积第 {steps} 步中的最大值 = {value}，来自第 {winner} 步",
    # Pyraformer 的金字塔掩码（attention/kinds/pyramid.py）
    "field.masks.pyramid.input_size.label": "金字塔：输入步数",
    "field.masks.pyramid.input_size.help": (
        "金字塔最底层的输入时间步数（Pyraformer 的 input_size）；查询和键必须正好是全部 N 个金字塔节点："
        "先是这些时间步，再是每个更粗的尺度。"),
    "field.masks.pyramid.window_size.label": "金字塔：窗口",
    "field.masks.pyramid.window_size.help": (
        "每个更粗的尺度一个整数：上一尺度的几个节点合成下一尺度的一个节点（Pyraformer 的 window_size，例如 [4, 4]）。"),
    "step.extra.mask.formula.pyramid": ("除非键 s 与查询 l 在同一尺度上相距不超过 ⌊内窗口 / 2⌋ 步，"
                                        "或是 l 的父节点（粗一级的尺度），或是 l 的子节点之一，否则被掩蔽"),
    "field.masks.pyramid.inner_size.label": "金字塔：内窗口",
    "field.masks.pyramid.inner_size.help": (
        "节点能看到本尺度上相距不超过 inner_size // 2 步的节点（Pyraformer 的 inner_size）。"),
    "lesson.extra.mask.pyramid": (
        "Pyraformer 的金字塔：行和列先是输入时间步，再是每个更粗的尺度；"
        "一个节点只看本尺度上的近邻、它的父节点和子节点，"
        "所以任意两个时间步都能经过几个粗尺度节点相连，而每一行只保留少数几个键。"),
    "tsl.pyramid.reason": "金字塔：{why}",
    "tsl.pyramid.far": "{key} 既不是 {query} 同尺度上的近邻，也不是它的父节点或子节点",
    "problem.pyramid_windows": "应为整数列表，每个更粗的尺度一个；实际形状为 {got}",
    "problem.time_axis_start": "应为第一步的日期，写作 2016-07-01 或 2016-07-01 00:00；实际为 {got}",
    "problem.time_axis_freq": ("应为 Time-Series-Library 写法的频率（s、t 或 min、h、d、b、w、m，"
                               "可带倍数，如 15min 或 3h）；实际为 {got}"),
    "problem.pyramid_window": "应为 ≥ 1 的整数，实际为 {got}",
    "problem.pyramid_empty_scale": "金字塔各尺度的节点数将是 {sizes}：第 {scale} 层是空的；请用更少或更小的窗口",
    "problem.pyramid_nodes": "金字塔共有 {N} 个节点（{sizes}）；查询和键的长度都必须是 {N}，实际为 {L} 和 {S}",
    # DSAttention（Non-stationary Transformer）作为打分方式
    "field.scoring.ds_attention": "去平稳注意力（Non-stationary Transformer）",
    "field.modifiers.destationary.tau.label": "τ（每条序列一个）",
    "field.modifiers.destationary.tau.help": (
        "DSAttention 的 τ：每个批次项（序列）一个正数，乘到这条序列的每个 q·k 上；模型从序列的标准差学出它。"
        "不给时为 1，与库中 tau=None 相同。"),
    "field.modifiers.destationary.delta.label": "Δ（每个键一个）",
    "field.modifiers.destationary.delta.help": (
        "DSAttention 的 Δ：每个批次项的每个键一个数，加到所有查询对这个键的分数上（之后再乘缩放）。"
        "不给时为 0，与库中 delta=None 相同。"),
    "step.extra.destationary.title": "去平稳分数 q·k·τ + Δ",
    "step.extra.destationary.formula": "去平稳[b,h,l,s] = (q_l · k_s) × τ[b] + Δ[b,s]",
    "step.scores.title.ds_attention": "softmax 看到的分数",
    "step.scores.formula.ds_attention": "分数[b,h,l,s] = 缩放系数 × ((q_l · k_s) × τ[b] + Δ[b,s])",
    "lesson.extra.destationary": (
        "Non-stationary Transformer 在注意力之前把每条序列归一化，这会让所有序列看起来都差不多；"
        "DSAttention 把丢掉的尺度和水平补回来：τ 乘以一条序列的点积（τ > 1 让权重更尖锐，τ < 1 让权重更平坦），"
        "Δ 给某个键的分数在所有查询上加同样的量。"),
    "lesson.scores.ds_attention": (
        "softmax 看到的是 缩放系数 × (q·k × τ + Δ)：Time-Series-Library 在加上 Δ 之后才缩放，"
        "所以每个键的 Δ 实际起作用的是 缩放系数 × Δ（{scale} × Δ），而不是 Δ。"),
    "lesson.scores.ds_attention_delta": (
        "因为 Δ 对每个查询都一样，它只在键之间挪"
        "动权重：Δ 更大的键在每一行都得到更多权重。"),
    "explain.destationary.formula": (
        "去平稳[{b},{h},{l},{s}] = (Σ_e q[{b},{l},{h},e"
        "] · k[{b},{s},{h},e]) × τ[{b}] + Δ[{b},{s}]"),
    "explain.destationary.summary": "点积乘以序列 {b1} 的 τ = {tau}，再加上键 {s} 的 Δ = {delta}：库中缩放之前的分数。",
    "explain.ds_scores.formula": "分数[{b},{h},{l},{s}] = 缩放系数 × 去平稳[{b},{h},{l},{s}]",
    "explain.ds_scores.summary": (
        "缩放 {scale} 乘的是整个去平稳分数：来自 τ·q·k 的 {scaled_raw}（q·k = {raw}，τ = {tau}）"
        "加上来自 Δ = {delta} 的 {scaled_delta}（是 缩放系数 × Δ，而不是 Δ）。"),
    "problem.destationary_scoring": "τ 和 Δ 只由打分方式 {scoring} 读取；请选择它或删除这个部件",
    "problem.destationary_shape": "形状应为 {expected}，实际为 {got}",
    "problem.destationary_tau": "τ 必须为正（模型计算的是 exp(...)），实际为 {got}",
    "param.ds_attention.tau": "τ（每条序列）",
    "param.ds_attention.delta": "Δ（每个键）",
    # Auto-Correlation（Autoformer）作为打分方式
    "field.scoring.autocorrelation": "自相关（Autoformer）",
    "field.modifiers.autocorrelation.factor.label": "自相关：因子",
    "field.modifiers.autocorrelation.factor.help": (
        "层的因子 c：保留前 k = int(c · ln L) 个滞后（Time-Series-Library 的 --factor；模块默认 1）。"),
    "field.modifiers.autocorrelation.path.label": "自相关：路径",
    "field.modifiers.autocorrelation.path.help": (
        "推理（module.eval()）：每条序列各选自己的前 k 个滞后；训练（module.train()）："
        "整个批次共用一组滞后，取自批次的平均曲线。"),
    "field.modifiers.autocorrelation.path.inference": "推理（每条序列各自的滞后）",
    "field.modifiers.autocorrelation.path.training": "训练（整个批次共用滞后）",
    "step.extra.correlation.title": "各滞后的相关，按头和通道",
    "step.extra.correlation.formula": "相关[b,h,e,τ] = irfft(rfft(q) · conj(rfft(k)))[τ] = Σ_t q[(t+τ) 模 L] k[t]",
    "step.extra.mean_correlation.title": "平均相关曲线",
    "step.extra.mean_correlation.formula": "平均相关[b,τ] = 相关[b,h,e,τ] 对头和通道取平均",
    "step.extra.top_lags.title": "前 k 个滞后",
    "step.extra.top_lags.formula": "滞后 = topk(平均相关, k = int(因子 · ln L))",
    "step.extra.lag_weights.title": "滞后权重（对这 k 个做 softmax）",
    "step.extra.lag_weights.formula": "w[b,i] = softmax_i(mean_corr[b, lag_i])",
    "step.extra.rolled_values.title": "V 的滚动副本",
    "step.extra.rolled_values.formula": "副本_i[t] = torch.roll(v, -lag_i)[t] = v[(t + lag_i) 模 L]",
    "step.scores.title.autocorrelation": "滞后 (s − t) 模 L 处的相关",
    "step.scores.formula.autocorrelation": "分数[b,h,t,s] = mean_corr[b, (s − t) 模 L]",
    "step.masked_scores.title.autocorrelation": "只保留前 k 个滞后",
    "step.masked_scores.formula.autocorrelation": "(s − t) 模 L 不在前 k 个滞后中则为 −∞",
    "step.attention_weights.title.autocorrelation": "滞后权重，放在它们读取的键上",
    "step.attention_weights.formula.autocorrelation": "a[b,h,t,s] = w[b,i]（lag_i = (s − t) 模 L），否则为 0",
    "step.weighted_sum.formula.autocorrelation": "输出[t] = Σ_i w_i · v[(t + lag_i) 模 L]",
    "lesson.extra.correlation": (
        "自相关一次比较查询与按每个滞后 τ 平移后的键：FFT 为每个头和通道算出循环相关 Σ_t q[(t + τ) 模 L]·k[t]。"),
    "lesson.extra.mean_correlation": "这些曲线对头和通道取平均：每条序列一条曲线，曲线的峰就是序列的周期。",
    "lesson.extra.top_lags": (
        "只保留 k = int(因子 · ln L) 个最高的滞后；训练时整个批次共用一组（批次的平均曲线），推理时每条序列"
        "各选各的。"),
    "lesson.extra.lag_weights": "这 k 个相关值经过 softmax：得到 k 个和为 1 的权重。",
    "lesson.extra.rolled_values": (
        "对滞后 τ，库把 V 向左滚动 τ 步（torch.roll(v, -τ)）：输出第 t 步读取 τ 步之后的值，到末尾再绕回开头，"
        "也就是一个周期之后的同一相位。"),
    "lesson.scores.autocorrelation": (
        "自相关用查询步 t 与键步 s 之间滞后 (s − t) 模 L 处的相关来打分，而不是点积：每一行都是同一条曲线，"
        "只是滚动了。"),
    "lesson.scores.autocorrelation_circulant": "没有缩放，也没有掩码：库会忽略 attn_mask。",
    "lesson.attention_weights.autocorrelation": (
        "每一行只保留前 k 个滞后所指向的 k 个键，权重是它们相关值的 softmax；加权求和就是把 V 的 k 个滚动副本加起来。"),
    "explain.autocorr.corr_formula": "相关[{b},{h},{e},{tau}] = Σ_t q[(t + {tau}) 模 L, {e}] · k[t, {e}]",
    "explain.autocorr.corr_summary": (
        "第 {h1} 头第 {e} 通道在滞后 {tau} 处：每个查询步 t + {tau} 对键步 t，绕 {L} 步一圈。"),
    "explain.autocorr.mean_formula": "平均相关[{b},{tau}] = 相关[{b},h,e,{tau}] 对 h、e 取平均",
    "explain.autocorr.mean_summary": "{n} 条曲线（头 × 通道）在滞后 {tau} 处的平均。",
    "explain.autocorr.top_formula": "top_lags[{b},{i}]",
    "explain.autocorr.top_inference": "滞后 {lag} 是序列 {b1} 自己曲线上前 {k} 个中的第 {i1} 个（平均相关 {v}）。",
    "explain.autocorr.top_training": (
        "滞后 {lag} 是批次平均曲线上前 {k} 个中的第 {i1} 个（{v}）：训练时所有序列共用它。"),
    "explain.autocorr.weight_formula": "w[{b},{i}] = 对 k 个滞后分数做 softmax",
    "explain.autocorr.weight_summary": "滞后 {lag} 的权重：它的 exp 除以 {k} 个 exp 之和。",
    "explain.autocorr.rolled_formula": "滚动后的值[{b},{h},{t}, 副本 {i}, {d}] = v[(t + 滞后) 模 L]",
    "explain.autocorr.rolled_summary": (
        "副本 {i1} 是 torch.roll(V, {roll})（滞后 {lag}）：第 {t} 步放的是值的第 {source} 步、第 {d} 通道。"),
    "explain.autocorr.score_formula": "分数[{b},h,{t},{s}] = mean_corr[{b}, ({s} − {t}) 模 L]",
    "explain.autocorr.score_summary": (
        "键步 {s} 在查询步 {t} 之后 {lag} 步（模 {L}）：滞后 {lag} 处的平均相关，每个头都一样。"),
    "explain.autocorr.masked_formula": "(s − t) 模 L 是前 k 个滞后之一则保留，否则为 −∞",
    "explain.autocorr.masked_kept": "滞后 {lag} 在前 {k} 个滞后（{lags}）之中：保留。",
    "explain.autocorr.masked_dropped": "滞后 {lag} 不在前 {k} 个滞后（{lags}）之中：−∞。",
    "explain.autocorr.weight_cell_formula": "a[t, s] = w[滞后]（滞后 = (s − t) 模 L 为前 k 个滞后之一），否则为 0",
    "explain.autocorr.weight_zero": "滞后 {lag} 没有被保留：这个键对输出第 t 步没有贡献。",
    "explain.autocorr.weight_cell": "第 {i1} 个前 k 滞后（滞后 {lag}）的权重：输出第 {t} 步用它读取值的第 {s} 步。",
    "explain.autocorr.output_formula": "输出[{b},{t},{h},{d}] = Σ_i w_i · v[({t} + lag_i) 模 L]",
    "explain.autocorr.output_summary": "输出第 {t} 步是 V 的 {k} 个滚动副本的加权和：每个保留的滞后一项。",
    "problem.autocorrelation_scoring": "factor 和路径只由打分方式 {scoring} 读取；请选择它或删除这个部件",
    "problem.autocorrelation_lengths": (
        "查询比键多（L = {L} > S = {S}）时，库会在键和值后面补上形状和查询一样的零："
        "d_values（{dv}）必须等于 d_keys（{dk}）"),
    "problem.autocorrelation_mask": "自相关不读取掩码（库会忽略 attn_mask）；请去掉它",
    "problem.autocorrelation_scale": "自相关没有缩放；请保持自动",
    "problem.autocorrelation_k": "factor {factor} 保留 k = int(factor · ln {L}) = {k} 个滞后；k 必须在 1 到 {n} 之间",
    "tiles.not_applicable.autocorrelation": (
        "没有分块：自相关的 softmax 是对前 k 个滞后做的，而不是对一行分数做的，所以 FlashAttention 没有逐行的"
        "最大值可维护。"),
    # Time-Series-Library 的 EncoderLayer（输出投影之后）
    "field.modifiers.encoder_layer.conv1_weight.label": "编码器层：conv1 权重",
    "field.modifiers.encoder_layer.conv1_weight.help": (
        "conv1 的 (d_ff, d_model) 矩阵（Conv1d 核大小为 1 的权重去掉最后一维）"),
    "field.modifiers.encoder_layer.conv1_bias.label": "编码器层：conv1 偏置",
    "field.modifiers.encoder_layer.conv1_bias.help": "conv1 的偏置，每个隐藏通道一个 (d_ff,)",
    "field.modifiers.encoder_layer.conv2_weight.label": "编码器层：conv2 权重",
    "field.modifiers.encoder_layer.conv2_weight.help": "conv2 的 (d_model, d_ff) 矩阵",
    "field.modifiers.encoder_layer.conv2_bias.label": "编码器层：conv2 偏置",
    "field.modifiers.encoder_layer.conv2_bias.help": "conv2 的偏置 (d_model,)",
    "field.modifiers.encoder_layer.norm1_weight.label": "编码器层：norm1 γ",
    "field.modifiers.encoder_layer.norm1_weight.help": "第一个 LayerNorm 的缩放 γ (d_model,)；不给时为 1",
    "field.modifiers.encoder_layer.norm1_bias.label": "编码器层：norm1 β",
    "field.modifiers.encoder_layer.norm1_bias.help": "第一个 LayerNorm 的平移 β (d_model,)；不给时为 0",
    "field.modifiers.encoder_layer.norm2_weight.label": "编码器层：norm2 γ",
    "field.modifiers.encoder_layer.norm2_weight.help": "第二个 LayerNorm 的缩放 γ (d_model,)；不给时为 1",
    "field.modifiers.encoder_layer.norm2_bias.label": "编码器层：norm2 β",
    "field.modifiers.encoder_layer.norm2_bias.help": "第二个 LayerNorm 的平移 β (d_model,)；不给时为 0",
    "field.modifiers.encoder_layer.activation.label": "编码器层：激活函数",
    "field.modifiers.encoder_layer.activation.help": "relu，或 gelu（精确的 erf 形式，与 TSL 的 F.gelu 相同）",
    "step.extra.residual_attention.title": "编码器：x + 注意力输出",
    "step.extra.residual_attention.formula": "x + dropout(输出)（推理时 dropout 不起作用）",
    "step.extra.norm_first.title": "编码器：norm1",
    "step.extra.norm_first.formula": "层归一化：每行 (x − 均值) / √(方差 + 1e-5) × γ + β",
    "step.extra.ffn_hidden.title": "编码器：conv1（核大小 1）+ 激活",
    "step.extra.ffn_hidden.formula": "激活(norm1 @ W1ᵀ + b1)：每一步 d_model → d_ff",
    "step.extra.ffn_out.title": "编码器：conv2（核大小 1）",
    "step.extra.ffn_out.formula": "隐藏层 @ W2ᵀ + b2：每一步 d_ff → d_model",
    "step.extra.residual_ffn.title": "编码器：norm1 + 前馈",
    "step.extra.residual_ffn.formula": "norm1 + dropout(conv2)",
    "step.extra.norm_second.title": "编码器层输出（norm2）",
    "step.extra.norm_second.formula": "层归一化(norm1 + conv2)：编码器层的输出",
    "lesson.extra.residual_attention": (
        "Time-Series-Library 的 EncoderLayer 把注意力的输出加回它的输入 x（残差连接）：注意力只需学一个修正量"
        "。"),
    "lesson.extra.norm_first": (
        "接着层归一化单独缩放每个时间步：减去这一行的均值，除以（有偏）方差加 1e-5 的平方根，再乘 γ 加 β。"),
    "lesson.extra.ffn_hidden": (
        "conv1 的核大小为 1，所以它就是每个时间步上的矩阵乘法（d_model 到 d_ff），后面跟着激活函数。"),
    "lesson.extra.ffn_out": "conv2 的核大小也是 1，把 d_ff 个隐藏通道映射回 d_model。",
    "lesson.extra.residual_ffn": "第二个残差连接把前馈的结果加到 norm1 的输出上。",
    "lesson.extra.norm_second": "norm2 给出编码器层的输出，下一层（或 Informer 的蒸馏卷积）读取它。",
    "explain.encoder.residual_attention": "x[b,t,c] + 输出[b,t,c]",
    "explain.encoder.residual_ffn": "norm1[b,t,c] + conv2[b,t,c]",
    "explain.encoder.residual_summary": "残差连接：两个数相加（推理时 dropout 不起作用）。",
    "explain.encoder.norm_formula": "(x[c] − 均值(x)) / √(方差(x) + 1e-5) × γ[c] + β[c]，对这一行的通道",
    "explain.encoder.norm_summary": (
        "这一行的均值为 {mean}，有偏方差为 {var}（对 {n} 个值）；({x} − {mean}) / √({var} + 1e-5) = {normaliz"
        "ed}；× γ {gamma} + β {beta} = {out}。"),
    "explain.encoder.conv1_formula": "激活(b1[c] + Σ_j W1[c, j] · norm1[t, j])",
    "explain.encoder.conv2_formula": "b2[c] + Σ_j W2[c, j] · 隐藏层[t, j]",
    "explain.encoder.conv_summary": (
        "核大小为 1 的卷积就是每一步上的矩阵乘法：偏置 {bias} 加上权重第 {c} 行与第 {t} 步各通道的 {n} 个乘积"
        "。"),
    "problem.encoder_layer_width": "编码器层把输出加到查询上：输出宽度（{d_out}）必须等于 d_model（{d_model}）",
    "problem.encoder_layer_shape": "形状应为 {expected}，实际为 {got}",
    "problem.encoder_layer_finite": "每个数都必须是有限值",
}


# ---- Informer's distilling ConvLayer as steps (attention/kinds/tsl_distil.py) -----------------------
EN.update({
    "field.modifiers.distil.conv_weight.label": "Distilling conv: weight",
    "field.modifiers.distil.conv_weight.help": "the Conv1d's (C, C, 3) weight: output channel, input channel, tap",
    "field.modifiers.distil.conv_bias.label": "Distilling conv: bias",
    "field.modifiers.distil.conv_bias.help": "the Conv1d's bias, one per channel (C,)",
    "field.modifiers.distil.running_mean.label": "Distilling BatchNorm: running mean",
    "field.modifiers.distil.running_mean.help": "BatchNorm1d's running mean per channel (C,); absent: 0",
    "field.modifiers.distil.running_var.label": "Distilling BatchNorm: running variance",
    "field.modifiers.distil.running_var.help": "BatchNorm1d's running variance per channel (C,), ≥ 0; absent: 1",
    "field.modifiers.distil.norm_weight.label": "Distilling BatchNorm: γ",
    "field.modifiers.distil.norm_weight.help": "BatchNorm1d's scale γ (C,); absent: 1",
    "field.modifiers.distil.norm_bias.label": "Distilling BatchNorm: β",
    "field.modifiers.distil.norm_bias.help": "BatchNorm1d's shift β (C,); absent: 0",
    "step.extra.distil_conv.title": "Distilling: circular conv (kernel 3)",
    "step.extra.distil_conv.formula": (
        "b + Σ_ci Σ_j W[c, ci, j] · x[(t + j − 2) mod L, ci]: padding 2 on each side, so L + 2 steps"),
    "step.extra.distil_norm.title": "Distilling: BatchNorm (running statistics)",
    "step.extra.distil_norm.formula": "(x − running_mean) / sqrt(running_var + 1e-5) * gamma + beta, per channel",
    "step.extra.distil_elu.title": "Distilling: ELU",
    "step.extra.distil_elu.formula": "x if x > 0 else exp(x) − 1",
    "step.extra.distil_pool.title": "Distilling: max-pool (the layer's output)",
    "step.extra.distil_pool.formula": "max over steps 2t − 1, 2t, 2t + 1 (kernel 3, stride 2, padding 1)",
    "lesson.extra.distil_conv": (
        "Informer's distilling layer first convolves along time with kernel 3. The library pads 2 steps on "
        "each side, wrapped round from the other end (circular), so the conv gives L + 2 steps, not L. Each "
        "output number is a matrix product: the 3 neighbouring steps' channels times one row of the weight."),
    "lesson.extra.distil_norm": (
        "BatchNorm in eval mode uses the running mean and variance it kept while training, one pair per "
        "channel, not this batch's own statistics."),
    "lesson.extra.distil_elu": "ELU keeps positive numbers and bends negative ones to exp(x) − 1, never below −1.",
    "lesson.extra.distil_pool": (
        "Max-pooling with kernel 3 and stride 2 keeps the largest of every three neighbouring steps and moves "
        "two at a time: the sequence is halved (96 steps become 49, not 48), so the next encoder layer attends "
        "over half as many steps."),
    "explain.distil.conv_formula": "b[c] + Σ_ci Σ_j W[c, ci, j] · x[(t + j − 2) mod L, ci]",
    "explain.distil.conv_summary": (
        "A kernel-3 convolution is a matrix product: output step {t} reads input steps {steps} (all {n} "
        "channels of each) times row c of the weight, plus bias {bias}."),
    "explain.distil.norm_formula": "(conv[b,t,c] − running_mean[c]) / √(running_var[c] + 1e-5) × γ[c] + β[c]",
    "explain.distil.norm_summary": (
        "Eval mode: channel {c}'s running mean {mean} and running variance {var}, kept from training."),
    "explain.distil.elu_formula": "ELU(x) = x if x > 0, else exp(x) − 1",
    "explain.distil.elu_summary": "ELU keeps a positive number and turns a negative one into exp(x) − 1.",
    "explain.distil.pool_formula": "max(elu[b, 2t − 1, c], elu[b, 2t, c], elu[b, 2t + 1, c])",
    "explain.distil.pool_summary": (
        "Pooled step {t} is the largest of activated steps {steps} (padding never wins): step {winner}."),
    "problem.distil_length": "the distilling conv pads 2 steps circularly: it needs at least 2 queries (L = {L})",
    "problem.distil_shape": "expected shape {expected}, got {got}",
    "problem.distil_variance": "a variance cannot be negative",
})

ZH.update({
    "field.modifiers.distil.conv_weight.label": "蒸馏卷积：权重",
    "field.modifiers.distil.conv_weight.help": "Conv1d 的 (C, C, 3) 权重：输出通道、输入通道、抽头",
    "field.modifiers.distil.conv_bias.label": "蒸馏卷积：偏置",
    "field.modifiers.distil.conv_bias.help": "Conv1d 的偏置，每个通道一个 (C,)",
    "field.modifiers.distil.running_mean.label": "蒸馏 BatchNorm：滑动均值",
    "field.modifiers.distil.running_mean.help": "BatchNorm1d 每个通道的滑动均值 (C,)；不给时为 0",
    "field.modifiers.distil.running_var.label": "蒸馏 BatchNorm：滑动方差",
    "field.modifiers.distil.running_var.help": "BatchNorm1d 每个通道的滑动方差 (C,)，≥ 0；不给时为 1",
    "field.modifiers.distil.norm_weight.label": "蒸馏 BatchNorm：γ",
    "field.modifiers.distil.norm_weight.help": "BatchNorm1d 的缩放 γ (C,)；不给时为 1",
    "field.modifiers.distil.norm_bias.label": "蒸馏 BatchNorm：β",
    "field.modifiers.distil.norm_bias.help": "BatchNorm1d 的平移 β (C,)；不给时为 0",
    "step.extra.distil_conv.title": "蒸馏：循环卷积（核大小 3）",
    "step.extra.distil_conv.formula": (
        "b + Σ_ci Σ_j W[c, ci, j] · x[(t + j − 2) mod L, ci]：两边各填充 2 步，所以有 L + 2 步"),
    "step.extra.distil_norm.title": "蒸馏：BatchNorm（滑动统计量）",
    "step.extra.distil_norm.formula": "(x − 滑动均值) / sqrt(滑动方差 + 1e-5) * γ + β，按通道",
    "step.extra.distil_elu.title": "蒸馏：ELU",
    "step.extra.distil_elu.formula": "x > 0 时为 x，否则为 exp(x) − 1",
    "step.extra.distil_pool.title": "蒸馏：最大池化（这一层的输出）",
    "step.extra.distil_pool.formula": "在第 2t − 1、2t、2t + 1 步中取最大（核 3、步长 2、填充 1）",
    "lesson.extra.distil_conv": (
        "Informer 的蒸馏层先沿时间做核大小为 3 的卷积。库在两边各填充 2 步，从另一端绕回来（循环填充），"
        "所以卷积得到 L + 2 步，而不是 L 步。每个输出数都是一次矩阵乘法：相邻 3 步的所有通道乘以权重的一行。"),
    "lesson.extra.distil_norm": (
        "推理模式下的 BatchNorm 用训练时记下的滑动均值和方差（每个通道一对），而不是这一批数据自己的统计量。"),
    "lesson.extra.distil_elu": "ELU 保留正数，把负数弯成 exp(x) − 1，永远不低于 −1。",
    "lesson.extra.distil_pool": (
        "核 3、步长 2 的最大池化在每三个相邻步中取最大，每次移动两步：序列长度减半（96 步变成 49 步，而不是 48 步），"
        "下一个编码器层就只需在一半的步上做注意力。"),
    "explain.distil.conv_formula": "b[c] + Σ_ci Σ_j W[c, ci, j] · x[(t + j − 2) 对 L 取模, ci]",
    "explain.distil.conv_summary": (
        "核大小为 3 的卷积就是矩阵乘法：输出第 {t} 步读取输入第 {steps} 步（每步全部 {n} 个通道），"
        "乘以权重的第 c 行，再加偏置 {bias}。"),
    "explain.distil.norm_formula": "(卷积[b,t,c] − 滑动均值[c]) / √(滑动方差[c] + 1e-5) × γ[c] + β[c]",
    "explain.distil.norm_summary": "推理模式：通道 {c} 的滑动均值 {mean} 和滑动方差 {var}，都是训练时记下的。",
    "explain.distil.elu_formula": "ELU(x) = x（x > 0 时），否则 exp(x) − 1",
    "explain.distil.elu_summary": "ELU 保留正数，把负数变成 exp(x) − 1。",
    "explain.distil.pool_formula": "max(elu[b, 2t − 1, c], elu[b, 2t, c], elu[b, 2t + 1, c])",
    "explain.distil.pool_summary": (
        "池化后的第 {t} 步是激活后第 {steps} 步中最大的（填充永远不会胜出）：第 {winner} 步。"),
    "problem.distil_length": "蒸馏卷积要循环填充 2 步：至少需要 2 个查询（L = {L}）",
    "problem.distil_shape": "形状应为 {expected}，实际为 {got}",
    "problem.distil_variance": "方差不能为负",
})


# ---- Crossformer's two-stage attention as steps (attention/kinds/tsl_two_stage.py) ----------------------
def _two_stage_fields(lang: str) -> dict[str, str]:
    """The labels and help of the two_stage part's 35 fields, built from their parts' names."""
    zh = lang == "zh"
    who = {"sender": "发送（路由收集）" if zh else "sender (router gathers)",
           "receiver": "接收（变量读回）" if zh else "receiver (variables read back)"}
    proj = {"query": "查询" if zh else "query", "key": "键" if zh else "key", "value": "值" if zh else "value",
            "out": "输出" if zh else "out"}
    wb = {"weight": "权重" if zh else "weight", "bias": "偏置" if zh else "bias"}
    head = "两阶段注意力：" if zh else "Two-stage: "
    out: dict[str, str] = {}
    for a in ("sender", "receiver"):
        for p in ("query", "key", "value", "out"):
            for w in ("weight", "bias"):
                key = f"field.modifiers.two_stage.{a}_{p}_{w}"
                out[key + ".label"] = f"{head}{who[a]} {proj[p]} {wb[w]}"
                out[key + ".help"] = (f"dim_{a} 的 {p}_projection {wb[w]}：(d_model, d_model) 或 (d_model,)；"
                                      "不给时为单位矩阵和 0"
                                      if zh else f"dim_{a}'s {p}_projection {w}: (d_model, d_model) or (d_model,); "
                                      "absent: the identity and 0")
    for i in range(1, 5):
        for w in ("weight", "bias"):
            key = f"field.modifiers.two_stage.norm{i}_{w}"
            sym = "γ" if w == "weight" else "β"
            out[key + ".label"] = f"{head}norm{i} {sym}"
            out[key + ".help"] = (f"LayerNorm norm{i} 的 {sym} (d_model,)；不给时为 {1 if w == 'weight' else 0}" if zh
                                  else f"LayerNorm norm{i}'s {sym} (d_model,); absent: {1 if w == 'weight' else 0}")
    for i in (1, 2):
        for io, shape in (("in", ("(d_ff, d_model)", "(d_ff,)")), ("out", ("(d_model, d_ff)", "(d_model,)"))):
            for w, s in zip(("weight", "bias"), shape):
                key = f"field.modifiers.two_stage.mlp{i}_{io}_{w}"
                lin = "第一个" if io == "in" else "第二个"
                out[key + ".label"] = f"{head}MLP{i} {'输入' if zh and io == 'in' else '输出' if zh else io} {wb[w]}"
                out[key + ".help"] = (f"MLP{i} {lin}线性层的{wb[w]} {s}" + ("；不给时为 0" if w == "bias" else "")
                                      if zh else f"MLP{i}'s {'first' if io == 'in' else 'second'} Linear {w} {s}"
                                      + ("; absent: 0" if w == "bias" else ""))
    return out


_TSA_STEPS_EN = {
    "tsa_time_norm": ("Two-stage: norm1 (time stage)", "LayerNorm(x + time attention output)"),
    "tsa_time_mlp_hidden": ("Two-stage: MLP1 hidden (GELU)", "GELU(norm1 @ W1^T + b1): d_model -> d_ff"),
    "tsa_time_mlp": ("Two-stage: MLP1", "hidden @ W2^T + b2: d_ff -> d_model"),
    "tsa_dim_in": ("Two-stage: norm2 (dim_in)", "LayerNorm(norm1 + MLP1): the time stage's result"),
    "tsa_router_scores": ("Two-stage: router (queries) · variables (keys)",
                          "router[s, r] W_q · dim_in[v, s] W_k / sqrt(d_k): per segment s, slot r, variable v"),
    "tsa_router_weights": ("Two-stage: router gathers from the variables",
                           "softmax over the D variables, per segment and router slot"),
    "tsa_buffer": ("Two-stage: router buffer (dim_buffer)", "(Σ_v weight · dim_in[v, s] W_v) W_o + b_o"),
    "tsa_receive_scores": ("Two-stage: variables (queries) · router buffer (keys)",
                           "dim_in[v, s] W_q · buffer[s, r] W_k / sqrt(d_k): "
                           "each variable against its segment's slots"),
    "tsa_receive_weights": ("Two-stage: variables read back from the router",
                            "softmax over the factor router slots of the token's segment"),
    "tsa_receive": ("Two-stage: what each variable receives (dim_receive)",
                    "(Σ_r weight · buffer[s, r] W_v) W_o + b_o"),
    "tsa_dim_norm": ("Two-stage: norm3", "LayerNorm(dim_in + dim_receive)"),
    "tsa_dim_mlp_hidden": ("Two-stage: MLP2 hidden (GELU)", "GELU(norm3 @ W1^T + b1)"),
    "tsa_dim_mlp": ("Two-stage: MLP2", "hidden @ W2^T + b2"),
    "tsa_output": ("Two-stage layer output (norm4)", "LayerNorm(norm3 + MLP2): final_out, token v·seg + s"),
}
_TSA_STEPS_ZH = {
    "tsa_time_norm": ("两阶段：norm1（时间阶段）", "LayerNorm(x + 时间注意力的输出)"),
    "tsa_time_mlp_hidden": ("两阶段：MLP1 隐藏层（GELU）", "GELU(norm1 @ W1^T + b1)：d_model -> d_ff"),
    "tsa_time_mlp": ("两阶段：MLP1", "隐藏层 @ W2^T + b2：d_ff -> d_model"),
    "tsa_dim_in": ("两阶段：norm2（dim_in）", "LayerNorm(norm1 + MLP1)：时间阶段的结果"),
    "tsa_router_scores": ("两阶段：路由（查询）· 变量（键）",
                          "路由[s, r] W_q · dim_in[v, s] W_k / sqrt(d_k)：对每个分段 s、路由槽 r、变量 v"),
    "tsa_router_weights": ("两阶段：路由从各变量收集", "对 D 个变量做 softmax，每个分段、每个路由槽一行"),
    "tsa_buffer": ("两阶段：路由缓冲（dim_buffer）", "(Σ_v 权重 · dim_in[v, s] W_v) W_o + b_o"),
    "tsa_receive_scores": ("两阶段：变量（查询）· 路由缓冲（键）",
                           "dim_in[v, s] W_q · 缓冲[s, r] W_k / sqrt(d_k)：每个变量对它所在分段的路由槽"),
    "tsa_receive_weights": ("两阶段：变量从路由读回", "对这个词元所在分段的各个路由槽做 softmax"),
    "tsa_receive": ("两阶段：每个变量收到的（dim_receive）", "(Σ_r 权重 · 缓冲[s, r] W_v) W_o + b_o"),
    "tsa_dim_norm": ("两阶段：norm3", "LayerNorm(dim_in + dim_receive)"),
    "tsa_dim_mlp_hidden": ("两阶段：MLP2 隐藏层（GELU）", "GELU(norm3 @ W1^T + b1)"),
    "tsa_dim_mlp": ("两阶段：MLP2", "隐藏层 @ W2^T + b2"),
    "tsa_output": ("两阶段层的输出（norm4）", "LayerNorm(norm3 + MLP2)：final_out，词元 v·段数 + s"),
}

EN.update(_two_stage_fields("en"))
EN.update({f"step.extra.{k}.title": t for k, (t, _) in _TSA_STEPS_EN.items()})
EN.update({f"step.extra.{k}.formula": f for k, (_, f) in _TSA_STEPS_EN.items()})
EN.update({
    "field.modifiers.two_stage.variables.label": "Two-stage: variables D",
    "field.modifiers.two_stage.variables.help": (
        "How many variables the tokens hold: token l is variable l // seg, segment l % seg (seg = L / D)"),
    "field.modifiers.two_stage.factor.label": "Two-stage: router slots per segment",
    "field.modifiers.two_stage.factor.help": "Crossformer's factor: how many router vectors each segment has",
    "field.modifiers.two_stage.router.label": "Two-stage: router",
    "field.modifiers.two_stage.router.help": (
        "The learnable router, (seg·factor, d_model): row s·factor + r is TSL's router[s, r]"),
    "lesson.extra.tsa_time_norm": (
        "Crossformer's two-stage layer first lets each variable attend over its own segments: that was the "
        "attention above, with every other variable's keys masked. Then the usual residual and LayerNorm."),
    "lesson.extra.tsa_time_mlp_hidden": "MLP1's first Linear widens every token to d_ff channels, then GELU.",
    "lesson.extra.tsa_time_mlp": "MLP1's second Linear brings it back to d_model.",
    "lesson.extra.tsa_dim_in": (
        "norm2 of the residual gives dim_in, the time stage's result; the cross-dimension stage starts here."),
    "lesson.extra.tsa_router_scores": (
        "The variables do not attend to each other directly. Each segment has a few learnable router vectors; "
        "they are the QUERIES here, scored against every variable's token at that segment."),
    "lesson.extra.tsa_router_weights": (
        "A softmax over the D variables: each router slot gathers a mix of the variables. That costs D · factor "
        "scores per segment instead of D²."),
    "lesson.extra.tsa_buffer": "The gathered mix, through dim_sender's output projection: the router buffer.",
    "lesson.extra.tsa_receive_scores": (
        "Then the direction turns round: every variable's token is the query against its segment's router slots."),
    "lesson.extra.tsa_receive_weights": (
        "A softmax over the router slots: each variable reads back what the router gathered from all variables."),
    "lesson.extra.tsa_receive": "What each variable received, through dim_receiver's output projection.",
    "lesson.extra.tsa_dim_norm": "A residual connection and norm3, as after the time stage.",
    "lesson.extra.tsa_dim_mlp_hidden": "MLP2's first Linear and GELU.",
    "lesson.extra.tsa_dim_mlp": "MLP2's second Linear.",
    "lesson.extra.tsa_output": (
        "norm4 gives the layer's output, one row per token (variable, segment), as the library's (b, D, seg, "
        "d_model) flattened variable by variable."),
    "lesson.extra.mask.two_stage": (
        "The mask keeps each variable's segments to themselves: Crossformer's time stage runs attention on each "
        "variable alone."),
    "explain.mask.two_stage_other": (
        "key {s} belongs to variable {vs} and query {l} to variable {vl}: the time stage attends within one variable"),
    "explain.mask.two_stage_same": "key {s} and query {l} are both segments of variable {v}",
    "explain.two_stage.norm_formula": "{norm}: (x[c] − mean(x)) / √(var(x) + 1e-5) × γ[c] + β[c], x = the residual sum",
    "explain.two_stage.linear_formula": "{gelu}(b[c] + Σ_j W[c, j] · x[j])   ({name})",
    "explain.two_stage.time_mlp_hidden": "MLP1's first Linear as a matrix product, then GELU (exact, erf).",
    "explain.two_stage.time_mlp": "MLP1's second Linear as a matrix product.",
    "explain.two_stage.buffer": (
        "dim_sender's output projection of the context the router slot gathered (its heads side by side)."),
    "explain.two_stage.receive": "dim_receiver's output projection of the context the token read back.",
    "explain.two_stage.dim_mlp_hidden": "MLP2's first Linear as a matrix product, then GELU (exact, erf).",
    "explain.two_stage.dim_mlp": "MLP2's second Linear as a matrix product.",
    "explain.two_stage.scores_formula": "Σ_e q[e] · k[e] / √d_k over the head's columns",
    "explain.two_stage.router_summary": (
        "Router slot {r} of segment {s} is the query; variable {v} at segment {s} is the key (head {h})."),
    "explain.two_stage.receive_summary": (
        "Variable {v} at segment {s} is the query; router slot {r} of segment {s} (its buffer row) is the key "
        "(head {h})."),
    "explain.two_stage.weights_formula": "exp(score[j] − max) / Σ exp(score − max)",
    "explain.two_stage.router_weights_summary": "A softmax over the {n} variables of this segment.",
    "explain.two_stage.receive_weights_summary": "A softmax over the {n} router slots of this token's segment.",
    "problem.two_stage_scoring": (
        "Crossformer's attentions are FullAttention: scoring scaled_dot with the default scale (1/√d_k)"),
    "problem.two_stage_mask": "Crossformer's attentions use no mask: no causal, valid lengths or mask parts",
    "problem.two_stage_alone": "the two-stage layer is a layer of its own: remove the encoder_layer and distil parts",
    "problem.two_stage_tokens": (
        "the tokens must be D variables × seg segments with keys = queries: L ({L}) = S ({S}) must be a "
        "multiple of D ({D})"),
    "problem.two_stage_width": (
        "the layer adds the output to the queries: the output width ({d_out}) must be d_model ({d_model}), "
        "divisible by the {H} heads"),
    "problem.two_stage_shape": "expected shape {expected}, got {got}",
})

ZH.update(_two_stage_fields("zh"))
ZH.update({f"step.extra.{k}.title": t for k, (t, _) in _TSA_STEPS_ZH.items()})
ZH.update({f"step.extra.{k}.formula": f for k, (_, f) in _TSA_STEPS_ZH.items()})
ZH.update({
    "field.modifiers.two_stage.variables.label": "两阶段：变量数 D",
    "field.modifiers.two_stage.variables.help": (
        "词元包含多少个变量：词元 l 是变量 l // 段数 的第 l % 段数 段（段数 = L / D）"),
    "field.modifiers.two_stage.factor.label": "两阶段：每段的路由槽数",
    "field.modifiers.two_stage.factor.help": "Crossformer 的 --factor：每个分段有多少个路由向量（每段的路由槽数）",
    "field.modifiers.two_stage.router.label": "两阶段：路由",
    "field.modifiers.two_stage.router.help": (
        "可学习的路由，(段数·每段槽数, d_model)：第 s·每段槽数 + r 行就是 TSL 的 self.router[s, r]"),
    "lesson.extra.tsa_time_norm": (
        "Crossformer 的两阶段层先让每个变量在自己的分段之间做注意力：就是上面的注意力，其他变量的键都被遮蔽。"
        "然后是常见的残差和 LayerNorm。"),
    "lesson.extra.tsa_time_mlp_hidden": "MLP1 的第一个线性层把每个词元加宽到 d_ff 个通道，再做 GELU。",
    "lesson.extra.tsa_time_mlp": "MLP1 的第二个线性层再把它变回 d_model。",
    "lesson.extra.tsa_dim_in": "对残差做 norm2 得到 dim_in，也就是时间阶段的结果；跨维度阶段从这里开始。",
    "lesson.extra.tsa_router_scores": (
        "变量之间并不直接做注意力。每个分段有几个可学习的路由向量；在这里它们是查询，"
        "和每个变量在这个分段上的词元算分数。"),
    "lesson.extra.tsa_router_weights": (
        "对 D 个变量做 softmax：每个路由槽收集各变量的一个混合。每个分段只需 D · 每段槽数 个分数，而不是 D² 个。"),
    "lesson.extra.tsa_buffer": "收集到的混合经过 dim_sender 的输出投影，就是路由缓冲。",
    "lesson.extra.tsa_receive_scores": "然后方向反过来：每个变量的词元作为查询，对它所在分段的路由槽算分数。",
    "lesson.extra.tsa_receive_weights": "对路由槽做 softmax：每个变量读回路由从所有变量那里收集到的内容。",
    "lesson.extra.tsa_receive": "每个变量收到的内容，经过 dim_receiver 的输出投影。",
    "lesson.extra.tsa_dim_norm": "和时间阶段之后一样，一个残差连接再加 norm3。",
    "lesson.extra.tsa_dim_mlp_hidden": "MLP2 的第一个线性层和 GELU。",
    "lesson.extra.tsa_dim_mlp": "MLP2 的第二个线性层。",
    "lesson.extra.tsa_output": (
        "norm4 给出这一层的输出，每个词元（变量、分段）一行，就是库里的 (b, D, 段数, d_model) 按变量展平。"),
    "lesson.extra.mask.two_stage": "这个遮蔽让每个变量只看自己的分段：Crossformer 的时间阶段对每个变量单独做注意力。",
    "explain.mask.two_stage_other": "键 {s} 属于变量 {vs}，查询 {l} 属于变量 {vl}：时间阶段只在同一个变量内部做注意力",
    "explain.mask.two_stage_same": "键 {s} 和查询 {l} 都是变量 {v} 的分段",
    "explain.two_stage.norm_formula": "{norm}：(x[c] − 均值(x)) / √(方差(x) + 1e-5) × γ[c] + β[c]，x 是残差之和",
    "explain.two_stage.linear_formula": "{gelu}(b[c] + Σ_j W[c, j] · x[j])（{name}）",
    "explain.two_stage.time_mlp_hidden": "MLP1 的第一个线性层写成矩阵乘法，再做 GELU（精确的 erf 形式）。",
    "explain.two_stage.time_mlp": "MLP1 的第二个线性层写成矩阵乘法。",
    "explain.two_stage.buffer": "dim_sender 的输出投影，作用在这个路由槽收集到的上下文上（各头并排）。",
    "explain.two_stage.receive": "dim_receiver 的输出投影，作用在这个词元读回的上下文上。",
    "explain.two_stage.dim_mlp_hidden": "MLP2 的第一个线性层写成矩阵乘法，再做 GELU（精确的 erf 形式）。",
    "explain.two_stage.dim_mlp": "MLP2 的第二个线性层写成矩阵乘法。",
    "explain.two_stage.scores_formula": "对这个头的各列求 Σ_e q[e] · k[e] / √d_k",
    "explain.two_stage.router_summary": "分段 {s} 的路由槽 {r} 是查询；变量 {v} 在分段 {s} 上的词元是键（头 {h}）。",
    "explain.two_stage.receive_summary": (
        "变量 {v} 在分段 {s} 上的词元是查询；分段 {"
        "s} 的路由槽 {r}（它的缓冲行）是键（头 {h}）。"),
    "explain.two_stage.weights_formula": "exp(分数[j] − 最大值) / Σ exp(分数 − 最大值)",
    "explain.two_stage.router_weights_summary": "对这个分段的 {n} 个变量做 softmax。",
    "explain.two_stage.receive_weights_summary": "对这个词元所在分段的 {n} 个路由槽做 softmax。",
    "problem.two_stage_scoring": "Crossformer 的注意力都是 FullAttention：打分用 scaled_dot，缩放用默认的 1/√d_k",
    "problem.two_stage_mask": "Crossformer 的注意力不用遮蔽：不能有因果、有效长度或遮蔽部件",
    "problem.two_stage_alone": "两阶段层是单独的一层：请删掉 encoder_layer 和 distil 部件",
    "problem.two_stage_tokens": (
        "词元必须是 D 个变量 × seg 个分段，且键等于查询"
        "：L（{L}）= S（{S}）必须是 D（{D}）的倍数"),
    "problem.two_stage_width": (
        "这一层把输出加到查询上：输出宽度（{d_out}）必须等于 "
        "d_model（{d_model}），并能被 {H} 个头整除"),
    "problem.two_stage_shape": "形状应为 {expected}，实际为 {got}",
})


# ---- Auto-Correlation with L ≠ S and odd L (attention/kinds/autocorrelation.py) ---------------------
EN.update({
    "explain.autocorr.corr_odd_summary": (
        "L = {L} is odd: the library's irfft (no n) reads the L // 2 + 1 frequency bins back as a length-{n} "
        "curve, so lag {tau} of head {h1}, channel {e} is not one product per step but every q[t]·k[u] "
        "weighted by (1/{n}) Σ_m c_m cos(2π m (tau/{n} − (t − u)/{L}))."),
    "explain.autocorr.padded_value": "step {source} is one of the zeros the library appends (only {S} keys): 0",
    "explain.autocorr.not_computed": "not computed",
    "explain.autocorr.score_cut": "key {s} is beyond the L = {L} steps the library keeps (it cuts the keys to L)",
    "explain.autocorr.score_no_lag": (
        "lag {lag} is not on the curve: for odd L = {L} it has only {n} lags (irfft without n)"),
    "explain.autocorr.weight_padded": (
        "lag {lag} reads step {source}, one of the zeros appended to the values: exp = {e}, on no key"),
})
ZH.update({
    "explain.autocorr.corr_odd_summary": (
        "L = {L} 是奇数：库的 irfft（没有给 n）把 L // 2 + 1 个频率分量读回成长度为 {n} 的曲线，所以头 {h1}、"
        "通道 {e} 的滞后 {tau} 不是每步一个乘积，而是所有 q[t]·k[u] 乘以权重 (1/{n}) Σ_m c_m cos(2π m (tau/{n} − "
        "(t − u)/{L})) 之和。"),
    "explain.autocorr.padded_value": "第 {source} 步是库补上的零之一（只有 {S} 个键）：0",
    "explain.autocorr.not_computed": "未计算",
    "explain.autocorr.score_cut": "键 {s} 超出了库保留的 L = {L} 步（库把键截断到 L）",
    "explain.autocorr.score_no_lag": "滞后 {lag} 不在曲线上：L = {L} 为奇数时曲线只有 {n} 个滞后（irfft 没有给 n）",
    "explain.autocorr.weight_padded": "滞后 {lag} 读取第 {source} 步，那是补在值后面的零：exp = {e}，不落在任何键上",
})
