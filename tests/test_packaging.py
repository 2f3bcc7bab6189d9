"""pyproject.toml says what a wheel ships: every package-data pattern must match a real file, and
every data file the running program reads (resources/, the engine's canary) must be matched by one."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _package_data() -> dict[str, list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["setuptools"]["package-data"]


def test_every_package_data_pattern_matches_a_file():
    data = _package_data()
    assert data
    empty = [f"{pkg}: {pattern}" for pkg, patterns in data.items() for pattern in patterns
             if not any(p.is_file() for p in (ROOT / pkg.replace(".", "/")).glob(pattern))]
    assert empty == []


def test_what_the_program_reads_from_resources_ships():
    import resources
    from app.services import i18n
    from attention.files import trace_cache

    shipped = {p.resolve() for pkg, patterns in _package_data().items() for pattern in patterns
               for p in (ROOT / pkg.replace(".", "/")).glob(pattern)}
    needed = [resources.schema_path(), trace_cache.canary_path(), *(p for p, _ in resources.list_presets()),
              *i18n.TRANSLATIONS.glob("*.qm")]
    assert len(needed) > 4
    assert [str(p) for p in needed if p.resolve() not in shipped] == []
