"""The document pipeline: the open Scenario and its undo stack, undo commands, and the
recompute that turns each change into a new trace (off the UI thread when big)."""
