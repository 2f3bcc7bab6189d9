"""attention.models.families against transformers' own eager attention (golden files, ≤ 1e-6 in float64).

tests/models/golden_modern/<family>/ holds a tiny random Hugging Face model (config.json +
model.safetensors) and golden.npz: each attention module's input, the mask transformers used, and its
output and weights (made by make_golden_modern.py with transformers 5.24.0; transformers is not needed
here).  The reference below is written independently of the reader, in plain torch: it is fed only
from the reader's description, so passing proves the reader (heads, fused splits, scale, RoPE, ALiBi,
windows, soft-cap, QK-norm) and pins the semantics the engine's kinds must reproduce.
"""
from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from attention.models.checkpoint import CheckpointError
from attention.models.families import FamilyLayer, bloom_slopes, layer_count, read_attention

GOLDEN = Path(__file__).with_name("golden_modern")
FAMILIES = sorted(p.name for p in GOLDEN.iterdir() if (p / "config.json").is_file())
TOL = 1e-6
pytest.importorskip("safetensors")


# ---- the independent float64 reference -------------------------------------------------------------

def _t(a):
    return None if a is None else torch.as_tensor(np.asarray(a), dtype=torch.float64)


def _rotate(x, pos, rope):
    """x (B, h, L, d) turned by angle pos * inv_freq; halves: dim i pairs with i + r/2, adjacent: 2i with 2i+1."""
    r = rope.rotary_dims
    angle = pos[:, None, :, None].to(torch.float64) * _t(rope.inv_freq)  # (B, 1, L, r/2)
    cos, sin = angle.cos(), angle.sin()
    if rope.pairing == "halves":
        a, b = x[..., : r // 2], x[..., r // 2: r]
    else:
        a, b = x[..., 0:r:2], x[..., 1:r:2]
    a2, b2 = a * cos - b * sin, b * cos + a * sin
    turned = torch.cat([a2, b2], -1) if rope.pairing == "halves" else torch.stack([a2, b2], -1).flatten(-2)
    return torch.cat([turned, x[..., r:]], -1)


def _rms(x, scale, eps):
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) * _t(scale)


def reference(d: FamilyLayer, hidden: np.ndarray, pos: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(output (B, L, E), weights (B, H, L, S), mask (L, S) True = masked) from the description alone."""
    x, pos = _t(hidden), torch.as_tensor(pos)
    B, L, _ = x.shape

    def proj(w, b):
        y = x @ _t(w).T
        return y if b is None else y + _t(b)

    q = proj(d.q_weight, d.q_bias).view(B, L, d.n_heads, d.head_dim).transpose(1, 2)  # (B, H, L, hd)
    k = proj(d.k_weight, d.k_bias).view(B, L, d.n_kv_heads, d.head_dim).transpose(1, 2)  # (B, Hkv, L, hd)
    v = proj(d.v_weight, d.v_bias).view(B, L, d.n_kv_heads, d.head_dim).transpose(1, 2)
    if d.qk_norm is not None:
        q, k = _rms(q, d.qk_norm.q_scale, d.qk_norm.eps), _rms(k, d.qk_norm.k_scale, d.qk_norm.eps)
    if d.rope is not None:
        q, k = _rotate(q, pos, d.rope), _rotate(k, pos, d.rope)
    k = k.repeat_interleave(d.groups, dim=1)  # query head h reads kv head h // groups
    v = v.repeat_interleave(d.groups, dim=1)
    s = q @ k.transpose(-1, -2) * d.scale  # (B, H, L, S)
    li, si = torch.arange(L)[:, None], torch.arange(L)[None, :]
    if d.alibi_slopes is not None:
        s = s + _t(d.alibi_slopes)[:, None, None] * (si - li).to(torch.float64)
    if d.softcap is not None:
        s = d.softcap * torch.tanh(s / d.softcap)
    masked = torch.zeros(L, L, dtype=torch.bool)
    if d.causal:
        masked |= si > li
    if d.window is not None:
        masked |= li - si >= d.window
    weights = torch.softmax(s.masked_fill(masked, float("-inf")), dim=-1)
    concat = (weights @ v).transpose(1, 2).reshape(B, L, d.n_heads * d.head_dim)
    out = concat @ _t(d.o_weight).T + (0 if d.o_bias is None else _t(d.o_bias))
    return out, weights, masked


def _golden(family):
    g = np.load(GOLDEN / family / "golden.npz")
    layers = sorted({int(k.split(".")[0][5:]) for k in g.files if k.startswith("layer")})
    return g, layers


def _hf_output(g, i):
    out = g[f"layer{i}.output"]
    return out - g[f"layer{i}.residual"] if f"layer{i}.residual" in g.files else out


def differences(family: str) -> dict[int, tuple[float, float]]:
    """Per captured layer: max |Δ output|, max |Δ weights| between the reference and transformers."""
    g, layers = _golden(family)
    result = {}
    for i in layers:
        d = read_attention(GOLDEN / family, i)
        out, w, _ = reference(d, g[f"layer{i}.hidden"], g["position_ids"])
        result[i] = (float(np.abs(out.numpy() - _hf_output(g, i)).max()),
                     float(np.abs(w.numpy() - g[f"layer{i}.weights"]).max()))
    return result


# ---- the golden comparisons -------------------------------------------------------------------------

def test_every_family_has_a_golden_folder():
    assert set(FAMILIES) >= {"llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3", "gpt_neox", "phi", "bloom",
                             "falcon", "falcon_grouped"}
    assert sum(f.stat().st_size for f in GOLDEN.rglob("*") if f.is_file()) < 5_000_000


@pytest.mark.parametrize("family", FAMILIES)
def test_reference_from_the_description_reproduces_transformers(family):
    for i, (d_out, d_w) in differences(family).items():
        assert d_out <= TOL and d_w <= TOL, f"{family} layer {i}: output {d_out:.1e}, weights {d_w:.1e}"


@pytest.mark.parametrize("family", FAMILIES)
def test_the_mask_is_the_one_transformers_used(family):
    """causal + window from the description = where transformers' additive mask is very negative."""
    g, layers = _golden(family)
    for i in layers:
        _, _, masked = reference(read_attention(GOLDEN / family, i), g[f"layer{i}.hidden"], g["position_ids"])
        hf = g[f"layer{i}.mask"] < -1e30  # (B, 1 or H, L, S)
        assert (hf == masked.numpy()[None, None]).all(), f"{family} layer {i}"


@pytest.mark.parametrize("family", FAMILIES)
def test_unmodified_transformers_differs_by_float32_rounding_only(family):
    """The golden run keeps float64 where transformers upcasts to float32; its plain run stays within 1e-4."""
    g, layers = _golden(family)
    for i in layers:
        out, w, _ = reference(read_attention(GOLDEN / family, i), g[f"layer{i}.hidden"], g["position_ids"])
        plain = g[f"layer{i}.output_plain"] - (g[f"layer{i}.residual"] if f"layer{i}.residual" in g.files else 0)
        assert np.abs(out.numpy() - plain).max() < 1e-4
        assert np.abs(w.numpy() - g[f"layer{i}.weights_plain"]).max() < 1e-5


def _without(d: FamilyLayer, what: str) -> FamilyLayer:
    if what == "rope_adjacent":
        return dataclasses.replace(d, rope=dataclasses.replace(d.rope, pairing="adjacent"))
    if what == "plus_one":
        n = d.qk_norm
        return dataclasses.replace(d, qk_norm=dataclasses.replace(n, q_scale=n.q_scale - 1, k_scale=n.k_scale - 1))
    if what == "scale":
        return dataclasses.replace(d, scale=d.head_dim ** -0.5)
    return dataclasses.replace(d, **{what: None})


CHANGES = [("llama", 0, "rope"), ("llama", 0, "rope_adjacent"), ("mistral", 0, "window"), ("qwen2", 1, "window"),
           ("qwen3", 0, "qk_norm"), ("gemma2", 0, "softcap"), ("gemma2", 1, "softcap"), ("gemma2", 0, "scale"),
           ("gemma2", 0, "window"), ("gemma3", 0, "plus_one"), ("gemma3", 0, "window"), ("gemma3", 1, "rope"),
           ("gpt_neox", 0, "rope"), ("phi", 0, "rope"), ("bloom", 0, "alibi_slopes"), ("falcon", 0, "rope")]


@pytest.mark.parametrize("family,layer,what", CHANGES)
def test_each_convention_changes_the_result(family, layer, what):
    """The golden files can fail: dropping (or mis-setting) any one convention moves the result well past TOL."""
    g, _ = _golden(family)
    d = read_attention(GOLDEN / family, layer)
    out, w, _ = reference(_without(d, what), g[f"layer{layer}.hidden"], g["position_ids"])
    assert np.abs(w.numpy() - g[f"layer{layer}.weights"]).max() > 1e-2


def test_gemma3_ignores_its_config_softcap_and_rotates_per_layer_type():
    cfg = json.loads((GOLDEN / "gemma3" / "config.json").read_text())
    assert cfg["attn_logit_softcapping"] == 5.0
    local, full = read_attention(GOLDEN / "gemma3", 0), read_attention(GOLDEN / "gemma3", 1)
    assert local.softcap is None and full.softcap is None
    assert (local.layer_type, full.layer_type) == ("sliding_attention", "full_attention")
    assert (local.window, full.window) == (4, None)
    assert local.rope.base == 10.0 and full.rope.rope_type == "linear"
    np.testing.assert_allclose(full.rope.inv_freq, 1.0 / 1000.0 ** (np.arange(0, 8, 2) / 8) / 4.0, rtol=1e-15)
    assert local.scale == full.scale == 12 ** -0.5 and local.qk_norm.plus_one


def test_bloom_slopes_follow_the_formula_for_any_head_count():
    np.testing.assert_array_equal(bloom_slopes(8), 2.0 ** -np.arange(1, 9))
    np.testing.assert_array_equal(bloom_slopes(6), [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8, 2 ** -1, 2 ** -3])
    assert len(bloom_slopes(12)) == 12


def test_fused_layouts_split_by_head():
    """GPT-NeoX/BLOOM rows are (H, 3, hd); Falcon multi-query (H+2, hd); Falcon grouped (H_kv, H/H_kv+2, hd)."""
    from safetensors import safe_open

    def raw(family, key):
        with safe_open(str(GOLDEN / family / "model.safetensors"), "pt") as f:
            return f.get_tensor(key).double().numpy()

    neox = read_attention(GOLDEN / "gpt_neox", 0)
    w = raw("gpt_neox", "gpt_neox.layers.0.attention.query_key_value.weight")
    np.testing.assert_array_equal(neox.k_weight[8:16], w[24 + 8:24 + 16])  # head 1's k: rows 24+8 .. 24+16
    mq = read_attention(GOLDEN / "falcon", 0)
    w = raw("falcon", "transformer.h.0.self_attention.query_key_value.weight")
    assert mq.n_kv_heads == 1 and mq.k_weight.shape == (8, 32)
    np.testing.assert_array_equal(mq.v_weight, w[40:48])
    grouped = read_attention(GOLDEN / "falcon_grouped", 0)
    w = raw("falcon_grouped", "transformer.h.0.self_attention.query_key_value.weight")
    np.testing.assert_array_equal(grouped.q_weight[16:32], w[32:48])  # group 1 starts after (2 + 2) * 8 rows
    np.testing.assert_array_equal(grouped.k_weight[8:16], w[48:56])


# ---- old-style configs, plain state dicts, refusals ---------------------------------------------------

def _copy(tmp_path, family, edit) -> Path:
    folder = tmp_path / family
    shutil.copytree(GOLDEN / family, folder)
    cfg = json.loads((folder / "config.json").read_text())
    edit(cfg)
    (folder / "config.json").write_text(json.dumps(cfg))
    return folder


def _same(a: FamilyLayer, b: FamilyLayer):
    assert (a.window, a.softcap, a.scale, a.layer_type, a.n_kv_heads) == (b.window, b.softcap, b.scale,
                                                                          b.layer_type, b.n_kv_heads)
    assert (a.rope is None) == (b.rope is None)
    if a.rope is not None:
        assert (a.rope.base, a.rope.rotary_dims, a.rope.rope_type) == (b.rope.base, b.rope.rotary_dims,
                                                                       b.rope.rope_type)
        np.testing.assert_array_equal(a.rope.inv_freq, b.rope.inv_freq)


def test_old_style_config_keys_read_the_same(tmp_path):
    def neox(cfg):
        rp = cfg.pop("rope_parameters")
        cfg.update(rotary_pct=rp["partial_rotary_factor"], rotary_emb_base=rp["rope_theta"])

    def gemma3(cfg):
        rp = cfg.pop("rope_parameters")
        del cfg["layer_types"]
        cfg.update(rope_local_base_freq=rp["sliding_attention"]["rope_theta"], sliding_window_pattern=2,
                   rope_theta=rp["full_attention"]["rope_theta"], rope_scaling={"rope_type": "linear", "factor": 4.0})

    def qwen2(cfg):
        del cfg["layer_types"]
        cfg.update(rope_theta=cfg.pop("rope_parameters")["rope_theta"])

    def phi(cfg):
        rp = cfg.pop("rope_parameters")
        cfg.update(partial_rotary_factor=rp["partial_rotary_factor"], rope_theta=rp["rope_theta"])

    def llama(cfg):
        cfg["rope_scaling"] = cfg.pop("rope_parameters")
        cfg["rope_theta"] = cfg["rope_scaling"].pop("rope_theta")

    for family, edit, layers in (("gpt_neox", neox, [0]), ("gemma3", gemma3, [0, 1]), ("qwen2", qwen2, [0, 1]),
                                 ("phi", phi, [0]), ("llama", llama, [0])):
        folder = _copy(tmp_path, family, edit)
        for i in layers:
            _same(read_attention(folder, i), read_attention(GOLDEN / family, i))


def test_a_plain_state_dict_reads_with_a_config(tmp_path):
    from safetensors.torch import load_file

    state = load_file(str(GOLDEN / "qwen3" / "model.safetensors"))
    torch.save({"model": state}, tmp_path / "qwen3.pt")
    cfg = json.loads((GOLDEN / "qwen3" / "config.json").read_text())
    with pytest.raises(CheckpointError, match="no config.json"):
        read_attention(tmp_path / "qwen3.pt")
    d = read_attention(tmp_path / "qwen3.pt", 0, config=cfg)
    np.testing.assert_array_equal(d.q_weight, read_attention(GOLDEN / "qwen3", 0).q_weight)
    assert d.prefix == "model.model.layers.0.self_attn" and layer_count(tmp_path / "qwen3.pt", cfg) == 1


@pytest.mark.parametrize("family,edit,words", [
    ("llama", lambda c: c.update(model_type="mamba"), "model_type is mamba"),
    ("llama", lambda c: c["rope_parameters"].update(rope_type="yarn"), "rope_parameters.rope_type is 'yarn'"),
    ("phi", lambda c: c.update(qk_layernorm=True), "qk_layernorm is True"),
    ("falcon", lambda c: c.update(alibi=True), "alibi is true"),
    ("gemma2", lambda c: c.update(use_bidirectional_attention=True), "use_bidirectional_attention"),
    ("mistral", lambda c: c.update(sliding_window=0), "sliding_window is 0"),
    ("mistral", lambda c: c.update(num_key_value_heads=3), "num_key_value_heads × head_dim is 3 × 8 = 24"),
    ("gemma2", lambda c: c.update(query_pre_attn_scalar="x"), "query_pre_attn_scalar is 'x'"),
])
def test_refusals_name_the_field(tmp_path, family, edit, words):
    folder = _copy(tmp_path, family, edit)
    with pytest.raises(CheckpointError, match=words.replace(".", r"\.")):
        read_attention(folder, 0)


def test_a_missing_layer_names_the_layers_there():
    with pytest.raises(CheckpointError, match="holds layers 0, 1"):
        read_attention(GOLDEN / "gemma2", 5)


def test_a_multimodal_gemma3_reads_its_language_model_with_transformers_defaults(tmp_path):
    """Gemma 3 4B+ nests the text settings in text_config and keeps a vision tower (also `self_attn`) beside."""
    from safetensors.torch import load_file, save_file

    state = load_file(str(GOLDEN / "gemma3" / "model.safetensors"))
    renamed = {"language_model." + k: v for k, v in state.items()}
    for i in range(3):  # a deeper vision encoder whose layers must not be taken for the text's
        for r in ("q_proj", "k_proj", "v_proj", "out_proj"):
            renamed[f"vision_tower.vision_model.encoder.layers.{i}.self_attn.{r}.weight"] = torch.zeros(4, 4)
    folder = tmp_path / "gemma3_mm"
    folder.mkdir()
    save_file(renamed, str(folder / "model.safetensors"))
    text = json.loads((GOLDEN / "gemma3" / "config.json").read_text())
    del text["query_pre_attn_scalar"]  # left out: transformers' default 256 applies
    (folder / "config.json").write_text(json.dumps({"model_type": "gemma3", "text_config": text}))
    assert layer_count(folder, {"model_type": "gemma3_text"}) == 2
    d = read_attention(folder, 1)
    assert d.prefix == "language_model.model.layers.1.self_attn" and d.family == "gemma3"
    assert d.scale == 256 ** -0.5 and d.window is None and d.rope.rope_type == "linear"
    np.testing.assert_array_equal(d.k_weight, read_attention(GOLDEN / "gemma3", 1).k_weight)
    with pytest.raises(CheckpointError, match="no gemma3 attention layer 2"):
        read_attention(folder, 2)


def test_mistral_window_null_means_none_and_absent_means_the_default(tmp_path):
    assert read_attention(_copy(tmp_path / "a", "mistral", lambda c: c.update(sliding_window=None)), 0).window is None
    assert read_attention(_copy(tmp_path / "b", "mistral", lambda c: c.pop("sliding_window")), 0).window == 4096


def test_falcon_remote_code_configs_read_the_same(tmp_path):
    """Falcon-7B/40B's first config.json files (model_type RefinedWebModel / RefinedWeb, n_head, n_head_kv)."""
    def old_7b(cfg):
        cfg.update(model_type="RefinedWebModel", n_head=cfg.pop("num_attention_heads"))
        del cfg["new_decoder_architecture"], cfg["num_kv_heads"]

    def old_40b(cfg):
        cfg.update(model_type="RefinedWeb", n_head=cfg.pop("num_attention_heads"), n_head_kv=cfg.pop("num_kv_heads"))
        del cfg["new_decoder_architecture"]

    for family, edit in (("falcon", old_7b), ("falcon_grouped", old_40b)):
        got, want = read_attention(_copy(tmp_path, family, edit), 0), read_attention(GOLDEN / family, 0)
        _same(got, want)
        np.testing.assert_array_equal(got.k_weight, want.k_weight)
