"""Scenario addressing and reshaping (Qt-free) and the Qt table model over one matrix."""
