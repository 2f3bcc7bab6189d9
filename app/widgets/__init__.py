"""Widgets of the explorer window (editors and parameter controls); wiring lives in main_window."""
