"""The one path a change of a table takes: load once, rebuild the deal once, decide, save, hand on.

Every tap, bot move and timeout changes its table through :meth:`Tables.run`:

1. **load** the table once: a table this process saved moments ago is not read back (the
   compare-and-set tells whether it is still the stored one), any other is read from storage;
2. **rebuild** the deal in play once, or take it from a cache keyed by the table's key, id and
   stamp (version and revision: what the compare-and-set compares, so one stamp is one stored state,
   even after a Redis that went back to an older state was advanced again to the same version);
3. **decide**: the caller's function changes the table through a :class:`Change` (which plays a
   move on the rebuilt deal, never on a copy of the record) and returns what it needs;
4. **save** with one compare-and-set, which also arms the table's timers (one round trip);
5. hand one :class:`Snapshot` (the table as saved and its deal) to the renderers
   (:meth:`Tables.publish`): the presenter, the bot driver and the timers read the deal from it and
   never rebuild it.

A lost race (another process saved first) decides again on the stored table.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from bot import logs
from bot.engine import Action, Deal
from bot.stats import counting
from bot.stats.entry import entry_of
from bot.storage import StaleWrite, Table, TimerPlan
from bot.storage.invariants import vouch
from bot.table import game
from bot.table.core import Core, TableKey, key_of
from bot.table.game import Progress

R = TypeVar("R")
_LOG = logging.getLogger(__name__)
#: Seconds a table this process saved is changed again without reading it back (see :meth:`Tables.run`).
RECENT_SECONDS = 5.0
#: Tables kept so at most (the least recently saved are forgotten).
RECENT_KEPT = 2000
#: Tables whose deal in play is kept (one deal each: its latest state).
DEALS_KEPT = 2000
_UNBUILT: Any = object()


class DealCache:
    """The deal in play of each table lately changed or read, with the table id and stamp it is of.

    A stamp (version and revision) names one stored state of a table (every save bumps the version
    and draws a new revision), so a deal found for the same id and stamp is the one its record gives;
    the count of moves is compared as well. One deal per table (the least recently used
    forgotten first): an older state's deal is held by the snapshots that still show it, if any.
    """

    def __init__(self, kept: int = DEALS_KEPT) -> None:
        self._kept = kept
        self._deals: OrderedDict[TableKey, tuple[str, tuple[int, str], Deal]] = OrderedDict()

    def get(self, table: Table) -> Deal | None:
        """The deal in play of ``table`` (rebuilt from its record once, then kept)."""
        m = table.match
        if m is None or m.current is None:
            return None
        deal = self.peek(table)
        if deal is None:
            deal = game.replay(m.current)
            vouch(m.current, deal)
            self.put(table, deal)
        return deal

    def peek(self, table: Table) -> Deal | None:
        """The deal in play of ``table`` if it is kept (never rebuilt here).

        The deal found is vouched for as the one the table's record gives, so the check before the
        table is saved again (bot/storage/invariants.py) checks it rather than replay the record.
        """
        m = table.match
        if m is None or m.current is None:
            return None
        key = key_of(table)
        found = self._deals.get(key)
        if found is None:
            return None
        table_id, stamp, deal = found
        if (table_id, stamp) != (table.table_id, table.stamp) or len(deal.moves) != len(
            m.current.get("moves", ())
        ):
            return None
        self._deals.move_to_end(key)
        vouch(m.current, deal)
        return deal

    def put(self, table: Table, deal: Deal | None) -> None:
        """Keep ``deal`` as the deal in play of ``table`` at its stamp (unless a newer version is kept)."""
        if deal is None:
            return
        key = key_of(table)
        found = self._deals.get(key)
        if found is not None and found[0] == table.table_id and found[1][0] > table.version:
            return
        self._deals[key] = (table.table_id, table.stamp, deal)
        self._deals.move_to_end(key)
        if len(self._deals) > self._kept:
            self._deals.popitem(last=False)


class Snapshot:
    """A table as stored and its deal in play (built at most once, then shared: never change it).

    ``progress``: what the change did (finished deals, the match over); ``taken``: when the update
    behind it was taken (the bench times its rendering); ``armed``: its timers were armed with the
    save that made it.
    """

    __slots__ = ("_cache", "_deal", "armed", "progress", "table", "taken")

    def __init__(
        self,
        table: Table,
        deal: Deal | None = _UNBUILT,
        *,
        cache: DealCache | None = None,
        progress: Progress | None = None,
        taken: float | None = None,
        armed: bool = False,
    ) -> None:
        self.table = table
        self._deal = deal
        self._cache = cache
        self.progress = progress
        self.taken = taken
        self.armed = armed

    @property
    def key(self) -> TableKey:
        """The table's storage key."""
        return key_of(self.table)

    @property
    def deal(self) -> Deal | None:
        """The deal in play, if any."""
        if self._deal is _UNBUILT:
            self._deal = self._cache.get(self.table) if self._cache is not None else game.deal_of(self.table)
        deal: Deal | None = self._deal
        return deal

    @property
    def built(self) -> Any:
        """The deal if it was built (or given) already, else a marker that it was not."""
        return self._deal

    def to_act(self) -> int | None:
        """The seat the deal in play waits for, if a match is being played."""
        if self.table.status != "playing":
            return None
        deal = self.deal
        return None if deal is None else deal.to_act


class Change:
    """What a decision is made on: the table (None if there is none) and its deal in play.

    A move goes through :meth:`play` (or a new match through :meth:`start`), so the deal it makes
    is the one handed on; changing ``table.match.current`` any other way is noticed, and that deal
    is rebuilt from its record.
    """

    def __init__(self, table: Table | None, snapshot: Snapshot | None, rng: random.Random) -> None:
        self.table = table
        self._before = snapshot
        self.rng = rng
        self.progress: Progress | None = None

    @property
    def deal(self) -> Deal | None:
        """The deal in play now."""
        if self.progress is not None:
            return self.progress.deal
        return self._before.deal if self._before is not None else None

    def play(self, seat: int, action: Action) -> Progress:
        """Take ``action`` for ``seat`` (see :func:`bot.table.game.play`)."""
        assert self.table is not None
        progress = game.play(self.table, self.deal, seat, action, self.rng)
        self._merge(progress)
        return progress

    def start(self, rng: random.Random) -> Progress:
        """Begin a match at the table (see :func:`bot.table.game.start_match`)."""
        assert self.table is not None
        progress = game.start_match(self.table, rng)
        self._merge(progress)
        return progress

    def _merge(self, progress: Progress) -> None:
        if self.progress is not None:
            progress.finished[:0] = self.progress.finished
        self.progress = progress

    def moved(self, current: object) -> bool:
        """Whether the deal in play is another than the one the change began with."""
        return self.progress is not None or (
            self.table is not None and (self.table.match.current if self.table.match else None) is not current
        )


class Renderer(Protocol):
    """What a change is handed to: the presenter, the bot driver, the timers."""

    def show(self, snapshot: Snapshot) -> None:
        """Take the new state of a table (without waiting for anything)."""
        ...


#: The timers a state needs, armed with its save (the timers' :meth:`~bot.table.timers.Timers.plan`).
Planner = Callable[[Snapshot], Awaitable[TimerPlan | None]]
#: Told of the achievements a finish earned, to announce them (bot/tg/announcer.py).
Announce = Callable[[Table, list[counting.Earned]], None]


class Tables:
    """The table use case: see the module docstring."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.deals = DealCache()
        self.renderers: list[Renderer] = []
        self.planner: Planner | None = None
        self.announce: Announce | None = None
        #: The tables this process saved lately: (monotonic time, stamp, JSON), oldest first.
        self._saved: OrderedDict[TableKey, tuple[float, tuple[int, str], str]] = OrderedDict()
        #: Held only while in use (a waiter or holder keeps its lock alive), so ended tables leave none.
        self._locks: weakref.WeakValueDictionary[TableKey, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, key: TableKey) -> asyncio.Lock:
        """The in-process lock of a table (cross-process safety comes from compare-and-set)."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def ttl(self, table: Table) -> float:
        """How long an untouched table is kept."""
        # Beyond the expiry timers (bot/table/timers.py), which delete the table with a notice first,
        # even when they fire late because the bot was down.
        settings = self.core.settings
        if table.status == "lobby":
            return settings.lobby_ttl + 3600
        return settings.over_ttl if table.status == "over" else settings.table_ttl + 86400

    def snapshot(self, table: Table, **kwargs: Any) -> Snapshot:
        """A snapshot of a table as stored (its deal from the cache, or rebuilt once when read)."""
        return Snapshot(table, cache=self.deals, **kwargs)

    async def load(self, key: TableKey) -> Snapshot | None:
        """The stored table of ``key`` (read from storage), if any."""
        table = await self.core.storage.load_table(*key)
        return None if table is None else self.snapshot(table)

    async def run(
        self, key: TableKey, decide: Callable[[Change], R], *, taken: float | None = None
    ) -> tuple[Snapshot | None, R]:
        """Decide on the stored table and save what changed with compare-and-set, retrying lost races.

        ``decide`` changes ``change.table`` (``None`` if there is none) and returns what the caller
        needs; it raises (e.g. :class:`~bot.table.game.Refusal`) to refuse. A change that alters
        nothing is not written. Returns the table as stored (a snapshot; None if there is none) and
        ``decide``'s result.

        Only a change that saves is decided on a kept copy (see :meth:`_recent`): a refusal, or a
        change that alters nothing, is decided again on the table read from storage, so no answer
        rests on a copy another process may have outdated.
        """
        storage, clock = self.core.storage, self.core.settings.clock
        async with self.lock(key):
            for _ in range(8):
                table = self._recent(key)
                recent = table is not None
                if table is None:
                    table = await storage.load_table(*key)
                if table is None:
                    return None, decide(Change(None, None, self.core.rng))
                logs.bind(chat_id=table.chat_id, game_id=table.table_id)
                before_snap = self.snapshot(table, taken=taken)
                current = table.match.current if table.match else None
                # The time of this change is set first, so one JSON before and one after tell
                # whether anything changed, and the one after is what is stored.
                updated_at, table.updated_at = table.updated_at, clock()
                before = table.model_dump_json()
                change = Change(table, before_snap, self.core.rng)
                try:
                    result = decide(change)
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
                    return before_snap, result
                if change.progress is not None:
                    deal = change.progress.deal
                elif change.moved(current):
                    deal = _UNBUILT  # rebuilt from the new record when first read
                else:
                    # The record is the same: so is the deal (taken from the cache if it was not
                    # read, which vouches for it to the check before the save).
                    deal = before_snap.built
                    if deal is _UNBUILT:
                        deal = self.deals.peek(table) or _UNBUILT
                snap = Snapshot(table, deal, cache=self.deals, progress=change.progress, taken=taken)
                timers = await self.planner(snap) if self.planner is not None else None
                try:
                    await storage.save_table(table, ttl=self.ttl(table), data=after, timers=timers)
                except StaleWrite:
                    self._saved.pop(key, None)
                    continue
                snap.armed = timers is not None
                self._keep(key, table.stamp, after)
                if snap.built is not _UNBUILT:
                    self.deals.put(table, snap.built)
                return snap, result
        raise StaleWrite(f"table {key} is too busy")

    async def transact(self, key: TableKey, change: Callable[[Table | None], R]) -> tuple[Table | None, R]:
        """:meth:`run` for a change of the table alone: returns the table as stored and the result."""
        snap, result = await self.run(key, lambda c: change(c.table))
        return (snap.table if snap is not None else None), result

    def _recent(self, key: TableKey) -> Table | None:
        """A copy of the table as this process saved it, if that was less than ``RECENT_SECONDS`` ago.

        The compare-and-set checks its stamp (version and revision), so a copy another process
        outdated is refused, also when Redis went back to an older state meanwhile and the other
        process advanced that to the same version (the revisions differ). Kept briefly all the same.
        """
        found = self._saved.get(key)
        if found is None:
            return None
        at, stamp, data = found
        if time.monotonic() - at > RECENT_SECONDS:
            del self._saved[key]
            return None
        table = Table.model_validate_json(data)
        table.version, table.revision = stamp
        return table

    def _keep(self, key: TableKey, stamp: tuple[int, str], data: str) -> None:
        self._saved[key] = (time.monotonic(), stamp, data)
        self._saved.move_to_end(key)
        if len(self._saved) > RECENT_KEPT:
            self._saved.popitem(last=False)

    async def create(self, table: Table) -> bool:
        """Store a new table; False if the chat (topic) got one meanwhile."""
        async with self.lock(key_of(table)):
            try:
                await self.core.storage.save_table(table, ttl=self.ttl(table))
            except StaleWrite:
                return False
            return True

    async def archive(self, table: Table) -> None:
        """Keep the finished (or stopped) match's record in the chat's history."""
        if table.match is not None and table.match.deals:
            # Kept and counted in the standings once, however often a finish is handled (bot/stats).
            entry = entry_of(table, at=table.updated_at or self.core.settings.clock())
            archived = await counting.finish(self.core.storage, entry)
            if archived.earned and self.announce is not None:
                self.announce(table, archived.earned)  # earned now, never before: announced once

    async def publish(self, snap: Snapshot) -> None:
        """Hand a change to the renderers (and keep the record of a match that just ended)."""
        progress = snap.progress
        if progress is not None and (progress.match_over or progress.unsupported):
            await self.archive(snap.table)
        for renderer in self.renderers:
            renderer.show(snap)
