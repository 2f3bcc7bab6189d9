"""GGUF files written here with gguf's own GGUFWriter (tiny random Llamas): names, llama.cpp's q/k row order,
dequantization, the tokenizer from the metadata, and every refusal naming its key.

The reference forward below is written separately, the way llama.cpp computes: q/k rows as the file stores them
(llama.cpp's converter permuted them, formula copied from convert_hf_to_gguf.py) rotated in *adjacent* pairs.
The explorer un-permutes on reading and rotates halves (transformers' layout): both must give the same
attention weights and logits, which checks the permutation's direction and the RoPE pairing together.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

gguf = pytest.importorskip("gguf")
pytest.importorskip("tokenizers")

from attention.models import gguf_model, gguf_source  # noqa: E402
from attention.models.checkpoint import CheckpointError  # noqa: E402
from attention.models.errors import ModelError  # noqa: E402

D, H, HKV, HD, F, LAYERS, BASE, EPS, CTX = 32, 4, 2, 8, 64, 2, 500.0, 1e-5, 64  # widths: multiples of 32 (Q8_0 blocks)
SPECIALS = ["<|im_start|>"]


def byte_alphabet() -> list[str]:
    """GPT-2's printable spelling of the 256 bytes (written out here from the GPT-2 paper's code)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    out, n = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + n)
            n += 1
    return [out[b] for b in range(256)]


TOKENS = byte_alphabet() + ["Ġt", "he", "12"] + SPECIALS
MERGES = ["Ġ t", "h e", "1 2"]
VOCAB = len(TOKENS)


def permute(w: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's convert_hf_to_gguf.py LlamaModel.permute: Hugging Face rows -> the file's rows."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def random_model(seed: int = 0) -> dict[str, np.ndarray]:
    """Hugging Face-layout float32 weights of a tiny Llama with untied output."""
    g = np.random.default_rng(seed)

    def r(*shape, s=0.4):
        return (g.standard_normal(shape) * s).astype(np.float32)

    w = {"token_embd.weight": r(VOCAB, D, s=1.0), "output_norm.weight": 1 + r(D, s=0.1), "output.weight": r(VOCAB, D)}
    for k in range(LAYERS):
        w |= {f"blk.{k}.attn_norm.weight": 1 + r(D, s=0.1), f"blk.{k}.attn_q.weight": r(H * HD, D, s=0.8),
              f"blk.{k}.attn_k.weight": r(HKV * HD, D, s=0.8), f"blk.{k}.attn_v.weight": r(HKV * HD, D),
              f"blk.{k}.attn_output.weight": r(D, H * HD), f"blk.{k}.ffn_norm.weight": 1 + r(D, s=0.1),
              f"blk.{k}.ffn_gate.weight": r(F, D), f"blk.{k}.ffn_up.weight": r(F, D),
              f"blk.{k}.ffn_down.weight": r(D, F)}
    return w


def write(path, hf: dict[str, np.ndarray], arch: str = "llama", meta=None, extra=None, quant=None, pre="smollm"):
    """A GGUF file of `hf` (q/k permuted as llama.cpp's converter does); `meta` overrides/extends the keys
    (value None: left out), `extra` adds tensors, `quant` stores the 2-D layer weights in that type."""
    w = gguf.GGUFWriter(str(path), arch)
    keys = {"block_count": LAYERS, "context_length": CTX, "embedding_length": D, "feed_forward_length": F,
            "attention.head_count": H, "attention.head_count_kv": HKV, "rope.freq_base": BASE,
            "attention.layer_norm_rms_epsilon": EPS, "rope.dimension_count": HD}
    keys |= meta or {}
    for key, value in keys.items():
        if value is None:
            continue
        name = f"{arch}.{key}"
        if isinstance(value, str):
            w.add_string(name, value)
        elif isinstance(value, float):
            w.add_float32(name, value)
        elif value >= 2 ** 32:  # as a hostile writer may (tests/hostile/issue31_cases.py)
            w.add_uint64(name, value)
        else:
            w.add_uint32(name, value)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(TOKENS)
    w.add_token_merges(MERGES)
    w.add_token_types([1] * (VOCAB - len(SPECIALS)) + [3] * len(SPECIALS))
    for name, a in {**hf, **(extra or {})}.items():
        if ".attn_q." in name:
            a = permute(a, H)
        elif ".attn_k." in name:
            a = permute(a, HKV)
        if quant is not None and name.startswith("blk.") and a.ndim == 2:
            w.add_tensor(name, gguf.quants.quantize(a, quant), raw_dtype=quant)
        else:
            w.add_tensor(name, a)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


# ---- the reference: llama.cpp's way (file rows, adjacent pairs), float64 ----------------------------

def reference(file_weights: dict[str, np.ndarray], ids: list[int]) -> tuple[list[np.ndarray], np.ndarray]:
    """Attention weights per layer (H, L, L) and logits (L, vocab) from the rows as stored in the file."""
    t = {k: torch.from_numpy(v).double() for k, v in file_weights.items()}

    def norm(x, g):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * g

    def rope_adjacent(x, n):  # x (L, n*HD): pairs (2i, 2i+1) of each head turn by pos * BASE^(-2i/HD)
        L = x.shape[0]
        x = x.view(L, n, HD // 2, 2)
        ang = torch.arange(L, dtype=torch.float64)[:, None] * BASE ** (-torch.arange(0, HD, 2).double() / HD)
        c, s = ang.cos()[:, None, :], ang.sin()[:, None, :]
        a, b = x[..., 0], x[..., 1]
        return torch.stack([a * c - b * s, a * s + b * c], -1).view(L, n * HD)

    x = t["token_embd.weight"][ids]
    L = len(ids)
    attns = []
    for k in range(LAYERS):
        p = f"blk.{k}."
        h = norm(x, t[p + "attn_norm.weight"])
        q = rope_adjacent(h @ t[p + "attn_q.weight"].T, H).view(L, H, HD)
        kk = rope_adjacent(h @ t[p + "attn_k.weight"].T, HKV).view(L, HKV, HD)
        v = (h @ t[p + "attn_v.weight"].T).view(L, HKV, HD)
        ctx = torch.zeros(L, H, HD, dtype=torch.float64)
        a = torch.zeros(H, L, L, dtype=torch.float64)
        for head in range(H):
            g = head // (H // HKV)
            s = q[:, head] @ kk[:, g].T / math.sqrt(HD)
            s = s + torch.triu(torch.full((L, L), -math.inf, dtype=torch.float64), 1)
            a[head] = torch.softmax(s, -1)
            ctx[:, head] = a[head] @ v[:, g]
        attns.append(a.numpy())
        x = x + ctx.reshape(L, H * HD) @ t[p + "attn_output.weight"].T
        m = norm(x, t[p + "ffn_norm.weight"])
        gate = m @ t[p + "ffn_gate.weight"].T
        x = x + (gate / (1 + torch.exp(-gate)) * (m @ t[p + "ffn_up.weight"].T)) @ t[p + "ffn_down.weight"].T
    logits = norm(x, t["output_norm.weight"]) @ t["output.weight"].T
    return attns, logits.numpy()


def file_rows(hf: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: permute(v, H) if ".attn_q." in k else permute(v, HKV) if ".attn_k." in k else v
            for k, v in hf.items()}


# ---- tests -------------------------------------------------------------------------------------------

def test_names_shapes_and_unpermuted_rows(tmp_path):
    hf = random_model()
    source = gguf_source.GGUFSource(write(tmp_path / "tiny.gguf", hf))
    assert source.config["num_attention_heads"] == H and source.config["num_key_value_heads"] == HKV
    assert source.config["rope_theta"] == BASE and source.config["tie_word_embeddings"] is False
    assert source.shape("model.layers.1.self_attn.k_proj.weight") == (HKV * HD, D)
    assert source.shape("model.layers.0.mlp.down_proj.weight") == (D, F)
    # the rows the explorer reads are the Hugging Face ones (llama.cpp's permutation undone)
    np.testing.assert_array_equal(source.read("model.layers.1.self_attn.q_proj.weight"), hf["blk.1.attn_q.weight"])
    np.testing.assert_array_equal(source.read("model.layers.0.self_attn.k_proj.weight"), hf["blk.0.attn_k.weight"])
    np.testing.assert_array_equal(source.read("lm_head.weight"), hf["output.weight"])
    assert source.storage == "F32" and source.bits is None


def test_forward_matches_llama_cpp_layout_reference(tmp_path):
    hf = random_model(1)
    model = gguf_model.load(write(tmp_path / "tiny.gguf", hf))
    ids = [5, 200, 17, 256, 90, 3, 44]
    attns, logits = reference(file_rows(hf), ids)
    f = model.forward(ids, dtype=torch.float64)
    for k in range(LAYERS):
        np.testing.assert_allclose(f.weights[k][0].numpy(), attns[k], atol=1e-12)
    np.testing.assert_allclose(f.logits[0].numpy(), logits, atol=1e-10)
    assert len(f.resid) == LAYERS + 1 and f.normed[0].shape == (1, len(ids), D)
    # glassllm's names for the sizes, so the window can hold either decoder
    c = model.config
    assert (c.n_layers, c.n_heads, c.n_kv_heads, c.d_model, c.head_dim, c.max_len) == (LAYERS, H, HKV, D, HD, CTX)
    f32 = model.forward(ids)  # the fast path: float32 throughout
    np.testing.assert_allclose(f32.logits[0].double().numpy(), logits, atol=1e-4)


def test_family_layer_of_a_gguf_layer(tmp_path):
    """families.read_attention reads a GGUF layer as it reads a Hugging Face folder."""
    hf = random_model(2)
    model = gguf_model.load(write(tmp_path / "tiny.gguf", hf))
    layer = model.attention_layer(1)
    assert (layer.n_heads, layer.n_kv_heads, layer.head_dim, layer.groups) == (H, HKV, HD, H // HKV)
    assert layer.rope.pairing == "halves" and layer.rope.base == BASE and layer.rope.rotary_dims == HD
    assert layer.window is None and layer.causal and layer.scale == HD ** -0.5
    np.testing.assert_array_equal(layer.q_weight, hf["blk.1.attn_q.weight"])
    np.testing.assert_array_equal(layer.o_weight, hf["blk.1.attn_output.weight"])


def test_quantized_file_is_labelled_and_dequantized_by_gguf(tmp_path):
    hf = random_model(3)
    q8 = gguf.GGMLQuantizationType.Q8_0
    model = gguf_model.load(write(tmp_path / "q8.gguf", hf, quant=q8))
    assert model.spec.storage == "Q8_0" and model.spec.bits == 8
    assert model.spec.weights_label("en") == "Q8_0 weights, dequantized from 8-bit"
    assert "8" in model.spec.weights_label("zh") and "反量化" in model.spec.weights_label("zh")
    # Q8_0 by hand: blocks of 32 values, one scale d = max|x| / 127 each, x ≈ d * round(x / d)
    w = hf["blk.0.ffn_up.weight"].astype(np.float64).reshape(-1, 32)
    d = np.abs(w).max(1, keepdims=True) / 127
    by_hand = (d * np.round(w / d)).reshape(F, D)
    got = model.tensors["model.layers.0.mlp.up_proj.weight"].double().numpy()
    np.testing.assert_allclose(got, by_hand, atol=2e-3 * np.abs(w).max())
    assert np.abs(got - hf["blk.0.ffn_up.weight"]).max() > 0  # it really was quantized


def test_tokenizer_from_metadata(tmp_path):
    model = gguf_model.load(write(tmp_path / "tiny.gguf", random_model()))
    tok = model.tokenizer
    ids = model.encode(" the 12")
    # smollm's pre-split isolates every digit, so the merge "1 2" never applies; "Ġt" and "he" do
    assert [TOKENS[i] for i in ids] == ["Ġt", "he", "Ġ", "1", "2"]
    assert model.token_labels(ids) == ["▁t", "he", "▁", "1", "2"]
    assert model.encode("<|im_start|>the") == [VOCAB - 1, TOKENS.index("t"), TOKENS.index("he")]
    assert tok.decode(ids) == " the 12"
    plain = gguf_model.load(write(tmp_path / "gpt2.gguf", random_model(), pre="gpt-2"))
    assert [TOKENS[i] for i in plain.encode(" 12")] == ["Ġ", "12"]  # GPT-2's split keeps " 12" whole


@pytest.mark.parametrize("meta, key", [
    ({"attention.head_count": None}, "llama.attention.head_count"),
    ({"attention.head_count_kv": 3}, "llama.attention.head_count_kv"),
    ({"rope.dimension_count": 2}, "llama.rope.dimension_count"),
    ({"rope.scaling.type": "yarn"}, "llama.rope.scaling.type"),
    ({"attention.layer_norm_rms_epsilon": -1.0}, "llama.attention.layer_norm_rms_epsilon"),
    ({"expert_count": 8}, "llama.expert_count"),
])
def test_metadata_refusals_name_the_key(tmp_path, meta, key):
    path = write(tmp_path / "bad.gguf", random_model(), meta=meta)
    with pytest.raises(CheckpointError) as e:
        gguf_source.GGUFSource(path)
    assert key in str(e.value) and "bad.gguf" in str(e.value)
    assert key in e.value.line("zh")


def test_other_refusals(tmp_path):
    hf = random_model()
    with pytest.raises(CheckpointError, match="general.architecture is 'gpt2'"):
        gguf_source.GGUFSource(write(tmp_path / "a.gguf", hf, arch="gpt2"))
    bias = {"blk.0.attn_q.bias": np.zeros(H * HD, np.float32)}
    with pytest.raises(CheckpointError, match=r"blk\.0\.attn_q\.bias is a bias"):
        gguf_source.GGUFSource(write(tmp_path / "b.gguf", hf, extra=bias))
    freqs = {"rope_freqs.weight": np.ones(HD // 2, np.float32)}
    with pytest.raises(CheckpointError, match="rope_freqs.weight holds per-frequency RoPE factors") as e:
        gguf_source.GGUFSource(write(tmp_path / "c.gguf", hf, extra=freqs))
    assert "按频率" in e.value.line("zh")
    odd = {"blk.0.attn_sinks.weight": np.ones(H, np.float32)}
    with pytest.raises(CheckpointError, match="attn_sinks.weight is not part of a plain llama decoder"):
        gguf_source.GGUFSource(write(tmp_path / "s.gguf", hf, extra=odd))
    with pytest.raises(CheckpointError, match="tokenizer.ggml.pre is 'llama-bpe'"):
        gguf_model.load(write(tmp_path / "d.gguf", hf, pre="llama-bpe"))
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"PK\x03\x04 not a gguf")
    with pytest.raises(CheckpointError, match="junk.gguf: not a readable GGUF file"):
        gguf_source.GGUFSource(junk)
    with pytest.raises(CheckpointError, match="no such file"):
        gguf_model.load(tmp_path / "absent.gguf")
    whole = write(tmp_path / "whole.gguf", hf).read_bytes()
    for cut in (10, 2000, len(whole) // 2):
        (tmp_path / "cut.gguf").write_bytes(whole[:cut])
        with pytest.raises(CheckpointError, match="cut.gguf: not a readable GGUF file .*cut short or damaged"):
            gguf_model.load(tmp_path / "cut.gguf")
    wrong = dict(hf, **{"blk.1.ffn_down.weight": np.zeros((D, F - 32), np.float32)})
    with pytest.raises(CheckpointError, match=rf"model\.layers\.1\.mlp\.down_proj\.weight has shape \({D}, {F - 32}\)"):
        gguf_model.load(write(tmp_path / "w.gguf", wrong))
    missing = {k: v for k, v in hf.items() if k != "blk.1.ffn_up.weight"}
    with pytest.raises(CheckpointError, match=r"model\.layers\.1\.mlp\.up_proj\.weight"):
        gguf_model.load(write(tmp_path / "e.gguf", missing))


def test_prompt_refusals(tmp_path):
    model = gguf_model.load(write(tmp_path / "tiny.gguf", random_model()))
    with pytest.raises(ModelError, match="at least one token"):
        model.forward([])
    with pytest.raises(ModelError, match=f"{CTX + 1} tokens; this model reads at most {CTX}"):
        model.forward([1] * (CTX + 1))
    with pytest.raises(ModelError, match=f"token id {VOCAB}"):
        model.forward([1, VOCAB])


def test_open_source_lists_a_gguf_like_a_folder(tmp_path):
    """`main.py layers x.gguf`: every layer listed as a Llama decoder layer, importable with its kinds (RoPE,
    shared key/value heads); the imported layer 1 replays the GGUF model's own reference attention."""
    import dataclasses

    from attention.compute import engine
    from attention.models.importing import import_layer, list_header, open_layers

    path = write(tmp_path / "tiny.gguf", random_model())
    source, layers = open_layers(path)
    assert isinstance(source, gguf_model.GGUFSource)
    assert [f.name for f in layers] == [f"model.layers.{k}.self_attn" for k in range(LAYERS)]
    assert all(f.family == "hf_llama" and f.supported and f.n_heads == H for f in layers)
    sc = import_layer(source, layers[1])
    assert sc.kv_heads == HKV and [p.kind for p in sc.positions] == ["rope"] and sc.positions[0].values["base"] == BASE
    model = gguf_model.load(path)
    run = model.forward([1, 2, 3, 4, 5], dtype=torch.float64)
    x = run.normed[1].double().numpy()
    trace = engine.run(dataclasses.replace(sc, queries=x, keys=x, values=x, query_tokens=None, key_tokens=None),
                       dtype="float64")
    np.testing.assert_allclose(trace.array("attention_weights"), run.weights[1].double().numpy(), atol=1e-6, rtol=0)
    np.testing.assert_allclose(trace.array("output"), run.attn_out[1].double().numpy(), atol=1e-6, rtol=0)
    assert list_header(source, len(layers), "en") == f"tiny.gguf: {LAYERS} attention layers (GGUF file (llama.cpp), " \
                                                      "F32 weights)"
    q8 = gguf_source.GGUFSource(write(tmp_path / "q8.gguf", random_model(), quant=gguf.GGMLQuantizationType.Q8_0))
    assert list_header(q8, 2, "en") == "q8.gguf: 2 attention layers (GGUF file (llama.cpp), Q8_0 weights " \
                                       "dequantized from 8-bit)"
    assert "Q8_0 权重，由 8 位量化反量化而来" in list_header(q8, 2, "zh")


def test_cached_decoding_equals_full_recomputation(tmp_path):
    """Prefill 4 positions, then 3 single cached steps: every step's logits and score row equal the full pass's."""
    from attention.models.llama import KVCache

    hf = random_model(4)
    model = gguf_model.load(write(tmp_path / "tiny.gguf", hf))
    ids = [7, 99, 256, 31, 5, 200, 42]
    full = model.forward(ids, dtype=torch.float64)
    _, ref_logits = reference(file_rows(hf), ids)
    cache = KVCache()
    first = model.forward(ids[:4], dtype=torch.float64, cache=cache)
    np.testing.assert_allclose(first.logits[0].numpy(), ref_logits[:4], atol=1e-10)
    assert cache.length == 4 and cache.keys[0].shape == (1, 4, HKV, HD)
    for n in range(4, len(ids)):
        step = model.forward([ids[n]], dtype=torch.float64, cache=cache)
        assert cache.length == n + 1
        np.testing.assert_allclose(step.logits[0, 0].numpy(), ref_logits[n], atol=1e-10)
        for k in range(LAYERS):
            assert step.weights[k].shape == (1, H, 1, n + 1)  # the new query's 1 x N score row
            np.testing.assert_allclose(step.weights[k][0, :, 0].numpy(), full.weights[k][0, :, n, : n + 1].numpy(),
                                       atol=1e-12)
    with pytest.raises(ValueError, match="the cache holds torch.float64"):
        model.forward([1], cache=cache, dtype=torch.float32)
    with pytest.raises(ValueError, match="attend hook"):
        model.forward([1], cache=cache, attend=lambda k, h, s: None)


# ---- the same decoder from a Hugging Face folder ---------------------------------------------------------

def hf_folder(tmp_path, hf: dict[str, np.ndarray], **config) -> Path:
    """config.json (transformers 5 style: rope_parameters) + model.safetensors under Hugging Face names (the
    un-permuted rows) + tokenizer.json (the tiny vocabulary, saved by `tokenizers`)."""
    import json

    from safetensors.numpy import save_file

    from attention.models import gguf_tokenizer

    names = {"token_embd.weight": "model.embed_tokens.weight", "output_norm.weight": "model.norm.weight",
             "output.weight": "lm_head.weight"}
    parts = {"attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
             "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
             "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj", "ffn_down": "mlp.down_proj"}
    out = {}
    for name, w in hf.items():
        if name in names:
            out[names[name]] = w
        else:
            _, k, part, _ = name.split(".")
            out[f"model.layers.{k}.{parts[part]}.weight"] = w
    folder = tmp_path / "tiny-llama"
    folder.mkdir()
    save_file(out, str(folder / "model.safetensors"))
    cfg = {"model_type": "llama", "hidden_size": D, "num_attention_heads": H, "num_key_value_heads": HKV,
           "num_hidden_layers": LAYERS, "intermediate_size": F, "vocab_size": VOCAB, "rms_norm_eps": EPS,
           "max_position_embeddings": CTX, "tie_word_embeddings": False, "hidden_act": "silu",
           "rope_parameters": {"rope_theta": BASE, "rope_type": "default"}, **config}
    (folder / "config.json").write_text(json.dumps(cfg))
    meta = {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "smollm", "tokenizer.ggml.tokens": TOKENS,
            "tokenizer.ggml.merges": MERGES, "tokenizer.ggml.token_type": [1] * (VOCAB - 1) + [3]}
    gguf_tokenizer.build(meta, "tiny").backend.save(str(folder / "tokenizer.json"))
    return folder


def test_hugging_face_llama_folder(tmp_path):
    from attention.models.llama import load_folder

    hf = random_model(5)
    model = load_folder(hf_folder(tmp_path, hf))
    ids = model.encode(" the 12")
    assert [TOKENS[i] for i in ids] == ["Ġt", "he", "Ġ", "1", "2"]
    attns, logits = reference(file_rows(hf), ids)
    f = model.forward(ids, dtype=torch.float64)
    np.testing.assert_allclose(f.logits[0].numpy(), logits, atol=1e-10)
    np.testing.assert_allclose(f.weights[1][0].numpy(), attns[1], atol=1e-12)
    assert model.spec.weights_label("en") == "F32 weights" and model.spec.rope_base == BASE


@pytest.mark.parametrize("config, field", [
    ({"rope_parameters": {"rope_theta": BASE, "rope_type": "linear", "factor": 2.0}}, "rope_parameters"),
    ({"attention_bias": True}, "attention_bias"),
    ({"hidden_act": "gelu"}, "hidden_act"),
    ({"model_type": "mistral"}, "model_type"),
    ({"intermediate_size": None}, "intermediate_size"),
])
def test_hugging_face_folder_refusals(tmp_path, config, field):
    from attention.models.llama import load_folder

    with pytest.raises(CheckpointError, match=f"config.json {field} is"):
        load_folder(hf_folder(tmp_path, random_model(), **config))
