"""Probe: does a maximized window fill the real screen?  Prints {"screen": [w, h], "window": [w, h]}."""
import json
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow


def main() -> int:
    app = QApplication(sys.argv[:1])
    w = QMainWindow()
    w.showMaximized()
    report = {}

    def look() -> None:
        g = app.primaryScreen().geometry()
        report.update(screen=[g.width(), g.height()], window=[w.frameGeometry().width(), w.frameGeometry().height()],
                      platform=app.platformName())
        app.quit()

    QTimer.singleShot(1500, look)
    app.exec()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
