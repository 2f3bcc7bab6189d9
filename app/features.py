"""How a feature joins the window: one typed interface, `FeatureHost`, instead of the window's attributes.

A feature (presentation mode, Explain / Compare / Quiz, the handout export, ...) is a module with

    def install(host: FeatureHost) -> SomeController: ...

which MainWindow calls once, in `MainWindow._install_features` (add one line there for a new
feature).  Everything the feature may use of the window comes through the host:

- placing its actions: `host.add_action(action, "view", group="compare", toolbar=True)` puts an
  action in a menu ("file", "edit", "view"), at the end of a named group of that menu (a new
  group gets its own separator; File's "quit" group stays last), optionally on the window's
  toolbar, and makes its shortcut work anywhere in the window; `host.add_menu(submenu, "view",
  group="quiz")` places a submenu, `host.add_dock(widget)` a dock;
- the model: `host.document` (edits go through its undo stack), `host.recompute` (`ready`,
  `failed`), `host.view` (the StepsView), `host.inputs` (the batch item), `host.last_result()`;
- preferences only through `host.settings`: typed accessors in app/services/settings.py (add one
  there for a new preference; a test keeps QSettings out of every other module);
- telling the person: `host.status(text)`, `host.show_messages(title, lines)`,
  `host.show_error(line)`; writing a file: `host.run_export(write, path)` (an OSError or a
  ValueError becomes a message), `host.ask_save_path(...)`, `host.dialog_dir()`;
- words: `host.on_language_change(callback)`: called each time the window re-words itself.

The window's own groups: File "open" (New, Open, presets, recent), "save", "export", "quit";
Edit "undo", "clipboard"; View "language".  tests/gui/test_features.py installs a feature the
way a new one would and triggers its action from the menu, the toolbar and the shortcut.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional, Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QToolBar

if TYPE_CHECKING:  # pragma: no cover - types only
    from app.editing.inputs_panel import InputsPanel
    from app.panes.steps_view import StepsView
    from app.pipeline.document import Document
    from app.pipeline.recompute import Recomputer
    from app.services.settings import Settings
    from attention import Scenario, Trace


@dataclass(frozen=True)
class Result:
    """The last trace the engine delivered, the scenario it was computed from, and the batch
    item the window shows of it."""

    trace: "Trace"
    scenario: "Scenario"
    batch: int


class Feature(Protocol):
    """What MainWindow calls: a module (or object) with `install(host)`."""

    def install(self, host: "FeatureHost") -> object: ...


class _MenuGroups:
    """Named groups of one menu, separated; a new group goes to the end, before the `last` one."""

    def __init__(self, menu: QMenu, groups: dict[str, list[QAction]], last: Optional[str] = None) -> None:
        self.menu, self.groups, self.last = menu, {k: list(v) for k, v in groups.items()}, last

    def add(self, action: QAction, group: str) -> None:
        items = self.groups.get(group)
        if items:
            menu_items = self.menu.actions()
            i = menu_items.index(items[-1]) if items[-1] in menu_items else len(menu_items) - 1
            before = menu_items[i + 1] if i + 1 < len(menu_items) else None
            self.menu.insertAction(before, action)
            items.append(action)
            return
        tail = self.groups.get(self.last or "")
        if tail and tail[0] in self.menu.actions():
            self.menu.insertAction(tail[0], action)
            self.menu.insertSeparator(tail[0])
        else:
            if self.menu.actions():
                self.menu.addSeparator()
            self.menu.addAction(action)
        self.groups[group] = [action]


@dataclass(eq=False)
class FeatureHost:
    """The window, as far as a feature may use it (see the module docstring)."""

    window: QMainWindow  # parent of a feature's dialogs, docks and windows
    document: "Document"
    recompute: "Recomputer"
    view: "StepsView"
    inputs: "InputsPanel"
    settings: "Settings"
    toolbar: QToolBar
    undo_action: QAction
    redo_action: QAction
    last_result: Callable[[], Optional[Result]]
    status: Callable[[str], None]
    show_messages: Callable[[str, list[str]], None]
    show_error: Callable[[str], None]
    run_export: Callable[[Callable[[], object], str], bool]
    ask_save_path: Callable[[str, str, str], Optional[str]]
    dialog_dir: Callable[[], str]
    #: the quiz (app.teaching.quiz.Quiz) once installed: slides and exports ask it what is hidden
    quiz: Optional[object] = None
    _menus: dict[str, _MenuGroups] = field(default_factory=dict)
    _retranslators: list[Callable[[], None]] = field(default_factory=list)
    _toolbar_used: bool = False

    # ---- placing things ------------------------------------------------------------------------
    def register_menu(self, name: str, menu: QMenu, groups: dict[str, list[QAction]],
                      last: Optional[str] = None) -> None:
        """The window declares one of its menus and the groups it already holds."""
        self._menus[name] = _MenuGroups(menu, groups, last)

    def menu(self, name: str) -> QMenu:
        return self._group(name).menu

    def add_action(self, action: QAction, menu: Optional[str] = None, group: str = "features",
                   toolbar: bool = False) -> QAction:
        """Put `action` in menu `menu` (None: in no menu) at the end of `group`, on the toolbar
        when asked; its shortcut works anywhere in the window either way."""
        if menu is not None:
            self._group(menu).add(action, group)
        if toolbar:
            if not self._toolbar_used:  # the window's own buttons, a separator, the features'
                self.toolbar.addSeparator()
                self._toolbar_used = True
            self.toolbar.addAction(action)
        if action not in self.window.actions():
            self.window.addAction(action)
        return action

    def add_menu(self, submenu: QMenu, menu: str, group: str = "features") -> None:
        self._group(menu).add(submenu.menuAction(), group)

    def add_dock(self, dock: QDockWidget, area: Qt.DockWidgetArea = Qt.DockWidgetArea.RightDockWidgetArea) -> None:
        self.window.addDockWidget(area, dock)

    def _group(self, name: str) -> _MenuGroups:
        try:
            return self._menus[name]
        except KeyError:
            raise KeyError(f"menu: no menu {name!r} (menus: {', '.join(self._menus)})") from None

    # ---- words ---------------------------------------------------------------------------------
    def on_language_change(self, callback: Callable[[], None]) -> None:
        """Call `callback` whenever the window re-words itself (after a language switch)."""
        self._retranslators.append(callback)

    def retranslate(self) -> None:
        """The window calls this from its own retranslate()."""
        for callback in self._retranslators:
            callback()
