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
attention.numbers.rounded), n (a count), k (taps of a convolution).
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
    "step.scores.formula.ds_attention": "分数[b,h,l,s] = scale × ((q_l · k_s) × τ[b] + Δ[b,s])",
    "lesson.extra.destationary": (
        "Non-stationary Transformer 在注意力之前把每条序列归一化，这会让所有序列看起来都差不多；"
        "DSAttention 把丢掉的尺度和水平补回来：τ 乘以一条序列的点积（τ > 1 让权重更尖锐，τ < 1 让权重更平坦），"
        "Δ 给某个键的分数在所有查询上加同样的量。"),
    "lesson.scores.ds_attention": (
        "softmax 看到的是 scale × (q·k × τ + Δ)：Time-Series-Library 在加上 Δ 之后才缩放，"
        "所以每个键的 Δ 实际起作用的是 scale × Δ（{scale} × Δ），而不是 Δ。"),
    "lesson.scores.ds_attention_delta": (
        "因为 Δ 对每个查询都一样，它只在键之间挪"
        "动权重：Δ 更大的键在每一行都得到更多权重。"),
    "explain.destationary.formula": (
        "去平稳[{b},{h},{l},{s}] = (Σ_e q[{b},{l},{h},e"
        "] · k[{b},{s},{h},e]) × τ[{b}] + Δ[{b},{s}]"),
    "explain.destationary.summary": "点积乘以序列 {b1} 的 τ = {tau}，再加上键 {s} 的 Δ = {delta}：库中缩放之前的分数。",
    "explain.ds_scores.formula": "分数[{b},{h},{l},{s}] = scale × 去平稳[{b},{h},{l},{s}]",
    "explain.ds_scores.summary": (
        "缩放 {scale} 乘的是整个去平稳分数：来自 τ·q·k 的 {scaled_raw}（q·k = {raw}，τ = {tau}）"
        "加上来自 Δ = {delta} 的 {scaled_delta}（是 scale × Δ，而不是 Δ）。"),
    "problem.destationary_scoring": "τ 和 Δ 只由打分方式 {scoring} 读取；请选择它或删除这个部件",
    "problem.destationary_shape": "形状应为 {expected}，实际为 {got}",
    "problem.destationary_tau": "τ 必须为正（模型计算的是 exp(...)），实际为 {got}",
    "param.ds_attention.tau": "τ（每条序列）",
    "param.ds_attention.delta": "Δ（每个键）",
}
