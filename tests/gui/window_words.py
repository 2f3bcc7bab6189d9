"""Every word the window shows, gathered as a person would read it, and the English words among the Chinese ones.

`window_texts(window)` walks every widget of the window (labels, buttons, tabs, combo items, group titles, dock
titles, tooltips, status tips, placeholder texts), every menu entry (text, tooltip, status tip) and every step
pane's graphics (axis titles, heatmap titles, the texts painted in the cells, colour-bar ticks).  Each text comes
with where it was found.  `english(text, data)` returns the Latin-letter words of a Chinese text that are words a
person reads, not symbols: it leaves out

- symbols and identifiers (one or two letters, anything with a digit, an underscore, a dot or brackets inside:
  ``x``, ``d_model``, ``W_q``, ``L1``, ``torch.roll``, ``q[0]``), placeholders never filled, file names;
- the data on screen (`data`: the scenario's tokens and the model's sentences: "the cat sat" is what was typed);
- NAMES: proper names of papers, libraries, models, file formats and functions, written the same in Chinese
  (Informer, Time-Series-Library, softmax, RoPE, JSON).

What is left is an English word in the Chinese window (issue 30: "lag", "seg*factor", "capped", T/F).
"""
from __future__ import annotations

import html
import re
from typing import Iterable, Iterator

from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDockWidget,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTabBar,
    QTabWidget,
    QTextEdit,
    QWidget,
)

#: proper names (papers, libraries, models, products, file formats), function and module names, symbols and key
#: names that a Chinese text writes as they are; compared without case ("Softmax 权重" on a chip is softmax)
NAMES = frozenset(w.lower() for w in """
softmax tanh exp log ln max min sqrt sin cos erf argmax topk mean var std sum irfft rfft conj ceil mod int
dropout logit eps
RoPE ALiBi ProbSparse Informer Informer2020 Autoformer Crossformer Pyraformer PatchTST iTransformer Transformer
FEDformer Non-stationary DSAttention Time-Series-Library TSL BERT BertViz GPT GPT-NeoX GPT-J Llama Qwen Gemma
Mistral Phi BLOOM Falcon PaLM MiniLM SmolLM2 glassllm all-MiniLM-L6-v2 Meta RoFormer gpt-oss Abnar Zuidema
GGUF JSON CSV PNG SVG HTML PDF NaN inf Unicode FIFO GiB MiB KiB Excel LibreOffice Google
FlashAttention AttentionLayer FullAttention ProbAttention AutoCorrelation AutoCorrelationLayer EncoderLayer
DecoderLayer ConvLayer TwoStageAttentionLayer LayerNorm BatchNorm RMSNorm GELU ELU ReLU MLP FFN FFT QK-norm
d2l torch numpy pip Python PyTorch transformers llama.cpp safetensors Hugging Face Apache MIT
KV QK RMS CLS SEP PAD UNK BOS EOS float32 float64 dtype CUDA CPU GPU
Esc Ctrl Shift Alt Tab Enter Delete Page Up Down Home End Space F5
True False None null
English
""".split())

_TAGS = re.compile(r"<[^>]+>")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_SHAPE = re.compile(r"\([^()]*\)\s*=\s*\([\d,\s]*\)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.\-'’]*")
#: code as written: a dotted call ("torch.roll(V, -lag)", "module.eval()"), a keyword argument ("tau=None")
_CODE_CALL = re.compile(r"\b\w+(\.\w+)+\([^()]*\)|\b\w+=\w+")
#: a cell of the trace as code writes it, indices from 0: "scores[0, 0, 0, 1]", "queries[0][2]" (the Explain panel's
#: heading, a problem's path: what `main.py explain FILE scores 0 0 0 1` and the trace file name)
_TRACE_PATH = re.compile(r"\b[A-Za-z_.]+(\[\d+(,\s*\d+)*\])+")
#: the window's own annotation of a step by its id: "缩放后的分数  (scores)" (the quiz menu, the export chooser)
_ID_NOTE = re.compile(r"  \([a-z_.0-9]+\)(?=\s|$)")


def plain(text: str) -> str:
    """Rich text as read: tags out, entities decoded, the mnemonic's & out."""
    text = _TAGS.sub(" ", text.replace("<br>", "\n"))
    return html.unescape(text).replace("&", "")


def _known(word: str, data_words: set[str]) -> bool:
    parts = [p for p in re.split(r"[-'’]", word) if p]
    return word.lower() in NAMES or all(p.lower() in NAMES or p.lower() in data_words or len(p) <= 2 for p in parts)


def english(text: str, data: Iterable[str] = ()) -> list[str]:
    """The English words of `text` (see the module's docstring for what is not one).  A word right before "[" names
    a tensor ("scores[b,h,l,s]", "capped[...]"): a Chinese formula names it in Chinese ("分数[b,h,l,s]"); a word
    right before "(" is a function ("dropout(输出)", "normal(0, 1)") and stays."""
    data_words = {w.lower() for d in data for w in re.findall(r"[A-Za-z]+", d)}
    t = _PLACEHOLDER.sub(" ", plain(text))
    t = _SHAPE.sub(" ", t)  # a tensor's shape in the trace's own dim names: "(B, H, dk, lag) = (1, 1, 2, 24)"
    t = re.sub(r"\S+\.(py|json|npz|gguf|pt|pth|bin|ckpt|safetensors|qm|csv|png|svg|html|md|txt)\b", " ", t)
    t = re.sub(r"[^\s（）()]*/[^\s（）()]*", " ", t)  # a path, a size pair "K/V"
    t = re.sub(r"pip install [^，。；\n]*", " ", t)  # a command to type
    t = re.sub(r"--[a-z][a-z-]*", " ", t)  # a command-line flag
    t = _ID_NOTE.sub(" ", _CODE_CALL.sub(" ", _TRACE_PATH.sub(" ", t)))
    found = []
    for m in _WORD.finditer(t):
        if t[max(0, m.start() - 1):m.start()] in (".", "_"):
            continue  # the tail of an identifier
        head = m.group(0).rstrip(".-'’")
        after = t[m.start() + len(head):m.start() + len(head) + 1]
        if after == "(" or len(head) <= 2 or re.search(r"[\d_.]", head) or re.search(r"[a-z][A-Z]", head):
            continue  # a function, a symbol, an identifier (d_model, torch.roll, AdditiveAttention)
        if head.lower() in data_words or _known(head, data_words):
            continue
        if t[m.start() + len(head):m.start() + len(head) + 1] == "…" and any(
                d.startswith(head.lower()) for d in data_words):
            continue  # a token cut short on a tick ("atten…" of "attention")
        found.append(head)
    return found


def widget_texts(w: QWidget) -> Iterator[tuple[str, str]]:
    kind = type(w).__name__
    if isinstance(w, QLabel):
        yield f"{kind} text", w.text()
    if isinstance(w, QAbstractButton):
        yield f"{kind} text", w.text()
    if isinstance(w, QGroupBox):
        yield f"{kind} title", w.title()
    if isinstance(w, QDockWidget):
        yield f"{kind} title", w.windowTitle()
    if isinstance(w, QComboBox):
        for i in range(w.count()):
            yield f"{kind} item {i + 1}", w.itemText(i)
            tip = w.itemData(i, 3)  # Qt.ToolTipRole
            if isinstance(tip, str):
                yield f"{kind} item {i + 1} tooltip", tip
    if isinstance(w, QTabBar):
        for i in range(w.count()):
            yield f"{kind} tab {i + 1}", w.tabText(i)
            yield f"{kind} tab {i + 1} tooltip", w.tabToolTip(i)
    if isinstance(w, QTabWidget):
        for i in range(w.count()):
            yield f"{kind} tab {i + 1}", w.tabText(i)
    if isinstance(w, QLineEdit):
        yield f"{kind} placeholder", w.placeholderText()
    if isinstance(w, (QPlainTextEdit, QTextEdit)):
        yield f"{kind} placeholder", w.placeholderText()
        if w.isReadOnly():
            yield f"{kind} text", w.toPlainText()
    yield f"{kind} tooltip", w.toolTip()
    yield f"{kind} status tip", w.statusTip()
    yield f"{kind} what's this", w.whatsThis()


def _menu_texts(menu: QMenu, path: str) -> Iterator[tuple[str, str]]:
    yield f"{path} (title)", menu.title()
    for a in menu.actions():
        if a.isSeparator() or not a.isVisible():
            continue
        where = f"{path} ▸ {plain(a.text())}"
        yield where, a.text()
        yield f"{where} tooltip", a.toolTip()
        yield f"{where} status tip", a.statusTip()
        if a.menu() is not None:
            yield from _menu_texts(a.menu(), where)


def _pane_texts(view) -> Iterator[tuple[str, str]]:
    """A step pane's graphics: axis titles, heatmap titles, painted cell texts, colour-bar ticks."""
    import pyqtgraph as pg

    from app.panes.cell_overlay import CellOverlay

    for sid in view.pane_ids():
        pane = view.pane(sid)
        for item in pane.canvas.scene().items():
            if isinstance(item, pg.AxisItem):
                yield f"pane {sid}: axis title", item.labelText or ""
                ticks = getattr(item, "_tickLevels", None)
                for level in ticks or []:
                    for _, label in level:
                        yield f"pane {sid}: tick", str(label)
            elif isinstance(item, pg.LabelItem):
                yield f"pane {sid}: title", item.text or ""
            elif isinstance(item, pg.TextItem):
                yield f"pane {sid}: text", item.toPlainText()
            elif isinstance(item, CellOverlay):
                for label in (item.labels() or [])[:64]:
                    yield f"pane {sid}: cell", label


def window_texts(window) -> list[tuple[str, str]]:
    """(where, text) for every text the window shows now, and every menu entry's (empty texts left out)."""
    for sid in window.view.pane_ids():
        window.view.pane(sid)  # a pane out of sight is drawn when scrolled to: read it as a person will see it
    out: list[tuple[str, str]] = [("window title", window.windowTitle())]
    for w in window.findChildren(QWidget):
        if not w.isVisible():
            continue  # hidden (a dock closed, a picker a model does not use): its words are set when it shows
        name = w.objectName() or type(w).__name__
        out += [(f"{name}: {where}", t) for where, t in widget_texts(w)]
    for a in window.menuBar().actions():
        if a.menu() is not None:
            out += list(_menu_texts(a.menu(), plain(a.text())))
    out += list(_pane_texts(window.view))
    return [(where, t) for where, t in out if t and t.strip()]


def scenario_data(sc) -> list[str]:
    """The data a scenario shows as text: its tokens and time labels (typed or read, never translated)."""
    data: list[str] = []
    for name in ("tokens", "query_tokens", "key_tokens"):
        value = getattr(sc, name, None)
        if value:
            data += [str(t) for row in value for t in (row if isinstance(row, (list, tuple)) else [row])]
    return data


def step_ids_named(text: str, ids: Iterable[str]) -> list[str]:
    """The step ids `text` names in its prose ("extra.mean_correlation 在滞后 0 处"): a person reads a step by the
    words on its chip.  An id in the window's own annotation form, "Title  (id)" (the quiz menu, the export
    chooser), names the id on purpose and is left out."""
    t = plain(text)
    found = []
    for sid in ids:
        for m in re.finditer(rf"(?<![\w.]){re.escape(sid)}(?![\w.])", t):
            note = t[max(0, m.start() - 3):m.start()] == "  (" and t[m.end():m.end() + 1] == ")"
            code = re.match(r"\[\d", t[m.end():m.end() + 2]) is not None  # a trace path: scores[0, 1, 2, 0]
            if not (note or code):
                found.append(sid)
                break
    return found


def all_preset_data() -> set[str]:
    """Every token of every preset (the data a preset's title may quote: "the cat sat on the mat")."""
    import resources
    from attention.files import scenario_io

    data: set[str] = set()
    for path, _ in resources.list_presets():
        data.update(scenario_data(scenario_io.load(path)))
    return data
