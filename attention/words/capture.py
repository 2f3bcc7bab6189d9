"""Words of attention.capture: the titles and notes it writes into recorded scenarios, and its
refusals (a researcher's script reads them, in the current language)."""
from __future__ import annotations

EN: dict[str, str] = {
    "capture.title": "{path} (call {call})",
    "capture.notes": ("Recorded by attention.capture from {family} during the model's own forward pass: "
                      "the inputs are what the layer received in call {call}, the weights are its own. "
                      "Edit any number to see what the layer would have done instead."),
    "capture.family.tsl_full": "a Time-Series-Library AttentionLayer with FullAttention",
    "capture.family.tsl_prob": "a Time-Series-Library AttentionLayer with ProbAttention (its key sample is recorded)",
    "capture.family.mha": "torch.nn.MultiheadAttention",
    "capture.family.bert": "a BERT self-attention",
    "capture.family.hf": "a Hugging Face Llama-family attention (RoPE, shared key/value heads, its kinds)",
    "capture.hf_config": "{path}: its config cannot be reproduced: {reason}",
    "capture.hf_positions": ("{path}: call {call} gave position_ids that are not one run per row from the same "
                             "start; capture one batch item at a time (items=[b])"),
    "capture.unknown_name": "{path}: no module of that name in the model (attention modules found: {found})",
    "capture.unsupported": ("{path}: {kind} is not an attention module capture can record; name a "
                            "Time-Series-Library AttentionLayer, an nn.MultiheadAttention or a BERT self-attention"),
    "capture.inner": ("{path}: the inner {inner} cannot be reproduced exactly (supported: FullAttention, "
                      "ProbAttention, DSAttention; Autoformer's AutoCorrelationLayer)"),
    "capture.inner_name": ("{path}: this is the inner attention of an AttentionLayer; name the layer that holds "
                           "it ({parent}) so that its projections are recorded too"),
    "capture.mix_full": ("{path}: Informer2020's AttentionLayer(mix=True) with FullAttention mixes heads and "
                         "positions, which the engine reproduces only for ProbSparse"),
    "capture.bias_kv": ("{path}: nn.MultiheadAttention with add_bias_kv or add_zero_attn appends a key after the "
                        "projection, which a scenario cannot hold"),
    "capture.dropout": ("{path}: call {call} ran in training mode with attention dropout p = {p}, so its weights "
                        "were randomly zeroed; call model.eval() before the forward pass"),
    "capture.mask": ("{path}: call {call}: the {which} cannot be expressed as causal and/or valid lengths "
                     "(only a causal triangle and padding at the end of each row can); {detail}"),
    "capture.mask_values": "float masks may hold only 0 (keep) and -inf or values <= -1e9 (hide)",
    "capture.mask_heads": "the mask differs between heads",
    "capture.mask_shape": "its shape {shape} does not fit batch {B}, {L} queries and {S} keys",
    "capture.mask_pattern": "a hidden key is followed by a visible one",
    "capture.head_mask": "{path}: call {call} was given a head_mask, which scales the weights after the softmax",
    "capture.cache": "{path}: call {call} used a key/value cache (generation); capture a plain forward pass",
    "capture.relative": "{path}: position_embedding_type {kind} adds a relative-position bias the engine does not have",
    "capture.items": "items: batch item {item} does not exist in call {call} of {path} (batch size {B})",
    "capture.mismatch": ("{path}: call {call}: the recorded scenario does not reproduce the module's own output "
                         "(max difference {diff}, allowed {tol}); nothing was written. {hint}"),
    "capture.mismatch_prob": ("Time-Series-Library's ProbAttention squeezes its sampled scores with a bare "
                              ".squeeze(), which goes wrong for one head with a batch > 1 or a single sample."),
    "capture.mismatch_other": "Pass check=False to write the files anyway.",
    "capture.exists": "{file}: already exists; choose another folder or pass overwrite=True (nothing was written)",
    "capture.no_module": "names: give at least one module name (or None for every attention module)",
    "capture.explain.recorded_formula": "sample_index[{l},{j}] = recorded key {s}",
    "capture.explain.recorded_summary": (
        "A recorded draw, not a computation: the model this layer was captured from drew key {s} of 1 … {S} "
        "(index {i}; torch.randint on its own random state) for query {l}; the scenario keeps that sample, so the "
        "seed is not used. One draw is shared by every batch item and head."),
}

ZH: dict[str, str] = {
    "capture.title": "{path}（第 {call} 次调用）",
    "capture.notes": ("由 attention.capture 在模型自己的前向传播中从{family}记录："
                      "输入是这一层在第 {call} 次调用时收到的，"
                      "权重是它自己的。修改任意一个数，看看这一层本会怎样计算。"),
    "capture.family.tsl_full": "Time-Series-Library 的 AttentionLayer（FullAttention）",
    "capture.family.tsl_prob": "Time-Series-Library 的 AttentionLayer（ProbAttention，已记录其键采样）",
    "capture.family.mha": "torch.nn.MultiheadAttention",
    "capture.family.bert": "BERT 自注意力",
    "capture.family.hf": "Hugging Face 的 Llama 系列注意力（RoPE、共享键/值头及其种类）",
    "capture.hf_config": "{path}：其配置无法精确重现：{reason}",
    "capture.hf_positions": ("{path}：第 {call} 次调用的 position_ids 不是每行从同一起点连续递增；"
                             "请逐个批次项捕获（items=[b]）"),
    "capture.unknown_name": "{path}：模型中没有这个名字的模块（找到的注意力模块：{found}）",
    "capture.unsupported": ("{path}：{kind} 不是 capture 能记录的注意力模块；请指定 Time-Series-Library 的 "
                            "AttentionLayer、nn.MultiheadAttention 或 BERT 自注意力"),
    "capture.inner": ("{path}：内部的 {inner} 无法被精确重现（支持 FullAttention、ProbAttention、DSAttention；"
                      "Autoformer 的 AutoCorrelationLayer）"),
    "capture.inner_name": ("{path}：这是某个 AttentionLayer 的内部注意力；请指定包含它的那一层（{parent}），"
                           "这样它的投影也会被记录"),
    "capture.mix_full": ("{path}：Informer2020 的 AttentionLayer(mix=True) 配 FullAttention 会混合头和位置，"
                         "引擎只对 ProbSparse 重现这种混合"),
    "capture.bias_kv": ("{path}：带 add_bias_kv 或 add_zero_attn 的 nn.MultiheadAttention 会在投影之后追加一个键，"
                        "场景无法表示"),
    "capture.dropout": ("{path}：第 {call} 次调用在训练模式下运行，注意力 dropout p = {p}，权重被随机置零；"
                        "请在前向传播之前调用 model.eval()"),
    "capture.mask": ("{path}：第 {call} 次调用：{which} 无法表示为因果掩码和/或有效长度"
                     "（只能表示因果三角和每行末尾的填充）；{detail}"),
    "capture.mask_values": "浮点掩码只能包含 0（保留）和 -inf 或 <= -1e9 的值（遮住）",
    "capture.mask_heads": "各个头的掩码不同",
    "capture.mask_shape": "它的形状 {shape} 与批大小 {B}、{L} 个查询和 {S} 个键不符",
    "capture.mask_pattern": "某个被遮住的键后面还有可见的键",
    "capture.head_mask": "{path}：第 {call} 次调用传入了 head_mask，它在 softmax 之后缩放权重",
    "capture.cache": "{path}：第 {call} 次调用使用了键/值缓存（生成）；请记录一次普通的前向传播",
    "capture.relative": "{path}：position_embedding_type {kind} 会加上相对位置偏置，引擎没有这一项",
    "capture.items": "items：{path} 的第 {call} 次调用中没有批次项 {item}（批大小 {B}）",
    "capture.mismatch": ("{path}：第 {call} 次调用：记录下的场景无法重现模块自己的输出"
                         "（最大差 {diff}，允许 {tol}）；没有写入任何文件。{hint}"),
    "capture.mismatch_prob": ("Time-Series-Library 的 ProbAttention 用不带参数的 .squeeze() 压缩采样分数，"
                              "只有一个头且批大小 > 1、或只有一个采样时会出错。"),
    "capture.mismatch_other": "传入 check=False 可以仍然写出文件。",
    "capture.exists": "{file}：已经存在；请换一个文件夹或传入 overwrite=True（没有写入任何文件）",
    "capture.no_module": "names：请至少给出一个模块名（或用 None 表示所有注意力模块）",
    "capture.explain.recorded_formula": "sample_index[{l},{j}] = 记录下的键 {s}",
    "capture.explain.recorded_summary": (
        "这是记录下的抽取，不是计算：捕获这一层的模型（用它自己的随机状态调用 torch.randint）为查询 {l} "
        "在 1 … {S} 中抽到了键 {s}（下标 {i}）；场景保存了这次抽样，所以不使用种子。所有批次和所有头共用这一次抽取。"),
}
