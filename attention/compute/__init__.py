"""Checking and running a scenario: its problems, the engine (run(scenario) -> Trace), the trace itself."""
