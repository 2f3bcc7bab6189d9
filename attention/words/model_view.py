"""Words of the model view (app/models_view): the sentence pair, its filter, the caption of an open layer."""

EN = {
    "sentence_pair_count": "a sentence pair needs two sentences, got {count}",
    "sentence_pair_too_long": ("the sentence pair: {count} tokens together ([CLS] A [SEP] B [SEP]); "
                               "this model reads at most {most}"),
    "model_view.two_as": "Two sentences as",
    "model_view.as_batch": "a batch (padded)",
    "model_view.as_pair": "a pair ([CLS] A [SEP] B [SEP])",
    "weights_note.shown": "Weights: {note}.",
    "layer_cache.dock": "KV cache of this layer",
    "layer_cache.state": ("Rows 1–{read} of {total} are in the cache; Next token reads row {next} through it. A single "
                          "layer has no LM head: its next token is its next input row (its key and value join the "
                          "cache, its query attends over the cached rows; the rows before it are not read again)."),
    "layer_cache.finished": "All {total} rows have been read through the cache; an edit starts again from row 1.",
    "layer_cache_not_causal": ("Next token through a KV cache needs a causal layer (Parameters ▸ Mask ▸ causal): "
                               "without it every row also reads the rows after it, which a cache has not seen yet"),
    "layer_cache_sizes": ("Next token through a KV cache needs self-attention sizes: as many key rows as query rows "
                          "(L = S), at least 2; this layer has L = {L}, S = {S}"),
    "layer_cache_scoring": ("Next token through a KV cache works for dot-product scoring (scaled_dot, dot); this layer "
                            "scores with {scoring}"),
    "layer_cache_parts": "Next token through a KV cache handles RoPE among the parts; this layer also has: {parts}",
    "layer_cache_valid_lens": ("Next token through a KV cache: this layer has valid lengths; a cache reads every row "
                               "before the new one (remove them under Parameters ▸ Mask)"),
    "layer_cache_done": "every input row has been read ({count} of {count})",
    "model_view.box_pair": "Sentences (two lines: sentence A, then sentence B of one pair):",
    "model_view.two_as.tip": ("Two lines in the Sentence box: two sentences of a batch, the shorter one padded; or "
                              "one BERT sentence pair, token type 0 for A (with [CLS] and its [SEP]) and 1 for B, "
                              "as the model reads a pair"),
    "model_view.filter": "Attention",
    "model_view.filter.all": "All",
    "model_view.filter.aa": "A → A",
    "model_view.filter.ab": "A → B",
    "model_view.filter.ba": "B → A",
    "model_view.filter.bb": "B → B",
    "model_view.filter.tip": ("Which part of each head's weights the grid shows: A → B is rows (queries) from "
                              "sentence A and columns (keys) from sentence B, as BertViz's sentence_b_start filter"),
    "model_view.pair_status": "{count} tokens: one sentence pair, A {a} of them (with [CLS] and its [SEP]), B {b}",
    "model_view.caption": "{model} · layer {layer} · head {head}",
    "model_view.caption_all": "{model} · layer {layer} · all heads",
    "model_view.steps_caption": "{steps} · {caption}",
    "seed_recorded_sample": ("The scenario carries a recorded key sample (sample_index, from the captured run), so "
                             "the seed draws nothing. Change the factor, L or S to sample from the seed again."),
}

ZH = {
    "sentence_pair_count": "句子对需要两句，实际为 {count} 句",
    "sentence_pair_too_long": "句子对：合计 {count} 个词元（[CLS] A [SEP] B [SEP]）；此模型最多读取 {most} 个",
    "model_view.two_as": "两句作为",
    "model_view.as_batch": "一个批次（补齐）",
    "model_view.as_pair": "一个句子对（[CLS] A [SEP] B [SEP]）",
    "weights_note.shown": "权重：{note}。",
    "layer_cache.dock": "本层的 KV 缓存",
    "layer_cache.state": ("缓存中有第 1–{read} 行（共 {total} 行）；“下一个词元”经缓存读取第 {next} 行。"
                          "单独一层没有语言模型头：它的下一个词元就是下一行输入（该行的键和值加入缓存，"
                          "它的查询关注缓存中的各行；之前的行不再重新读取）。"),
    "layer_cache.finished": "全部 {total} 行都已经经缓存读取；任何编辑都会从第 1 行重新开始。",
    "layer_cache_not_causal": ("经 KV 缓存生成下一个词元需要因果层（参数 ▸ 掩码 ▸ 因果）："
                               "否则每行还会读取它之后的行，而缓存尚未见到这些行"),
    "layer_cache_sizes": ("经 KV 缓存生成下一个词元需要自注意力的尺寸：键的行数与查询的行数相同（L = S），至少 2；"
                          "此层 L = {L}，S = {S}"),
    "layer_cache_scoring": "经 KV 缓存生成下一个词元适用于点积打分（缩放点积、点积）；此层的打分方式为 {scoring}",
    "layer_cache_parts": "经 KV 缓存生成下一个词元在各部件中只处理 RoPE；此层还有：{parts}",
    "layer_cache_valid_lens": ("经 KV 缓存生成下一个词元：此层有有效长度；缓存会读取新行之前的每一行"
                               "（请在参数 ▸ 掩码中去掉它们）"),
    "layer_cache_done": "每一行输入都已读取（{count} / {count}）",
    "model_view.box_pair": "句子（两行：一个句子对的句子 A，然后句子 B）：",
    "model_view.two_as.tip": ("句子框中有两行时：作为一个批次的两句，较短的一句补齐；或作为一个 BERT 句子对，"
                              "A（连同 [CLS] 和它的 [SEP]）的词元类型为 0，B 为 1，与模型读取句子对的方式相同"),
    "model_view.filter": "注意力",
    "model_view.filter.all": "全部",
    "model_view.filter.aa": "A → A",
    "model_view.filter.ab": "A → B",
    "model_view.filter.ba": "B → A",
    "model_view.filter.bb": "B → B",
    "model_view.filter.tip": ("网格显示每个头的权重中的哪一部分：A → B 即行（查询）来自句子 A，列（键）来自句子 B，"
                              "同 BertViz 的 sentence_b_start 筛选"),
    "model_view.pair_status": "{count} 个词元：一个句子对，A 占 {a} 个（含 [CLS] 和它的 [SEP]），B 占 {b} 个",
    "model_view.caption": "{model} · 第 {layer} 层 · 头 {head}",
    "model_view.caption_all": "{model} · 第 {layer} 层 · 全部头",
    "model_view.steps_caption": "{steps} · {caption}",
    "seed_recorded_sample": "此场景带有记录下来的键采样（sample_index，来自捕获的运行），种子不再抽取任何东西。"
                            "修改因子、L 或 S 即可重新按种子采样。",
}
