"""The presentation's modules import downwards only (docs/views.md): no circle among them (the
picture takes its words from present/wording.py, never from the views' façade), none imports
the application layer or above, and the record's audit imports no presentation (its words are
record/wording.py's). Imports inside functions count too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "rebis_pbm"
PRESENT = PACKAGE / "present"
ABOVE = ("rebis_pbm.app", "rebis_pbm.transports", "rebis_pbm.cli", "rebis_pbm.start",
         "rebis_pbm.referee")


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at module level or inside a function (``from rebis_pbm.present
    import views`` names ``rebis_pbm.present.views``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def present_graph() -> dict[str, set[str]]:
    modules = {f"rebis_pbm.present.{p.stem}": p for p in PRESENT.glob("*.py")
               if p.stem != "__init__"}
    return {name: imported(path) & set(modules) for name, path in modules.items()}


def test_the_presentation_has_no_circle():
    graph = present_graph()
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, "an import circle: " + " -> ".join((*path, module))
        if module in done:
            return
        for other in sorted(graph[module]):
            visit(other, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())
    # the façade and the dispatch over formats sit above what they gather
    for module, imports in graph.items():
        if module not in ("rebis_pbm.present.views", "rebis_pbm.present.render"):
            assert not imports & {"rebis_pbm.present.views", "rebis_pbm.present.render"}, module


@pytest.mark.parametrize("path", sorted(PRESENT.glob("*.py")), ids=lambda p: p.name)
def test_no_presentation_module_imports_a_layer_above(path):
    above = {name for name in imported(path) if name.startswith(ABOVE)}
    assert not above, f"{path.name} imports {sorted(above)}"


def test_the_audit_imports_no_presentation():
    assert not {n for n in imported(PACKAGE / "record" / "audit.py")
                if n.startswith("rebis_pbm.present")}
    assert not {n for n in imported(PACKAGE / "record" / "wording.py")
                if n.startswith("rebis_pbm.present")}


def test_every_presentation_module_says_its_concern_in_one_first_line():
    for path in PRESENT.glob("*.py"):
        doc = ast.get_docstring(ast.parse(path.read_text("utf-8")), clean=False)
        assert doc and doc.split("\n", 1)[0].strip(), path.name
        assert len(path.read_text("utf-8").splitlines()) <= 700, path.name
