"""Nothing lost: the window tried as a hostile user would, in one process, counted per class
(issue 21 items 1-4).  Prints one row per class: tried, clean refusal, ok, uncaught, hang.

    .venv/bin/python bench/nothing_lost.py            # 600 damaged autosaves
    .venv/bin/python bench/nothing_lost.py --n 2000

- "clean refusal": the program said no in a sentence (a damaged autosave skipped with its line,
  a save over a file changed on disk asked first, an autosave failure shown in the window);
- "ok": it did the thing and nothing was lost (an offered autosave whose every use works, a
  menu entry that did its job, a save that replaced only what this window had read);
- "uncaught": an exception escaped; "hang": a case ran past 20 s (SIGALRM).
A crash ends the process: then no table is printed at all.
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
import PySide6.QtWidgets  # noqa: E402,F401  (before torch)
from PySide6.QtCore import QCoreApplication, QEvent, QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from app.pipeline import autosave  # noqa: E402
from attention import Scenario  # noqa: E402
from attention.files import scenario_io  # noqa: E402


class Hang(Exception):
    pass


_hung = [False]


def _alarm(*_):
    """Past 20 s: close whatever popup or dialog holds a nested event loop, and say so (an
    exception raised here inside Qt's loop would only reach sys.excepthook)."""
    _hung[0] = True
    popup = QApplication.activePopupWidget() or QApplication.activeModalWidget()
    if popup is not None:
        popup.close()
    else:
        raise Hang()


def run_case(tally: Counter, case) -> None:
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(20)
    _hung[0] = False
    try:
        result = case()
        tally["hang" if _hung[0] else result] += 1
    except Hang:
        tally["hang"] += 1
    except Exception as e:  # noqa: BLE001 - what the table counts
        tally["uncaught"] += 1
        print(f"  uncaught: {type(e).__name__}: {str(e)[:200]}", flush=True)
    finally:
        signal.alarm(0)


# ---- damaged autosaves -------------------------------------------------------------------------
def _json_value(rng: random.Random, depth: int = 0):
    makers = [lambda: None, lambda: True, lambda: rng.randint(-2**70, 2**70),
              lambda: rng.choice([0.0, -1.5, 1e308, -1e308, 5e-324]),
              lambda: "".join(rng.choice("ab\u00e9\u4e2d\\\"") for _ in range(rng.randrange(6))),
              lambda: rng.choice([[1, 2], {"shape": [2], "float64_base64": "AAAAAAAAAAA="}])]
    if depth < 3:
        makers += [lambda: [_json_value(rng, depth + 1) for _ in range(rng.randrange(4))],
                   lambda: {rng.choice(["en", "zh", "x", "$array", "shape"]): _json_value(rng, depth + 1)
                            for _ in range(3)}]
    return rng.choice(makers)()


def damaged_docs(good: dict, n: int, seed: int):
    """(what, text) pairs: field replacements at every level, truncations, byte flips, deep nests."""
    rng = random.Random(seed)
    text = json.dumps(good)
    for i in range(n):
        kind = i % 6
        if kind == 0:  # a top-level field
            doc = json.loads(text)
            doc[rng.choice(list(doc) + ["extra"])] = _json_value(rng)
            yield "top field", json.dumps(doc)
        elif kind == 1:  # a scenario field
            doc = json.loads(text)
            body = doc["scenario"]
            key = rng.choice(list(body))
            body[key] = _json_value(rng) if rng.random() < 0.8 else None
            yield "scenario field", json.dumps(doc)
        elif kind == 2:  # inside a packed matrix
            doc = json.loads(text)
            inner = doc["scenario"]["queries"]["$array"]
            inner[rng.choice(["shape", "float64_base64", "dtype"])] = _json_value(rng)
            yield "packed matrix", json.dumps(doc)
        elif kind == 3:  # cut short
            yield "truncated", text[:rng.randrange(len(text))]
        elif kind == 4:  # bytes flipped
            b = bytearray(text.encode())
            for _ in range(rng.randrange(1, 6)):
                b[rng.randrange(len(b))] = rng.randrange(256)
            yield "bytes flipped", b.decode("utf-8", "replace")
        else:  # nested deep, somewhere
            depth = rng.choice([50, 900, 5000, 100_000])
            where = rng.choice(["whole", "title", "scenario"])
            deep = "[" * depth + "]" * depth
            if where == "whole":
                yield "deep", deep
            else:
                yield "deep", text.replace(f'"{where}": ', f'"{where}": {deep}, "_{where}": ', 1)


def damaged_autosaves(window, n: int) -> Counter:
    tally: Counter = Counter()
    rng = np.random.default_rng(0)
    q = rng.normal(size=(1, 3, 4))
    sc = Scenario(q, q + 1, q * 2, n_heads=2)
    good = {"format": autosave.FORMAT, "version": autosave.VERSION, "saved_at": time.time(), "source": None,
            "title": {"en": "Toy", "zh": "玩具"}, "scenario": autosave.pack(scenario_io.to_dict(sc), sc)}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (_, text) in enumerate(damaged_docs(good, n, seed=1)):
            folder = Path(tmp) / f"f{i}"
            folder.mkdir()
            (folder / "session-000000000001.json").write_text(json.dumps(good), encoding="utf-8")
            bad = folder / "session-000000000002.json"
            bad.write_text(text, encoding="utf-8", errors="surrogateescape")

            def case(folder=folder, bad=bad):
                skipped: list = []
                orphans = autosave.find_orphans(folder, skipped)
                files = [o.file for o in orphans]
                assert folder / "session-000000000001.json" in files, "the good one was not offered"
                for o in orphans:  # everything the window does with an offer
                    window.restore_text(o)
                    o.base_stamp()
                    o.release()
                if skipped:
                    assert bad not in files and all(s.reason for s in skipped)
                    return "clean refusal"
                assert bad in files
                return "ok"

            run_case(tally, case)
    return tally


# ---- the right-click menu --------------------------------------------------------------------
def context_menus(window, rounds: int) -> Counter:
    tally: Counter = Counter()
    editor = window.inputs.editors["queries"]
    entries = [("Copy", None), ("Paste", None)] + [
        (a.text(), title) for title, menu in (("Fill selection", editor.fill_selection_menu),
                                              ("Fill whole matrix", editor.fill_all_menu)) for a in menu.actions()]
    for _ in range(rounds):
        for text, submenu in entries:
            def case(text=text, submenu=submenu):
                before = window.document.undo_stack.count()
                chosen: list[str] = []

                def click() -> None:
                    menu = QApplication.activePopupWidget()
                    if menu is None:  # not up yet
                        QTimer.singleShot(20, click)
                        return
                    if submenu is not None:
                        a = next(a for a in menu.actions() if a.text() == submenu)
                        menu.setActiveAction(a)
                        inner = a.menu()
                        inner.popup(menu.mapToGlobal(menu.actionGeometry(a).topRight()))
                        menu = inner
                    a = next(a for a in menu.actions() if a.text() == text)
                    chosen.append(text)
                    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(a).center())

                QTimer.singleShot(20, click)
                editor.select_rect(0, 0, 2, 2)
                QApplication.clipboard().setText("1\t2\n3\t4")
                editor.table.customContextMenuRequested.emit(editor.table.visualRect(editor.model.index(1, 1)).center())
                QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
                QCoreApplication.processEvents()
                assert chosen == [text], "the menu did not open"
                assert text == "Copy" or window.document.undo_stack.count() >= before
                return "ok"

            run_case(tally, case)
    return tally


# ---- files changed on disk -------------------------------------------------------------------
def changed_files(make) -> Counter:
    """Each case: window b holds unsaved changes to a file something else changed; b saves."""
    tally: Counter = Counter()
    tmp = Path(tempfile.mkdtemp())

    def setup(name: str):
        a, b = make(), make()
        path = tmp / f"{name}.json"
        a.ask_save_path = lambda *args: str(path)
        assert a.save_as() and b.load_path(path)
        m = b.inputs.editors["queries"].model
        m.setData(m.index(1, 2), "42")
        asked: list = []
        b.ask_overwrite_changed = lambda p, now: asked.append(p) or "cancel"
        return a, b, path, asked

    def other_window(a, b, path, asked):
        m = a.inputs.editors["queries"].model
        m.setData(m.index(0, 0), "7")
        a.save()
        ok = not b.save() and asked and scenario_io.load(path).queries[0, 0, 0] == 7
        return "clean refusal" if ok else "lost"

    def same_size_same_mtime(a, b, path, asked):
        st, text = path.stat(), path.read_text(encoding="utf-8")
        i = text.index('"n_heads": ') + len('"n_heads": ')
        path.write_text(text[:i] + ("1" if text[i] != "1" else "2") + text[i + 1:], encoding="utf-8")
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        return "clean refusal" if not b.save() and asked else "lost"

    def touched(a, b, path, asked):
        os.utime(path, (time.time() + 50, time.time() + 50))
        return "ok" if b.save() and not asked and scenario_io.load(path).queries[0, 1, 2] == 42 else "lost"

    def deleted(a, b, path, asked):
        path.unlink()
        return "ok" if b.save() and not asked and path.exists() else "lost"

    def became_a_folder(a, b, path, asked):
        path.unlink()
        path.mkdir()
        return "clean refusal" if not b.save() and b.message_bar.title() else "lost"

    def became_a_fifo(a, b, path, asked):
        path.unlink()
        os.mkfifo(path)
        saved = b.save()  # never blocks; the target is refused or replaced, nothing to lose either way
        return "ok" if saved else "clean refusal"

    for case in (other_window, same_size_same_mtime, touched, deleted, became_a_folder, became_a_fifo):
        run_case(tally, lambda case=case: case(*setup(case.__name__)))
    return tally


# ---- autosave failures -----------------------------------------------------------------------
def autosave_failures(window) -> Counter:
    tally: Counter = Counter()
    real = autosave.safe_write.write_atomic
    for code in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO, errno.ENAMETOOLONG):
        def case(code=code):
            def refuse(*a, **k):
                raise OSError(code, os.strerror(code))
            autosave.safe_write.write_atomic = refuse
            try:
                window.message_bar.clear()
                m = window.inputs.editors["queries"].model
                m.setData(m.index(0, 1), str(code))
                window.autosave.write_now()
                shown = not window.recovery_label.isHidden() and "Recovery is off" in window.message_bar.title()
            finally:
                autosave.safe_write.write_atomic = real
            window.autosave.write_now()
            back = window.recovery_label.isHidden()
            return "clean refusal" if shown and back else "silent"
        run_case(tally, case)
    return tally


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=600, help="damaged autosaves to try")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication([])
    tmp = tempfile.mkdtemp()
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, tmp)
    from app.main_window import MainWindow
    from app.services.settings import Settings

    settings = Settings.at(Path(tmp) / "settings.ini")
    settings.set_language("en")
    windows = []

    def make():
        w = MainWindow(settings)
        w.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
        windows.append(w)
        return w

    w = make()
    w.show()
    pulse = QTimer()  # Python runs every 50 ms inside Qt's loops: the SIGALRM handler gets its turn
    pulse.timeout.connect(lambda: None)
    pulse.start(50)
    rows = {
        "1 right-click menu, every entry, 5 rounds": context_menus(w, 5),
        f"3 damaged autosaves ({args.n})": damaged_autosaves(w, args.n),
        "2 file changed on disk, then Save": changed_files(make),
        "4 autosave write refused (errno)": autosave_failures(w),
    }
    print(f"{'class':45} {'tried':>6} {'refusal':>8} {'ok':>6} {'uncaught':>9} {'hang':>5} {'other':>6}")
    for name, t in rows.items():
        other = sum(v for k, v in t.items() if k not in ("clean refusal", "ok", "uncaught", "hang"))
        print(f"{name:45} {sum(t.values()):>6} {t['clean refusal']:>8} {t['ok']:>6} {t['uncaught']:>9} "
              f"{t['hang']:>5} {other:>6}")
    for win in windows:
        win.recompute.shutdown()
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
