"""The by-hand layout (app/viewmodel/by_hand.py): the names of its blocks and its one-line guide."""
from __future__ import annotations

EN: dict[str, str] = {
    "byhand.block.q": "Q, {head}",
    "byhand.block.kt": "Kᵀ, {head}",
    "byhand.block.v": "V, {head}",
    "byhand.heading": "By hand: {head} of {n}",
    "byhand.how": (
        "Each score sits where its row of Q and its column of Kᵀ meet; "
        "each output where its row of weights and its column of V meet."
    ),
    "byhand.softmax": "softmax by row",
    "byhand.too_big": (
        "The by-hand layout shows matrices of at most {max} rows and columns; this scenario has "
        "L = {L}, S = {S}, d_k = {dk}, d_v = {dv}. Use fewer tokens or features to see it."
    ),
    "byhand.nothing": "Nothing computed yet.",
}

ZH: dict[str, str] = {
    "byhand.block.q": "Q，{head}",
    "byhand.block.kt": "Kᵀ，{head}",
    "byhand.block.v": "V，{head}",
    "byhand.heading": "手算布局：{head}（共 {n} 个头）",
    "byhand.how": "每个分数位于 Q 的行与 Kᵀ 的列相交处；每个输出位于权重的行与 V 的列相交处。",
    "byhand.softmax": "按行 softmax",
    "byhand.too_big": (
        "手算布局最多显示 {max} 行 {max} 列的矩阵；本场景为 L = {L}，S = {S}，d_k = {dk}，d_v = {dv}。"
        "减少词元或特征数即可查看。"
    ),
    "byhand.nothing": "尚未计算。",
}
