"""The lessons: two or three sentences per step for presentation mode and the handouts.

app/viewmodel/lessons.py chooses the sentences for a trace (its scale, fill value, kind) and
fills the ``{placeholders}`` from the trace's options.  Keys: ``lesson.<step id>.<sentence>``;
``param.<name>`` titles the parameters presentation mode shows as a step's inputs.
"""
from __future__ import annotations

EN: dict[str, str] = {
    # projection
    "lesson.projection.query": (
        "Each query row is multiplied by the learned matrix W_q (plus a bias): Q is a projection of the input, not the "
        "input itself."
    ),
    "lesson.projection.key": (
        "Each key row is multiplied by its own learned matrix W_k (plus a bias), so keys live in the same space as the "
        "projected queries and can be compared with them."
    ),
    "lesson.projection.value": (
        "Each value row is multiplied by W_v (plus a bias): the values are what will be mixed together, and the model "
        "learns what information to carry."
    ),
    "lesson.projection.why": (
        "Three different projections of the same tokens let the model learn separately what to look for (Q), what to "
        "be found by (K) and what to hand over (V). With the projection switched off (d2l's scoring functions have "
        "none) the input passes unchanged."
    ),
    # head_split
    "lesson.head_split.one_head": (
        "With one head nothing is cut: the single head owns all {width} columns of the projected row, and the view "
        "only adds a head axis of size 1. Set H to 2 or more to see d_model shared out between heads."
    ),
    "lesson.head_split.cut": (
        "The {heads} heads do not get new weights: the projected row is cut into {heads} blocks of {width} columns, hea"
        "d h owning columns (h−1)·{width}+1 … h·{width} (head 1 the first {width})."
    ),
    "lesson.head_split.shared": (
        "So d_model is shared out rather than copied: {heads} heads of width {width} cost the same as one wide head, "
        "yet each head can attend to different positions."
    ),
    # scores
    "lesson.scores.additive": (
        "Additive attention (d2l) scores a query and a key with a small network: w_v · tanh(W_q q + W_k k), with {hidde"
        "n} hidden units."
    ),
    "lesson.scores.additive_widths": (
        "Queries and keys may have different widths, since W_q and W_k map both into the same hidden space; tanh keeps "
        "each feature in [-1, 1]. d2l applies no scale: scale is 1 here unless one is set (the formula's × scale)."
    ),
    "lesson.scores.dot": (
        "Each score is the dot product q · k of one query with one key: large when they point the same way."
    ),
    "lesson.scores.dot_unscaled": (
        "This kind does not scale (scale = {scale}); with wide heads the scores grow and the softmax becomes almost "
        "one-hot."
    ),
    "lesson.scores.scaled": (
        "Each score is the dot product q · k of one query with one key, multiplied by the scale 1/√d_k."
    ),
    "lesson.scores.why_sqrt_dk": (
        "Why 1/√d_k: a dot product of d_k independent terms of variance 1 has variance d_k, so dividing by √d_k keeps t"
        "he scores near unit size and the softmax from saturating."
    ),
    "lesson.scores.scaled_custom": (
        "Each score is the dot product q · k of one query with one key, multiplied by the scale {scale}, set by hand (t"
        "he default would be 1/√{dk})."
    ),
    "lesson.scores.scaled_default": (
        "Each score is the dot product q · k of one query with one key, multiplied by the scale {scale} = 1/√{dk}."
    ),
    "lesson.scores.why_sqrt": (
        "Why 1/√d_k: a dot product of d_k independent terms of variance 1 has variance d_k, so dividing by √{dk} = {sqr"
        "t_dk} keeps the scores near unit size and the softmax from saturating."
    ),
    "lesson.scores.prob_sparse": (
        "ProbSparse computes these scores only for its chosen queries; the other rows were never computed and are "
        "drawn as such."
    ),
    # masked_scores
    "lesson.masked_scores.no_mask": (
        "No mask is set, so the masked scores are the scores unchanged. Set valid lengths or causal to see padding or "
        "future keys excluded."
    ),
    "lesson.masked_scores.fill": (
        "Every masked position is replaced by the fill value {fill}: keys beyond a row's valid length (key s is kept "
        "when s ≤ valid_len, counting keys from 1 as the labels do), and with causal masking every key after the "
        "query (s > l)."
    ),
    "lesson.masked_scores.neg_inf": "Time-Series-Library fills with -∞, so a masked key gets exactly zero weight.",
    "lesson.masked_scores.finite": (
        "Like d2l's -1e6, the fill is a very large negative number rather than -∞: its exponential underflows to zero, "
        "and the arithmetic never meets an infinity."
    ),
    # attention_weights
    "lesson.attention_weights.softmax": (
        "Softmax turns each row of scores into weights that are positive and sum to 1: the weight at (query l, key s) "
        "is how much query l takes from value s."
    ),
    "lesson.attention_weights.shape": (
        "The weights have shape (batch, queries, key-value pairs), one such matrix per head: row l says how query l "
        "shares its attention among the keys."
    ),
    "lesson.attention_weights.neg_inf": (
        "Masked keys get weight 0. If every key of a row is masked, the row is all -∞ and softmax gives NaN (0/0) in th"
        "at row."
    ),
    "lesson.attention_weights.finite": (
        "Masked keys get weight 0. If every key of a row is masked, the row is all {fill} and softmax gives uniform wei"
        "ghts 1/{S} over all keys, padding included; with -∞ it would be NaN."
    ),
    "lesson.attention_weights.prob_sparse": (
        "For queries ProbSparse did not choose, the effective weights are 1/S (their output is the mean of V), or with "
        "causal masking 1 for every key up to the query (a cumulative sum)."
    ),
    # weighted_sum
    "lesson.weighted_sum.sum": (
        "Each output row is the weighted sum Σ_s a_ls v_s of the value rows, with that query's weights: an average of t"
        "he values, leaning towards the keys it attends to."
    ),
    "lesson.weighted_sum.shapes": (
        "In shapes: (batch, queries, key-value pairs) × (batch, key-value pairs, d_v) → (batch, queries, d_v), as torch"
        ".bmm computes it, in every head."
    ),
    # concat
    "lesson.concat.view": (
        "The heads' outputs are put side by side again: a plain view of (B, L, {heads}, {dv}) as (B, L, {heads}·{dv}), "
        "no arithmetic, so each row holds what every head found for that query."
    ),
    "lesson.concat.mix": (
        "With Time-Series-Library's ProbSparse layout the view is taken without a transpose, so a row mixes positions "
        "and heads."
    ),
    # output
    "lesson.output.mix": (
        "The out projection W_o (plus a bias) multiplies the concatenated row: this is where the heads' results are "
        "mixed with each other."
    ),
    "lesson.output.shape": (
        "It gives back a row of width d_model for each query, the same shape the layer received, so attention layers "
        "can be stacked. Switched off, the output is the concatenation itself."
    ),
    # extra.mask
    "lesson.extra.mask.marks": "The mask marks the keys a query may not see (✓ = masked).",
    "lesson.extra.mask.d2l": (
        "Counting keys from 1 as the labels do, key s is kept when s ≤ valid_len and masked when s > valid_len (d2l's "
        "code counts from 0: arange(S) < valid_len); causal masking also hides every key s > l."
    ),
    # extra.fully_masked
    "lesson.extra.fully_masked": (
        "These rows have every key masked, for instance a valid length of 0. Their softmax has nothing left to choose f"
        "rom: uniform weights with a finite fill such as -1e6, NaN with -∞."
    ),
    # extra.sample_index
    "lesson.extra.sample_index": (
        "ProbSparse draws {n_sample} random keys for every query (with replacement, from the seeded generator); the "
        "same draw serves every batch item and head."
    ),
    # extra.additive_features
    "lesson.extra.additive_features.what": (
        "Additive attention (d2l) first maps the query with W_q and the key with W_k into {hidden} hidden units, adds "
        "the two and squashes the sum with tanh into (−1, 1): one feature per hidden unit for every query and key."
    ),
    "lesson.extra.additive_features.layout": (
        "Each block is one hidden unit, laid out as the scores (queries down, keys across); the score of a query and a "
        "key is w_v · their {hidden} features, one from each block."
    ),
    # extra.sample_count
    "lesson.extra.sample_count.samples": (
        "ProbSparse (Informer) does not score every query against every key at first: it samples {n_sample} keys per "
        "query. This shows how often each key was drawn for each query."
    ),
    "lesson.extra.sample_count.cost": (
        "Sampling is enough to tell which queries are 'active', at a cost of L·ln S instead of L·S dot products."
    ),
    # extra.sampled_scores
    "lesson.extra.sampled_scores": (
        "The unscaled dot products of each query with its sampled keys only. They are used to measure how peaked each "
        "query's attention is, not as the final scores."
    ),
    # extra.sparsity
    "lesson.extra.sparsity.measure": "The sparsity measure M = max − sum / S over the sampled scores.",
    "lesson.extra.sparsity.meaning": (
        "A query whose attention is close to uniform has M near 0; a large M means a few keys stand out, so that query "
        "is worth computing exactly."
    ),
    # extra.top_index
    "lesson.extra.top_index": (
        "The {n_top} queries with the largest M in each head; only they get full scores and a softmax."
    ),
    # extra.selected
    "lesson.extra.selected.chosen": (
        "The {n_top} queries with the largest M in each head are chosen (✓); only their rows get full scores and a "
        "softmax."
    ),
    "lesson.extra.selected.lazy": (
        "The other, 'lazy' queries keep a cheap default output: the mean of the values (or their cumulative sum when "
        "causal)."
    ),
    # parameters shown as inputs
    "param.queries": "Queries (input)",
    "param.keys": "Keys (input)",
    "param.values": "Values (input)",
    "param.projection.query.weight": "Query projection weight W_q",
    "param.projection.key.weight": "Key projection weight W_k",
    "param.projection.value.weight": "Value projection weight W_v",
    "param.projection.out.weight": "Output projection weight W_o",
}

ZH: dict[str, str] = {
    # projection
    "lesson.projection.query": "每一行查询都要乘以可学习的矩阵 W_q（再加偏置）：Q 是输入的投影，而不是输入本身。",
    "lesson.projection.key": (
        "每一行键乘以它自己的可学习矩阵 W_k（再加偏置），这样键和投影后的查询处在同一个空间里，才能互相比较。"
    ),
    "lesson.projection.value": "每一行值乘以 W_v（再加偏置）：值是最后要被加权混合的内容，模型由此学会要传递哪些信息。",
    "lesson.projection.why": (
        "对同一批词元做三个不同的投影，模型就能分别学习：要找什么（Q）、凭什么被找到（K）、交出什么（V）。关闭投影时（d"
        "2l 的评分函数本身不带投影），输入原样通过。"
    ),
    # head_split
    "lesson.head_split.one_head": (
        "只有一个头时什么也不切：这个头拥有投影后每一行的全部 {width} 列，.view() 只是多加了一个大小为 1 的头维度。"
        "把 H 设为 2 或更大，就能看到 d_model 如何分给各个头。"
    ),
    "lesson.head_split.cut": (
        "{heads} 个头并没有各自新的权重：投影后的每一行被切成 {heads} 段，每段 {width} 列，第 h 头取第 (h−1)·{width}+1 "
        "到 h·{width} 列（第 1 头取前 {width} 列）。"
    ),
    "lesson.head_split.shared": (
        "所以 d_model 是被分给各个头，而不是复制给每个头：{heads} 个宽 {width} 的头，计算量和一个宽头相同，但每个头可以"
        "关注不同的位置。"
    ),
    # scores
    "lesson.scores.additive": (
        "加性注意力（d2l）用一个小网络给查询和键打分：w_v · tanh(W_q q + W_k k)，隐藏单元数为 {hidden}。"
    ),
    "lesson.scores.additive_widths": (
        "查询和键的维度可以不同，因为 W_q 和 W_k 把二者映射到同一个隐藏空间；tanh 把每个特征限制在 [-1, 1] 内。d2l 不"
        "做缩放：除非另行设置，这里缩放系数为 1（即公式中的 × 缩放系数）。"
    ),
    "lesson.scores.dot": "每个分数是一个查询与一个键的点积 q · k：二者方向越一致，分数越大。",
    "lesson.scores.dot_unscaled": (
        "这种评分不做缩放（缩放系数 = {scale}）；头的维度越大，分数越大，softmax 就越接近独热。"
    ),
    "lesson.scores.scaled": "每个分数是一个查询与一个键的点积 q · k，再乘以缩放因子 1/√d_k。",
    "lesson.scores.why_sqrt_dk": (
        "为什么是 1/√d_k：d_k 个方差为 1 的独立项相乘再求和，点积的方差是 d_k；除以 √d_k，分数就保持在 1 左右的量级，so"
        "ftmax 不会饱和。"
    ),
    "lesson.scores.scaled_custom": (
        "每个分数是一个查询与一个键的点积 q · k，再乘以手动设定的缩放因子 {scale}（默认值应为 1/√{dk}）。"
    ),
    "lesson.scores.scaled_default": "每个分数是一个查询与一个键的点积 q · k，再乘以缩放因子 {scale} = 1/√{dk}。",
    "lesson.scores.why_sqrt": (
        "为什么是 1/√d_k：d_k 个方差为 1 的独立项相乘再求和，点积的方差是 d_k；除以 √{dk} = {sqrt_dk}，分数就保持在 1 "
        "左右的量级，softmax 不会饱和。"
    ),
    "lesson.scores.prob_sparse": "ProbSparse 只为选中的查询计算这些分数；其余行从未计算，图中也按“未计算”画出。",
    # masked_scores
    "lesson.masked_scores.no_mask": (
        "没有设置掩码，所以掩蔽后的分数与原分数完全相同。设置有效长度或因果掩码，就能看到填充位置或未来的键被排除。"
    ),
    "lesson.masked_scores.fill": (
        "每个被掩蔽的位置都替换为填充值 {fill}：包括超出该行有效长度的键（与标签一样从 1 数起，s ≤ 有效长度的键保留），"
        "以及因果掩码下查询之后的所有键（s > l）。"
    ),
    "lesson.masked_scores.neg_inf": "Time-Series-Library 用 -∞ 填充，所以被掩蔽的键权重恰好为 0。",
    "lesson.masked_scores.finite": (
        "和 d2l 的 -1e6 一样，填充值是一个非常大的负数而不是 -∞：它的指数下溢为 0，计算过程中也不会出现无穷大。"
    ),
    # attention_weights
    "lesson.attention_weights.softmax": (
        "softmax 把每一行分数变成一组正的、和为 1 的权重：(查询 l, 键 s) 处的权重，就是查询 l 从值 s 中取多少。"
    ),
    "lesson.attention_weights.shape": (
        "注意力权重的形状是（批量大小，查询的个数，“键－值”对的个数），每个头一个这样的矩阵：第 l 行表示查询 l 如何把注"
        "意力分配给各个键。"
    ),
    "lesson.attention_weights.neg_inf": (
        "被掩蔽的键权重为 0。如果某一行的键全部被掩蔽，这一行全是 -∞，softmax 在这一行得到 NaN（0/0）。"
    ),
    "lesson.attention_weights.finite": (
        "被掩蔽的键权重为 0。如果某一行的键全部被掩蔽，这一行全是 {fill}，softmax 会在所有键（包括填充位置）上给出均匀"
        "权重 1/{S}；若用 -∞ 则得到 NaN。"
    ),
    "lesson.attention_weights.prob_sparse": (
        "对于 ProbSparse 没有选中的查询，等效权重是 1/S（输出为 V 的均值）；在因果掩码下则是对查询及其之前的每个键都取 "
        "1（即累加和）。"
    ),
    # weighted_sum
    "lesson.weighted_sum.sum": (
        "每一行输出是值向量按该查询的权重求的加权和 Σ_s a_ls v_s：它是值的平均，但偏向该查询关注的那些键。"
    ),
    "lesson.weighted_sum.shapes": (
        "按形状看：（批量，查询个数，“键－值”对个数）×（批量，“键－值”对个数，d_v）→（批量，查询个数，d_v），正是 torch"
        ".bmm 的计算，每个头各做一次。"
    ),
    # concat
    "lesson.concat.view": (
        "把各头的输出重新并排拼接：只是把 (B, L, {heads}, {dv}) 直接用 .view() 变成 (B, L, {heads}·{dv})，"
        "不做任何运算，于是每一行包含了所有头为该查询找到的结果。"
    ),
    "lesson.concat.mix": (
        "按 Time-Series-Library 的 ProbSparse 布局，这次 .view() 之前没有转置，所以一行里混合了不同的位置和头。"
    ),
    # output
    "lesson.output.mix": "输出投影 W_o（再加偏置）作用在拼接后的每一行上：各个头的结果正是在这里相互混合。",
    "lesson.output.shape": (
        "它为每个查询给回一行 d_model 维的结果，与这一层的输入形状相同，所以注意力层可以层层堆叠。关闭输出投影时，输出"
        "就是拼接结果本身。"
    ),
    # extra.mask
    "lesson.extra.mask.marks": "掩码标出查询不能看到的键（✓ 表示被掩蔽）。",
    "lesson.extra.mask.d2l": (
        "与标签一样从 1 数起：s ≤ 有效长度的键保留，s > 有效长度的键被掩蔽"
        "（d2l 的代码从 0 数起：arange(S) < valid_len）；因果掩码还会遮住所有 s > l 的键。"
    ),
    # extra.fully_masked
    "lesson.extra.fully_masked": (
        "这些行的键全部被掩蔽，例如有效长度为 0。它们的 softmax 已经无从选择：用 -1e6 这样的有限填充值得到均匀权重，用 "
        "-∞ 则得到 NaN。"
    ),
    # extra.sample_index
    "lesson.extra.sample_index": (
        "ProbSparse 为每个查询随机抽取 {n_sample} 个键（有放回，使用带种子的随机数生成器）；所有批次项和所有头共用同一"
        "次抽样。"
    ),
    # extra.sample_count
    "lesson.extra.additive_features.what": (
        "加性注意力（d2l）先用 W_q 把查询、用 W_k 把键映射到 {hidden} 个隐藏单元，两者相加后经 tanh 压缩到 (−1, 1)："
        "每个查询与键的组合在每个隐藏单元上都有一个特征。"
    ),
    "lesson.extra.additive_features.layout": (
        "每一块是一个隐藏单元，排布与分数相同（查询向下，键向右）；"
        "查询与键的分数是 w_v 与它们的 {hidden} 个特征（每块一个）的点积。"
    ),
    "lesson.extra.sample_count.samples": (
        "ProbSparse（Informer）一开始并不计算每个查询与每个键的分数：它为每个查询采样 {n_sample} 个键。这里显示每个键被"
        "每个查询抽中的次数。"
    ),
    "lesson.extra.sample_count.cost": "靠采样就足以判断哪些查询是“活跃”的，代价只有 L·ln S 次点积，而不是 L·S 次。",
    # extra.sampled_scores
    "lesson.extra.sampled_scores": (
        "这里只是每个查询与其采样键的未缩放点积。它们用来衡量每个查询的注意力有多集中，而不是最终的分数。"
    ),
    # extra.sparsity
    "lesson.extra.sparsity.measure": "稀疏度量 M = 采样分数的最大值 − 总和 / S。",
    "lesson.extra.sparsity.meaning": (
        "注意力接近均匀的查询，M 接近 0；M 大说明有少数几个键特别突出，这个查询值得精确计算。"
    ),
    # extra.top_index
    "lesson.extra.top_index": "每个头中 M 最大的 {n_top} 个查询；只有它们会计算完整的分数和 softmax。",
    # extra.selected
    "lesson.extra.selected.chosen": (
        "每个头中 M 最大的 {n_top} 个查询被选中（✓）；只有这些行会计算完整的分数和 softmax。"
    ),
    "lesson.extra.selected.lazy": "其余的“惰性”查询保留一个廉价的默认输出：值的均值（因果时为值的累加和）。",
    # parameters shown as inputs
    "param.queries": "查询（输入）",
    "param.keys": "键（输入）",
    "param.values": "值（输入）",
    "param.projection.query.weight": "查询投影权重 W_q",
    "param.projection.key.weight": "键投影权重 W_k",
    "param.projection.value.weight": "值投影权重 W_v",
    "param.projection.out.weight": "输出投影权重 W_o",
}
