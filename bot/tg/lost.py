"""A stored table that did not load was moved aside (bot/storage/quarantine.py): its chat is told.

The storage calls :func:`told` once per table, in the one process whose script moved it; the chat
gets one message in its language, saying the game could not be recovered and how to start a new one.
"""

from __future__ import annotations

import asyncio
import logging

from bot.render.content import Content
from bot.render.i18n import Tr, pick_lang
from bot.storage.quarantine import Quarantined
from bot.tg.parts import Parts

_LOG = logging.getLogger(__name__)


class LostTables:
    """Tells the chats whose tables this process moved aside (see the module docstring)."""

    def __init__(self, core: Parts) -> None:
        self.core = core
        self._tasks: set[asyncio.Task[None]] = set()
        core.storage.on_quarantine = self.told

    def told(self, lost: Quarantined) -> None:
        """A table was moved aside: tell its chat (in the background)."""
        task = asyncio.create_task(self._tell(lost), name=f"lost table {lost.key}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _tell(self, lost: Quarantined) -> None:
        try:
            lang = (await self.core.storage.chat_settings(lost.chat_id)).lang
        except Exception as e:  # the notice goes out all the same, in the default language
            _LOG.warning("chat %s is told of its lost table in the default language: %s", lost.chat_id, e)
            lang = None
        tr = Tr(pick_lang(lang))
        await self.core.outbox.post(lost.chat_id, Content(tr("table.lost")), thread_id=lost.thread_id)

    async def idle(self) -> None:
        """Wait until every chat told has been sent its message (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
