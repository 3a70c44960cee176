"""Announces in the group the achievements a match's finish earned, once, after the match's result.

The use case's archive (:meth:`bot.table.usecase.Tables.archive`) hears from the storage which
achievements were earned just now (never before, by any process): only that call announces them. The
message waits until the presenter has queued the table's last render (the result), and the outbox
sends a chat's messages in order, so it comes after the result.
"""

from __future__ import annotations

import asyncio
import logging

from bot.render.achievements_view import announcement_text
from bot.render.content import Content
from bot.stats.counting import Earned
from bot.storage import Table
from bot.storage.errors import storage_down
from bot.table.core import key_of
from bot.tg.parts import Parts
from bot.tg.presenter import Presenter

_LOG = logging.getLogger(__name__)


class Announcer:
    """See the module docstring."""

    def __init__(self, core: Parts, presenter: Presenter) -> None:
        self.core = core
        self.presenter = presenter
        self._tasks: set[asyncio.Task[None]] = set()

    def announce(self, table: Table, earned: list[Earned]) -> None:
        """Post ``earned`` in ``table``'s group once its result is on its way (without waiting)."""
        task = asyncio.create_task(self._post(table, earned), name=f"achievements {key_of(table)}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _post(self, table: Table, earned: list[Earned]) -> None:
        try:
            await self.presenter.idle(key_of(table))
            tr = await self.presenter.group_tr(table.chat_id)
            text = announcement_text(tr, earned)
            self.core.outbox.post(table.chat_id, Content(text), thread_id=table.thread_id)
        except Exception as e:
            # At most once: earned stays earned (and in /stats) even if the message is lost.
            if storage_down(e):
                _LOG.warning("could not announce the achievements of table %s: %s", key_of(table), e)
            else:
                _LOG.exception("announcing the achievements of table %s failed", key_of(table))

    async def idle(self) -> None:
        """Wait until every announcement is queued."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def close(self) -> None:
        """Drop the announcements not yet queued (on shutdown)."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
