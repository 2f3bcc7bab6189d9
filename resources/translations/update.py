"""Refresh the Chinese translation: lupdate every app/ source, fill new strings, compile the .qm.

    .venv/bin/python resources/translations/update.py            # lupdate + fill + lrelease
    .venv/bin/python resources/translations/update.py --check    # only report untranslated strings

New strings are filled from `pending/*.jsonl` (one {"context", "source", "zh"} object per line,
written by whoever added the strings) and the pending files are removed once every one of their
strings is in the .ts.  tests/gui/test_language.py runs lupdate over the same `sources()` list, so
the committed .ts can never miss a string the code shows.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TS = HERE / "app_zh_CN.ts"
PENDING = HERE / "pending"


def sources() -> list[str]:
    """Every module of the window (relative to the project root), sorted."""
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "app").rglob("*.py"))


def _tool(name: str) -> str:
    exe = Path(sys.executable).parent / name
    return str(exe) if exe.exists() else name


def lupdate(ts: Path = TS) -> None:
    subprocess.run([_tool("pyside6-lupdate"), *sources(), "-ts", str(ts), "-no-obsolete", "-locations", "none",
                    "-source-language", "en", "-target-language", "zh_CN"], cwd=ROOT, check=True,
                   capture_output=True, text=True)


def pending() -> dict[tuple[str, str], str]:
    out = {}
    for f in sorted(PENDING.glob("*.jsonl")) if PENDING.exists() else ():
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    d = json.loads(line)
                    out[(d["context"], d["source"])] = d["zh"]
                except (ValueError, KeyError) as e:
                    raise SystemExit(f"{f.name} line {n}: not a {{context, source, zh}} object ({e})") from e
    return out


def fill(ts: Path = TS) -> list[tuple[str, str]]:
    """Put pending translations into unfinished messages; returns what is still untranslated."""
    tree = ET.parse(ts)
    known = pending()
    missing = []
    for ctx in tree.getroot().iter("context"):
        name = ctx.findtext("name")
        for m in ctx.iter("message"):
            t = m.find("translation")
            src = m.findtext("source")
            if t.get("type") == "unfinished" or not (t.text or "").strip():
                zh = known.get((name, src))
                if zh is None:
                    missing.append((name, src))
                    continue
                t.text = zh
                t.attrib.pop("type", None)
    ET.indent(tree, space="  ")
    body = ET.tostring(tree.getroot(), encoding="unicode")
    ts.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n", encoding="utf-8")
    return missing


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="report untranslated strings, change nothing")
    args = ap.parse_args()
    if args.check:
        import shutil
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / TS.name
            shutil.copy(TS, copy)
            lupdate(copy)
            missing = fill(copy)
    else:
        lupdate()
        missing = fill()
        subprocess.run([_tool("pyside6-lrelease"), str(TS), "-qm", str(TS.with_suffix(".qm"))], check=True,
                       capture_output=True)
        if not missing and PENDING.exists():
            for f in PENDING.glob("*.jsonl"):
                f.unlink()
            PENDING.rmdir()
    for ctx, src in missing:
        print(f"untranslated: [{ctx}] {src!r}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
