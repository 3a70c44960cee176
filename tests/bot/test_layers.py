"""The Telegram side imports in layers: no module of bot/table, bot/render or bot/tg imports, through
others, itself back."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"
PACKAGES = ("bot.table", "bot.render", "bot.tg")


def import_graph() -> dict[str, set[str]]:
    """Each module of those packages (by its name, one of a kind across them) and the modules of them
    it imports (TYPE_CHECKING too)."""
    paths = [p for package in PACKAGES for p in (BOT / package.split(".")[1]).glob("*.py")]
    modules = {p.stem for p in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
                if node.module in PACKAGES:
                    names = [alias.name for alias in node.names]
                elif node.module.startswith(PACKAGES):
                    names = [node.module.split(".")[2]]
            elif isinstance(node, ast.Import):
                names = [a.name.split(".")[2] for a in node.names if a.name.startswith(PACKAGES)]
            found.update(n for n in names if n in modules and n != path.stem)
        graph[path.stem] = found
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph`` (each as the path that closes it)."""
    found: list[list[str]] = []
    state: dict[str, str] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_no_import_circle_among_the_handlers() -> None:
    graph = import_graph()
    assert {"services", "usecase", "presenter", "bots", "timers", "codec"} <= set(graph)
    assert cycles(graph) == []


def test_the_use_case_and_the_renderers_do_not_import_the_services_hub() -> None:
    graph = import_graph()
    for module in ("core", "usecase", "presenter", "bots", "timers", "game", "codec"):
        assert "services" not in graph[module], module


def test_the_cycle_finder_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]
