"""The bundled MiniLM folder for the real-model tests (installed by `bash .ci/setup test`)."""
from __future__ import annotations

import pytest

from attention.models import bundled


@pytest.fixture(scope="session")
def minilm_folder():
    folder = bundled.folder()
    if folder is None:
        pytest.skip(bundled.install_hint("en"))
    return folder


@pytest.fixture(scope="session")
def minilm(minilm_folder):
    from attention.models.bert import BertModel
    from attention.models.tokenizer import SentenceTokenizer

    return BertModel.load(minilm_folder), SentenceTokenizer.load(minilm_folder)
