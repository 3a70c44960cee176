"""The engine is pure: no I/O, no Telegram, no Redis, no asyncio, no global random."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "bot" / "engine"
#: Command-line entry points that live beside the engine and may read files and print.
CLI = {"replay.py"}
#: Bot modules that may read a clock: anytime search stops at a time budget (``Budget.clock``, wall or
#: CPU time), which changes how long a bot thinks, never what the rules allow. Only ``time``, only here.
CLOCK = {"ai/budget.py"}
FORBIDDEN = {
    "asyncio",
    "socket",
    "telegram",
    "redis",
    "aiohttp",
    "httpx",
    "requests",
    "subprocess",
    "os",
    "sys",
    "io",
    "pathlib",
    "shutil",
    "sqlite3",
    "time",
    "threading",
    "multiprocessing",
    "urllib",
    "logging",
    "bot.storage",
    "bot.table",
    "bot.render",
    "bot.tg",
    "bot.sandbox",
    "bot.measure",
}


def _modules() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py") if p.name not in CLI)


def test_engine_imports_no_io_module() -> None:
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            rel = path.relative_to(ENGINE).as_posix()
            for name in names:
                if name == "time" and rel in CLOCK:
                    continue
                assert not any(name == f or name.startswith(f + ".") for f in FORBIDDEN), (
                    f"{path.name}: {name}"
                )


def test_engine_uses_no_global_random() -> None:
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "random":
                raise AssertionError(f"{path.name}: from random import ... (pass an rng in)")
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                assert node.attr == "Random", f"{path.name}: random.{node.attr} uses the global generator"
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("print", "open")
            ):
                raise AssertionError(f"{path.name}: {node.func.id}() is I/O")
