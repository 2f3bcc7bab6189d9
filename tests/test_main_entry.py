"""main.py without a display, and with a word that is neither a command nor a file: one line
that says so and names the headless commands, a non-zero exit, never Qt's abort."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import main
from resources import list_presets

ROOT = Path(__file__).resolve().parents[1]
TOY = list_presets()[0][0]


def _run(args, lang="C.UTF-8", **env):
    clean = {k: v for k, v in os.environ.items()
             if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "LC_ALL", "LC_MESSAGES", "LANG")}
    clean.update(env, LANG=lang, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "main.py", *args], cwd=ROOT, env=clean, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)


@pytest.mark.slow  # starts main.py in a child process
def test_a_file_without_a_display_says_so_in_one_line():
    r = _run([str(TOY)])
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "needs a display" in lines[0]
    for command in main.COMMANDS:
        assert command in lines[0]
    assert "qt.qpa" not in r.stderr and "Aborted" not in r.stderr


@pytest.mark.slow  # starts main.py in a child process
def test_no_argument_without_a_display_says_so_too():
    r = _run([])
    assert r.returncode == 2 and "needs a display" in r.stderr


@pytest.mark.slow  # starts main.py in a child process
def test_in_chinese_when_the_terminal_is():
    r = _run([str(TOY)], lang="zh_CN.UTF-8")
    assert r.returncode == 2 and "显示器" in r.stderr and "validate" in r.stderr


@pytest.mark.slow  # starts main.py in a child process
@pytest.mark.parametrize("word, near", [("frobnicate", None), ("valdate", "validate"), ("preset", "presets")])
def test_an_unknown_command_is_named_as_such(word, near):
    r = _run([word], DISPLAY=":99")  # even with a display: not a file, not a command
    assert r.returncode == 2
    line = r.stderr.strip()
    assert "\n" not in line and f"unknown command '{word}'" in line
    assert ("did you mean" in line) == (near is not None)
    if near:
        assert f"'{near}'" in line


@pytest.mark.slow  # starts main.py in a child process
def test_an_unknown_option():
    r = _run(["--frob"])
    assert r.returncode == 2 and "unknown option '--frob'" in r.stderr


@pytest.mark.parametrize("env, missing", [
    ({}, True),
    ({"DISPLAY": ":0"}, False),
    ({"WAYLAND_DISPLAY": "wayland-0"}, False),
    ({"QT_QPA_PLATFORM": "offscreen"}, False),
    ({"QT_QPA_PLATFORM": "xcb"}, True),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, True),
    ({"QT_QPA_PLATFORM": "vnc:size=800x600"}, False),
])
def test_which_environments_have_a_display(env, missing):
    assert (main.missing_display(env, platform="linux") is not None) == missing
    assert main.missing_display(env, platform="win32") is None


def test_file_like_words_go_to_the_window():
    assert main.unknown_word(str(TOY)) is None
    assert main.unknown_word("not-yet-saved.json") is None  # the window says it cannot open it
    assert main.unknown_word("lessons/a") is None
    assert main.unknown_word("trce") == "cli.unknown_command"
