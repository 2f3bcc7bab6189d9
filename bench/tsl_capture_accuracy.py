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
from attention.compute.engine import run  # noqa: E402


def measure(label: str, model: torch.nn.Module, names: list[str], *args) -> float:
    model.eval()
    own: dict[str, torch.Tensor] = {}
    mods = dict(model.named_modules())

    def keep(name: str):
        def hook(_m, _a, out) -> None:  # returns None: the module's output is left as it is
            own.setdefault(name, (out[0] if isinstance(out, tuple) else out).detach().clone())
        return hook
    convs = [n.replace("attn_layers", "conv_layers") for n in names if ".attn_layers." in n]
    handles = [mods[n].register_forward_hook(keep(n)) for n in names + [c for c in convs if c in mods]]
    with torch.no_grad(), capture(model, names, check=False) as rec:
        model(*args)
    for h in handles:
        h.remove()
    worst = 0.0
    for stem, sc in rec.scenarios:
        path = stem.rsplit(".call", 1)[0]
        kinds = [p.kind for p in sc.modifiers]
        step = "extra.norm_second" if "encoder_layer" in kinds else "output"
        want = (own.get(path) if path in own else own[path.rsplit(".", 1)[0]]).double()
        pairs = [(step, want)]
        if "two_stage" in kinds:  # the whole layer's (b, D, seg, d) output, tokens v·seg + s
            pairs = [("extra.tsa_output", want.reshape(want.shape[0], -1, want.shape[-1]))]
        if "distil" in kinds:  # and the ConvLayer's output after it
            pairs.append(("extra.distil_pool", own[path.replace("attn_layers", "conv_layers")].double()))
        trace = run(sc)
        for step, w in pairs:
            w = w.numpy()
            rel = float(np.abs(trace.array(step) - w).max()) / max(1.0, float(np.abs(w).max()))
            worst = max(worst, rel)
            print(f"{label:28s} {path:56s} {step:18s} {sc.scoring:16s} {rel:.2e}")
    return worst


class _Cross(torch.nn.Module):
    """An Autoformer DecoderLayer's cross_attention alone (factor 3, as cfg)."""

    def __init__(self) -> None:
        super().__init__()
        self.cross_attention = lib.AutoCorrelationLayer(lib.AutoCorrelation(False, 3), 512, 8)

    def forward(self, q, k, v, mask):
        return self.cross_attention(q, k, v, mask)


def _cross(B: int) -> tuple:
    """Autoformer's decoder cross-correlation: label_len + pred_len = 144 queries, 96 encoder steps."""
    q, kv = torch.randn(B, 144, 512), torch.randn(B, 96, 512)
    return q, kv, kv, None


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
        measure("Autoformer, 95 steps (odd)", lib.Autoformer(cfg), ["encoder.attn_layers.0.attention"], x[:, :95]),
        measure("AutoCorrelation L 144, S 96", _Cross(), ["cross_attention"], *_cross(B)),
        measure("PatchTST", lib.PatchTST(cfg), ["encoder.attn_layers.0.attention", "encoder.attn_layers.1"], x),
        measure("iTransformer", lib.ITransformer(cfg), ["encoder.attn_layers.0"], x, torch.randn(B, 96, 4)),
        measure("Crossformer", lib.Crossformer(cfg), ["encoder.encode_blocks.0.encode_layers.0",
                                                      "encoder.encode_blocks.0.encode_layers.0.time_attention",
                                                      "encoder.encode_blocks.0.encode_layers.0.dim_sender",
                                                      "encoder.encode_blocks.0.encode_layers.0.dim_receiver"], x),
        measure("Informer", lib.Informer(cfg), ["encoder.attn_layers.0", "encoder.attn_layers.1"], x),
    )
    print(f"worst {worst:.2e} (capture refuses above {TSL_FLOAT32:g})")


if __name__ == "__main__":
    main()
