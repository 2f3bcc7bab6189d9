"""What a scenario file on disk looked like when the window read or wrote it (no Qt).

Two windows on one file, or a program that rewrites the file while it is open: the later save
must not silently drop the other change.  The document keeps the DiskStamp (size, mtime and a
SHA-256 of the bytes) of the file as it was opened or last saved; before replacing that file,
`changed_since` compares it with the disk and the window asks, as editors do.  The hash decides
(a touched file is not a change, a same-size rewrite in the same mtime tick is); a stamp without
a hash (an autosave that did not record one) falls back to "written after it".
"""
from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

CHUNK = 1 << 20


@dataclass(frozen=True)
class DiskStamp:
    size: int  # -1: unknown (a stamp made from an autosave's time alone)
    mtime_ns: int
    sha256: Optional[str]  # None: unknown (then a later mtime counts as a change)

    @classmethod
    def of_bytes(cls, data: bytes, mtime_ns: int) -> "DiskStamp":
        """The stamp of the bytes just read (mtime taken before reading them)."""
        return cls(len(data), int(mtime_ns), hashlib.sha256(data).hexdigest())

    def to_json(self) -> dict:
        return {"size": self.size, "mtime_ns": self.mtime_ns, "sha256": self.sha256}

    @classmethod
    def from_json(cls, obj: object) -> Optional["DiskStamp"]:
        """The stamp an autosave recorded, or None when it is missing or malformed."""
        if not isinstance(obj, dict):
            return None
        size, mtime, digest = obj.get("size"), obj.get("mtime_ns"), obj.get("sha256")
        ints = all(type(v) is int and -1 <= v < 2**63 for v in (size, mtime))  # -1: unknown
        hexed = digest is None or isinstance(digest, str) and len(digest) == 64 and _is_hex(digest)
        return cls(size, mtime, digest) if ints and hexed else None


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def stamp_file(path: Union[str, Path]) -> Optional[DiskStamp]:
    """The stamp of the regular file at `path` now; None when there is none or it cannot be
    read (a FIFO is never read: opened without blocking and checked first)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(os.fspath(path), flags)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        digest = hashlib.sha256()
        while chunk := os.read(fd, CHUNK):
            digest.update(chunk)
        return DiskStamp(info.st_size, info.st_mtime_ns, digest.hexdigest())
    except OSError:
        return None
    finally:
        os.close(fd)


def changed_since(path: Union[str, Path], stamp: Optional[DiskStamp]) -> Optional[DiskStamp]:
    """The file's stamp now when its content is not the one `stamp` describes, else None.
    None too when there is no stamp to compare with or no file any more (nothing to lose)."""
    if stamp is None:
        return None
    now = stamp_file(path)
    if now is None:
        return None
    if stamp.sha256 is None:
        return now if now.mtime_ns > stamp.mtime_ns else None
    return None if now.sha256 == stamp.sha256 else now
