"""Bundled data: preset scenarios (scenarios/*.json, numbered in teaching order), the scenario
JSON Schema and translations.  Paths only; reading scenarios is attention.files.scenario_io's job
(the first preset's kept trace is the engine's own: attention/files/startup-trace.npz)."""
from __future__ import annotations

import json
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def scenarios_dir() -> Path:
    return _HERE / "scenarios"


def schema_path() -> Path:
    return _HERE / "scenario.schema.json"


def list_presets() -> list[tuple[Path, dict]]:
    """(path, title {"en", "zh"}) of every preset, sorted by file name (= teaching order).

    Only the title is read here (cheap, nothing generated); a file whose title cannot be read
    is still listed, under its file name, so that opening it shows the real error."""
    out = []
    for path in sorted(scenarios_dir().glob("*.json"), key=lambda p: p.name):
        title = {"en": path.stem, "zh": path.stem}
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            t = doc.get("title") if isinstance(doc, dict) else None
            if isinstance(t, dict):
                title = {lang: t.get(lang) if isinstance(t.get(lang), str) and t.get(lang) else path.stem
                         for lang in ("en", "zh")}
        except (OSError, ValueError):
            pass
        out.append((path, title))
    return out
