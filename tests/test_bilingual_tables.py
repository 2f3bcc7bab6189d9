"""Words that live in bilingual tables rather than the Qt .ts file (the engine and the step panes
need them without Qt): every entry has both languages, the Chinese is Chinese, and the
placeholders survive translation.  The .ts side is checked by tests/gui/test_language.py."""
from __future__ import annotations

import re

import pytest

from attention.trace import STEP_TEXT

CJK = re.compile(r"[\u4e00-\u9fff]")
PLACEHOLDER = re.compile(r"\{[a-z_0-9]*\}")


def _pairs():
    from app.viewmodel import pane_text

    for sid, (en, zh, f_en, f_zh) in STEP_TEXT.items():
        yield f"STEP_TEXT[{sid}] title", en, zh, True
        yield f"STEP_TEXT[{sid}] formula", f_en, f_zh, False
    for key, (en, zh) in pane_text.UI.items():
        yield f"pane_text.UI[{key}]", en, zh, key not in ("true", "false")
    for dim, (en, zh, n_en, n_zh) in pane_text.DIM_WORDS.items():
        yield f"pane_text.DIM_WORDS[{dim}]", en, zh, True
        yield f"pane_text.DIM_WORDS[{dim}] noun", n_en, n_zh, True


@pytest.mark.parametrize("name,en,zh,words", list(_pairs()), ids=lambda v: v if isinstance(v, str) and "[" in v else "")
def test_both_languages_present(name, en, zh, words):
    assert en.strip() and zh.strip(), f"{name}: a language is empty"
    if words:
        assert CJK.search(zh), f"{name}: the Chinese text has no Chinese: {zh!r}"
    assert sorted(PLACEHOLDER.findall(en)) == sorted(PLACEHOLDER.findall(zh)), f"{name}: placeholders differ"
