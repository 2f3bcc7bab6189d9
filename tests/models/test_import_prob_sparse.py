"""A Time-Series-Library ProbAttention checkpoint through `main.py import --scoring prob_sparse --factor F --mix`.

A TSL state dict holds only the projections (FullAttention and ProbAttention have no weights), so the
importer cannot tell them apart and must be told.  Each check builds TSL's own AttentionLayer(ProbAttention)
(resources/training/tsl_style.py, TSL's code: the global-generator key sample, the bare `.squeeze()`, the
context returned as (B, H, L, D) and viewed by AttentionLayer without a transpose), saves its state_dict,
imports it through the CLI's main() and compares the engine's output with the module's own forward on
the same input after `torch.manual_seed(seed)` (ProbAttention's sample is the forward's first draw).
"""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
import torch
from tsl_layers import Informer2020AttentionLayer, Informer2020ProbAttention

from attention import run
from attention.cli import main
from attention.files import scenario_io
from resources.training.tsl_style import AttentionLayer, FullAttention, ProbAttention

TOL = 1e-6


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def _save(tmp_path, prefix: str, module: torch.nn.Module, name: str = "informer.pth"):
    path = tmp_path / name
    torch.save({f"{prefix}.{k}" if prefix else k: v for k, v in module.state_dict().items()}, path)
    return path


def _module_output(module, sc, seed: int) -> np.ndarray:
    """The module's own forward in float64 on the scenario's inputs, its key sample drawn after manual_seed."""
    module = module.double().eval()
    q, k = torch.as_tensor(sc.queries), torch.as_tensor(sc.keys)
    torch.manual_seed(seed)
    with torch.no_grad():
        out, _ = module(q, k, k, None)
    return out.numpy()


def _engine_output(sc) -> np.ndarray:
    return run(sc, dtype="float64")["output"].numpy()


@pytest.mark.parametrize("prefix,mask_flag,factor,tokens,seed", [
    ("encoder.attn_layers.0.attention", False, 2, 12, 5),  # Informer's encoder: ProbAttention(False, factor)
    ("decoder.layers.0.self_attention", True, 1, 9, 3),  # decoder self-attention: causal, lazy rows a cumsum
    ("", False, 3, 20, 11),  # a bare AttentionLayer, c = 3
])
def test_a_prob_attention_checkpoint_imports_with_its_factor_and_mix_and_reproduces_the_module(
        tmp_path, prefix, mask_flag, factor, tokens, seed):
    torch.manual_seed(seed + 100)
    module = AttentionLayer(ProbAttention(mask_flag, factor, attention_dropout=0.0), 16, 4).eval()
    weights = _save(tmp_path, prefix, module)
    out = tmp_path / "prob.json"
    layer = prefix or "attention"
    rc, text, err = cli("import", weights, "--heads", 4, "--tokens", tokens, "--seed", seed,
                        "--scoring", "prob_sparse", "--factor", factor, "--mix", "--out", out)
    assert (rc, err) == (0, "")
    assert text.splitlines()[1] == f"inner attention: ProbAttention (factor {factor}, heads and positions mixed)"
    sc = scenario_io.load(out)
    assert (sc.scoring, sc.factor, sc.mix, sc.seed, sc.causal) == ("prob_sparse", factor, True, seed, mask_flag)
    assert f"ProbAttention (ProbSparse, factor {factor})" in sc.notes["en"] and f"因子 {factor}" in sc.notes["zh"]
    want = _module_output(module, sc, seed)
    got = _engine_output(sc)
    assert np.abs(got - want).max() <= TOL, (layer, np.abs(got - want).max())
    # the float32 scenario as saved (what the window runs) agrees too
    np.testing.assert_allclose(run(sc)["output"].numpy(), want, atol=1e-5, rtol=0)


def test_without_the_flags_it_is_full_attention_said_on_stderr_and_far_from_the_module(tmp_path):
    """What the issue saw (diff 0.29): the same file imported as FullAttention; now it says so."""
    torch.manual_seed(7)
    module = AttentionLayer(ProbAttention(False, 1, attention_dropout=0.0), 16, 4).eval()
    weights = _save(tmp_path, "encoder.attn_layers.0.attention", module)
    out = tmp_path / "full.json"
    rc, _, err = cli("import", weights, "--heads", 4, "--tokens", 24, "--out", out)
    assert rc == 0
    assert err.strip() == ("encoder.attn_layers.0.attention: imported as FullAttention; a state dict cannot say "
                           "whether it ran ProbAttention (Informer): then import with --scoring prob_sparse --factor F "
                           "(--no-mix for Informer2020's encoder)")
    sc = scenario_io.load(out)
    assert sc.scoring == "scaled_dot" and "FullAttention, assumed" in sc.notes["en"]
    assert np.abs(_engine_output(sc) - _module_output(module, sc, 0)).max() > 1e-2
    # and the unmixed layout is not TSL's either: --no-mix is Informer2020's encoder, not TSL's
    rc, _, err = cli("import", weights, "--heads", 4, "--tokens", 24, "--scoring", "prob_sparse", "--factor", 1,
                     "--no-mix", "--out", out)
    assert (rc, err) == (0, "")
    sc = scenario_io.load(out)
    assert not sc.mix and np.abs(_engine_output(sc) - _module_output(module, sc, 0)).max() > 1e-2
    # mix is the default with --scoring prob_sparse (TSL's ProbAttention always mixes)
    assert cli("import", weights, "--heads", 4, "--tokens", 24, "--scoring", "prob_sparse", "--factor", 1,
               "--out", out)[0] == 0
    sc = scenario_io.load(out)
    assert sc.mix and np.abs(_engine_output(sc) - _module_output(module, sc, 0)).max() <= TOL


def test_informer2020s_unmixed_encoder_imports_with_no_mix(tmp_path):
    """Informer2020 returns (B, L, H, D) and transposes back only with mix=True: its encoder is --no-mix."""
    torch.manual_seed(8)
    module = Informer2020AttentionLayer(Informer2020ProbAttention(False, 2, attention_dropout=0.0), 16, 4, mix=False)
    weights = _save(tmp_path, "encoder.attn_layers.0.attention", module)
    out = tmp_path / "i2020.json"
    assert cli("import", weights, "--heads", 4, "--tokens", 10, "--seed", 2, "--scoring", "prob_sparse",
               "--factor", 2, "--no-mix", "--out", out)[0] == 0
    sc = scenario_io.load(out)
    assert np.abs(_engine_output(sc) - _module_output(module, sc, 2)).max() <= TOL


def test_cross_attention_samples_the_memorys_keys(tmp_path):
    """Informer's decoder cross-attention: ProbAttention(False) over the encoder's output (S = L + 2 here)."""
    torch.manual_seed(9)
    module = AttentionLayer(ProbAttention(False, 2, attention_dropout=0.0), 8, 2).eval()
    weights = _save(tmp_path, "decoder.layers.0.cross_attention", module)
    out = tmp_path / "cross.json"
    assert cli("import", weights, "--heads", 2, "--tokens", 7, "--seed", 4, "--scoring", "prob_sparse",
               "--factor", 2, "--out", out)[0] == 0
    sc = scenario_io.load(out)
    assert (sc.L, sc.S) == (7, 9)
    assert np.abs(_engine_output(sc) - _module_output(module, sc, 4)).max() <= TOL


def test_full_attention_chosen_explicitly_is_quiet_and_exact(tmp_path):
    torch.manual_seed(10)
    module = AttentionLayer(FullAttention(False, attention_dropout=0.0), 8, 2).eval()
    weights = _save(tmp_path, "encoder.attn_layers.0.attention", module)
    out = tmp_path / "full.json"
    rc, text, err = cli("import", weights, "--heads", 2, "--scoring", "scaled_dot", "--out", out)
    assert (rc, err) == (0, "") and text.splitlines()[1] == "inner attention: FullAttention"
    sc = scenario_io.load(out)
    assert "FullAttention, as chosen on import" in sc.notes["en"]
    assert np.abs(_engine_output(sc) - _module_output(module, sc, 0)).max() <= TOL


def test_the_options_are_refused_in_one_line_where_they_do_not_fit(tmp_path):
    torch.manual_seed(11)
    tsl = _save(tmp_path, "encoder.attn_layers.0.attention",
                AttentionLayer(ProbAttention(False, 1, attention_dropout=0.0), 8, 2))
    mha = tmp_path / "mha.pt"
    torch.save(torch.nn.MultiheadAttention(8, 2).state_dict(), mha)
    out = tmp_path / "o.json"
    cases = [
        ((tsl, "--heads", 2, "--scoring", "prob_sparse"),
         "--factor: a state dict does not store ProbAttention's factor c; give the one the model was trained with "
         "(Time-Series-Library's run.py default is 1, Informer2020's 5)"),
        ((tsl, "--heads", 2, "--factor", 3), "--factor: only with --scoring prob_sparse (ProbAttention's c)"),
        ((tsl, "--heads", 2, "--mix"), "--mix: only with --scoring prob_sparse"),
        ((tsl, "--heads", 2, "--scoring", "prob_sparse", "--factor", 0),
         "--factor: expected a whole number from 1 to 2147483647, got 0"),
        ((tsl, "--heads", 2, "--scoring", "prob_sparse", "--factor", 1, "--tokens", 1),
         "--scoring prob_sparse: ProbAttention needs at least 2 queries and 2 keys"),
        ((tsl, "--heads", 2, "--scoring", "prob_sparse", "--factor", 1, "--seed", 2 ** 40),
         f"--seed {2 ** 40}: ProbAttention's key sample is drawn from the scenario's seed"),
        ((mha, "--heads", 2, "--scoring", "prob_sparse", "--factor", 1),
         "--scoring prob_sparse: attention is not a Time-Series-Library AttentionLayer"),
    ]
    for argv, expect in cases:
        rc, _, err = cli("import", *argv, "--out", out)
        assert rc == 2 and len(err.strip().splitlines()) == 1 and err.startswith(expect), (argv, err)
    assert not out.exists()
    rc, _, err = cli("import", tsl, "--heads", 2, "--scoring", "prob_sparse", "--lang", "zh", "--out", out)
    assert rc == 2 and err.startswith("--factor：state_dict 不保存 ProbAttention 的因子 c")


def test_the_options_are_in_the_help():
    rc, out, _ = cli("import", "--help")
    assert rc == 0 and "--scoring {scaled_dot,prob_sparse}" in out and "--mix, --no-mix" in out
    assert "Informer's ProbAttention" in out
