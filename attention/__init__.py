"""Attention Explorer's engine: pure torch, no Qt.

    from attention import Scenario, run
    trace = run(scenario)            # every intermediate tensor, by step id
    trace["attention_weights"].numpy()

The names are loaded on first use (PEP 562 module `__getattr__`): `attention.Scenario` and
`attention.files.scenario_io` do not import torch, so the window can open before torch's import
(the slowest of all) has finished; `attention.run` imports it.
"""
import importlib as _importlib
import typing as _typing

from attention.compute import threads as _threads

_threads.prefer_sleeping_threads()  # before torch is imported: see attention/compute/threads.py

#: public name -> the submodule that defines it
_HOME = {
    "run": "attention.compute.engine",
    "Additive": "attention.datamodel.scenario", "Projection": "attention.datamodel.scenario",
    "Scenario": "attention.datamodel.scenario", "ScenarioError": "attention.datamodel.scenario",
    "problems": "attention.compute.check",
    "PIPELINE": "attention.compute.trace", "Step": "attention.compute.trace", "Trace": "attention.compute.trace",
}

__all__ = ["Additive", "PIPELINE", "Projection", "Scenario", "ScenarioError", "Step", "Trace", "problems", "run"]

if _typing.TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from attention.compute.check import problems
    from attention.compute.engine import run
    from attention.compute.trace import PIPELINE, Step, Trace
    from attention.datamodel.scenario import Additive, Projection, Scenario, ScenarioError


def __getattr__(name: str) -> _typing.Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'attention' has no attribute {name!r}")
    value = getattr(_importlib.import_module(home), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({n for n in globals() if not n.startswith("_")} | set(__all__))
