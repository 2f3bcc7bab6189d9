"""Every word the step panes show, in English and Chinese.  Qt-free.

Step titles and formulas come from the engine (`Step.title` / `Step.formula`); this module only
holds what the panes add around them: axis names, head names, hover phrases, banners.  Axes are
named by the dim they index (the engine's dim names: L, S, H*dk, dk, ...), never left as bare
numbers.
"""
from __future__ import annotations

LANGS = ("en", "zh")

#: dim -> (plural axis name en, zh, singular noun en, zh)
DIM_WORDS: dict[str, tuple[str, str, str, str]] = {
    "L": ("queries (L)", "查询 (L)", "query", "查询"),
    "S": ("keys (S)", "键 (S)", "key", "键"),
    "H*dk": ("features: H heads × d_k", "特征：H 个头 × d_k", "feature", "特征"),
    "H*dv": ("features: H heads × d_v", "特征：H 个头 × d_v", "feature", "特征"),
    "dk": ("head features (d_k)", "头内特征 (d_k)", "head feature", "头内特征"),
    "dv": ("head features (d_v)", "头内特征 (d_v)", "head feature", "头内特征"),
    "d_out": ("output features (d_out)", "输出特征 (d_out)", "output feature", "输出特征"),
    "H": ("heads (H)", "头 (H)", "head", "头"),
    "n_sample": ("sampled keys, in draw order", "采样到的键（按抽取顺序）", "draw", "抽取"),
    "n_top": ("chosen queries, by rank", "选中的查询（按名次）", "rank", "名次"),
    "flag": ("every key masked?", "所有键都被掩蔽？", "flag", "标记"),
    "rows_mixed": ("rows (TSL view: positions mixed across heads)", "行（TSL 视图：位置与头混合）", "row", "行"),
}

UI: dict[str, tuple[str, str]] = {
    "head": ("Head {n}", "头 {n}"),
    "all_heads": ("All heads", "全部头"),
    "heads_label": ("Heads:", "头："),
    "hover_hint": ("Hover a cell to read its exact value.", "将鼠标停在单元格上可查看精确值。"),
    "hover_hint_heads": (
        "Hover a cell to read its exact value; click a head's title to show that head alone.",
        "将鼠标停在单元格上可查看精确值；点击头的标题只显示该头。",
    ),
    "numbers_hidden_heads": (
        "Numbers hidden: cells too small. Show one head or hover a cell.",
        "单元格太小，未显示数字。可只显示一个头，或将鼠标停在单元格上。",
    ),
    "numbers_hidden": (
        "Numbers hidden: cells too small. Hover a cell to read it.",
        "单元格太小，未显示数字。将鼠标停在单元格上可读数。",
    ),
    "legend_masked": (
        "Hatched cells are masked: their score was replaced by the fill value {fill}.",
        "斜线格为被掩蔽的位置：分数已替换为填充值 {fill}。",
    ),
    "legend_masked_weight": (
        "Hatched cells are masked keys: their weight comes from the fill value {fill}.",
        "斜线格为被掩蔽的键：其权重来自填充值 {fill}。",
    ),
    "legend_not_computed": (
        "Grey cross-hatched cells were never computed (ProbSparse lazy queries).",
        "灰色网格单元从未计算（ProbSparse 惰性查询）。",
    ),
    "numbers_large": (
        "Numbers are printed up to 16 × 16 (or 256 cells); hover a cell to read it.",
        "只有 16 × 16（或 256 个单元格）以内的矩阵会显示数字；将鼠标停在单元格上可读数。",
    ),
    "shape": ("{dims} = {sizes}, batch item {b}", "{dims} = {sizes}，批次第 {b} 项"),
    "shape_nobatch": ("{dims} = {sizes}, same for every batch item", "{dims} = {sizes}，所有批次项相同"),
    "stale": ("Not updated: {reason}. Showing the last good result.", "未更新：{reason}。显示的是上一次有效的结果。"),
    "stale_noreason": ("Not updated. Showing the last good result.", "未更新。显示的是上一次有效的结果。"),
    "stale_tag": ("stale", "已过期"),
    "value": ("value", "值"),
    "row": ("row", "行"),
    "column": ("column", "列"),
    "masked": ("masked: replaced by the fill value", "被掩蔽：已替换为填充值"),
    "masked_weight": ("masked key: weight from the fill value", "被掩蔽的键：由填充值得到的权重"),
    "masked_flag": ("masked", "被掩蔽"),
    "not_masked_flag": ("not masked", "未被掩蔽"),
    "not_computed": ("not computed (ProbSparse lazy query)", "未计算（ProbSparse 惰性查询）"),
    "nan": ("NaN (not a number)", "NaN（非数）"),
    "true": ("True", "True"),
    "false": ("False", "False"),
    "times_sampled": ("sampled {n} times", "被采样 {n} 次"),
    "head_part": ("head {h}, #{i}", "第 {h} 头，第 {i} 个"),
}


def ui(key: str, lang: str, **fmt) -> str:
    en, zh = UI[key]
    text = zh if lang == "zh" else en
    return text.format(**fmt) if fmt else text


def dim_name(dim: str, lang: str) -> str:
    w = DIM_WORDS.get(dim)
    if w is None:
        return dim
    return w[1] if lang == "zh" else w[0]


def dim_noun(dim: str, lang: str) -> str:
    w = DIM_WORDS.get(dim)
    if w is None:
        return dim
    return w[3] if lang == "zh" else w[2]


def head_name(h: int, lang: str) -> str:
    """Heads are numbered from 1 on screen (head 1 owns the first d_k columns)."""
    return ui("head", lang, n=h + 1)
