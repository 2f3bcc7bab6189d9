"""Reading tensors out of weights files without trusting them and without loading what is not asked for.

A `TensorSource` answers three questions: which tensor names a file holds, each one's shape and
dtype (from the header alone where the format allows), and the values of one named tensor.
Three kinds of source:

- `.safetensors`: `safetensors.safe_open`; listing reads only the JSON header, `read` only the
  named tensor's bytes, so a multi-GB checkpoint lists and imports one layer without being loaded.
- `.pt/.pth/.bin/.ckpt`: `torch.load(..., weights_only=True)` only, so no pickled code ever runs
  (a pickle that asks for anything but tensors and plain containers is refused with the global it
  names).  Zip checkpoints are memory-mapped; the old non-zip format cannot be, and torch reads it
  whole, so a file over `LARGE_PT` bytes is named with its size (the `notice` callback) first.
  Nested dicts (`{"state_dict": ...}`, `{"model": ...}`) are flattened to dotted names; plain
  numbers and strings beside the tensors (an `args`/`config` dict) are kept as `values`.
- A Hugging Face folder: `config.json` plus `model.safetensors` (or its sharded index, or
  `pytorch_model.bin`).  `config` holds the parsed config.json for head counts and model type.

Every failure is a `CheckpointError`: one line, from the catalogue (attention/words/importing.py),
naming what was found and what was expected.
"""
from __future__ import annotations

import math
import re
import zipfile
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

import attention.words as words
from attention.compute import memory
from attention.datamodel.problem import elide
from attention.models import json_file

#: Extensions read with torch.load(weights_only=True).
TORCH_SUFFIXES = (".pt", ".pth", ".bin", ".ckpt")
SAFETENSORS_SUFFIX = ".safetensors"
GGUF_SUFFIX = ".gguf"
#: A .pt over this size is named with its size before torch reads it (2 GB).
LARGE_PT = 2 * 1024 ** 3
#: Files a Hugging Face folder may hold its weights in, in the order they are tried.
HF_WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")

Notice = Callable[[str], None]
#: State dicts are walked this many levels deep ({"state_dict": {"model": ...}} is 2).
MAX_NESTING = 8
#: dtype names (torch's and safetensors') of floating-point tensors.
_FLOAT_DTYPE = re.compile(r"float|half|bfloat|^F\d|^BF16$", re.IGNORECASE)


class CheckpointError(ValueError):
    """A weights file that cannot be read: one line, in the catalogue's words (both languages)."""

    def __init__(self, key: str, /, **args: Any):  # positional-only: `key` is also a message argument
        self.key = key
        self.args_ = args
        super().__init__(self.line("en"))

    def line(self, lang: Optional[str] = None) -> str:
        from attention.datamodel.problem import rendered

        return words.text(self.key, lang, **rendered(self.args_, lang))


def check_finite(where: str, key: str, t) -> None:
    """Weights holding NaN or infinity are refused naming the tensor and its first such cell: nothing
    they feed could be shown or saved (a scenario holds finite numbers only)."""
    import torch

    t = torch.as_tensor(t)
    if not torch.is_floating_point(t) or bool(torch.isfinite(t).all()):
        return
    first = tuple(int(i) for i in torch.nonzero(~torch.isfinite(t))[0])
    raise CheckpointError("models.error.not_finite", path=where, key=_name(key), index=list(first),
                          value=float(t[first]))


def human_size(n: int) -> str:
    """1536 -> '1.5 KB', 2.3e9 -> '2.3 GB' (decimal units, as file managers show; the same in both
    languages); beyond 1,000 TB by its power of ten ('~10^35 B')."""
    if n >= 10 ** 15:
        return f"~10^{len(str(int(n))) - 1} B"
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000:
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} TB"


class TensorSource(ABC):
    """Names, shapes and (on demand) values of the tensors in one weights file or folder.

    One subclass per kind of file; each answers the four abstract questions from its own format."""

    def __init__(self, path: Path, kind: str):
        self.path = path
        self.kind = kind  # "safetensors", "torch" or "folder"
        self.config: dict = {}  # a Hugging Face config.json, else {}
        self.values: dict[str, Any] = {}  # plain numbers/strings beside the tensors (dotted names)
        self.reads: list[str] = []  # every tensor name read, in order (what "lazy" means, checkable)
        self.ordered = False  # True where keys() follow the model's module order (a torch state dict)

    @abstractmethod
    def keys(self) -> list[str]:
        """Answered by each kind of file."""

    @abstractmethod
    def shape(self, key: str) -> tuple[int, ...]:
        """Answered by each kind of file."""

    @abstractmethod
    def dtype(self, key: str) -> str:
        """Answered by each kind of file."""

    @abstractmethod
    def _tensor(self, key: str):
        """Answered by each kind of file."""

    def read(self, key: str) -> np.ndarray:
        """One tensor as a float64 numpy array (bf16/fp16/fp32/fp64 all convert exactly).

        Its size is checked from its shape first: the float64 copy must fit in the memory free now,
        and (`_check_stored`) a file must store the numbers a tensor claims, so a 3 KB .pt of
        zero-stride views cannot ask for gigabytes."""
        import torch

        if not _FLOAT_DTYPE.search(self.dtype(key)):
            raise CheckpointError("models.error.not_float", path=self.path.name, key=_name(key), dtype=self.dtype(key))
        shape = self.shape(key)
        numel = math.prod(shape)
        free = memory.available_bytes()
        if 8 * numel > free:
            raise CheckpointError("models.error.too_big", path=self.path.name, key=_name(key), shape=_shape_text(shape),
                                  size=human_size(8 * numel), free=human_size(free))
        self._check_stored(key, shape, numel)
        t = self._tensor(key)
        self.reads.append(key)
        if not torch.is_floating_point(t):
            raise CheckpointError("models.error.not_float", path=self.path.name, key=_name(key), dtype=str(t.dtype))
        check_finite(self.path.name, key, t)
        return t.detach().to(dtype=torch.float64, device="cpu").numpy().copy()

    def _check_stored(self, key: str, shape: tuple[int, ...], numel: int) -> None:  # noqa: B027 (optional hook)
        """Kinds whose tensors may be views (torch) check that the file stores what the shape claims."""

    def close(self) -> None:  # noqa: B027 (optional hook: only kinds that hold a file open override it)
        return None


class SafetensorsSource(TensorSource):
    """A .safetensors file opened with safe_open: the header is read now, each tensor when asked."""

    def __init__(self, path: Path):
        super().__init__(path, "safetensors")
        try:
            from safetensors import SafetensorError, safe_open
        except ImportError:  # the `models` extra is not installed
            raise CheckpointError("models.error.no_safetensors", path=path.name) from None

        _check_safetensors_header(path)
        try:
            self._file = safe_open(str(path), framework="pt")
            self._keys = list(self._file.keys())
            self._meta = {k: self._file.get_slice(k) for k in self._keys}
        except SafetensorError as e:
            raise CheckpointError("models.error.safetensors_bad", path=path.name, detail=_first_line(e)) from None

    def keys(self) -> list[str]:
        return list(self._keys)

    def shape(self, key: str) -> tuple[int, ...]:
        return tuple(int(n) for n in self._meta[key].get_shape())

    def dtype(self, key: str) -> str:
        return str(self._meta[key].get_dtype())

    def _tensor(self, key: str):
        return self._file.get_tensor(key)


class TorchSource(TensorSource):
    """A torch.save'd state dict, read with weights_only=True (memory-mapped where the format allows)."""

    def __init__(self, path: Path, notice: Optional[Notice] = None):
        super().__init__(path, "torch")
        self.ordered = True
        zipped = _sniff_torch(path)
        size = path.stat().st_size
        if size > LARGE_PT and notice is not None:
            notice(words.text("models.notice.large_pt", path=path.name, size=human_size(size)))
        obj = _torch_load(path, mmap=zipped)
        self._tensors: dict[str, Any] = {}
        deeper: list[str] = []
        _flatten(obj, "", self._tensors, self.values, deeper=deeper)
        if not self._tensors and deeper:
            raise CheckpointError("models.error.nested_deep", path=path.name, limit=MAX_NESTING, found=deeper[0])
        if not self._tensors:
            raise CheckpointError("models.error.no_tensors", path=path.name, found=type(obj).__name__)

    def keys(self) -> list[str]:
        return list(self._tensors)

    def shape(self, key: str) -> tuple[int, ...]:
        return tuple(int(n) for n in self._tensors[key].shape)

    def dtype(self, key: str) -> str:
        return str(self._tensors[key].dtype).replace("torch.", "")

    def _tensor(self, key: str):
        return self._tensors[key]

    def _check_stored(self, key: str, shape: tuple[int, ...], numel: int) -> None:
        t = self._tensors[key]
        stored = t.untyped_storage().nbytes() // max(t.element_size(), 1)
        if numel > stored:
            raise CheckpointError("models.error.overlapping", path=self.path.name, key=_name(key),
                                  shape=_shape_text(shape), count=f"{numel:,}",
                                  stored=human_size(t.untyped_storage().nbytes()))


class ShardedSource(TensorSource):
    """Several sources seen as one (a sharded model.safetensors.index.json)."""

    def __init__(self, path: Path, parts: dict[str, TensorSource]):
        super().__init__(path, "folder")
        self._parts = parts
        self._owner = {k: src for src in parts.values() for k in src.keys()}

    def keys(self) -> list[str]:
        return list(self._owner)

    def shape(self, key: str) -> tuple[int, ...]:
        return self._owner[key].shape(key)

    def dtype(self, key: str) -> str:
        return self._owner[key].dtype(key)

    def _tensor(self, key: str):
        return self._owner[key]._tensor(key)

    def _check_stored(self, key: str, shape: tuple[int, ...], numel: int) -> None:
        self._owner[key]._check_stored(key, shape, numel)


def _read_json(path: Path, where: str):
    try:
        return json_file.read(path, where)
    except json_file.JsonFileError as e:
        raise CheckpointError(e.key, **e.args_) from None


# ---- safetensors header ------------------------------------------------------------------------

def _check_safetensors_header(path: Path) -> None:
    """The first 8 bytes are the header length, then a JSON object: say what was found otherwise."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(9)
    if len(head) < 9:
        raise CheckpointError("models.error.safetensors_short", path=path.name, size=human_size(size))
    n = int.from_bytes(head[:8], "little")
    if n > size - 8 or head[8:9] != b"{":
        raise CheckpointError("models.error.safetensors_header", path=path.name, size=human_size(size))


# ---- torch.load, safely ------------------------------------------------------------------------

_ZIP_MAGIC = b"PK\x03\x04"
#: torch's legacy format pickles the magic number 0x1950a86a20f9469cfc6c first (LONG1, 10 bytes).
_LEGACY_MAGIC = b"\x8a\x0a" + (0x1950A86A20F9469CFC6C).to_bytes(10, "little")


def _sniff_torch(path: Path) -> bool:
    """True for torch.save's zip format, False for its legacy format (a pickle that starts with
    torch's magic number); anything else is refused before torch.load sees it."""
    with open(path, "rb") as f:
        head = f.read(16)
    if head.startswith(_ZIP_MAGIC):
        if not zipfile.is_zipfile(path):
            raise CheckpointError("models.error.truncated_zip", path=path.name, size=human_size(path.stat().st_size))
        return True
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        if head[2:14] == _LEGACY_MAGIC:
            return False
        raise CheckpointError("models.error.plain_pickle", path=path.name)
    raise CheckpointError("models.error.torch_unknown", path=path.name, size=human_size(path.stat().st_size))


def _torch_load(path: Path, mmap: bool):
    import pickle
    import warnings

    import torch

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Detected pickle protocol 4": not the user's concern
            return torch.load(str(path), map_location="cpu", weights_only=True, mmap=mmap)
    except pickle.UnpicklingError as e:
        found = re.search(r"GLOBAL (\S+)", str(e))
        if found and _pickled_module(path, found.group(1), mmap):
            raise CheckpointError("models.error.pickled_module", path=path.name, name=found.group(1)) from None
        if found:
            raise CheckpointError("models.error.pickle_code", path=path.name, name=found.group(1)) from None
        raise CheckpointError("models.error.pickle_bad", path=path.name, detail=_torch_detail(e)) from None
    except (RuntimeError, EOFError, ValueError, OSError, KeyError, IndexError, TypeError, AttributeError) as e:
        raise CheckpointError("models.error.torch_bad", path=path.name, detail=_torch_detail(e)) from None


#: A pickled nn.Module's state names these attributes (nn.Module.__dict__); a state dict has none of them.
_MODULE_MARKS = (b"_parameters", b"_buffers", b"_modules")
#: Bytes of a pickle searched for them: a whole model's pickle holds no tensor data, only its structure.
_MODULE_SCAN = 64 * 2**20


def _pickled_module(path: Path, name: str, zipped: bool) -> bool:
    """Was this `torch.save(model)`, a whole nn.Module rather than its state_dict?  Told without running
    anything: a torch.nn class in the refused GLOBAL, or the attribute names every module's pickle holds."""
    if name.startswith("torch.nn.modules.") or name.startswith("torch.nn.parallel."):
        return True
    try:
        if zipped:
            with zipfile.ZipFile(path) as z:
                info = next((i for i in z.infolist() if i.filename.rsplit("/", 1)[-1] == "data.pkl"), None)
                if info is None or info.file_size > _MODULE_SCAN:
                    return False
                data = z.read(info)
        else:
            with open(path, "rb") as f:
                data = f.read(_MODULE_SCAN)
    except (OSError, zipfile.BadZipFile, RuntimeError, ValueError):
        return False
    return all(mark in data for mark in _MODULE_MARKS)


def _torch_detail(e: BaseException) -> str:
    """torch's messages run to paragraphs: keep the one line that says what went wrong."""
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    text = lines[0] if lines else type(e).__name__
    for i, line in enumerate(lines):
        for marker in ("WeightsUnpickler error:", "PytorchStreamReader"):
            if marker in line:
                rest = line[line.index(marker) + len(marker):].strip() if marker.endswith(":") else line
                text = rest or (lines[i + 1] if i + 1 < len(lines) else line)
    text = text.split(". ")[0]
    return (text[:160] + "…") if len(text) > 160 else text


def _flatten(obj, prefix: str, tensors: dict, values: dict, depth: int = 0,
             deeper: Optional[list[str]] = None) -> None:
    """Dotted names for every tensor in nested dicts/lists; plain scalars go to `values`.
    Containers below MAX_NESTING levels are not walked; `deeper` collects where they were."""
    import torch

    if depth > MAX_NESTING:
        if deeper is not None and isinstance(obj, (dict, list, tuple, torch.Tensor)):
            deeper.append(elide(prefix, json_file.NAME_CHARS))
        return
    if isinstance(obj, torch.Tensor):
        tensors[prefix or "tensor"] = obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), tensors, values, depth + 1, deeper)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _flatten(v, f"{prefix}.{i}" if prefix else str(i), tensors, values, depth + 1, deeper)
    elif isinstance(obj, (int, float, str, bool)) and prefix:
        values[prefix] = obj


def _name(key: str) -> str:
    """A tensor name as a message quotes it: names come from the file, so at most NAME_CHARS characters."""
    return elide(key, json_file.NAME_CHARS)


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(" + "×".join(str(n) for n in shape) + ")"


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
