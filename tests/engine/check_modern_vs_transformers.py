"""The modern kinds' math (attention/kinds/*.py) against transformers' own functions, in float64.

Run by hand, with `transformers` installed (it is NOT a dependency of the project, so this is not
collected by pytest), e.g. into a scratch folder:
    pip install --target /tmp/hfsite transformers
    PYTHONPATH=/tmp/hfsite .venv/bin/python tests/engine/check_modern_vs_transformers.py

With hf_float32=True every kind must equal transformers bit for bit (transformers computes RoPE
angles, ALiBi slopes and the QK-norms in float32 even in a float64 model); the default (every step
in float64) is printed beside it, to show how far the exact numbers are from transformers'.
Exit status 1 when a hf_float32 result is not exact.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import transformers  # noqa: E402
from transformers import GPTNeoXConfig, LlamaConfig  # noqa: E402
from transformers import masking_utils as mu  # noqa: E402
from transformers.models.bloom import modeling_bloom as mb  # noqa: E402
from transformers.models.gemma2 import modeling_gemma2 as m2  # noqa: E402
from transformers.models.gemma3 import modeling_gemma3 as mg  # noqa: E402
from transformers.models.gpt_neox import modeling_gpt_neox as mn  # noqa: E402
from transformers.models.gpt_oss import modeling_gpt_oss as mo  # noqa: E402
from transformers.models.gptj import modeling_gptj as mj  # noqa: E402
from transformers.models.llama import modeling_llama as ml  # noqa: E402
from transformers.models.qwen3 import modeling_qwen3 as mq  # noqa: E402

from attention.kinds import alibi, gqa, qk_norm, rope, sinks, softcap, window  # noqa: E402

f64 = torch.float64
failures: list[str] = []


def report(name: str, ours_hf: torch.Tensor, ours_exact: torch.Tensor | None, theirs: torch.Tensor) -> None:
    exact = torch.equal(ours_hf, theirs)
    line = f"{name:<34} hf_float32: {'exact' if exact else f'{(ours_hf - theirs).abs().max().item():.1e}'}"
    if ours_exact is not None:
        line += f"   float64 default: max|diff| {(ours_exact - theirs).abs().max().item():.1e}"
    print(line)
    if not exact:
        failures.append(name)


class Stub(torch.nn.Module):
    """What the eager attention functions read from their module."""

    def __init__(self, groups: int, sinks: torch.Tensor | None = None):
        super().__init__()
        self.num_key_value_groups = groups
        if sinks is not None:
            self.sinks = torch.nn.Parameter(sinks)


def main() -> int:
    print("transformers", transformers.__version__, " torch", torch.__version__)
    torch.manual_seed(0)
    B, N, H, d = 2, 300, 4, 16
    x = torch.randn(B, N, H, d, dtype=f64) * 3
    pos = torch.arange(N)[None].expand(B, N) + 7

    cfg = LlamaConfig(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=16, rope_theta=500000.0)
    cos, sin = ml.LlamaRotaryEmbedding(cfg).to(f64)(x, pos)
    theirs = ml.apply_rotary_pos_emb(x.transpose(1, 2), x.transpose(1, 2), cos, sin)[0].transpose(1, 2)
    report("Llama RoPE (halves)", rope.rotate(x, 500000.0, 1.0, "halves", 7, hf_float32=True),
           rope.rotate(x, 500000.0, 1.0, "halves", 7), theirs)

    cfg = GPTNeoXConfig(hidden_size=64, num_attention_heads=4, rotary_pct=0.25, rotary_emb_base=10000)
    cos, sin = mn.GPTNeoXRotaryEmbedding(cfg).to(f64)(x, pos)
    theirs = mn.apply_rotary_pos_emb(x.transpose(1, 2), x.transpose(1, 2), cos, sin)[0].transpose(1, 2)
    report("GPT-NeoX RoPE (partial 1/4)", rope.rotate(x, 10000.0, 0.25, "halves", 7, hf_float32=True),
           rope.rotate(x, 10000.0, 0.25, "halves", 7), theirs)

    sincos = mj.create_sinusoidal_positions(400, 8)[pos]
    s_, c_ = torch.split(sincos, sincos.shape[-1] // 2, dim=-1)
    theirs = torch.cat([mj.apply_rotary_pos_emb(x[..., :8], s_, c_), x[..., 8:]], dim=-1)
    report("GPT-J RoPE (adjacent, partial 1/2)", rope.rotate(x, 10000.0, 0.5, "adjacent", 7, hf_float32=True),
           rope.rotate(x, 10000.0, 0.5, "adjacent", 7), theirs)

    kv = torch.randn(2, 2, 5, 3, dtype=f64)  # (B, J, S, d), transformers' layout
    report("repeat_kv", gqa.expand_kv(kv.transpose(1, 2), 6), None, ml.repeat_kv(kv, 3).transpose(1, 2))

    for n in (1, 5, 6, 8, 12, 16, 24, 32, 40):
        mask = torch.ones(2, 37, dtype=torch.long)
        mask[1, :4] = 0  # left padding
        theirs = mb.build_alibi_tensor(mask, n, f64).view(2, n, 1, 37)
        kp = alibi.key_positions(mask.bool())
        report(f"BLOOM ALiBi, {n} heads",
               alibi.alibi_bias(alibi.bloom_slopes(n, hf_float32=True), 1, 37, "key", kp, hf_float32=True),
               alibi.alibi_bias(alibi.bloom_slopes(n), 1, 37, "key", kp), theirs)

    xq = torch.randn(2, 5, 3, 16, dtype=f64) * 4
    for style, norm in (("qwen3", mq.Qwen3RMSNorm(16, eps=1e-6)), ("gemma3", mg.Gemma3RMSNorm(16, eps=1e-6))):
        norm = norm.to(f64)
        norm.weight.data = torch.randn(16, dtype=f64)
        with torch.no_grad():
            report(f"QK-norm {style}", qk_norm.rms_norm(xq, norm.weight, 1e-6, style, hf_float32=True),
                   qk_norm.rms_norm(xq, norm.weight, 1e-6, style), norm(xq))

    q, k, v = (torch.randn(2, h, 5, 4, dtype=f64) for h in (6, 2, 2))  # (B, heads, N, d)
    causal = torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)
    additive = torch.zeros(5, 5, dtype=f64).masked_fill(causal, torch.finfo(f64).min)[None, None]
    with torch.no_grad():
        stub = Stub(3, torch.randn(6, dtype=f64)).eval()
        out_hf, w_hf = mo.eager_attention_forward(stub, q, k, v, additive, scaling=0.5)
        scores = gqa.grouped_dot_scores(q.transpose(1, 2), k.transpose(1, 2), 0.5).masked_fill(causal, -math.inf)
        w, _ = sinks.softmax_with_sink(scores, stub.sinks)
        out = gqa.grouped_weighted_sum(w, v.transpose(1, 2))
    print(f"{'gpt-oss sinks (GQA 6/2, causal)':<34} weights max|diff| {(w - w_hf).abs().max().item():.1e}, "
          f"output {(out - out_hf).abs().max().item():.1e}")

    allowed = mu.sliding_window_causal_mask_function(3)(0, 0, torch.arange(7)[:, None], torch.arange(7)[None, :])
    report("sliding window W=3 (visible cells)", ~window.sliding_window_causal_mask(7, 7, 3), None, allowed)

    with torch.no_grad():
        qq = q * 20
        _, w_hf = m2.eager_attention_forward(Stub(3).eval(), qq, k, v, additive, scaling=256 ** -0.5, softcap=5.0)
        scores = gqa.grouped_dot_scores(qq.transpose(1, 2), k.transpose(1, 2), 256 ** -0.5)
        w = torch.softmax(softcap.softcap(scores, 5.0).masked_fill(causal, -math.inf), -1)
    print(f"{'Gemma 2 soft-cap 5 (weights)':<34} max|diff| {(w - w_hf).abs().max().item():.1e}"
          "  (transformers' eager softmax runs in float32 even for a float64 model)")
    print("all hf_float32 results exact" if not failures else f"NOT EXACT: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
