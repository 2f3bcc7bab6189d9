"""A by-hand worksheet of FlashAttention's tiles and its answer key: two self-contained HTML pages.

The worksheet gives what a student needs to start (the masked scores of one head, the tiles
outlined, and the values v) and, per tile in FlashAttention-2 order, an empty table of the running
values to work out: per query row of the tile, m_old, the tile's row maximum, m_new, the
correction exp(m_old − m_new), ℓ and every column of O; then the output O / ℓ.  A skipped tile says
so (that is structure, not an answer).  The answer key is the same page with every cell filled in
from the walk (attention/teaching/tiles.py).  Reached from `python main.py tiles FILE --blank --out DIR`.
"""
from __future__ import annotations

import html
from pathlib import Path

import numpy as np

import attention.words as words
from attention.datamodel import numbers
from attention.teaching.tiles import Tiled

WORKSHEET_NAME = "tiles_worksheet.html"
KEY_NAME = "tiles_answer_key.html"

_STYLE = """
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; margin: 0.4em 0 1.2em 0; }
th, td { border: 1px solid #888; padding: 0.25em 0.6em; min-width: 4.5em; text-align: right; }
th { background: #eee; }
td.tile-edge-left { border-left: 3px solid #222; }
td.tile-edge-top { border-top: 3px solid #222; }
td.masked { color: #999; background: #f3f3f3; }
p.skipped { color: #666; font-style: italic; }
"""


def _cell(value: float, answers: bool) -> str:
    return f"<td>{html.escape(numbers.rounded(value)) if answers else '&nbsp;'}</td>"


def _scores_table(result: Tiled, scores: np.ndarray, mask: np.ndarray, lang: str) -> str:
    """The masked scores of the head, tile edges drawn thick (given on both pages)."""
    L, S = scores.shape
    row_starts = {t.rows[0] for t in result.tiles}
    col_starts = {t.cols[0] for t in result.tiles}
    head = "".join(f"<th>{words.text('tiles.sheet.key', lang, s=s + 1)}</th>" for s in range(S))
    body = []
    for r in range(L):
        cells = []
        for s in range(S):
            cls = [c for c, on in (("tile-edge-left", s in col_starts and s), ("tile-edge-top", r in row_starts and r),
                                   ("masked", mask[r, s])) if on]
            attr = f' class="{" ".join(cls)}"' if cls else ""
            cells.append(f"<td{attr}>{html.escape(numbers.rounded(scores[r, s]))}</td>")
        body.append(f"<tr><th>{words.text('tiles.sheet.query', lang, r=r + 1)}</th>{''.join(cells)}</tr>")
    return f"<table><tr><th></th>{head}</tr>{''.join(body)}</table>"


def _values_table(values: np.ndarray, lang: str) -> str:
    S, D = values.shape
    head = "".join(f"<th>v[{d + 1}]</th>" for d in range(D))
    body = "".join(f"<tr><th>{words.text('tiles.sheet.key', lang, s=s + 1)}</th>"
                   + "".join(f"<td>{html.escape(numbers.rounded(x))}</td>" for x in values[s]) + "</tr>"
                   for s in range(S))
    return f"<table><tr><th></th>{head}</tr>{body}</table>"


def _tile_table(tile, b: int, h: int, answers: bool, lang: str) -> str:
    D = tile.O_new.shape[-1]
    cols = ["m_old", words.text("tiles.sheet.block_max", lang), "m_new", "exp(m_old − m_new)", "ℓ"]
    cols += [f"O[{d + 1}]" for d in range(D)]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = []
    for i, r in enumerate(range(*tile.rows)):
        block_max = float(tile.scores[b, h, i].max())
        vals = [tile.m_old[b, h, i], block_max, tile.m_new[b, h, i], tile.correction[b, h, i], tile.l_new[b, h, i],
                *tile.O_new[b, h, i]]
        body.append(f"<tr><th>{words.text('tiles.sheet.query', lang, r=r + 1)}</th>"
                    + "".join(_cell(float(v), answers) for v in vals) + "</tr>")
    return f"<table><tr><th></th>{head}</tr>{''.join(body)}</table>"


def page(result: Tiled, trace, b: int, h: int, answers: bool, lang: str) -> str:
    """One page: the worksheet (answers False) or its answer key (True), in `lang`."""
    t = lambda key, **a: html.escape(words.text(key, lang, **a))  # noqa: E731
    title = t("tiles.sheet.key_title" if answers else "tiles.sheet.title", b=b + 1, h=h + 1)
    scores = trace.array("masked_scores")[b, h]
    L, S = scores.shape
    mask = trace.array("extra.mask")[b] if "extra.mask" in trace else np.zeros((L, S), dtype=bool)
    parts = [f"<h1>{title}</h1>", f"<p>{t('tiles.sheet.intro')}</p>",
             f"<p>{t('tiles.header', br=result.block_q, bc=result.block_k, nq=result.n_q, nk=result.n_k)}</p>",
             f"<h2>{t('tiles.sheet.scores')}</h2>", _scores_table(result, scores, mask, lang),
             f"<h2>{t('tiles.sheet.values')}</h2>", _values_table(result.values[b, h], lang),
             f"<p>{t('tiles.explain.m.formula')}<br>{t('tiles.explain.l.formula')}<br>"
             f"{t('tiles.explain.O.formula')}</p>"]
    for tile in result.tiles:
        parts.append("<h3>" + t("tiles.tile", b=b + 1, h=h + 1, n=tile.order + 1, total=len(result.tiles),
                                i=tile.q_block + 1, j=tile.k_block + 1, rows=numbers.span(*tile.rows),
                                cols=numbers.span(*tile.cols)) + "</h3>")
        if tile.skipped[b, h]:
            parts.append(f'<p class="skipped">{t("tiles.skipped")}</p>')
            continue
        parts.append(_tile_table(tile, b, h, answers, lang))
    D = result.output.shape[-1]
    head = "".join(f"<th>O / ℓ [{d + 1}]</th>" for d in range(D))
    rows = "".join(f"<tr><th>{t('tiles.sheet.query', r=r + 1)}</th>"
                   + "".join(_cell(float(x), answers) for x in result.output[b, h, r]) + "</tr>" for r in range(L))
    parts += [f"<h2>{t('tiles.sheet.output')}</h2>", f"<table><tr><th></th>{head}</tr>{rows}</table>"]
    from attention.files.out_guard import WORKSHEET_MARK  # what says "ours" when a later write meets the page

    return (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">{WORKSHEET_MARK}<title>{title}</title>'
            f"<style>{_STYLE}</style></head><body>{''.join(parts)}</body></html>")


def write(result: Tiled, trace, folder: Path, b: int, h: int, lang: str) -> list[Path]:
    """Write the worksheet and its answer key into `folder` (made if missing); their paths."""
    from attention.files import safe_write

    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, answers in ((WORKSHEET_NAME, False), (KEY_NAME, True)):
        path = folder / name  # a name this command chose: never written through a link (attention/out_guard.py)
        safe_write.write_atomic(path, [page(result, trace, b, h, answers, lang)], follow_links=False)
        out.append(path)
    return out
