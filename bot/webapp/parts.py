"""What the live table needs of the bot, said as protocols: the table's application layer
(:mod:`bot.table`), the codec its buttons are signed with, and a few things the Telegram side keeps
(each person's language, each chat's hint setting, a table shown again). The Telegram adapter's
``Services`` is one; the live table imports nothing of the adapter (tests/bot/test_layout_imports.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.storage import Table
from bot.table.codec import Codec
from bot.table.game import Progress
from bot.table.links import Tokens
from bot.table.usecase import Snapshot, Tables


class Shown(Protocol):
    """The Telegram presenter, as far as the live table asks it."""

    async def lang_of(self, user_id: int) -> str | None:
        """The language a person chose (``/language``), if any."""
        ...

    async def hints_on(self, chat_id: int) -> bool:
        """Whether the chat's ``/settings`` allow hints."""
        ...

    def show(
        self, shown: Snapshot | Table, progress: Progress | None = None, *, taken: float | None = None
    ) -> None:
        """Bring the table's messages up to ``shown`` (a page closed: its person's DM hand comes back)."""
        ...


class Parts(Protocol):
    """The bot's parts the live table uses, and the two it sets when turned on (``links``,
    ``live_present``)."""

    tables: Tables
    codec: Codec
    links: Tokens | None
    live_present: Callable[[Table], Awaitable[frozenset[int]]] | None

    @property
    def presenter(self) -> Shown:
        """The Telegram side's presenter."""
        ...
