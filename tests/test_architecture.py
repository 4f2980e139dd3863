"""The house's architecture, checked (docs/architecture.md): imports point down the layers, no
module imports itself around a circle, no module is over 700 lines, each opens with a docstring.

Every module of rebis_pbm is parsed with :mod:`ast` (not imported): its imports at module level
and inside functions, relative ones resolved, and ``importlib.import_module("...")`` calls with a
literal name. A module may import its own layer or a lower one:

    engine < errors < bots < formats < files < crypto < record < present < app < transports
    < cli < start

The entry points (``python -m``: every ``__main__`` module) are the top, with ``start``; the
package's own ``__init__`` holds nothing and is the floor;
``rebis_pbm/referee.py``, the former name of the application layer, is of the ``app`` layer and
no module of the package imports it.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path
from typing import NamedTuple

import pytest

PACKAGE = Path(__file__).parents[1] / "rebis_pbm"
LAYERS = ("engine", "errors", "bots", "formats", "files", "crypto", "record", "present", "app",
          "transports", "cli", "start")
RANK = {layer: rank for rank, layer in enumerate(LAYERS)}
MAX_LINES = 700
# Written by scripts/compile-schema-checks.py: their size and header are the generator's.
GENERATED = "formats/_fastchecks/"

# What is wrong today and is being fixed by the work of issue 26 that runs beside this test's:
# each entry is one finding exactly as the test words it. The set shrinks as the fixes land; it
# must end empty (test_known_offenders_still_offend says which entry is fixed and can go).
KNOWN_OFFENDERS: set[str] = {
    # The transports are split behind their interface (mail-transport, git-transport).
    "transports/git/jobs.py: over 700 lines",
}


class Import(NamedTuple):
    """One import a module makes: the module it names (rebis_pbm's only), its line, and when it
    runs: ``"module"`` (when the importing module is imported), ``"function"`` (when a function
    is called) or ``"types"`` (never: ``if TYPE_CHECKING``, for mypy)."""

    target: str
    line: int
    when: str


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (rebis_pbm.app, rebis_pbm.engine.rules)."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(name: str) -> str:
    """The layer a module of the package belongs to (module names without ``rebis_pbm.``)."""
    parts = name.split(".")[1:]
    if not parts:  # rebis_pbm/__init__.py holds nothing: the floor, so it may import nothing
        return LAYERS[0]
    if parts[-1] == "__main__":
        return "start"
    if parts == ["referee"]:
        return "app"
    assert parts[0] in RANK, f"{name}: a module in no layer; docs/architecture.md says where"
    return parts[0]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(name: str, path: Path, known: set[str]) -> list[Import]:
    """The package's modules ``name`` imports, in source order."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[Import] = []

    def absolute(target: str, level: int, anchor: str = package) -> str:
        if level == 0:
            return target
        base = anchor.split(".")
        base = base[:len(base) - (level - 1)]
        return ".".join([*base, target] if target else base)

    def add(target: str, line: int, when: str) -> None:
        if target == "rebis_pbm" or target.startswith("rebis_pbm."):
            found.append(Import(target, line, when))

    def visit(node: ast.AST, when: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and \
                when == "module":
            when = "function"
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, "types")
            for child in node.orelse:
                visit(child, when)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno, when)
        elif isinstance(node, ast.ImportFrom):
            base = absolute(node.module or "", node.level)
            for alias in node.names:
                # `from rebis_pbm.present import views` imports the module views
                sub = f"{base}.{alias.name}"
                add(sub if sub in known else base, node.lineno, when)
        elif isinstance(node, ast.Call) and _names_import_module(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                target = first.value
                if target.startswith("."):
                    level = len(target) - len(target.lstrip("."))
                    anchor = node.args[1] if len(node.args) > 1 else None
                    if isinstance(anchor, ast.Constant) and isinstance(anchor.value, str):
                        target = absolute(target.lstrip("."), level, anchor.value)
                    else:
                        target = absolute(target.lstrip("."), level)
                add(target, node.lineno, when)
        for child in ast.iter_child_nodes(node):
            visit(child, when)

    visit(tree, "module")
    return found


def _names_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id == "import_module")


def short(name: str) -> str:
    return name.removeprefix("rebis_pbm.") or "rebis_pbm"


def graph() -> dict[str, list[Import]]:
    found = modules()
    known = set(found)
    return {name: imports(name, path, known) for name, path in found.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Each circle of imports once, as the modules around it starting from the first in sorted
    order (Tarjan's strongly connected components; modules that import each other around
    several circles are reported by one of them)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in edges.get(node, ()):
                components.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            connect(node)
    return sorted(shortest_circle(component[0], set(component), edges)
                  for component in components)


def shortest_circle(start: str, members: set[str], edges: dict[str, set[str]]) -> list[str]:
    """The modules of a shortest circle from ``start`` back to it (breadth first)."""
    previous: dict[str, str] = {}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for nxt in sorted(edges[here] & members):
            if nxt == start:
                path = [here]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return path[::-1]
            if nxt not in previous:
                previous[nxt] = here
                queue.append(nxt)
    raise AssertionError(f"{start} is in no circle")


def layer_findings(found: dict[str, list[Import]]) -> set[str]:
    findings = set()
    for name, made in found.items():
        mine = layer_of(name)
        for imp in made:
            if imp.target == "rebis_pbm.referee" and name != "rebis_pbm.referee":
                findings.add(f"{short(name)} imports referee: the package imports "
                             f"rebis_pbm.app, referee is for programs written against it")
            theirs = layer_of(imp.target)
            if RANK[theirs] > RANK[mine]:
                findings.add(f"{short(name)} imports {short(imp.target)}: {mine} may not "
                             f"import from {theirs}, a layer above it")
    return findings


def cycle_findings(found: dict[str, list[Import]]) -> set[str]:
    edges = {name: {i.target for i in made if i.when != "types" and i.target != name}
             for name, made in found.items()}
    return {"cycle: " + " -> ".join(short(n) for n in [*circle, circle[0]])
            for circle in cycles(edges)}


def shape_findings() -> set[str]:
    findings = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        where = str(path.relative_to(PACKAGE))
        if where.startswith(GENERATED) and path.name != "__init__.py":
            continue
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_LINES:
            findings.add(f"{where}: over {MAX_LINES} lines")
        body = ast.parse(text).body
        if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str) and text.lstrip().startswith(('"""',
                                                                                       'r"""'))):
            findings.add(f"{where}: does not open with a docstring saying its one concern")
    return findings


@pytest.fixture(scope="module")
def found() -> dict[str, list[Import]]:
    return graph()


def new_offenders(findings: set[str]) -> list[str]:
    return sorted(findings - KNOWN_OFFENDERS)


def test_imports_point_down_the_layers(found):
    """Module level and inside functions alike: a lazy import is lazy, not a way up."""
    assert new_offenders(layer_findings(found)) == []


def test_no_module_imports_itself_around_a_circle(found):
    """Over the imports that run, at module level or inside a function: a module that imports
    another lazily still depends on it, and a circle of modules is one concern spread over
    several (what both need goes below both)."""
    assert new_offenders(cycle_findings(found)) == []


def test_no_module_is_over_700_lines_and_each_opens_with_its_concern():
    assert new_offenders(shape_findings()) == []


def test_known_offenders_still_offend(found):
    """An entry of KNOWN_OFFENDERS that no longer offends is fixed: take it out of the set."""
    everything = layer_findings(found) | cycle_findings(found) | shape_findings()
    assert sorted(KNOWN_OFFENDERS - everything) == []


# --- the reading itself, on small made-up packages --------------------------------------------

def test_every_kind_of_import_is_read(tmp_path, monkeypatch):
    root = tmp_path / "rebis_pbm"
    (root / "engine").mkdir(parents=True)
    (root / "cli").mkdir()
    for init in (root / "__init__.py", root / "engine" / "__init__.py",
                 root / "cli" / "__init__.py"):
        init.write_text('"""x"""\n')
    (root / "engine" / "rules.py").write_text(
        '"""Rules."""\n'
        "from typing import TYPE_CHECKING\n"
        "from . import moves\n"
        "from ..cli import shell\n"
        "if TYPE_CHECKING:\n"
        "    from rebis_pbm.errors import UsageError\n"
        "def f():\n"
        "    import rebis_pbm.present.views\n"
        "    importlib.import_module('.game', 'rebis_pbm.cli')\n"
        "    importlib.import_module('rebis_pbm.app')\n")
    (root / "engine" / "moves.py").write_text('"""Moves."""\n')
    (root / "cli" / "shell.py").write_text('"""Shell."""\n')
    monkeypatch.setitem(globals(), "PACKAGE", root)
    made = graph()["rebis_pbm.engine.rules"]
    assert made == [Import("rebis_pbm.engine.moves", 3, "module"),
                    Import("rebis_pbm.cli.shell", 4, "module"),
                    Import("rebis_pbm.errors", 6, "types"),
                    Import("rebis_pbm.present.views", 8, "function"),
                    Import("rebis_pbm.cli.game", 9, "function"),
                    Import("rebis_pbm.app", 10, "function")]
    assert layer_findings({"rebis_pbm.engine.rules": made}) == {
        f"engine.rules imports {target}: engine may not import from {layer}, a layer above it"
        for target, layer in (("cli.shell", "cli"), ("errors", "errors"),
                              ("present.views", "present"), ("cli.game", "cli"), ("app", "app"))}


def test_a_circle_is_found_lazy_or_not_and_an_import_for_types_makes_none():
    def made(*targets: str, when: str = "module") -> list[Import]:
        return [Import(f"rebis_pbm.{t}", 1, when) for t in targets]

    circle = {"rebis_pbm.present.views": made("present.svg"),
              "rebis_pbm.present.svg": made("present.i18n", "present.views"),
              "rebis_pbm.present.i18n": made()}
    assert cycle_findings(circle) == {"cycle: present.svg -> present.views -> present.svg"}
    circle["rebis_pbm.present.views"] = made("present.svg", when="function")
    assert cycle_findings(circle) == {"cycle: present.svg -> present.views -> present.svg"}
    circle["rebis_pbm.present.views"] = made("present.svg", when="types")
    assert cycle_findings(circle) == set()
    three = {"rebis_pbm.a": made("b"), "rebis_pbm.b": made("c"), "rebis_pbm.c": made("a")}
    assert cycle_findings(three) == {"cycle: a -> b -> c -> a"}


def test_docs_architecture_lists_the_layers_in_this_order():
    import re

    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = doc.split("## The layers", 1)[1].split("\n## ", 1)[0]
    assert tuple(re.findall(r"^\| (\w+) \| `rebis_pbm/", table, flags=re.M)) == LAYERS
