"""The house's rooms: each folder of the package imports only folders below it, the MCP server and
the library never reach into the CLI, and the package root stays a small kernel."""

from __future__ import annotations

from test_imports import ROOT, cycles, graph

KERNEL_LIMIT = 20  # modules at the package root, __init__ included


def room(module: str) -> str:
    """The room a module lives in: its folder below the package, or the root module itself."""
    parts = module.split(".")
    return ".".join(parts[:2])


def rooms() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module, targets in graph().items():
        edges.setdefault(room(module), set()).update(
            room(target) for target in targets if room(target) != room(module)
        )
    return edges


def test_no_room_imports_a_room_that_imports_it_back() -> None:
    assert cycles(rooms()) == []


def test_only_the_cli_imports_the_cli() -> None:
    """(`python -m cortex_hooks`, the package's __main__, is the CLI's other door: it calls it.)"""
    cli = "cortex_hooks.cli"
    importers = {
        module
        for module, targets in graph().items()
        if room(module) != cli and any(room(target) == cli for target in targets)
    }
    assert importers == {"cortex_hooks.__main__"}


def test_the_front_doors_stand_side_by_side() -> None:
    """The CLI, the MCP server, the hooks and the resident process import none of each other
    (`cortex-hooks mcp` hands over to the server by exec, api.resident starts the process): each
    stands on the library."""
    doors = {f"cortex_hooks.{name}" for name in ("cli", "mcp", "hooks", "resident")}
    edges = rooms()
    assert {door: sorted(edges[door] & doors) for door in doors} == {door: [] for door in doors}
    assert all("cortex_hooks.api" in edges[door] for door in doors)


def test_the_root_is_a_small_kernel() -> None:
    kernel = sorted(path.name for path in ROOT.glob("*.py"))
    assert len(kernel) <= KERNEL_LIMIT, kernel


def test_the_room_graph_is_what_this_test_reads() -> None:
    """The checks above read real edges: the guard is imported by the hooks, the store by the guard's
    callers, and no folder is missing from the picture."""
    edges = rooms()
    assert "cortex_hooks.guard" in edges["cortex_hooks.hooks"]
    assert "cortex_hooks.store" in edges["cortex_hooks.hooks"]
    folders = {f"cortex_hooks.{path.name}" for path in ROOT.iterdir() if (path / "__init__.py").exists()}
    assert folders <= set(edges)


def test_imports_go_down_the_rooms_the_docs_draw() -> None:
    """The Development page (docs/internals/development.md) draws the rooms top to bottom: every
    import between two of them goes down that list (the root's kernel is below them all)."""
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "docs" / "internals" / "development.md"
    drawing = page.read_text(encoding="utf-8").split("Layout of the package:", 1)[1].split("```\n", 2)[1]
    order = [line.split("/", 1)[0] for line in drawing.splitlines() if line[:1].isalpha() and "/ " in line]
    folders = {path.name for path in ROOT.iterdir() if (path / "__init__.py").exists()}
    assert set(order) == folders
    edges = rooms()
    upward = [
        f"{source} -> {target}"
        for source, targets in edges.items()
        for target in targets
        if source.count(".") == 1
        and target.count(".") == 1
        and (name := source.split(".")[1]) in order
        and (other := target.split(".")[1]) in order
        and order.index(other) < order.index(name)
    ]
    assert upward == []


def test_the_code_cites_only_what_the_repository_holds() -> None:
    """A contributor can follow every reference the code makes: no section of a contract kept
    elsewhere (`SPEC §n`), and each docs page a module or a test names exists."""
    import re
    from pathlib import Path

    repository = Path(__file__).resolve().parent.parent  # the checkout (ROOT may be installed)
    sources = [
        *(repository / "cortex_hooks").rglob("*.py"),
        *(repository / "tests").glob("*.py"),
        *(repository / "benchmarks").rglob("*.py"),
    ]
    outside, missing = [], []
    for path in sorted(source for source in sources if source.name != "test_docs.py"):  # its own examples
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(repository)
        outside += [f"{where}: {found}" for found in re.findall(r"\bSPEC\s?§\s?[0-9.]+|\(§[0-9.]+", text)]
        pages = re.findall(
            r"\bdocs/(?:(?:guide|internals|reference)/[\w/.-]+|index|quickstart|install)\.md\b", text
        )
        missing += [f"{where}: {page}" for page in pages if not (repository / page).exists()]
    assert outside == []
    assert missing == []


def test_two_modules_share_a_file_name_only_as_a_library_and_its_sql() -> None:
    """A module is named after what it owns; the one shared name is a family's library in api/
    over its SQL in store/ (api/learnings, store/learnings)."""
    by_name: dict[str, list[str]] = {}
    for path in ROOT.rglob("*.py"):
        if path.name not in ("__init__.py", "__main__.py"):  # Python's own names
            by_name.setdefault(path.name, []).append(path.parent.relative_to(ROOT).as_posix())
    shared = {name: sorted(folders) for name, folders in by_name.items() if len(folders) > 1}
    assert shared, "the library and its SQL share names: this test reads real files"
    assert {name: folders for name, folders in shared.items() if folders != ["api", "store"]} == {}
