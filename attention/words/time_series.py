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
}
