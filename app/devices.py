"""Which devices the device menu may offer.  The only module of app/ that imports torch:
everything else in the GUI leaves tensors to the engine."""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def cuda_available() -> bool:
    import torch

    try:
        return bool(torch.cuda.is_available())
    except Exception:  # a broken driver must not stop the window from opening
        return False


def available_devices() -> tuple[str, ...]:
    return ("cpu", "cuda") if cuda_available() else ("cpu",)
