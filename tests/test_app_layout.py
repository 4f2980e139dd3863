"""The application layer is a package of one module per use-case family behind a small façade
(issue 26): each module says its one concern on its first line, stays short, and imports only
the modules of the layer it needs directly (never the façade), at module level and inside
functions alike, without a circle; the former name ``rebis_pbm.referee`` still gives the API."""

from __future__ import annotations

import ast
import importlib
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import rebis_pbm.app as app

APP = Path(app.__file__).parent
MODULES = sorted(p.stem for p in APP.glob("*.py") if p.stem != "__init__")


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of the file (inside functions too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_application_layer_is_split_by_use_case_family():
    assert {"games", "views", "create", "moves", "reading", "player", "deadlines", "sealing",
            "options"} <= set(MODULES)
    for name in MODULES:
        text = (APP / f"{name}.py").read_text(encoding="utf-8")
        assert len(text.splitlines()) < 700, name
        doc = ast.get_docstring(ast.parse(text))
        assert doc and doc.splitlines()[0].endswith("."), name


def test_the_facade_is_small_and_defines_nothing_itself():
    tree = ast.parse((APP / "__init__.py").read_text(encoding="utf-8"))
    assert not [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert len((APP / "__init__.py").read_text(encoding="utf-8").splitlines()) < 200


def test_the_modules_of_the_layer_import_each_other_directly_and_without_a_circle():
    graph: dict[str, set[str]] = {}
    for name in MODULES:
        names = imported(APP / f"{name}.py")
        assert "rebis_pbm.app" not in names, f"{name} imports the façade"
        assert not {n for n in names if n.startswith(("rebis_pbm.transports", "rebis_pbm.cli",
                                                      "rebis_pbm.start", "click"))}, name
        graph[name] = {n.split(".")[2] for n in names
                       if n.startswith("rebis_pbm.app.") and n.split(".")[2] in MODULES}
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        circle = exc.args[1]
        raise AssertionError(f"a circle among the application layer's modules: {circle}") from None


def test_the_public_api_is_the_facades_and_the_old_name_still_gives_it():
    referee = importlib.import_module("rebis_pbm.referee")
    assert referee.__all__ == app.__all__
    for name in app.__all__:
        assert getattr(referee, name) is getattr(app, name), name
        assert getattr(app, name).__module__.startswith(("rebis_pbm.app.", "rebis_pbm.record",
                                                         "rebis_pbm.files.names")), \
            name
