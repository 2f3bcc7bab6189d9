"""Words around positions and indices (attention.datamodel.numbers.position: a person reads positions
counted from 1; code shows its index from 0; where both appear side by side, both are named).

Placeholders: index (the code's index, from 0), where (a position phrase such as "key 3"),
b / r / c / l / i (positions, counted from 1).
"""
from __future__ import annotations

EN: dict[str, str] = {
    "pane.index_value": "index {index} → {where}",
    # a problem's cell path (queries[0][2][1]) followed by the positions a person reads
    "position.batch": "batch item {b}",
    "position.head": "head {h}",
    "position.row": "row {r}",
    "position.column": "column {c}",
    "position.query": "query {l}",
    "position.token": "token {i}",
    "position.entry": "entry {i}",
    "position.sep": ", ",
    "position.suffix": " ({where})",
}

ZH: dict[str, str] = {
    "pane.index_value": "索引 {index} → {where}",
    "position.batch": "批次第 {b} 项",
    "position.head": "第 {h} 头",
    "position.row": "第 {r} 行",
    "position.column": "第 {c} 列",
    "position.query": "查询 {l}",
    "position.token": "第 {i} 个词元",
    "position.entry": "第 {i} 项",
    "position.sep": "，",
    "position.suffix": "（{where}）",
}
