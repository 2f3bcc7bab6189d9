"""app.viewmodel.file_names: the names Save As suggests are valid on Windows, macOS and Linux.

The rules checked here are written out from Microsoft's "Naming Files, Paths, and Namespaces"
(forbidden characters, control characters, trailing dot or space, reserved device names, also
with an extension) and the 255-byte component limit of ext4, independently of the module."""
from __future__ import annotations

import pytest

from app.viewmodel.file_names import safe_file_name

WINDOWS_FORBIDDEN = set('<>:"/\\|?*')
DEVICES = ["CON", "PRN", "AUX", "NUL"] + [f"COM{i}" for i in range(1, 10)] + [f"LPT{i}" for i in range(1, 10)]


def valid_everywhere(name: str) -> bool:
    stem = name.split(".")[0]
    return (bool(name) and not WINDOWS_FORBIDDEN & set(name) and all(ord(c) >= 32 and ord(c) != 127 for c in name)
            and not name.endswith((".", " ")) and stem.strip().upper() not in DEVICES
            and len(name.encode("utf-8")) <= 255 and name not in (".", ".."))


@pytest.mark.parametrize("title, want", [
    ("Time-Series-Library toy: AttentionLayer by hand", "Time-Series-Library toy - AttentionLayer by hand.json"),
    ("d2l 11.3: additive attention", "d2l 11.3 - additive attention.json"),
    ("a/b\\c", "a - b - c.json"),
    ("what?  *why*", "what - why.json"),
    ('say "hi" <now> | later', "say - hi - now - later.json"),
    ("注意力：玩具", "注意力：玩具.json"),  # the full-width colon is a letter to every file system
    ("Untitled", "Untitled.json"),
    ("layer.json", "layer.json"),  # not "layer.json.json"
])
def test_titles_become_readable_safe_names(title, want):
    assert safe_file_name(title, ".json") == want
    assert valid_everywhere(want)


@pytest.mark.parametrize("title", ["CON", "con", "Nul.txt", "LPT1 ", "com9", "aux.json", "PRN..."])
def test_reserved_device_names_are_never_suggested(title):
    name = safe_file_name(title, ".json")
    assert valid_everywhere(name), name
    assert name.endswith(".json")


@pytest.mark.parametrize("title", ["", "   ", "...", "::", "\x00\x01", "a\tb\nc\x7fd", "x. . .", " lead"])
def test_empty_control_and_trailing_characters(title):
    name = safe_file_name(title, ".json")
    assert valid_everywhere(name), repr(name)
    assert name == name.strip()


@pytest.mark.parametrize("title", ["a" * 400, "注" * 200, "e\u0301" * 200])
def test_long_titles_are_cut_to_whole_characters_within_255_bytes(title):
    name = safe_file_name(title, ".json")
    assert valid_everywhere(name)
    assert name.endswith(".json") and len(name.encode("utf-8")) <= 255
    name.encode("utf-8").decode("utf-8")  # whole characters: still decodes


def test_com10_is_an_ordinary_name():
    assert safe_file_name("COM10", ".json") == "COM10.json"
