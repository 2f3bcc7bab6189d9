"""Words of the Time-Series-Library family: token labels that are time (PatchTST patches,
iTransformer variates, dated steps), Pyraformer's pyramid links, Auto-Correlation's lag terms.

Not yet in words.TOPICS (the lead registers "time_series" there when merging).

Placeholders: p (a patch, counted from 1), start / end (first and last time step it covers, as
the series numbers them), pad_start (first padded step), last (the last real step, which the
padding repeats), i (a variable or time feature, counted from 1), scale / index (a pyramid node:
its scale, 1 = the input steps, and its place in it, both counted from 1), distance (steps within a scale),
lag, roll, t, source (time steps), weight / value / product (numbers, already written).
"""
from __future__ import annotations

EN: dict[str, str] = {
    "tsl.patch": "patch {p} · t {start}–{end}",
    "tsl.patch_padded": "patch {p} · t {start}–{end} ({pad_start}–{end} repeat t {last})",
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
}

ZH: dict[str, str] = {
    "tsl.patch": "第 {p} 块 · t {start}–{end}",
    "tsl.patch_padded": "第 {p} 块 · t {start}–{end}（{pad_start}–{end} 重复 t {last}）",
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
}
