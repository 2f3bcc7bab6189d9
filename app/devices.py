"""Which devices the device menu may offer.  The only module of app/ that imports torch:
everything else in the GUI leaves tensors to the engine.

At start-up the window opens while torch is still being imported on a background thread
(`import_torch_in_background`, about two seconds): until that import has finished,
`available_devices()` answers ("cpu",) at once instead of waiting for it, and the window asks
again when it is told the answer is known.
"""
from __future__ import annotations

import threading
from functools import lru_cache
from typing import Callable

_importing = threading.Event()  # set while the background import runs


@lru_cache(maxsize=1)
def cuda_available() -> bool:
    import torch

    try:
        return bool(torch.cuda.is_available())
    except Exception:  # a broken driver must not stop the window from opening
        return False


def available_devices() -> tuple[str, ...]:
    if _importing.is_set():
        return ("cpu",)  # torch is still loading: CUDA is offered once it is known to work
    return ("cpu", "cuda") if cuda_available() else ("cpu",)


def import_torch_in_background(then: Callable[[], None], also: tuple[str, ...] = ()) -> threading.Thread:
    """Import torch (and the modules in `also`) on a new thread, answer `cuda_available`, then
    call `then()` on that thread (errors are left to the first real use, which reports them).

    Not a daemon: a window closed within the first seconds waits for the import to finish
    rather than tearing the interpreter down under it."""
    def work() -> None:
        try:
            import importlib

            cuda_available()
            for name in also:
                importlib.import_module(name)
        except Exception:  # pragma: no cover - the engine's own import shows the error later
            pass
        finally:
            _importing.clear()
            then()

    _importing.set()
    thread = threading.Thread(target=work, name="import-torch")
    thread.start()
    return thread
