"""Attention Explorer's Qt window.  Shows what the engine (attention/) computes; no maths here.

Entry point: `app.startup.application.run(path)`.
"""
