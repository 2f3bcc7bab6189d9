"""The benchmarks' --busy mode: every figure quiet and with the machine's other core kept busy, side by side.

    .venv/bin/python bench/engine.py --quick --busy

A classroom PC always has something else running.  With --busy a bench script runs itself twice as
a child process (the same arguments, without --busy): once as it is ("quiet": whatever else the
machine runs), then while a spinning process of ours, pinned to the last core this process may use,
keeps that core busy; it ends the spinner and prints the two outputs merged line by line: every
number that differs reads ``quiet|busy``, and a time (ms or s) adds the ratio busy/quiet, ``(x1.4)``.
Each run's own line says its wall time, its CPU time (the child's user + system) and the load
average before and after (the machine is shared: CPU time is what the work itself costs).

The engine picks its thread count itself (attention/compute/threads.py); ATTENTION_THREADS=N (or a
script's own --threads) fixes it for both runs.  Goal (issue 29): busy within 2x of quiet.
"""
from __future__ import annotations

import argparse
import difflib
import multiprocessing
import os
import re
import resource
import subprocess
import sys
import time
from typing import Optional

import attention  # noqa: F401  (first: OMP_WAIT_POLICY before torch loads, attention/compute/threads.py)

FLAG = "--busy"
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
_TIME = re.compile(r"\s*(ms|s)\b")


def add_flag(parser: argparse.ArgumentParser) -> None:
    """--busy (handled by `main_if_busy` before the script runs) and --threads on a bench script's parser."""
    parser.add_argument(FLAG, action="store_true",
                        help="run twice, quiet and with a spinning process on another core, and print every "
                             "figure side by side as quiet|busy (bench/busy.py)")
    if "--threads" not in parser._option_string_actions:
        parser.add_argument("--threads", type=int, metavar="N",
                            help="torch threads for every computation (default: ATTENTION_THREADS, else the "
                                 "engine's policy, attention/compute/threads.py)")


def apply(args: argparse.Namespace) -> None:
    """--threads N: the engine's policy overridden (attention/compute/threads.set_override); and the
    load average and this process's CPU time printed at the start and at the end (every figure of a
    run on a shared machine reads with them)."""
    import atexit

    if getattr(args, "threads", None):
        from attention.compute import threads

        threads.set_override(args.threads)
    print(f"[{load()} at the start; threads: {os.environ.get('ATTENTION_THREADS') or args.threads or 'the policy'}]",
          flush=True)
    atexit.register(lambda: print(f"[{load()} at the end; this process's CPU time {time.process_time():.1f} s]",
                                  flush=True))


def load() -> str:
    """The 1-, 5- and 15-minute load averages, as 'load 1.2 1.1 0.9'."""
    try:
        return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "load ?"


def _spin() -> None:
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if cpus:
        os.sched_setaffinity(0, {cpus[-1]})  # "the other core": the last one
    while True:
        pass


def _child(script: str, args: list[str]) -> tuple[list[str], str, int]:
    """Run `script args` as a child: (its stdout lines, a line of wall, CPU and load, its exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start_load, t0 = load(), time.perf_counter()
    res = subprocess.run([sys.executable, script, *args], stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return res.stdout.splitlines(), f"wall {wall:.1f} s, CPU {cpu:.1f} s, {start_load} -> {load()}", res.returncode


def _skeleton(line: str) -> str:
    """What two runs' lines share: the words, with numbers and column padding aside."""
    return " ".join(_NUMBER.sub("#", line).split())


def _ratio(q: str, b: str) -> str:
    try:
        return f" (x{float(b) / float(q):.1f})" if float(q) else ""
    except ValueError:
        return ""


def merge_line(quiet: str, busy: str) -> str:
    """`quiet` with each word or number that differs in `busy` written quiet|busy (a time: then (xR))."""
    q_words, b_words = quiet.split(), busy.split()
    if len(q_words) != len(b_words):
        return f"quiet: {quiet}\nbusy:  {busy}"
    out: list[str] = []
    i = 0
    while i < len(q_words):
        q, b = q_words[i], b_words[i]
        i += 1
        if q == b:
            out.append(q)
            continue
        qn, bn = _NUMBER.fullmatch(q), _NUMBER.fullmatch(b)
        unit = q_words[i] if i < len(q_words) else ""
        if qn and bn and unit.rstrip(",;)") in ("ms", "s"):
            bare = unit.rstrip(",;)")
            out += [f"{q}|{b}", f"{bare}{_ratio(q, b)}{unit[len(bare):]}"]
            i += 1
        else:
            out.append(f"{q}|{b}")
    return quiet[:len(quiet) - len(quiet.lstrip())] + " ".join(out)


def merge(quiet: list[str], busy: list[str]) -> list[str]:
    """The two outputs line by line (lines matched by their words, numbers aside)."""
    out: list[str] = []
    matcher = difflib.SequenceMatcher(a=[_skeleton(x) for x in quiet], b=[_skeleton(x) for x in busy],
                                      autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            out += [merge_line(quiet[a0 + k], busy[b0 + k]) for k in range(a1 - a0)]
        else:
            out += [f"quiet: {x}" for x in quiet[a0:a1]] + [f"busy:  {x}" for x in busy[b0:b1]]
    return out


def side_by_side(script: str, argv: list[str]) -> int:
    """Run `script` quiet, then with a spinner on the other core; print the merged figures."""
    args = [a for a in argv if a != FLAG]
    quiet, q_info, q_rc = _child(script, args)
    spinner = multiprocessing.get_context("spawn").Process(target=_spin, daemon=True)
    spinner.start()
    try:
        time.sleep(0.5)  # the spinner is running before the busy run starts
        busy, b_info, b_rc = _child(script, args)
    finally:
        spinner.terminate()
        spinner.join()
    print(f"--busy: each figure that differs reads quiet|busy; (xR) = busy / quiet.  {os.cpu_count()} cores; "
          f"busy = a spinning process pinned to the last core.  ATTENTION_THREADS="
          f"{os.environ.get('ATTENTION_THREADS', '(unset: the policy)')}")
    print(f"quiet run: {q_info}")
    print(f"busy run:  {b_info}")
    print("\n".join(merge(quiet, busy)))
    return q_rc or b_rc


def main_if_busy(script: str, argv: Optional[list[str]] = None) -> Optional[int]:
    """A bench script's first words: with --busy, the side-by-side run's exit code; None otherwise."""
    argv = sys.argv[1:] if argv is None else argv
    if FLAG not in argv or "-h" in argv or "--help" in argv:
        return None
    return side_by_side(script, argv)
