"""Bot players at a table: wait a moment, think off the event loop, play through the path a tap takes."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Coroutine
from typing import Any

from bot.engine import Action, KozelError, view_for
from bot.engine.ai import Player, make_player
from bot.handlers import game
from bot.handlers.game import Progress
from bot.handlers.lobby_view import lobby_content
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
        #: Lobbies being posted after a restart (see :meth:`post_lobby`).
        self._others: set[asyncio.Task[None]] = set()

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
        """After a restart: show every game again, let the bots whose turn it is play on.

        Returns how many tables wait on a bot. A process killed between saving a change and sending
        its messages left them unsent (a new deal's hands, the edit that shows whose turn it is), so
        every playing table is rendered from its stored state; a message already showing it is
        answered "not modified" by Telegram and stays as it is.

        A deal's summary whose edits were not confirmed (:class:`PendingSummary`) is shown too, and a
        lobby stored by ``/newgame`` whose message never went out is posted (see :meth:`post_lobby`).
        """
        waiting = 0
        async for table in self.svc.storage.tables():
            if table.status == "playing" or table.pending_summaries:
                self.svc.presenter.show(table)
            elif table.status == "lobby" and table.lobby_message_id is None:
                self._spawn(self.post_lobby(table), f"lobby {key_of(table)}")
            if bot_to_act(table) is not None:
                waiting += 1
                self.kick(table)
        return waiting

    async def post_lobby(self, table: Table) -> None:
        """Post the lobby of a table ``/newgame`` stored but never showed (its process was killed).

        A lobby younger than the update lease may still be on its way from a live process handling
        that ``/newgame``: it is looked at again once the lease is over.
        """
        svc = self.svc
        key = key_of(table)
        try:
            wait = table.created_at + svc.settings.update_lease - svc.settings.clock()
            if wait > 0:
                await asyncio.sleep(wait)
                table = await svc.storage.load_table(*key) or table
            if table.status != "lobby" or table.lobby_message_id is not None:
                return
            tr = await svc.presenter.group_tr(table.chat_id)
            sent = await svc.outbox.send(
                table.chat_id, lobby_content(tr, svc.codec, table), thread_id=table.thread_id
            )
            if sent.message_id is None:
                return  # the lobby expires with its timer
            message_id, table_id = sent.message_id, table.table_id

            def remember(stored: Table | None) -> None:
                if stored is not None and stored.table_id == table_id and stored.lobby_message_id is None:
                    stored.lobby_message_id = message_id

            stored, _ = await svc.transact(key, remember)
            if stored is not None:
                svc.presenter.show(stored)  # taps made while the message was on its way
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
        svc = self.svc
        while True:
            self._kicked.discard(key)
            # Bots wait until the table is on screen, so people see the deal before it is played.
            await svc.presenter.idle(key)
            try:
                table = await svc.storage.load_table(*key)
            except Exception as e:
                # Redis is down: this task must outlive the outage, or the table would wait forever.
                _LOG.warning("bot players at table %s wait for storage: %s", key, e)
                self._kicked.add(key)
                await asyncio.sleep(1.0)
                continue
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
