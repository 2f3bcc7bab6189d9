"""Persistent preferences (window geometry, splitter sizes, recent files, language, teaching tools).

The one module that touches QSettings (tests/test_architecture.py keeps it so): every
preference has a typed accessor here, so a key is spelled once and a stored value of the wrong
type (an INI file edited by hand) reads back as the default.  Points at any file, so tests
never touch the user's real settings.  Lists are read with type=list (QSettings returns a
one-item list as a plain string otherwise).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

MAX_RECENT = 8


class Settings:
    def __init__(self, qsettings: Optional[QSettings] = None, data_folder: Optional[Path] = None):
        self.q = qsettings if qsettings is not None else QSettings()
        self._data_folder = data_folder

    @classmethod
    def at(cls, path: str | Path) -> "Settings":
        """Settings stored in an INI file at `path` (tests, portable installs); the data folder
        (autosaves) is `<path without .ini>-data` beside it, never the user's."""
        path = Path(path)
        return cls(QSettings(str(path), QSettings.Format.IniFormat), path.with_name(path.stem + "-data"))

    def data_folder(self) -> Path:
        """Where the window keeps data of its own (autosaves): the user's application data
        folder (QStandardPaths AppDataLocation), or the folder `at` chose."""
        if self._data_folder is not None:
            return self._data_folder
        folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
        return Path(folder) if folder else Path.home() / ".attention-explorer"

    # ---- recent files ------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.q.value("recent_files", [], type=list)
        return [str(v) for v in value if v]

    def add_recent(self, path: str | Path) -> None:
        p = str(Path(path).resolve())
        files = [p] + [f for f in self.recent_files() if f != p]
        self.q.setValue("recent_files", files[:MAX_RECENT])

    def remove_recent(self, path: str | Path) -> None:
        self.q.setValue("recent_files", [f for f in self.recent_files() if f != str(path)])

    # ---- window --------------------------------------------------------------------------------
    def geometry(self) -> Optional[QByteArray]:
        value = self.q.value("window/geometry")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def set_geometry(self, data: QByteArray) -> None:
        self.q.setValue("window/geometry", data)

    def splitter_state(self, name: str) -> Optional[QByteArray]:
        value = self.q.value(f"window/splitter_{name}")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def set_splitter_state(self, name: str, data: QByteArray) -> None:
        self.q.setValue(f"window/splitter_{name}", data)

    # ---- language ------------------------------------------------------------------------------
    def language(self) -> Optional[str]:
        value = self.q.value("language", "", type=str)
        return value if value in ("en", "zh") else None

    def set_language(self, lang: str) -> None:
        self.q.setValue("language", lang)

    # ---- teaching tools --------------------------------------------------------------------------
    def explain_visible(self) -> bool:
        """Whether the Explain panel was open when the window last closed."""
        value = self.q.value("explain/visible", False)
        return value is True or str(value).lower() in ("true", "1")

    def set_explain_visible(self, visible: bool) -> None:
        self.q.setValue("explain/visible", bool(visible))

    def quiz_tolerance(self, default: float) -> float:
        """The quiz's tolerance; `default` when unset, not a number or negative."""
        try:
            value = float(self.q.value("quiz/tolerance", default))
        except (TypeError, ValueError):
            return default
        return value if value >= 0 else default

    def set_quiz_tolerance(self, value: float) -> None:
        self.q.setValue("quiz/tolerance", float(value))

    def lock_all_scales(self) -> bool:
        """Whether View ▸ Lock all colour scales was on when the window last closed."""
        value = self.q.value("view/lock_all_scales", False)
        return value is True or str(value).lower() in ("true", "1")

    def set_lock_all_scales(self, on: bool) -> None:
        self.q.setValue("view/lock_all_scales", bool(on))

    # ---- model licences ----------------------------------------------------------------------------
    def terms_accepted(self, name: str) -> bool:
        """Whether a model's terms of use (`name`: "gemma") were accepted in this window before."""
        value = self.q.value(f"terms/{name}", False)
        return value is True or str(value).lower() in ("true", "1")

    def set_terms_accepted(self, name: str, accepted: bool = True) -> None:
        self.q.setValue(f"terms/{name}", bool(accepted))

    def sync(self) -> None:
        self.q.sync()
