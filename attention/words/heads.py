"""Words of head interventions (knock out, patch, the importance map), attention flow and `main.py heads`."""
from __future__ import annotations

EN = {
    # ---- what a head's output becomes (attention/models/head_edits.py) ----------------------------------------
    "heads_how_zero": "{head} zeroed",
    "heads_how_mean": "{head} set to its mean over the positions",
    "heads_how_patch": "{head} patched from the second prompt",
    "heads_bad_head": "{got!r} is not LAYER.HEAD (both counted from 1, e.g. 2.3)",
    "heads_from_one": "{got!r}: layers and heads are counted from 1",
    "heads_layer_range": "layer {layer} of {got!r} is out of range: the model has layers 1 to {count}",
    "heads_head_range": "head {head} of {got!r} is out of range: each layer has heads 1 to {count}",
    "heads_bad_how": "how a head is knocked out: {how!r} is none of {hows}",
    "heads_mismatch": ("{model}: layer {layer} through the engine differs from the model's own attention by {diff}; "
                       "an edit of its heads would not be this model's, so none was made"),
    "heads_patch_missing": "patching a head needs a second prompt with the same number of tokens",
    "heads_patch_length": ("the second prompt has {m} tokens and the prompt {n}: patching a head needs the same "
                           "number of tokens"),
    # ---- main.py heads (attention/heads_cli.py) -------------------------------------------------------------------
    "cli.cmd.heads": "knock heads out or patch them, and see the next token move; the head-importance map",
    "cli.cmd.heads.about": (
        "Run MODEL (as for `run`: minilm, glassllm, smollm2, a model folder or a .gguf file) on TEXT and print the "
        "next-token top 10 before and after knocking out the heads --knock names (LAYER.HEAD, counted from 1: "
        "zeroed, or with --mean set to their mean over the positions; with --patch-from taken from TEXT2, which "
        "must have as many tokens). --map --out FILE.csv writes every head's change of the top token's "
        "log-probability when it alone is zeroed. An encoder (minilm) prints how its output states change."),
    "cli.opt.heads.knock": "a head to knock out, LAYER.HEAD counted from 1 (e.g. 2.3); repeat for several",
    "cli.opt.heads.mean": "knock the heads out with their mean over the prompt's positions instead of zero",
    "cli.opt.heads.patch_from": "a second prompt of the same number of tokens: the knocked heads take its outputs",
    "cli.opt.heads.map": "write the head-importance map (every head zeroed alone) into --out",
    "cli.opt.heads.out": "with --map: the CSV file (layer,head,delta_logprob)",
    "cli.opt.heads.json": 'print one JSON object {"before": [...], "after": [...]} instead of the text',
    "cli.opt.heads.lang": "language of the text (default: the terminal's)",
    "heads_cli_knock": "--knock {got}: {why}",
    "heads_cli_patch": "--patch-from: {why}",
    "heads_cli_map_no_out": "--map: give --out FILE.csv, the file to write the map into",
    "heads_cli_out_no_map": "--out: only --map writes a file; add --map",
    "heads_cli_mean_alone": "--mean: name the heads to knock out with --knock",
    "heads_cli_mean_patch": ("--mean with --patch-from: a knocked head takes either its mean or the second prompt's "
                             "output"),
    "heads_cli_encoder": "{option}: {model} is an encoder and has no next token; {option} needs a decoder",
    "heads_cli_out_bad": "--out {out}: cannot write the map there ({why})",
    "heads_cli_before": "next token before (top {n}):",
    "heads_cli_after": "after ({edits}), top {n}:",
    "heads_cli_unchanged": "no head knocked out: after is before",
    "heads_cli_chosen": ("{token!r} (the top token before): p {pb} → {pa} (Δp {dp}), log p {lb} → {la} "
                         "(Δ log p {dlp})"),
    "heads_cli_ld": "logit difference {a!r} − {b!r}: {before} → {after} (Δ {d})",
    "heads_cli_patch_all": ("each head patched alone from the second prompt: change of the logit difference "
                            "{a!r} − {b!r}, largest first:"),
    "heads_cli_wrote": "wrote the head-importance map ({n} heads, Δ log p of {token!r}) to {out}",
    "heads_cli_states": ("output states after ({edits}): cosine of the sentence embeddings before and after {cos}; "
                         "largest change at {token!r}: ‖Δh‖ / ‖h‖ = {rel}"),
    # ---- the window: the grid's context menu and the Heads panel (app/models_view/heads_panel.py) ---------------
    "heads_menu_zero": "Knock out this head (zero)",
    "heads_menu_mean": "Knock out this head (mean over the positions)",
    "heads_menu_patch": "Patch this head from the second prompt",
    "heads_menu_patch_tip": "Type a second prompt with the same number of tokens in the Heads panel first",
    "heads_menu_restore": "Put this head back",
    "heads_menu_clear": "Put every head back",
    "heads_menu_open": "Open this head",
    "heads_undo_edit": "{what}",
    "heads_undo_restore": "Put {head} back",
    "heads_undo_clear": "Put every head back",
    "heads_caption": "{title} · altered: {edits}",
    "heads_caption_many": "{title} · {n} heads altered",
    "heads_panel_hint": ("Right-click a cell of the grid to knock that head out (zero, or its mean over the prompt's "
                         "positions) or patch it from the second prompt; Edit ▸ Undo puts it back."),
    "heads_altered": "Altered model: {edits}",
    "heads_before_after": "Next token, before → after (top {n}):",
    "heads_top_row": "{rank}. {before}  →  {after}",
    "heads_top_item": "{token!r} {p}",
    "heads_chosen": ("Chosen token {token!r} (the top one before): p {pb} → {pa} (Δp {dp}); log p {lb} → {la} "
                     "(Δ log p {dlp})"),
    "heads_ld": "Logit difference {a!r} − {b!r} (the two prompts' answers): {before} → {after} (Δ {d})",
    "heads_changes": "What changed in the later layers (largest |Δ| of each layer's input and of its weights):",
    "heads_change_row": "layer {layer}: input {dx}, weights {dw}",
    "heads_change_none": "layer {layer}: unchanged",
    "heads_states": ("Output states: cosine of the sentence embeddings before and after {cos}; largest change at "
                     "{token!r}: ‖Δh‖ / ‖h‖ = {rel}"),
    "heads_second_label": "Second prompt (for patching; as many tokens as the prompt):",
    "heads_second_count": "{m} tokens; the prompt has {n}",
    "heads_second_empty": "no second prompt yet",
    "heads_map_button": "Head-importance map",
    "heads_map_tip": ("Knock out every head alone (zero) and draw how much the top next token's log-probability "
                      "changes, as a heatmap over the grid; runs in the background"),
    "heads_patch_map_button": "Patching map",
    "heads_patch_map_tip": ("Patch every head alone from the second prompt and draw how the logit difference "
                            "between the two prompts' answers changes"),
    "heads_map_cancel": "Cancel",
    "heads_map_running": "Knocking out every head in turn: {done} of {total}",
    "heads_map_cancelled": "The map was cancelled; the model is as it was",
    "heads_map_done": "Map of {n} heads in {s} s",
    "heads_map_knock_title": "Δ log p of {token!r} with each head zeroed alone (click a cell to open that head)",
    "heads_map_patch_title": ("Δ logit difference {a!r} − {b!r} with each head patched alone from the second prompt "
                              "(click a cell to open that head)"),
    "heads_map_hover": "Layer {layer}, head {head}: {v}",
    "heads_map_close": "Back to the attention grid",
    "heads_map_encoder": "The map measures the next token: it needs a decoder",
    "heads_next_locked": "Next token runs the model as it is: put the knocked-out heads back first (Edit ▸ Undo)",
    # ---- attention flow (attention/models/attention_flow.py, app/viewmodel/flow_view.py) -------------------------
    "flow_show": "Attention flow (max-flow, Abnar & Zuidema)",
    "flow_what": ("Attention flow (Abnar & Zuidema 2020): the maximum flow from input token {j} to position {i} "
                  "after layer {layer}, through a graph with one node per token and layer, each edge's capacity "
                  "the weight of ½·A + ½·I ({heads}); the row is then divided by its sum"),
    "flow_value": ("max-flow {name_j} → {name_i} = {v}; the row's flows sum to {total}, so the cell is {v} / {total} "
                   "= {share}"),
    "flow_cut": "The bottleneck (a minimum cut: these {n} edges carry the whole flow and are full):",
    "flow_edge": "layer {layer}: {src} → {dst}, capacity {c}",
    "flow_edge_rest": "+ {n} more edges of the cut, together {c}",
    "flow_hover": "Attention flow through layer {layer}: {query} ← {key}  {v}",
    "flow_busy": "Computing the attention flow...",
}

ZH = {
    "heads_how_zero": "{head} 置零",
    "heads_how_mean": "{head} 取其在各位置上的均值",
    "heads_how_patch": "{head} 取自第二个提示词",
    "heads_bad_head": "{got!r} 不是 层.头 的形式（都从 1 数起，例如 2.3）",
    "heads_from_one": "{got!r}：层和头都从 1 数起",
    "heads_layer_range": "{got!r} 的第 {layer} 层超出范围：模型的层是 1 到 {count}",
    "heads_head_range": "{got!r} 的头 {head} 超出范围：每层的头是 1 到 {count}",
    "heads_bad_how": "敲除头的方式 {how!r} 不是 {hows} 之一",
    "heads_mismatch": ("{model}：第 {layer} 层经引擎计算与模型自己的注意力相差 {diff}；编辑它的头就不再是这个模型，"
                       "所以没有编辑"),
    "heads_patch_missing": "修补一个头需要第二个提示词，且词元数相同",
    "heads_patch_length": "第二个提示词有 {m} 个词元，提示词有 {n} 个：修补一个头需要相同的词元数",
    "cli.cmd.heads": "敲除或修补注意力头，看下一个词元如何变化；头重要性图",
    "cli.cmd.heads.about": (
        "在 TEXT 上运行 MODEL（与 `run` 相同：minilm、glassllm、smollm2、模型文件夹或 .gguf 文件），打印敲除 --knock "
        "所指的头（层.头，从 1 数起：置零；加 --mean 则取其在各位置上的均值；加 --patch-from 则取自 TEXT2，"
        "词元数须相同）"
        "前后的下一个词元前 10 名。--map --out FILE.csv 写出每个头单独置零时最可能词元对数概率的变化。编码器（minilm）"
        "打印其输出状态的变化。"),
    "cli.opt.heads.knock": "要敲除的头，层.头，从 1 数起（例如 2.3）；可重复给出多个",
    "cli.opt.heads.mean": "用头在提示词各位置上的均值代替零来敲除",
    "cli.opt.heads.patch_from": "词元数相同的第二个提示词：被敲除的头取它的输出",
    "cli.opt.heads.map": "把头重要性图（每个头单独置零）写入 --out",
    "cli.opt.heads.out": "配合 --map：CSV 文件（layer,head,delta_logprob）",
    "cli.opt.heads.json": '打印一个 JSON 对象 {"before": [...], "after": [...]} 代替文字',
    "cli.opt.heads.lang": "文字的语言（默认：终端的语言）",
    "heads_cli_knock": "--knock {got} 有误：{why}",
    "heads_cli_patch": "--patch-from：{why}",
    "heads_cli_map_no_out": "--map：请用 --out FILE.csv 给出写入图的文件",
    "heads_cli_out_no_map": "--out：只有 --map 会写文件；请加上 --map",
    "heads_cli_mean_alone": "--mean：请用 --knock 指出要敲除的头",
    "heads_cli_mean_patch": "--mean 与 --patch-from：被敲除的头要么取均值，要么取第二个提示词的输出",
    "heads_cli_encoder": "{option}：{model} 是编码器，没有下一个词元；{option} 需要解码器",
    "heads_cli_out_bad": "--out {out}：无法在那里写入图（{why}）",
    "heads_cli_before": "之前的下一个词元（前 {n} 名）：",
    "heads_cli_after": "之后（{edits}），前 {n} 名：",
    "heads_cli_unchanged": "没有敲除任何头：之后与之前相同",
    "heads_cli_chosen": "{token!r}（之前最可能的词元）：p {pb} → {pa}（Δp {dp}），log p {lb} → {la}（Δ log p {dlp}）",
    "heads_cli_ld": "logit 差 {a!r} − {b!r}：{before} → {after}（Δ {d}）",
    "heads_cli_patch_all": "每个头单独取自第二个提示词：logit 差 {a!r} − {b!r} 的变化，从大到小：",
    "heads_cli_wrote": "已把头重要性图（{n} 个头，{token!r} 的 Δ log p）写入 {out}",
    "heads_cli_states": "（{edits}）之后的输出状态：前后句向量的余弦 {cos}；变化最大的是 {token!r}：‖Δh‖ / ‖h‖ = {rel}",
    "heads_menu_zero": "敲除这个头（置零）",
    "heads_menu_mean": "敲除这个头（取各位置均值）",
    "heads_menu_patch": "从第二个提示词修补这个头",
    "heads_menu_patch_tip": "先在“头”面板里输入词元数相同的第二个提示词",
    "heads_menu_restore": "恢复这个头",
    "heads_menu_clear": "恢复所有头",
    "heads_menu_open": "打开这个头",
    "heads_undo_edit": "{what}",
    "heads_undo_restore": "恢复 {head}",
    "heads_undo_clear": "恢复所有头",
    "heads_caption": "{title} · 已改动：{edits}",
    "heads_caption_many": "{title} · 已改动 {n} 个头",
    "heads_panel_hint": "右键点击网格中的一格可以敲除那个头（置零，或取它在提示词各位置上的均值），"
                        "或从第二个提示词修补它；"
                        "编辑 ▸ 撤销可以恢复。",
    "heads_altered": "已改动的模型：{edits}",
    "heads_before_after": "下一个词元，之前 → 之后（前 {n} 名）：",
    "heads_top_row": "{rank}. {before}  →  {after}",
    "heads_top_item": "{token!r} {p}",
    "heads_chosen": "所选词元 {token!r}（之前最可能的）：p {pb} → {pa}（Δp {dp}）；log p {lb} → {la}（Δ log p {dlp}）",
    "heads_ld": "logit 差 {a!r} − {b!r}（两个提示词的答案）：{before} → {after}（Δ {d}）",
    "heads_changes": "后面各层的变化（每层输入与权重的最大 |Δ|）：",
    "heads_change_row": "第 {layer} 层：输入 {dx}，权重 {dw}",
    "heads_change_none": "第 {layer} 层：未变",
    "heads_states": "输出状态：前后句向量的余弦 {cos}；变化最大的是 {token!r}：‖Δh‖ / ‖h‖ = {rel}",
    "heads_second_label": "第二个提示词（用于修补；词元数与提示词相同）：",
    "heads_second_count": "{m} 个词元；提示词有 {n} 个",
    "heads_second_empty": "还没有第二个提示词",
    "heads_map_button": "头重要性图",
    "heads_map_tip": "逐个单独敲除（置零）每个头，把最可能的下一个词元的对数概率变化画成覆盖网格的热图；在后台计算",
    "heads_patch_map_button": "修补图",
    "heads_patch_map_tip": "逐个单独从第二个提示词修补每个头，画出两个提示词答案之间 logit 差的变化",
    "heads_map_cancel": "取消",
    "heads_map_running": "正在逐个敲除每个头：{done} / {total}",
    "heads_map_cancelled": "已取消图的计算；模型保持原样",
    "heads_map_done": "{n} 个头的图用时 {s} 秒",
    "heads_map_knock_title": "每个头单独置零时 {token!r} 的 Δ log p（点击一格打开那个头）",
    "heads_map_patch_title": "每个头单独取自第二个提示词时 logit 差 {a!r} − {b!r} 的变化（点击一格打开那个头）",
    "heads_map_hover": "第 {layer} 层，头 {head}：{v}",
    "heads_map_close": "回到注意力网格",
    "heads_map_encoder": "这张图衡量的是下一个词元：需要解码器",
    "heads_next_locked": "“下一个词元”运行的是原样的模型：请先恢复被敲除的头（编辑 ▸ 撤销）",
    "flow_show": "注意力流（最大流，Abnar & Zuidema）",
    "flow_what": ("注意力流（Abnar & Zuidema 2020）：从输入词元 {j} 到第 {layer} 层之后位置 {i} 的最大流；"
                  "图中每个词元每层"
                  "一个节点，每条边的容量是 ½·A + ½·I 的权重（{heads}）；再把这一行除以它的和"),
    "flow_value": "最大流 {name_j} → {name_i} = {v}；这一行的流之和为 {total}，所以这一格是 {v} / {total} = {share}",
    "flow_cut": "瓶颈（一个最小割：这 {n} 条边承载全部的流，且都已满）：",
    "flow_edge": "第 {layer} 层：{src} → {dst}，容量 {c}",
    "flow_edge_rest": "+ 割中另外 {n} 条边，合计 {c}",
    "flow_hover": "到第 {layer} 层的注意力流：{query} ← {key}  {v}",
    "flow_busy": "正在计算注意力流……",
}
