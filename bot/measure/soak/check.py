"""What the soak checks at the end: every stored state, the instances' logs, and every move the bot
acknowledged, looked up in the stored records (it must be there exactly once)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.engine.invariants import replay_checked
from bot.measure.soak.people import AckedMove
from bot.stats.entry import meta_of
from bot.storage import RedisStorage, Table
from bot.storage.invariants import table_problems


async def scan(storage: RedisStorage) -> dict[str, Any]:
    """Check every stored table and every archived match; count deals."""
    finished = void = tables = 0
    violations: list[str] = []
    async for table in storage.tables():
        tables += 1
        problems = table_problems(table, deep=True)
        violations += [f"chat {table.chat_id}: {p}" for p in problems]
        finished, void = count_deals(table, finished, void)
    archived = 0
    for key, record in await _archived(storage):
        archived += 1
        for i, deal_record in enumerate(record.get("deals", [])):
            deal, problems = replay_checked(deal_record, every_move=True)
            violations += [f"{key} deal {i}: {p}" for p in problems]
            if deal is not None and deal.result is not None:
                if deal.result.void:
                    void += 1
                else:
                    finished += 1
    return {
        "tables": tables,
        "archived_matches": archived,
        "finished": finished,
        "void": void,
        "violations": violations,
    }


async def _archived(storage: RedisStorage) -> list[tuple[str, dict[str, Any]]]:
    """Every archived match: (its history key, its entry)."""
    keys = [k async for k in storage.client.scan_iter(match=f"{storage.prefix}kozel:*:history")]
    return [(key, json.loads(raw)) for key in keys for raw in await storage.client.lrange(key, 0, -1)]


def count_deals(table: Table, finished: int, void: int) -> tuple[int, int]:
    """``finished`` and ``void`` with the table's finished deals added."""
    if table.match is None:
        return finished, void
    for record in table.match.deals:
        deal, _ = replay_checked(record)
        if deal is not None and deal.result is not None and deal.result.void:
            void += 1
        else:
            finished += 1
    return finished, void


def log_errors(paths: list[Path]) -> tuple[list[str], int, int]:
    """Lines logged at ERROR or above (and anything that is not a JSON log line), the warnings, and
    the saves the storage refused because the state broke an invariant (each is an error too)."""
    errors, warnings, refused = [], 0, 0
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text(errors="replace").splitlines():
            try:
                level = json.loads(line)["level"]
            except (ValueError, KeyError, TypeError):
                errors.append(f"{path.name}: {line}")
                continue
            if level in ("ERROR", "CRITICAL"):
                errors.append(f"{path.name}: {line}")
                refused += "InvariantViolation" in line
            elif level == "WARNING":
                warnings += 1
    return errors, warnings, refused


def log_lines(paths: list[Path], text: str) -> int:
    """How many log lines of ``paths`` have ``text`` in their message."""
    found = 0
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text(errors="replace").splitlines():
            try:
                found += text in json.loads(line)["msg"]
            except (ValueError, KeyError, TypeError):
                continue
    return found


@dataclass
class _Match:
    """A match as stored: its deals by sequence number (``deal_seq`` - 1) and its people's seats."""

    deals: list[dict[str, Any]]
    seats: dict[int, int] = field(default_factory=dict)


async def stored_matches(storage: RedisStorage) -> dict[tuple[int, str], _Match]:
    """Every match the storage holds, by (chat, table id): archived ones, then the tables (a table
    and its archived copy are the same match; the table's is the newer)."""
    found: dict[tuple[int, str], _Match] = {}
    for _key, entry in await _archived(storage):
        meta = meta_of(entry)
        if meta is not None:
            seats = {p.user_id: s for s, p in enumerate(meta.seats) if p.user_id is not None}
            found[(meta.chat_id, meta.id)] = _Match(list(entry.get("deals", [])), seats)
    async for table in storage.tables():
        if table.match is None:
            continue
        deals = list(table.match.deals) + ([table.match.current] if table.match.current else [])
        seats = {p.user_id: s for s, p in enumerate(table.seats) if p is not None and p.user_id is not None}
        found[(table.chat_id, table.table_id)] = _Match(deals, seats)
    return found


def check_moves(moves: Sequence[AckedMove], matches: dict[tuple[int, str], _Match]) -> dict[str, Any]:
    """Each acknowledged move looked up in its match's deal: ``lost`` (not there) or ``doubled``
    (there more than once), with the first few of each."""
    lost: list[str] = []
    doubled: list[str] = []
    for move in moves:
        match = matches.get((move.chat_id, move.table_id))
        seat = match.seats.get(move.user_id) if match is not None else None
        deal = (
            match.deals[move.deal_seq - 1]
            if match is not None and 0 < move.deal_seq <= len(match.deals)
            else None
        )
        times = 0
        if deal is not None and seat is not None:
            times = sum(
                1 for m in deal.get("moves", []) if m.get("seat") == seat and m.get(move.key) == move.value
            )
        where = f"chat {move.chat_id} table {move.table_id} deal {move.deal_seq} seat {seat}"
        what = f"{where}: {move.key} {move.value}"
        if times == 0:
            lost.append(what)
        elif times > 1:
            doubled.append(f"{what} ({times} times)")
    return {"checked": len(moves), "lost": len(lost), "doubled": len(doubled),
            "first_lost": lost[:5], "first_doubled": doubled[:5]}  # fmt: skip


def quantiles(values: Sequence[float]) -> dict[str, float]:
    """p50, p95 and max of ``values`` (seconds, rounded to 0.01), all 0 when there are none."""
    ordered = sorted(values)
    if not ordered:
        return {"p50": 0.0, "p95": 0.0, "max": 0.0}

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"p50": at(0.5), "p95": at(0.95), "max": round(ordered[-1], 2)}
