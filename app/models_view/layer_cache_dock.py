"""View ▸ KV cache of this layer: "Next token" for the open causal layer when no model is around it.

An imported layer (File ▸ Import layer…: a GPT-2 block's attention) or preset 06 has no LM head, so its next
token is its next input row (attention.models.layer_cache.LayerCache): the dock starts with row 1 in the cache,
each Next token reads one more row through it, and the KV cache panes (app.models_view.cache_view.CachePanel,
the model dock's) show the cached K and V of the key/value head the Steps' head reads, the new query's
1 × S weight row, and the check against the layer recomputed on every row so far.  Nothing here computes:
the steps and the check run in the engine.  A layer the cache cannot step (not causal, L ≠ S, ...) is said in
words.  Any edit, another document or another batch item starts again from row 1: the dock follows the trace
on screen (traceShown), as View ▸ Token lines does.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QDockWidget, QLabel, QVBoxLayout, QWidget

from app.features import FeatureHost
from app.models_view.cache_view import CachePanel
from app.models_view.page_scroll import PageScroll
from attention import words
from attention.models.errors import ModelError


class LayerCacheDock(QDockWidget):
    """The state line and the KV cache panes."""

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("LayerCacheDock")
        body = QWidget(self)
        self.state = QLabel(body)
        self.state.setWordWrap(True)
        self.state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cache = CachePanel(body)
        for w in (self.cache.mode, self.cache.seed, self.cache.seed_label):  # a layer has no distribution to sample
            w.hide()
        v = QVBoxLayout(body)
        v.addWidget(self.state)
        v.addWidget(self.cache, 1)
        self.setWidget(PageScroll(body))  # a short dock scrolls; its wrapped labels are never cut


class LayerCache(QObject):
    """The dock, its View menu entry, and the LayerCache of the trace on screen."""

    def __init__(self, host: FeatureHost) -> None:
        super().__init__(host.window)
        self.host = host
        self.dock = LayerCacheDock(host.window)
        host.add_dock(self.dock)
        self.dock.hide()
        self.action = self.dock.toggleViewAction()
        host.add_action(self.action, "view", group="layer_cache")
        self.cache = None  # attention.models.layer_cache.LayerCache of `_of`
        self.error: Optional[ModelError] = None
        self._of: Optional[tuple] = None  # (scenario, batch) the cache was made for
        self.dock.cache.nextRequested.connect(self.next_token)
        host.view.traceShown.connect(self.refresh)
        host.view.focusHeadChanged.connect(lambda _h: self.show())
        self.dock.visibilityChanged.connect(lambda visible: visible and self.refresh())
        host.on_language_change(self.retranslate)
        self.retranslate()

    def refresh(self) -> None:
        """Follow the trace on screen: a new scenario or batch item starts again from row 1."""
        if not self.dock.isVisible():
            return  # made when the dock is shown
        result = self.host.last_result()
        key = None if result is None else (result.scenario, result.batch)
        if key is None or self._of is None or key[0] is not self._of[0] or key[1] != self._of[1]:
            self._start(key)
        self.show()

    def _start(self, key: Optional[tuple]) -> None:
        from attention.models.layer_cache import LayerCache as Cache  # torch: loaded once a layer is shown

        self._of, self.cache, self.error = key, None, None
        if key is None:
            return
        try:
            self.cache = Cache(key[0], batch=key[1])
        except ModelError as e:
            self.error = e

    def next_token(self) -> None:
        """Read the next input row through the cache (the engine runs the step and the check)."""
        if self.cache is None or self.cache.done:
            return
        self.cache.next()
        self.show()

    def show(self) -> None:
        lang = words.language()
        panel, c = self.dock.cache, self.cache
        if c is None:
            self.dock.state.setText(self.error.text(lang) if self.error is not None else "")
            panel.show_generation(None, 0, 0, [])
            panel.next_button.setEnabled(False)
            return
        if c.done:
            self.dock.state.setText(words.text("layer_cache.finished", lang, total=c.total))
        else:
            self.dock.state.setText(words.text("layer_cache.state", lang, read=c.read, total=c.total,
                                               next=c.read + 1))
        panel.next_button.setEnabled(not c.done)
        tokens = [c.label(k) for k in range(c.read)]
        panel.show_generation(c, 0, self.host.view.focus_head(), tokens, c.diff)

    def retranslate(self) -> None:
        title = words.text("layer_cache.dock")
        self.dock.setWindowTitle(title)
        self.action.setText(title)
        self.dock.cache.retranslate()
        if self.dock.isVisible():
            self.show()


def install(host: FeatureHost) -> LayerCache:
    return LayerCache(host)
