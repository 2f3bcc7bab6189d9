"""Weights files read safely and lazily: only the chosen layer's safetensors are read, a big .pt is
named before torch reads it, and corrupt, truncated, unknown or code-carrying files are refused with
one line while nothing is unpickled."""
from __future__ import annotations

import builtins
import json
import resource
import struct

import numpy as np
import pytest
import safetensors
import torch
from import_modules import AttentionLayer, FullAttention, TSLTransformer
from safetensors.torch import save_file

from attention.models import checkpoint
from attention.models.checkpoint import CheckpointError
from attention.models.importing import choose, import_layer, open_layers
from attention.models.readers import open_source


def _tensors(model) -> dict:
    return {k: v.contiguous() for k, v in model.state_dict().items()}


# ---- safetensors: header-only listing, one layer's tensors read --------------------------------------

class CountingOpen:
    """safetensors.safe_open, recording every get_tensor call (the real reads)."""

    def __init__(self):
        self.real = safetensors.safe_open
        self.got: list[str] = []

    def __call__(self, *args, **kwargs):
        handle = self.real(*args, **kwargs)
        counter = self

        class Proxy:
            def __getattr__(self, name):
                return getattr(handle, name)

            def get_tensor(self, key):
                counter.got.append(key)
                return handle.get_tensor(key)

        return Proxy()


def test_safetensors_listing_reads_no_tensor_and_import_reads_only_that_layer(tmp_path, monkeypatch):
    torch.manual_seed(0)
    model = TSLTransformer(d_model=16, n_heads=4, e_layers=3)
    path = tmp_path / "model.safetensors"
    save_file(_tensors(model), str(path))
    counting = CountingOpen()
    monkeypatch.setattr(safetensors, "safe_open", counting)

    source, layers = open_layers(path)
    assert len(layers) == 5 and counting.got == []  # names and shapes come from the header
    found = choose(source, layers, "encoder.attn_layers.2.attention")
    sc = import_layer(source, found, heads=4)
    prefix = "encoder.attn_layers.2.attention."
    assert sorted(counting.got) == sorted(prefix + f"{r}_projection.{t}" for r in ("query", "key", "value", "out")
                                          for t in ("weight", "bias"))
    own = model.encoder.attn_layers[2].attention.query_projection.weight.detach().double().numpy()
    np.testing.assert_array_equal(sc.projections["query"].weight, own)


def _safetensors_with_a_huge_tensor(path, small: dict[str, torch.Tensor], huge_elements: int) -> None:
    """A valid safetensors file whose first tensor is `huge_elements` float32 zeros, stored sparse
    (the file system keeps no blocks for them), followed by the small tensors."""
    header, offset, blobs = {}, 0, []
    header["decoder.embedding.weight"] = {"dtype": "F32", "shape": [huge_elements],
                                          "data_offsets": [0, 4 * huge_elements]}
    offset = 4 * huge_elements
    for name, t in small.items():
        raw = t.to(torch.float32).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.seek(8 + len(text) + 4 * huge_elements)  # a hole: nothing written, nothing stored
        for raw in blobs:
            f.write(raw)


def test_a_checkpoint_with_a_1_5_gb_tensor_imports_one_small_layer_without_loading_it(tmp_path):
    torch.manual_seed(1)
    layer = AttentionLayer(FullAttention(False), d_model=8, n_heads=2)
    small = {f"encoder.attn_layers.0.attention.{k}": v.detach() for k, v in layer.state_dict().items()}
    path = tmp_path / "big.safetensors"
    huge = 384 * 1024 * 1024  # 1.5 GiB of float32
    _safetensors_with_a_huge_tensor(path, small, huge)
    assert path.stat().st_size > 1.5 * 1024 ** 3

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    source, layers = open_layers(path)
    assert source.shape("decoder.embedding.weight") == (huge,)
    sc = import_layer(source, choose(source, layers, None), heads=2)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < 500, f"peak memory grew by {grown_mib:.0f} MiB: the huge tensor was read"
    assert source.reads and "decoder.embedding.weight" not in source.reads
    np.testing.assert_array_equal(sc.projections["out"].bias, layer.out_projection.bias.detach().double().numpy())


def test_sharded_hugging_face_folder(tmp_path):
    torch.manual_seed(2)
    tensors = _tensors(TSLTransformer(d_model=8, n_heads=2, e_layers=2))
    names = sorted(tensors)
    half = len(names) // 2
    folder = tmp_path / "sharded"
    folder.mkdir()
    shards = {"model-00001-of-00002.safetensors": names[:half], "model-00002-of-00002.safetensors": names[half:]}
    for shard, keys in shards.items():
        save_file({k: tensors[k] for k in keys}, str(folder / shard))
    (folder / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {}, "weight_map": {k: shard for shard, keys in shards.items() for k in keys}}))
    (folder / "config.json").write_text(json.dumps({"n_heads": 2}))
    source, layers = open_layers(folder)
    assert len(layers) == 4 and all(f.n_heads == 2 for f in layers)
    sc = import_layer(source, choose(source, layers, "decoder.layers.0.cross_attention"))
    np.testing.assert_array_equal(sc.projections["key"].weight,
                                  tensors["decoder.layers.0.cross_attention.key_projection.weight"].double().numpy())


# ---- .pt: weights_only, memory-mapped, big files named first ---------------------------------------

def test_a_pt_over_the_size_limit_is_named_with_its_size_before_torch_reads_it(tmp_path, monkeypatch):
    path = tmp_path / "model.pt"
    torch.save(TSLTransformer(d_model=8, n_heads=2, e_layers=1).state_dict(), path)
    events = []
    real_load = torch.load

    def load(*args, **kwargs):
        events.append(("load", kwargs.get("weights_only"), kwargs.get("mmap")))
        return real_load(*args, **kwargs)

    monkeypatch.setattr(torch, "load", load)
    monkeypatch.setattr(checkpoint, "LARGE_PT", 1000)  # stands for 2 GB: the file is ~10 KB
    open_source(path, notice=lambda line: events.append(("notice", line)))
    assert events[0][0] == "notice" and "model.pt" in events[0][1] and "KB" in events[0][1]
    assert events[1] == ("load", True, True)  # weights only; a zip checkpoint is memory-mapped

    events.clear()
    monkeypatch.setattr(checkpoint, "LARGE_PT", 2 * 1024 ** 3)
    open_source(path, notice=lambda line: events.append(("notice", line)))
    assert [e[0] for e in events] == ["load"]


def test_legacy_non_zip_checkpoint_is_read_without_mmap(tmp_path):
    path = tmp_path / "old.pth"
    model = TSLTransformer(d_model=8, n_heads=2, e_layers=1)
    torch.save(model.state_dict(), path, _use_new_zipfile_serialization=False)
    source, layers = open_layers(path)
    sc = import_layer(source, choose(source, layers, "encoder.attn_layers.0.attention"), heads=2)
    np.testing.assert_array_equal(sc.projections["value"].weight,
                                  model.encoder.attn_layers[0].attention.value_projection.weight.detach().double().numpy())


# ---- refusals: one line, nothing run ----------------------------------------------------------------

class Payload:
    """Unpickling this would run builtins.exec and write the marker file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (builtins.exec, (f"open({self.marker!r}, 'w').write('ran')",))


def _bad_files(tmp_path) -> dict[str, tuple]:
    """name -> (path, words the one line must contain)."""
    marker = tmp_path / "UNPICKLED"
    good = tmp_path / "good.pt"
    torch.save(TSLTransformer(d_model=8, n_heads=2, e_layers=1).state_dict(), good)
    raw = good.read_bytes()
    st = tmp_path / "good.safetensors"
    save_file(_tensors(TSLTransformer(d_model=8, n_heads=2, e_layers=1)), str(st))
    st_raw = st.read_bytes()
    files = {}

    def put(name, data, *expect):
        p = tmp_path / name
        p.write_bytes(data)
        files[name] = (p, expect)

    put("truncated.pt", raw[: len(raw) // 2], "ends early", "expected a complete torch.save file")
    put("text.pt", b"hello, this is not a checkpoint\n", "32 B, and it does not start as a PyTorch file does",
        "expected a file saved with torch.save")
    put("empty.bin", b"", "0 B, and", "expected a file saved with torch.save")
    put("cut.safetensors", st_raw[: len(st_raw) - 40], "damaged safetensors", "not fully covered")
    put("tiny.safetensors", st_raw[:5], "only 5 B", "8-byte header length")
    put("text.safetensors", b"0123456789abcdef", "does not start with a safetensors header")
    put("weights.npy", raw, "not a weights file", "expected .pt")
    code_zip = tmp_path / "code.pt"
    torch.save({"w": torch.ones(2), "x": Payload(marker)}, code_zip)
    files["code.pt"] = (code_zip, ("asks to run", "exec", "nothing was run"))
    code_legacy = tmp_path / "code_legacy.pth"
    torch.save({"x": Payload(marker)}, code_legacy, _use_new_zipfile_serialization=False)
    files["code_legacy.pth"] = (code_legacy, ("asks to run", "exec", "nothing was run"))
    import pickle

    put("plain_pickle.pt", pickle.dumps({"x": Payload(marker)}), "a Python pickle", "not unpickled")
    put("no_attention.pt", _saved(tmp_path, {"linear.weight": torch.ones(3, 3)}), "no attention layer", "expected")
    return files


def _saved(tmp_path, obj) -> bytes:
    p = tmp_path / "_tmp.pt"
    torch.save(obj, p)
    return p.read_bytes()


def test_bad_files_are_refused_with_one_line_and_nothing_unpickled(tmp_path):
    from attention.cli import main

    files = _bad_files(tmp_path)
    for name, (path, expect) in files.items():
        for command in (["layers", str(path)], ["import", str(path), "--out", str(tmp_path / "out.json")]):
            captured = _run_cli(main, command)
            assert captured["rc"] == 2, (name, captured)
            lines = captured["err"].strip().splitlines()
            assert len(lines) == 1, (name, lines)
            assert lines[0].startswith(path.name), (name, lines)
            for words_ in expect:
                assert words_ in lines[0], (name, lines[0])
            assert "Traceback" not in captured["err"]
    assert not (tmp_path / "UNPICKLED").exists()
    assert not (tmp_path / "out.json").exists()


def test_refusals_are_in_chinese_too(tmp_path):
    from attention.cli import main

    files = _bad_files(tmp_path)
    got = _run_cli(main, ["layers", str(files["code.pt"][0]), "--lang", "zh"])
    assert got["rc"] == 2 and "已拒绝" in got["err"] and "exec" in got["err"]
    assert not (tmp_path / "UNPICKLED").exists()


def test_folder_problems(tmp_path):
    empty = tmp_path / "empty-model"
    empty.mkdir()
    (empty / "config.json").write_text("{}")
    with pytest.raises(CheckpointError, match="no model.safetensors.*found: config.json"):
        open_source(empty)
    broken = tmp_path / "broken-config"
    broken.mkdir()
    save_file(_tensors(AttentionLayer(FullAttention(False), 8, 2)), str(broken / "model.safetensors"))
    (broken / "config.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="config.json: invalid JSON at line 1, column 2"):
        open_source(broken)
    with pytest.raises(CheckpointError, match="no such file or folder"):
        open_source(tmp_path / "missing.safetensors")


def _run_cli(main, argv) -> dict:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return {"rc": rc, "out": out.getvalue(), "err": err.getvalue()}


def test_without_the_safetensors_package_the_message_says_how_to_get_it(tmp_path, monkeypatch):
    path = tmp_path / "m.safetensors"
    save_file(_tensors(AttentionLayer(FullAttention(False), 8, 2)), str(path))
    monkeypatch.setitem(__import__("sys").modules, "safetensors", None)  # as if not installed
    with pytest.raises(CheckpointError, match=r"needs the safetensors package: pip install .attention-explorer"):
        open_source(path)


def test_safetensors_layers_are_listed_in_natural_order(tmp_path):
    """safetensors stores names sorted as text; the list puts layer 2 before layer 10 even so."""
    layer = AttentionLayer(FullAttention(False), 4, 2)
    state = {f"encoder.attn_layers.{i}.attention.{k}": v.detach().clone()
             for i in range(12) for k, v in layer.state_dict().items()}
    path = tmp_path / "deep.safetensors"
    save_file(state, str(path))
    _, layers = open_layers(path)
    assert [f.name for f in layers] == [f"encoder.attn_layers.{i}.attention" for i in range(12)]
