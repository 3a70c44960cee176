"""The storage the bot needs, as a small protocol; :mod:`bot.storage.redis_store` implements it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from bot.storage.models import ChatSettings, Table, UserSettings


class StaleWrite(Exception):
    """A compare-and-set lost: someone saved the table since it was loaded."""


class Storage(Protocol):
    """Tables (compare-and-set on a version number), chat and user settings, and match history."""

    async def load_table(self, chat_id: int, thread_id: int | None) -> Table | None:
        """The table of a chat (or forum topic), if one exists."""
        ...

    async def save_table(self, table: Table, *, ttl: float) -> None:
        """Save ``table`` if its stored version is still ``table.version``, then bump the version.

        Raises :class:`StaleWrite` when someone else saved first; ``ttl`` (seconds) is when an
        untouched table expires.
        """
        ...

    async def delete_table(self, table: Table, *, archive: dict[str, Any] | None = None) -> None:
        """Delete ``table`` (same compare-and-set), keeping ``archive`` in the chat's history."""
        ...

    def tables(self) -> AsyncIterator[Table]:
        """Every stored table (to resume games after a restart)."""
        ...

    async def push_history(self, chat_id: int, record: dict[str, Any]) -> None:
        """Keep a finished match's record in the chat's history."""
        ...

    async def history(self, chat_id: int, limit: int = 10) -> list[dict[str, Any]]:
        """The chat's finished matches, newest first."""
        ...

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        """A chat's settings (defaults when none are stored)."""
        ...

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings) -> None:
        """Store a chat's settings."""
        ...

    async def user_settings(self, user_id: int) -> UserSettings:
        """A person's settings (defaults when none are stored)."""
        ...

    async def save_user_settings(self, user_id: int, settings: UserSettings) -> None:
        """Store a person's settings."""
        ...

    async def claim_update(self, update_id: int) -> bool:
        """True the first time any process claims ``update_id``: an update delivered twice is handled once."""
        ...

    async def close(self) -> None:
        """Release the connection."""
        ...
