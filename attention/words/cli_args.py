"""Words of argparse's own error lines (attention.cli.cli_args), of `main.py render` (app/startup/render_cli.py)
and of the CLI's own argument checks."""
from __future__ import annotations

# ---- argparse's own messages, as Python's argparse words them (placeholders: its %(name)s) ------------------------
ARGPARSE_EN = {
    "cli.arg.error": "{prog}: error: {message}",
    "cli.arg.argument": "argument {argument_name}: {message}",
    "cli.arg.invalid_value": "invalid {type} value: {value}",
    "cli.arg.invalid_choice": "invalid choice: {value} (choose from {choices})",
    "cli.arg.required": "the following arguments are required: {args}",
    "cli.arg.unrecognized": "unrecognized arguments: {args}",
    "cli.arg.expected_one": "expected one argument",
    "cli.arg.expected_at_most_one": "expected at most one argument",
    "cli.arg.expected_at_least_one": "expected at least one argument",
    "cli.arg.expected_n": "expected {args} argument(s)",
    "cli.arg.ambiguous": "ambiguous option: {option} could match {matches}",
    "cli.arg.not_allowed_with": "not allowed with argument {args}",
    "cli.arg.ignored_explicit": "ignored explicit argument {args}",
    "cli.arg.one_of_required": "one of the arguments {args} is required",
    "cli.arg.unknown_parser": "unknown parser {parser_name} (choices: {choices})",
    "cli.arg.type.int": "int",
    "cli.arg.type.float": "float",
}
ARGPARSE_ZH = {
    "cli.arg.error": "{prog}：错误：{message}",
    "cli.arg.argument": "参数 {argument_name}：{message}",
    "cli.arg.invalid_value": "无效的{type}值：{value}",
    "cli.arg.invalid_choice": "无效的选择：{value}（可选：{choices}）",
    "cli.arg.required": "缺少以下参数：{args}",
    "cli.arg.unrecognized": "无法识别的参数：{args}",
    "cli.arg.expected_one": "需要一个值",
    "cli.arg.expected_at_most_one": "最多需要一个值",
    "cli.arg.expected_at_least_one": "至少需要一个值",
    "cli.arg.expected_n": "需要 {args} 个值",
    "cli.arg.ambiguous": "有歧义的选项：{option} 可匹配 {matches}",
    "cli.arg.not_allowed_with": "不能与参数 {args} 同用",
    "cli.arg.ignored_explicit": "忽略了显式给出的值 {args}",
    "cli.arg.one_of_required": "参数 {args} 中必须给出一个",
    "cli.arg.unknown_parser": "未知的命令 {parser_name}（可选：{choices}）",
    "cli.arg.type.int": "整数",
    "cli.arg.type.float": "小数",
}

# ---- main.py render: its --help and its own lines ------------------------------------------------------------------
RENDER_EN = {
    "cli.cmd.render": "write a handout (a PNG of every step and handout.html) or a worksheet",
    "cli.cmd.render.about": (
        "Write a PNG of every step of a scenario's trace and one self-contained HTML handout (handout.html, "
        "images embedded) into a folder."),
    "cli.opt.render.file": "scenario file (.json)",
    "cli.opt.render.out": "folder to write into (created if missing)",
    "cli.opt.render.lang": "language of the handout (default en)",
    "cli.opt.render.dtype": "override the scenario's dtype",
    "cli.opt.render.device": "override the scenario's device",
    "cli.opt.render.batch": "batch item the pictures show, counted from 1 (default 1, the first)",
    "cli.opt.render.blank": (
        "write a worksheet with these steps left blank (step ids, e.g. attention_weights, or 'tiles' for "
        "FlashAttention's running m, l, O) and its answer key instead of the handout; may be repeated"),
    "cli.render.batch": "--batch: batch items are counted from 1; expected 1 to {last}, got {got}",
    "cli.render.mkdir": "--out {path}: cannot create the folder ({why})",
    "cli.render.not_writable": "--out {path}: the folder is not writable",
    "cli.render.error": "error: {why}",
    "cli.explain_index": "{file}: index: expected whole numbers, got {got}",
}
RENDER_ZH = {
    "cli.cmd.render": "写出讲义（每一步的 PNG 和 handout.html）或练习纸",
    "cli.cmd.render.about": (
        "把场景计算过程中每一步的 PNG 图和一个自包含的 HTML 讲义（handout.html，图片内嵌）写入一个文件夹。"),
    "cli.opt.render.file": "场景文件（.json）",
    "cli.opt.render.out": "写入的文件夹（不存在则创建）",
    "cli.opt.render.lang": "讲义的语言（默认 en）",
    "cli.opt.render.dtype": "覆盖场景的数据类型",
    "cli.opt.render.device": "覆盖场景的设备",
    "cli.opt.render.batch": "图中显示的批次项，从 1 数起（默认 1，即第一项）",
    "cli.opt.render.blank": (
        "改为写出练习纸：这些步骤留空（步骤 id，例如 attention_weights，或 'tiles' 表示 FlashAttention 的"
        "运行中 m、l、O），并附答案；可重复给出"),
    "cli.render.batch": "--batch：批次项从 1 数起，应在 1 到 {last} 之间，得到的是 {got}",
    "cli.render.mkdir": "--out {path}：无法创建文件夹（{why}）",
    "cli.render.not_writable": "--out {path}：文件夹不可写",
    "cli.render.error": "错误：{why}",
    "cli.explain_index": "{file}：index：应为整数，得到的是 {got}",
}

EN = {**ARGPARSE_EN, **RENDER_EN}
ZH = {**ARGPARSE_ZH, **RENDER_ZH}
