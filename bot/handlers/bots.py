"""Bot players at a table: wait a moment, think off the event loop, play through the path a tap takes."""

from __future__ import annotations

import asyncio
import logging
import random

from bot.engine import Action, KozelError, view_for
from bot.engine.ai import Player, make_player
from bot.handlers import game
from bot.handlers.game import Progress
from bot.handlers.presenter import key_of
from bot.handlers.services import Services, TableKey
from bot.storage import Table

_LOG = logging.getLogger(__name__)


def player_for(level: str | None) -> Player:
    """The bot player of ``level``, or the random one if that level is not built."""
    try:
        return make_player(level or "random")
    except KozelError:
        return make_player("random")


def bot_to_act(table: Table) -> int | None:
    """The bot seat the deal waits for, if it waits for a bot."""
    if table.status != "playing":
        return None
    deal = game.deal_of(table)
    if deal is None or deal.to_act is None:
        return None
    seat = table.seats[deal.to_act]
    return deal.to_act if seat is not None and seat.is_bot else None


class BotDriver:
    """Runs one task per table while the deal waits for a bot player."""

    def __init__(self, svc: Services) -> None:
        self.svc = svc
        self._tasks: dict[TableKey, asyncio.Task[None]] = {}
        #: Tables kicked while their task was still running: it must look again before it ends.
        self._kicked: set[TableKey] = set()

    def kick(self, table: Table) -> None:
        """Make sure a bot whose turn it is will act."""
        if bot_to_act(table) is None:
            return
        key = key_of(table)
        self._kicked.add(key)
        task = self._tasks.get(key)
        if task is None or task.done():
            self._tasks[key] = asyncio.create_task(self._drive(key), name=f"bots {key}")

    async def resume(self) -> int:
        """After a restart: let the bots whose turn it is play on; returns how many tables wait on one."""
        waiting = 0
        async for table in self.svc.storage.tables():
            if bot_to_act(table) is not None:
                waiting += 1
                self.kick(table)
        return waiting

    async def idle(self) -> None:
        """Wait until no table waits for a bot (tests and the bench)."""
        while True:
            tasks = [t for t in self._tasks.values() if not t.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop every bot task."""
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _drive(self, key: TableKey) -> None:
        svc = self.svc
        while True:
            self._kicked.discard(key)
            # Bots wait until the table is on screen, so people see the deal before it is played.
            await svc.presenter.idle(key)
            table = await svc.storage.load_table(*key)
            if table is None or (seat := bot_to_act(table)) is None:
                # A kick that came while we were loading may have found this task still running;
                # without this second look that bot would never move (a lost wake-up).
                if key in self._kicked:
                    continue
                return
            if svc.settings.bot_delay > 0:
                await asyncio.sleep(svc.settings.bot_delay)
            deal = game.deal_of(table)
            assert deal is not None and table.match is not None
            person = table.seats[seat]
            assert person is not None
            view = view_for(deal, seat)
            rng = random.Random(svc.rng.getrandbits(64))
            player = player_for(person.level)
            try:
                action = await asyncio.get_running_loop().run_in_executor(
                    svc.executor, player.decide, view, rng
                )
            except Exception:
                _LOG.exception("bot player %s failed; playing at random instead", person.level)
                action = player_for("random").decide(view, rng)
            if action not in view.legal:
                # A player must never stall a table: an illegal choice is replaced, and reported.
                _LOG.error("bot player %s chose an illegal %r; playing at random", person.level, action)
                action = player_for("random").decide(view, rng)
            try:
                await self._play(key, table.table_id, table.match.deal_seq, len(deal.moves), seat, action)
            except Exception:
                # Storage trouble or a lost race too many times: look again shortly rather than stop.
                _LOG.exception("a bot move at table %s failed; retrying", key)
                await asyncio.sleep(1.0)

    async def _play(
        self, key: TableKey, table_id: str, seq: int, moves: int, seat: int, action: Action
    ) -> None:
        svc = self.svc

        def change(table: Table | None) -> Progress | None:
            # Only if nothing moved since the bot looked: another process may have played for it.
            if (
                table is None
                or table.table_id != table_id
                or table.match is None
                or table.match.deal_seq != seq
            ):
                return None
            current = table.match.current
            if current is None or len(current.get("moves", [])) != moves:
                return None
            return game.apply(table, seat, action, svc.rng)

        table, progress = await svc.transact(key, change)
        if table is not None and progress is not None:
            await svc.after_change(table, progress)
