"""The words of colour scales and of a pane's scale lock (app/panes/scale_lock.py).

Placeholders: n (how many numbers), lo / hi (the ends of the scale, written by attention.datamodel.numbers).
"""
from __future__ import annotations

EN: dict[str, str] = {
    "pane.lock_scale": "Lock colour scale",
    "pane.unlock_scale": "Unlock colour scale",
    "pane.scale_button": "Lock scale",
    "pane.scale_locked": "Scale locked",
    "pane.scale_locked_outside": "Scale locked · {n} outside",
    "pane.scale_free_tip": "The colour scale fits these numbers again after every edit. Lock it to keep every "
                           "colour's meaning while you edit (right-click the pane, or View ▸ Lock all colour scales).",
    "pane.scale_locked_tip": "Colour scale locked at {lo} … {hi}: a colour means the same number after every edit. "
                             "Click to let the scale fit the numbers again.",
    "pane.scale_outside_tip": "{n} numbers lie outside the locked scale {lo} … {hi}: they are drawn in the colour "
                              "of its nearer end (≤ {lo}, ≥ {hi} on the colour bar).",
}

ZH: dict[str, str] = {
    "pane.lock_scale": "锁定颜色刻度",
    "pane.unlock_scale": "解除颜色刻度锁定",
    "pane.scale_button": "锁定色标",
    "pane.scale_locked": "色标已锁定",
    "pane.scale_locked_outside": "色标已锁定 · {n} 个超出",
    "pane.scale_free_tip": "每次编辑后颜色刻度都会重新适配这些数字。锁定后，编辑时每种颜色的含义保持不变"
                           "（右键单击面板，或 视图 ▸ 锁定全部颜色刻度）。",
    "pane.scale_locked_tip": "颜色刻度已锁定在 {lo} … {hi}：每次编辑后同一颜色代表同一个数。单击可让刻度重新适配数字。",
    "pane.scale_outside_tip": "有 {n} 个数超出锁定的刻度 {lo} … {hi}：它们以较近一端的颜色绘制（颜色条上的 ≤ {lo}、"
                              "≥ {hi}）。",
}
