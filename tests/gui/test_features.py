"""A feature installs through app.features.FeatureHost, the way presentation mode, the cell tools
and the handout do, and a person reaches its action from the menu, the toolbar and the shortcut."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from app.features import FeatureHost

pytestmark = pytest.mark.gui


class Counter:
    """A tiny feature: "Count" in View (group "demo", on the toolbar, Ctrl+Alt+K) and "Export
    count..." in File's export group; each remembers what it saw through the host."""

    def __init__(self, host: FeatureHost) -> None:
        self.host = host
        self.hits: list[int] = []
        self.count = QAction("Count", host.window)
        self.count.setShortcut(QKeySequence("Ctrl+Alt+K"))
        self.count.triggered.connect(lambda: self.hits.append(host.document.scenario.L))
        host.add_action(self.count, "view", group="demo", toolbar=True)
        self.export = QAction("Export count...", host.window)
        host.add_action(self.export, "file", group="export")
        self.words: list[str] = []
        host.on_language_change(lambda: self.words.append(self.count.text()))


def _install(window) -> Counter:
    return Counter(window.host)


def test_a_feature_is_reached_from_its_menu(window):
    feature = _install(window)
    items = window.view_menu.actions()
    assert feature.count in items
    i = items.index(feature.count)
    assert items[i - 1].isSeparator()  # a group of its own
    window.view_menu.popup(window.mapToGlobal(QPoint(0, 0)))
    window.view_menu.setActiveAction(feature.count)
    from PySide6.QtTest import QTest

    QTest.keyClick(window.view_menu, Qt.Key.Key_Return)
    assert feature.hits == [window.document.scenario.L]


def test_a_feature_is_reached_from_the_toolbar(window, qtbot):
    feature = _install(window)
    with qtbot.waitExposed(window):
        window.show()
    button = window.toolbar.widgetForAction(feature.count)
    assert button is not None and button.isVisible()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert feature.hits == [window.document.scenario.L]
    # the window's own buttons come first, then a separator, then the features'
    actions = window.toolbar.actions()
    assert actions[:2] == [window.open_action, window.save_action]
    assert actions.index(window.presentation.present_action) < actions.index(feature.count)


def test_a_features_shortcut_works_anywhere_in_the_window(window, qtbot):
    feature = _install(window)
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    window.inputs.editors["queries"].table.setFocus()
    qtbot.keyClick(window.inputs.editors["queries"].table, Qt.Key.Key_K,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    assert feature.hits == [window.document.scenario.L]


def test_a_new_group_in_file_stays_above_quit_and_a_known_one_grows(window):
    feature = _install(window)
    items = window.file_menu.actions()
    assert items[-1] is window.quit_action
    # File's export group: the window's two exports, the handout's three, then this feature's
    i = items.index(window.export_csv_action)
    assert items[i + 1: i + 5] == [window.handout.handout_action, window.handout.worksheet_action,
                                   window.handout.script_action, feature.export]
    extra = QAction("Late", window)
    window.host.add_action(extra, "file", group="late")
    items = window.file_menu.actions()
    assert items.index(extra) < items.index(window.quit_action) and items[-1] is window.quit_action
    assert items[items.index(extra) + 1].isSeparator() and items[items.index(extra) - 1].isSeparator()


def test_a_feature_is_told_when_the_language_changes(window):
    feature = _install(window)
    window.set_language("zh")
    window.set_language("en")
    assert len(feature.words) >= 2


def test_an_unknown_menu_is_named_in_the_error(window):
    with pytest.raises(KeyError, match="no menu 'tools'.*file, edit, view"):
        window.host.add_action(QAction("x", window), "tools")


def test_a_submenu_and_a_dock_install_too(window):
    from PySide6.QtWidgets import QDockWidget

    sub = QMenu("More", window)
    window.host.add_menu(sub, "edit", group="more")
    assert sub.menuAction() in window.edit_menu.actions()
    dock = QDockWidget("Demo", window)
    window.host.add_dock(dock)
    assert window.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea
