"""Writes the hostile scenario files of this folder (one per class of issue 13's review), each a
small edit of the first preset.  Run it after changing the preset or the list:

    python tests/hostile/make.py

Anything big (a 1 MB string, 200,000 unknown fields, 100,000 nested lists) and what cannot be
committed (a FIFO, a folder in place of a file, /dev/zero) is made by the test at run time:
tests/io/test_io_hostile.py.  EXPECTED there says what each file must give.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOY = json.loads((HERE.parents[1] / "resources" / "scenarios" / "01_tsl_toy.json").read_text(encoding="utf-8"))


def edit(**changes) -> dict:
    d = copy.deepcopy(TOY)
    for path, value in changes.items():
        node, keys = d, path.split("__")
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value
    return d


def dump(d) -> str:
    return json.dumps(d, ensure_ascii=True, allow_nan=True, indent=1)


FILES: dict[str, str] = {
    # 2: huge integers (valid JSON)
    "huge_generator_mean.json": dump(edit(queries={"generate": "normal", "shape": [1, 4, 4], "seed": 0,
                                                   "mean": 10**400})),
    "huge_generator_fields.json": dump(edit(queries={"generate": "arange", "shape": [1, 4, 4], "start": -10**400,
                                                     "step": 10**400}, keys={"generate": "uniform", "shape": [1, 4, 4],
                                                                             "seed": 10**400, "low": 10**400})),
    "huge_n_heads.json": dump(edit(n_heads=10**4299)),
    "huge_d_keys_d_values.json": dump(edit(d_keys=10**4299, d_values=10**4299)),
    "additive_huge_d_keys.json": dump(edit(scoring="additive", projections=None, additive={"hidden": 8},
                                           d_keys=2**31 - 1)),
    "huge_generator_shape.json": dump(edit(queries={"generate": "ones", "shape": [10**4000, 10**4000]})),
    # 3: values beyond what the window's controls hold
    "seed_2_31.json": dump(edit(seed=2**31)),
    "factor_2_31.json": dump(edit(scoring="prob_sparse", prob_sparse={"factor": 2**31, "mix": True})),
    # 9: numbers float32 cannot hold, in a float32 scenario
    "float32_overflow.json": dump(edit(dtype="float32", queries=[[[1e39, 0, 0, 0]] + TOY["queries"][0][1:]])),
    # 10: lone surrogates in a title and a token
    "surrogate_title.json": dump(edit(title={"en": "\ud800 toy", "zh": ""})),
    "surrogate_token.json": dump(edit(key_tokens=["a", "\udfff", "c", "d"])),
    # 14: a 5,000-digit number, a cell path as the docs write it
    "long_number.json": '{"format": "attention-explorer/scenario",\n "version": 1,\n "seed": ' + "7" * 5000 + "}\n",
    "valid_lens_cell.json": dump(edit(mask__valid_lens=[[1, 2, 3, 9]])),
    # other shapes of bad input the fuzzing met
    "not_utf8.json": None,  # bytes, written below
    "nan_literal.json": dump(edit(scale=float("nan"))),
    "duplicate_keys.json": dump(TOY)[:-2] + ',\n "seed": 1\n}',
    "top_level_list.json": "[1, 2, 3]\n",
    "truncated.json": dump(TOY)[:200],
}


def main() -> None:
    for name, text in FILES.items():
        if text is None:
            continue
        (HERE / name).write_text(text, encoding="utf-8", errors="surrogatepass")
    (HERE / "not_utf8.json").write_bytes(b'{"format": "attention-explorer/scenario", "title": {"en": "caf\xe9"}}\n')


if __name__ == "__main__":
    main()
