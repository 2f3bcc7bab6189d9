"""The layering rules: the engine never touches Qt or the GUI; the GUI never does torch math.

The import graph's rules are import-linter contracts in pyproject.toml (run here through `lint-imports`);
these tests run them, show each can fail, and check what they cannot see."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUI_MODULES = ("PySide6", "pyqtgraph", "shiboken6", "superqt", "app")
#: The one GUI module allowed to import torch: asking which devices exist (cuda available?).
TORCH_ALLOWED_IN_APP = {"app/services/devices.py"}


def _dynamic_import_roots(path: Path) -> set[str]:
    """Top-level package names a Python file imports by a call with a constant name (`__import__("x")`,
    `importlib.import_module("x.y")`): the one form import-linter (grimp reads import statements, a
    function's lazy one and a TYPE_CHECKING one included) does not see."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return {str(node.args[0].value).split(".")[0] for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in (
                "__import__", "import_module") and node.args and isinstance(node.args[0], ast.Constant)}


@pytest.mark.slow
def test_importing_the_engine_loads_no_gui():
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import attention\n"
        "names = [m.name for m in pkgutil.walk_packages(attention.__path__, 'attention.')]\n"
        "for n in names: importlib.import_module(n)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {GUI_MODULES!r})\n"
        "print(json.dumps({'modules': names, 'bad': bad}))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert "attention.compute.engine" in report["modules"] and "attention.ops.prob_sparse" in report["modules"]
    assert report["bad"] == []


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    """import-linter's `lint-imports` on the checkout at `root` (its pyproject.toml's contracts), the
    packages read from `root` first."""
    exe = Path(sys.executable).with_name("lint-imports")
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(root)}
    return subprocess.run([str(exe), "--no-cache"], cwd=root, capture_output=True, text=True, timeout=300, env=env)


#: pyproject.toml's import-linter contracts, by name
CONTRACTS = ("attention/ is packages by layer, each importing only the ones below",
             "the engine imports neither the window, nor Qt, nor resources/",
             "the window's Qt-free half imports no Qt",
             "app/ is folders by layer, each importing only the ones below",
             "the window does no torch math")


def test_the_import_contracts_hold():
    """pyproject.toml's contracts (import-linter): attention/ and app/ are layers (docs/architecture.md),
    the engine imports neither Qt, app/ nor resources/, the viewmodel no Qt, the window no torch (but
    app/services/devices.py).  Every import statement counts, a function's lazy one and a TYPE_CHECKING
    one too."""
    res = _lint_imports(ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    assert all(f"{name} KEPT" in res.stdout for name in CONTRACTS), res.stdout
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in res.stdout


def _copy_packages(dst: Path) -> None:
    """attention/, app/ and resources/'s Python files and pyproject.toml: what lint-imports reads."""
    import shutil

    def not_python(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir() or n == "__pycache__"]

    for name in ("attention", "app", "resources"):
        shutil.copytree(ROOT / name, dst / name, ignore=not_python)
    shutil.copy(ROOT / "pyproject.toml", dst / "pyproject.toml")


def _append(path: Path, code: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n\n" + code, encoding="utf-8")


@pytest.mark.parametrize("module, code, broken, line", [
    # a kind importing the engine lazily, inside a function: an arrow pointing up
    ("attention/kinds/rope.py", "def _up():\n    from attention.compute import engine  # noqa\n",
     {0}, "attention.kinds.rope -> attention.compute.engine"),
    # the engine importing the window, for type checkers only: through the window, the engine's top, Qt, and
    # every folder of app/ that uses the engine are above the engine's bottom now
    ("attention/ops/steps.py", "import typing\nif typing.TYPE_CHECKING:\n    import app.main_window  # noqa\n",
     {0, 1, 2, 3}, "attention.ops.steps -> app.main_window"),
    ("app/viewmodel/mask_edits.py", "from PySide6 import QtCore  # noqa\n", {2},
     "app.viewmodel.mask_edits -> PySide6"),
    # the shared services importing the start-up: a circle through app/'s folders
    ("app/services/settings.py", "def _up():\n    import app.startup.application  # noqa\n", {3},
     "app.services.settings -> app.startup.application"),
    ("app/panes/heatmap.py", "import torch  # noqa\n", {4}, "app.panes.heatmap -> torch"),
])
def test_a_wrong_import_breaks_a_contract(tmp_path, module, code, broken, line):
    """The contracts can fail: one wrong import written into a copy of the packages breaks the contracts
    it should (by their index in CONTRACTS), named with the import, and keeps the others."""
    _copy_packages(tmp_path)
    _append(tmp_path / module, code)
    res = _lint_imports(tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    verdicts = {i: "BROKEN" if i in broken else "KEPT" for i in range(len(CONTRACTS))}
    assert all(f"{CONTRACTS[i]} {v}" in res.stdout for i, v in verdicts.items()), res.stdout
    assert line in res.stdout, res.stdout


def test_gui_does_no_torch_math_nor_the_engine_qt_by_a_call():
    """What the contracts cannot see, an import by a call with a constant name: none in app/ names torch
    (but app/services/devices.py, which asks which devices exist), none in attention/ names Qt or app/."""
    gui = {"PySide6", "pyqtgraph", "shiboken6", "superqt", "app", "resources"}
    engine = {str(f.relative_to(ROOT)): sorted(_dynamic_import_roots(f) & gui)
              for f in sorted((ROOT / "attention").rglob("*.py"))}
    assert {k: v for k, v in engine.items() if v} == {}
    window = [str(f.relative_to(ROOT)) for f in sorted((ROOT / "app").rglob("*.py"))
              if "torch" in _dynamic_import_roots(f) and str(f.relative_to(ROOT)) not in TORCH_ALLOWED_IN_APP]
    assert window == []


def test_the_dynamic_import_scanner_can_fail(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("import os\nimport PySide6.QtCore as qc\nimport importlib\n"
                 "def g():\n    importlib.import_module('torch.nn')\n"
                 "    __import__('shiboken6')\n    __import__(name)\n")
    assert _dynamic_import_roots(f) == {"torch", "shiboken6"}


@pytest.mark.slow
def test_viewmodel_is_qt_free():
    """app/viewmodel/ is the Qt-free half of the GUI: it imports no Qt (nor any Qt-using part of app)."""
    # what it imports is a contract (test_the_import_contracts_hold); here: what importing it loads
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import app.viewmodel as vm\n"
        "for m in pkgutil.walk_packages(vm.__path__, 'app.viewmodel.'): importlib.import_module(m.name)\n"
        "print(json.dumps(sorted(m for m in sys.modules"
        " if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6'))))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout.strip().splitlines()[-1]) == []


def test_app_is_grouped_by_concern():
    """app/ holds the window, the typed interface its features install through, and folders, one
    per concern; no loose modules at its root."""
    loose = sorted(p.name for p in (ROOT / "app").glob("*.py"))
    assert loose == ["__init__.py", "features.py", "main_window.py"]


#: The one module that may touch QSettings: every preference has a typed accessor there.
SETTINGS_MODULE = "app/services/settings.py"


def _qsettings_users(files: list[Path]) -> list[str]:
    """Files that name QSettings in code (imports or attribute use; comments and strings don't count)."""
    users = []
    for f in files:
        tree = ast.parse(f.read_text(encoding="utf-8"), filename=str(f))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        names |= {a.name.split(".")[-1] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                  for a in n.names}
        if "QSettings" in names:
            users.append(str(f.relative_to(ROOT)) if f.is_relative_to(ROOT) else f.name)
    return users


def test_only_the_settings_wrapper_uses_qsettings():
    """Preferences go through app.services.settings.Settings' typed accessors: no raw QSettings,
    and no reaching through the wrapper to its QSettings (`settings.q`) from anywhere else."""
    files = sorted((ROOT / "app").rglob("*.py")) + [ROOT / "main.py"]
    assert _qsettings_users(files) == [SETTINGS_MODULE]
    through = [str(f.relative_to(ROOT)) for f in files if str(f.relative_to(ROOT)) != SETTINGS_MODULE
               and any(isinstance(n, ast.Attribute) and n.attr in ("q", "_q") and isinstance(n.value, ast.Attribute)
                       and n.value.attr == "settings" for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))))]
    assert through == []


def test_the_qsettings_scanner_can_fail(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("# QSettings in a comment\nx = 'QSettings'\n")
    assert _qsettings_users([f]) == []
    f.write_text("from PySide6 import QtCore\ns = QtCore.QSettings()\n")
    assert _qsettings_users([f]) == ["x.py"]


#: Where a scoring kind may be named by its string: the kinds themselves, their words, and the
#: version-1 file format's section names (attention/files/scenario_io.py).  app/editing/parameter_panel.py
#: is being rewritten to build its controls from the kinds' fields; it leaves this list then.
KIND_NAMES_ALLOWED = ("attention/kinds/", "attention/words/", "attention/files/scenario_io.py")


def _kind_name_uses(files: list[Path]) -> dict[str, list[int]]:
    """file -> line numbers that compare a scoring by name or spell a kind's name as a string."""
    import re

    compare = re.compile(r"scoring\s*(==|!=|in\s*\()|[\"'](additive|prob_sparse)[\"']")
    out: dict[str, list[int]] = {}
    for f in files:
        rel = str(f.relative_to(ROOT)) if f.is_relative_to(ROOT) else f.name
        if rel.startswith(KIND_NAMES_ALLOWED):
            continue
        lines = [i for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
                 if compare.search(line.split("#", 1)[0])]
        if lines:
            out[rel] = lines
    return out


def test_no_scoring_is_compared_by_name_outside_the_kinds():
    """The code asks the kind object (attention/kinds/) instead of comparing `scoring == "additive"`."""
    files = sorted((ROOT / "attention").rglob("*.py")) + sorted((ROOT / "app").rglob("*.py"))
    assert _kind_name_uses(files) == {}


def test_the_kind_name_scanner_can_fail(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("a = 1\nif sc.scoring == 'dot':\n    pass\nb = {'additive': 1}  # ok\n# 'prob_sparse' in a comment\n")
    assert _kind_name_uses([f]) == {"x.py": [2, 4]}


#: A kind's id may be spelled out in its own module, the import mapping (attention/models/family_scenario.py,
#: attention/models/tsl_models.py, the version-1 file format's sections in attention/files/scenario_io.py)
#: and at most a few more files: everything else asks the kind object (`ROPE.name`, `kinds.scoring`).
MAX_FILES_PER_KIND_ID = 4


def kind_id_files(kind_id: str, files: list[Path]) -> list[str]:
    """The files (outside attention/words/) whose source spells `kind_id` as a quoted string."""
    import re

    quoted = re.compile(r"[\"']" + re.escape(kind_id) + r"[\"']")
    return [str(f.relative_to(ROOT)) if f.is_relative_to(ROOT) else f.name for f in files
            if "words" not in f.parts and quoted.search(f.read_text(encoding="utf-8"))]


def test_a_kind_id_is_spelled_in_few_files():
    """Every kind of the table (a mask rule set by a scenario attribute of its own name, `causal`,
    `valid_lens`, is that attribute: not counted) is named by its id in at most 4 source files."""
    from attention.registry import kinds

    files = sorted((ROOT / "attention").rglob("*.py")) + sorted((ROOT / "app").rglob("*.py"))
    table = {**kinds.SCORING, **kinds.POSITIONS, **kinds.MODIFIERS, **kinds.BLOCKS, **kinds.MASK_RULES}
    counted = {name: kind_id_files(name, files) for name, k in table.items() if getattr(k, "attribute", None) is None}
    assert len(counted) > 15
    assert {name: hits for name, hits in counted.items() if len(hits) > MAX_FILES_PER_KIND_ID} == {}


def test_the_kind_id_counter_can_fail(tmp_path):
    a, b, c = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "words"
    c.mkdir()
    a.write_text("x = Part('rope')\n")
    b.write_text("# rope, not quoted\ny = ROPE.name\n")
    (c / "w.py").write_text("'rope'\n")
    assert kind_id_files("rope", [a, b, c / "w.py"]) == ["a.py"]
