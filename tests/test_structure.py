"""The shape of the code: no import circle among bot's modules, and no module of bot/ over 500 lines.

Imports are read from the source with ``ast``, not by importing: every ``import`` and ``from … import``
counts wherever it stands — at the top, inside a function (a lazy import that dodges a circle is still
a circle) or under ``if TYPE_CHECKING:`` (a type one module needs of another is still a dependency).
Relative imports are resolved against the importing module's package, and ``from pkg import name``
counts as an import of the module ``pkg.name`` when there is one, else of ``pkg`` itself. Importing
``a.b.c`` runs the packages ``a`` and ``a.b`` first; those implicit steps are not counted (a package's
``__init__`` re-exporting its modules is not a circle), nor are imports by a computed name
(``importlib.import_module``).
"""

from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "bot"
#: Physical lines a module of bot/ may have at most.
MAX_LINES = 500


@dataclass(frozen=True, slots=True)
class Edge:
    """One import: of module ``target``, at ``line`` of the importing module's file."""

    target: str
    line: int


def modules(package: Path = BOT) -> dict[str, Path]:
    """Every module of ``package`` by dotted name (a package by its own name, for its ``__init__.py``)."""
    out: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _known(name: str, mods: dict[str, Path]) -> str | None:
    """``name`` or the nearest package above it that is one of ``mods`` (``None``: none is)."""
    while name:
        if name in mods:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(name: str, path: Path, mods: dict[str, Path]) -> list[Edge]:
    """The modules among ``mods`` that module ``name`` imports, each with the line of the import."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges: list[Edge] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
            line = node.lineno
        elif isinstance(node, ast.ImportFrom):
            line = node.lineno
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - (node.level - 1)])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                targets.append(sub if sub in mods else source)
        for target in targets:
            found = _known(target, mods)
            if found is not None and found != name:
                edges.append(Edge(found, line))
    return edges


def import_graph(mods: dict[str, Path]) -> dict[str, list[Edge]]:
    """Module -> its imports of ``mods``."""
    return {name: _imports(name, path, mods) for name, path in mods.items()}


def strongly_connected(graph: dict[str, list[Edge]]) -> list[list[str]]:
    """The groups of modules that import one another, directly or not (Tarjan's algorithm, without
    recursion); only groups of two or more."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on_stack.add(v)
            targets = graph[v]
            while i < len(targets):
                w = targets[i].target
                i += 1
                if w not in index:
                    work.append((v, i))
                    work.append((w, 0))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                if low[v] == index[v]:
                    group: list[str] = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        group.append(w)
                        if w == v:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
    return groups


def a_circle(graph: dict[str, list[Edge]], group: list[str], mods: dict[str, Path]) -> str:
    """One shortest circle through the group's first module, each import with its file and line."""
    members = set(group)
    start = group[0]
    came: dict[str, tuple[str, Edge]] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for edge in graph[v]:
            if edge.target not in members or edge.target in came:
                continue
            came[edge.target] = (v, edge)
            if edge.target == start:
                queue.clear()
                break
            queue.append(edge.target)
    steps: list[str] = []
    at = start
    while True:
        before, edge = came[at]
        steps.append(f"{before} -> {at} ({mods[before].name}:{edge.line})")
        at = before
        if at == start:
            break
    return "; ".join(reversed(steps))


def circles(package: Path) -> list[str]:
    """Each group of ``package``'s modules that import one another, with one circle through it."""
    mods = modules(package)
    graph = import_graph(mods)
    return [f"{', '.join(g)}\n    e.g. {a_circle(graph, g, mods)}" for g in strongly_connected(graph)]


def test_no_import_circle_in_bot() -> None:
    assert import_graph(modules())["bot.engine.deal"], "the import graph was not read"
    found = circles(BOT)
    assert not found, "modules of bot/ that import one another:\n  " + "\n  ".join(found)


def test_no_module_of_bot_over_500_lines() -> None:
    sizes = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in modules().values()}
    over = sorted((n, path.relative_to(ROOT).as_posix()) for path, n in sizes.items() if n > MAX_LINES)
    assert not over, f"modules of bot/ over {MAX_LINES} lines: " + ", ".join(f"{p} ({n})" for n, p in over)


def test_the_product_never_imports_the_measuring_tools() -> None:
    """``bot/measure/`` drives the bot from outside (benches, arenas, the soak); nothing else imports it."""
    graph = import_graph(modules())
    assert any(name.startswith("bot.measure.") for name in graph), "bot/measure/ was not read"
    found = [
        f"{name} imports {edge.target} (line {edge.line})"
        for name, edges in graph.items()
        if not (name == "bot.measure" or name.startswith("bot.measure."))
        for edge in edges
        if edge.target == "bot.measure" or edge.target.startswith("bot.measure.")
    ]
    assert not found, "runtime modules importing the measuring tools:\n  " + "\n  ".join(found)


def test_a_circle_is_found_through_relative_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from pkg.a import A\n",
        "a.py": "from . import b\nA = 1\n",
        "b.py": "def f() -> None:\n    from .sub import c\n",
        "sub/__init__.py": "",
        "sub/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import A\n",
        "d.py": "import pkg.a\nimport os\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text, encoding="utf-8")
    (found,) = circles(pkg)
    assert found.startswith("pkg.a, pkg.b, pkg.sub.c\n")
    assert "pkg.a -> pkg.b (a.py:1)" in found
    assert "pkg.b -> pkg.sub.c (b.py:2)" in found
    assert "pkg.sub.c -> pkg.a (c.py:3)" in found
    # Without the import under TYPE_CHECKING there is none; the package importing a is none either.
    (pkg / "sub" / "c.py").write_text("", encoding="utf-8")
    assert circles(pkg) == []
