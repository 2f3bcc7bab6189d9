"""Every layer of the real all-MiniLM-L6-v2 replayed through attention.compute.engine.

The reference is written here, independently of attention.models.bert: the checkpoint read with
safetensors.torch.load_file into torch's own nn.MultiheadAttention / nn.Linear / nn.LayerNorm
modules (BERT's post-LN block is exactly x = LN(x + MHA(x)); x = LN(x + W2 gelu(W1 x))).
The engine must reproduce each layer's attention weights and its attention output (after
attention.output.dense, before the residual and LayerNorm) within 1e-5 in float32.
A golden file of `transformers`' own outputs.attentions (tests/models/make_golden.py, eager
attention) pins the whole chain to the library the model was trained with.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

import attention
from attention.models import bundled
from attention.models.sentences import layer_scenario, run_sentences

TOL = 1e-5
GOLDEN = Path(__file__).with_name("minilm_golden.npz")
SENTENCES = ("The cat sat on the mat because it was tired.", "Attention is all you need.")


class ReferenceBert(nn.Module):
    """BERT's encoder from torch's own modules, filled from the raw state dict."""

    def __init__(self, sd: dict[str, torch.Tensor], n_layers=6, d=384, heads=12, d_ff=1536, eps=1e-12):
        super().__init__()
        self.word = nn.Embedding.from_pretrained(sd["embeddings.word_embeddings.weight"])
        self.pos = nn.Embedding.from_pretrained(sd["embeddings.position_embeddings.weight"])
        self.typ = nn.Embedding.from_pretrained(sd["embeddings.token_type_embeddings.weight"])
        self.ln0 = self._ln(sd, "embeddings.LayerNorm", d, eps)
        self.blocks = nn.ModuleList()
        for k in range(n_layers):
            p = f"encoder.layer.{k}."
            mha = nn.MultiheadAttention(d, heads, batch_first=True)
            qkv = ("query", "key", "value")
            mha.in_proj_weight.data = torch.cat([sd[p + f"attention.self.{r}.weight"] for r in qkv])
            mha.in_proj_bias.data = torch.cat([sd[p + f"attention.self.{r}.bias"] for r in qkv])
            mha.out_proj.weight.data = sd[p + "attention.output.dense.weight"].clone()
            mha.out_proj.bias.data = sd[p + "attention.output.dense.bias"].clone()
            block = nn.ModuleDict({"mha": mha, "ln1": self._ln(sd, p + "attention.output.LayerNorm", d, eps),
                                   "up": self._lin(sd, p + "intermediate.dense", d, d_ff),
                                   "down": self._lin(sd, p + "output.dense", d_ff, d),
                                   "ln2": self._ln(sd, p + "output.LayerNorm", d, eps)})
            self.blocks.append(block)
        self.eval()

    @staticmethod
    def _ln(sd, name, d, eps):
        ln = nn.LayerNorm(d, eps=eps)
        ln.weight.data, ln.bias.data = sd[name + ".weight"].clone(), sd[name + ".bias"].clone()
        return ln

    @staticmethod
    def _lin(sd, name, i, o):
        lin = nn.Linear(i, o)
        lin.weight.data, lin.bias.data = sd[name + ".weight"].clone(), sd[name + ".bias"].clone()
        return lin

    @torch.no_grad()
    def attend(self, k: int, x: torch.Tensor, pad: torch.Tensor):
        """Layer k's (weights (B,H,L,S), attention output (B,L,D)) on hidden states x (B,L,D)."""
        return self.blocks[k]["mha"](x, x, x, key_padding_mask=pad, need_weights=True, average_attn_weights=False)

    @torch.no_grad()
    def forward(self, ids: torch.Tensor, lens: torch.Tensor):
        """-> (hidden states entering each layer, weights (B,H,L,L) per layer), chained through all layers."""
        B, L = ids.shape
        x = self.ln0(self.word(ids) + self.pos(torch.arange(L))[None] + self.typ(torch.zeros_like(ids)))
        pad = torch.arange(L)[None, :] >= lens[:, None]  # True = ignore
        hidden, layers = [x], []
        for blk in self.blocks:
            a, w = blk["mha"](x, x, x, key_padding_mask=pad, need_weights=True, average_attn_weights=False)
            layers.append(w)
            x = blk["ln1"](x + a)
            x = blk["ln2"](x + blk["down"](nn.functional.gelu(blk["up"](x))))
            hidden.append(x)
        return hidden, layers


@pytest.fixture(scope="module")
def reference(minilm_folder):
    from safetensors.torch import load_file

    return ReferenceBert(load_file(str(minilm_folder / "model.safetensors")))


def test_the_weights_are_the_pinned_all_minilm_l6_v2(minilm_folder):
    assert bundled.sha256(minilm_folder / "model.safetensors") == bundled.WEIGHTS_SHA256


@pytest.mark.parametrize("sentences", [SENTENCES[:1], SENTENCES], ids=["one", "two-padded"])
def test_every_layer_replays_through_the_engine(minilm, reference, sentences):
    model, tk = minilm
    run = run_sentences(model, tk, sentences)
    ids = torch.as_tensor(run.batch.ids)
    lens = torch.as_tensor(run.batch.valid_lens)
    hidden, _ = reference(ids, lens)
    pad = torch.arange(run.batch.L)[None, :] >= lens[:, None]
    for k in range(model.config.n_layers):
        # the hidden states entering layer k: ours against torch's modules chained through k layers
        # (float32 rounding accumulates over the layers: compared on the valid rows, 1e-4)
        for b, n in enumerate(run.batch.valid_lens):
            assert np.abs(run.forward.hidden[k][b, :n] - hidden[k][b, :n].numpy()).max() <= 1e-4, k
        # the layer itself, on the same inputs: engine against nn.MultiheadAttention
        x = torch.as_tensor(run.forward.hidden[k])
        out_ref, w_ref = reference.attend(k, x, pad)
        sc = layer_scenario(model, run, k)
        assert sc.n_heads == 12 and sc.queries.shape[2] == 384 and sc.dtype == "float32"
        trace = attention.run(sc)
        w = trace["attention_weights"].numpy()  # (B, H, L, S)
        out = trace["output"].numpy()  # (B, L, D): after attention.output.dense, before residual + LayerNorm
        assert w.shape == tuple(w_ref.shape)
        assert np.abs(w - w_ref.numpy()).max() <= TOL, f"layer {k} weights"
        assert np.abs(out - out_ref.numpy()).max() <= TOL, f"layer {k} output"
        # the model view's weights (from the same forward pass) agree too
        assert np.abs(run.forward.attentions[k] - w_ref.numpy()).max() <= TOL
    assert k == 5


def test_padding_becomes_valid_lengths(minilm):
    model, tk = minilm
    run = run_sentences(model, tk, SENTENCES)
    sc = layer_scenario(model, run, 0)
    n1, n2 = (len(tk.encode(s).ids) for s in SENTENCES)
    assert sc.L == sc.S == max(n1, n2)
    assert sc.valid_lens.tolist() == [n1, n2]
    trace = attention.run(sc)
    w = trace["attention_weights"].numpy()
    assert np.all(w[1, :, :, n2:] == 0)  # no attention on the padding of the shorter sentence
    assert sc.query_tokens[0] == "[CLS]" and sc.query_tokens[-1] == "[SEP] / [PAD]"
    one = layer_scenario(model, run_sentences(model, tk, SENTENCES[:1]), 0)
    assert one.valid_lens is None and one.query_tokens[1] == "the"


def test_transformers_golden_attentions(minilm):
    """transformers 5.24's own outputs.attentions (eager), committed; no transformers needed here."""
    model, tk = minilm
    g = np.load(GOLDEN)
    sentence = str(g["sentence"])
    run = run_sentences(model, tk, [sentence])
    assert run.batch.ids[0].tolist() == g["ids"].tolist()
    golden = g["attentions"]  # (layers, H, L, L)
    assert golden.shape == (6, 12, len(g["ids"]), len(g["ids"]))
    for k in range(6):
        w = attention.run(layer_scenario(model, run, k))["attention_weights"].numpy()[0]
        assert np.abs(w - golden[k]).max() <= TOL, k
    assert np.abs(run.forward.hidden[6][0] - g["last_hidden"]).max() <= 1e-4
