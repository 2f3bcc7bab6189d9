"""Presentation mode: one step at a time, full screen, live (see presentation_view)."""
from app.teaching.presentation.controller import PresentationController, install

__all__ = ["PresentationController", "install"]
