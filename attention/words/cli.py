"""Words of the command line (main.py and attention.cli): what a person reads in a terminal."""
from __future__ import annotations

EN = {
    "cli.needs_display": (
        "main.py: the window needs a display and none was found ({why}); without one, use a headless "
        "command: {commands} (python main.py --help)"),
    "cli.no_display_env": "DISPLAY and WAYLAND_DISPLAY are not set",
    "cli.unknown_command": (
        "main.py: unknown command '{word}'{near}; the commands are {commands}, or give a scenario file "
        "(.json) to open it in the window"),
    "cli.did_you_mean": " (did you mean '{near}'?)",
    "cli.unknown_option": "main.py: unknown option '{word}'; the commands are {commands} (python main.py --help)",
    "cli.trace_too_big": (
        "{file}: the trace would be about {size} as JSON text ({numbers} numbers), more than the {limit} "
        "this command writes to a terminal or pipe by default; write it compactly with --out FILE.npz "
        "(about {npz}), keep only some steps with --steps {example}, or raise the limit with "
        "--max-json {suggest}"),
    "cli.trace_too_big_least": (
        "{file}: the trace would be at least {size} as JSON text (at least {numbers} numbers, counted from the "
        "shapes; nothing was computed), more than the {limit} this command writes to a terminal or pipe by default; "
        "write it compactly with --out FILE.npz (at least {npz}), keep only some steps with --steps {example}, or "
        "lift the limit with --max-json 0"),
    "cli.trace_steps_unknown": "--steps: no step '{step}' in this scenario's trace; its steps are {steps}",
    "cli.out_suffix": "--out: expected a file name ending in .npz or .json, got '{path}'",
    "cli.size_number": "--max-json: expected a size such as 500MB, 2GB or 0 (no limit), got '{text}'",
    "cli.write_failed": "--out: cannot write {path}: {why}",
    "cli.not_regular": "{path}: {kind}, not a regular file; nothing was written (choose a file name)",
    "cli.kind.fifo": "a pipe (FIFO)",
    "cli.kind.socket": "a socket",
    "cli.kind.device": "a device",
    "cli.kind.directory": "a folder",
    "cli.kind.other": "not a regular file",
    "cli.read_only": (
        "{path} is write-protected; nothing was written (remove the protection, e.g. chmod u+w, "
        "or choose another file)"),
    "cli.kind.link": "a symbolic link",
    # what a write may replace (attention/out_guard.py)
    "cli.out.input": (
        "{flag} {path}: this is a file the command reads ({input}); nothing was written (choose another name)"),
    "cli.out.other_kind": (
        "{flag} {path}: exists and is not a {kind} file; nothing was written (remove it or choose another name)"),
    "cli.out.link": (
        "{flag} {path}: is a symbolic link (to {target}); nothing was written through it (give the file itself, "
        "or remove the link)"),
    "cli.out.kind.scenario": "scenario",
    "cli.out.kind.trace": "trace",
    "cli.out.kind.script": "script",
    "cli.out.kind.worksheet": "worksheet",
    "cli.out.kind.head_map": "head-importance map",
    # bounds on what an option can ask for (attention/limits.py)
    "cli.range": "{flag}: expected {expected}, got {got}",
    "cli.size_range": "--max-json: expected a size of at most {limit} (or 0: no limit), got '{text}'",
    "cli.trace_too_big_memory": (
        "{file}: the JSON text (about {size}) would take about {need} of memory to build, more than the {free} "
        "this machine can give now; write it compactly with --out FILE.npz (about {npz}) or keep only some steps "
        "with --steps {example}"),
    "cli.warning": "warning: {what}",
}

ZH = {
    "cli.needs_display": (
        "main.py：窗口需要显示器，但没有找到（{why}）；没有显示器时请用无界面命令：{commands}"
        "（python main.py --help）"),
    "cli.no_display_env": "DISPLAY 和 WAYLAND_DISPLAY 都未设置",
    "cli.unknown_command": (
        "main.py：未知命令 '{word}'{near}；可用命令为 {commands}，或给出一个场景文件（.json）在窗口中打开"),
    "cli.did_you_mean": "（是不是想用 '{near}'？）",
    "cli.unknown_option": "main.py：未知选项 '{word}'；可用命令为 {commands}（python main.py --help）",
    "cli.trace_too_big": (
        "{file}：这条轨迹写成 JSON 文本约有 {size}（{numbers} 个数），超过本命令默认向终端或管道输出的上限 {limit}；"
        "可用 --out FILE.npz 写成紧凑文件（约 {npz}），用 --steps {example} 只输出部分步骤，"
        "或用 --max-json {suggest} 提高上限"),
    "cli.trace_too_big_least": (
        "{file}：这条轨迹写成 JSON 文本至少有 {size}（至少 {numbers} 个数，按形状算出，尚未计算），超过本命令默认向终端"
        "或管道输出的上限 {limit}；可用 --out FILE.npz 写成紧凑文件（至少 {npz}），"
        "用 --steps {example} 只输出部分步骤，或用 --max-json 0 取消上限"),
    "cli.trace_steps_unknown": "--steps：这个场景的轨迹里没有步骤 '{step}'；它的步骤是 {steps}",
    "cli.out_suffix": "--out：文件名应以 .npz 或 .json 结尾，得到的是 '{path}'",
    "cli.size_number": "--max-json：应为 500MB、2GB 或 0（不限）这样的大小，得到的是 '{text}'",
    "cli.write_failed": "--out：无法写入 {path}：{why}",
    "cli.not_regular": "{path}：是{kind}，不是普通文件；什么也没有写入（请另选一个文件名）",
    "cli.kind.fifo": "一个管道（FIFO）",
    "cli.kind.socket": "一个套接字",
    "cli.kind.device": "一个设备",
    "cli.kind.directory": "一个文件夹",
    "cli.kind.other": "特殊文件",
    "cli.read_only": "{path} 是写保护的；什么也没有写入（可先解除保护，例如 chmod u+w，或另选一个文件）",
    "cli.kind.link": "一个符号链接",
    "cli.out.input": "{flag} {path}：这是本命令要读取的文件（{input}）；什么也没有写入（请另选一个文件名）",
    "cli.out.other_kind": "{flag} {path}：已存在，且不是{kind}文件；什么也没有写入（请删除它或另选一个文件名）",
    "cli.out.link": (
        "{flag} {path}：是一个符号链接（指向 {target}）；没有通过它写入任何内容（请给出文件本身，或删除这个链接）"),
    "cli.out.kind.scenario": "场景",
    "cli.out.kind.trace": "轨迹",
    "cli.out.kind.script": "导出的脚本",
    "cli.out.kind.worksheet": "练习纸",
    "cli.out.kind.head_map": "头重要性图",
    "cli.range": "{flag}：应为 {expected}，得到的是 {got}",
    "cli.size_range": "--max-json：大小应不超过 {limit}（或 0：不限），得到的是 '{text}'",
    "cli.trace_too_big_memory": (
        "{file}：生成这段 JSON 文本（约 {size}）约需 {need} 内存，超过本机现在能提供的 {free}；"
        "可用 --out FILE.npz 写成紧凑文件（约 {npz}），或用 --steps {example} 只输出部分步骤"),
    "cli.warning": "警告：{what}",
}

# ---- argparse's --help (attention.cli._localize): the same words in English and Chinese --------------------------
HELP_EN = {
    "cli.about": (
        "Attention Explorer: edit every number of a multi-head attention layer and watch each step. "
        "Without a command, `python main.py [FILE]` opens the window."),
    "cli.epilog": (
        "render: `python main.py render FILE --out DIR [--lang en|zh]` writes a PNG of every step and a "
        "self-contained handout.html (it draws with the window's panes, so it lives in app/startup/render_cli.py; "
        "`python main.py render --help` for its options). Threads: torch's thread count is chosen per "
        "computation (one thread for small work or when other programs keep the cores busy); "
        "ATTENTION_THREADS=N in the environment, or --threads N after a command, fixes it."),
    "cli.usage": "usage: ",
    "cli.positionals": "positional arguments",
    "cli.options": "options",
    "cli.heading": "{heading}:",
    "cli.help_option": "show this help message and exit",
    "cli.cmd.validate": "check a scenario file; print a one-line summary",
    "cli.cmd.validate.about": "Check a scenario file. Exit 0 with a summary, or 2 with one line per problem.",
    "cli.cmd.trace": "run a scenario; print every step as one JSON object",
    "cli.cmd.trace.about": "Run a scenario and print its trace as JSON (see docs/trace-format.md).",
    "cli.opt.trace.device": "override the scenario's device",
    "cli.opt.trace.dtype": "override the scenario's dtype",
    "cli.opt.trace.indent": "pretty-print with N spaces",
    "cli.opt.trace.steps": (
        "only these steps (comma-separated ids, e.g. scores,weights); every parameter is always written"),
    "cli.opt.trace.out": (
        "write to FILE instead of stdout: FILE.npz (compact: the arrays as they are, see docs/trace-format.md) "
        "or FILE.json"),
    "cli.opt.trace.max_json": (
        "refuse JSON text above SIZE (default 256MB; 0 = no limit); the size is estimated before any text is built"),
    "cli.cmd.presets": "list the bundled preset scenarios",
    "cli.cmd.presets.about": "List the bundled preset scenarios: file name, English title, Chinese title.",
    "cli.cmd.explain": "show how one cell of one step was computed, term by term",
    "cli.cmd.explain.about": (
        "Run a scenario and explain one cell: STEP is a step id (e.g. scores), INDEX its index as code counts it, "
        "from 0, one whole number per dim (e.g. 0 1 2 3 for batch item 1, head 2, query 3, key 4; the text counts "
        "from 1)."),
    "cli.opt.explain.lang": "language of the text (default en)",
    "cli.opt.explain.json": "print the explanation as one JSON object (docs/explain.md)",
    "cli.opt.explain.dtype": "override the scenario's dtype",
    "cli.cmd.script": "export a scenario as a standalone plain-torch Python script",
    "cli.cmd.script.about": (
        "Write a standalone .py (imports only torch) that rebuilds the scenario and prints every step."),
    "cli.opt.script.out": "write the script here (default: stdout)",
    "cli.cmd.layers": "list the attention layers in a weights file or Hugging Face folder",
    "cli.cmd.layers.about": (
        "List every attention layer a .pt/.pth/.bin/.safetensors file or a Hugging Face folder holds, with its "
        "shapes; layers that cannot be reproduced exactly are listed with the reason. Nothing is unpickled; "
        "safetensors are read header-only."),
    "cli.opt.layers.lang": "language of the text (default en)",
    "cli.cmd.import": "turn one trained attention layer into a scenario file",
    "cli.cmd.import.about": (
        "Write a scenario that runs one attention layer of a weights file with its real weights. A file holding "
        "one attention layer needs no --layer. The inputs are seeded random numbers of the layer's width unless "
        "--inputs gives a scenario whose queries/keys/values to use."),
    "cli.opt.import.layer": "the layer, as `layers` lists it (or its place in that list, counted from 1)",
    "cli.opt.import.heads": "head count (default: from config.json or the checkpoint)",
    "cli.opt.import.inputs": "take queries, keys, values (and tokens) from this scenario",
    "cli.opt.import.tokens": "generated inputs: N tokens (default 6)",
    "cli.opt.import.seed": "generated inputs: random seed (default 0)",
    "cli.opt.import.out": "write the scenario here",
    "cli.opt.import.lang": "language of the messages (default en)",
    "cli.cmd.tiles": "run a scenario tile by tile (FlashAttention's online softmax)",
    "cli.cmd.tiles.about": (
        "Run a scenario's attention tile by tile as FlashAttention-2 does: per tile the running row maximum and "
        "row sum, then the output O / l and its largest difference from the exact softmax (the trace's "
        "weighted_sum)."),
    "cli.opt.tiles.block_q": "query rows per tile (default: L/2)",
    "cli.opt.tiles.block_k": "keys per tile (default: S/3)",
    "cli.opt.tiles.batch": "only batch item B (counted from 1: --batch 1 is the first)",
    "cli.opt.tiles.head": "only head H (counted from 1: --head 1 is head 1, as the text prints it)",
    "cli.opt.tiles.json": "print one JSON object (there, as in trace files, positions count from 0)",
    "cli.opt.tiles.dtype": "override the scenario's dtype",
    "cli.opt.tiles.lang": "language of the text (default: the terminal's)",
    "cli.opt.tiles.blank": (
        "write a by-hand worksheet (blank running m, l, O per tile) and its answer key into --out DIR "
        "(one batch item and head: --batch, --head, default 1)"),
    "cli.opt.tiles.out": "with --blank: the folder to write the two pages into",
    "cli.opt.tiles.explain": (
        "explain one running value instead: TILE WHAT ROW [COL], counted from 1 as the text prints them (TILE "
        "its place in the walk, WHAT m, l or O, ROW the query, COL the column of O), of --batch/--head (default 1)"),
    "cli.cmd.run": "run a real model on a text; write one scenario per layer",
    "cli.cmd.run.about": (
        "Run MODEL (minilm, glassllm, smollm2, a model folder or a .gguf file) on TEXT and write "
        "DIR/layer1.json ... layerN.json, each layer's attention on the text's real hidden states (tokens as "
        "labels); decoders also print the next-token top 5."),
    "cli.opt.run.text2": "a second sentence (encoders: a padded batch of two)",
    "cli.opt.run.out": "the folder to write layer1.json ... into",
    "cli.opt.run.lang": "language of the text (default: the terminal's)",
}

HELP_ZH = {
    "cli.about": "注意力探索器：编辑多头注意力层的每一个数，观察每一步。不带命令时，`python main.py [FILE]` 打开窗口。",
    "cli.epilog": (
        "render：`python main.py render FILE --out DIR [--lang en|zh]` 为每一步写一张 PNG，并写一份独立的 "
        "handout.html（它用窗口的面板绘图，所以在 app/startup/render_cli.py 中；选项见 "
        "`python main.py render --help`）。线程：torch 的线程数按每次计算选择（计算量小或其他程序占着各核时只用一个"
        "线程）；在环境中设 ATTENTION_THREADS=N，或在命令后加 --threads N，可固定它。"),
    "cli.usage": "用法：",
    "cli.positionals": "位置参数",
    "cli.options": "选项",
    "cli.heading": "{heading}：",
    "cli.help_option": "显示本帮助并退出",
    "cli.cmd.validate": "检查场景文件；输出一行摘要",
    "cli.cmd.validate.about": "检查场景文件。成功时退出码 0 并输出摘要，否则退出码 2，每个问题一行。",
    "cli.cmd.trace": "运行场景；把每一步输出为一个 JSON 对象",
    "cli.cmd.trace.about": "运行场景，以 JSON 输出其轨迹（见 docs/trace-format.md）。",
    "cli.opt.trace.device": "覆盖场景的设备",
    "cli.opt.trace.dtype": "覆盖场景的数据类型",
    "cli.opt.trace.indent": "用 N 个空格缩进排版",
    "cli.opt.trace.steps": "只输出这些步骤（逗号分隔的 id，例如 scores,weights）；参数总是全部写出",
    "cli.opt.trace.out": (
        "写入 FILE 而不是标准输出：FILE.npz（紧凑：数组原样保存，见 docs/trace-format.md）或 FILE.json"),
    "cli.opt.trace.max_json": "JSON 文本超过 SIZE 时拒绝输出（默认 256MB；0 = 不限）；大小在生成任何文本之前估算",
    "cli.cmd.presets": "列出自带的预设场景",
    "cli.cmd.presets.about": "列出自带的预设场景：文件名、英文标题、中文标题。",
    "cli.cmd.explain": "逐项说明某一步的某个格子是怎样算出来的",
    "cli.cmd.explain.about": (
        "运行场景并解释一个格子：STEP 是步骤 id（例如 scores），INDEX 是它按代码方式从 0 开始计数的下标，"
        "每一维一个整数（例如 0 1 2 3 表示批次第 1 项、第 2 个头、第 3 个查询、第 4 个键；说明文字从 1 开始计数）。"),
    "cli.opt.explain.lang": "文字的语言（默认 en）",
    "cli.opt.explain.json": "把解释输出为一个 JSON 对象（docs/explain.md）",
    "cli.opt.explain.dtype": "覆盖场景的数据类型",
    "cli.cmd.script": "把场景导出为独立的纯 torch Python 脚本",
    "cli.cmd.script.about": "写出一个独立的 .py（只导入 torch），它重建场景并打印每一步。",
    "cli.opt.script.out": "把脚本写到这里（默认：标准输出）",
    "cli.cmd.layers": "列出权重文件或 Hugging Face 文件夹中的注意力层",
    "cli.cmd.layers.about": (
        "列出 .pt/.pth/.bin/.safetensors 文件或 Hugging Face 文件夹中的每一个注意力层及其形状；"
        "不能精确重现的层会注明原因。不做任何反序列化（unpickle）；safetensors 只读文件头。"),
    "cli.opt.layers.lang": "文字的语言（默认 en）",
    "cli.cmd.import": "把一个训练好的注意力层变成场景文件",
    "cli.cmd.import.about": (
        "写出一个场景，用权重文件中某个注意力层的真实权重运行它。只含一个注意力层的文件不需要 --layer。"
        "输入是按该层宽度、用种子生成的随机数，除非 --inputs 给出一个场景，取用它的查询/键/值。"),
    "cli.opt.import.layer": "要用的层，写法同 `layers` 的列表（或它在列表中的位置，从 1 数起）",
    "cli.opt.import.heads": "头数（默认：取自 config.json 或检查点）",
    "cli.opt.import.inputs": "从这个场景取查询、键、值（以及词元）",
    "cli.opt.import.tokens": "生成的输入：N 个词元（默认 6）",
    "cli.opt.import.seed": "生成的输入：随机种子（默认 0）",
    "cli.opt.import.out": "把场景写到这里",
    "cli.opt.import.lang": "消息的语言（默认 en）",
    "cli.cmd.tiles": "分块运行场景（FlashAttention 的在线 softmax）",
    "cli.cmd.tiles.about": (
        "像 FlashAttention-2 那样分块运行场景的注意力：每块给出行的累计最大值和累计和，"
        "再给出输出 O / l 及其与精确 softmax（轨迹中的 weighted_sum）的最大差。"),
    "cli.opt.tiles.block_q": "每块的查询行数（默认：L/2）",
    "cli.opt.tiles.block_k": "每块的键数（默认：S/3）",
    "cli.opt.tiles.batch": "只看批次第 B 项（从 1 数起：--batch 1 是第一项）",
    "cli.opt.tiles.head": "只看第 H 个头（从 1 数起：--head 1 就是第 1 头，与输出的文字一致）",
    "cli.opt.tiles.json": "输出一个 JSON 对象（其中与轨迹文件一样，位置从 0 数起）",
    "cli.opt.tiles.dtype": "覆盖场景的数据类型",
    "cli.opt.tiles.lang": "文字的语言（默认：终端的语言）",
    "cli.opt.tiles.blank": (
        "把一份手算练习（每块空出累计 m、l、O）及其答案写进 --out DIR（一个批次项和一个头：--batch、--head，默认 1）"),
    "cli.opt.tiles.out": "配合 --blank：写入这两页的文件夹",
    "cli.opt.tiles.explain": (
        "改为解释一个累计值：TILE WHAT ROW [COL]，与输出的文字一样从 1 数起（TILE 是该块在遍历中的位置，"
        "WHAT 为 m、l 或 O，ROW 是查询，COL 是 O 的列），针对 --batch/--head（默认 1）"),
    "cli.cmd.run": "在一段文字上运行真实模型；每层写一个场景",
    "cli.cmd.run.about": (
        "在 TEXT 上运行 MODEL（minilm、glassllm、smollm2、模型文件夹或 .gguf 文件），写出 "
        "DIR/layer1.json ... layerN.json，每个文件是一层在该文字真实隐藏状态上的注意力（词元作标签）；"
        "解码器还会输出下一个词元的前 5 名。"),
    "cli.opt.run.text2": "第二句话（编码器：补齐成两句的批次）",
    "cli.opt.run.out": "写入 layer1.json ... 的文件夹",
    "cli.opt.run.lang": "文字的语言（默认：终端的语言）",
}

#: The commands that compute (a trace, tiles, a model's forward) and take --threads (attention/compute/threads.py).
THREAD_COMMANDS = ("trace", "explain", "script", "tiles", "run", "import", "heads")
HELP_EN.update({f"cli.opt.{c}.threads": (
    "torch threads for the computation (default: the environment's ATTENTION_THREADS, else chosen by the "
    "work's size and how busy the machine's cores are)") for c in THREAD_COMMANDS})
HELP_ZH.update({f"cli.opt.{c}.threads": (
    "计算所用的 torch 线程数（默认：环境变量 ATTENTION_THREADS，否则按计算量和机器各核的忙碌程度选择）")
    for c in THREAD_COMMANDS})

EN.update(HELP_EN)
ZH.update(HELP_ZH)
