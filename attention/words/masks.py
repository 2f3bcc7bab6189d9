"""The words of the sliding-window and drawn mask rules (attention/kinds/window.py, drawn.py) and of
shared key/value heads shown (grouped-query / multi-query attention), English and Chinese."""

EN = {
    "field.masks.window.size.label": "Window W",
    "field.masks.window.size.help": ("Sliding window (Mistral, Gemma 2): query l sees only the last W keys, "
                                     "l − W < s ≤ l; keys W or more positions back are masked."),
    "field.masks.drawn.mask.label": "Drawn mask",
    "field.masks.drawn.mask.help": ("A mask painted cell by cell, one (L, S) matrix per batch item "
                                    "(True = masked)."),
    "explain.mask.window_far": "window of {W}: key {s} lies {d} positions before query {l} ({W} or more)",
    "explain.mask.window_near": "window of {W}: key {s} is not {W} or more positions before query {l}",
    "explain.mask.drawn": "drawn: key {s} is painted hidden from query {l} of batch item {b}",
    "explain.mask.not_drawn": "drawn: key {s} is not painted for query {l} of batch item {b}",
    "lesson.extra.mask.window": (
        "A sliding window (Mistral, Gemma 2) also hides every key W or more positions before the query: query l "
        "sees at most the W keys l − W + 1 … l, so the cost per query stays the same however long the text grows."),
    "lesson.extra.mask.drawn": (
        "The cells painted by hand are masked too: any pattern at all, to see what the softmax does with the keys "
        "that are left."),
    "field.n_kv_heads": "Key/value heads H_kv",
    "field.n_kv_heads.help": ("Grouped-query attention (Llama, Mistral, Qwen): fewer key/value heads than query "
                              "heads; query head h reads key/value head h // (H / H_kv). 1 = multi-query; "
                              "auto = one per query head."),
    "field.n_kv_heads.undo": "Change key/value heads to {value}",
    "byhand.block.kt_shared": "Kᵀ, K/V head {j} (query head {h} reads it)",
    "byhand.block.v_shared": "V, K/V head {j} (query head {h} reads it)",
    "maskpaint.menu": "Mask editor…",
    "maskpaint.menu_tip": "Set a sliding window, and paint a mask with the mouse, one batch item at a time",
    "maskpaint.title": "Mask editor",
    "maskpaint.no_window": "none",
    "maskpaint.undo_window": "Set the sliding window to {W}",
    "maskpaint.undo_no_window": "Remove the sliding window",
    "maskpaint.batch": "Batch item",
    "maskpaint.erase": "Erase",
    "maskpaint.clear": "Clear this item",
    "maskpaint.hint": ("Rows are queries, columns keys; dark = masked. Press and drag to paint; the right "
                       "button, Shift or Erase erases. Each stroke is one undo step."),
    "maskpaint.undo_paint": "Paint {n} mask cells (batch item {b})",
    "maskpaint.undo_erase": "Erase {n} mask cells (batch item {b})",
    "maskpaint.undo_clear": "Clear the drawn mask of batch item {b}",
    "pane.kv_head": "K/V head {j} · query heads {first}–{last}",
    "pane.head_reads_kv": "Head {n} · K/V {j}",
    "pane.kv_head_short": "K/V head {j}",
    "explain.scores.kv_group": (" Query head {h1} reads key/value head {j1}: h // (H / H_kv) = {h} // ({H} / {kv}) "
                                "= {j}; the group of query heads {first}–{last} shares it."),
    "problem.drawn_shape": "the drawn mask must be (batch, L, S) = {want}, got {got}",
    "problem.drawn_cells": "the drawn mask's cells must be 0 or 1 (true or false)",
}

ZH = {
    "field.masks.window.size.label": "窗口 W",
    "field.masks.window.size.help": ("滑动窗口（Mistral、Gemma 2）：查询 l 只看到最后 W 个键，l − W < s ≤ l；"
                                     "向前 W 个位置或更远的键被掩蔽。"),
    "field.masks.drawn.mask.label": "手绘掩码",
    "field.masks.drawn.mask.help": "逐格绘制的掩码，每个批次一个 (L, S) 矩阵（True 表示被掩蔽）。",
    "explain.mask.window_far": "窗口 {W}：键 {s} 在查询 {l} 之前 {d} 个位置（达到 {W} 个或更远）",
    "explain.mask.window_near": "窗口 {W}：键 {s} 在查询 {l} 之前不到 {W} 个位置",
    "explain.mask.drawn": "手绘：键 {s} 被画为对批次 {b} 的查询 {l} 隐藏",
    "explain.mask.not_drawn": "手绘：键 {s} 未对批次 {b} 的查询 {l} 绘制",
    "lesson.extra.mask.window": (
        "滑动窗口（Mistral、Gemma 2）还会隐藏查询之前 W 个位置或更远的每个键：查询 l 最多看到键 l − W + 1 … l，"
        "因此无论文本多长，每个查询的计算量都不变。"),
    "lesson.extra.mask.drawn": "手工绘制的格子也被掩蔽：任何图案都可以，用来观察 softmax 如何处理剩下的键。",
    "field.n_kv_heads": "键/值头数 H_kv",
    "field.n_kv_heads.help": ("分组查询注意力（Llama、Mistral、Qwen）：键/值头比查询头少；查询头 h 读取键/值头 "
                              "h // (H / H_kv)。1 表示多查询注意力；自动表示每个查询头一个。"),
    "field.n_kv_heads.undo": "将键/值头数改为 {value}",
    "byhand.block.kt_shared": "Kᵀ，键/值头 {j}（查询头 {h} 读取它）",
    "byhand.block.v_shared": "V，键/值头 {j}（查询头 {h} 读取它）",
    "maskpaint.menu": "掩码编辑器…",
    "maskpaint.menu_tip": "设置滑动窗口，并用鼠标绘制掩码，每次一个批次",
    "maskpaint.title": "掩码编辑器",
    "maskpaint.no_window": "无",
    "maskpaint.undo_window": "把滑动窗口设为 {W}",
    "maskpaint.undo_no_window": "去掉滑动窗口",
    "maskpaint.batch": "批次",
    "maskpaint.erase": "擦除",
    "maskpaint.clear": "清除此批次",
    "maskpaint.hint": ("行是查询，列是键；深色表示被掩蔽。按下并拖动来绘制；右键、Shift 或“擦除”用于擦除。"
                       "每一笔是一个撤销步骤。"),
    "maskpaint.undo_paint": "绘制 {n} 个掩码格（批次 {b}）",
    "maskpaint.undo_erase": "擦除 {n} 个掩码格（批次 {b}）",
    "maskpaint.undo_clear": "清除批次 {b} 的手绘掩码",
    "pane.kv_head": "键/值头 {j} · 查询头 {first}–{last}",
    "pane.head_reads_kv": "头 {n} · 键/值 {j}",
    "pane.kv_head_short": "键/值头 {j}",
    "explain.scores.kv_group": ("查询头 {h1} 读取键/值头 {j1}：h // (H / H_kv) = {h} // ({H} / {kv}) = {j}；"
                                "查询头 {first}–{last} 这一组共享它。"),
    "problem.drawn_shape": "手绘掩码的形状必须是 (批次, L, S) = {want}，实际是 {got}",
    "problem.drawn_cells": "手绘掩码的格子必须是 0 或 1（真或假）",
}
