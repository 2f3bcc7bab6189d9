"""The one line a failed export says, in the window's language: "<path>: cannot write the PNG file
(permission denied)".  The words are attention.words' ("export.*"); the operating system's reason
is named in words for the common causes (its own English text otherwise)."""
from __future__ import annotations

import errno
from pathlib import Path
from typing import Optional, Union

from attention import words

#: errno -> the catalogue's name for it
_REASONS = {errno.EACCES: "export.why.denied", errno.EPERM: "export.why.denied", errno.ENOSPC: "export.why.full",
            errno.ENOENT: "export.why.missing", errno.EROFS: "export.why.read_only", errno.EISDIR: "export.why.folder",
            errno.ENOTDIR: "export.why.not_folder"}


def reason(error: Optional[BaseException], lang: Optional[str] = None) -> str:
    """Why writing failed, in words ("" when nothing is known)."""
    if error is None:
        return ""
    key = _REASONS.get(getattr(error, "errno", None) or -1)
    if key is not None:
        return words.text(key, lang)
    return str(getattr(error, "strerror", None) or error)


def cannot_write(what: str, path: Union[str, Path], error: Optional[BaseException] = None,
                 lang: Optional[str] = None) -> str:
    """`what`: png, svg, csv, handout, page, script or folder (the catalogue's export.cannot.<what>)."""
    why = reason(error, lang)
    line = words.text(f"export.cannot.{what}", lang, path=str(path))
    return f"{line} ({why})" if why else line
