"""What a command may replace when it writes a file: checked before it computes anything.

A careful tool never
- replaces a file the same command reads (`trace S.json --out S.json`, `import FOLDER --out
  FOLDER/config.json`, `--out` a hard link to the input): the same file is the same (device, inode),
  whatever its name;
- replaces an existing file that is not its own kind of output (a trace over a scenario, a script
  over notes.txt): only an empty file, or one this program wrote as that kind, is replaced;
- writes through a symbolic link at the name it writes, whether the person gave the name (`--out`)
  or the command chose it (`run`'s layerN.json, `tiles --blank`'s pages): the command did not make
  the link and cannot tell a planted one from a meant one, so it refuses and says what the link
  points to.  (The write itself renames a temporary over the name, attention.files.safe_write with
  follow_links=False, which replaces a link made in between instead of writing through it.)

`check(path, kind, inputs)` returns the refusal (`Refused`: a catalogue key and its arguments,
attention/words/cli.py) or None.  The window's own saves are not checked here: a person saving a
file they opened through a link means that file (attention.files.safe_write follows links by default).
"""
from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path
from typing import Iterable, Optional, Union

import attention.words as words

PathLike = Union[str, os.PathLike]
#: kind -> how a file of that kind begins (after white space): the first key every writer puts first
_JSON_FORMATS = {"scenario": "attention-explorer/scenario", "trace": "attention-explorer/trace"}
#: what the exported script's first line and the worksheet's head hold (attention/script_export.py,
#: attention/tiles_worksheet.py)
SCRIPT_MARK = '"""Attention Explorer scenario as plain torch:'
WORKSHEET_MARK = '<meta name="generator" content="Attention Explorer">'
#: the first line of `main.py heads --map`'s CSV (attention/heads_cli.py)
HEAD_MAP_MARK = "layer,head,delta_logprob"
SNIFF_BYTES = 4096
KINDS = ("scenario", "trace", "script", "worksheet", "head_map")


class Refused(OSError):
    """A write that would replace an input, a file of another kind, or go through a link."""

    def __init__(self, key: str, **args) -> None:
        self.key, self.args_ = key, args
        super().__init__(self.line("en"))

    def line(self, lang: Optional[str] = None) -> str:
        lang = words.normalize(lang)
        args = dict(self.args_)
        if "kind" in args:
            args["kind"] = words.text(f"cli.out.kind.{args['kind']}", lang)
        return words.text(self.key, lang, **args)


def kind_of(path: PathLike) -> Optional[str]:
    """What an existing regular file holds: "empty", one of KINDS, or None (anything else, or unreadable)."""
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return None
    if not head.strip():
        return "empty"
    if head.startswith(b"PK"):
        return "trace" if _is_trace_npz(path) else None
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith(SCRIPT_MARK):
        return "script"
    if WORKSHEET_MARK in text:
        return "worksheet"
    if text.startswith(HEAD_MAP_MARK):
        return "head_map"
    if text.startswith("{"):
        body = text[1:].lstrip()
        for kind, fmt in _JSON_FORMATS.items():
            if body.startswith('"format"') and f'"{fmt}"' in body.split(",", 1)[0]:
                return kind
    return None


def _is_trace_npz(path: PathLike) -> bool:
    """A trace written as .npz (attention.files.trace_out.write_npz): a zip holding meta.npy and step arrays."""
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
    except (OSError, zipfile.BadZipFile, ValueError):
        return False
    return "meta.npy" in names and any(n.startswith("step/") for n in names)


def inputs_of(paths: Iterable[Optional[PathLike]]) -> list[Path]:
    """The files a command reads: each path given, and for a folder (a model folder) every file in it."""
    out: list[Path] = []
    for p in paths:
        if p is None:
            continue
        p = Path(p)
        if p.is_dir():
            try:
                out += [Path(e.path) for e in os.scandir(p) if e.is_file()]
            except OSError:
                pass
        elif p.exists():
            out.append(p)
    return out


def check(path: PathLike, kind: str, inputs: Iterable[Optional[PathLike]] = (), flag: str = "--out"
          ) -> Optional[Refused]:
    """Why the command must not write `path` (a file of `kind`), or None when it may.  `flag` names
    the option in the refusal."""
    p = Path(path)
    shown = os.fsdecode(p)
    if p.is_symlink():
        try:
            target = os.readlink(p)
        except OSError:
            target = "?"
        return Refused("cli.out.link", flag=flag, path=shown, target=target)
    try:
        info = os.stat(p)
    except OSError:
        return None  # nothing there yet (or nothing we may look at: the write says why)
    if not stat.S_ISREG(info.st_mode):
        return None  # a folder, a pipe, a device: attention.files.safe_write refuses those with their own words
    for given in inputs_of(inputs):
        try:
            other = os.stat(given)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            return Refused("cli.out.input", flag=flag, path=shown, input=os.fsdecode(given))
    found = kind_of(p)
    if found not in ("empty", kind):
        return Refused("cli.out.other_kind", flag=flag, path=shown, kind=kind)
    return None
