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
}
