"""Which devices the device menu may offer, and how many threads torch may use.  The only
module of app/ that imports torch: everything else in the GUI leaves tensors to the engine.

At start-up the window opens before torch is imported (the slowest import of all), which then happens
on a background thread (`import_torch_in_background`): from `defer()` until that import has
finished, `available_devices()` answers ("cpu",) at once instead of importing torch, and the
window asks again when it is told the answer is known.
"""
from __future__ import annotations

import threading
from functools import lru_cache
from typing import Callable

_deferred = threading.Event()  # set from defer() until the background import has finished


@lru_cache(maxsize=1)
def cuda_available() -> bool:
    import torch

    try:
        return bool(torch.cuda.is_available())
    except Exception:  # a broken driver must not stop the window from opening
        return False


def available_devices() -> tuple[str, ...]:
    if _deferred.is_set():
        return ("cpu",)  # torch is still loading: CUDA is offered once it is known to work
    return ("cpu", "cuda") if cuda_available() else ("cpu",)


def defer() -> None:
    """Answer ("cpu",) without importing torch until import_torch_in_background() is done."""
    _deferred.set()


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
            _deferred.clear()
            then()

    _deferred.set()
    thread = threading.Thread(target=work, name="import-torch")
    thread.start()
    return thread


def leave_a_core_for_the_gui() -> None:
    """The worker thread's start: the engine's thread policy (attention/compute/threads.py) keeps a
    core for the GUI thread to repaint on while a big trace is computed (on 2 cores, torch's 2
    threads doubled the GUI thread's slices), and gives this thread its count now.  Process-wide.
    Never raises: a thread pool whose initializer fails refuses every later job."""
    try:
        from attention.compute import threads

        threads.reserve_for_gui()
        threads.use()
    except Exception:  # pragma: no cover - the engine's own import reports a broken torch
        pass
