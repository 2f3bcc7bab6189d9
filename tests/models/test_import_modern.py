"""Importing Hugging Face decoder families: `main.py import` -> a version-2 scenario -> engine.run in float64
reproduces transformers' own eager attention (golden files of tests/models/golden_modern/, made by
make_golden_modern.py with transformers 5.24.0: compared against `output`/`weights`, the float64-throughout run).

Each layer goes the whole way a person's does: listed by `main.py layers`, imported by `main.py import` into a
scenario file, read back, its inputs replaced by the golden hidden states of one batch row (whose RoPE positions
start at position_ids[b, 0]: the rope part's offset), then traced.  The expected kinds of every layer are written
here from the families' documented conventions (golden_modern/README.md), not read from the importer.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
from pathlib import Path

import numpy as np
import pytest

from attention.cli import main
from attention.compute import engine
from attention.datamodel.parts import Part
from attention.files import scenario_io

pytest.importorskip("safetensors")
GOLDEN = Path(__file__).with_name("golden_modern")
TOL = 1e-6

#: family -> layer -> the parts the scenario must hold: positions, modifiers, masks (kind names), and
#: (query heads, key/value heads, scale) — from golden_modern/README.md and each config.json.
EXPECTED = {
    "llama": {0: (("rope",), (), (), (4, 2, 8 ** -0.5))},
    "mistral": {0: (("rope",), (), ("window",), (4, 1, 8 ** -0.5))},
    "qwen2": {0: (("rope",), (), (), (4, 2, 8 ** -0.5)), 1: (("rope",), (), ("window",), (4, 2, 8 ** -0.5))},
    "qwen3": {0: (("rope",), ("qk_norm",), (), (4, 2, 8 ** -0.5))},
    "gemma2": {0: (("rope",), ("softcap",), ("window",), (4, 2, 12 ** -0.5)),
               1: (("rope",), ("softcap",), (), (4, 2, 12 ** -0.5))},
    "gemma3": {0: (("rope",), ("qk_norm",), ("window",), (4, 2, 12 ** -0.5)),
               1: (("rope",), ("qk_norm",), (), (4, 2, 12 ** -0.5))},
    "gpt_neox": {0: (("rope",), (), (), (4, 4, 8 ** -0.5))},
    "phi": {0: (("rope",), (), (), (4, 4, 8 ** -0.5))},
    "bloom": {0: ((), ("alibi",), (), (6, 6, 6 ** -0.5))},
    "falcon": {0: (("rope",), (), (), (4, 1, 8 ** -0.5))},
    "falcon_grouped": {0: (("rope",), (), (), (4, 2, 8 ** -0.5))},
}
CASES = [(family, layer) for family, layers in EXPECTED.items() for layer in layers]


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def _golden(family: str):
    return np.load(GOLDEN / family / "golden.npz")


def imported(family: str, layer: int, tmp_path) -> "scenario_io.Scenario":
    """`main.py import FOLDER --layer model...{layer}...` written to a file and read back."""
    rc, out, _ = cli("layers", GOLDEN / family)
    assert rc == 0
    name = out.strip().splitlines()[1 + layer].split("\t")[0]
    path = tmp_path / f"{family}{layer}.json"
    rc, _, err = cli("import", GOLDEN / family, "--layer", name, "--out", path)
    assert rc == 0, err
    return scenario_io.load(path)


def _with_row(sc, hidden: np.ndarray, start: int):
    """The scenario on one batch row's hidden states, its RoPE positions starting at `start`."""
    positions = tuple(Part(p.kind, {**p.values, "offset": start}) for p in sc.positions)
    return dataclasses.replace(sc, queries=hidden, keys=hidden, values=hidden, positions=positions,
                               query_tokens=None, key_tokens=None, dtype="float64")


def engine_vs_transformers(sc, family: str, layer: int) -> tuple[float, float]:
    """max |Δ output|, max |Δ weights| of the engine (float64) against transformers' eager attention."""
    g = _golden(family)
    hidden, pos = g[f"layer{layer}.hidden"], g["position_ids"]
    outs, weights = [], []
    for b in range(hidden.shape[0]):
        assert (pos[b] == pos[b, 0] + np.arange(pos.shape[1])).all()  # contiguous: one offset per row
        trace = engine.run(_with_row(sc, hidden[b:b + 1], int(pos[b, 0])), dtype="float64")
        outs.append(trace.array("output"))
        weights.append(trace.array("attention_weights"))
    hf_out = g[f"layer{layer}.output"]
    if f"layer{layer}.residual" in g.files:  # BLOOM's module returns dense(out) + its input
        hf_out = hf_out - g[f"layer{layer}.residual"]
    return (float(np.abs(np.concatenate(outs) - hf_out).max()),
            float(np.abs(np.concatenate(weights) - g[f"layer{layer}.weights"]).max()))


@pytest.mark.parametrize("family,layer", CASES)
def test_import_reproduces_transformers_in_float64(family, layer, tmp_path):
    sc = imported(family, layer, tmp_path)
    d_out, d_w = engine_vs_transformers(sc, family, layer)
    assert d_out <= TOL and d_w <= TOL, f"{family} layer {layer}: output {d_out:.1e}, weights {d_w:.1e}"


@pytest.mark.parametrize("family,layer", CASES)
def test_the_scenario_holds_the_family_kinds(family, layer, tmp_path):
    positions, modifiers, masks, (H, Hkv, scale) = EXPECTED[family][layer]
    sc = imported(family, layer, tmp_path)
    assert tuple(p.kind for p in sc.positions) == positions
    assert tuple(p.kind for p in sc.modifiers) == modifiers
    assert tuple(p.kind for p in sc.masks) == masks
    assert (sc.n_heads, sc.kv_heads, sc.causal, sc.scoring) == (H, Hkv, True, "scaled_dot")
    assert sc.scale == pytest.approx(scale, rel=1e-15)
    assert "cannot be reproduced" not in sc.notes["en"]


def test_the_kind_fields_follow_each_config(tmp_path):
    """Values read from the configs by hand: partial rotary, scaled frequencies, QK-norm style, cap, window."""
    neox = imported("gpt_neox", 0, tmp_path).positions[0].values
    # both configs: rope_parameters partial_rotary_factor 0.5, rope_theta 100 (head_dim 8: 4 dims turn)
    assert int(8 * neox["fraction"]) == 4 and neox["base"] == 100.0 and neox["pairing"] == "halves"
    assert neox.get("frequencies") is None
    phi = imported("phi", 0, tmp_path).positions[0].values
    assert int(8 * phi["fraction"]) == 4 and phi["base"] == 100.0
    llama = imported("llama", 0, tmp_path).positions[0].values  # llama3: factor 8 on the long wavelengths
    inv = 1.0 / 10000.0 ** (np.arange(0, 8, 2) / 8)
    np.testing.assert_allclose(llama["frequencies"][1:], inv[1:] / 8, rtol=1e-12)
    gemma3 = imported("gemma3", 1, tmp_path)  # full layer: linear scaling, factor 4, base 1000
    np.testing.assert_allclose(gemma3.positions[0].values["frequencies"], 1.0 / 1000.0 ** (np.arange(0, 8, 2) / 8) / 4,
                               rtol=1e-12)
    norm = gemma3.modifiers[0].values
    assert norm["style"] == "gemma3" and norm["eps"] == 1e-6
    assert imported("qwen3", 0, tmp_path).modifiers[0].values["style"] == "qwen3"
    assert imported("gemma2", 0, tmp_path).modifiers[0].values["cap"] == 5.0
    assert imported("mistral", 0, tmp_path).masks[0].values["size"] == 4
    assert imported("bloom", 0, tmp_path).modifiers[0].values["slopes"] is None  # BLOOM's own formula


@pytest.mark.parametrize("family,layer,drop", [("llama", 0, "positions"), ("mistral", 0, "masks"),
                                               ("qwen3", 0, "modifiers"), ("gemma2", 0, "modifiers"),
                                               ("bloom", 0, "modifiers"), ("gemma2", 1, "scale")])
def test_without_its_kind_the_import_is_wrong(family, layer, drop, tmp_path):
    """The comparison can fail: the same scenario less one of its kinds misses transformers by far."""
    sc = imported(family, layer, tmp_path)
    sc = dataclasses.replace(sc, **({drop: None} if drop == "scale" else {drop: ()}))
    assert engine_vs_transformers(sc, family, layer)[1] > 1e-3


def test_layers_lists_decoder_layers_with_their_kinds_in_both_languages():
    rc, out, err = cli("layers", GOLDEN / "gemma2")
    assert rc == 0 and err == ""
    rows = [line.split("\t") for line in out.strip().splitlines()[1:]]
    assert [r[0] for r in rows] == ["model.layers.0.self_attn", "model.layers.1.self_attn"]
    assert rows[0][1] == "Gemma 2 decoder attention (Hugging Face)"
    assert rows[0][2] == "query (32×32), key (16×32), value (16×32), out (32×32)"
    assert "4 heads, causal, 2 key/value heads, RoPE (base 10000, 8 of 8 dims" in rows[0][3]
    assert "soft-cap 5" in rows[0][3] and "window 4" in rows[0][3] and "window" not in rows[1][3]
    assert "not importable" not in out
    rc, out, _ = cli("layers", GOLDEN / "falcon", "--lang", "zh")
    assert rc == 0 and "1 个键/值头（多查询）" in out and "不能导入" not in out
    rc, out, _ = cli("layers", GOLDEN / "bloom")
    assert "ALiBi" in out and "RoPE" not in out


def test_a_head_count_other_than_the_config_is_refused_in_one_line(tmp_path):
    rc, out, err = cli("import", GOLDEN / "llama", "--heads", "2", "--out", tmp_path / "x.json")
    assert rc != 0 and err.strip() == "--heads 2: model.layers.0.self_attn has 4 query heads, fixed by its config"
    assert not (tmp_path / "x.json").exists()


def test_a_config_field_no_kind_covers_is_listed_with_its_reason(tmp_path):
    """A rope_type the kinds cannot compute (yarn) stays listed, not importable, naming the field."""
    import json
    import shutil

    folder = tmp_path / "llama_yarn"
    shutil.copytree(GOLDEN / "llama", folder)
    cfg = json.loads((folder / "config.json").read_text())
    cfg["rope_parameters"] = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0}
    cfg.pop("rope_scaling", None)
    (folder / "config.json").write_text(json.dumps(cfg))
    rc, out, _ = cli("layers", folder)
    assert rc == 0 and "not importable" in out and "rope_type" in out
    rc, _, err = cli("import", folder, "--out", tmp_path / "x.json")
    assert rc != 0 and "rope_type" in err


def test_inputs_from_another_scenario_feed_the_decoder_layer(tmp_path):
    """--inputs: the queries of another scenario (width 32) become the layer's one sequence; the width is checked."""
    first = imported("gemma2", 0, tmp_path)
    path = tmp_path / "gemma2_0.json"
    scenario_io.save(first, path)
    rc, _, err = cli("import", GOLDEN / "llama", "--inputs", path, "--out", tmp_path / "llama.json")
    assert rc == 0, err
    sc = scenario_io.load(tmp_path / "llama.json")
    np.testing.assert_array_equal(sc.queries, first.queries)
    assert sc.keys is not None and np.array_equal(sc.keys, first.queries)
    rc, _, err = cli("import", GOLDEN / "bloom", "--inputs", path, "--out", tmp_path / "bloom.json")
    assert rc != 0 and "queries are 32 wide" in err and "takes 36" in err


BAD_CONFIGS = [{"num_key_value_heads": 3}, {"head_dim": "eight"}, {"sliding_window": -1}, {"num_attention_heads": 0},
               {"rope_parameters": {"rope_type": "dynamic", "factor": 2.0}},
               {"layer_types": ["sliding_attention", "no_such"]}, {"hidden_size": True}, {"num_key_value_heads": 1}]


@pytest.mark.parametrize("change", BAD_CONFIGS)
def test_a_bad_config_is_one_line_for_list_and_import(change, tmp_path):
    """Hostile configs of a decoder family: `layers` and `import` answer with one line, never a traceback."""
    import json
    import shutil

    folder = tmp_path / "bad"
    shutil.copytree(GOLDEN / "qwen2", folder)
    cfg = json.loads((folder / "config.json").read_text())
    cfg.update(change)
    (folder / "config.json").write_text(json.dumps(cfg))
    rc, out, err = cli("layers", folder)
    assert "Traceback" not in out + err and "not importable" in out.strip().splitlines()[2]  # listed, with why
    rc, out, err = cli("import", folder, "--layer", "2", "--out", tmp_path / "x.json")  # the sliding layer (2nd)
    assert "Traceback" not in out + err
    assert rc != 0 and len(err.strip().splitlines()) == 1, err
