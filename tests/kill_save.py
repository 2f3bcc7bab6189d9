"""SIGKILL in the middle of saving a big scenario, again and again: after each kill the target
must hold the complete old or the complete new scenario (never a partial file), and the next
save must leave no temporary behind.  Not part of pytest (a minute or more):

    .venv/bin/python tests/kill_save.py [--kills 20] [--size 1000000]

Prints one line: kills -> old / new / partial, leftovers after each kill and after the next save.
"""
from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SAVE = r"""
import sys
from attention.files import scenario_io
sc = scenario_io.load(sys.argv[2])
print("LOADED", flush=True)
scenario_io.save(sc, sys.argv[1])
print("SAVED", flush=True)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--size", type=int, default=1_000_000, help="numbers in each of queries, keys and values")
    args = ap.parse_args()
    import dataclasses

    import numpy as np

    from attention.datamodel.scenario import same
    from attention.files import safe_write, scenario_io
    from resources import list_presets

    toy = scenario_io.load(list_presets()[0][0])
    rng = np.random.default_rng(0)
    L = max(args.size // 100, 1)
    old = dataclasses.replace(toy, queries=rng.normal(size=(1, L, 100)), keys=rng.normal(size=(1, L, 100)),
                              values=rng.normal(size=(1, L, 100)), n_heads=1, projections={},
                              query_tokens=None, key_tokens=None, valid_lens=None, causal=False)
    new = dataclasses.replace(old, values=old.values + 1.0)
    outcomes = {"old": 0, "new": 0, "partial": 0}
    leftovers_after_kill = leftovers_after_save = 0
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        target, source = Path(tmp) / "big.json", Path(tmp) / "source" / "new.json"
        source.parent.mkdir()
        scenario_io.save(old, target)
        scenario_io.save(new, source)
        size_mb = target.stat().st_size / 2**20
        for _ in range(args.kills):
            p = subprocess.Popen([sys.executable, "-c", SAVE, str(target), str(source)], cwd=ROOT, env=env,
                                 stdout=subprocess.PIPE, text=True)
            assert p.stdout.readline().startswith("LOADED")
            time.sleep(random.uniform(0.0, 1.5))  # somewhere in the save (or after it)
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
            try:
                got = scenario_io.load(target)
                outcomes["new" if same(got, new) else "old" if same(got, old) else "partial"] += 1
            except Exception:  # noqa: BLE001 - a partial file is exactly what we count
                outcomes["partial"] += 1
            leftovers_after_kill += len(safe_write.stale_temporaries(target))
            scenario_io.save(old, target)  # the next save: back to old, and it clears what the kill left
            leftovers_after_save += len([n for n in os.listdir(tmp) if n.endswith(".tmp")])
    print(f"kill_save: {args.kills} SIGKILLs while saving a {size_mb:.0f} MB scenario -> old {outcomes['old']}, "
          f"new {outcomes['new']}, partial {outcomes['partial']}; temporaries left by the kills "
          f"{leftovers_after_kill}, left after the next save {leftovers_after_save}")
    return 1 if outcomes["partial"] or leftovers_after_save else 0


if __name__ == "__main__":
    sys.exit(main())
