"""attention.capture on transformers' own Llama-family attention modules, in a live forward pass.

transformers is not a dependency of the project (nor of CI), so this runs where it is installed:
    /work/venv-hf/bin/python tests/models/capture_hf_check.py        (prints one line per family)
tests/models/test_capture_hf.py runs the same checks under pytest where transformers imports, else skips.

Each family of make_golden_modern.py with a Llama-like attention (q/k/v/o_proj: Llama, Mistral, Qwen2,
Qwen3, Gemma 2, Gemma 3) is built tiny with wide random weights and run forward with position ids
starting at 3.  capture() must record every attention module, and its own check (the engine's output
against the module's, relative 1e-9 in float64, 1e-4 in float32) must pass: in float64 with
transformers' float32 islands turned to float64 (make_golden_modern.float64_throughout), and in a
plain float32 model.  Rows whose positions start at different places are refused unless one is picked.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the project root
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_golden_modern import FAMILIES, build, draw_weights, float64_throughout  # noqa: E402

from attention.capture import CaptureError, attention_modules, capture  # noqa: E402
from attention.compute import engine  # noqa: E402

LLAMA_LIKE = ("llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3")
L, START = 10, 3


def _model(family: str, dtype: torch.dtype):
    """float64: built inside float64_throughout, as the golden files (RoPE's inv_freq is made at build)."""
    model_type, overrides = FAMILIES[family]
    with float64_throughout() if dtype == torch.float64 else torch.no_grad():
        model, _ = build(model_type, overrides)
        model.load_state_dict(draw_weights(model, 7), strict=False)
    return model.to(dtype).eval()


def check(family: str, dtype: torch.dtype) -> float:
    """Capture every attention module of one forward; the largest |engine - module| over them."""
    model = _model(family, dtype)
    found = attention_modules(model)
    assert found and all(fam == "hf" for _, fam in found), found
    ids = torch.randint(0, 16, (2, L), generator=torch.Generator().manual_seed(3))
    pos = (START + torch.arange(L)).expand(2, L)
    patch = float64_throughout() if dtype == torch.float64 else torch.no_grad()
    with patch, torch.no_grad(), capture(model) as rec:
        model(input_ids=ids, position_ids=pos)
    assert len(rec.scenarios) == len(found)
    worst = 0.0
    for (_stem, sc), call in zip(rec.scenarios, rec.calls):
        assert sc.positions[0].values["offset"] == START
        got = engine.run(sc, dtype="float64").array("output")
        worst = max(worst, float(np.abs(got - call.output.double().numpy()).max()))
    return worst


def check_refusals(family: str = "llama") -> None:
    """Rows starting at different positions: refused in words; one row picked: recorded."""
    model = _model(family, torch.float32)
    ids = torch.randint(0, 16, (2, L), generator=torch.Generator().manual_seed(4))
    pos = torch.stack([torch.arange(L), START + torch.arange(L)])
    try:
        with torch.no_grad(), capture(model):
            model(input_ids=ids, position_ids=pos)
    except CaptureError as e:
        assert "position_ids" in e.lines[0], e.lines
    else:
        raise AssertionError("different starts per row were not refused")
    with torch.no_grad(), capture(model, items=[1]) as rec:
        model(input_ids=ids, position_ids=pos)
    assert rec.scenarios[0][1].positions[0].values["offset"] == START


def main() -> None:
    for family in LLAMA_LIKE:
        d64, d32 = check(family, torch.float64), check(family, torch.float32)
        print(f"{family}: captured; max |engine - module| float64 {d64:.1e}, float32 model {d32:.1e}")
    check_refusals()
    print("refusals: ok")


if __name__ == "__main__":
    main()
