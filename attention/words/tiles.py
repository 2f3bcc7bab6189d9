"""Words of the tiled view (FlashAttention's tiles and online softmax): attention/teaching/tiles.py,
attention/teaching/tiles_explain.py, `main.py tiles`, the window's tiles dialog (app/teaching/tiles_view.py).

Positions in sentences count from 1; formulas keep code's notation."""
from __future__ import annotations

EN = {
    # which kinds apply
    "tiles.not_applicable.prob_sparse": (
        "The tiled view does not apply to ProbSparse attention: its lazy query rows are never scored (they take "
        "the mean of the values, or their running sum under a causal mask), so those rows have no softmax to "
        "compute tile by tile. Choose scaled dot, dot or additive scoring to see the tiles."),
    "tiles.not_applicable.unknown": (
        "The tiled view does not know the scoring kind '{kind}': it tiles the kinds whose weights are one "
        "softmax per row of the masked scores (scaled dot, dot, additive)."),
    "tiles.not_applicable.steps": (
        "The tiled view does not apply here: with the steps {steps}, the weights are not one softmax per row "
        "of the masked scores, so the tiles' online softmax would not give this scenario's output."),
    "tiles.error.explain_args": (
        "--explain: expected TILE WHAT ROW [COL], whole numbers counted from 1 and WHAT one of m, l, O; got {got}"),
    "tiles.error.block": "{field}: expected a whole number of at least 1, got {got}",
    "tiles.error.too_many": (
        "{field} {got}: cuts {n} positions into {blocks} blocks; at most {most} are walked: give {field} {least} "
        "or more"),
    "tiles.error.overflow": (
        "the scores overflowed (batch item {b}, head {h}, query {l}, key {s} is not a finite number), so there is "
        "no softmax to compute tile by tile; use float64 or smaller numbers"),
    "tiles.error.batch": "--batch: batch items are counted from 1; this scenario has {n}, numbered 1 … {n}; got {got}",
    "tiles.error.head": "--head: heads are counted from 1; this scenario has {n}, numbered 1 … {n}; got {got}",
    # the walk, in words
    "tiles.header": (
        "Tiles of {br} query rows × {bc} keys: {nq} query block(s) × {nk} key block(s), in FlashAttention-2 "
        "order (each query block over every key block). Positions count from 1."),
    "tiles.tile": "batch item {b}, head {h}, tile {n} of {total}: query block {i} (queries {rows}) × key block {j} "
                  "(keys {cols})",
    "tiles.skipped": "skipped: every cell of this tile is masked, so it adds nothing (as kernels skip it)",
    "tiles.row_max": "running row maximum m",
    "tiles.row_sum": "running row sum ℓ",
    "tiles.correction": "correction exp(m_old − m_new)",
    "tiles.running_output": "running output O (not yet divided by ℓ)",
    "tiles.output": "Output O / ℓ of batch item {b}, head {h} (one row per query):",
    "tiles.diff": "Largest difference from the engine's weighted sum: {diff} ({dtype})",
    "tiles.equal_note": "Equal to the exact softmax up to the rounding of {dtype}: the L×S matrix was never stored.",
    "tiles.memory": (
        "Memory per batch item and head ({dtype}, {itemsize} bytes a number): the exact way holds the {L}×{S} "
        "score matrix, {exact}; the tiles hold one {br}×{bc} tile plus the running m, ℓ (one per query row of "
        "the block) and O ({br}×{dv}), {tiled}."),
    "tiles.memory_at": (
        "At L = S = {n} (the same blocks and d_v): the matrix {exact}, the tiles {tiled} ({ratio}× less)."),
    "tiles.skip_rule_finite": (
        "A masked cell holds the fill {fill}; a tile whose every cell is masked is skipped only where exp(fill − m) "
        "is exactly 0 in {dtype}, so skipping changes nothing. A fully masked row is never skipped: the engine "
        "gives it equal weights 1/S, and so do the tiles."),
    "tiles.skip_rule_inf": (
        "A masked cell holds −∞: exp(−∞) = 0, so a tile whose every cell is masked is skipped. A fully masked row "
        "keeps m = −∞ and ℓ = 0, and O / ℓ = 0 / 0 is NaN, as the engine's."),
    # explain one running value
    "tiles.explain.m.name": "running maximum m of query {r} after query block {i} × key block {j}",
    "tiles.explain.l.name": "running sum ℓ of query {r} after query block {i} × key block {j}",
    "tiles.explain.O.name": "running output O of query {r}, column {d}, after query block {i} × key block {j}",
    "tiles.explain.m.formula": "m_new = max(m_old, max_j s_j)",
    "tiles.explain.l.formula": "ℓ_new = exp(m_old − m_new) · ℓ_old + Σ_j exp(s_j − m_new)",
    "tiles.explain.O.formula": "O_new = exp(m_old − m_new) · O_old + Σ_j exp(s_j − m_new) · v_j",
    "tiles.explain.skipped": "This tile was skipped (every cell masked): the value is the one before it, {value}.",
    "tiles.explain.old.m": "before this tile: m_old = {m}",
    "tiles.explain.old.l": "before this tile: m_old = {m}, ℓ_old = {l}",
    "tiles.explain.old.O": "before this tile: m_old = {m}, O_old = {o}",
    "tiles.explain.key_exp": "key {s}: exp({diff}) = {p}",
    "tiles.explain.key_exp_masked": "key {s} (masked, the fill): exp({diff}) = {p}",
    "tiles.explain.first": "first tile of this row: nothing summed yet, m_old = −∞, ℓ_old = 0, O_old = 0",
    "tiles.explain.key_score": "key {s}: s = {score}",
    "tiles.explain.key_masked": "key {s}: masked, s = the fill {score}",
    "tiles.explain.m.summary": (
        "The largest score of query {r} over keys 1 … {last} is {value}; the exponentials below are taken "
        "relative to it, so none overflows."),
    "tiles.explain.correction": "correction exp(m_old − m_new) = exp({diff}) = {c}",
    "tiles.explain.guard": "every score so far is −∞: the kernel subtracts 0 instead of m (no NaN), so all terms are 0",
    "tiles.explain.l.summary": (
        "ℓ is the sum of exp(s − m) over keys 1 … {last}, every earlier term rescaled to the new maximum by the "
        "correction; at the end each weight is exp(s − m) / ℓ."),
    "tiles.explain.O.summary": (
        "O is the sum of exp(s − m) · v over keys 1 … {last}, not yet divided by ℓ; the output is O / ℓ "
        "once the last key block is done."),
    "tiles.explain.final": "After the last key block: O / ℓ = {O} / {l} = {out}; the engine's weighted sum: {exact}",
    "tiles.explain.bad_what": "what: expected one of m, l, O; got {got}",
    "tiles.explain.bad_index": "{field}: expected 0 … {last}, got {got}",
    # the by-hand worksheet (attention/teaching/tiles_worksheet.py)
    "tiles.sheet.title": "Worksheet: FlashAttention's tiles by hand (batch item {b}, head {h})",
    "tiles.sheet.key_title": "Answer key: FlashAttention's tiles (batch item {b}, head {h})",
    "tiles.sheet.intro": (
        "Walk the tiles in order. For each query row of a tile: the row's largest score in the tile, the new "
        "running maximum m, the correction exp(m_old − m_new), the running sum ℓ and the running output O "
        "(not yet divided). Start every query block from m = −∞, ℓ = 0, O = 0. Grey scores are masked (they "
        "hold the fill)."),
    "tiles.sheet.scores": "Masked scores (thick lines: tile edges)",
    "tiles.sheet.values": "Values v",
    "tiles.sheet.output": "Output O / ℓ after the last tile",
    "tiles.sheet.query": "query {r}",
    "tiles.sheet.key": "key {s}",
    "tiles.sheet.block_max": "max of the tile's row",
    "tiles.cli.written": "wrote {paths}",
    "tiles.error.out_needed": "--blank: give the folder to write the worksheet into with --out DIR",
    "tiles.error.write": "--out: cannot write {path}: {why}",
    "tiles.lesson": (
        "Why tiles? The exact way computes all L×S scores, keeps them, takes each row's maximum, exponentiates "
        "and divides: the whole L×S matrix sits in memory. FlashAttention reads one Br×Bc tile of scores at a "
        "time and keeps, per query, three running values: m, the largest score seen so far; ℓ, the sum of "
        "exp(s − m) over the keys seen so far; and O, the same sum with each term multiplied by its value "
        "vector. When a tile brings a larger maximum, everything summed so far was measured against the old "
        "one: multiplying it by exp(m_old − m_new) restates it against the new maximum, exactly. After the "
        "last key block, O / ℓ is the softmax-weighted sum of the values: the exact result up to rounding, "
        "with only one tile and the running values held at any time."),
    "tiles.view.worksheet": "Worksheet…",
    "tiles.view.worksheet_title": "Folder for the tiles worksheet and its answer key",
    # the window's dialog
    "tiles.view.menu": "FlashAttention tiles…",
    "tiles.view.menu_tip": "Walk the scores tile by tile with FlashAttention's online softmax, and prove it exact",
    "tiles.view.title": "FlashAttention tiles",
    "tiles.view.block_q": "Query block Br",
    "tiles.view.block_k": "Key block Bc",
    "tiles.view.batch": "Batch item",
    "tiles.view.head": "Head",
    "tiles.view.first": "First",
    "tiles.view.back": "◀ Back",
    "tiles.view.forward": "Forward ▶",
    "tiles.view.last": "Last",
    "tiles.view.play": "Play",
    "tiles.view.pause": "Pause",
    "tiles.view.speed": "Tiles per second",
    "tiles.view.scores": "Scores, tile by tile (grey: not reached yet; hatched: skipped)",
    "tiles.view.start": "Before the first tile: m = −∞, ℓ = 0, O = 0 for every query. Step forward (→) to begin.",
    "tiles.view.proof": "Proof: O / ℓ beside the engine's weighted sum",
    "tiles.view.click": "Click a value of m, ℓ or O to see its arithmetic.",
    "tiles.view.no_trace": "Nothing to tile yet: the scenario has not been computed.",
    "tiles.view.tiled": "O / ℓ (tiles)",
    "tiles.view.exact": "engine",
    "tiles.view.slides": "Slides (F5)",
    "tiles.view.quiz": "Quiz",
    "tiles.view.question": "After this tile, what is {what} of query {r}?",
    "tiles.view.check": "Check",
    "tiles.view.right": "Right: {what} = {value}.",
    "tiles.view.wrong": "Not quite: {what} = {value} (you wrote {got}). The arithmetic is below.",
    "tiles.view.not_number": "'{text}' is not a number: type one such as 1.25, or -inf",
}

ZH = {
    "tiles.not_applicable.prob_sparse": (
        "分块视图不适用于 ProbSparse 注意力：它的惰性查询行从不计算分数（取值向量的平均，因果掩码下取其累加和），"
        "这些行没有可以逐块计算的 softmax。要看分块，请选择缩放点积、点积或加性评分。"),
    "tiles.not_applicable.unknown": (
        "分块视图不认识评分方式 '{kind}'：它只对权重是掩码后分数逐行 softmax 的方式分块（缩放点积、点积、加性）。"),
    "tiles.not_applicable.steps": (
        "分块视图在这里不适用：有了步骤 {steps}，权重不再是掩码后分数逐行的 softmax，"
        "分块的在线 softmax 得不到这个场景的输出。"),
    "tiles.error.explain_args": (
        "--explain：应为 TILE WHAT ROW [COL]，整数从 1 数起，WHAT 为 m、l、O 之一；得到的是 {got}"),
    "tiles.error.block": "{field}：应为不小于 1 的整数，得到的是 {got}",
    "tiles.error.too_many": (
        "{field} {got}：把 {n} 个位置切成 {blocks} 块；最多只走 {most} 块：请给 {field} {least} 或更大"),
    "tiles.error.overflow": (
        "分数溢出了（批次第 {b} 项、第 {h} 头、查询 {l}、键 {s} 不是有限数），没有可以逐块计算的 softmax；"
        "请用 float64 或更小的数"),
    "tiles.error.batch": "--batch：批次项从 1 数起；这个场景有 {n} 项，编号 1 … {n}；得到的是 {got}",
    "tiles.error.head": "--head：头从 1 数起；这个场景有 {n} 个头，编号 1 … {n}；得到的是 {got}",
    "tiles.header": (
        "分块：每块 {br} 个查询行 × {bc} 个键；共 {nq} 个查询块 × {nk} 个键块，按 FlashAttention-2 的顺序"
        "（每个查询块依次经过所有键块）。位置从 1 数起。"),
    "tiles.tile": (
        "批次第 {b} 项，第 {h} 头，第 {n} 块（共 {total} 块）：查询块 {i}（查询 {rows}）× 键块 {j}（键 {cols}）"),
    "tiles.skipped": "跳过：这一块的每个格子都被掩码，它什么也不增加（内核也跳过它）",
    "tiles.row_max": "行的当前最大值 m",
    "tiles.row_sum": "行的当前和 ℓ",
    "tiles.correction": "修正因子 exp(m_旧 − m_新)",
    "tiles.running_output": "当前输出 O（尚未除以 ℓ）",
    "tiles.output": "批次第 {b} 项、第 {h} 头的输出 O / ℓ（每行一个查询）：",
    "tiles.diff": "与引擎加权和的最大差：{diff}（{dtype}）",
    "tiles.equal_note": "与精确的 softmax 相等，只差 {dtype} 的舍入：L×S 矩阵从未被存下。",
    "tiles.memory": (
        "每个批次项、每个头的内存（{dtype}，每个数 {itemsize} 字节）：精确算法要存 {L}×{S} 的分数矩阵，{exact}；"
        "分块只存一个 {br}×{bc} 的块，加上当前的 m、ℓ（块中每个查询行一个）和 O（{br}×{dv}），{tiled}。"),
    "tiles.memory_at": "在 L = S = {n} 时（块和 d_v 不变）：矩阵 {exact}，分块 {tiled}（少 {ratio} 倍）。",
    "tiles.skip_rule_finite": (
        "被掩码的格子存的是填充值 {fill}；只有当 exp(填充值 − m) 在 {dtype} 中恰好为 0 时，全被掩码的块才被跳过，"
        "所以跳过不改变任何结果。整行都被掩码的行从不跳过：引擎给它平均权重 1/S，分块也一样。"),
    "tiles.skip_rule_inf": (
        "被掩码的格子存的是 −∞：exp(−∞) = 0，所以全被掩码的块被跳过。整行被掩码的行保持 m = −∞、ℓ = 0，"
        "O / ℓ = 0 / 0 为 NaN，与引擎相同。"),
    "tiles.explain.m.name": "查询块 {i} × 键块 {j} 之后，查询 {r} 的当前最大值 m",
    "tiles.explain.l.name": "查询块 {i} × 键块 {j} 之后，查询 {r} 的当前和 ℓ",
    "tiles.explain.O.name": "查询块 {i} × 键块 {j} 之后，查询 {r} 第 {d} 列的当前输出 O",
    "tiles.explain.m.formula": "m_新 = max(m_旧, max_j s_j)",
    "tiles.explain.l.formula": "ℓ_新 = exp(m_旧 − m_新) · ℓ_旧 + Σ_j exp(s_j − m_新)",
    "tiles.explain.O.formula": "O_新 = exp(m_旧 − m_新) · O_旧 + Σ_j exp(s_j − m_新) · v_j",
    "tiles.explain.skipped": "这一块被跳过（每个格子都被掩码）：值与之前相同，{value}。",
    "tiles.explain.old.m": "这一块之前：m_旧 = {m}",
    "tiles.explain.old.l": "这一块之前：m_旧 = {m}，ℓ_旧 = {l}",
    "tiles.explain.old.O": "这一块之前：m_旧 = {m}，O_旧 = {o}",
    "tiles.explain.key_exp": "键 {s}：exp({diff}) = {p}",
    "tiles.explain.key_exp_masked": "键 {s}（被掩码，填充值）：exp({diff}) = {p}",
    "tiles.explain.first": "这一行的第一块：还没有累加任何数，m_旧 = −∞，ℓ_旧 = 0，O_旧 = 0",
    "tiles.explain.key_score": "键 {s}：s = {score}",
    "tiles.explain.key_masked": "键 {s}：被掩码，s = 填充值 {score}",
    "tiles.explain.m.summary": (
        "查询 {r} 在键 1 … {last} 上的最大分数是 {value}；下面的指数都相对它来取，所以不会溢出。"),
    "tiles.explain.correction": "修正因子 exp(m_旧 − m_新) = exp({diff}) = {c}",
    "tiles.explain.guard": "到目前为止所有分数都是 −∞：内核减去 0 而不是 m（不产生 NaN），所以每一项都是 0",
    "tiles.explain.l.summary": (
        "ℓ 是键 1 … {last} 上 exp(s − m) 的和，之前的每一项都用修正因子换算到当前的最大值；"
        "最后每个权重是 exp(s − m) / ℓ。"),
    "tiles.explain.O.summary": "O 是键 1 … {last} 上 exp(s − m) · v 的和，尚未除以 ℓ；最后一个键块之后输出为 O / ℓ。",
    "tiles.explain.final": "最后一个键块之后：O / ℓ = {O} / {l} = {out}；引擎的加权和：{exact}",
    "tiles.explain.bad_what": "what：应为 m、l、O 之一；得到的是 {got}",
    "tiles.explain.bad_index": "{field}：应为 0 … {last}，得到的是 {got}",
    "tiles.sheet.title": "练习纸：手算 FlashAttention 的分块（批次第 {b} 项，第 {h} 头）",
    "tiles.sheet.key_title": "答案：FlashAttention 的分块（批次第 {b} 项，第 {h} 头）",
    "tiles.sheet.intro": (
        "按顺序走过各块。对一块中的每个查询行：该行在块内的最大分数、新的当前最大值 m、修正因子 exp(m_旧 − m_新)、"
        "当前和 ℓ 以及当前输出 O（尚未相除）。每个查询块都从 m = −∞、ℓ = 0、O = 0 开始。灰色分数是被掩码的"
        "（存的是填充值）。"),
    "tiles.sheet.scores": "掩码后的分数（粗线：块的边界）",
    "tiles.sheet.values": "值向量 v",
    "tiles.sheet.output": "最后一块之后的输出 O / ℓ",
    "tiles.sheet.query": "查询 {r}",
    "tiles.sheet.key": "键 {s}",
    "tiles.sheet.block_max": "块内该行的最大值",
    "tiles.cli.written": "已写入 {paths}",
    "tiles.error.out_needed": "--blank：请用 --out DIR 给出写入练习纸的文件夹",
    "tiles.error.write": "--out：无法写入 {path}：{why}",
    "tiles.lesson": (
        "为什么要分块？精确算法先算出全部 L×S 个分数并存下，再取每行的最大值、求指数、相除：整个 L×S 矩阵都在内存里。"
        "FlashAttention 每次只读一个 Br×Bc 的分数块，并为每个查询保留三个当前值：m，目前见到的最大分数；ℓ，"
        "目前见到的键上 exp(s − m) 的和；O，同样的和但每一项乘以对应的值向量。当新的一块带来更大的最大值时，"
        "之前累加的都是相对旧的最大值算的：乘以 exp(m_旧 − m_新) 就把它们精确地换算到新的最大值。"
        "最后一个键块之后，O / ℓ 就是按 softmax 加权的值向量之和：与精确结果只差舍入，"
        "而任何时候只存一个块和这些当前值。"),
    "tiles.view.worksheet": "练习纸…",
    "tiles.view.worksheet_title": "分块练习纸及答案的保存文件夹",
    "tiles.view.menu": "FlashAttention 分块…",
    "tiles.view.menu_tip": "用 FlashAttention 的在线 softmax 逐块走过分数，并证明结果精确",
    "tiles.view.title": "FlashAttention 分块",
    "tiles.view.block_q": "查询块 Br",
    "tiles.view.block_k": "键块 Bc",
    "tiles.view.batch": "批次项",
    "tiles.view.head": "头",
    "tiles.view.first": "开头",
    "tiles.view.back": "◀ 后退",
    "tiles.view.forward": "前进 ▶",
    "tiles.view.last": "结尾",
    "tiles.view.play": "播放",
    "tiles.view.pause": "暂停",
    "tiles.view.speed": "每秒块数",
    "tiles.view.scores": "分数，逐块（灰色：尚未到达；斜线：已跳过）",
    "tiles.view.start": "第一块之前：每个查询的 m = −∞，ℓ = 0，O = 0。按前进（→）开始。",
    "tiles.view.proof": "证明：O / ℓ 与引擎的加权和并排",
    "tiles.view.click": "点击 m、ℓ 或 O 的一个值，查看它的算式。",
    "tiles.view.no_trace": "还没有可分块的内容：场景尚未计算。",
    "tiles.view.tiled": "O / ℓ（分块）",
    "tiles.view.exact": "引擎",
    "tiles.view.slides": "幻灯片（F5）",
    "tiles.view.quiz": "测验",
    "tiles.view.question": "这一块之后，查询 {r} 的 {what} 是多少？",
    "tiles.view.check": "检查",
    "tiles.view.right": "正确：{what} = {value}。",
    "tiles.view.wrong": "不对：{what} = {value}（你写的是 {got}）。算式见下方。",
    "tiles.view.not_number": "'{text}' 不是数：请输入像 1.25 或 -inf 这样的数",
}
