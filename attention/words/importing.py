"""Real trained layers: what `main.py layers/import` and the import dialog say (weights files, reasons, errors)."""

EN = {
    # ---- families ---------------------------------------------------------------------------------
    "models.family.tsl": "Time-Series-Library AttentionLayer",
    "models.family.mha": "torch nn.MultiheadAttention",
    "models.family.bert": "BERT-family self-attention",
    "models.family.gpt2": "GPT-2 attention (Conv1D layout)",
    "models.family.llama": "Llama-style attention (q_proj/k_proj/v_proj/o_proj)",
    "models.family.fused": "fused query_key_value attention",
    "models.family.t5": "T5 attention",
    "models.family.hf_llama": "Llama decoder attention (Hugging Face)",
    "models.family.hf_mistral": "Mistral decoder attention (Hugging Face)",
    "models.family.hf_qwen2": "Qwen2 decoder attention (Hugging Face)",
    "models.family.hf_qwen3": "Qwen3 decoder attention (Hugging Face)",
    "models.family.hf_gemma2": "Gemma 2 decoder attention (Hugging Face)",
    "models.family.hf_gemma3": "Gemma 3 decoder attention (Hugging Face)",
    "models.family.hf_gpt_neox": "GPT-NeoX decoder attention (Hugging Face, fused per head)",
    "models.family.hf_phi": "Phi decoder attention (Hugging Face)",
    "models.family.hf_bloom": "BLOOM decoder attention (Hugging Face, fused per head)",
    "models.family.hf_falcon": "Falcon decoder attention (Hugging Face, fused)",
    "models.list.kv_heads": "{kv} key/value heads",
    "models.list.kv_one": "1 key/value head (multi-query)",
    "models.error.heads_fixed": "--heads {heads}: {name} has {fixed} query heads, fixed by its config",
    "models.list.rope": "RoPE (base {base}, {dims} of {dim} dims, {pairing})",
    "models.list.rope_scaled": "{type}-scaled frequencies (factor {factor})",
    "models.list.qk_norm": "QK-norm (× {style})",
    "models.list.alibi": "ALiBi",
    "models.list.softcap": "soft-cap {cap}",
    "models.list.window": "window {size}",
    "models.list.scale": "scale {scale}",
    "models.notes.kinds": "Its kinds: {kinds}.",
    "models.notes.residual": "The module adds its input back (dense(out) + residual); the output here is without it.",
    # ---- why a layer is listed but not imported ---------------------------------------------------
    "models.reason.rotary": "rotary position embeddings (RoPE) rotate q and k by position after the projection",
    "models.reason.alibi": "ALiBi adds a distance penalty to every score",
    "models.reason.relative": "relative-position scores ({kind}) are added to every score",
    "models.reason.t5_relative": "T5 adds a learned relative-position bias to every score",
    "models.reason.gqa": "grouped-query attention: k and v are {k} wide, q is {q}",
    "models.reason.config_shape": ("{tensor} has shape {shape}, but config.json's {heads} query heads and {kv} "
                                   "key/value heads make {expected}"),
    "models.reason.fused_positions": ("a fused query_key_value layer of a model that positions tokens by rotation "
                                      "or ALiBi"),
    "models.reason.bias_kv": "add_bias_kv appends a learned key and value after the projection",
    "models.reason.qk_width": "query ({q}) and key ({k}) projections have different widths",
    "models.reason.out_width": "the out projection takes {o} features but the values give {v}",
    "models.reason.bias_shape": "the {role} bias has shape {shape}, not its weight's output width",
    "models.reason.packed_shape": "in_proj_weight has shape {shape}; expected (3·{e}, in)",
    "models.reason.conv1d_shape": "c_attn has shape {shape}; expected (E, 3·E) in Conv1D layout",
    # ---- errors (one line each: what was found, what was expected) -------------------------------
    "models.error.missing": "{path}: no such file or folder",
    "models.error.unknown_kind": ("{path}: a {suffix} file is not a weights file; expected .pt, .pth, .bin, .ckpt, "
                                  ".safetensors, .gguf or a Hugging Face folder (config.json + model.safetensors)"),
    "models.error.folder_no_weights": ("{path}: no model.safetensors, model.safetensors.index.json or "
                                       "pytorch_model.bin in this folder (found: {found})"),
    "models.error.config_bad": "{path}: not readable as JSON ({detail}); expected a Hugging Face config",
    "models.error.safetensors_short": "{path}: only {size}; a safetensors file starts with an 8-byte header length",
    "models.error.safetensors_header": ("{path}: {size}, and it does not start with a safetensors header "
                                        "(8-byte length, then a JSON object)"),
    "models.error.safetensors_bad": "{path}: damaged safetensors file ({detail})",
    "models.error.truncated_zip": ("{path}: a zip archive that ends early ({size}; truncated or still being written); "
                                   "expected a complete torch.save file"),
    "models.error.torch_unknown": ("{path}: {size}, and it does not start as a PyTorch file does; expected a file "
                                   "saved with torch.save (a zip archive or a pickle)"),
    "models.error.not_regular": ("{path}: not a regular file (a pipe, socket or device); it was not opened; "
                                 "expected a weights file or a model folder"),
    "models.error.shard_outside": ("{path}: names the shard '{shard}', which is not a file inside its folder; "
                                   "only files beside the index are read"),
    "models.error.too_big": ("{path}: {key} has shape {shape}, {size} as float64 numbers, more than the {free} of "
                             "memory free on this machine now; nothing was read"),
    "models.error.overlapping": ("{path}: {key} claims {count} numbers (shape {shape}) but the file stores only "
                                 "{stored} for it (a view that repeats numbers); nothing was read"),
    "models.error.nested_deep": ("{path}: no tensors within {limit} levels of nesting (found: {found} nested "
                                 "deeper); expected a model's state dict"),
    "models.error.seed": "--seed: expected a whole number from 0 to 2^64 - 1, got {got}",
    "models.error.tokens_many": ("--tokens {got}: this layer's trace on that many tokens would need {size}, more "
                                 "than the {free} of memory free on this machine now; at most {most} tokens fit"),
    "models.json.not_regular": "{path}: not a regular file (a pipe, socket or device); it was not opened",
    "models.json.too_big": "{path}: {size} bytes, more than the {limit} bytes a model's JSON file may have",
    "models.json.unreadable": "{path}: cannot read: {why}",
    "models.json.not_utf8": "{path}: not UTF-8 text (at byte {offset})",
    "models.json.deep": "{path}: nested more than {limit} levels deep; a model's JSON file nests a few levels",
    "models.json.long_number": "{path}: {field} is a number with {digits} digits; at most {limit} digits are read",
    "models.json.syntax": "{path}: invalid JSON at line {line}, column {column}: {reason}",
    "models.error.pickle_code": ("{path}: refused: the file asks to run {name} when unpickled; only tensors, numbers, "
                                 "strings and containers are read (nothing was run)"),
    "models.error.pickled_module": ("{path}: a whole model saved with torch.save(model) ({name}); unpickling it would "
                                    "run its code, so it was not read (nothing was run). Save its weights instead: "
                                    "torch.save(model.state_dict(), path), and import that file"),
    "models.error.plain_pickle": ("{path}: a Python pickle, not a file saved with torch.save; it was not unpickled "
                                  "(save the model's state_dict with torch.save)"),
    "models.error.pickle_bad": "{path}: not a plain state dict ({detail}); nothing was run",
    "models.error.torch_bad": "{path}: damaged PyTorch file ({detail}); expected a state dict saved with torch.save",
    "models.error.not_float": "{path}: {key} holds {dtype} numbers; expected floating-point weights",
    "models.error.no_tensors": "{path}: no tensors in it (found: {found}); expected a model's state dict",
    "models.error.no_layers": ("{path}: no attention layer among its {count} tensors (first: {first}); expected "
                               "Time-Series-Library *_projection, nn.MultiheadAttention in_proj_weight/out_proj, "
                               "BERT attention.self.query/key/value or GPT-2 c_attn/c_proj keys"),
    "models.error.choose_layer": ("{path} holds {count} attention layers: name one with --layer "
                                  "(`main.py layers {path}` lists them)"),
    "models.error.no_such_layer": "--layer {name}: not in {path}; its layers: {names}",
    "models.error.layer_position": ("--layer {got}: a layer's place in the list is counted from 1; {path} lists "
                                    "{count} attention layers (1 … {count}), or name the layer"),
    "models.error.unsupported": "{name}: cannot be reproduced exactly, so it is not imported: {reason}",
    "models.error.heads_needed": "--heads: {name} does not say how many heads it has; choose one of {choices}",
    "models.error.heads_bad": "--heads {heads}: does not divide the widths of {name}; choose one of {choices}",
    "models.error.inputs_width": "{path}: {field} are {got} wide, but {name} takes {want}",
    "models.error.write": "--out: cannot write {path}: {detail}",
    "models.error.no_safetensors": ("{path}: reading .safetensors needs the safetensors package: "
                                    "pip install 'attention-explorer[models]' (or: pip install safetensors)"),
    "models.error.tokens": "--tokens: expected a whole number of at least 1, got {got}",
    "models.notice.large_pt": "{path} is {size}: torch reads it whole, this may take a while and that much memory",
    # ---- listing and the imported scenario ---------------------------------------------------------
    "models.list.header": "{path}: {count} attention layers ({kind})",
    "models.list.header_one": "{path}: {count} attention layer ({kind})",
    "models.list.heads": "{heads} heads",
    "models.list.heads_unknown": "heads: choose ({choices})",
    "models.list.causal": "causal",
    "models.list.cross": "cross-attention",
    "models.list.unsupported": "not importable: {reason}",
    "models.kind.safetensors": "safetensors, read lazily",
    "models.kind.torch": "PyTorch state dict",
    "models.kind.folder": "Hugging Face folder",
    "models.kind.gguf": "GGUF file (llama.cpp), {storage} weights",
    "models.kind.gguf_quantized": "GGUF file (llama.cpp), {storage} weights dequantized from {bits}-bit",
    "models.imported": "wrote {out}: {layer} from {file}, {heads} heads, inputs {shape}",
    "models.title": "{layer} ({file})",
    "models.notes": "Imported from {file}: {layer}, {family}, {heads} heads. {inputs}",
    "models.notes.inputs_random": ("The inputs are seeded random numbers (seed {seed}, {tokens} tokens): replace "
                                   "them with your own to see what the trained weights do to them."),
    "models.notes.inputs_given": "The inputs come from {path}.",
    # ---- modern decoder families (attention/models/families.py) ------------------------------------
    "models.error.family_no_config": ("{path}: no config.json beside the weights; a decoder family's heads, "
                                      "rotary positions and window come from it (pass the config)"),
    "models.error.family_unknown": "{path}: config.json model_type is {value}; expected one of {known}",
    "models.error.family_field": "{path}: config.json {field} is {value}; expected {expected}",
    "models.error.not_finite": ("{path}: the weights {key} hold NaN or infinity (first at {index}: {value}); "
                                "nothing made from them could be shown or saved"),
    "models.error.invalid_scenario": (
        "{layer}: the scenario made from it would not load, so nothing was written: {problem}"),
    "models.error.stored_size": ("{path}: {where} {field} is {value}, but the file stores {tensor} as ({shape}), "
                                 "which does not fit it"),
    "models.error.family_tensor": "{path}: no tensor {tensor}; a {family} layer needs it",
    "models.error.family_shape": "{path}: {tensor} has shape {shape}; expected {expected}",
    "models.error.family_layer": "{path}: no {family} attention layer {layer}; the file holds layers {found}",
    "models.error.falcon_alibi": ("{path}: config.json alibi is true: Falcon's ALiBi layout is not imported "
                                  "(transformers 5.24's eager and sdpa paths disagree on it: eager adds the "
                                  "bias twice)"),
    # ---- GGUF files (llama.cpp's format; attention/models/gguf_model.py) ----------------------------
    "models.error.gguf_package": ("{path}: reading a GGUF file needs the gguf package (llama.cpp's own reader): "
                                  "pip install {pip}"),
    "models.error.gguf_bad": "{path}: not a readable GGUF file ({detail})",
    "models.error.gguf_architecture": ("{path}: metadata general.architecture is {value}; the explorer runs "
                                       "{known} decoders from GGUF files"),
    "models.error.gguf_key": "{path}: metadata {field} is {value}; expected {expected}",
    "models.error.gguf_tensor": ("{path}: tensor {tensor} is not part of a plain {arch} decoder (an unknown "
                                 "name); the explorer cannot reproduce it"),
    "models.error.gguf_bias": ("{path}: tensor {tensor} is a bias, which a plain {arch} decoder's projections do not "
                               "have; the explorer cannot reproduce it"),
    "models.error.gguf_rope_freqs": ("{path}: tensor {tensor} holds per-frequency RoPE factors (Llama 3.1 scaling); "
                                     "the explorer cannot reproduce them"),
    "models.error.gguf_quant": "{path}: tensor {tensor} is stored as {kind}, which gguf {version} cannot dequantize",
    "models.error.gguf_tokenizer": "{path}: metadata {field} is {value}; the explorer builds {expected} tokenizers",
    "models.weights.dequantized": "{kind} weights, dequantized from {bits}-bit",
    "models.weights.plain": "{kind} weights",
    "models.llama.summary": ("{name}: {layers} layers, {heads} query heads sharing {kv} key/value heads of {head_dim} "
                             "dims, RoPE base {base}, up to {context} tokens; {weights}"),
    "models.prompt.empty": "prompt: type some text (the model needs at least one token)",
    "models.prompt.too_long": "prompt: {n} tokens; this model reads at most {limit}",
    "models.prompt.bad_id": "prompt: token id {id} is outside the vocabulary (0 to {vocab} - 1)",
}

ZH = {
    "models.family.tsl": "Time-Series-Library 的 AttentionLayer 注意力层",
    "models.family.mha": "torch 的 nn.MultiheadAttention 多头注意力",
    "models.family.bert": "BERT 系列自注意力",
    "models.family.gpt2": "GPT-2 注意力（Conv1D 布局）",
    "models.family.llama": "Llama 式注意力（q_proj/k_proj/v_proj/o_proj）",
    "models.family.fused": "融合 query_key_value 的注意力",
    "models.family.t5": "T5 注意力",
    "models.family.hf_llama": "Llama 解码器注意力（Hugging Face）",
    "models.family.hf_mistral": "Mistral 解码器注意力（Hugging Face）",
    "models.family.hf_qwen2": "Qwen2 解码器注意力（Hugging Face）",
    "models.family.hf_qwen3": "Qwen3 解码器注意力（Hugging Face）",
    "models.family.hf_gemma2": "Gemma 2 解码器注意力（Hugging Face）",
    "models.family.hf_gemma3": "Gemma 3 解码器注意力（Hugging Face）",
    "models.family.hf_gpt_neox": "GPT-NeoX 解码器注意力（Hugging Face，按头融合）",
    "models.family.hf_phi": "Phi 解码器注意力（Hugging Face）",
    "models.family.hf_bloom": "BLOOM 解码器注意力（Hugging Face，按头融合）",
    "models.family.hf_falcon": "Falcon 解码器注意力（Hugging Face，融合）",
    "models.list.kv_heads": "{kv} 个键/值头",
    "models.list.kv_one": "1 个键/值头（多查询）",
    "models.error.heads_fixed": "--heads {heads}：{name} 有 {fixed} 个查询头，由其配置决定",
    "models.list.rope": "RoPE（底数 {base}，{dim} 维中旋转 {dims} 维，{pairing}）",
    "models.list.rope_scaled": "{type} 缩放的频率（系数 {factor}）",
    "models.list.qk_norm": "QK 归一化（× {style}）",
    "models.list.alibi": "ALiBi 线性偏置",
    "models.list.softcap": "软上限 {cap}",
    "models.list.window": "窗口 {size}",
    "models.list.scale": "缩放 {scale}",
    "models.notes.kinds": "所用的种类：{kinds}。",
    "models.notes.residual": "该模块把输入加回（dense(out) + 残差）；这里的输出不含残差。",
    "models.reason.rotary": "旋转位置编码（RoPE）在投影之后按位置旋转 q 和 k",
    "models.reason.alibi": "ALiBi 给每个分数加上按距离的惩罚",
    "models.reason.relative": "每个分数都加上相对位置分数（{kind}）",
    "models.reason.t5_relative": "T5 给每个分数加上学得的相对位置偏置",
    "models.reason.gqa": "分组查询注意力：k 和 v 宽 {k}，q 宽 {q}",
    "models.reason.config_shape": ("{tensor} 的形状是 {shape}，但 config.json 的 {heads} 个查询头和 {kv} "
                                   "个键/值头应为 {expected}"),
    "models.reason.fused_positions": "融合的 query_key_value 层，所属模型用旋转或 ALiBi 表示位置",
    "models.reason.bias_kv": "add_bias_kv 在投影之后追加一个学得的键和值",
    "models.reason.qk_width": "查询投影（{q}）与键投影（{k}）宽度不同",
    "models.reason.out_width": "输出投影接收 {o} 个特征，而值给出 {v} 个",
    "models.reason.bias_shape": "{role} 的偏置形状为 {shape}，与其权重的输出宽度不符",
    "models.reason.packed_shape": "in_proj_weight 的形状为 {shape}；应为 (3·{e}, in)",
    "models.reason.conv1d_shape": "c_attn 的形状为 {shape}；Conv1D 布局应为 (E, 3·E)",
    "models.error.missing": "{path}：没有这个文件或文件夹",
    "models.error.unknown_kind": ("{path}：{suffix} 文件不是权重文件；应为 .pt、.pth、.bin、.ckpt、.safetensors、.gguf "
                                  "或 Hugging Face 文件夹（config.json + model.safetensors）"),
    "models.error.folder_no_weights": ("{path}：文件夹里没有 model.safetensors、model.safetensors.index.json "
                                       "或 pytorch_model.bin（找到：{found}）"),
    "models.error.config_bad": "{path}：无法作为 JSON 读取（{detail}）；应为 Hugging Face 配置",
    "models.error.safetensors_short": "{path}：只有 {size}；safetensors 文件以 8 字节的头部长度开头",
    "models.error.safetensors_header": ("{path}：{size}，开头不是 safetensors 头部"
                                        "（8 字节长度，然后是一个 JSON 对象）"),
    "models.error.safetensors_bad": "{path}：safetensors 文件已损坏（{detail}）",
    "models.error.truncated_zip": "{path}：zip 压缩包提前结束（{size}；被截断或仍在写入）；应为完整的 torch.save 文件",
    "models.error.torch_unknown": ("{path}：{size}，开头不像 PyTorch 文件；"
                                   "应为 torch.save 保存的文件（zip 压缩包或 pickle）"),
    "models.error.not_regular": "{path}：不是普通文件（管道、套接字或设备）；没有打开它；应为权重文件或模型文件夹",
    "models.error.shard_outside": "{path}：指向分片 '{shard}'，它不是同一文件夹里的文件；只读取索引旁边的文件",
    "models.error.too_big": ("{path}：{key} 的形状为 {shape}，按 float64 需"
                             "要 {size}，超过本机现在可用的 {free} 内存；什么也没有读取"),
    "models.error.overlapping": ("{path}：{key} 声称有 {count} 个数（形状 {shape}"
                                 "），但文件里只为它存了 {stored}（重复数字的视图）；什么也没有读取"),
    "models.error.nested_deep": ("{path}：在 {limit} 层嵌套以内没有张量（找到：嵌"
                                 "套更深的 {found}）；应为模型的 state_dict"),
    "models.error.seed": "--seed：应为 0 到 2^64 - 1 之间的整数，实际是 {got}",
    "models.error.tokens_many": ("--tokens {got}：这一层在这么多词元上的计算需要 {size}，超过本机现在可用的 "
                                 "{free} 内存；最多可用 {most} 个词元"),
    "models.json.not_regular": "{path}：不是普通文件（管道、套接字或设备）；没有打开它",
    "models.json.too_big": "{path}：{size} 字节，超过模型 JSON 文件允许的 {limit} 字节",
    "models.json.unreadable": "{path}：无法读取：{why}",
    "models.json.not_utf8": "{path}：不是 UTF-8 文本（第 {offset} 字节处）",
    "models.json.deep": "{path}：嵌套超过 {limit} 层；模型的 JSON 文件只嵌套几层",
    "models.json.long_number": "{path}：{field} 是一个 {digits} 位的数；最多只读取 {limit} 位",
    "models.json.syntax": "{path}：JSON 格式错误，位于第 {line} 行第 {column} 列：{reason}",
    "models.error.pickled_module": ("{path}：这是用 torch.save(model) 保存的整个模型（{name}）；反序列化它会运行其中的"
                                    "代码，所以没有读取（没有运行任何东西）。请改为保存权重："
                                    "torch.save(model.state_dict(), path)，再导入那个文件"),
    "models.error.pickle_code": ("{path}：已拒绝：该文件在反序列化时要求运行 {name}；只读取张量、数字、字符串和容器"
                                 "（没有运行任何东西）"),
    "models.error.plain_pickle": ("{path}：这是 Python pickle，不是 torch.save 保存的文件；没有反序列化它"
                                  "（请用 torch.save 保存模型的 state_dict）"),
    "models.error.pickle_bad": "{path}：不是普通的 state_dict（{detail}）；没有运行任何东西",
    "models.error.torch_bad": "{path}：PyTorch 文件已损坏（{detail}）；应为 torch.save 保存的 state_dict",
    "models.error.not_float": "{path}：{key} 存的是 {dtype} 数；应为浮点权重",
    "models.error.no_tensors": "{path}：里面没有张量（找到：{found}）；应为模型的 state_dict",
    "models.error.no_layers": ("{path}：{count} 个张量中没有注意力层（前几个：{first}）；应有 Time-Series-Library "
                               "*_projection、nn.MultiheadAttention in_proj_weight/out_proj、BERT "
                               "attention.self.query/key/value 或 GPT-2 c_attn/c_proj 键"),
    "models.error.choose_layer": ("{path} 含 {count} 个注意力层：用 --layer 指定一个"
                                  "（`main.py layers {path}` 会列出它们）"),
    "models.error.no_such_layer": "--layer {name}：{path} 中没有；其中的层：{names}",
    "models.error.layer_position": ("--layer {got}：层在列表中的位置从 1 数起；{path} 列出 {count} 个注意力层"
                                    "（1 … {count}），也可以直接写层名"),
    "models.error.unsupported": "{name}：无法精确重现，因此不导入：{reason}",
    "models.error.heads_needed": "--heads：{name} 没有说明头数；请从 {choices} 中选一个",
    "models.error.heads_bad": "--heads {heads}：不能整除 {name} 的宽度；请从 {choices} 中选一个",
    "models.error.inputs_width": "{path}：{field} 宽 {got}，但 {name} 需要 {want}",
    "models.error.write": "--out：无法写入 {path}：{detail}",
    "models.error.no_safetensors": ("{path}：读取 .safetensors 需要 safetensors 包："
                                    "pip install 'attention-explorer[models]'（或 pip install safetensors）"),
    "models.error.tokens": "--tokens：应为至少 1 的整数，实际是 {got}",
    "models.notice.large_pt": "{path} 有 {size}：torch 会整个读入，这可能需要一些时间和同样多的内存",
    "models.list.header": "{path}：{count} 个注意力层（{kind}）",
    "models.list.header_one": "{path}：{count} 个注意力层（{kind}）",
    "models.list.heads": "{heads} 个头",
    "models.list.heads_unknown": "头数：自选（{choices}）",
    "models.list.causal": "因果",
    "models.list.cross": "交叉注意力",
    "models.list.unsupported": "不能导入：{reason}",
    "models.kind.safetensors": "safetensors，按需读取",
    "models.kind.torch": "PyTorch 的 state_dict（状态字典）",
    "models.kind.folder": "Hugging Face 文件夹",
    "models.kind.gguf": "GGUF 文件（llama.cpp），{storage} 权重",
    "models.kind.gguf_quantized": "GGUF 文件（llama.cpp），{storage} 权重，由 {bits} 位量化反量化而来",
    "models.imported": "已写入 {out}：{layer}，来自 {file}，{heads} 个头，输入 {shape}",
    "models.title": "{layer}（{file}）",
    "models.notes": "从 {file} 导入：{layer}，{family}，{heads} 个头。{inputs}",
    "models.notes.inputs_random": ("输入是带种子的随机数（种子 {seed}，{tokens} 个词元）："
                                   "换成你自己的输入，看看训练好的权重如何处理它们。"),
    "models.notes.inputs_given": "输入取自 {path}。",
    "models.error.family_no_config": ("{path}：权重旁边没有 config.json；解码器系列的头数、旋转位置编码和窗口"
                                      "都来自它（请提供配置）"),
    "models.error.family_unknown": "{path}：config.json 的 model_type 是 {value}；应为 {known} 之一",
    "models.error.family_field": "{path}：config.json 的 {field} 是 {value}；应为 {expected}",
    "models.error.not_finite": (
        "{path}：权重 {key} 中含有 NaN 或无穷大（第一个在 {index}：{value}）；由它算出的任何结果都无法显示或保存"),
    "models.error.invalid_scenario": "{layer}：由它生成的场景无法载入，因此什么也没有写入：{problem}",
    "models.error.stored_size": "{path}：{where} 的 {field} 是 {value}，但文件中 {tensor} 的形状是 ({shape})，与之不符",
    "models.error.family_tensor": "{path}：没有张量 {tensor}；{family} 层需要它",
    "models.error.family_shape": "{path}：{tensor} 的形状为 {shape}；应为 {expected}",
    "models.error.family_layer": "{path}：没有第 {layer} 个 {family} 注意力层；文件里的层：{found}",
    "models.error.falcon_alibi": ("{path}：config.json 的 alibi 为 true：不导入 Falcon 的 ALiBi 布局"
                                  "（transformers 5.24 的 eager 与 sdpa 两条路径对它的结果不一致："
                                  "eager 把偏置加了两次）"),
    "models.error.gguf_package": "{path}：读取 GGUF 文件需要 gguf 包（llama.cpp 自己的读取器）：pip install {pip}",
    "models.error.gguf_bad": "{path}：不是可读取的 GGUF 文件（{detail}）",
    "models.error.gguf_architecture": ("{path}：元数据 general.architecture 是 {value}；"
                                       "本程序只运行 GGUF 中的 {known} 解码器"),
    "models.error.gguf_key": "{path}：元数据 {field} 是 {value}；应为 {expected}",
    "models.error.gguf_tensor": ("{path}：张量 {tensor} 不属于普通的 {arch} 解码器（未知的张量名）；"
                                 "本程序无法精确重现它"),
    "models.error.gguf_bias": "{path}：张量 {tensor} 是偏置项，普通 {arch} 解码器的投影没有偏置；本程序无法精确重现它",
    "models.error.gguf_rope_freqs": ("{path}：张量 {tensor} 存有按频率的 RoPE 系数（Llama 3.1 的缩放）；"
                                     "本程序无法精确重现它"),
    "models.error.gguf_quant": "{path}：张量 {tensor} 以 {kind} 格式存储，gguf {version} 无法反量化它",
    "models.error.gguf_tokenizer": "{path}：元数据 {field} 是 {value}；本程序只能构建 {expected} 分词器",
    "models.weights.dequantized": "{kind} 权重，由 {bits} 位量化反量化而来",
    "models.weights.plain": "{kind} 权重",
    "models.llama.summary": ("{name}：{layers} 层，{heads} 个查询头共享 {kv} 个键/值头（每头 {head_dim} 维），"
                             "RoPE 基数 {base}，最多 {context} 个词元；{weights}"),
    "models.prompt.empty": "提示词：请输入文字（模型至少需要一个词元）",
    "models.prompt.too_long": "提示词：{n} 个词元；此模型最多读取 {limit} 个",
    "models.prompt.bad_id": "提示词：词元编号 {id} 超出词表范围（0 到 {vocab} - 1）",
}
