"""No import cycle among the modules of cortex_hooks, function-level and type-only imports included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import cortex_hooks

ROOT = Path(cortex_hooks.__file__).parent
PACKAGE = "cortex_hooks"


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for its __init__)."""
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _absolute(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` imports anywhere in its body: at the top, in functions and
    under `if TYPE_CHECKING:` alike. `from cortex_hooks.p import x` is an edge to the submodule
    `p.x` when there is one, else to `p`; a package's ancestors, which Python imports first, are no
    edges of their own (their code never needs the importer's)."""
    edges: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            edges.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(name, path.name == "__init__.py", node)
            for alias in node.names:
                candidate = f"{source}.{alias.name}"
                edges.add(candidate if candidate in known else source)
    return {edge for edge in edges if edge in known and edge != name}


def graph() -> dict[str, set[str]]:
    from cortex_hooks import cli

    found = modules()
    edges = {name: imports(name, path, set(found)) for name, path in found.items()}
    # The CLI imports each command's module by name (importlib), when that command runs.
    edges["cortex_hooks.cli"] |= {f"cortex_hooks.cli.{module}" for module in cli.MODULES.values()}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [_cycle_in(component, edges) for component in components]


def _cycle_in(component: list[str], edges: dict[str, set[str]]) -> list[str]:
    """A shortest cycle from the component's first module back to itself, for the message."""
    start = component[0]
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(edges[node] & set(component)):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle in the component {component}")


def test_the_package_has_no_import_cycle() -> None:
    found = cycles(graph())
    assert found == [], "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in found)


def test_the_walk_sees_the_imports_it_must() -> None:
    edges = graph()
    assert len(edges) >= 40
    assert "cortex_hooks.api.databases" in edges["cortex_hooks.cli.database"]  # from p.m import name
    assert "cortex_hooks.cli.render" in edges["cortex_hooks.cli.doctor_command"]  # from p import module
    assert "cortex_hooks.hooks.record" in edges["cortex_hooks.hooks.pre_tool_use"]  # inside a function
    assert "cortex_hooks.cli.doctor_command" in edges["cortex_hooks.cli"]  # by name, when the command runs
    assert "cortex_hooks.config" in edges["cortex_hooks.location"]  # under TYPE_CHECKING


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": set(), "b": {"a"}}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b", "a"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c", "a"]]),
        ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [["a", "b", "a"], ["c", "d", "c"]]),
    ],
)
def test_cycles_are_found_and_named(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(edges) == expected
