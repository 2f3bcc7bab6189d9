"""A GGUF file's metadata and tensor table, read lightly; each tensor's bytes on demand.

Why not gguf's own GGUFReader: it builds one small numpy array per part of every metadata item, and Gemma 3's
262,144-token vocabulary (tokens, scores, token types) made it hold ~330 MB of Python objects for a few seconds
(measured: RSS 234 -> 565 MB, 3.5-6.7 s on this machine) before a single weight was read.  The format is short
(llama.cpp's gguf.md, version 2 and 3, little-endian):

    magic "GGUF", version u32, tensor count u64, metadata count u64
    metadata: key (u64 length + UTF-8), value type u32, value
              (u8 i8 u16 i16 u32 i32 f32 bool string array u64 i64 f64 = types 0..12;
               an array: item type u32, count u64, items)
    tensors:  name, n_dims u32, ne[n_dims] u64 (fastest dim first), ggml type u32, offset u64
    data:     from the next multiple of general.alignment (default 32); tensor t at data start + offset

Numeric arrays are read as numpy views of the file (no per-item objects); strings are decoded one by one.
The values themselves are gguf's to dequantize (gguf.quants.dequantize): this module only finds the bytes.
A file cut short, or with counts that run past its end, is refused with CheckpointError gguf.error.cut naming
what ran out (gguf.error.damaged for bytes that make no sense), in both languages, never an IndexError.
"""
from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np

from attention.models.checkpoint import CheckpointError, human_size

MAGIC = b"GGUF"
VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32
#: value type -> (struct code, numpy dtype) of the fixed-size scalars (7 = bool, 8 = string, 9 = array)
_SCALARS = {0: ("<B", "<u1"), 1: ("<b", "<i1"), 2: ("<H", "<u2"), 3: ("<h", "<i2"), 4: ("<I", "<u4"),
            5: ("<i", "<i4"), 6: ("<f", "<f4"), 7: ("<?", "<u1"), 10: ("<Q", "<u8"), 11: ("<q", "<i8"),
            12: ("<d", "<f8")}
STRING, ARRAY = 8, 9


@dataclass(frozen=True)
class TensorInfo:
    """One entry of the tensor table: `shape` as GGUF lists it (ne0, the in-features, first)."""

    name: str
    shape: tuple[int, ...]
    kind: str  # the ggml type's name: "Q8_0", "Q4_K", "F32", ...
    start: int  # absolute byte offset in the file
    nbytes: int


class _Cut(Exception):
    """The header asks for bytes past the end of the file (raised inside the parser only): tensor `what` ran out
    (None: the header itself)."""

    def __init__(self, what: Optional[str]):
        super().__init__(what or "header")
        self.what = what


class GGUFHeader:
    """`meta` (key -> str, int, float, bool, a list, or a numpy array for a numeric array), `tensors` (name ->
    TensorInfo) and `raw(name)`: the tensor's bytes as a read-only uint8 array of the open map (`close` ends it)."""

    def __init__(self, path: str | Path, stop_at: Optional[str] = None):
        """Read the header of `path`; with `stop_at`, only the metadata up to that key (no tensors)."""
        self.path = Path(path)
        self._stop = stop_at
        where = self.path.name
        if not self.path.is_file():
            raise CheckpointError("models.error.missing", path=str(self.path))
        try:
            with open(self.path, "rb") as f:
                self.size = f.seek(0, 2)
                if self.size < 24:
                    raise CheckpointError("models.error.gguf_bad", path=where,
                                          detail=f"{human_size(self.size)}, too short for a GGUF header")
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except OSError as e:
            raise CheckpointError("models.error.gguf_bad", path=where, detail=str(e.strerror or e)) from None
        self._buf = memoryview(self._map)
        if bytes(self._buf[:4]) != MAGIC:
            head = bytes(self._buf[:4])
            self.close()
            raise CheckpointError("models.error.gguf_bad", path=where, detail=f"starts with {head!r}, not b'GGUF'")
        try:
            self._parse()
        except _Cut as e:
            self.close()
            if e.what is None:  # inside the header itself
                raise CheckpointError("gguf.error.cut_header", path=where, size=human_size(self.size)) from None
            raise CheckpointError("gguf.error.cut", path=where, size=human_size(self.size), what=e.what) from None
        except (struct.error, UnicodeDecodeError, ValueError, KeyError) as e:
            self.close()
            raise CheckpointError("gguf.error.damaged", path=where, detail=_first_line(e)) from None

    # ---- parsing ------------------------------------------------------------------------------------
    def _parse(self) -> None:
        self._pos = 4
        version = self._scalar(4)
        if version not in VERSIONS:
            raise ValueError(f"GGUF version {version}; this reader knows {', '.join(map(str, VERSIONS))}")
        n_tensors, n_kv = self._scalar(10), self._scalar(10)
        if n_tensors > self.size or n_kv > self.size:
            raise ValueError(f"{n_tensors} tensors and {n_kv} metadata entries cannot fit in the file")
        self.meta: dict[str, Any] = {}
        self.tensors: dict[str, TensorInfo] = {}
        for _ in range(n_kv):
            key = self._string()
            self.meta[key] = self._value(self._scalar(4), key)
            if key == self._stop:
                return
        infos = []
        for _ in range(n_tensors):
            name = self._string()
            dims = [self._scalar(10) for _ in range(self._scalar(4))]
            infos.append((name, tuple(dims), self._scalar(4), self._scalar(10)))
        align = self.meta.get("general.alignment", DEFAULT_ALIGNMENT)
        if not isinstance(align, int) or align < 1 or align & (align - 1):
            raise ValueError(f"general.alignment {align!r} is not a power of two")
        data = -(-self._pos // align) * align
        for name, dims, kind, offset in infos:
            info = _tensor_info(name, dims, kind, data + offset)
            if info.start + info.nbytes > self.size:
                raise _Cut(name)
            self.tensors[name] = info

    def _take(self, n: int) -> memoryview:
        if n < 0 or self._pos + n > self.size:
            raise _Cut(None)
        out = self._buf[self._pos:self._pos + n]
        self._pos += n
        return out

    def _scalar(self, vtype: int) -> Any:
        code = _SCALARS[vtype][0]
        return struct.unpack(code, self._take(struct.calcsize(code)))[0]

    def _string(self) -> str:
        return str(self._take(self._scalar(10)), "utf-8")

    def _value(self, vtype: int, key: str) -> Any:
        if vtype == STRING:
            return self._string()
        if vtype == ARRAY:
            item, count = self._scalar(4), self._scalar(10)
            if item == STRING:
                return [self._string() for _ in range(count)]
            if item in _SCALARS:
                dtype = np.dtype(_SCALARS[item][1])
                a = np.frombuffer(self._take(count * dtype.itemsize), dtype=dtype)
                return a.astype(bool) if item == 7 else a.copy()  # a copy: the map closes after loading
            if item == ARRAY:
                return [self._value(ARRAY, key) for _ in range(count)]
            raise ValueError(f"{key}: array of unknown value type {item}")
        if vtype in _SCALARS:
            return self._scalar(vtype)
        raise ValueError(f"{key}: unknown value type {vtype}")

    # ---- tensors ---------------------------------------------------------------------------------------
    def raw(self, name: str) -> np.ndarray:
        """The tensor's stored bytes (uint8, read-only, a view of the map)."""
        t = self.tensors[name]
        return np.frombuffer(self._buf[t.start:t.start + t.nbytes], dtype=np.uint8)

    def forget(self, name: str) -> None:
        """Tell the system the tensor's pages of the file will not be read again (they leave this process's
        resident memory now instead of after `close`; 253 MB for Gemma 3).  Harmless where unsupported."""
        t = self.tensors[name]
        page = mmap.PAGESIZE
        start = t.start // page * page
        try:
            self._map.madvise(mmap.MADV_DONTNEED, start, t.start + t.nbytes - start)
        except (AttributeError, OSError, ValueError):
            pass

    def close(self) -> None:
        """Let the file go (views made by `raw` must be dropped first: the map cannot close under them)."""
        buf, self._buf = getattr(self, "_buf", None), None
        if buf is not None:
            try:
                buf.release()
            except BufferError:  # an array still views it
                pass
        m = getattr(self, "_map", None)
        if m is not None:
            try:
                m.close()
            except BufferError:  # an array still views it: the map closes when that goes
                pass
            self._map = None


def architecture(path: str | Path) -> Optional[str]:
    """general.architecture of a GGUF file, reading no further than that key (the first one llama.cpp writes)."""
    h = GGUFHeader(path, stop_at="general.architecture")
    try:
        value = h.meta.get("general.architecture")
        return value if isinstance(value, str) else None
    finally:
        h.close()


def _tensor_info(name: str, dims: tuple[int, ...], kind: int, start: int) -> TensorInfo:
    """The byte size of a tensor from gguf's own table of block sizes (GGML_QUANT_SIZES)."""
    import gguf

    try:
        qtype = gguf.GGMLQuantizationType(kind)
    except ValueError:
        raise ValueError(f"tensor {name}: unknown ggml type {kind}") from None
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    n = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if not dims or dims[0] % block:
        raise ValueError(f"tensor {name}: {dims[0] if dims else 0} values a row is not whole {qtype.name} blocks")
    return TensorInfo(name, tuple(int(d) for d in dims), qtype.name, int(start), n // block * size)


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:160] if text else type(e).__name__


def dequantize(header: GGUFHeader, name: str, shape: Optional[tuple[int, ...]] = None) -> np.ndarray:
    """Tensor `name` as float32 in nn.Linear layout (out, in), dequantized by gguf (llama.cpp's own code)."""
    import gguf

    t = header.tensors[name]
    qtype = gguf.GGMLQuantizationType[t.kind]
    try:
        w = gguf.quants.dequantize(header.raw(name), qtype)
    except NotImplementedError:
        from attention.models.gguf_source import _gguf_version

        raise CheckpointError("models.error.gguf_quant", path=header.path.name, tensor=name, kind=t.kind,
                              version=_gguf_version()) from None
    out = np.asarray(w, dtype=np.float32).reshape(shape or tuple(reversed(t.shape)))
    return np.array(out, copy=True, order="C")  # its own memory: the file's map can close
