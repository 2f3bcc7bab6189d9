"""`python main.py --help` (and each command's --help) speaks the terminal's language: Chinese
when LC_ALL / LC_MESSAGES / LANG say zh, English otherwise; every line from the catalogue."""
from __future__ import annotations

import argparse
import re

import pytest

from attention import cli

COMMANDS = ("validate", "trace", "presets", "explain", "script", "layers", "import", "tiles", "run")
HAN = re.compile(r"[\u4e00-\u9fff]")


def terminal(monkeypatch, lang: str) -> None:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8" if lang == "zh" else "en_US.UTF-8")


def help_text(capsys, *argv: str) -> str:
    assert cli.main([*argv, "--help"]) == 0
    return capsys.readouterr().out


def test_chinese_terminal_gets_chinese_help(monkeypatch, capsys):
    terminal(monkeypatch, "zh")
    top = help_text(capsys)
    assert top.startswith("用法：") and "显示本帮助并退出" in top and "注意力探索器" in top
    assert "检查场景文件；输出一行摘要" in top  # the command list
    assert "show this help" not in top and "usage:" not in top and "options:" not in top
    trace = help_text(capsys, "trace")
    assert "JSON 文本超过 SIZE 时拒绝输出" in trace and "refuse JSON" not in trace
    tiles = help_text(capsys, "tiles")
    assert "每块的查询行数" in tiles and "query rows per tile" not in tiles


def test_english_terminal_keeps_english_help(monkeypatch, capsys):
    terminal(monkeypatch, "en")
    top = help_text(capsys)
    assert top.startswith("usage: ") and "show this help message and exit" in top
    assert "check a scenario file; print a one-line summary" in top and not HAN.search(top)
    trace = help_text(capsys, "trace")
    assert "refuse JSON text above SIZE" in trace and not HAN.search(trace)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_of_every_command_has_chinese_help(monkeypatch, capsys, command):
    """No English left over: each option's help, and the command's description, has Chinese."""
    terminal(monkeypatch, "zh")
    parser = cli._parser("zh")
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    assert HAN.search(sub.description)
    for action in sub._actions:
        if action.option_strings:
            assert action.help and HAN.search(action.help), (command, action.dest)
    assert HAN.search(help_text(capsys, command))


HEADING = re.compile(r"^(\S[^\n]*?)([:：])$", re.MULTILINE)  # a line at the left edge ending in a colon


@pytest.mark.parametrize("command", ("", *COMMANDS))
def test_chinese_section_headings_end_in_a_full_width_colon(monkeypatch, capsys, command):
    """argparse writes its section headings as "%s:"; in Chinese they read "选项：" like "用法："."""
    terminal(monkeypatch, "zh")
    text = help_text(capsys, *([command] if command else []))
    headings = HEADING.findall(text)
    assert ("选项", "：") in headings
    assert all(colon == "：" for _, colon in headings), headings
    if command in ("", "trace", "tiles"):  # those with positional arguments
        assert ("位置参数", "：") in headings
    terminal(monkeypatch, "en")
    text = help_text(capsys, *([command] if command else []))
    assert ("options", ":") in HEADING.findall(text) and "：" not in text


# ---- argparse's own error lines, and `main.py render` ------------------------------------------------------------

def error_lines(capsys, main, *argv: str) -> str:
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


@pytest.mark.parametrize("argv, zh, en", [
    (("trace", "x.json", "--indent", "x"), "main.py trace：错误：参数 --indent：无效的整数值：'x'",
     "main.py trace: error: argument --indent: invalid int value: 'x'"),
    (("tiles",), "main.py tiles：错误：缺少以下参数：FILE",
     "main.py tiles: error: the following arguments are required: FILE"),
    (("trace", "f", "--dtype", "float16"),
     "main.py trace：错误：参数 --dtype：无效的选择：'float16'（可选：'float32', 'float64'）",
     "main.py trace: error: argument --dtype: invalid choice: 'float16' (choose from 'float32', 'float64')"),
    (("validate", "a", "b"), "main.py：错误：无法识别的参数：b", "main.py: error: unrecognized arguments: b"),
    (("import", "w", "--tokens"), "main.py import：错误：参数 --tokens：需要一个值",
     "main.py import: error: argument --tokens: expected one argument"),
])
def test_argparse_error_lines_speak_the_terminals_language(monkeypatch, capsys, argv, zh, en):
    """The whole line, usage included, in Chinese on a Chinese terminal; argparse's own English otherwise."""
    monkeypatch.setattr("sys.argv", ["main.py"])
    terminal(monkeypatch, "zh")
    err = error_lines(capsys, cli.main, *argv)
    assert err.startswith("用法：main.py") and err.rstrip("\n").endswith(zh), err
    assert "usage" not in err and "error" not in err and "argument" not in err
    terminal(monkeypatch, "en")
    err = error_lines(capsys, cli.main, *argv)
    assert err.startswith("usage: main.py") and err.rstrip("\n").endswith(en) and not HAN.search(err), err


def test_a_message_argparse_words_otherwise_stays_whole():
    """A Python whose argparse words a message differently gets it untranslated, never half-done."""
    from attention.cli.cli_args import translate

    assert translate("argument --x: something new: 'y'", "zh") == "参数 --x：something new: 'y'"
    assert translate("brand new message", "zh") == "brand new message"
    assert translate("expected 2 arguments", "zh") == "需要 2 个值"


def test_render_help_and_errors_in_chinese(monkeypatch, capsys):
    from app.startup import render_cli

    terminal(monkeypatch, "zh")
    with pytest.raises(SystemExit) as e:
        render_cli._parser("zh").parse_args(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("用法：main.py render") and "显示本帮助并退出" in text and "讲义的语言" in text
    assert "show this help" not in text and "language of the handout" not in text and "options:" not in text
    assert "\n选项：\n" in text and "\n位置参数：\n" in text and "选项:" not in text
    err = error_lines(capsys, render_cli.main, "render", "--batch", "x", "f.json", "--out", "d")
    assert err.rstrip("\n").endswith("main.py render：错误：参数 --batch：无效的整数值：'x'")
    terminal(monkeypatch, "en")
    with pytest.raises(SystemExit):
        render_cli._parser("en").parse_args(["--help"])
    text = capsys.readouterr().out
    assert "language of the handout (default en)" in text and not HAN.search(text)


def test_every_render_option_has_chinese_help():
    from app.startup import render_cli

    parser = render_cli._parser("zh")
    assert HAN.search(parser.description)
    for action in parser._actions:
        assert action.help and HAN.search(action.help), action.dest


def test_the_subcommands_carry_no_english_of_their_own():
    """tiles and run take every word from the catalogue (their English was dead text, overwritten)."""
    import ast
    from pathlib import Path

    for module in ("tiles_cli.py", "run_cli.py"):
        tree = ast.parse((Path(cli.__file__).parent / module).read_text(encoding="utf-8"))
        add = next(f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "add_parser")
        for call in ast.walk(add):
            if isinstance(call, ast.Call):
                for kw in call.keywords:
                    if kw.arg in ("help", "description"):
                        assert isinstance(kw.value, ast.Constant) and kw.value.value == "", (module, kw.arg)


def test_sizes_in_the_tiles_memory_lines_never_read_in_python_exponent_form():
    from attention.teaching.tiles import human_bytes

    assert human_bytes(1000 * 1024) == "1000 KiB"  # was '1e+03 KiB'
    assert human_bytes(1536) == "1.5 KiB"
    assert human_bytes(1023 * 2 ** 20) == "1023 MiB"
