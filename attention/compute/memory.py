"""How much memory this machine has, and how much of it is free now.

Why free and not physical: a check against a share of physical memory lets through a request
that the machine cannot serve while other programs hold most of it (an additive scenario of
~300 bytes asked 8.6 GB and died with the allocator's raw error).  Linux says what can be
allocated without swapping in /proc/meminfo's MemAvailable; elsewhere sysconf's free pages
are the nearest figure.  Both are estimates of a moving number, so callers leave a margin.
"""
from __future__ import annotations

import os
from typing import Optional

#: When the system says nothing (no /proc, no sysconf): assume this much (8 GiB).
FALLBACK = 8 << 30


def physical_bytes() -> int:
    """Installed memory, in bytes."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return FALLBACK


def _meminfo_available(path: str = "/proc/meminfo") -> Optional[int]:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024  # the kernel writes kB
    except (OSError, ValueError, IndexError):
        return None
    return None


def available_bytes() -> int:
    """Memory that can be allocated now without swapping, in bytes (never above physical, nor above
    what this process's address-space limit still allows: `ulimit -v`, a cap a test or a batch
    system sets)."""
    found = _meminfo_available()
    if found is None:
        try:
            found = int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            found = FALLBACK
    left = _address_space_left()
    return max(0, min(found, physical_bytes(), found if left is None else left))


def _address_space_left(status: str = "/proc/self/status") -> Optional[int]:
    """Bytes this process may still map under RLIMIT_AS (None: no limit, or no way to tell)."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft == resource.RLIM_INFINITY:
            return None
        with open(status, encoding="ascii", errors="replace") as f:
            mapped = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    except (ImportError, OSError, ValueError, StopIteration):
        return None
    return max(0, soft - mapped)
