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
