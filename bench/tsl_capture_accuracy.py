"""How close the engine comes to Time-Series-Library's own modules on captured calls, at TSL's default
sizes (d_model 512, 8 heads, d_ff 2048, 96 input steps, 7 variables, batch 4), float32.

    .venv/bin/python bench/tsl_capture_accuracy.py

Each named layer of each model (TSL's own code, tests/models/tsl_models_lib.py, seeded random weights)
is captured with check=False, then its scenario is run by the engine and compared with the module's
output recorded by a hook of this script's own: the figure printed is max |engine − module| divided by
max(1, max |module|), the measure attention.capture holds TSL modules to (TSL_FLOAT32 = 1e-6).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "models")]

import numpy as np  # noqa: E402
import torch  # noqa: E402
import tsl_models_lib as lib  # noqa: E402

from attention.capture import TSL_FLOAT32, capture  # noqa: E402
from attention.engine import run  # noqa: E402


def measure(label: str, model: torch.nn.Module, names: list[str], *args) -> float:
    model.eval()
    own: dict[str, torch.Tensor] = {}
    mods = dict(model.named_modules())

    def keep(name: str):
        def hook(_m, _a, out) -> None:  # returns None: the module's output is left as it is
            own.setdefault(name, (out[0] if isinstance(out, tuple) else out).detach().clone())
        return hook
    handles = [mods[n].register_forward_hook(keep(n)) for n in names]
    with torch.no_grad(), capture(model, names, check=False) as rec:
        model(*args)
    for h in handles:
        h.remove()
    worst = 0.0
    for stem, sc in rec.scenarios:
        path = stem.rsplit(".call", 1)[0]
        step = "extra.norm_second" if any(p.kind == "encoder_layer" for p in sc.modifiers) else "output"
        want = (own.get(path) if path in own else own[path.rsplit(".", 1)[0]]).double().numpy()
        got = run(sc).array(step)
        rel = float(np.abs(got - want).max()) / max(1.0, float(np.abs(want).max()))
        worst = max(worst, rel)
        print(f"{label:28s} {path:56s} {sc.scoring:16s} {rel:.2e}")
    return worst


def main() -> None:
    torch.manual_seed(0)
    cfg = lib.configs(d_model=512, n_heads=8, d_ff=2048, seq_len=96, label_len=48, pred_len=96, enc_in=7, dec_in=7,
                      c_out=7, factor=3)
    B = 4
    x, xd = torch.randn(B, 96, 7), torch.randn(B, 144, 7)
    worst = max(
        measure("Nonstationary_Transformer", lib.NonstationaryTransformer(cfg),
                ["encoder.attn_layers.0.attention", "encoder.attn_layers.1", "decoder.layers.0.self_attention",
                 "decoder.layers.0.cross_attention"], x, None, xd, None),
        measure("Autoformer", lib.Autoformer(cfg), ["encoder.attn_layers.0.attention"], x),
        measure("PatchTST", lib.PatchTST(cfg), ["encoder.attn_layers.0.attention", "encoder.attn_layers.1"], x),
        measure("iTransformer", lib.ITransformer(cfg), ["encoder.attn_layers.0"], x, torch.randn(B, 96, 4)),
        measure("Crossformer", lib.Crossformer(cfg), ["encoder.encode_blocks.0.encode_layers.0.time_attention",
                                                      "encoder.encode_blocks.0.encode_layers.0.dim_sender",
                                                      "encoder.encode_blocks.0.encode_layers.0.dim_receiver"], x),
        measure("Informer", lib.Informer(cfg), ["encoder.attn_layers.0", "encoder.attn_layers.1"], x),
    )
    print(f"worst {worst:.2e} (capture refuses above {TSL_FLOAT32:g})")


if __name__ == "__main__":
    main()
