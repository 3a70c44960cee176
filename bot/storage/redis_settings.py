"""The Redis storage's settings: a chat's and a person's, as versioned JSON, a chat's cached a while.

:class:`bot.storage.redis_store.RedisStorage` is made of this, the timers' part and the tables' part.
"""

from __future__ import annotations

import json
import time
from typing import Any, TypeVar

from bot.storage.models import SCHEMA, ChatSettings, UserSettings

_S = TypeVar("_S", ChatSettings, UserSettings)
SETTINGS_TTL = 400 * 24 * 3600
#: Seconds a chat's settings read from Redis are reused by this process: every move arms turn timers
#: by them. A change made here is seen at once; one made by another process within this time.
CHAT_SETTINGS_CACHE = 5.0
#: Chats whose settings are cached at most (the cache starts over beyond).
CHAT_SETTINGS_KEPT = 10_000


class RedisSettings:
    """The settings of :class:`bot.storage.protocol.Storage` on Redis; ``prefix`` as the storage's."""

    def __init__(self, client: Any, *, prefix: str) -> None:
        self.client: Any = client
        self.prefix = prefix
        #: Chat settings key -> (monotonic time it may be used until, the settings read).
        self._chat_cache: dict[str, tuple[float, ChatSettings]] = {}

    def chat_key(self, chat_id: int) -> str:
        """The chat's settings."""
        return f"{self.prefix}kozel:{{{chat_id}}}:settings"

    def user_key(self, user_id: int) -> str:
        """A person's settings (their own hash tag: a user is not a chat)."""
        return f"{self.prefix}kozel:{{u{user_id}}}:user"

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        """A chat's settings, defaults if none (or of another schema) are stored.

        Read from Redis at most every ``CHAT_SETTINGS_CACHE`` seconds per chat (a fresh object each
        time: callers may change what they get).
        """
        key = self.chat_key(chat_id)
        now = time.monotonic()
        cached = self._chat_cache.get(key)
        if cached is not None and cached[0] > now:
            return cached[1].model_copy()
        settings = _parse(await self.client.get(key), ChatSettings)
        if len(self._chat_cache) >= CHAT_SETTINGS_KEPT:
            self._chat_cache.clear()
        self._chat_cache[key] = (now + CHAT_SETTINGS_CACHE, settings.model_copy())
        return settings

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings) -> None:
        """Store a chat's settings for about a year after their last change."""
        key = self.chat_key(chat_id)
        self._chat_cache.pop(key, None)
        await self.client.set(key, settings.model_dump_json(), ex=SETTINGS_TTL)
        self._chat_cache.pop(key, None)

    def forget_chat_settings(self, chat_id: int) -> None:
        """Read a chat's settings from Redis next time (they were changed, or moved, here)."""
        self._chat_cache.pop(self.chat_key(chat_id), None)

    async def user_settings(self, user_id: int) -> UserSettings:
        """A person's settings."""
        return _parse(await self.client.get(self.user_key(user_id)), UserSettings)

    async def save_user_settings(self, user_id: int, settings: UserSettings) -> None:
        """Store a person's settings."""
        await self.client.set(self.user_key(user_id), settings.model_dump_json(), ex=SETTINGS_TTL)


def _parse(data: str | bytes | None, model: type[_S]) -> _S:
    """Settings as stored, the model's defaults if none (or of another schema) are."""
    if data is None:
        return model()
    raw = json.loads(data)
    if raw.get("schema_version") != SCHEMA:
        return model()
    return model.model_validate(raw)
