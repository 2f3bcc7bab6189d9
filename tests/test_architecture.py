"""The layering rules: the engine never touches Qt or the GUI; the GUI never does torch math."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUI_MODULES = ("PySide6", "pyqtgraph", "shiboken6", "superqt", "app")
#: The one GUI module allowed to import torch: asking which devices exist (cuda available?).
TORCH_ALLOWED_IN_APP = {"app/services/devices.py"}


def _imported_roots(path: Path) -> set[str]:
    """Top-level package names a Python file imports (relative imports excluded)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in (
                "__import__", "import_module") and node.args and isinstance(node.args[0], ast.Constant):
            roots.add(str(node.args[0].value).split(".")[0])
    return roots


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


def test_engine_sources_import_no_gui():
    files = sorted((ROOT / "attention").rglob("*.py"))
    assert files
    offenders = {str(f.relative_to(ROOT)): sorted(_imported_roots(f) & set(GUI_MODULES)) for f in files}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_gui_does_no_torch_math():
    """app/ shows what the trace holds; only app/services/devices.py may import torch (device availability).
    Passes trivially while app/ has no Python files yet."""
    files = sorted((ROOT / "app").rglob("*.py")) if (ROOT / "app").exists() else []
    offenders = [str(f.relative_to(ROOT)) for f in files
                 if "torch" in _imported_roots(f) and str(f.relative_to(ROOT)) not in TORCH_ALLOWED_IN_APP]
    assert offenders == []


def test_import_scanner_sees_every_import_form(tmp_path):
    """The static checks above are only as good as this scanner: make sure it can fail."""
    f = tmp_path / "x.py"
    f.write_text("import os\nimport PySide6.QtCore as qc\nfrom pyqtgraph import exporters\nfrom . import sib\n"
                 "def g():\n    import torch\n    __import__('shiboken6')\n")
    assert _imported_roots(f) == {"os", "PySide6", "pyqtgraph", "torch", "shiboken6"}


@pytest.mark.slow
def test_viewmodel_is_qt_free():
    """app/viewmodel/ is the Qt-free half of the GUI: it imports no Qt (nor any Qt-using part of app)."""
    files = sorted((ROOT / "app" / "viewmodel").rglob("*.py"))
    assert len(files) > 5
    qt = {"PySide6", "pyqtgraph", "shiboken6", "superqt"}
    offenders = {str(f.relative_to(ROOT)): sorted(_imported_roots(f) & qt) for f in files}
    assert {k: v for k, v in offenders.items() if v} == {}
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


def _app_part(module: str) -> str | None:
    """The node of the app's folder graph a module belongs to: its folder under app/
    ("app.teaching" for app.teaching.presentation.slide_map), or the module itself for the few
    at app/'s root ("app.main_window", "app.features"); None outside app/."""
    parts = module.split(".")
    if parts[0] != "app":
        return None
    if len(parts) == 1:
        return "app"
    return f"app.{parts[1]}"


def _module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    names = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
    return ".".join(names)


def _imported_modules(path: Path) -> set[str]:
    """Every module a file names in an import, in full (`from a.b import c` gives a.b and a.b.c,
    since c may be a module), lazy and TYPE_CHECKING imports included: a cycle through a
    function-level import is still a cycle in the design."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def app_import_graph(root: Path = ROOT) -> dict[str, dict[str, set[str]]]:
    """Part -> part it imports -> the files that do: the folder-level import graph of app/."""
    existing = {_module_name(f, root) for f in (root / "app").rglob("*.py")}
    graph: dict[str, dict[str, set[str]]] = {}
    for f in sorted((root / "app").rglob("*.py")):
        source = _app_part(_module_name(f, root))
        for name in _imported_modules(f):
            if name not in existing:  # `from app.teaching import handout` names app.teaching.handout too
                continue
            target = _app_part(name)
            if target and target != source:
                graph.setdefault(source, {}).setdefault(target, set()).add(str(f.relative_to(root)))
    return graph


def find_cycle(graph: dict[str, dict[str, set[str]]]) -> list[str]:
    """One cycle of the graph as a path [a, b, ..., a], or [] when it has none (depth-first search)."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, {})):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = 2
        path.pop()
        return []

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return []


def test_app_folders_import_without_a_cycle():
    """The folders of app/ form a layered graph: the start-up on top, shared services
    (app/services) and the Qt-free viewmodel at the bottom.  A cycle (as when i18n lived in
    app/startup beside application.py, which imports the window) ties every folder in it into
    one unit that can only be understood, tested and moved together."""
    graph = app_import_graph()
    assert graph, "no imports between app folders found: the scanner is broken"
    cycle = find_cycle(graph)
    via = [sorted(graph[a][b]) for a, b in zip(cycle, cycle[1:])]
    assert cycle == [], f"import cycle {' -> '.join(cycle)} via {via}"


def test_nothing_imports_the_start_up():
    """app/startup is the top: it builds the window; nothing in app/ imports it back."""
    graph = app_import_graph()
    users = {source: sorted(targets["app.startup"]) for source, targets in graph.items() if "app.startup" in targets}
    assert users == {}
    assert set(graph.get("app.services", {})) == set(), "services import no other app folder"
    assert set(graph.get("app.viewmodel", {})) == set(), "the viewmodel imports no other app folder"


def test_the_cycle_finder_can_fail(tmp_path):
    """Two folders importing each other, one lazily, are a cycle; a chain is not."""
    (tmp_path / "app" / "a").mkdir(parents=True)
    (tmp_path / "app" / "b").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "a" / "__init__.py").write_text("")
    (tmp_path / "app" / "b" / "__init__.py").write_text("")
    (tmp_path / "app" / "a" / "x.py").write_text("from app.b import y\n")
    (tmp_path / "app" / "b" / "y.py").write_text("import os\n")
    assert find_cycle(app_import_graph(tmp_path)) == []
    (tmp_path / "app" / "b" / "y.py").write_text("def f():\n    from app.a.x import g\n")
    assert find_cycle(app_import_graph(tmp_path)) == ["app.a", "app.b", "app.a"]


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
