"""Numpy arrays as the tensors a trace owns: one copy, or a view of numbers nobody can change."""
from __future__ import annotations

from typing import Optional

import numpy as np
import torch


def tensor(a: Optional[np.ndarray], dev: torch.device, dt: torch.dtype) -> Optional[torch.Tensor]:
    """A tensor the trace owns: a copy (one pass, converting the dtype on the way), so editing the
    scenario's arrays in place later cannot change a trace already shown.

    Except a read-only array already in the dtype, on the CPU: numpy refuses to edit it in place
    (and any array it views), so the trace may view it instead.  A model's weights are such
    arrays, read by the engine for every layer of every token: copying them was most of a cached
    step's time (fresh pages for a 576 x 576 float64 weight cost about 1.5 ms each)."""
    if a is None:
        return None
    a = np.ascontiguousarray(a)  # no copy when already contiguous (views with negative strides are not)
    if dev.type == "cpu" and a.dtype == _NUMPY_DTYPES.get(dt) and read_only(a):
        try:
            return torch.from_dlpack(a)  # a zero-copy view (torch.from_numpy would warn: not writable)
        except (BufferError, TypeError, RuntimeError):  # an older numpy exports no read-only array
            pass
    if a.dtype == np.float64 and a.flags.writeable:
        src = torch.from_numpy(a)  # a zero-copy view; .to below makes the one copy
        return src.to(device=dev, dtype=dt, copy=True)
    return torch.tensor(a, dtype=dt, device=dev)


_NUMPY_DTYPES = {torch.float64: np.dtype(np.float64), torch.float32: np.dtype(np.float32)}


def read_only(a: np.ndarray) -> bool:
    """Whether no one can write `a`'s numbers through numpy: it and every array it views are
    read-only (a read-only view of a writeable array is not enough)."""
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return False
        a = a.base
    return True
