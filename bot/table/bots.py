"""Bot players at a table: wait a moment, think off the event loop, play through the table use case.

:func:`decide` is the one place a bot player's decision is taken (for a bot seat here, and for an
absent person at a timeout in :mod:`bot.table.timers`): off the event loop, falling back to the
random player if the level fails or chooses an illegal action.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from functools import lru_cache
from typing import Any, Protocol

from bot.engine import Action, KozelError, SeatView, view_for
from bot.engine.ai import LEVELS, Player, make_player
from bot.storage import Table
from bot.storage.errors import storage_down
from bot.table.core import Core, TableKey, key_of
from bot.table.game import Progress, decider
from bot.table.usecase import Change, Snapshot, Tables
from bot.thinking import Thinker

_LOG = logging.getLogger(__name__)
#: Seconds a bot player waits before trying a move again while storage is unavailable, doubled
#: up to :data:`STORAGE_RETRY_CAP`: it moves within that long of storage coming back.
STORAGE_RETRY = 0.25
STORAGE_RETRY_CAP = 2.0


def player_for(level: str | None) -> Player:
    """The bot player of ``level``, or the random one if that level is not built."""
    try:
        return make_player(level or "random")
    except KozelError:
        return make_player("random")


async def decide(
    level: str | None,
    view: SeatView,
    rng: random.Random,
    thinker: Thinker | None,
    waits: deque[float] | None = None,
) -> Action:
    """The decision of the bot player of ``level`` for ``view``, thought off the event loop: by
    ``thinker`` (:mod:`bot.thinking`), else in a thread of the loop's default pool. ``waits`` gets
    how long it took, queue and thought.

    A player must never stall a table: one that fails, or chooses an action ``view.legal`` does not
    hold, is replaced by the random player for this decision, and reported. Storage that cannot take
    the job (``thinker`` on Redis: :func:`bot.storage.errors.storage_down`) is no failure of the
    player: that error is raised, and the caller decides again once storage is back.
    """
    player = player_for(level)
    began = time.perf_counter()
    try:
        if thinker is not None:
            # A level not built is thought as the random player, here as in the thinker's process.
            name = "random" if player.name == "random" else level or "random"
            action = await thinker.decide(name, view, rng.getrandbits(64))
        else:
            action = await asyncio.get_running_loop().run_in_executor(None, player.decide, view, rng)
    except Exception as e:
        if storage_down(e):
            raise
        _LOG.exception("bot player %s failed; playing at random instead", level)
        return player_for("random").decide(view, rng)
    if waits is not None:
        waits.append(time.perf_counter() - began)
    if action not in view.legal:
        _LOG.error("bot player %s chose an illegal %r; playing at random", level, action)
        action = player_for("random").decide(view, rng)
    return action


def bot_to_act(shown: Snapshot | Table) -> int | None:
    """The bot seat the deal waits for, if it waits for a bot."""
    snap = shown if isinstance(shown, Snapshot) else Snapshot(shown)
    seat = snap.to_act()
    if seat is None:
        return None
    # A blind's decisions (its brag) are its partner's: a bot partner takes them.
    person = snap.table.seats[decider(snap.table, seat)]
    return seat if person is not None and person.is_bot else None


@lru_cache(maxsize=1)
def levels() -> tuple[str, ...]:
    """The bot-player levels that exist in this build, weakest first."""
    found = []
    for level in LEVELS:
        try:
            make_player(level)
        except KozelError:
            continue
        found.append(level)
    return tuple(found) or ("random",)


def default_level() -> str:
    """The level a new table offers first: ``easy`` when built, else the weakest available."""
    return "easy" if "easy" in levels() else levels()[0]


class Screen(Protocol):
    """What the bot driver asks of the front end that shows the tables (the Telegram presenter)."""

    def show(
        self, shown: Snapshot | Table, progress: Progress | None = None, *, taken: float | None = None
    ) -> None:
        """Bring the table's messages up to ``shown``."""
        ...

    async def idle(self, key: TableKey | None = None) -> None:
        """Wait until the table's messages are out."""
        ...


class BotDriver:
    """Runs one task per table while the deal waits for a bot player."""

    def __init__(self, core: Core, tables: Tables, presenter: Screen) -> None:
        self.core = core
        self.tables = tables
        self.presenter = presenter
        #: Posts a stored lobby's message (the front end's; see :meth:`post_lobby`).
        self.lobby_poster: Callable[[Table], Awaitable[None]] | None = None
        self._tasks: dict[TableKey, asyncio.Task[None]] = {}
        #: The newest state of each table this driver was shown (what its bots decide on).
        self._latest: dict[TableKey, Snapshot] = {}
        #: Tables kicked while their task was still running: it must look again before it ends.
        self._kicked: set[TableKey] = set()
        #: Lobbies being posted after a restart (see :meth:`post_lobby`).
        self._others: set[asyncio.Task[None]] = set()

    def show(self, snap: Snapshot) -> None:
        """A table changed: make sure a bot whose turn it is will act (on this state or a newer one)."""
        if bot_to_act(snap) is None:
            return
        key = snap.key
        self._see(snap)
        self._kicked.add(key)
        task = self._tasks.get(key)
        if task is None or task.done():
            self._tasks[key] = asyncio.create_task(self._drive(key), name=f"bots {key}")

    def _see(self, snap: Snapshot) -> None:
        """Keep ``snap`` as the table's newest state, unless a newer one of the same table is kept."""
        known = self._latest.get(snap.key)
        t = snap.table
        if known is None or known.table.table_id != t.table_id or known.table.version <= t.version:
            self._latest[snap.key] = snap

    async def resume(self) -> int:
        """After a restart: show every game again, let the bots whose turn it is play on.

        Returns how many tables wait on a bot. A process killed between saving a change and sending
        its messages left them unsent (a new deal's hands, the edit that shows whose turn it is), so
        every playing table is rendered from its stored state; a message already showing it is
        answered "not modified" by Telegram and stays as it is.

        A deal's summary whose edits were not confirmed (:class:`PendingSummary`) is shown too, and a
        lobby stored by ``/newgame`` whose message never went out is posted (see :meth:`post_lobby`).
        """
        waiting = 0
        async for table in self.core.storage.tables():
            snap = self.tables.snapshot(table)
            if table.status == "playing" or table.pending_summaries:
                self.presenter.show(snap)
            elif table.status == "over":  # a finish the kill may have left uncounted (counted once)
                self._spawn(self.tables.archive(table), f"archive {key_of(table)}")
            elif table.status == "lobby" and table.lobby_message_id is None:
                self._spawn(self.post_lobby(table), f"lobby {key_of(table)}")
            if bot_to_act(snap) is not None:
                waiting += 1
                self.show(snap)
        return waiting

    async def post_lobby(self, table: Table) -> None:
        """Post the lobby of a table ``/newgame`` stored but never showed (its process was killed).

        A lobby younger than the update lease may still be on its way from a live process handling
        that ``/newgame``: it is looked at again once the lease is over.
        """
        core = self.core
        key = key_of(table)
        try:
            wait = table.created_at + core.settings.update_lease - core.settings.clock()
            if wait > 0:
                await asyncio.sleep(wait)
                table = await core.storage.load_table(*key) or table
            if table.status != "lobby" or table.lobby_message_id is not None:
                return
            if self.lobby_poster is not None:
                await self.lobby_poster(table)
        except Exception as e:
            _LOG.warning("could not post the lobby of table %s: %s", key, e)

    def _spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        task = asyncio.create_task(work, name=name)
        self._others.add(task)
        task.add_done_callback(self._others.discard)

    async def idle(self) -> None:
        """Wait until no table waits for a bot, nor a lobby for its message (tests and the bench)."""
        while True:
            tasks = [t for t in self._tasks.values() if not t.done()] + list(self._others)
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop every bot task."""
        tasks = [*self._tasks.values(), *self._others]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _drive(self, key: TableKey) -> None:
        core = self.core
        pause = STORAGE_RETRY
        while True:
            self._kicked.discard(key)
            # Bots wait until the table is on screen, so people see the deal before it is played.
            await self.presenter.idle(key)
            snap = self._latest.get(key)
            seat = bot_to_act(snap) if snap is not None else None
            if snap is None or seat is None:
                # A kick that came while we were rendering may have found this task still running;
                # without this second look that bot would never move (a lost wake-up).
                if key in self._kicked:
                    continue
                if self._latest.get(key) is snap:
                    self._latest.pop(key, None)
                return
            if core.settings.bot_delay > 0:
                await asyncio.sleep(core.settings.bot_delay)
            deal, table = snap.deal, snap.table
            assert deal is not None and table.match is not None
            person = table.seats[decider(table, seat)]
            assert person is not None
            rng = random.Random(core.rng.getrandbits(64))
            view = view_for(deal, seat)
            try:
                action = await decide(person.level, view, rng, core.thinker, core.stats.bot_waits)
                await self._play(key, snap, seat, action)
                pause = STORAGE_RETRY
            except Exception as e:
                if not storage_down(e):
                    # A lost race too many times, or a bug: look again shortly rather than stop.
                    _LOG.exception("a bot move at table %s failed; retrying", key)
                    await asyncio.sleep(1.0)
                    continue
                # Storage unavailable (the job could not be queued, or the move not saved): the bot
                # decides again once it is back, on the newest state; never a random card.
                _LOG.warning("a bot move at table %s waits for storage: %s", key, e)
                await asyncio.sleep(pause)
                pause = min(pause * 2, STORAGE_RETRY_CAP)

    async def _play(self, key: TableKey, seen: Snapshot, seat: int, action: Action) -> None:
        table, deal = seen.table, seen.deal
        assert table.match is not None and deal is not None
        table_id, seq, moves = table.table_id, table.match.deal_seq, len(deal.moves)

        def change(c: Change) -> Progress | None:
            # Only if nothing moved since the bot looked: another process may have played for it.
            t = c.table
            if t is None or t.table_id != table_id or t.match is None or t.match.deal_seq != seq:
                return None
            current = t.match.current
            if current is None or len(current.get("moves", [])) != moves:
                return None
            return c.play(seat, action)

        snap, progress = await self.tables.run(key, change)
        if snap is None:
            self._latest.pop(key, None)
        elif progress is not None:
            await self.tables.publish(snap)
        else:
            # The table moved on without this bot: decide again on what it is now. Read from storage
            # (nothing was saved), so taken even if what this driver saw had a higher version: Redis
            # may have gone back to an older state, and the state seen is lost.
            self._latest[key] = snap
