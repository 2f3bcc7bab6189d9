"""app.services.settings: typed accessors; what a hand-edited settings file holds never breaks them."""
from __future__ import annotations

import pytest

from app.services.settings import Settings

pytestmark = pytest.mark.gui


def test_teaching_preferences_survive_a_restart(tmp_path, qapp):
    path = tmp_path / "s.ini"
    s = Settings.at(path)
    assert s.explain_visible() is False and s.quiz_tolerance(0.01) == 0.01  # defaults when unset
    s.set_explain_visible(True)
    s.set_quiz_tolerance(0.25)
    s.sync()
    again = Settings.at(path)
    assert again.explain_visible() is True and again.quiz_tolerance(0.01) == 0.25


@pytest.mark.parametrize("text, want", [("abc", 0.01), ("-1", 0.01), ("0", 0.0), ("0.5", 0.5)])
def test_a_hand_edited_tolerance_reads_as_a_number_or_the_default(tmp_path, qapp, text, want):
    path = tmp_path / "s.ini"
    path.write_text(f"[quiz]\ntolerance={text}\n[explain]\nvisible=maybe\n", encoding="utf-8")
    s = Settings.at(path)
    assert s.quiz_tolerance(0.01) == want
    assert s.explain_visible() is False
