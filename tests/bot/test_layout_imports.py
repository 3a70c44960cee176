"""The Telegram side's packages import one way: the application layer (bot/table) knows neither
python-telegram-bot nor the renderers (bot/render) nor the Telegram adapter (bot/tg); the renderers
never import the adapter. Every import counts: at the top, in a function, under TYPE_CHECKING."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"

#: What each package may not import (a module of it, or the package itself).
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "bot.table": ("telegram", "bot.render", "bot.tg", "bot.webapp"),
    "bot.render": ("bot.tg", "bot.webapp"),
}
#: The second front end (the live table's API) reaches the table through the application layer and
#: draws with the renderers: the Telegram adapter is not its to call.
FRONT_ENDS: dict[str, tuple[str, ...]] = {"bot.webapp": ("telegram", "bot.tg")}


def imported(path: Path, package: str) -> set[str]:
    """Every module ``path`` (a module of ``package``) imports, anywhere in it, relative imports
    resolved; ``from a import b`` counts as ``a`` and ``a.b`` (``b`` may be a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def breaches(rules: dict[str, tuple[str, ...]]) -> list[str]:
    """``module imports forbidden`` for every import a rule forbids."""
    found: list[str] = []
    for package, banned in rules.items():
        for path in sorted((BOT.parent / package.replace(".", "/")).rglob("*.py")):
            module = ".".join(path.relative_to(BOT.parent).with_suffix("").parts)
            for name in sorted(imported(path, module.rpartition(".")[0])):
                if any(name == b or name.startswith(b + ".") for b in banned):
                    found.append(f"{module} imports {name}")
    return found


def test_the_application_layer_and_the_renderers_import_downwards_only() -> None:
    assert breaches(FORBIDDEN) == []


def test_the_live_table_calls_the_application_layer_not_the_telegram_adapter() -> None:
    assert breaches(FRONT_ENDS) == []


def test_the_rule_finder_sees_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from bot.tg.outbox import Outbox\n    import telegram.ext\n")
    assert {"bot.tg.outbox", "bot.tg.outbox.Outbox", "telegram.ext"} <= imported(source, "bot.table")
