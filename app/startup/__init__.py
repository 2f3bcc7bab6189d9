"""Start-up: the QApplication and the window (application.py), and the headless `render` entry
(render_cli.py).  Nothing in app/ imports this folder; the shared services are in app/services/."""
