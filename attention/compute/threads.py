"""How many threads torch's CPU kernels may use: the one policy of the window, the headless
commands and the Python API (`attention.run`, the models' forwards).

Why a policy and not torch's default: torch starts one OpenMP thread per core, and by default each
one spins while it waits for the others.  On a 2-core machine where something else keeps a core
busy (a classroom PC always has something running), the two threads then take turns with that
program at every one of a trace's many small operations: measured here, a B=1 L=S=512 d=512 trace
took 10-14x longer than on a quiet machine, one thread 1.5-2x.  So:

- threads that wait sleep instead of spinning (``OMP_WAIT_POLICY=PASSIVE``, set before torch is
  imported; a value already in the environment is kept);
- work of at least ``SMALL_WORK`` multiply-adds: the cores this process may run on, less those
  other programs keep busy now (the kernel's count of runnable threads, /proc/loadavg, less the one
  asking), less one for the window's own drawing when the engine runs beside it (`reserve_for_gui`);
  at least one;
- small work keeps the count it always had (the cores, less the window's one): MKL's products
  of a few rows (5 or 6 queries, any width) add up in another order on one thread than on two, so
  the last bit of a number can depend on the thread count.  A preset's trace stays bit for bit
  what it was on a given machine; a big computation can differ in its last bit between a quiet
  and a busy moment.  Where that matters (comparing traces bit for bit across runs), fix the count.

Override: ``ATTENTION_THREADS=N`` in the environment, or ``--threads N`` on the command line
(`set_override`), makes every computation use exactly N threads; ``ATTENTION_THREADS=auto`` (or
unset) is the policy.  Nothing here imports torch at import time: `prefer_sleeping_threads` must
run before torch is imported.
"""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator, Optional

#: The environment variable that overrides the policy: a thread count, or "auto".
ENV = "ATTENTION_THREADS"
#: Work (multiply-adds) below which the machine's load is not asked: a B=1 L=S=64 d=64 trace is
#: about 1.6e6, a classroom preset far less; one L=S=512 d=512 is 6.7e8, a 16-token MiniLM pass 3.6e8.
SMALL_WORK = 1e7

_override: Optional[int] = None  # --threads N (set_override), ahead of the environment
_gui_cores = 0  # cores kept for the window's drawing thread (reserve_for_gui)
_chosen: Optional[int] = None  # the count this module last gave torch
_held: Optional[int] = None  # the count every computation keeps inside `held()`


def prefer_sleeping_threads() -> None:
    """Before torch's import: OpenMP threads that wait sleep rather than spin (kept if set)."""
    if "torch" not in sys.modules:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def set_override(n: Optional[int]) -> None:
    """--threads N: exactly N threads from now on (None: back to the environment / the policy)."""
    global _override
    if n is not None and n < 1:
        raise ValueError(f"threads must be at least 1, got {n}")
    _override = n


def reserve_for_gui() -> None:
    """The window's worker: keep a core for the GUI thread's repaints (process-wide)."""
    global _gui_cores
    _gui_cores = 1


def overridden() -> Optional[int]:
    """The count --threads or ATTENTION_THREADS asks for, or None (the policy decides).
    A value that is not a positive whole number is ignored (the policy decides)."""
    if _override is not None:
        return _override
    raw = os.environ.get(ENV, "").strip().lower()
    if raw.isdigit() and int(raw) >= 1:
        return int(raw)
    return None


def cores() -> int:
    """The cores this process may run on (its affinity mask; os.cpu_count where there is none)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def busy_elsewhere(path: str = "/proc/loadavg") -> int:
    """How many threads other than the asking one are runnable now (0 where the system does not say).
    /proc/loadavg's fourth field is "running/total"; the running count includes the reader."""
    try:
        with open(path, encoding="ascii") as f:
            running = int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return 0
    return max(0, running - 1)


def choose(work: float = float("inf")) -> int:
    """The thread count for a computation of about `work` multiply-adds (see the module's docstring)."""
    fixed = overridden()
    if fixed is not None:
        return fixed
    if _held is not None:
        return _held
    if work < SMALL_WORK:
        return max(1, cores() - _gui_cores)  # what it always was: see "Small work" in the docstring
    return max(1, cores() - _gui_cores - busy_elsewhere())


def use(work: float = float("inf")) -> int:
    """Give torch, and numpy's BLAS, `choose(work)` threads (only when that changes the count);
    return the count torch now uses.

    A count the caller set themselves (torch.set_num_threads, OMP_NUM_THREADS: anything but torch's
    own default or the count this module set last) is left alone unless --threads or
    ATTENTION_THREADS asks for one."""
    global _chosen
    import torch

    n = choose(work)
    now = torch.get_num_threads()
    if overridden() is None and now != (_chosen if _chosen is not None else torch_default()):
        return now  # someone else chose (torch.set_num_threads, OMP_NUM_THREADS): theirs stands
    if now != n:
        torch.set_num_threads(n)
    if _chosen != n and _blas is not False:
        _numpy_blas(n)
    _chosen = n
    return n


@contextlib.contextmanager
def held(work: float = float("inf")) -> Iterator[int]:
    """One thread count, chosen once, for several computations that must agree bit for bit: a model's run and
    its copy with a head patched from the same prompt (attention.models.head_edits) may not differ in a last
    bit because the machine's load changed between them.  Nested, the outer count stands."""
    global _held
    if _held is not None:
        yield _held
        return
    n = use(work)
    _held = n
    try:
        yield n
    finally:
        _held = None


def torch_default() -> int:
    """The count torch starts with: OMP_NUM_THREADS where set, else one thread per physical core
    (sysfs's distinct (package, core) pairs among the CPUs this process may use; the CPU count
    where sysfs says nothing)."""
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) >= 1:
        return int(env)
    try:
        cpus = sorted(os.sched_getaffinity(0))
        pairs = set()
        for c in cpus:
            base = f"/sys/devices/system/cpu/cpu{c}/topology/"
            with open(base + "physical_package_id") as f, open(base + "core_id") as g:
                pairs.add((f.read().strip(), g.read().strip()))
        return max(1, len(pairs))
    except (AttributeError, OSError):
        return cores()


def use_for_model(tokens: int, tensors) -> int:
    """`use` for a model's forward over `tokens` positions: about tokens x weights multiply-adds
    (`tensors`: the model's weights by name, anything with .numel())."""
    return use(tokens * sum(t.numel() for t in tensors.values()))


_blas = None  # threadpoolctl's handle on numpy's OpenBLAS, made on first use (about 1 ms)


def _numpy_blas(n: int) -> None:
    """numpy's OpenBLAS to n threads (its threads spin while they wait, as OpenMP's do: the tiles'
    many small products paid 10x on a busy machine).  Nothing where threadpoolctl is missing."""
    global _blas
    try:
        if _blas is None:
            import numpy  # noqa: F401  (its BLAS must be loaded to be found)
            from threadpoolctl import ThreadpoolController

            _blas = ThreadpoolController().select(internal_api="openblas")
        _blas.limit(limits=n)
    except Exception:  # noqa: BLE001 - an unknown BLAS keeps its own threads; never a failed computation
        _blas = False
