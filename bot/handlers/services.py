"""What every handler needs, built once by the composition root: storage, outbox, presenter, bots.

``transact`` is the one way a table changes: load, mutate, compare-and-set, retry on a lost race.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from bot import logs
from bot.handlers.codec import Codec
from bot.handlers.game import Progress, match_record
from bot.handlers.outbox import Limits, Outbox
from bot.storage import StaleWrite, Storage, Table

if TYPE_CHECKING:
    from bot.handlers.bots import BotDriver
    from bot.handlers.presenter import Presenter

R = TypeVar("R")
TableKey = tuple[int, int | None]


@dataclass(frozen=True)
class Settings:
    """Tunables: bot thinking delay, expiry times, pacing."""

    #: Seconds a bot player waits before each decision, so people can follow the play.
    bot_delay: float = 1.0
    lobby_ttl: float = 15 * 60
    #: An abandoned game (nobody acted for this long) expires.
    table_ttl: float = 3 * 24 * 3600
    #: A finished match stays for a rematch this long.
    over_ttl: float = 6 * 3600
    limits: Limits = field(default_factory=Limits)


@dataclass
class Stats:
    """Handling times of taps (seconds, network excluded), for the bench."""

    tap_times: list[float] = field(default_factory=list)


@dataclass
class Services:
    """The bot's parts, shared by all handlers."""

    storage: Storage
    outbox: Outbox
    codec: Codec
    settings: Settings
    bot_username: str
    executor: Executor | None = None
    rng: random.Random = field(default_factory=random.SystemRandom)
    stats: Stats = field(default_factory=Stats)
    presenter: Presenter = field(init=False)
    driver: BotDriver = field(init=False)
    _locks: dict[TableKey, asyncio.Lock] = field(default_factory=dict)

    def lock(self, key: TableKey) -> asyncio.Lock:
        """The in-process lock of a table (cross-process safety comes from compare-and-set)."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def ttl(self, table: Table) -> float:
        """How long an untouched table is kept."""
        if table.status == "lobby":
            return self.settings.lobby_ttl + 60
        return self.settings.over_ttl if table.status == "over" else self.settings.table_ttl

    async def transact(self, key: TableKey, change: Callable[[Table | None], R]) -> tuple[Table | None, R]:
        """Apply ``change`` to the stored table and save it with compare-and-set, retrying lost races.

        ``change`` mutates the table it is given (``None`` if there is none) and returns what the
        caller needs; it raises (e.g. :class:`Refusal`) to refuse. A change that alters nothing is
        not written. Returns the table as saved and ``change``'s result.
        """
        async with self.lock(key):
            for _ in range(8):
                table = await self.storage.load_table(*key)
                if table is not None:
                    logs.bind(chat_id=table.chat_id, game_id=table.table_id)
                before = table.model_dump_json() if table is not None else None
                result = change(table)
                if table is None or table.model_dump_json() == before:
                    return table, result
                table.updated_at = time.time()
                try:
                    await self.storage.save_table(table, ttl=self.ttl(table))
                except StaleWrite:
                    continue
                return table, result
        raise StaleWrite(f"table {key} is too busy")

    async def create(self, table: Table) -> bool:
        """Store a new table; False if the chat (topic) got one meanwhile."""
        async with self.lock((table.chat_id, table.thread_id)):
            try:
                await self.storage.save_table(table, ttl=self.ttl(table))
            except StaleWrite:
                return False
            return True

    async def archive(self, table: Table) -> None:
        """Keep the finished (or stopped) match's record in the chat's history."""
        if table.match is not None and table.match.deals:
            await self.storage.push_history(table.chat_id, match_record(table))

    async def after_change(self, table: Table, progress: Progress | None) -> None:
        """Render the change, let bot players move, and keep the record of a match that just ended."""
        if progress is not None and (progress.match_over or progress.unsupported):
            await self.archive(table)
        self.presenter.show(table, progress)
        self.driver.kick(table)

    def deep_link(self, payload: str) -> str:
        """A t.me link that opens the bot's DM with a start payload."""
        return f"https://t.me/{self.bot_username}?start={payload}"
