"""Make tests/models/golden_modern/: transformers' own eager attention of tiny random decoder families.

Made with transformers 5.24.0 (torch 2.13.0+cpu, safetensors 0.8.0).  Run once, by hand, in a venv that
has transformers (it is NOT a dependency of the project, nor of CI):
    python3.11 -m venv /work/venv-hf && /work/venv-hf/bin/pip install torch==2.13.0 transformers safetensors numpy
    /work/venv-hf/bin/python tests/models/make_golden_modern.py

For each family (Llama, Mistral, Qwen2, Qwen3, Gemma 2, Gemma 3, GPT-NeoX, Phi, BLOOM, Falcon in its
multi-query and grouped (new_decoder_architecture) layouts) it builds a tiny random model with
attn_implementation="eager" in float64 and writes one folder:

- config.json + model.safetensors: the Hugging Face layout the importer reads (the whole tiny model,
  1-2 decoder layers, vocab 16, weights stored as float32 so that the float64 model holds exactly the stored
  numbers);
- golden.npz: per captured attention layer i, `layer{i}.hidden` (B, L, E) the attention module's input,
  `layer{i}.mask` (B, 1, L, S) the additive mask transformers handed it (0 = seen, very negative = masked),
  `layer{i}.output` (B, L, E) and `layer{i}.weights` (B, H, L, S) that transformers computed, and
  `layer{i}.output_plain` / `layer{i}.weights_plain` the same from unmodified transformers (see below);
  `position_ids` (B, L) (row 1 starts at 3: RoPE must follow the given positions); BLOOM also
  `layer{i}.residual` (its attention adds the residual inside its own forward: output = dense + residual).

Weights are drawn wide (q, k entries of standard deviation about 2, so raw scores spread over about ±10) and
L = 10 with a window of 4, so that RoPE, soft-caps, ALiBi and windows change the result visibly.

Float64 throughout.  transformers computes some parts in float32 on purpose even in a float64 model
(softmax(dtype=float32), RMSNorm's `x.float()`, RoPE's inv_freq and cos/sin, which are upcasts for fp16/bf16
models).  Those float32 islands put ~1e-7..1e-6 of rounding into a float64 run, so `output`/`weights` are made
with `float64_throughout()`, which turns every float32 request into float64 during the build and the
forward (nothing else changes: the same transformers code runs).  `*_plain` keep the unmodified run, so a
test can also check that the difference is float32 rounding only (this script prints it per family).

Not made: Falcon with alibi=True.  In transformers 5.24 FalconModel folds alibi/sqrt(head_dim) into the mask
it hands every layer, and the eager attention adds alibi again before scaling, so eager counts the bias twice
(the sdpa path counts it once); there is no single truth to pin, and families.py refuses that layout.
"""
from __future__ import annotations

import contextlib
import inspect
import shutil
from pathlib import Path

import numpy as np
import safetensors.torch
import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

OUT = Path(__file__).with_name("golden_modern")
B, L, SEED = 2, 10, 1234
OFFSET = 3  # position ids of batch row 1 start here

#: family -> (model_type, config overrides, how wide q/k weights are drawn).  E = 32 unless said.
COMMON = {"vocab_size": 16, "intermediate_size": 16, "max_position_embeddings": 64, "tie_word_embeddings": False}
FAMILIES: dict[str, tuple[str, dict]] = {
    "llama": ("llama", dict(hidden_size=32, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                            num_hidden_layers=1, rope_parameters={
                                "rope_type": "llama3", "rope_theta": 10000.0, "factor": 8.0, "low_freq_factor": 1.0,
                                "high_freq_factor": 4.0, "original_max_position_embeddings": 16})),
    "mistral": ("mistral", dict(hidden_size=32, num_attention_heads=4, num_key_value_heads=1, head_dim=8,
                                num_hidden_layers=1, sliding_window=4,
                                rope_parameters={"rope_type": "default", "rope_theta": 10000.0})),
    "qwen2": ("qwen2", dict(hidden_size=32, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2,
                            use_sliding_window=True, sliding_window=4, max_window_layers=1,
                            rope_parameters={"rope_type": "default", "rope_theta": 1000.0})),
    "qwen3": ("qwen3", dict(hidden_size=32, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                            num_hidden_layers=1, attention_bias=False,
                            rope_parameters={"rope_type": "default", "rope_theta": 10000.0})),
    "gemma2": ("gemma2", dict(hidden_size=32, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                              num_hidden_layers=2, layer_types=["sliding_attention", "full_attention"],
                              sliding_window=4, query_pre_attn_scalar=12, attn_logit_softcapping=5.0,
                              final_logit_softcapping=None,
                              rope_parameters={"rope_type": "default", "rope_theta": 10000.0})),
    "gemma3": ("gemma3_text", dict(hidden_size=32, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                                   num_hidden_layers=2, layer_types=["sliding_attention", "full_attention"],
                                   sliding_window=4, query_pre_attn_scalar=12,
                                   attn_logit_softcapping=5.0,  # Gemma 3's attention does NOT apply it
                                   rope_parameters={
                                       "sliding_attention": {"rope_type": "default", "rope_theta": 10.0},
                                       "full_attention": {"rope_type": "linear", "factor": 4.0,
                                                          "rope_theta": 1000.0}})),
    "gpt_neox": ("gpt_neox", dict(hidden_size=32, num_attention_heads=4, num_hidden_layers=1, attention_bias=True,
                                  rope_parameters={"rope_type": "default", "rope_theta": 100.0,
                                                   "partial_rotary_factor": 0.5})),
    "phi": ("phi", dict(hidden_size=32, num_attention_heads=4, num_key_value_heads=4, num_hidden_layers=1,
                        rope_parameters={"rope_type": "default", "rope_theta": 100.0, "partial_rotary_factor": 0.5})),
    "bloom": ("bloom", dict(hidden_size=36, n_head=6, n_layer=1)),  # 6 heads: the non-power-of-2 slopes
    "falcon": ("falcon", dict(hidden_size=32, num_attention_heads=4, num_hidden_layers=1, multi_query=True,
                              new_decoder_architecture=False, alibi=False, bias=False, parallel_attn=True,
                              rope_parameters={"rope_type": "default", "rope_theta": 10000.0})),
    "falcon_grouped": ("falcon", dict(hidden_size=32, num_attention_heads=4, num_kv_heads=2, num_hidden_layers=1,
                                      new_decoder_architecture=True, multi_query=True, alibi=False, bias=True,
                                      parallel_attn=True,
                                      rope_parameters={"rope_type": "default", "rope_theta": 10000.0})),
}


README = """\
# Golden attention of modern decoder families

Made by tests/models/make_golden_modern.py with transformers {version}, torch {torch} (format: that script's
docstring); checked by tests/models/test_families_golden.py against a float64 reference fed from
attention/models/families.py.  Semantics pinned here, which the engine's kinds must match:

- RoPE pairs dims in *halves* in every family here (dim i with i + r/2); GPT-J, CodeGen, Cohere, GLM pair
  adjacent dims (2i, 2i+1).  Partial rotary (GPT-NeoX rotary_pct, Phi partial_rotary_factor) rotates the first
  r = int(head_dim * fraction) dims; the frequencies use r, not head_dim: inv_freq_i = base^(-2i/r).
- Rotation uses the given position ids (batch row 1 starts at 3 here), not 0..L-1.
- GQA: query head h reads kv head h // (H / H_kv) (repeat_interleave, not tile).
- Gemma 2/3 scale by query_pre_attn_scalar^-1/2, not head_dim^-1/2.  Gemma 2 soft-caps cap*tanh(s/cap) after
  scaling, before the mask; Gemma 3 ignores attn_logit_softcapping (its attention never passes it on).
- Window W: query l sees key s iff l - W < s <= l (W keys, itself included).  Mistral: every layer
  (sliding_window null = none, absent = 4096); Qwen2/3: layers marked sliding, old configs: index >=
  max_window_layers and use_sliding_window; Gemma 2: even layers; Gemma 3: all but every 6th.
- QK-norm (Qwen3, Gemma 3): RMS over head_dim of each head's q and k, before RoPE; Gemma multiplies by 1 + w.
- Gemma 3: sliding layers rotate with rope_local_base_freq, full layers with rope_theta and rope_scaling.
- BLOOM: ALiBi adds slope_h * key_position to the scaled scores (= slope_h * (k - q) after softmax); its module
  returns dense(out) + residual.  Fused query_key_value rows are per head (H, 3, hd) in GPT-NeoX and BLOOM;
  Falcon multi-query (H + 2, hd); Falcon new_decoder_architecture (H_kv, H/H_kv + 2, hd).
- transformers runs softmax, RMSNorm and RoPE in float32 even in a float64 model: its plain float64 output is
  off by up to ~1e-5 from exact math (`*_plain`); `output`/`weights` are float64 throughout.
- Falcon alibi=True is not here: transformers 5.24's eager path adds the bias twice (sdpa once).
"""


@contextlib.contextmanager
def float64_throughout():
    """Inside: every float32 request (Tensor.float, .to(float32), arange/full/tensor(dtype=float32),
    softmax(dtype=float32)) gives float64 instead.  transformers' code runs unchanged."""
    f32, f64 = torch.float32, torch.float64
    orig = {"float": torch.Tensor.float, "to": torch.Tensor.to, "softmax": torch.nn.functional.softmax,
            "arange": torch.arange, "full": torch.full}

    def swap(args, kwargs):
        args = tuple(f64 if a is f32 else a for a in args)
        if kwargs.get("dtype") is f32:
            kwargs = dict(kwargs, dtype=f64)
        return args, kwargs

    def to(self, *args, **kwargs):
        args, kwargs = swap(args, kwargs)
        return orig["to"](self, *args, **kwargs)

    def softmax(x, *args, **kwargs):
        args, kwargs = swap(args, kwargs)
        return orig["softmax"](x, *args, **kwargs)

    def factory(name):
        def make(*args, **kwargs):
            args, kwargs = swap(args, kwargs)
            return orig[name](*args, **kwargs)
        return make

    torch.Tensor.float = lambda self, *a, **k: orig["to"](self, f64)
    torch.Tensor.to = to
    torch.nn.functional.softmax = softmax
    torch.arange, torch.full = factory("arange"), factory("full")
    try:
        yield
    finally:
        torch.Tensor.float, torch.Tensor.to = orig["float"], orig["to"]
        torch.nn.functional.softmax = orig["softmax"]
        torch.arange, torch.full = orig["arange"], orig["full"]


def build(model_type: str, overrides: dict):
    config = AutoConfig.for_model(model_type, **COMMON, **overrides)
    config._attn_implementation = "eager"
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, attn_implementation="eager")
    return model.to(torch.float64).eval(), config


def draw_weights(model, seed: int) -> dict[str, torch.Tensor]:
    """Wide random weights, rounded to float32 (what the safetensors file stores exactly)."""
    g = torch.Generator().manual_seed(seed)
    state = {}
    for name, p in model.state_dict().items():
        if name.endswith("inv_freq") or not torch.is_floating_point(p):
            state[name] = p
            continue
        if p.ndim == 2:  # (out, in): entries of std 2/sqrt(in) give outputs of std ~2 for inputs of std 1
            w = torch.randn(p.shape, generator=g, dtype=torch.float64) * (2.0 / p.shape[1] ** 0.5)
        elif "norm" in name and name.endswith("weight"):
            zero_based = "gemma" in type(model).__name__.lower()  # Gemma's RMSNorm multiplies by (1 + w)
            w = (0.0 if zero_based else 1.0) + 0.5 * torch.randn(p.shape, generator=g, dtype=torch.float64)
            if any(s in name for s in ("q_norm", "k_norm")):  # QK-norm: |scale| ~ 2, so q.k spreads wide
                w = w + 1.0
        else:  # biases, layer-norm shifts
            w = 0.5 * torch.randn(p.shape, generator=g, dtype=torch.float64)
        state[name] = w.to(torch.float32).to(torch.float64)
    return state


def attention_modules(model) -> list[torch.nn.Module]:
    mods = [m for n, m in model.named_modules()
            if type(m).__name__.endswith("Attention") and any(c in n for c in (".self_attn", ".attention",
                                                                                ".self_attention"))]
    assert mods, type(model).__name__
    return mods


def capture(model, inputs_embeds, position_ids) -> list[dict]:
    """Run the model once; each attention module's bound inputs and (output, weights)."""
    records, handles = [], []
    for module in attention_modules(model):
        rec: dict = {}
        records.append(rec)
        sig = inspect.signature(module.forward)

        def pre(mod, args, kwargs, rec=rec, sig=sig):
            bound = sig.bind_partial(*args, **kwargs).arguments
            for name in ("hidden_states", "attention_mask", "residual"):
                if torch.is_tensor(bound.get(name)):
                    rec[name] = bound[name].detach().clone()

        def post(mod, args, kwargs, out, rec=rec):
            rec["output"], rec["weights"] = out[0].detach().clone(), out[1].detach().clone()

        handles.append(module.register_forward_pre_hook(pre, with_kwargs=True))
        handles.append(module.register_forward_hook(post, with_kwargs=True))
    try:
        with torch.no_grad():
            model(inputs_embeds=inputs_embeds, position_ids=position_ids, output_attentions=True, use_cache=False)
    finally:
        for h in handles:
            h.remove()
    return records


def mask_of(rec: dict) -> np.ndarray:
    """The additive mask (B, 1 or H, L, S) as float64: 0 where seen; a bool mask (True = seen) becomes 0/-inf."""
    m = rec.get("attention_mask")
    if m is None:
        return np.zeros((B, 1, L, L))
    m = m.to(torch.float64) if m.dtype != torch.bool else torch.where(m, 0.0, float("-inf")).to(torch.float64)
    return m.expand(B, m.shape[1], L, L).numpy().copy()


def make(family: str, model_type: str, overrides: dict, index: int) -> dict:
    with float64_throughout():
        model, config = build(model_type, overrides)
    state = draw_weights(model, SEED + index)
    model.load_state_dict(state)
    plain, _ = build(model_type, overrides)
    plain.load_state_dict(state)
    E = config.hidden_size
    g = torch.Generator().manual_seed(SEED + 100 + index)
    embeds = torch.randn(B, L, E, generator=g, dtype=torch.float64).to(torch.float32).to(torch.float64)
    position_ids = torch.stack([torch.arange(L), torch.arange(L) + OFFSET])
    with float64_throughout():
        wide = capture(model, embeds, position_ids)
    narrow = capture(plain, embeds, position_ids)

    folder = OUT / family
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    config.to_json_file(folder / "config.json")
    tensors = {k: v.to(torch.float32).contiguous().clone() for k, v in state.items() if not k.endswith("inv_freq")}
    safetensors.torch.save_file(tensors, folder / "model.safetensors", metadata={"format": "pt"})
    golden = {"position_ids": position_ids.numpy().astype(np.int64),
              "transformers_version": np.array(transformers.__version__)}
    worst = {}
    for i, (rec, rec_plain) in enumerate(zip(wide, narrow, strict=True)):
        weights = rec["weights"].numpy()
        top = weights.max(-1)[..., 1:].mean()  # mean largest weight of a row (row 0 sees one key)
        golden[f"layer{i}.hidden"] = rec["hidden_states"].numpy()
        golden[f"layer{i}.mask"] = mask_of(rec)
        golden[f"layer{i}.output"] = rec["output"].numpy()
        golden[f"layer{i}.weights"] = weights
        golden[f"layer{i}.output_plain"] = rec_plain["output"].numpy()
        golden[f"layer{i}.weights_plain"] = rec_plain["weights"].numpy()
        if "residual" in rec:
            golden[f"layer{i}.residual"] = rec["residual"].numpy()
        worst[i] = (float((rec["output"] - rec_plain["output"]).abs().max()),
                    float((rec["weights"] - rec_plain["weights"]).abs().max()), float(top))
    np.savez_compressed(folder / "golden.npz", **golden)
    size = sum(p.stat().st_size for p in folder.iterdir())
    print(f"{family:15s} {size / 1000:6.1f} KB  layers {len(wide)}  "
          + "  ".join(f"[{i}] plain-vs-f64 out {o:.1e} w {w:.1e}, mean row max {m:.2f}"
                      for i, (o, w, m) in worst.items()))
    return {"family": family, "bytes": size}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    total = sum(make(f, mt, kw, i)["bytes"] for i, (f, (mt, kw)) in enumerate(FAMILIES.items()))
    (OUT / "README.md").write_text(README.format(version=transformers.__version__, torch=torch.__version__),
                                   encoding="utf-8")
    print(f"total {total / 1000:.1f} KB in {OUT}")


if __name__ == "__main__":
    main()
