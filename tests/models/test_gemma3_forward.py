"""Gemma 3 270M (the bundled Q4_K_M GGUF) against transformers' own GGUF loading and an independent float64 block.

tests/models/golden_gemma3.npz and golden_gemma3_tokens.json were made by tests/models/make_golden_gemma3.py with
transformers 5.25.0 (gguf 0.19, torch 2.13 CPU): its own GGUF reader and dequantization, its Gemma tensor
processor (it subtracts the 1 llama.cpp adds to every RMSNorm weight), its Gemma3TextConfig (layer_types, both
RoPE bases, query_pre_attn_scalar), its GemmaTokenizer built from the metadata, Gemma3ForCausalLM (eager), run in
float64 throughout.

Tolerances reached (and why): the dequantized weights and the norms are equal (both are the file's blocks decoded
in float32; the probes, weights times a fixed vector, agree exactly: 0.0).  In float64 the attention weights agree
within 1e-7 (measured 1.8e-8) and the top logits within 1e-6 (measured 2e-8): transformers makes its RoPE
inv_freq buffers and the embedding scale √640 in float32 when it builds the model; with those same two float32
constants our float64 forward agrees to ~1e-13 (test_float64_with_transformers_constants).  The float32 path the
window uses is within 1e-5 of the weights (measured 1.7e-6) and 1e-4 of the logits (measured 9e-6).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("gguf")
pytest.importorskip("tokenizers")

HERE = Path(__file__).parent
GOLDEN = HERE / "golden_gemma3.npz"
TOKENS = HERE / "golden_gemma3_tokens.json"


@pytest.fixture(scope="module")
def golden():
    return dict(np.load(GOLDEN))


@pytest.fixture(scope="module")
def runs(gemma3_model, golden):
    return {p: gemma3_model.forward([int(i) for i in golden[f"{p}_ids"]], dtype=torch.float64) for p in ("zh", "en")}


def test_spec_is_transformers_configuration(gemma3_model, golden):
    s = gemma3_model.spec
    assert (s.n_layers, s.d_model, s.n_heads, s.n_kv_heads, s.head_dim, s.ffn_dim) == (18, 640, 4, 1, 256, 2048)
    assert s.vocab_size == 262144 and s.tied and s.eps == pytest.approx(1e-6)
    assert [int(g) for g in s.is_global] == golden["layer_types"].tolist()
    assert [k + 1 for k in s.global_layers()] == [6, 12, 18]
    assert (s.rope_local_base, s.rope_base) == tuple(golden["rope_theta"].tolist()) == (10000.0, 1e6)
    assert s.window == s.own_window == int(golden["sliding_window"]) == 512
    assert s.query_pre_attn_scalar == int(golden["query_pre_attn_scalar"]) == 256
    assert s.storage == "Q4_K_M" and s.bits == 4
    assert "18 layers, 4 query heads sharing 1 key/value head of 256 dims" in s.summary("en")
    assert "global layers 6, 12, 18" in s.summary("en") and "RoPE base 1,000,000" in s.summary("en")
    assert "全局层为第 6, 12, 18 层" in s.summary("zh")


def test_norms_are_transformers_w_not_the_files_one_plus_w(gemma3_model, golden, gemma3_file):
    """llama.cpp stores 1 + w; transformers' GGUF loader subtracts 1, and so does ours: equal to the last bit."""
    from attention.models.gguf_header import GGUFHeader

    t = gemma3_model.tensors
    for name, key in (("input_layernorm", "input_layernorm"), ("post_attention_layernorm", "post_attention_layernorm"),
                      ("pre_feedforward_layernorm", "pre_feedforward_layernorm"),
                      ("post_feedforward_layernorm", "post_feedforward_layernorm"),
                      ("q_norm", "self_attn.q_norm"), ("k_norm", "self_attn.k_norm")):
        np.testing.assert_array_equal(t[f"model.layers.0.{key}.weight"].double().numpy(), golden[f"norm_{name}"])
    np.testing.assert_array_equal(t["model.norm.weight"].double().numpy(), golden["norm_final"])
    h = GGUFHeader(gemma3_file)
    try:
        stored = h.raw("blk.0.attn_norm.weight").view(np.float32).copy()  # F32 in the file: 1 + w
    finally:
        h.close()
    np.testing.assert_array_equal(stored - np.float32(1), golden["norm_input_layernorm"].astype(np.float32))
    assert not np.array_equal(stored, golden["norm_input_layernorm"])


def test_dequantized_weights_and_embedding_equal_transformers(gemma3_model, golden):
    """q/k rows in transformers' order too (llama.cpp's Gemma converter does not permute them)."""
    for short, name in (("q_proj", "self_attn.q_proj"), ("k_proj", "self_attn.k_proj"), ("v_proj", "self_attn.v_proj"),
                        ("o_proj", "self_attn.o_proj"), ("gate_proj", "mlp.gate_proj"), ("up_proj", "mlp.up_proj"),
                        ("down_proj", "mlp.down_proj")):
        w = gemma3_model.tensors[f"model.layers.0.{name}.weight"].double().numpy()
        probe = np.cos(0.37 * np.arange(w.shape[1], dtype=np.float64))
        np.testing.assert_allclose(w @ probe, golden[f"probe_{short}"], rtol=0, atol=1e-9, err_msg=short)
    rows = gemma3_model.embedding.rows(torch.as_tensor(golden["zh_ids"]), torch.float64).numpy()
    np.testing.assert_allclose(rows @ np.cos(0.37 * np.arange(640.0)), golden["probe_embed"], rtol=0, atol=1e-9)


def _gguf_rows(path: Path, rows: np.ndarray) -> np.ndarray:
    """Rows of token_embd as gguf's own dequantize decodes their Q8_0 blocks (680 bytes a row): (n, 640) float32."""
    import gguf

    from attention.models.gguf_header import GGUFHeader

    h = GGUFHeader(path)
    try:
        raw = h.raw("token_embd.weight").reshape(262144, 680)
        out = np.asarray(gguf.quants.dequantize(raw[rows].copy(), gguf.GGMLQuantizationType.Q8_0), np.float32)
        del raw
    finally:
        h.close()
    return out.reshape(len(rows), 640)


def test_embedding_stays_quantized_and_reads_as_gguf_dequantizes(gemma3_model, gemma3_file):
    """189 MB of Q8_0 blocks instead of 671 MB of float32; rows and logits equal gguf's own dequantization."""

    from attention.models.quantized_rows import Q8Rows

    e = gemma3_model.embedding
    assert isinstance(e, Q8Rows) and e.q.dtype == torch.int8 and e.nbytes < 200e6
    ids = np.array([0, 2, 1000, 236900, 262143])
    ref = _gguf_rows(gemma3_file, ids)
    np.testing.assert_array_equal(e.rows(torch.as_tensor(ids)).numpy(), ref)
    x = torch.randn(2, 640, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    np.testing.assert_allclose(e.logits(x)[:, ids].numpy(), x.numpy() @ ref.T.astype(np.float64),
                               rtol=1e-12, atol=1e-12)


def test_tokenizer_gives_gemma_tokenizer_ids(gemma3_model):
    """Chinese, English, mixed, spaces and newlines, emoji, rare characters (byte fallback), control tokens."""
    g = json.loads(TOKENS.read_text(encoding="utf-8"))
    assert g["tokenizer"] == "GemmaTokenizer"
    tok = gemma3_model.tokenizer
    for case in g["texts"]:
        assert gemma3_model.encode(case["text"]) == case["ids"], case["text"]
        assert list(tok.backend.encode(case["text"], add_special_tokens=False).ids) == case["ids_no_bos"]
    zh = g["texts"][0]
    assert gemma3_model.token_labels(zh["ids"]) == ["<bos>", "注意力", "机制", "让", "模型", "在", "处理", "一个", "词",
                                                    "时"]
    assert tok.decode(zh["ids"]) == zh["text"]  # the BOS encode adds is not part of the text
    en = gemma3_model.token_labels(gemma3_model.encode("The teacher wrote"))
    assert en == ["<bos>", "The", "▁teacher", "▁wrote"]


def test_float64_forward_equals_transformers(runs, golden):
    for p, f in runs.items():
        att = np.stack([w[0].numpy() for w in f.weights])  # (18, 4, L, L)
        np.testing.assert_allclose(att, golden[f"{p}_attn"], rtol=0, atol=1e-7, err_msg=p)
        last = f.logits[0, -1]
        assert torch.topk(last, 10).indices.tolist() == golden[f"{p}_top_ids"].tolist()
        np.testing.assert_allclose(last[golden[f"{p}_top_ids"]].numpy(), golden[f"{p}_top_logits"], atol=1e-6)
        assert f.logits[0].argmax(-1).tolist() == golden[f"{p}_argmax"].tolist()
    for key in golden:
        if key.startswith("zh_resid"):
            k = int(key[len("zh_resid"):])
            np.testing.assert_allclose(runs["zh"].resid[k][0].numpy(), golden[key], rtol=1e-8, atol=1e-4, err_msg=key)


def test_float64_with_transformers_constants(gemma3_model, golden, monkeypatch):
    """With transformers' float32 RoPE frequencies (our √640 is its float32 buffer already), only float64 rounding
    separates the two."""
    from attention.models import llama

    inv = {float(golden["rope_theta"][0]): golden["inv_freq_local"], float(golden["rope_theta"][1]):
           golden["inv_freq_global"]}

    def tables(pos, E, base, dtype):
        ang = pos[:, None] * torch.from_numpy(inv[float(base)])[None]  # (L, E/2)
        return ang.cos().to(dtype)[None, :, None], ang.sin().to(dtype)[None, :, None]

    monkeypatch.setattr(llama, "rope_tables", tables)
    monkeypatch.setattr(gemma3_model, "_tables_cache", None)
    assert float(torch.tensor(math.sqrt(640), dtype=torch.float32)) == float(golden["embed_scale"])  # ours already
    f = gemma3_model.forward([int(i) for i in golden["zh_ids"]], dtype=torch.float64)
    monkeypatch.setattr(gemma3_model, "_tables_cache", None)
    att = np.stack([w[0].numpy() for w in f.weights])
    np.testing.assert_allclose(att, golden["zh_attn"], rtol=0, atol=1e-11)
    np.testing.assert_allclose(f.logits[0, -1].numpy()[golden["zh_top_ids"]], golden["zh_top_logits"], atol=1e-9)


def test_float32_forward_gives_the_next_tokens(gemma3_model, golden):
    for p, first in (("zh", "，"), ("en", "▁board")):
        f = gemma3_model.forward([int(i) for i in golden[f"{p}_ids"]], last_logits=True)
        att = np.stack([w[0].double().numpy() for w in f.weights])
        np.testing.assert_allclose(att, golden[f"{p}_attn"], rtol=0, atol=1e-5)
        top = gemma3_model.next_tokens(f.logits, 10)
        assert [i for i, _, _ in top] == golden[f"{p}_top_ids"].tolist()
        np.testing.assert_allclose([q for _, _, q in top], golden[f"{p}_top_p"], atol=1e-5)
        assert top[0][1] == first
    assert [label for _, label, _ in top[:2]] == ["▁board", "▁blackboard"]


def test_kv_cache_greedy_tokens_equal_transformers_generate(gemma3_model, golden):
    from attention.models.llama import KVCache

    ids = [int(i) for i in golden["zh_ids"]]
    cache = KVCache()
    f = gemma3_model.forward(ids, cache=cache, last_logits=True)
    made = []
    for _ in range(len(golden["zh_generated"])):
        token = int(f.logits[0, -1].argmax())
        made.append(token)
        f = gemma3_model.forward([token], cache=cache)
        assert f.weights[5].shape == (1, 4, 1, len(ids) + len(made))
    assert made == golden["zh_generated"].tolist()
    assert gemma3_model.tokenizer.decode(made) == "，会产生一个词的"


def test_narrowed_window_equals_transformers_with_sliding_window_4(gemma3_model, golden):
    w4 = gemma3_model.with_window(4)
    assert w4.spec.altered and not gemma3_model.spec.altered and w4.tensors is gemma3_model.tensors
    assert w4.title_name("en") == "Gemma 3 270M (altered: local window 4)"
    assert w4.title_name("zh") == "Gemma 3 270M（已修改：局部窗口 4）"
    f = w4.forward([int(i) for i in golden["zh_ids"]], dtype=torch.float64)
    att = np.stack([w[0].numpy() for w in f.weights])
    np.testing.assert_allclose(att, golden["zh_w4_attn"], rtol=0, atol=1e-7)
    assert torch.topk(f.logits[0, -1], 10).indices.tolist() == golden["zh_w4_top_ids"].tolist()
    assert (att[4][:, 9, :6] == 0).all() and (att[5][:, 9, :6] > 0).all()  # local layer 5 cut, global 6 not
    assert w4.with_window(None) is not w4 and not w4.with_window(None).spec.altered


# ---- an independent float64 Gemma 3 block, written here from the model card's description -----------------------

def _rms(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * (1.0 + w)


def _rope(x: np.ndarray, base: float) -> np.ndarray:
    """(L, H, E) rotated in halves at positions 0..L-1."""
    L, _, E = x.shape
    ang = np.arange(L, dtype=np.float64)[:, None] * base ** (-np.arange(0, E, 2, dtype=np.float64) / E)
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    a, b = x[..., :E // 2], x[..., E // 2:]
    return np.concatenate([a * c - b * s, b * c + a * s], axis=-1)


def _block(model, k: int, x: np.ndarray, window: int, zero_head: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Layer k of Gemma 3 on the residual x (L, d): (x after the layer, weights (H, L, L)); `zero_head`: that query
    head's context set to 0 before the output projection (a knocked-out head)."""
    t = {n: v.double().numpy() for n, v in model.tensors.items() if n.startswith(f"model.layers.{k}.")}
    p = f"model.layers.{k}."
    eps, L = 1e-6, x.shape[0]
    h = _rms(x, t[p + "input_layernorm.weight"], eps)
    q = (h @ t[p + "self_attn.q_proj.weight"].T).reshape(L, 4, 256)
    kk = (h @ t[p + "self_attn.k_proj.weight"].T).reshape(L, 1, 256)
    v = (h @ t[p + "self_attn.v_proj.weight"].T).reshape(L, 1, 256)
    q, kk = _rms(q, t[p + "self_attn.q_norm.weight"], eps), _rms(kk, t[p + "self_attn.k_norm.weight"], eps)
    is_global = (k + 1) % 6 == 0
    q, kk = _rope(q, 1e6 if is_global else 1e4), _rope(kk, 1e6 if is_global else 1e4)
    s = np.einsum("lhe,se->hls", q, kk[:, 0]) * 256 ** -0.5
    rows, cols = np.arange(L)[:, None], np.arange(L)[None, :]
    hidden = (cols > rows) | ((cols <= rows - window) & (not is_global))
    s = np.where(hidden, -np.inf, s)
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    ctx = np.einsum("hls,se->lhe", w, v[:, 0])  # (L, H, E)
    if zero_head >= 0:
        ctx[:, zero_head] = 0.0
    a = ctx.reshape(L, 1024) @ t[p + "self_attn.o_proj.weight"].T
    x = x + _rms(a, t[p + "post_attention_layernorm.weight"], eps)
    h2 = _rms(x, t[p + "pre_feedforward_layernorm.weight"], eps)
    g = h2 @ t[p + "mlp.gate_proj.weight"].T
    gelu = 0.5 * g * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (g + 0.044715 * g ** 3)))
    f = (gelu * (h2 @ t[p + "mlp.up_proj.weight"].T)) @ t[p + "mlp.down_proj.weight"].T
    return x + _rms(f, t[p + "post_feedforward_layernorm.weight"], eps), w


@pytest.mark.parametrize("window", [512, 3])
def test_layers_and_logits_equal_an_independent_float64_block(gemma3_model, gemma3_file, golden, window):
    """A local (5) and a global (6) layer, and the last, on the model's own residual stream; then the logits of
    some vocabulary rows from gguf's own dequantization of token_embd (not the model's Q8Rows)."""


    model = gemma3_model.with_window(window)
    ids = [int(i) for i in golden["zh_ids"]]
    f = model.forward(ids, dtype=torch.float64)
    for k in (4, 5, 17):
        x, w = _block(model, k, f.resid[k][0].numpy(), window)
        np.testing.assert_allclose(w, f.weights[k][0].numpy(), rtol=0, atol=1e-12, err_msg=f"layer {k + 1}")
        np.testing.assert_allclose(x, f.resid[k + 1][0].numpy(), rtol=1e-9, atol=1e-6, err_msg=f"layer {k + 1}")
    rows = np.unique(np.concatenate([golden["zh_top_ids"], np.arange(0, 262144, 997)]))
    E = _gguf_rows(gemma3_file, rows).astype(np.float64)
    last = _rms(f.resid[18][0, -1].numpy(), model.tensors["model.norm.weight"].double().numpy(), 1e-6)
    np.testing.assert_allclose(E @ last, f.logits[0, -1].numpy()[rows], rtol=1e-12,
                               atol=1e-9)
    np.testing.assert_allclose(f.resid[0][0].numpy(), model.embedding.rows(torch.as_tensor(ids),
                               torch.float64).numpy() * math.sqrt(640), rtol=1e-7)


def test_a_knocked_out_head_equals_the_block_without_it(gemma3_model, golden):
    """The heads tools (attention.models.head_edits, the engine's concat of the layer) on Gemma 3: layer 6's head 2
    zeroed, float64, against the independent block with that head's context zeroed and the rest of the stack
    run by the model from there."""
    from attention.models.head_edits import HeadEdit, knock

    ids = [int(i) for i in golden["zh_ids"]]
    out = knock(gemma3_model, ids, [HeadEdit(5, 1)], engine=False, dtype=torch.float64)
    clean = out.before
    x, _ = _block(gemma3_model, 5, clean.resid[5][0].numpy(), 512, zero_head=1)
    np.testing.assert_allclose(out.after.resid[6][0].numpy(), x, rtol=1e-9, atol=1e-6)
    rest = gemma3_model.forward(ids, dtype=torch.float64, from_layer=6, resid=torch.from_numpy(x)[None])
    np.testing.assert_allclose(out.after.logits[0, -1].numpy(), rest.logits[0, -1].numpy(), rtol=1e-9, atol=1e-7)
    assert out.top_before[0][1] == "，" and out.logp_after != out.logp_before
