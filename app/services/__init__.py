"""Shared services every app folder may use: words and translators (i18n), typed preferences
(settings), the compute devices, and where the window opens (window_fit).

Why a folder of their own: they used to live in app/startup beside the start-up itself
(application.py, render_cli.py), which imports the window and the teaching features; any folder
that asked for a translator then imported the start-up's folder, and every app folder but the
viewmodel was tied into one import cycle.  Services import no other app folder
(tests/test_architecture.py keeps the folder graph acyclic)."""
