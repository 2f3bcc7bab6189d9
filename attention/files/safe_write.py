"""Atomic file writes that leave nothing behind and respect what the target is.

Every file the project writes for a person (scenarios, traces, scripts) goes through
`write_atomic`: the bytes go to a temporary file in the target's folder, are flushed and
fsync'ed, then `os.replace`d over the target, so a crash at any moment leaves the complete old
file or the complete new one.  Around that:

- a symlink is written through (the file it points to is replaced and the link stays a link), unless
  the caller says `follow_links=False` (the command line, attention/out_guard.py): then a link at
  the name is refused, and the rename replaces (never follows) one made in between;
- a write-protected file is not replaced unless the caller says so (`WriteProtected`);
- a target that is not a regular file (a FIFO, a socket, a device node, a folder) is never
  replaced by one (`NotRegularFile`): `import --out /dev/...` as root would have swapped a device
  node for a file;
- the temporary's name stays within 255 bytes however long the target's name is;
- a crash leaves its temporary behind, so the next write (or `remove_stale`, when a file is
  opened) deletes this project's own stale temporaries for that target: names it made itself
  (`.NAME.<8 random characters>.tmp`) that no running save holds.  A running save holds an exclusive
  `flock` on its temporary; one nobody holds belongs to a save that died.  Nothing else in the
  folder is ever touched.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Optional, Union

try:  # POSIX: a running save holds a lock on its temporary
    import fcntl
except ImportError:  # pragma: no cover - Windows: an open file cannot be deleted anyway
    fcntl = None

NAME_MAX = 255  # bytes in one file name on Linux, macOS and Windows (NTFS: 255 UTF-16 units)
RANDOM_CHARS = "[a-z0-9_]{8}"  # what tempfile.mkstemp puts between prefix and suffix
SUFFIX = ".tmp"

Chunk = Union[str, bytes]


class WriteProtected(OSError):
    """The target exists and is write-protected; nothing was written."""

    def __init__(self, path: Path):
        super().__init__(f"{path} is write-protected")
        self.path = path


class NotRegularFile(OSError):
    """The target exists and is a FIFO, socket, device or folder; nothing was written."""

    def __init__(self, path: Path, kind: str):
        super().__init__(errno.EEXIST, f"not a regular file ({kind}); it was left as it is", str(path))
        self.path, self.kind = path, kind  # kind: "fifo", "socket", "device", "directory" or "other"


def target_kind(path: Union[str, Path]) -> Optional[str]:
    """None for a regular file or nothing there; else what is there (symlinks followed)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    for test, kind in ((stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "device"),
                       (stat.S_ISBLK, "device"), (stat.S_ISDIR, "directory")):
        if test(mode):
            return kind
    return "other"


def resolve_target(path: Union[str, Path]) -> Path:
    """The file a write to `path` must replace: the end of its symlinks, else `path` itself."""
    p = Path(path)
    return Path(os.path.realpath(p)) if p.is_symlink() else p


def is_write_protected(path: Union[str, Path]) -> bool:
    """True for an existing regular file that its owner may not write (mode bits or access):
    even root, whom os.access always lets write, is asked not to replace a file marked so."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return False
    no_bits = not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    return no_bits or not os.access(path, os.W_OK)


def temp_prefix(name: str) -> str:
    """`.NAME.`, or `.SHORTENED~HASH.` when the temporary's name would exceed 255 bytes."""
    full = f".{name}."
    if len(_bytes(full)) + 8 + len(SUFFIX) <= NAME_MAX:
        return full
    digest = hashlib.sha1(_bytes(name)).hexdigest()[:8]
    budget = NAME_MAX - len(_bytes(f".~{digest}.")) - 8 - len(SUFFIX)
    return f".{_truncate(name, budget)}~{digest}."


def _bytes(text: str) -> bytes:
    return os.fsencode(text)


def _truncate(text: str, budget: int) -> str:
    """The longest prefix of `text` whose file-system encoding fits in `budget` bytes."""
    out = text
    while len(_bytes(out)) > budget:
        out = out[:-1]
    return out


def _temp_pattern(name: str) -> re.Pattern:
    return re.compile(re.escape(temp_prefix(name)) + RANDOM_CHARS + re.escape(SUFFIX))


def stale_temporaries(path: Union[str, Path]) -> list[Path]:
    """This project's temporaries for `path` that no running save holds."""
    target = resolve_target(path)
    pattern = _temp_pattern(target.name)
    found = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return []
    for entry in entries:
        if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False) and not _held(entry.path):
            found.append(Path(entry.path))
    return found


def _held(path: str) -> bool:
    """True when a running save holds `path` (its exclusive lock)."""
    if fcntl is None:
        return False  # Windows: deleting a file another process has open fails; that is the guard
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return True  # cannot look: leave it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing drops the lock we just took
    return False


def remove_stale(path: Union[str, Path]) -> int:
    """Delete this project's stale temporaries for `path`; how many went.  Never raises."""
    n = 0
    for tmp in stale_temporaries(path):
        with contextlib.suppress(OSError):
            tmp.unlink()
            n += 1
    return n


def write_atomic(path: Union[str, Path], chunks: Union[Iterable[Chunk], Callable[[BinaryIO], None]], *,
                 overwrite_protected: bool = False, mode: Optional[int] = None, follow_links: bool = True) -> Path:
    """Write `chunks` (str as UTF-8, or bytes; or a function that writes to a binary file) to
    `path` atomically; returns the file replaced.

    Raises NotRegularFile for a target that is not a regular file, WriteProtected (nothing
    written) for a write-protected target unless `overwrite_protected`, and OSError for what the
    system refuses (old file intact, no temporary left).  Other exceptions from `chunks`
    propagate, with the same guarantees."""
    if not follow_links and os.path.islink(path):
        raise NotRegularFile(Path(path), "link")
    target = resolve_target(path) if follow_links else Path(path)
    kind = target_kind(target)
    if kind is not None:
        raise NotRegularFile(Path(path), kind)
    if not overwrite_protected and is_write_protected(target):
        raise WriteProtected(Path(path))
    folder = target.parent
    remove_stale(target)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(target.name), suffix=SUFFIX, dir=folder)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)  # held until the file is closed: "a save is running"
        with os.fdopen(fd, "wb") as f:
            if callable(chunks):
                chunks(f)
            else:
                for chunk in chunks:
                    f.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
            f.flush()
            os.fsync(f.fileno())
            _copy_mode(target, tmp, mode)
            os.replace(tmp, target)  # while still locked: no cleaner can take it meanwhile
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(folder)
    return target


def _copy_mode(target: Path, tmp: str, mode: Optional[int]) -> None:
    """mkstemp makes 0600 files; keep the old file's mode, or `mode` / 0644 for a new file."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = 0o644 if mode is None else mode
    with contextlib.suppress(OSError):
        os.chmod(tmp, mode)


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX); best effort elsewhere."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
