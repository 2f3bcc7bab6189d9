"""View ▸ Lock all colour scales: every pane keeps the colour scale it has now while a class edits
numbers (a lesson's colours then keep their meaning from one edit to the next).  Wired in by one
call, `install(host)` (app.features).

The choice is remembered in the settings (app/services/settings.py), so a teacher who locks the
scales for a lesson finds them locked at the next start: each pane is then locked as it is first
drawn.  One pane's lock is its own: its header button and right-click menu (app/panes/scale_lock.py).
"""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from app.features import FeatureHost


class ScaleLocks(QObject):
    def __init__(self, host: FeatureHost) -> None:
        super().__init__(host.window)
        self.settings = host.settings
        self.view = host.view
        self.action = QAction(self)
        self.action.setCheckable(True)
        self.action.setChecked(host.settings.lock_all_scales())
        self.view.set_lock_all(self.action.isChecked())
        self.action.toggled.connect(self._set)
        host.add_action(self.action, "view", group="scales")
        host.on_language_change(self.retranslate)
        self.retranslate()

    def _set(self, on: bool) -> None:
        self.view.set_lock_all(on)
        self.settings.set_lock_all_scales(on)

    def retranslate(self) -> None:
        self.action.setText(self.tr("Lock all colour scales"))
        self.action.setStatusTip(self.tr("Keep every pane's colours as they are now while numbers are edited"))


def install(host: FeatureHost) -> ScaleLocks:
    """Add View ▸ Lock all colour scales to the host's window; returns its controller."""
    return ScaleLocks(host)
