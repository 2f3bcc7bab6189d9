"""The seed's Time-Series-Library toy by hand, and d2l's masked_softmax / AdditiveAttention.

Expected numbers: numpy by hand (Gram matrices, exp/sum), the published table in
/work/shared/research/reference-semantics.md (computed independently of this engine), and a
small reimplementation of d2l's layers as torch nn.Modules."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from torch import nn

from attention import Additive, Projection, Scenario, run

# The seed note's toy (000): B=1, L=S=4, d_model=4, H=2, keys = queries, identity weights.
TOY_X = np.array([[[1, 0, 2, 1], [0, 1, 1, 2], [1, 1, 0, 1], [2, 0, 1, 0]]], dtype=float)
TOY_V = np.array([[[10, 11, 20, 21], [12, 13, 22, 23], [14, 15, 24, 25], [16, 17, 26, 27]]], dtype=float)

# reference-semantics.md: the output table and the causal variant.
TABLE_OUT = np.array([
    [13.794322, 14.794322, 21.161330, 22.161330],
    [13.000000, 14.000000, 21.695004, 22.695004],
    [13.679046, 14.679046, 22.436230, 23.436230],
    [14.588428, 15.588428, 22.205678, 23.205678],
])
TABLE_CAUSAL = np.array([
    [10, 11, 20, 21],
    [11.339523, 12.339523, 21.339523, 22.339523],
    [12.510470, 13.510470, 22, 23],
    [14.588428, 15.588428, 22.205678, 23.205678],
])
TABLE_GRAM = [
    np.array([[1, 0, 1, 2], [0, 1, 1, 0], [1, 1, 2, 2], [2, 0, 2, 4]], dtype=float),
    np.array([[5, 4, 1, 2], [4, 5, 2, 1], [1, 2, 1, 0], [2, 1, 0, 1]], dtype=float),
]


def _toy(identity_weights: bool, **options) -> Scenario:
    eye = Projection(np.eye(4), np.zeros(4))
    projections = {n: eye for n in ("query", "key", "value", "out")} if identity_weights else {}
    return Scenario(TOY_X, TOY_X.copy(), TOY_V, n_heads=2, projections=projections, **options)


def _toy_by_hand(causal: bool) -> tuple[list[np.ndarray], np.ndarray]:
    """Per head: Gram matrix / sqrt(2), exp / row sum; then weights @ V per head, side by side."""
    heads = [TOY_X[0][:, 0:2], TOY_X[0][:, 2:4]]
    weights, outs = [], []
    for h, x in enumerate(heads):
        gram = x @ x.T
        np.testing.assert_array_equal(gram, TABLE_GRAM[h])  # the table's Gram matrices
        e = np.exp(gram / np.sqrt(2))
        if causal:
            e = np.tril(e)  # exp(-1e6) is exactly 0
        w = e / e.sum(axis=1, keepdims=True)
        weights.append(w)
        outs.append(w @ TOY_V[0][:, 2 * h:2 * h + 2])
    return weights, np.concatenate(outs, axis=1)


@pytest.mark.parametrize("identity_weights", [True, False])
def test_seed_toy_projection_and_head_split(identity_weights):
    tr = run(_toy(identity_weights))
    q1 = tr.array("projection.query")[0, 0]
    np.testing.assert_array_equal(q1, [1, 0, 2, 1])  # q1 = q1_in * Wq with Wq = I
    np.testing.assert_array_equal(tr.array("head_split.query")[0, 0, 0], [1, 0])  # head1_q1
    np.testing.assert_array_equal(tr.array("head_split.query")[0, 0, 1], [2, 1])  # head2_q1
    assert tr.options["d_keys"] == tr.options["d_values"] == 2


@pytest.mark.parametrize("identity_weights", [True, False])
def test_seed_toy_weights_and_output(identity_weights):
    tr = run(_toy(identity_weights))
    weights, out = _toy_by_hand(causal=False)
    np.testing.assert_allclose(tr.array("scores")[0, 0], TABLE_GRAM[0] / np.sqrt(2), rtol=1e-14)
    for h in range(2):
        np.testing.assert_allclose(tr.array("attention_weights")[0, h], weights[h], rtol=1e-12)
    np.testing.assert_allclose(tr.array("output")[0], out, rtol=1e-12)
    np.testing.assert_allclose(tr.array("concat")[0], out, rtol=1e-12)
    np.testing.assert_allclose(tr.array("output")[0], TABLE_OUT, atol=1e-6)
    np.testing.assert_allclose(tr.array("output")[0, 1, :2], [13, 14], rtol=1e-14)  # symmetric weights


def test_seed_toy_causal():
    tr = run(_toy(True, causal=True))
    weights, out = _toy_by_hand(causal=True)
    for h in range(2):
        np.testing.assert_allclose(tr.array("attention_weights")[0, h], weights[h], rtol=1e-12, atol=0)
    np.testing.assert_allclose(tr.array("output")[0], out, rtol=1e-12)
    np.testing.assert_allclose(tr.array("output")[0], TABLE_CAUSAL, atol=1e-6)
    np.testing.assert_array_equal(tr.array("output")[0, 0], TOY_V[0, 0])  # row 1 sees key 1 only


# ---- d2l masked_softmax, through the dot kind with scale 1 -------------------------------------

def d2l_masked_softmax(X: torch.Tensor, valid_lens, fill: float = -1e6) -> torch.Tensor:
    """d2l's masked_softmax (3-D X, 1-D or 2-D valid lengths), rewritten from its description."""
    if valid_lens is None:
        return torch.softmax(X, dim=-1)
    shape = X.shape
    valid_lens = torch.as_tensor(valid_lens)
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = X.reshape(-1, shape[-1]).clone()
    keep = torch.arange(shape[-1], dtype=torch.float32)[None, :] < valid_lens[:, None]
    X[~keep] = fill
    return torch.softmax(X.reshape(shape), dim=-1)


def _dot_scenario(rng, B=2, L=2, S=4, d=3, **options) -> Scenario:
    return Scenario(rng.normal(size=(B, L, d)), rng.normal(size=(B, S, d)), rng.normal(size=(B, S, d)),
                    scoring="dot", scale=1.0, **options)


@pytest.mark.parametrize("lens", [np.array([2.0, 3.0]), np.array([[1.0, 3.0], [2.0, 4.0]])])
def test_d2l_masked_softmax_patterns(lens):
    sc = _dot_scenario(np.random.default_rng(3), valid_lens=lens)
    tr = run(sc)
    X = torch.as_tensor(sc.queries) @ torch.as_tensor(sc.keys).transpose(1, 2)  # dot, scale 1
    want = d2l_masked_softmax(X, lens).numpy()
    got = tr.array("attention_weights")[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    row_lens = lens if lens.ndim == 2 else np.repeat(lens[:, None], 2, axis=1)
    np.testing.assert_array_equal((got > 0).sum(-1), row_lens)  # 2 then 3 (or 1,3 / 2,4) non-zeros
    if lens.ndim == 2:
        assert got[0, 0].tolist() == [1.0, 0.0, 0.0, 0.0]  # exactly one-hot (d2l prints [1, 0, 0, 0])
    assert not tr.warnings and not tr.array("extra.fully_masked").any()


def test_valid_len_zero_finite_fill_is_uniform_and_flagged():
    sc = _dot_scenario(np.random.default_rng(4), valid_lens=np.array([0.0, 3.0]))
    tr = run(sc)
    w = tr.array("attention_weights")
    np.testing.assert_allclose(w[0, 0], np.full((2, 4), 1 / 4), rtol=1e-15)  # uniform over ALL keys
    want = d2l_masked_softmax(torch.as_tensor(sc.queries) @ torch.as_tensor(sc.keys).transpose(1, 2), [0, 3])
    np.testing.assert_allclose(w[:, 0], want.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(tr.array("extra.fully_masked"), [[True, True], [False, False]])
    assert len(tr.warnings) == 1
    assert "uniform" in tr.warnings[0].text("en") and "batch 1, query 2" in tr.warnings[0].text("en")  # from 1


def test_valid_len_zero_minus_inf_is_nan_and_flagged():
    sc = _dot_scenario(np.random.default_rng(5), valid_lens=np.array([[0.0, 2.0], [4.0, 0.0]]), fill_value=-np.inf)
    tr = run(sc)
    w = tr.array("attention_weights")[:, 0]
    assert np.isnan(w[0, 0]).all() and np.isnan(w[1, 1]).all()
    assert np.isnan(tr.array("weighted_sum")[0, 0]).all()
    np.testing.assert_allclose(w[0, 1].sum(), 1.0)
    np.testing.assert_array_equal(tr.array("extra.fully_masked"), [[True, False], [False, True]])
    assert len(tr.warnings) == 1 and "NaN" in tr.warnings[0].text("en")


# ---- d2l AdditiveAttention -------------------------------------------------------------------

class D2LAdditive(nn.Module):
    """d2l's AdditiveAttention (explicit key/query sizes, bias-free, eval: no dropout)."""

    def __init__(self, key_size: int, query_size: int, num_hiddens: int):
        super().__init__()
        self.W_k = nn.Linear(key_size, num_hiddens, bias=False, dtype=torch.float64)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=False, dtype=torch.float64)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False, dtype=torch.float64)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = torch.tanh(queries.unsqueeze(2) + keys.unsqueeze(1))
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = d2l_masked_softmax(scores, valid_lens)
        return torch.bmm(self.attention_weights, values)


def _additive_of(modules: list[D2LAdditive]) -> Additive:
    g = lambda f: np.stack([f(m).weight.detach().numpy() for m in modules])  # noqa: E731
    return Additive(modules[0].w_v.in_features, g(lambda m: m.W_q), g(lambda m: m.W_k), g(lambda m: m.w_v)[:, 0])


def test_d2l_additive_example():
    torch.manual_seed(0)
    queries = torch.normal(0, 1, (2, 1, 20), dtype=torch.float64)
    keys = torch.ones((2, 10, 2), dtype=torch.float64)
    values = torch.arange(40, dtype=torch.float64).reshape(1, 10, 4).repeat(2, 1, 1)
    module = D2LAdditive(key_size=2, query_size=20, num_hiddens=8).eval()
    sc = Scenario(queries.numpy(), keys.numpy(), values.numpy(), scoring="additive", d_values=4,
                  additive=_additive_of([module]), valid_lens=np.array([2.0, 6.0]))
    tr = run(sc)
    # All keys are equal, so the weights are uniform over the valid keys: means of value rows.
    v = values[0].numpy()
    want = np.stack([v[:2].mean(0), v[:6].mean(0)])[:, None, :]
    np.testing.assert_allclose(want, [[[2, 3, 4, 5]], [[10, 11, 12, 13]]], rtol=0)
    np.testing.assert_allclose(tr.array("output"), want, rtol=1e-14)
    with torch.no_grad():
        np.testing.assert_allclose(tr.array("output"), module(queries, keys, values, torch.tensor([2, 6])).numpy(),
                                   rtol=1e-14)
    assert tr.options["scale"] == 1.0 and tr.options["d_values"] == 4


@pytest.mark.parametrize("lens", [None, np.array([3.0, 1.0]), np.array([[2.0, 5.0, 1.0], [4.0, 4.0, 3.0]])])
def test_additive_single_head_matches_d2l(lens):
    torch.manual_seed(1)
    B, L, S, dq, dk, dv, hidden = 2, 3, 5, 6, 3, 4, 7
    q, k, v = (torch.randn(B, L, dq, dtype=torch.float64), torch.randn(B, S, dk, dtype=torch.float64),
               torch.randn(B, S, dv, dtype=torch.float64))
    module = D2LAdditive(dk, dq, hidden).eval()
    with torch.no_grad():
        want = module(q, k, v, None if lens is None else torch.as_tensor(lens))
    sc = Scenario(q.numpy(), k.numpy(), v.numpy(), scoring="additive", d_values=dv, additive=_additive_of([module]),
                  valid_lens=lens)
    tr = run(sc)
    np.testing.assert_allclose(tr.array("attention_weights")[:, 0], module.attention_weights.numpy(), rtol=1e-12)
    np.testing.assert_allclose(tr.array("output"), want.numpy(), rtol=1e-12)
    with torch.no_grad():
        feats = torch.tanh(module.W_q(q).unsqueeze(2) + module.W_k(k).unsqueeze(1))  # (B, L, S, hidden)
        scores = module.w_v(feats).squeeze(-1)  # d2l's scores, before the mask
    np.testing.assert_allclose(tr.array("scores")[:, 0], scores.numpy(), rtol=1e-12)


def test_additive_two_heads_with_projections_matches_d2l_per_head():
    torch.manual_seed(2)
    B, L, S, d_model, dk_in, dv_in, H, hidden = 2, 4, 3, 6, 5, 7, 2, 4
    hq, hk, dv = 3, 2, 3  # per-head query / key widths may differ for the additive kind
    lin = lambda i, o: nn.Linear(i, o, dtype=torch.float64)  # noqa: E731
    Wq, Wk, Wv, Wo = lin(d_model, H * hq), lin(dk_in, H * hk), lin(dv_in, H * dv), lin(H * dv, d_model)
    heads = [D2LAdditive(hk, hq, hidden).eval() for _ in range(H)]
    x, y, z = (torch.randn(B, L, d_model, dtype=torch.float64), torch.randn(B, S, dk_in, dtype=torch.float64),
               torch.randn(B, S, dv_in, dtype=torch.float64))
    lens = torch.tensor([2, 3])
    with torch.no_grad():
        Q, K, V = Wq(x), Wk(y), Wv(z)
        ctx = [heads[h](Q[..., h * hq:(h + 1) * hq], K[..., h * hk:(h + 1) * hk], V[..., h * dv:(h + 1) * dv], lens)
               for h in range(H)]
        want = Wo(torch.cat(ctx, dim=-1))
    P = lambda m: Projection(m.weight.detach().numpy(), m.bias.detach().numpy())  # noqa: E731
    sc = Scenario(x.numpy(), y.numpy(), z.numpy(), n_heads=H, d_values=dv, scoring="additive",
                  projections={"query": P(Wq), "key": P(Wk), "value": P(Wv), "out": P(Wo)},
                  additive=_additive_of(heads), valid_lens=lens.numpy().astype(float))
    tr = run(sc)
    for h in range(H):
        np.testing.assert_allclose(tr.array("attention_weights")[:, h], heads[h].attention_weights.numpy(), rtol=1e-12)
        np.testing.assert_allclose(tr.array("weighted_sum")[:, :, h], ctx[h].numpy(), rtol=1e-12)
    np.testing.assert_allclose(tr.array("output"), want.numpy(), rtol=1e-12)
    assert tr.options["query_head_width"] == hq and tr.options["key_head_width"] == hk


def test_additive_scale_is_one_by_default_and_explicit_scale_multiplies():
    rng = np.random.default_rng(6)
    a = Additive(3, rng.normal(size=(1, 3, 2)), rng.normal(size=(1, 3, 2)), rng.normal(size=(1, 3)))
    sc = Scenario(rng.normal(size=(1, 2, 2)), rng.normal(size=(1, 3, 2)), rng.normal(size=(1, 3, 2)),
                  scoring="additive", additive=a)
    base = run(sc).array("scores")
    np.testing.assert_allclose(run(dataclasses.replace(sc, scale=0.5)).array("scores"), base * 0.5, rtol=1e-15)
