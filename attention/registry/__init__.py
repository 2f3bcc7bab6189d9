"""The tables: every kind by name (kinds.py) and every step's record in computing order (step_registry.py).

Composed here, above the kinds and the main pipeline, so that none of them imports a table."""
