"""A token embedding kept as the file stores it (Q8_0 blocks): rows and tied-output logits dequantized in blocks.

Why: Gemma 3's vocabulary has 262,144 tokens; its embedding in float32 would be 671 MB, more than the whole rest
of the model (400 MB), and twice that in float64.  llama.cpp's Q8_0 stores each run of 32 numbers of a row as one
float16 scale d and 32 int8 values q (34 bytes); the value is d·q, computed by gguf's dequantize in float32.  That
product is exact in float32 (11 + 8 significant bits), so keeping q (int8, 168 MB) and d (float32, 21 MB) and
multiplying when a row is read gives the very float32 values gguf's dequantize gives, in 28% of the memory.

    rows(ids)  -> (n, d)     E[ids]: only the rows asked for are dequantized
    logits(x)  -> (n, vocab) x @ Eᵀ: ROWS vocabulary rows at a time dequantized into one float32 buffer of
                             ROWS x d (10 MB) and multiplied; the float32 embedding never exists whole

Shapes: V vocabulary, d model width (a multiple of 32), G = d / 32 blocks a row.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

BLOCK, BLOCK_BYTES = 32, 34  # Q8_0: 32 values, a float16 scale then 32 int8
#: vocabulary rows dequantized at once by `logits`: 4096 x 640 float32 is 10 MB (measured fastest on this machine
#: among 1024 ... 16384: 48 ms a position for Gemma's 262,144 rows on one core)
ROWS = 4096


@dataclass
class Q8Rows:
    """q (V, d) int8 and scales (V, G) float32 of a Q8_0 tensor."""

    q: torch.Tensor
    scales: torch.Tensor

    @classmethod
    def from_blocks(cls, raw: np.ndarray, rows: int, width: int) -> "Q8Rows":
        """From the tensor's stored bytes (rows x width/32 blocks of 34 bytes), copied out of the file."""
        if width % BLOCK or raw.size != rows * width // BLOCK * BLOCK_BYTES:
            raise ValueError(f"{raw.size} bytes are not {rows} rows of {width // BLOCK} Q8_0 blocks")
        blocks = raw.reshape(rows, width // BLOCK, BLOCK_BYTES)
        scales = blocks[..., :2].copy().view(np.float16)[..., 0].astype(np.float32)  # (V, G)
        q = np.ascontiguousarray(blocks[..., 2:]).view(np.int8).reshape(rows, width)  # (V, d)
        return cls(torch.from_numpy(q), torch.from_numpy(scales))

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.q.shape)

    @property
    def nbytes(self) -> int:
        return self.q.numel() + 4 * self.scales.numel()

    def dequantize(self, start: int, stop: int, dtype: torch.dtype = torch.float32,
                   out: torch.Tensor | None = None) -> torch.Tensor:
        """Rows start..stop-1 as d·q (exactly gguf's float32 values; in float64 the same numbers)."""
        n, d = stop - start, self.q.shape[1]
        w = torch.empty(n, d, dtype=dtype) if out is None else out[:n]
        w.copy_(self.q[start:stop])
        w.view(n, d // BLOCK, BLOCK).mul_(self.scales[start:stop, :, None].to(dtype))
        return w

    def rows(self, ids: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """(n, d): the embedding rows of token ids `ids` (n,)."""
        n, d = len(ids), self.q.shape[1]
        w = self.q[ids].to(dtype)
        return w.view(n, d // BLOCK, BLOCK).mul_(self.scales[ids][:, :, None].to(dtype)).view(n, d)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        """x (n, d) -> (n, V): x @ Eᵀ, ROWS rows of E dequantized at a time into one reused buffer."""
        V, d = self.q.shape
        x = x.reshape(-1, d)
        out = torch.empty(x.shape[0], V, dtype=x.dtype)
        buf = torch.empty(ROWS, d, dtype=x.dtype)
        for i in range(0, V, ROWS):
            j = min(V, i + ROWS)
            w = self.dequantize(i, j, x.dtype, buf)
            if x.shape[0] == 1:
                torch.mv(w, x[0], out=out[0, i:j])
            else:
                out[:, i:j] = x @ w.T
        return out


@dataclass
class DenseRows:
    """An embedding a file stores in another format (F16, Q4_K, ...), dequantized whole to float32 (V, d): the same
    `rows` and `logits` as Q8Rows, for any gemma3 GGUF (the bundled one keeps Q8_0 blocks)."""

    w: torch.Tensor

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.w.shape)

    @property
    def nbytes(self) -> int:
        return 4 * self.w.numel()

    def rows(self, ids: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        return self.w[ids].to(dtype)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        V, d = self.w.shape
        x = x.reshape(-1, d)
        out = torch.empty(x.shape[0], V, dtype=x.dtype)
        for i in range(0, V, ROWS):
            j = min(V, i + ROWS)
            out[:, i:j] = x @ self.w[i:j].to(x.dtype).T
        return out
