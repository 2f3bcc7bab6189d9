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
    "run_unknown_model": "MODEL: {model!r} is neither minilm, glassllm, smollm2, a model folder nor a .gguf file",
    "run_text2_decoder": "--text2: a decoder reads one text; {model} takes no second one",
    "cache_check": "cached decoding vs full recomputation: largest difference {diff}",
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
    "run_unknown_model": "MODEL：{model!r} 既不是 minilm、glassllm、smollm2，也不是模型文件夹或 .gguf 文件",
    "run_text2_decoder": "--text2：解码器只读一段文字；{model} 不接受第二段",
    "cache_check": "缓存解码与完整重算相比：最大差 {diff}",
}
