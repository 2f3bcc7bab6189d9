"""Knock heads out in the window: the grid's right-click menu, undo, the Heads panel and the importance map.

Wired by `install(tools)` (app.models_view.tools.ModelTools):
- right-click a cell of the model-view grid → Knock out this head (zero) / (mean over the positions) / Patch this
  head from the second prompt / Put this head back / Put every head back / Open this head;
- each is one undo step (the document's QUndoStack, through ModelTools._push: the model view's state, with the
  session's edits, travels with the document's scenario): the altered model runs again (on the worker for a
  model the size of SmolLM2), the grid shows its weights and marks the altered heads, the open layer's steps
  read the altered hidden states, the window title says the model is altered, and the Heads panel shows the
  next-token top 10 before → after with the chosen token's change (an encoder: its output states);
- Head-importance map / Patching map: every head alone, on a thread of its own with a progress bar and Cancel,
  drawn over the grid (each cell one colour of its value; a click opens that head).
The numbers come from attention.models.head_edits / head_map through app.viewmodel.head_view; nothing is computed
here.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

import numpy as np
from PySide6.QtCore import QObject, QPoint, Qt, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from app.models_view.heads_panel import HeadsPanel
from app.services import devices, i18n
from app.viewmodel import head_view
from attention import words
from attention.datamodel import numbers
from attention.models.errors import ModelError


def _lang() -> str:
    return i18n.current_language()


class HeadTools(QObject):
    _progress = Signal(int, int, int)  # map run, done, total (queued from the worker)
    _finished = Signal(int, object, object)  # map run, HeadMap or None, error or None (queued)
    mapReady = Signal()  # the map is drawn over the grid
    mapStopped = Signal()  # the map ended without a result (cancelled, or refused)

    def __init__(self, tools) -> None:
        super().__init__(tools)
        self.tools = tools
        self.panel = HeadsPanel()
        dock = tools.panel
        # below the grid (and the rollout's explain), above the KV cache: above it, the hint and the second prompt
        # pushed the grid itself below the fold of a 720-px dock
        dock.insert_on_page(self.panel, before=dock.cache)
        self.panel.hide()
        self.menu: Optional[QMenu] = None  # the last right-click menu (kept: its actions belong to it)
        self.map: Optional[Any] = None  # head_map.HeadMap drawn over the grid
        self._map_key: Optional[Any] = None  # the run it belongs to
        self._run = 0  # which map run is the current one
        self._stop = threading.Event()
        self._started = 0.0
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="head-map",
                                            initializer=devices.leave_a_core_for_the_gui)
        self._progress.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)
        self._finished.connect(self._on_finished, Qt.ConnectionType.QueuedConnection)
        dock.grid.cellMenu.connect(self.open_menu)
        dock.refreshed.connect(self.refresh)
        self.panel.secondEdited.connect(self.set_second)
        self.panel.mapRequested.connect(self.start_map)
        self.panel.cancelRequested.connect(self.cancel_map)
        self.panel.mapClosed.connect(self.close_map)
        tools.window.destroyed.connect(lambda *_: self._shutdown())

    def _shutdown(self) -> None:
        self._stop.set()
        self._executor.shutdown(wait=False, cancel_futures=True)

    @property
    def session(self):
        return self.tools.session

    # ---- the right-click menu -------------------------------------------------------------------------------
    def menu_for(self, layer: int, head: int) -> QMenu:
        """The menu of grid cell (layer, head) (from 0)."""
        s = self.session
        lang = _lang()
        menu = QMenu(self.tools.panel.grid)
        edits = s.edits if s is not None else ()
        for how, key in (("zero", "heads_menu_zero"), ("mean", "heads_menu_mean"), ("patch", "heads_menu_patch")):
            a = menu.addAction(words.text(key, lang))
            a.triggered.connect(lambda _c=False, how=how: self.apply(head_view.with_edit(edits, layer, head, how)))
            if how == "patch" and not self._second_fits():
                a.setEnabled(False)
                a.setToolTip(words.text("heads_menu_patch_tip", lang))
        menu.setToolTipsVisible(True)
        menu.addSeparator()
        back = menu.addAction(words.text("heads_menu_restore", lang))
        back.setEnabled(head_view.edit_of(edits, layer, head) is not None)
        back.triggered.connect(lambda: self.apply(head_view.without(edits, layer, head)))
        clear = menu.addAction(words.text("heads_menu_clear", lang))
        clear.setEnabled(bool(edits))
        clear.triggered.connect(lambda: self.apply(()))
        menu.addSeparator()
        opened: QAction = menu.addAction(words.text("heads_menu_open", lang))
        opened.triggered.connect(lambda: self.tools.open_head(layer, head))
        return menu

    def open_menu(self, layer: int, head: int, where: QPoint) -> None:
        s = self.session
        if s is None or s.run is None:
            return
        if self.menu is not None:
            self.menu.deleteLater()
        self.menu = self.menu_for(layer, head)
        self.menu.exec(where)

    def _second_fits(self) -> bool:
        """Whether the second prompt has the prompt's number of tokens (patching needs it)."""
        s = self.session
        if s is None or s.run is None or not s.second.strip():
            return False
        if getattr(s, "is_decoder", False):
            return len(s.model.encode(s.second)) == len(s.run.ids)
        return len(s.run.batch.tokens) == 1 and len(s.tokenizer.encode(s.second).ids) == s.run.batch.L

    # ---- an edit: one undo step -----------------------------------------------------------------------------------
    def apply(self, edits: tuple, second: Optional[str] = None) -> None:
        """The model with `edits` (and the second prompt `second`): run again and shown as one undo step."""
        t, s = self.tools, self.session
        if s is None or s.run is None:
            return
        second = s.second if second is None else second
        if tuple(edits) == tuple(s.edits) and second == s.second:
            return
        before = t._state()
        old = (s.edits, s.second)
        text = head_view.undo_text(tuple(edits), tuple(s.edits), _lang()) if edits != s.edits else \
            words.text("heads_second_label", _lang()).rstrip(":：")
        s.edits, s.second = tuple(edits), second
        t.generation += 1  # a run of the model before this edit is moot now
        gen = t.generation
        ids, text_run = (list(s.run.ids), s.run.batch.sentences[0]) if getattr(s, "is_decoder", False) else (None, None)
        sentences = s.run.batch.sentences

        def work():
            return s.run_ids(ids, text_run) if ids is not None else s.compute(sentences)

        def done(run, error) -> None:
            if gen != t.generation or t.session is not s:
                return
            if error is not None:
                s.edits, s.second = old
                t.panel.show_problem(error)
                self.refresh()
                return
            s.accept(run)
            t.panel.show_problem(None)
            t.panel.refresh()
            if t.attached:
                t._push(s.scenario(), text, before)
            else:
                t._show_caption()

        if getattr(s, "sync_tokens", 1) == 0:  # a model the size of SmolLM2: on the worker
            t._set_busy(+1)

            def finish(run, error) -> None:
                t._set_busy(-1)
                done(run, error)

            t._background(work, finish, s.label)
            return
        try:
            run, error = work(), None
        except ModelError as e:
            run, error = None, e
        done(run, error)

    def set_second(self, text: str) -> None:
        """The second prompt: with patched heads the model runs again (an undo step); else it is only kept."""
        s = self.session
        if s is None or text == s.second:
            return
        if any(e.how == "patch" for e in s.edits):
            self.apply(s.edits, text)
            return
        s.second = text
        self.refresh()

    # ---- the panel and the grid follow the session ----------------------------------------------------------------
    def refresh(self) -> None:
        s = self.session
        dock = self.tools.panel
        self.panel.setVisible(s is not None)
        if s is None:
            return
        lang = _lang()
        dock.grid.set_marks(head_view.marks(s))
        self.panel.show_lines(head_view.lines(s, lang))
        self.panel.set_second(s.second, head_view.second_count(s, lang))
        decoder = getattr(s, "is_decoder", False)
        self.panel.map_button.setVisible(decoder)
        self.panel.patch_button.setVisible(decoder)
        if s.edits and decoder:
            dock.cache.next_button.setEnabled(False)
            dock.cache.next_button.setToolTip(words.text("heads_next_locked", lang))
        elif decoder and not self.tools._stepping:
            dock.cache.next_button.setEnabled(True)
        if self.map is not None and self._map_key != self._key():
            self.close_map()  # the map was made for another run
        elif self.map is not None:
            self._draw_map()

    def _key(self):
        s = self.session
        return None if s is None or s.run is None else (id(s), s.run_key(s.run))

    # ---- the importance map ---------------------------------------------------------------------------------------
    def start_map(self, kind: str) -> None:
        """Every head alone on the worker (kind "knock": zeroed; "patch": from the second prompt)."""
        from attention.models import head_map
        from attention.models.head_edits import Cancelled

        s = self.session
        if s is None or s.run is None or not getattr(s, "is_decoder", False):
            return
        lang = _lang()
        patch_ids = None
        if kind == "patch":
            if not self._second_fits():
                self.panel.show_status(words.text("heads_patch_missing", lang) if not s.second.strip() else
                                       words.text("heads_patch_length", lang, n=len(s.run.ids),
                                                  m=len(s.model.encode(s.second))))
                self.mapStopped.emit()
                return
            patch_ids = s.model.encode(s.second)
        self._stop.set()
        self._stop = stop = threading.Event()
        self._run += 1
        run = self._run
        key = self._key()
        engine = bool(getattr(s, "engine_layers", True))
        model, ids = s.model, list(s.run.ids)
        total = s.n_layers * s.n_heads
        self.panel.set_running(True, 0, total)
        self._started = time.perf_counter()

        def work() -> None:
            try:
                m = head_map.sweep(model, ids, kind, engine=engine, patch_ids=patch_ids,
                                   progress=lambda d, n: self._progress.emit(run, d, n), cancelled=stop.is_set)
                self._finished.emit(run, (key, m), None)
            except Cancelled:
                self._finished.emit(run, None, None)
            except ModelError as e:
                self._finished.emit(run, None, e)
            except Exception as e:  # noqa: BLE001 - the window says why instead of waiting for ever
                detail = (str(e).strip().splitlines() or [""])[0][:200]
                self._finished.emit(run, None, ModelError("gguf_unexpected", name=s.label, kind=type(e).__name__,
                                                          detail=detail))

        self._executor.submit(work)

    def is_running(self) -> bool:
        return self.panel.cancel.isVisible()

    def cancel_map(self) -> None:
        self._stop.set()

    @Slot(int, int, int)
    def _on_progress(self, run: int, done: int, total: int) -> None:
        if run == self._run and not self._stop.is_set():
            self.panel.set_running(True, done, total)

    @Slot(int, object, object)
    def _on_finished(self, run: int, result, error) -> None:
        if run != self._run:
            return
        self.panel.set_running(False)
        lang = _lang()
        if result is None:  # cancelled (head_edits.Cancelled), or refused with `error`
            self.panel.show_status(error.text(lang) if error is not None else words.text("heads_map_cancelled", lang))
            self.mapStopped.emit()
            return
        key, m = result
        if key != self._key():
            self.panel.show_status("")
            self.mapStopped.emit()
            return  # made for a run no longer shown
        self.map, self._map_key = m, key
        self.panel.show_status(words.text("heads_map_done", lang, n=m.values.size,
                                          s=numbers.rounded(time.perf_counter() - self._started)))
        self._draw_map()
        self.mapReady.emit()

    def _draw_map(self) -> None:
        from app.panes import colormaps

        m, grid, lang = self.map, self.tools.panel.grid, _lang()
        v = m.values
        top = float(np.abs(v).max()) or 1.0
        lut = colormaps.palette("signed").lut.astype(np.uint32)
        idx = np.clip(np.rint((v / top + 1.0) * 127.5), 0, 255).astype(int)
        colours = 0xFF000000 | (lut[idx, 0] << 16) | (lut[idx, 1] << 8) | lut[idx, 2]
        texts = {(k, h): numbers.rounded(float(v[k, h]), 2) for k in range(v.shape[0]) for h in range(v.shape[1])}
        grid.set_overlay(colours, texts)
        if m.kind == "knock":
            title = words.text("heads_map_knock_title", lang, token=m.chosen[1])
        else:
            (_, a), (_, b) = m.answers
            title = words.text("heads_map_patch_title", lang, a=a, b=b)
        self.panel.show_map_title(title)
        grid.describe = lambda layer, head, _q, _k: words.text(
            "heads_map_hover", _lang(), layer=layer + 1, head=head + 1, v=numbers.rounded(float(self.map.values[
                layer, head])))

    def close_map(self) -> None:
        """Back to the attention grid."""
        dock = self.tools.panel
        self.map, self._map_key = None, None
        dock.grid.set_overlay(None)
        dock.grid.describe = dock._describe
        self.panel.show_map_title("")


def install(tools) -> HeadTools:
    tools.heads = HeadTools(tools)
    return tools.heads
