"""Issue 31: sizes bounded before anything is built, duplicate parts refused, a write never eats its
input, every refusal names its field (in both languages).

The whole corpus (tests/hostile/issue31_cases.py) runs through `main.py` in one child process under
an address-space cap; the rules behind it are checked here in-process too, with hypothesis drawing
the hostile values (a part said any number of times, a generator of any wrong shape, any value of a
config's size fields, any --indent).
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import shutil
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention import ScenarioError
from attention.cli import main
from attention.files import scenario_io

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.hostile import issue31_cases as cases  # noqa: E402

HERE = cases.HERE
GOLDEN = cases.GOLDEN


def cli(*argv, env_lang: str = "C.UTF-8") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = os.environ.get("LANG")
    os.environ["LANG"] = env_lang
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main([str(a) for a in argv])
    finally:
        if old is None:
            os.environ.pop("LANG", None)
        else:
            os.environ["LANG"] = old
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def capped():
    """Every test here runs under an address-space cap 1 GiB above what the process maps now: a
    hostile value that slips past a bound fails its test with a MemoryError instead of taking the
    shared machine's memory."""
    import resource

    before = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/status") as f:
        mapped = next(int(line.split()[1]) << 10 for line in f if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, (mapped + (1 << 30), before[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)


# ---- the corpus, through main.py, under a cap ------------------------------------------------------

@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    return cases.run(cases.build(tmp_path_factory.mktemp("issue31")))


@pytest.mark.slow
@pytest.mark.parametrize("cls", cases.CLASSES)
def test_every_case_of_the_class_gets_its_answer(answers, cls):
    """Each case: one line naming its field (English and Chinese), nothing it read replaced, what it
    wrote accepted by validate; and no answer stopped by the cap (300 MB over the process's own)."""
    mine = [a for a in answers if a["cls"] == cls]
    assert mine
    bad = [f"{a['id']} [{a['lang']}]: {a['why'] or 'generic'} | {a['stderr'].strip()[-200:]}" for a in mine
           if not a["clean"] or a["big"]]
    assert not bad, "\n".join(bad)


# ---- 3: a part said twice ----------------------------------------------------------------------------

PARTS = {"rope": ("positions", {"kind": "rope"}), "qk_norm": ("modifiers", {"kind": "qk_norm"}),
         "softcap": ("modifiers", {"kind": "softcap", "cap": 30}), "window": ("masks", {"kind": "window", "size": 2}),
         "drawn": ("masks", {"kind": "drawn", "mask": {"generate": "zeros", "shape": [1, 4, 4]}})}
COMBINE = {"window", "drawn"}  # docs/scenario-format.md: these combine (the narrowest window; any drawn cell)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(sorted(PARTS)), min_size=1, max_size=12))
def test_a_repeated_part_is_refused_at_its_first_repeat(names):
    doc = json.loads((HERE / "rope_twice.json").read_text(encoding="utf-8"))
    doc.pop("positions")
    for name in names:
        family, part = PARTS[name]
        doc.setdefault(family, []).append(part)
    doc["mask"] = {"causal": True}
    expected = []  # each kind that does not combine and is listed again: at its first repeat
    for family in ("positions", "modifiers", "masks"):
        listed = [p["kind"] for p in doc.get(family, [])]
        repeats = {kind: [i for i, k in enumerate(listed) if k == kind] for kind in listed if kind not in COMBINE}
        expected += sorted((f"{family}[{at[1]}]" for at in repeats.values() if len(at) > 1),
                           key=lambda p: int(p.split("[")[1][:-1]))
    try:
        scenario_io.loads(json.dumps(doc))
    except ScenarioError as e:
        paths = [p.path for p in e.problems]
        assert expected, paths
        assert [p for p in paths if p in expected] == expected, (paths, expected)
        assert all(p.code == "part_twice" for p in e.problems if p.path in expected)
        return
    assert not expected


def test_duplicate_part_words_name_the_first_place_in_both_languages():
    with pytest.raises(ScenarioError) as e:
        scenario_io.load(HERE / "rope_twice.json")
    (p,) = e.value.problems
    assert p.path == "positions[1]" and "positions[0]" in p.text("en") and "positions[0]" in p.text("zh")


# ---- 4: a generator's shape first -------------------------------------------------------------------

#: field -> (the document's edit, the shape the field must have in rope_twice.json's base scenario)
GENERATED = {
    "positions[0].frequencies": (lambda d, g: d.update(positions=[{"kind": "rope", "frequencies": g}]), [2]),
    "projections.query.weight": (lambda d, g: d.update(projections={"query": {"weight": g}}), [8, 8]),
    "modifiers[0].key_weight": (lambda d, g: d.update(modifiers=[{"kind": "qk_norm", "key_weight": g}]), [4]),
    "masks[0].mask": (lambda d, g: d.update(masks=[{"kind": "drawn", "mask": g}]), [1, 4, 4]),
}


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(GENERATED)), st.lists(st.integers(1, 4000), min_size=1, max_size=3),
       st.sampled_from(["ones", "zeros", "normal", "uniform", "arange"]))
def test_a_generator_of_the_wrong_shape_is_refused_before_it_makes_a_number(where, shape, kind):
    edit, right = GENERATED[where]
    if shape == right or math.prod(shape) < 2 ** 16:
        shape = shape + [2 ** 16]  # big enough to notice: every wrong shape here makes 65,536+ numbers
    doc = json.loads((HERE / "rope_twice.json").read_text(encoding="utf-8"))
    doc.pop("positions")
    spec = {"generate": kind, "shape": shape, **({"seed": 0} if kind in ("normal", "uniform") else {})}
    edit(doc, spec)
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError) as e:
            scenario_io.loads(json.dumps(doc))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert any(p.path.startswith(where) for p in e.value.problems), e.value.lines
    assert peak < 0.5 * 8 * math.prod(shape) or peak < 2 ** 20, (peak, shape)


def test_a_generator_of_the_right_shape_still_loads_and_saves_as_a_recipe(tmp_path):
    doc = json.loads((HERE / "rope_twice.json").read_text(encoding="utf-8"))
    doc["positions"] = [{"kind": "rope", "frequencies": {"generate": "uniform", "shape": [2], "seed": 3}}]
    doc["projections"] = {"query": {"weight": {"generate": "identity", "shape": [8, 8]}}}
    sc = scenario_io.loads(json.dumps(doc))
    np.testing.assert_array_equal(sc.projections["query"].weight, np.eye(8))
    assert sc.positions[0].values["frequencies"].shape == (2,)
    scenario_io.save(sc, tmp_path / "again.json")
    again = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))
    assert again["projections"]["query"]["weight"] == doc["projections"]["query"]["weight"]
    assert again["positions"][0]["frequencies"] == doc["positions"][0]["frequencies"]


# ---- 1, 5, 7: a decoder config's sizes and rope fields --------------------------------------------------

SIZE_FIELDS = {"llama": ("hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim"),
               "mistral": ("sliding_window",), "qwen2": ("max_window_layers",), "gemma3": ("sliding_window_pattern",)}
ODD = st.one_of(st.integers(-2 ** 70, 2 ** 70), st.sampled_from([0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 40, 2 ** 62]),
                st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5), st.lists(st.integers(0, 3),
                                                                                             max_size=2),
                st.none(), st.booleans())


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.sampled_from([(f, k) for f, keys in SIZE_FIELDS.items() for k in keys]), ODD)
def test_any_value_of_a_size_field_is_read_or_refused_naming_it(tmp_path_factory, which, value):
    """families.py reads the layer or refuses in one line naming the field; never another exception,
    never an allocation the file's own tensors do not justify."""
    from attention.models.checkpoint import CheckpointError
    from attention.models.importing import open_layers

    family, key = which
    change = {key: value}
    if family == "qwen2":
        change["layer_types"] = None
    folder = cases._hf_folder(tmp_path_factory.mktemp("cfg"), "x", family, change)
    tracemalloc.start()
    try:
        try:
            _, layers = open_layers(folder)
            for f in layers:
                if not f.supported:
                    assert any(key in str(v) for _, args in f.reasons for _, v in args) or key in f.reason("en"), \
                        f.reason("en")
        except CheckpointError as e:
            assert key in e.line("en") and key in e.line("zh"), e.line("en")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2 ** 20, peak


# ---- 4: whatever import writes, validate accepts ---------------------------------------------------------

FAMILY_LAYERS = [(f, i + 1) for f in sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())  # from 1, as the CLI
                 for i in range(json.loads((GOLDEN / f / "config.json").read_text())["num_hidden_layers"]
                                if "num_hidden_layers" in json.loads((GOLDEN / f / "config.json").read_text())
                                else 1)]


@pytest.mark.parametrize("family, layer", FAMILY_LAYERS)
def test_what_import_writes_validate_accepts(family, layer, tmp_path):
    out = tmp_path / "imported.json"
    rc, _, err = cli("import", GOLDEN / family, "--layer", layer, "--out", out)
    assert rc == 0, err
    rc, _, err = cli("validate", out)
    assert rc == 0, err


@pytest.mark.parametrize("name", sorted(json.loads((HERE / "hf_configs.json").read_text(encoding="utf-8"))))
def test_a_hostile_config_is_refused_or_what_it_writes_validates(name, tmp_path):
    spec = json.loads((HERE / "hf_configs.json").read_text(encoding="utf-8"))[name]
    folder = cases._hf_folder(tmp_path, name, spec["family"], spec["change"])
    out = tmp_path / "out.json"
    rc, _, err = cli("import", folder, "--layer", spec.get("layer", 1), "--out", out)
    if rc == 0:
        assert cli("validate", out)[0] == 0
    else:
        assert rc == 2 and len(err.strip().splitlines()) == 1 and spec["field"] in err, err
        assert not out.exists()


# ---- 1: --indent and the output options --------------------------------------------------------------------

@settings(max_examples=25)
@given(st.integers(-10 ** 12, 10 ** 12))
def test_indent_is_used_or_refused_naming_it(indent):
    from attention.files.trace_out import MAX_INDENT

    rc, out, err = cli("trace", HERE / "windows_two.json", "--indent", indent)
    if 0 <= indent <= MAX_INDENT:
        assert rc == 0 and json.loads(out)["format"] == "attention-explorer/trace"
    else:
        assert rc == 2 and out == "" and len(err.splitlines()) == 1 and "--indent" in err, err


def test_the_indent_counts_in_the_size_estimate(tmp_path):
    """--indent 16 makes the text several times longer: the estimate grows with it, and a limit
    between the compact and the indented size refuses only the indented text."""
    from attention import run
    from attention.files import trace_out

    sc = scenario_io.load(HERE / "windows_two.json")
    t = run(sc)
    compact, wide = trace_out.estimate_json_bytes(t), trace_out.estimate_json_bytes(t, indent=16)
    from attention.files.trace_json import dumps

    assert 0.5 < len(dumps(t, sc, indent=16)) / wide < 2
    assert wide > 2 * compact
    limit = f"{(compact + wide) // 2}"
    assert cli("trace", HERE / "windows_two.json", "--max-json", limit)[0] == 0
    rc, _, err = cli("trace", HERE / "windows_two.json", "--max-json", limit, "--indent", "16")
    assert rc == 2 and "--indent" in err or "--max-json" in err


# ---- 2: nothing read is replaced ----------------------------------------------------------------------------

def test_trace_out_its_own_input_is_refused_in_both_languages(tmp_path):
    s = tmp_path / "S.json"
    shutil.copy(HERE / "windows_two.json", s)
    before = s.read_bytes()
    for lang in ("C.UTF-8", "zh_CN.UTF-8"):
        rc, out, err = cli("trace", s, "--out", s, env_lang=lang)
        assert rc == 2 and len(err.splitlines()) == 1 and "--out" in err, err
    assert s.read_bytes() == before
    assert "读取" in err


def test_a_folder_of_layer_files_with_a_planted_link_is_refused_before_anything_loads(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / "layer2.json")
    rc, _, err = cli("run", "no-such-model-is-ever-loaded", "x", "--out", out)
    assert rc == 2 and "layer2.json" in err and len(err.splitlines()) == 1, err
    assert victim.read_text() == "mine\n" and (out / "layer2.json").is_symlink()


def test_each_writer_recognises_its_own_kind_of_file_and_nothing_else(tmp_path):
    """What out_guard reads back from files the project itself wrote (so a write may replace them) and
    from files it did not (so it may not)."""
    from attention.files import out_guard

    toy = tmp_path / "toy.json"
    shutil.copy(HERE / "windows_two.json", toy)
    sc = scenario_io.load(toy)
    scenario_io.save(sc, tmp_path / "saved.json")
    made = {"saved.json": "scenario", "trace.json": "trace", "trace.npz": "trace", "script.py": "script"}
    assert cli("trace", toy, "--out", tmp_path / "trace.json")[0] == 0
    assert cli("trace", toy, "--out", tmp_path / "trace.npz")[0] == 0
    assert cli("script", toy, "--out", tmp_path / "script.py")[0] == 0
    assert cli("tiles", toy, "--blank", "--out", tmp_path / "sheets")[0] == 0
    for name in ("tiles_worksheet.html", "tiles_answer_key.html"):
        made[f"sheets/{name}"] = "worksheet"
    for name, kind in made.items():
        assert out_guard.kind_of(tmp_path / name) == kind, name
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "notes.json").write_text('{"format": "someone-else/notes"}')
    (tmp_path / "late.json").write_text('{"version": 1, "format": "attention-explorer/trace"}')  # not our layout
    (tmp_path / "zip.npz").write_bytes(b"PK\x03\x04 not really")
    assert out_guard.kind_of(tmp_path / "empty.json") == "empty"
    assert [out_guard.kind_of(tmp_path / n) for n in ("notes.json", "late.json", "zip.npz")] == [None] * 3
    # a second run of each writer replaces its own file; none replaces the other kinds
    assert cli("trace", toy, "--out", tmp_path / "trace.json")[0] == 0
    rc, _, err = cli("trace", toy, "--out", tmp_path / "saved.json")
    assert rc == 2 and "is not a trace file" in err
    rc, _, err = cli("script", toy, "--out", tmp_path / "notes.json")
    assert rc == 2 and "is not a script file" in err and "--out" in err


def test_a_numpy_warning_is_one_named_line_never_a_source_line(monkeypatch):
    """Whatever a command meets that numpy or torch only warns about is said in one line, once."""
    from attention import cli as cli_module

    def noisy(args):
        for _ in range(3):
            np.array([1.0]) / np.array([0.0])
        return 0

    monkeypatch.setattr(cli_module, "_validate", noisy)
    for lang, word in (("C.UTF-8", "warning: RuntimeWarning: divide by zero"), ("zh_CN.UTF-8", "警告：RuntimeWarning")):
        rc, _, err = cli("validate", HERE / "windows_two.json", env_lang=lang)
        assert rc == 0 and err.splitlines() == [err.strip()] and err.startswith(word), err
        assert ".py:" not in err and "np.array" not in err
