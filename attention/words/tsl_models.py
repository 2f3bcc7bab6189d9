"""Words of Time-Series-Library's models in capture and import: Non-stationary Transformer's DSAttention,
Autoformer's Auto-Correlation, Crossformer's two stages, PatchTST / iTransformer tokens and whole
encoder layers (attention/capture/tsl.py, attention/models/tsl_models.py)."""
from __future__ import annotations

EN: dict[str, str] = {
    # ---- capture
    "capture.family.tsl_ds": ("a Time-Series-Library AttentionLayer with DSAttention (Non-stationary Transformer; "
                              "τ and Δ as the call received them)"),
    "capture.family.tsl_autocorr": "Autoformer's AutoCorrelationLayer (Time-Series-Library)",
    "capture.family.tsl_encoder": ("a whole Time-Series-Library EncoderLayer (its attention, then x + output, "
                                   "norm1, conv1, the activation, conv2, the second residual and norm2)"),
    "capture.tsl.inner_correlation": ("{path}: the inner {inner} cannot be reproduced exactly (supported: "
                                      "Autoformer's AutoCorrelation)"),
    "capture.tsl.activation": ("{path}: the activation {got} is not one the encoder layer steps have "
                               "(F.relu or F.gelu, as TSL's EncoderLayer chooses)"),
    "capture.tsl.norm_eps": "{path}: LayerNorm eps {eps} is not the engine's {want}",
    "capture.tsl.autocorr_items": ("{path}: call {call}: in training mode Auto-Correlation picks one set of lags "
                                   "for the whole batch, so a part of the batch (items) would pick other lags; "
                                   "record every item, or call model.eval()"),
    "capture.tsl.problem": "{path}: call {call}: the engine cannot hold it: {problem}",
    "capture.tsl.stage.time_attention": ("Crossformer's cross-time stage (TwoStageAttentionLayer.time_attention): "
                                         "each row is one variable of one series, its tokens the segments. The "
                                         "LayerNorms and MLP after it, and the router between the stages, are not "
                                         "in this scenario; name the TwoStageAttentionLayer itself to record the "
                                         "whole layer."),
    "capture.tsl.stage.dim_sender": ("Crossformer's cross-dimension stage, first half "
                                     "(TwoStageAttentionLayer.dim_sender): the router's slots are the queries and "
                                     "gather from every variable of one segment (each row: one series, one segment)."),
    "capture.tsl.stage.dim_receiver": ("Crossformer's cross-dimension stage, second half "
                                       "(TwoStageAttentionLayer.dim_receiver): every variable reads back from the "
                                       "router's slots, which hold what dim_sender gathered."),
    "capture.family.tsl_two_stage": ("Crossformer's whole TwoStageAttentionLayer (Time-Series-Library): the "
                                     "cross-time stage as the attention, then norm1, MLP1, norm2, the router's "
                                     "dim_sender and dim_receiver, norm3, MLP2 and norm4 (the two_stage part)"),
    "capture.family.tsl_distil": ("a whole Informer encoder layer with its distilling ConvLayer (Time-Series-"
                                  "Library): the EncoderLayer's steps, then conv, BatchNorm, ELU and max-pool"),
    "capture.tsl.two_stage_inner": ("{path}: the inner {inner} is not what the two_stage part computes (TSL's "
                                    "FullAttention without a mask and with the default scale)"),
    "capture.tsl.two_stage_heads": ("{path}: {heads} heads, the time stage has {want}; the two_stage part uses "
                                    "one count"),
    "capture.tsl.two_stage_mlp": "{path}: not Linear, GELU (exact), Linear as TSL's MLP1 / MLP2",
    "capture.tsl.two_stage_input": ("{path}: call {call}: the input is {shape}, a TwoStageAttentionLayer reads "
                                    "(batch, variables, segments, d_model)"),
    "capture.tsl.conv_layer": ("{path}: not TSL's distilling ConvLayer (Conv1d kernel 3, padding 2 circular; "
                               "BatchNorm1d with running statistics, eps 1e-5; ELU(1); MaxPool1d(3, 2, 1)), so the "
                               "encoder layer before it cannot be recorded with it"),
    "capture.tsl.distil_training": ("{path}: call {call}: the ConvLayer after it ran in training mode, where "
                                    "BatchNorm uses the batch's own statistics; call model.eval()"),
    "tsl.router_slot": "router {i}",
    # ---- import
    "cli.opt.import.tau": ("τ for a Non-stationary Transformer (DSAttention) layer: a positive number (default 1; "
                           "the model computes it from the raw series, a state dict cannot hold it)"),
    "cli.opt.import.delta": ("Δ for a Non-stationary Transformer (DSAttention) layer: one number for every key, or "
                             "one per key separated by commas (default 0)"),
    "cli.opt.import.start": ("the first time step's date, e.g. 2016-07-01 00:00 (with --freq): steps without "
                             "labels of their own are labelled with their dates"),
    "cli.opt.import.freq": ("the steps' frequency in Time-Series-Library's --freq spelling (s, t/min, h, d, b, w, m, "
                            "optional multiple such as 15min; with --start)"),
    "models.error.time_axis_pair": "--start and --freq go together: give both or neither",
    "models.error.start": "--start: {got} is not a date: write it as 2016-07-01 or 2016-07-01 00:00",
    "models.error.freq": ("--freq: {got} is not a frequency: use s, t/min, h, d, b, w or m, with an optional "
                          "multiple such as 15min or 3h"),
    "models.family.tsl_ds": "Time-Series-Library AttentionLayer with DSAttention (Non-stationary Transformer)",
    "models.family.tsl_autocorr": "Autoformer AutoCorrelationLayer (Time-Series-Library)",
    "models.family.tsl_encoder": "Time-Series-Library EncoderLayer (attention + residuals, LayerNorms, convolutions)",
    "models.family.tsl_two_stage": "Crossformer TwoStageAttentionLayer (Time-Series-Library)",
    "models.family.tsl_fourier": "FEDformer frequency-enhanced block (Time-Series-Library)",
    "models.tsl.model": "{model}",
    "models.tsl.stage": "stage {stage}",
    "models.tsl.patches": "tokens are patches (patch_len {patch_len}, stride {stride}; the model makes {n} of them)",
    "models.tsl.variates": "tokens are variables ({steps} steps each), then time features",
    "models.tsl.router": "queries are the router's {n} slots of segment 1 (the file's own router)",
    "models.tsl.prob_sparse": "ProbSparse (Informer, factor {factor})",
    "models.tsl.activation": "activation {activation}",
    "models.tsl.two_stage": ("{variables} variables × {seg} segments (tokens v·seg + s), router {factor} slots "
                             "per segment"),
    "models.tsl.two_stage_open": ("{seg} segments, router {factor} slots per segment; variables from --tokens or "
                                  "--inputs"),
    "models.tsl.distil": "then the distilling ConvLayer {conv}",
    "models.error.tsl_two_stage_tokens": ("{name}: the layer has {seg} segments, so its tokens must be a multiple "
                                          "of {seg} (variables × segments); got {got}"),
    "models.error.tau": "--tau: {got} is not a positive finite number (DSAttention's τ = exp(…) > 0)",
    "models.error.delta": ("--delta: {got} is not a finite number, nor {S} finite numbers separated by commas "
                           "(one per key)"),
    "models.error.delta_decoder_self": ("--delta: {name} is a decoder self-attention, which TSL's DecoderLayer "
                                        "calls with delta=None (only τ reaches it); leave --delta out"),
    "models.error.tau_layer": ("--tau / --delta: {name} is not a Non-stationary Transformer layer "
                               "(DSAttention); only those take τ and Δ"),
    "models.reason.tsl_shape": "{tensor} is {shape}, the layer's widths need {expected}",
    "models.reason.tsl_missing": "{tensor} is not in the file",
    "models.error.tsl_problem": "{name}: the engine cannot hold this layer as asked: {problem}",
    "models.reason.tsl_fourier": "FEDformer's Fourier / wavelet blocks are not attention the engine computes",
    "models.notes.tsl_ds": ("τ and Δ cannot come from a state dict: the model computes them from the raw series "
                            "(tau_learner, delta_learner) at every forward. This scenario uses τ = 1 and Δ = 0, "
                            "where DSAttention is plain full attention; edit them under modifiers (τ one per "
                            "series, Δ one per key), or record a real forward with attention.capture, which keeps "
                            "the τ and Δ the layer received."),
    "models.notes.tsl_autocorr": ("Auto-Correlation with factor {factor} (k = int(factor · ln L) lags), inference "
                                  "path (the module in eval()); the library aligns keys and values to the queries' "
                                  "length: cut to L steps when there are more, zero steps appended when fewer."),
    "models.notes.tsl_ds_given": ("τ and Δ as given by --tau / --delta (τ = {tau}, Δ = {delta}); the model computes "
                                  "them from the raw series at every forward, attention.capture records real ones."),
    # a decoder self-attention: TSL's DecoderLayer passes tau but delta=None, so only --tau applies
    "models.notes.tsl_ds_self": ("τ cannot come from a state dict: the model computes it from the raw series "
                                 "(tau_learner) at every forward. This scenario uses τ = 1 (give another with --tau); "
                                 "Δ is 0 because TSL's DecoderLayer calls its self-attention with delta=None. "
                                 "attention.capture records the τ a real forward passes."),
    "models.notes.tsl_ds_self_given": ("τ as given by --tau (τ = {tau}); Δ is 0 because TSL's DecoderLayer calls "
                                       "its self-attention with delta=None. The model computes τ from the raw "
                                       "series at every forward, attention.capture records the real one."),
    "models.notes.tsl_two_stage": ("Crossformer's whole TwoStageAttentionLayer: the tokens are {variables} variables "
                                   "× {seg} segments (token v·seg + s); the attention is the cross-time stage "
                                   "(time_attention, each variable's segments only), then norm1, MLP1, norm2, the "
                                   "file's router with dim_sender and dim_receiver, norm3, MLP2 and norm4: the "
                                   "layer's output is extra.tsa_output."),
    "models.notes.tsl_distil": ("Informer's Encoder runs {conv} on this layer's output: conv (kernel 3, circular "
                                "padding), BatchNorm with the file's running statistics (eval), ELU and max-pool "
                                "(extra.distil_pool, about half the steps)."),
    "models.notes.tsl_encoder": ("After the output projection come the layer's own steps: x + output, norm1, "
                                 "conv1 and {activation}, conv2, the second residual and norm2 (the layer's "
                                 "output, extra.norm_second)."),
    "models.notes.tsl_activation_default": ("The file does not say the activation: Time-Series-Library's default, "
                                            "gelu, is used; change modifiers[…].activation if the model was "
                                            "trained with relu."),
    "models.notes.tsl_prob": ("Informer's encoder uses ProbAttention: the scenario scores with ProbSparse "
                              "(factor {factor}); its key sample is drawn from the scenario's seed."),
    "models.notes.tsl_router": ("Crossformer's dim_sender: the queries are the layer's own router vectors for "
                                "segment 1; the keys and values stand for the variables of that segment."),
    "models.notes.tsl_stage": "Crossformer's {stage}, one of the three attentions of a TwoStageAttentionLayer.",
}

ZH: dict[str, str] = {
    "capture.family.tsl_ds": ("Time-Series-Library 的 AttentionLayer（DSAttention，Non-stationary Transformer；"
                              "τ 和 Δ 按调用收到的记录）"),
    "capture.family.tsl_autocorr": "Autoformer 的 AutoCorrelationLayer（Time-Series-Library）",
    "capture.family.tsl_encoder": ("Time-Series-Library 的完整 EncoderLayer（其注意力，然后 x + 输出、norm1、conv1、"
                                   "激活函数、conv2、第二个残差和 norm2）"),
    "capture.tsl.inner_correlation": "{path}：内部的 {inner} 无法被精确重现（支持 Autoformer 的 AutoCorrelation）",
    "capture.tsl.activation": ("{path}：激活函数 {got} 不是编码器层步骤支持的"
                               "（TSL 的 EncoderLayer 选用的 F.relu 或 F.gelu）"),
    "capture.tsl.norm_eps": "{path}：LayerNorm 的 eps {eps} 不是引擎使用的 {want}",
    "capture.tsl.autocorr_items": ("{path}：第 {call} 次调用：训练模式下自相关为整个批次选一组滞后，"
                                   "只取批次的一部分（items）会选出别的滞后；请记录全部批次项，或调用 model.eval()"),
    "capture.tsl.problem": "{path}：第 {call} 次调用：引擎无法容纳它：{problem}",
    "capture.tsl.stage.time_attention": ("Crossformer 的跨时间阶段（TwoStageAttentionLayer.time_attention）："
                                         "每一行是一条序列的一个变量，词元是它的各段。之后的 LayerNorm 和 MLP、"
                                         "以及两个阶段之间的路由不在这个场景里；"
                                         "指定 TwoStageAttentionLayer 本身即可记录完整的一层。"),
    "capture.tsl.stage.dim_sender": ("Crossformer 的跨维度阶段前半（TwoStageAttentionLayer.dim_sender）："
                                     "路由的各个槽是查询，从同一段的所有变量收集信息（每一行：一条序列的一段）。"),
    "capture.tsl.stage.dim_receiver": ("Crossformer 的跨维度阶段后半（TwoStageAttentionLayer.dim_receiver）："
                                       "每个变量从路由的槽里读回 dim_sender 收集到的信息。"),
    "capture.family.tsl_two_stage": ("Crossformer 的完整 TwoStageAttentionLayer（Time-Series-Library）："
                                     "跨时间阶段作为注意力，然后 norm1、MLP1、norm2、"
                                     "路由的 dim_sender 和 dim_receiver、"
                                     "norm3、MLP2 和 norm4（two_stage 部件）"),
    "capture.family.tsl_distil": ("Informer 的完整编码器层及其蒸馏 ConvLayer（Time-Series-Library）："
                                  "EncoderLayer 的步骤，然后卷积、BatchNorm、ELU 和最大池化"),
    "capture.tsl.two_stage_inner": ("{path}：内部的 {inner} 不是 two_stage 部件计算的"
                                    "（TSL 的 FullAttention，无掩码、默认缩放）"),
    "capture.tsl.two_stage_heads": "{path}：{heads} 个头，跨时间阶段有 {want} 个；two_stage 部件只用一个头数",
    "capture.tsl.two_stage_mlp": "{path}：不是 TSL 的 MLP1 / MLP2 那样的 Linear、GELU（精确）、Linear",
    "capture.tsl.two_stage_input": ("{path}：第 {call} 次调用：输入是 {shape}，TwoStageAttentionLayer 读取"
                                    "（批次, 变量, 段, d_model）"),
    "capture.tsl.conv_layer": ("{path}：不是 TSL 的蒸馏 ConvLayer（Conv1d 核 3、循环填充 2；带运行统计量的 "
                               "BatchNorm1d，eps 1e-5；ELU(1)；MaxPool1d(3, 2, 1)），"
                               "所以它之前的编码器层无法连同它一起记录"),
    "capture.tsl.distil_training": ("{path}：第 {call} 次调用：其后的 ConvLayer 在训练模式下运行，"
                                    "BatchNorm 使用该批次自己的统计量；请调用 model.eval()"),
    "tsl.router_slot": "路由 {i}",
    "cli.opt.import.tau": ("Non-stationary Transformer（DSAttention）层的 τ：一个正数（默认 1；"
                           "模型从原始序列计算它，状态字典里没有）"),
    "cli.opt.import.delta": ("Non-stationary Transformer（DSAttention）层的 Δ：所有键共用一个数，"
                             "或用逗号分隔、每个键一个（默认 0）"),
    "cli.opt.import.start": ("第一个时间步的日期，如 2016-07-01 00:00（与 --freq 一起）："
                             "没有自带标签的时间步以日期作标签"),
    "cli.opt.import.freq": ("时间步的频率，用 Time-Series-Library 的 --freq 写法（s、t/min、h、d、b、w、m，"
                            "可带倍数，如 15min；与 --start 一起）"),
    "models.error.time_axis_pair": "--start 和 --freq 要一起给出：两个都给或都不给",
    "models.error.start": "--start：{got} 不是日期：请写作 2016-07-01 或 2016-07-01 00:00",
    "models.error.freq": "--freq：{got} 不是频率：请用 s、t/min、h、d、b、w 或 m，可带倍数，如 15min 或 3h",
    "models.family.tsl_ds": "Time-Series-Library 的 AttentionLayer（DSAttention，Non-stationary Transformer）",
    "models.family.tsl_autocorr": "Autoformer 的 AutoCorrelationLayer（Time-Series-Library）",
    "models.family.tsl_encoder": "Time-Series-Library 的 EncoderLayer（注意力 + 残差、LayerNorm、卷积）",
    "models.family.tsl_two_stage": "Crossformer 的 TwoStageAttentionLayer（Time-Series-Library）",
    "models.family.tsl_fourier": "FEDformer 的频域增强块（Time-Series-Library）",
    "models.tsl.model": "{model}",
    "models.tsl.stage": "阶段 {stage}",
    "models.tsl.patches": "词元是块（patch_len {patch_len}，stride {stride}；模型切出 {n} 块）",
    "models.tsl.variates": "词元是变量（每个 {steps} 步），然后是时间特征",
    "models.tsl.router": "查询是第 1 段路由的 {n} 个槽（文件自己的路由）",
    "models.tsl.prob_sparse": "ProbSparse 注意力（Informer，factor {factor}）",
    "models.tsl.activation": "激活函数 {activation}",
    "models.tsl.two_stage": "{variables} 个变量 × {seg} 段（词元 v·seg + s），路由每段 {factor} 个槽",
    "models.tsl.two_stage_open": "{seg} 段，路由每段 {factor} 个槽；变量数由 --tokens 或 --inputs 决定",
    "models.tsl.distil": "然后是蒸馏 ConvLayer {conv}",
    "models.error.tsl_two_stage_tokens": ("{name}：这一层有 {seg} 段，词元数必须是 {seg} 的倍数"
                                          "（变量数 × 段数）；实际为 {got}"),
    "models.error.tau": "--tau：{got} 不是正的有限数（DSAttention 的 τ = exp(…) > 0）",
    "models.error.delta": "--delta：{got} 不是一个有限数，也不是用逗号分隔的 {S} 个有限数（每个键一个）",
    "models.error.delta_decoder_self": ("--delta：{name} 是解码器的自注意力，TSL 的 DecoderLayer 调用它时传的是 "
                                        "delta=None（只有 τ 传得到）；请去掉 --delta"),
    "models.error.tau_layer": ("--tau / --delta：{name} 不是 Non-stationary Transformer 的层（DSAttention）；"
                               "只有这种层接受 τ 和 Δ"),
    "models.reason.tsl_shape": "{tensor} 的形状是 {shape}，这一层的宽度需要 {expected}",
    "models.reason.tsl_missing": "文件里没有 {tensor}",
    "models.error.tsl_problem": "{name}：引擎无法按要求容纳这一层：{problem}",
    "models.reason.tsl_fourier": "FEDformer 的傅里叶/小波块不是引擎计算的注意力",
    "models.notes.tsl_ds": ("τ 和 Δ 无法从状态字典得到："
                            "模型在每次前向时从原始序列（tau_learner、delta_learner）计算它们。"
                            "这个场景使用 τ = 1、Δ = 0，此时 DSAttention 就是普通的完整注意力；可以在 modifiers 下修改"
                            "（τ 每条序列一个，Δ 每个键一个），或者用 attention.capture 记录一次真实的前向传播，"
                            "它会保留这一层收到的 τ 和 Δ。"),
    "models.notes.tsl_autocorr": ("自相关，factor {factor}（k = int(factor · ln L) 个滞后），"
                                  "推理路径（模块处于 eval()）；"
                                  "库把键和值对齐到查询的长度：多于 L 步时截断，少于时在末尾补零步。"),
    "models.notes.tsl_ds_given": ("τ 和 Δ 取自 --tau / --delta（τ = {tau}，Δ = {delta}）；"
                                  "模型在每次前向时从原始序列计算它们，attention.capture 会记录真实的值。"),
    "models.notes.tsl_ds_self": ("τ 无法从状态字典得到：模型在每次前向时从原始序列（tau_learner）计算它。"
                                 "这个场景使用 τ = 1（可用 --tau 给出别的值）；"
                                 "Δ 为 0，因为 TSL 的 DecoderLayer 调用自注意力时传的是 delta=None。"
                                 "attention.capture 会记录真实前向传入的 τ。"),
    "models.notes.tsl_ds_self_given": ("τ 取自 --tau（τ = {tau}）；Δ 为 0，因为 TSL 的 DecoderLayer 调用自注意力时"
                                       "传的是 delta=None。模型在每次前向时从原始序列计算 τ，"
                                       "attention.capture 会记录真实的值。"),
    "models.notes.tsl_two_stage": ("Crossformer 的完整 TwoStageAttentionLayer：词元是 {variables} 个变量 × {seg} 段"
                                   "（词元 v·seg + s）；注意力是跨时间阶段（time_attention，每个变量只看自己的段），"
                                   "然后是 norm1、MLP1、norm2、文件自己的路由及 dim_sender 和 dim_receiver、"
                                   "norm3、MLP2 和 norm4：这一层的输出是 extra.tsa_output。"),
    "models.notes.tsl_distil": ("Informer 的 Encoder 在这一层的输出上运行 {conv}：卷积（核 3，循环填充）、"
                                "使用文件中运行统计量的 BatchNorm（eval）、ELU 和最大池化"
                                "（extra.distil_pool，步数约减半）。"),
    "models.notes.tsl_encoder": ("输出投影之后是这一层自己的步骤：x + 输出、norm1、conv1 和 {activation}、conv2、"
                                 "第二个残差和 norm2（这一层的输出，extra.norm_second）。"),
    "models.notes.tsl_activation_default": ("文件没有说明激活函数：使用 Time-Series-Library 的默认值 gelu；"
                                            "如果模型是用 relu 训练的，请修改 modifiers[…].activation。"),
    "models.notes.tsl_prob": ("Informer 的编码器使用 ProbAttention：场景用 ProbSparse 打分（factor {factor}）；"
                              "它的键采样由场景的种子抽取。"),
    "models.notes.tsl_router": ("Crossformer 的 dim_sender：查询是这一层自己第 1 段的路由向量；"
                                "键和值代表这一段的各个变量。"),
    "models.notes.tsl_stage": "Crossformer 的 {stage}，TwoStageAttentionLayer 的三个注意力之一。",
}
