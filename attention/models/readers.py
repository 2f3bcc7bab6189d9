"""The reader for a path: a safetensors or torch file, a GGUF file, or a Hugging Face folder (its
config.json and weights, a sharded index included); CheckpointError (one line) for anything else.

Above the readers themselves (checkpoint.py: safetensors, torch, shards; gguf_source.py: GGUF), so
that no reader imports another to pick one.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from attention.datamodel.problem import elide
from attention.models import json_file
from attention.models.checkpoint import (
    GGUF_SUFFIX,
    HF_WEIGHTS,
    SAFETENSORS_SUFFIX,
    TORCH_SUFFIXES,
    CheckpointError,
    Notice,
    SafetensorsSource,
    ShardedSource,
    TensorSource,
    TorchSource,
    _read_json,
)


def open_source(path: str | os.PathLike, notice: Optional[Notice] = None) -> TensorSource:
    """The right reader for a file or Hugging Face folder; CheckpointError (one line) otherwise."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError("models.error.missing", path=str(path))
    if not path.is_dir() and not json_file.regular_file(path):  # a FIFO would block the first read forever
        raise CheckpointError("models.error.not_regular", path=path.name)
    if path.is_dir():
        return _open_folder(path, notice)
    suffix = path.suffix.lower()
    if path.name in HF_WEIGHTS and (path.parent / "config.json").is_file():
        return _open_folder(path.parent, notice, path)  # the folder's config.json gives the head count
    if suffix == SAFETENSORS_SUFFIX:
        return SafetensorsSource(path)
    if suffix in TORCH_SUFFIXES:
        return TorchSource(path, notice)
    if suffix == GGUF_SUFFIX:  # llama.cpp's format: dequantized, under Hugging Face names (gguf_source.py)
        from attention.models.gguf_source import GGUFSource  # imports the `gguf` package: only for a GGUF

        return GGUFSource(path)
    if path.name == "config.json":
        return _open_folder(path.parent, notice)
    raise CheckpointError("models.error.unknown_kind", path=path.name, suffix=suffix or "(none)")


def _open_folder(folder: Path, notice: Optional[Notice], weights: Optional[Path] = None) -> TensorSource:
    """config.json + the weights file (`weights`, else the first of HF_WEIGHTS the folder has)."""
    config_path = folder / "config.json"
    weights = weights or next((folder / n for n in HF_WEIGHTS if (folder / n).is_file()), None)
    if weights is None:
        raise CheckpointError("models.error.folder_no_weights", path=folder.name,
                              found=", ".join(sorted(p.name for p in folder.iterdir())[:8]) or "-")
    config: dict = {}
    if config_path.is_file():
        config = _read_json(config_path, f"{folder.name}/config.json")
        if not isinstance(config, dict):
            raise CheckpointError("models.error.config_bad", path=f"{folder.name}/config.json",
                                  detail=type(config).__name__)
    if weights.name.endswith(".index.json"):
        source: TensorSource = _open_index(weights)
    elif weights.suffix == SAFETENSORS_SUFFIX:
        source = SafetensorsSource(weights)
    else:
        source = TorchSource(weights, notice)
    source.kind = "folder"
    source.config = config
    source.path = folder  # named by its folder in lists, titles and messages
    return source


def _open_index(index: Path) -> ShardedSource:
    """The shards a model.safetensors.index.json names: only regular files inside its own folder
    (after symlinks), so an index cannot make this read a system file or `../../` anything."""
    doc = _read_json(index, index.name)
    weight_map = doc.get("weight_map") if isinstance(doc, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise CheckpointError("models.error.config_bad", path=index.name, detail="weight_map")
    folder = index.parent.resolve()
    parts = {}
    for name in sorted(set(weight_map.values())):
        shard = (folder / name).resolve()
        shown = elide(name, json_file.NAME_CHARS)
        if shard.parent != folder or not name or Path(name).is_absolute():
            raise CheckpointError("models.error.shard_outside", path=index.name, shard=shown)
        if not shard.exists():
            raise CheckpointError("models.error.missing", path=f"{index.parent.name}/{shown}")
        if not json_file.regular_file(shard):
            raise CheckpointError("models.error.not_regular", path=shown)
        parts[name] = SafetensorsSource(shard)
    return ShardedSource(index, parts)
