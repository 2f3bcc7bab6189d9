"""File names the save dialogs suggest: valid on Windows, macOS and Linux alike.

Save As suggested the document's title ("Time-Series-Library toy: AttentionLayer by hand.json"),
and a colon is not allowed in a Windows file name.  `safe_file_name` keeps the title readable
and drops only what some system refuses: the characters < > : " / \\ | ? *, control characters,
trailing dots and spaces, Windows' reserved device names (CON, PRN, AUX, NUL, COM1-9, LPT1-9,
also with an extension: "con.json" is the console), and bytes past the 255 that file systems allow.
Qt-free, so tests can ask it about any title.
"""
from __future__ import annotations

import re
import unicodedata

FORBIDDEN = '<>:"/\\|?*'
RESERVED = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
            *(f"{d}{n}" for d in ("COM", "LPT") for n in (*"123456789", "¹", "²", "³"))}
MAX_BYTES = 255  # one path component, in UTF-8 (ext4, NTFS in UTF-16 units is more lenient)
FALLBACK = "scenario"

_BAD = re.compile("[" + re.escape(FORBIDDEN) + "]+")


def _is_control(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")


def safe_stem(title: str) -> str:
    """`title` as the stem of a file name every system accepts (FALLBACK when nothing is left)."""
    text = "".join(" " if _is_control(ch) else ch for ch in unicodedata.normalize("NFC", title))
    text = _BAD.sub(" - ", text)  # "toy: by hand" -> "toy - by hand"
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"(\s*-\s*){2,}", " - ", text).strip(" -")
    text = text.rstrip(". ")
    if text.split(".")[0].strip().upper() in RESERVED:
        text = "_" + text
    return text or FALLBACK


def safe_file_name(title: str, suffix: str) -> str:
    """`title` + `suffix` (".json") as one safe file name, cut to MAX_BYTES (whole characters)."""
    stem = safe_stem(title[: -len(suffix)] if suffix and title.lower().endswith(suffix.lower()) else title)
    room = MAX_BYTES - len(suffix.encode("utf-8"))
    while len(stem.encode("utf-8")) > room:
        stem = stem[:-1]
    stem = stem.rstrip(". ") or FALLBACK
    return stem + suffix
