"""Checking a scenario: the kinds it uses resolved once, and the steps of its trace.

`plan(sc)` looks the scenario's kinds up in the table (attention/registry/kinds.py) and picks the
step records of its trace; what comes after (the exported script) reads the plan instead of
looking a kind up by name again.
"""
from __future__ import annotations

from attention.datamodel.scenario import Scenario
from attention.kinds.plan import Plan
from attention.registry import kinds, step_registry


def plan(sc: Scenario) -> Plan:
    """The plan of `sc` (its scoring kind must be a known one: check `problems(sc)` first)."""
    found = kinds.resolve(sc)
    return Plan(sc, found, tuple(step_registry.active(sc, found)))
