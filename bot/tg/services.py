"""What every update handler needs, built once by the composition root.

:class:`Services` is the top of the handlers' layers (see :mod:`bot.table.core`): the core
(storage, outbox, codec, settings), the table use case and the renderers it hands changes to. Only
the update handlers import it; nothing it is built from imports it back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from bot.render.lobby_view import lobby_content
from bot.storage import Table
from bot.table.bots import BotDriver
from bot.table.core import Settings, Stats, TableKey, key_of, mark_taken, taken_at
from bot.table.game import Progress
from bot.table.timers import Timers
from bot.table.usecase import Change, Snapshot, Tables
from bot.tg.announcer import Announcer
from bot.tg.lost import LostTables
from bot.tg.parts import Parts
from bot.tg.presenter import Presenter
from bot.tg.timer_notices import TimerNotices

R = TypeVar("R")

__all__ = ["Services", "Settings", "Stats", "TableKey", "mark_taken", "taken_at"]


@dataclass
class Services(Parts):
    """The bot's parts, shared by all handlers."""

    tables: Tables = field(init=False)
    presenter: Presenter = field(init=False)
    driver: BotDriver = field(init=False)
    timers: Timers = field(init=False)
    notices: TimerNotices = field(init=False)
    announcer: Announcer = field(init=False)
    lost: LostTables = field(init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.tables = Tables(self)
        self.presenter = Presenter(self, self.tables)
        self.driver = BotDriver(self, self.tables, self.presenter)
        self.driver.lobby_poster = self.post_lobby
        # The notices come first: a reminder they tidy drops its timer through the timers.
        self.notices = TimerNotices(
            self, self.presenter, dropped=lambda member: self.timers.drop_soon(member)
        )
        self.timers = Timers(self, self.tables, self.notices)
        self.tables.renderers[:] = [self.presenter, self.driver, self.timers]
        self.tables.planner = self.timers.plan
        self.announcer = Announcer(self, self.presenter)
        self.tables.announce = self.announcer.announce
        self.lost = LostTables(self)

    async def post_lobby(self, table: Table) -> None:
        """Post the message of a stored lobby that has none (for :meth:`BotDriver.post_lobby`)."""
        tr = await self.presenter.group_tr(table.chat_id)
        sent = await self.outbox.send(
            table.chat_id, lobby_content(tr, self.codec, table), thread_id=table.thread_id
        )
        if sent.message_id is None:
            return  # the lobby expires with its timer
        await self.presenter.lobby_posted(key_of(table), table.table_id, sent.message_id)

    def lock(self, key: TableKey) -> asyncio.Lock:
        """The in-process lock of a table."""
        return self.tables.lock(key)

    def ttl(self, table: Table) -> float:
        """How long an untouched table is kept."""
        return self.tables.ttl(table)

    async def run(
        self, key: TableKey, decide: Callable[[Change], R], *, taken: float | None = None
    ) -> tuple[Snapshot | None, R]:
        """The table use case (:meth:`bot.table.usecase.Tables.run`)."""
        return await self.tables.run(key, decide, taken=taken)

    async def transact(self, key: TableKey, change: Callable[[Table | None], R]) -> tuple[Table | None, R]:
        """Change the table alone through the use case (:meth:`bot.table.usecase.Tables.transact`)."""
        return await self.tables.transact(key, change)

    async def create(self, table: Table) -> bool:
        """Store a new table; False if the chat (topic) got one meanwhile."""
        return await self.tables.create(table)

    async def publish(self, snap: Snapshot) -> None:
        """Hand a change to the presenter, the bot players and the timers."""
        await self.tables.publish(snap)

    async def after_change(
        self, table: Table, progress: Progress | None, *, taken: float | None = None
    ) -> None:
        """:meth:`publish` a table as stored (its deal from the cache, or rebuilt once)."""
        await self.tables.publish(self.tables.snapshot(table, progress=progress, taken=taken))
