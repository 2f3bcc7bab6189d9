"""Attention Explorer's engine: pure torch, no Qt.

    from attention import Scenario, run
    trace = run(scenario)            # every intermediate tensor, by step id
    trace["attention_weights"].numpy()
"""
from attention.engine import run
from attention.scenario import Additive, Projection, Scenario, ScenarioError, problems
from attention.trace import PIPELINE, STEP_TEXT, Step, Trace

__all__ = ["Additive", "PIPELINE", "Projection", "STEP_TEXT", "Scenario", "ScenarioError", "Step", "Trace", "problems", "run"]
