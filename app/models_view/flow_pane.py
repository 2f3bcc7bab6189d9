"""Model view ▸ Show ▸ Attention flow: the max-flow heatmap beside rollout, drawn in the panel's token x token
heatmap, computed off the GUI thread when it is large, and a cell's explain naming its bottleneck edges.

A view helper of app.models_view.panel.ModelPanel: the numbers and words come from app.viewmodel.flow_view; a map
is kept for the run, sentence, layer and head it was made for (flow_view.key), and one asked for while another is
on its way cancels it.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

from PySide6.QtCore import QObject, Qt, Signal, Slot

from app.services import devices, i18n
from app.viewmodel import flow_view
from attention import words
from attention.datamodel import numbers


class FlowShow(QObject):
    """The flow map of what the panel shows, and the explain of its cells."""

    _arrived = Signal(object, object)  # key, FlowMap (queued from the worker)
    ready = Signal()  # a map is drawn (tests and the window wait for it)

    def __init__(self, panel) -> None:
        super().__init__(panel)
        self.panel = panel
        self.map: Optional[Any] = None  # attention_flow.FlowMap of `self.key`
        self.key: Optional[Any] = None
        self._wanted: Optional[Any] = None  # the key being computed on the worker
        self._stop = threading.Event()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="attention-flow",
                                            initializer=devices.leave_a_core_for_the_gui)
        self._arrived.connect(self._on_arrived, Qt.ConnectionType.QueuedConnection)
        panel.destroyed.connect(lambda *_: self._executor.shutdown(wait=False, cancel_futures=True))

    def busy(self) -> bool:
        return self._wanted is not None

    def show(self) -> None:
        """Draw the flow of the panel's session now (a small map), or start it on the worker (a large one)."""
        s = self.panel.session
        key = flow_view.key(s)
        if key is None:
            return
        if key == self.key and self.map is not None:
            self._draw()
            return
        if key == self._wanted:
            return
        self._stop.set()  # an older map on its way is moot
        if not flow_view.needs_worker(s):
            self._wanted = None
            self.key, self.map = key, flow_view.compute(s)
            self._draw()
            return
        self._stop = stop = threading.Event()
        self._wanted = key
        self.panel.rollout_explain.setText(words.text("flow_busy", i18n.current_language()))
        self.panel.rollout_explain.show()
        work = flow_view.job(s)  # the weights taken now, on the GUI thread

        def run() -> None:
            try:
                result = work(cancelled=stop.is_set)
            except Exception:  # noqa: BLE001 - never leave the panel waiting; the map is simply not drawn
                result = None
            self._arrived.emit(key, result)

        self._executor.submit(run)

    @Slot(object, object)
    def _on_arrived(self, key, result) -> None:
        if key != self._wanted:
            return
        self._wanted = None
        if result is None:
            return
        self.key, self.map = key, result
        if self.panel.showing_flow() and flow_view.key(self.panel.session) == key:
            self._draw()

    def _draw(self) -> None:
        p = self.panel
        p.rollout.set_weights(flow_view.heatmap(p.session, self.map)[None, None])
        p.rollout_explain.clear()
        p.rollout_explain.hide()
        self.ready.emit()

    def current(self) -> bool:
        return self.map is not None and self.key == flow_view.key(self.panel.session)

    def describe(self, q: int, k: int) -> str:
        s = self.panel.session
        if s is None or not self.current():
            return ""
        from app.viewmodel import rollout_view

        toks = s.labels()
        i, j = rollout_view.cell(s, q, k)
        return words.text("flow_hover", i18n.current_language(), layer=numbers.position(s.layer), query=toks[i],
                          key=toks[j], v=numbers.rounded(float(self.map.flow[i, j])))

    def explain(self, q: int, k: int) -> None:
        if not self.current():
            return
        lines = flow_view.explain(self.panel.session, self.map, q, k, i18n.current_language())
        self.panel.rollout_explain.setText("\n".join(lines))
        self.panel.rollout_explain.show()
