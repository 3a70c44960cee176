"""What every handler needs, built once by the composition root: storage, outbox, presenter, bots.

``transact`` is the one way a table changes: load, mutate, compare-and-set, retry on a lost race.
"""

from __future__ import annotations

import asyncio
import random
import time
import weakref
from collections import OrderedDict
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
    from bot.handlers.timers import Timers

R = TypeVar("R")
TableKey = tuple[int, int | None]
#: Seconds a table this process saved is changed again without reading it back (see ``transact``).
RECENT_SECONDS = 5.0
#: Tables kept so at most (the least recently saved are forgotten).
RECENT_KEPT = 2000


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
    #: Seconds a person has for a decision in a chat that chose none in /settings (0: no timer).
    turn_time: int = 60
    #: How often the timers stored in Redis are checked for due ones (seconds).
    timer_interval: float = 1.0
    #: The Unix time, for timers and expiry; tests pass a clock they move by hand.
    clock: Callable[[], float] = time.time
    #: Seconds an update is held by the process handling it; a delivery after that (the process
    #: died) is handled again. Longer than any handler takes.
    update_lease: float = 30.0
    #: Seconds a claimed timer is held by the process firing it; after that (the process died) it
    #: is due again.
    timer_lease: float = 60.0
    #: The operator's language (``DEFAULT_LANGUAGE``), where no chat or person has one.
    default_language: str = "ru"


@dataclass
class Stats:
    """Handling times of taps (seconds, network excluded), for the bench."""

    tap_times: list[float] = field(default_factory=list)
    #: From a move's update being taken until the presenter has queued its messages (up to the
    #: first call it must wait for: a new message's id).
    queued_times: list[float] = field(default_factory=list)


_TAKEN = "kozel_taken_at"


def mark_taken(context: object) -> None:
    """Note when the update of ``context`` was taken (its first handler runs), for handling times."""
    vars(context)[_TAKEN] = time.perf_counter()


def taken_at(context: object) -> float:
    """When the update of ``context`` was taken (now, if nobody noted it)."""
    at = vars(context).get(_TAKEN)
    return at if isinstance(at, float) else time.perf_counter()


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
    timers: Timers = field(init=False)
    #: The tables this process saved lately: (monotonic time, version, JSON), oldest first.
    _saved: OrderedDict[TableKey, tuple[float, int, str]] = field(default_factory=OrderedDict)
    #: Held only while in use (a waiter or holder keeps its lock alive), so ended tables leave none.
    _locks: weakref.WeakValueDictionary[TableKey, asyncio.Lock] = field(
        default_factory=weakref.WeakValueDictionary
    )

    def lock(self, key: TableKey) -> asyncio.Lock:
        """The in-process lock of a table (cross-process safety comes from compare-and-set)."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def ttl(self, table: Table) -> float:
        """How long an untouched table is kept."""
        # Beyond the expiry timers (bot/handlers/timers.py), which delete the table with a notice first,
        # even when they fire late because the bot was down.
        if table.status == "lobby":
            return self.settings.lobby_ttl + 3600
        return self.settings.over_ttl if table.status == "over" else self.settings.table_ttl + 86400

    async def transact(self, key: TableKey, change: Callable[[Table | None], R]) -> tuple[Table | None, R]:
        """Apply ``change`` to the stored table and save it with compare-and-set, retrying lost races.

        ``change`` mutates the table it is given (``None`` if there is none) and returns what the
        caller needs; it raises (e.g. :class:`Refusal`) to refuse. A change that alters nothing is
        not written. Returns the table as saved and ``change``'s result.

        A table this process saved moments ago is not read back (see :meth:`_recent`): the
        compare-and-set tells whether it is still the stored one. Only a change that saves is
        decided on it; a refusal, or a change that alters nothing, is decided again on the table
        read from storage, so no answer rests on a copy another process may have outdated.
        """
        async with self.lock(key):
            for _ in range(8):
                table = self._recent(key)
                recent = table is not None
                if table is None:
                    table = await self.storage.load_table(*key)
                if table is None:
                    return None, change(None)
                logs.bind(chat_id=table.chat_id, game_id=table.table_id)
                # The time of this change is set first, so one JSON before and one after tell
                # whether anything changed, and the one after is what is stored.
                updated_at, table.updated_at = table.updated_at, self.settings.clock()
                before = table.model_dump_json()
                try:
                    result = change(table)
                except Exception:
                    if not recent:
                        raise
                    self._saved.pop(key, None)
                    continue
                after = table.model_dump_json()
                if after == before:
                    if recent:
                        self._saved.pop(key, None)
                        continue
                    table.updated_at = updated_at
                    return table, result
                try:
                    await self.storage.save_table(table, ttl=self.ttl(table), data=after)
                except StaleWrite:
                    self._saved.pop(key, None)
                    continue
                self._keep(key, table.version, after)
                return table, result
        raise StaleWrite(f"table {key} is too busy")

    def _recent(self, key: TableKey) -> Table | None:
        """A copy of the table as this process saved it, if that was less than ``RECENT_SECONDS`` ago.

        Kept briefly: the compare-and-set is on the version alone, and a table deleted and made
        again (by another process) would only reach the same version after many changes.
        """
        found = self._saved.get(key)
        if found is None:
            return None
        at, version, data = found
        if time.monotonic() - at > RECENT_SECONDS:
            del self._saved[key]
            return None
        table = Table.model_validate_json(data)
        table.version = version
        return table

    def _keep(self, key: TableKey, version: int, data: str) -> None:
        self._saved[key] = (time.monotonic(), version, data)
        self._saved.move_to_end(key)
        if len(self._saved) > RECENT_KEPT:
            self._saved.popitem(last=False)

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

    async def after_change(
        self, table: Table, progress: Progress | None, *, taken: float | None = None
    ) -> None:
        """Render the change, let bot players move, and keep the record of a match that just ended.

        ``taken``: when the update that made the change was taken, to time its rendering (the bench).
        """
        if progress is not None and (progress.match_over or progress.unsupported):
            await self.archive(table)
        self.presenter.show(table, progress, taken=taken)
        self.driver.kick(table)
        self.timers.arm_soon(table)

    def deep_link(self, payload: str) -> str:
        """A t.me link that opens the bot's DM with a start payload."""
        return f"https://t.me/{self.bot_username}?start={payload}"
