"""The thread policy (attention/compute/threads.py, issue 29): one thread for big work while other
programs keep the cores busy, the machine's default for small work (its numbers stay bit for bit),
ATTENTION_THREADS / --threads to fix it, and a count the caller chose with torch left alone."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import attention
from attention.compute import engine, threads

ROOT = Path(__file__).resolve().parents[2]
BIG, SMALL = 1e9, 1e3


@pytest.fixture
def policy(monkeypatch):
    """The policy on a pretend 2-core machine, with `busy[0]` other runnable threads; torch's count restored."""
    before = torch.get_num_threads()
    busy = [0]
    monkeypatch.delenv(threads.ENV, raising=False)
    monkeypatch.setattr(threads, "cores", lambda: 2)
    monkeypatch.setattr(threads, "busy_elsewhere", lambda: busy[0])
    monkeypatch.setattr(threads, "_override", None)
    monkeypatch.setattr(threads, "_gui_cores", 0)
    monkeypatch.setattr(threads, "_chosen", None)
    monkeypatch.setattr(threads, "torch_default", lambda: 2)
    torch.set_num_threads(2)  # torch's own default here: the policy may change it
    yield busy
    torch.set_num_threads(before)


def test_big_work_takes_the_cores_no_one_else_is_using(policy):
    assert threads.choose(BIG) == 2
    policy[0] = 1  # a program spinning on the other core
    assert threads.choose(BIG) == 1
    policy[0] = 7
    assert threads.choose(BIG) == 1  # never fewer than one


def test_held_keeps_one_count_while_the_load_changes(policy):
    """A run and its edited copy (heads patched from the same prompt) must agree bit for bit: inside `held` the
    count chosen first stands, whatever the load does, and the policy is back after it."""
    with threads.held(BIG) as n:
        assert n == 2 and torch.get_num_threads() == 2
        policy[0] = 1
        assert threads.choose(BIG) == 2 and threads.use(BIG) == 2
        with threads.held(BIG) as inner:
            assert inner == 2
    assert threads.choose(BIG) == 1


def test_a_knock_out_runs_every_forward_at_one_count_while_the_load_changes(policy, monkeypatch):
    """glassllm's clean run, the source run and the patched run of one knock: the load seen by each forward flips
    between 0 and 1 busy threads, yet all three take the same count (else a head patched from the same prompt
    can move SmolLM2's float32 logits in their last bits)."""
    from attention.models import glassllm, head_edits
    from attention.models.head_edits import HeadEdit

    model = glassllm.GlassDecoder.load()
    calls, seen = [0], []

    def flipping() -> int:
        calls[0] += 1
        return calls[0] % 2

    forward = model.forward

    def counted(*args, **kwargs):
        out = forward(*args, **kwargs)
        seen.append(torch.get_num_threads())  # the count the forward ran at (it chooses on entry)
        return out

    monkeypatch.setattr(threads, "busy_elsewhere", flipping)
    monkeypatch.setattr(model, "forward", counted)
    ids = model.encode("Alice was beginning to get very tired of sitting by her sister on the bank, " * 3)
    assert len(ids) * sum(v.numel() for v in model.tensors.values()) > threads.SMALL_WORK  # the load is asked
    o = head_edits.knock(model, ids, [HeadEdit(1, 2, "patch")], engine=False, dtype=torch.float32, patch_ids=ids)
    assert len(seen) >= 3 and len(set(seen)) == 1, seen
    assert torch.equal(o.after.logits, o.before.logits)


def test_small_work_keeps_the_machines_count_whatever_the_load(policy):
    policy[0] = 5
    assert threads.choose(SMALL) == 2


def test_the_window_keeps_a_core_for_its_drawing(policy, monkeypatch):
    monkeypatch.setattr(threads, "_gui_cores", 1)
    assert threads.choose(BIG) == 1 and threads.choose(SMALL) == 1


def test_the_environment_and_the_command_line_fix_the_count(policy, monkeypatch):
    policy[0] = 1
    monkeypatch.setenv(threads.ENV, "2")
    assert threads.choose(BIG) == 2 and threads.choose(SMALL) == 2
    monkeypatch.setenv(threads.ENV, "auto")
    assert threads.choose(BIG) == 1
    monkeypatch.setenv(threads.ENV, "zero")  # not a count: the policy decides
    assert threads.choose(BIG) == 1
    threads.set_override(2)
    assert threads.choose(BIG) == 2
    with pytest.raises(ValueError):
        threads.set_override(0)


def test_run_gives_torch_the_count_and_leaves_a_callers_own_choice(policy):
    policy[0] = 1
    sc = _scenario(256)  # big enough to ask the load
    assert engine.work(sc) >= threads.SMALL_WORK
    attention.run(sc)
    assert torch.get_num_threads() == 1
    torch.set_num_threads(2)  # the caller's own choice
    attention.run(sc)
    assert torch.get_num_threads() == 2


def test_a_count_set_before_the_first_run_is_the_callers(policy, monkeypatch):
    policy[0] = 0  # a quiet machine: the policy alone would take both cores
    torch.set_num_threads(1)
    attention.run(_scenario(256))
    assert torch.get_num_threads() == 1
    monkeypatch.setenv(threads.ENV, "2")  # unless the override asks
    attention.run(_scenario(256))
    assert torch.get_num_threads() == 2


def test_busy_elsewhere_reads_the_kernels_running_count(tmp_path):
    f = tmp_path / "loadavg"
    f.write_text("3.10 2.50 2.00 4/812 12345\n")
    assert threads.busy_elsewhere(str(f)) == 3  # four running, one of them the reader
    assert threads.busy_elsewhere(str(tmp_path / "missing")) == 0


def test_the_trace_is_the_same_at_one_thread_and_at_the_default_for_a_preset():
    """A preset is small work: the policy never changes its count, so its numbers do not move with the load."""
    import resources
    from attention.files import scenario_io

    sc = scenario_io.load(resources.list_presets()[1][0])
    assert engine.work(sc) < threads.SMALL_WORK
    assert threads.choose(engine.work(sc)) == max(1, threads.cores() - threads._gui_cores)


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    from attention.cli import main as cli_main

    code = cli_main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_threads_on_the_command_line_is_checked_and_said_in_help(capsys, monkeypatch):
    toy = str(ROOT / "resources/scenarios/01_tsl_toy.json")
    monkeypatch.setattr(threads, "_override", None)
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = _cli(capsys, "trace", toy, "--threads", "0")
    assert code == 2 and "--threads" in err and "Traceback" not in err
    code, out, _ = _cli(capsys, "trace", toy, "--threads", "1")
    assert code == 0 and '"format"' in out and threads.choose(BIG) == 1  # fixed from now on in this process
    threads.set_override(None)
    code, out, _ = _cli(capsys, "trace", "--help")
    assert code == 0 and "--threads N" in out and "ATTENTION_THREADS" in out
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, out, err = _cli(capsys, "--help")
    assert code == 0 and "ATTENTION_THREADS" in out and "线程" in out
    code, _, err = _cli(capsys, "trace", toy, "--threads", "x")
    assert code == 2 and "--threads" in err


def _scenario(d: int):
    from attention import Projection, Scenario

    rng = np.random.default_rng(0)
    proj = lambda: Projection(rng.normal(size=(d, d)) / np.sqrt(d))  # noqa: E731
    x = rng.normal(size=(1, 128, d))
    return Scenario(queries=x, keys=x, values=x, n_heads=4,
                    projections={n: proj() for n in ("query", "key", "value", "out")}, dtype="float32")
