"""Soak run of the real window: random edits, resizes, mask and scoring switches, undo/redo,
head focus, scrolling, batch items, language, compare and quiz, for a while; after each burst
it waits until every pane (those out of sight too) has caught up and checks that each shows
exactly attention.run(document.scenario), or that the window says why it cannot.  Any
exception that reaches the window's error hook fails the run.  Not part of pytest (minutes):

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/soak_window.py [--seconds 120] [--seed 0]

It also measures what a long class would notice (issue 13): the process's resident memory
(RSS) once warmed up (after --warmup seconds of operations) and at the end, and the latency of
one edit (a typed cell until every pane shows the new numbers) on the same fixed scenario at
the start and at the end (median of --probes edits each), and the bytes the undo history holds
(capped by app.pipeline.document.UNDO_BYTES).  Targets: RSS growth after warm-up under 50 MB,
end latency within 1.2x of the start.  It exits 1 when an error reached the window, and 3 when
a target was missed (with --strict).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "gui"))

import numpy as np  # noqa: E402
from gui_helpers import expected_matrices  # noqa: E402
from PySide6.QtCore import QEventLoop, Qt, QTimer  # noqa: E402  (PySide6 before torch)
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402


def idle(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def caught_up(window, timeout_s: float = 30.0) -> None:
    window.recompute.wait_idle()
    view, deadline = window.view, time.monotonic() + timeout_s
    while not all(view.is_current(s) for s in view.pane_ids()):
        if time.monotonic() > deadline:
            raise AssertionError("panes out of sight never caught up")
        idle(5)


def check(window) -> str:
    """Every pane shows the engine's numbers for the document (read without drawing), or the
    scenario cannot run and the window says so.  Returns a one-word verdict."""
    import attention

    caught_up(window)
    sc = window.document.scenario
    try:
        trace = attention.run(sc)
    except attention.ScenarioError:
        assert window.view._stale, "a scenario the engine refuses, but the panes are not marked stale"
        return "refused"
    view = window.view
    from attention.registry import step_registry

    # the Steps region shows the trace's steps in pipeline order (step_registry.in_order)
    assert view.pane_ids() == step_registry.in_order(trace.ids), "the panes are not the trace's steps"
    tools = window.cell_tools
    if tools.compare.lens.active or tools.quiz.lens.active:
        return "lens"  # the panes show a difference or hide numbers on purpose
    batch = view.current_batch()
    for sid in trace.ids:
        shown = view.pane(sid, current=False).displayed_arrays()
        for s, w in zip(shown, expected_matrices(trace, sid, batch)):
            w = w.astype(np.float32)
            ok = ~np.isnan(w)
            assert np.array_equal(np.asarray(s)[ok], w[ok]), f"{sid}: other numbers than the engine's"
    return "ok"


def rss_mb() -> float:
    """This process's resident memory now, in MB (Linux /proc; else the peak from getrusage)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 if sys.platform != "darwin" else peak / 2**20


def plain_window(window) -> None:
    """The window as at the start: no slides, lens, quiz, explanation or head focus, English,
    batch item 0, scrolled to the top (so both latency probes time the very same work)."""
    tools, view = window.cell_tools, window.view
    if window.presentation.view.isVisible():
        window.presentation.view.leave()
    tools.compare.show_difference(False)
    if tools.compare.pinned is not None:
        tools.compare.unpin()
    tools.quiz.hide_step(None)
    tools.panel.clear()
    view.set_focus_head(-1)
    window.set_language("en")
    window.inputs.batch.setValue(0)
    view.scroll.verticalScrollBar().setValue(0)


def edit_latency_ms(window, probe_scenario, probes: int) -> float:
    """Median time of one typed cell until every pane shows it, on `probe_scenario` (loaded
    fresh, so start and end time the very same work)."""
    import gc

    plain_window(window)
    window.document.load(probe_scenario, None)
    caught_up(window)
    gc.collect()
    model = window.inputs.editors["queries"].model
    times = []
    for i in range(probes):
        t0 = time.perf_counter()
        model.setData(model.index(i % model.rowCount(), (i // model.rowCount()) % model.columnCount()),
                      f"{(i % 7) - 3}.5", Qt.ItemDataRole.EditRole)
        window.recompute.recompute_now()
        caught_up(window)
        times.append(time.perf_counter() - t0)
    window.document.undo_stack.setClean()
    return float(np.median(times) * 1000)


def mappings_kb() -> dict[str, int]:
    """Resident kB per kind of mapping (/proc/self/smaps): [heap], anonymous, or the file mapped."""
    out: dict[str, int] = {}
    name = "?"
    try:
        with open("/proc/self/smaps", encoding="ascii", errors="replace") as f:
            for line in f:
                head = line.split()
                if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                    name = head[5] if len(head) > 5 else "[anonymous]"
                elif line.startswith("Rss:"):
                    out[name] = out.get(name, 0) + int(head[1])
    except OSError:
        pass
    return out


def growth_snapshot() -> tuple:
    """(tracemalloc snapshot, count of live objects by type name) after a full collection."""
    import gc
    import tracemalloc

    gc.collect()
    counts: dict[str, int] = {}
    for o in gc.get_objects():
        t = type(o)
        name = f"{getattr(t, '__module__', '?')}.{getattr(t, '__qualname__', t.__name__)}"
        counts[name] = counts.get(name, 0) + 1
    return tracemalloc.take_snapshot(), counts


def print_growth(before: tuple, after: tuple, top: int = 15) -> None:
    """Where Python's allocations grew between two growth_snapshot()s, and which object kinds multiplied."""
    import tracemalloc

    stats = after[0].compare_to(before[0], "traceback")
    grown = sum(s.size_diff for s in stats)
    print(f"tracemalloc: Python allocations {grown / 2**20:+.1f} MiB since the warm-up; the largest growths:")
    for s in stats[:top]:
        frames = [f"{f.filename.split('/wt/')[-1]}:{f.lineno}" for f in s.traceback[-4:]]
        print(f"  {s.size_diff / 2**10:+9.0f} KiB {s.count_diff:+7d} blocks  " + " <- ".join(reversed(frames)))
    diff = sorted(((after[1].get(k, 0) - before[1].get(k, 0), k) for k in after[1]), reverse=True)[:top]
    print("objects that grew in number:", ", ".join(f"{k} {n:+d}" for n, k in diff if n > 0))
    print(f"tracemalloc's own memory: {tracemalloc.get_tracemalloc_memory() / 2**20:.0f} MiB (in the RSS figures)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--warmup", type=float, default=None, help="seconds before RSS is taken as the base "
                                                               "(default: a fifth of the run, at most 120)")
    ap.add_argument("--probes", type=int, default=15, help="edits timed at the start and at the end")
    ap.add_argument("--strict", action="store_true", help="exit 3 when a target is missed")
    ap.add_argument("--trace", action="store_true", help="print each operation (to find the one that breaks)")
    ap.add_argument("--only", metavar="NAME,NAME", default="",
                    help="only these operations (names as --trace prints them): which one makes memory grow?")
    ap.add_argument("--every", type=float, default=0.0, metavar="S",
                    help="also print the RSS and the panes built every S seconds (is a growth levelling off?)")
    ap.add_argument("--tracemalloc", action="store_true",
                    help="after the run, print where Python memory grew since the warm-up (tracemalloc) and which "
                         "kinds of object grew in number (what to look at when RSS grows)")
    args = ap.parse_args()
    if args.tracemalloc:
        import tracemalloc

        tracemalloc.start(12)
    app = QApplication.instance() or QApplication(sys.argv[:1])  # noqa: F841 (alive for the run)
    from app.main_window import MainWindow
    from app.services.settings import Settings

    errors: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        window = MainWindow(Settings.at(Path(tmp) / "soak.ini"))
        window.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
        window.show_error = errors.append  # what the error hook would show
        from app.startup.application import install_excepthook
        install_excepthook(errors.append)
        window.resize(1600, 1000)
        window.show()
        window.recompute.recompute_now()
        probe_scenario = window.document.scenario
        latency_start = edit_latency_ms(window, probe_scenario, args.probes)
        warmup = args.warmup if args.warmup is not None else min(args.seconds / 5, 120.0)
        rss_base: float | None = None
        rss_start = rss_mb()
        undo_peak = 0
        rng = np.random.default_rng(args.seed)
        params, inputs, view, tools = window.params, window.inputs, window.view, window.cell_tools
        c = params.controls

        def cell():
            m = inputs.editors[str(rng.choice(["queries", "keys", "values"]))].model
            if m.rowCount() and m.columnCount():
                text = str(rng.choice([f"{rng.normal():.3f}", "abc", "inf", "1e40", f"{rng.integers(-3, 4)}"]))
                m.setData(m.index(int(rng.integers(m.rowCount())), int(rng.integers(m.columnCount()))), text,
                          Qt.ItemDataRole.EditRole)

        ops = [
            (cell, 30),
            (lambda: c["L"].setValue(int(rng.integers(1, 13))), 4),
            (lambda: c["S"].setValue(int(rng.integers(1, 13))), 4),
            (lambda: c["d_model"].setValue(int(rng.choice([4, 6, 8, 16, 32]))), 3),
            (lambda: c["n_heads"].setValue(int(rng.choice([1, 2, 3, 4, 8]))), 4),
            (lambda: c["batch"].setValue(int(rng.integers(1, 4))), 2),
            (lambda: inputs.batch.setValue(int(rng.integers(0, 4))), 2),
            (lambda: c["causal"].setChecked(not c["causal"].isChecked()), 3),
            (lambda: c["scoring"].setCurrentIndex(int(rng.integers(c["scoring"].count()))), 3),
            (lambda: c["valid_mode"].setCurrentIndex(int(rng.integers(c["valid_mode"].count()))), 2),
            (lambda: c["fill_value"].setCurrentIndex(int(rng.integers(c["fill_value"].count()))), 1),
            (lambda: window.undo_action.trigger(), 6),
            (lambda: window.redo_action.trigger(), 3),
            (lambda: view.set_focus_head(int(rng.integers(-1, 4))), 2),
            (lambda: view.scroll.verticalScrollBar().setValue(
                int(rng.integers(0, view.scroll.verticalScrollBar().maximum() + 1))), 6),
            (lambda: window.set_language(str(rng.choice(["en", "zh"]))), 1),
            (lambda: tools.compare.pin() if tools.compare.pinned is None else tools.compare.unpin(), 1),
            (lambda: tools.compare.show_difference(not tools.compare.lens.enabled), 1),
            (lambda: tools.quiz.hide_step(None if tools.quiz.step_id or rng.random() < 0.5 else
                                          str(rng.choice(view.pane_ids()))), 1),
        ]
        def editor():
            return inputs.editors[str(rng.choice(["queries", "keys", "values", "weights"]))]

        def paste():
            rows, cols = int(rng.integers(1, 4)), int(rng.integers(1, 4))
            text = "\n".join("\t".join(str(rng.choice([f"{rng.normal():.2f}", "x", ""])) for _ in range(cols))
                             for _ in range(rows))
            editor().paste(text)

        def explain():
            ids = view.pane_ids()
            trace = view.current_trace()
            if ids and trace is not None:
                sid = str(rng.choice(ids))
                if sid in trace:
                    tools.panel.select(sid, tuple(int(rng.integers(n)) for n in trace[sid].shape))

        def present():
            pv = window.presentation.view
            if pv.isVisible():
                for _ in range(int(rng.integers(1, 4))):
                    pv.next()
                if rng.random() < 0.5:
                    pv.leave()
            else:
                pv.enter()

        def save_and_open():
            path = Path(tmp) / "soak.json"
            window.write(path)
            if path.exists() and rng.random() < 0.5:
                window.load_path(str(path))

        ops += [
            (paste, 4),
            (lambda: editor().fill(str(rng.choice(["normal", "uniform", "zeros", "ones", "identity", "arange"])),
                                   whole=bool(rng.random() < 0.5)), 3),
            (explain, 3),
            (lambda: tools.panel.clear(), 1),
            (present, 2),
            (save_and_open, 1),
        ]
        names = ["cell", "L", "S", "d_model", "n_heads", "batch size", "batch item", "causal", "scoring",
                 "valid lengths", "fill", "undo", "redo", "focus head", "scroll", "language", "pin/unpin",
                 "difference", "quiz", "paste", "fill", "explain", "clear explain", "present", "save/open"]
        only = set(filter(None, args.only.split(",")))
        weights = np.array([w if not only or names[i] in only else 0 for i, (_, w) in enumerate(ops)], dtype=float)
        verdicts: dict[str, int] = {}
        n_ops, start = 0, time.monotonic()
        next_report = args.every
        while time.monotonic() - start < args.seconds and not errors:
            for _ in range(int(rng.integers(1, 8))):
                k = int(rng.choice(len(ops), p=weights / weights.sum()))
                if args.trace:
                    sc = window.document.scenario
                    print(n_ops, names[k], f"B={sc.batch} L={sc.L} S={sc.S} d={sc.d_model} H={sc.n_heads}",
                          sc.scoring, f"causal={sc.causal}",
                          "valid=" + str(None if sc.valid_lens is None else sc.valid_lens.shape),
                          f"focus={view.focus_head()} batch={view.current_batch()} quiz={tools.quiz.step_id}",
                          f"pinned={tools.compare.pinned is not None} diff={tools.compare.lens.enabled}", flush=True)
                ops[k][0]()
                n_ops += 1
                idle(int(rng.integers(0, 30)))
            v = check(window)
            verdicts[v] = verdicts.get(v, 0) + 1
            undo_peak = max(undo_peak, window.document.undo_bytes())
            if args.every and time.monotonic() - start >= next_report:
                next_report += args.every
                built = len(view._panes) + len(getattr(window.presentation.view, "_panes", {}))
                print(f"soak: {time.monotonic() - start:5.0f} s, {n_ops} operations: RSS {rss_mb():.0f} MB, "
                      f"{built} panes built, {sys.getallocatedblocks() / 1e6:.2f} M Python memory blocks",
                      flush=True)
            if rss_base is None and time.monotonic() - start >= warmup:
                rss_base = rss_mb()
                growth_base = growth_snapshot() if args.tracemalloc else None
                maps_base = mappings_kb()
        elapsed = time.monotonic() - start
        undo_end, undo_steps = window.document.undo_bytes(), window.document.undo_stack.count()
        rss_end = rss_mb()
        from app.pipeline import heap

        heap.give_back()  # what the app's idle trim would return a second after the last edit
        rss_trimmed = rss_mb()
        if rss_base is not None:
            maps = mappings_kb()
            grown = sorted(((maps.get(k, 0) - maps_base.get(k, 0), k) for k in maps), reverse=True)[:4]
            print("soak: resident memory that grew after the warm-up, by mapping:",
                  ", ".join(f"{k.split('/')[-1]} {n / 1024:+.1f} MB" for n, k in grown))
        if args.tracemalloc and rss_base is not None:
            print_growth(growth_base, growth_snapshot())
        latency_end = edit_latency_ms(window, probe_scenario, args.probes)
        window.document.undo_stack.setClean()
        window.close()
    from app.pipeline.document import UNDO_BYTES

    base = rss_base if rss_base is not None else rss_start
    growth = rss_end - base
    ratio = latency_end / latency_start if latency_start else float("nan")
    print(f"soak: {n_ops} operations in {elapsed:.0f} s, checks {verdicts}")
    print(f"soak: RSS {rss_start:.0f} MB at start, {base:.0f} MB after {warmup:.0f} s warm-up, {rss_end:.0f} MB at "
          f"the end: growth after warm-up {growth:+.0f} MB (target < 50 MB); {rss_trimmed:.0f} MB once the freed heap "
          f"is given back (app.pipeline.heap, as after a second's pause): {rss_trimmed - base:+.0f} MB")
    print(f"soak: edit latency (median of {args.probes}) {latency_start:.1f} ms at start, {latency_end:.1f} ms at "
          f"the end: {ratio:.2f}x (target <= 1.2x)")
    print(f"soak: undo history {undo_end / 2**20:.1f} MiB in {undo_steps} steps at the end, peak "
          f"{undo_peak / 2**20:.1f} MiB (cap {UNDO_BYTES / 2**20:.0f} MiB)")
    if errors:
        print("errors that reached the window:", *errors[:5], sep="\n  ")
        return 1
    if args.strict and (growth >= 50 or ratio > 1.2 or undo_peak > UNDO_BYTES):
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
