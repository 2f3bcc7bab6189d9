"""attention.capture on transformers' Llama-family attention modules (capture_hf_check.py), where transformers
is installed; the project's own venv and CI have no transformers, so there this file skips (the check is run
by hand: /work/venv-hf/bin/python tests/models/capture_hf_check.py)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent))
import capture_hf_check as hf  # noqa: E402


@pytest.mark.parametrize("family", hf.LLAMA_LIKE)
def test_capture_records_a_live_llama_family_forward(family):
    assert hf.check(family, torch.float64) < 1e-9
    assert hf.check(family, torch.float32) < 1e-4


def test_capture_refuses_rows_with_different_starts_unless_one_is_picked():
    hf.check_refusals()
