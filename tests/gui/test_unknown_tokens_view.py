"""The model view says how many tokens of a sentence MiniLM does not know ([UNK]), in both languages,
as a person sees it: File ▸ MiniLM (bundled), a Chinese sentence typed into the Sentence box.
The expected count comes from the folder's vocab.txt (one token per CJK character, plus [CLS] and [SEP])."""
from __future__ import annotations

import pytest

from attention.models import bundled

pytestmark = pytest.mark.gui

CHINESE = "我喜欢在公园里散步，天气很好。"


@pytest.fixture
def opened(window, qtbot):
    folder = bundled.folder()
    if folder is None:
        pytest.skip(bundled.install_hint("en"))
    window.show()
    qtbot.waitExposed(window)
    window.models.bundled_action.trigger()
    window.recompute.wait_idle()
    return window, folder


def _paste(window, qtbot, text: str) -> None:
    """As a person pastes a sentence (QTest cannot type Chinese keys): the box's text replaced at the cursor."""
    panel = window.models.panel
    before = window.document.scenario
    panel.box.setFocus()
    panel.box.selectAll()
    panel.box.insertPlainText(text)
    qtbot.waitUntil(lambda: window.document.scenario is not before and window.models.is_idle(), timeout=20000)
    window.recompute.wait_idle()


def test_a_chinese_sentence_says_how_many_tokens_are_unknown(opened, qtbot):
    window, folder = opened
    vocab = set((folder / "vocab.txt").read_text(encoding="utf-8").splitlines())
    unknown, count = sum(c not in vocab for c in CHINESE), len(CHINESE) + 2
    panel = window.models.panel
    assert "unknown" not in panel.status.text()  # the English sentence it opens with
    _paste(window, qtbot, CHINESE)
    assert f"{unknown} of {count} tokens are unknown to the model ([UNK])" in panel.status.text()
    assert f"{unknown} of {count} tokens are unknown" in window.document.scenario.notes["en"]
    window.set_language("zh")
    try:
        assert f"{count} 个词元中有 {unknown} 个是模型不认识的（[UNK]）" in panel.status.text()
    finally:
        window.set_language("en")
    _paste(window, qtbot, "the cat sat")
    assert "unknown" not in panel.status.text()
