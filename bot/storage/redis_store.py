"""Redis storage: every key of a chat shares the hash tag ``{chat_id}``, so it also runs on a cluster.

A table is a hash ``{v: version, data: JSON}``; saving is one Lua compare-and-set on ``v``, so a
double tap, or two bot processes handling the same tap, apply a move once.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, TypeVar

import redis.asyncio as aioredis

from bot.storage.models import SCHEMA, ChatSettings, Table, UserSettings
from bot.storage.protocol import StaleWrite

# KEYS[1] table; ARGV: expected version, new version, JSON, ttl in ms.
_SAVE = """
local v = redis.call('HGET', KEYS[1], 'v')
if (not v and ARGV[1] ~= '0') or (v and v ~= ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'data', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""
# KEYS[1] table, KEYS[2] history; ARGV: expected version, archive JSON ('' for none), history length.
_DELETE = """
local v = redis.call('HGET', KEYS[1], 'v')
if v ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[2] ~= '' then
  redis.call('LPUSH', KEYS[2], ARGV[2])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
end
return 1
"""
_S = TypeVar("_S", ChatSettings, UserSettings)
HISTORY_KEPT = 100
SETTINGS_TTL = 400 * 24 * 3600


class RedisStorage:
    """:class:`bot.storage.protocol.Storage` on Redis; ``prefix`` separates deployments (and tests)."""

    def __init__(self, client: aioredis.Redis, *, prefix: str = "") -> None:
        self.client = client
        self.prefix = prefix
        self._save = client.register_script(_SAVE)
        self._delete = client.register_script(_DELETE)

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "") -> RedisStorage:
        """Connect to the Redis at ``url`` (``redis://``, ``rediss://`` or ``unix://``)."""
        return cls(aioredis.Redis.from_url(url, decode_responses=True), prefix=prefix)

    # ----- keys --------------------------------------------------------------------------------

    def table_key(self, chat_id: int, thread_id: int | None) -> str:
        """The table of a chat, or of a forum topic in it."""
        return f"{self.prefix}kozel:{{{chat_id}}}:table:{thread_id or 0}"

    def history_key(self, chat_id: int) -> str:
        """The chat's finished matches."""
        return f"{self.prefix}kozel:{{{chat_id}}}:history"

    def chat_key(self, chat_id: int) -> str:
        """The chat's settings."""
        return f"{self.prefix}kozel:{{{chat_id}}}:settings"

    def user_key(self, user_id: int) -> str:
        """A person's settings (their own hash tag: a user is not a chat)."""
        return f"{self.prefix}kozel:{{u{user_id}}}:user"

    # ----- tables ------------------------------------------------------------------------------

    async def load_table(self, chat_id: int, thread_id: int | None) -> Table | None:
        """The stored table, with ``version`` set from the stored counter."""
        found = await self.client.hmget(self.table_key(chat_id, thread_id), ["v", "data"])
        version, data = found
        if version is None or data is None:
            return None
        raw = json.loads(data)
        if raw.get("schema_version") != SCHEMA:
            return None
        raw["version"] = int(version)
        return Table.model_validate(raw)

    async def save_table(self, table: Table, *, ttl: float) -> None:
        """Compare-and-set ``table`` on its version; raises :class:`StaleWrite` if it lost."""
        new = table.version + 1
        data = table.model_copy(update={"version": new}).model_dump_json()
        ok = await self._save(
            keys=[self.table_key(table.chat_id, table.thread_id)],
            args=[str(table.version), str(new), data, str(max(1, int(ttl * 1000)))],
        )
        if not ok:
            raise StaleWrite(f"table {table.table_id} in chat {table.chat_id} changed since it was loaded")
        table.version = new

    async def delete_table(self, table: Table, *, archive: dict[str, Any] | None = None) -> None:
        """Compare-and-delete ``table``, pushing ``archive`` onto the chat's history."""
        ok = await self._delete(
            keys=[self.table_key(table.chat_id, table.thread_id), self.history_key(table.chat_id)],
            args=[str(table.version), json.dumps(archive) if archive else "", str(HISTORY_KEPT)],
        )
        if not ok:
            raise StaleWrite(f"table {table.table_id} in chat {table.chat_id} changed since it was loaded")

    async def tables(self) -> AsyncIterator[Table]:
        """Every stored table, found with SCAN (on a cluster: per node, which redis-py handles)."""
        async for key in self.client.scan_iter(match=f"{self.prefix}kozel:*:table:*", count=500):
            chat, _, thread = key[len(self.prefix) + len("kozel:{") :].partition("}:table:")
            try:
                table = await self.load_table(int(chat), int(thread) or None)
            except ValueError:
                continue
            if table is not None:
                yield table

    async def push_history(self, chat_id: int, record: dict[str, Any]) -> None:
        """Push a finished match's record, keeping the latest ``HISTORY_KEPT``."""
        key = self.history_key(chat_id)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.lpush(key, json.dumps(record))
            pipe.ltrim(key, 0, HISTORY_KEPT - 1)
            await pipe.execute()

    async def history(self, chat_id: int, limit: int = 10) -> list[dict[str, Any]]:
        """Finished matches of the chat, newest first."""
        items = await self.client.lrange(self.history_key(chat_id), 0, limit - 1)
        return [json.loads(item) for item in items]

    # ----- settings ----------------------------------------------------------------------------

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        """A chat's settings, defaults if none (or of another schema) are stored."""
        return await self._get(self.chat_key(chat_id), ChatSettings)

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings) -> None:
        """Store a chat's settings for about a year after their last change."""
        await self.client.set(self.chat_key(chat_id), settings.model_dump_json(), ex=SETTINGS_TTL)

    async def user_settings(self, user_id: int) -> UserSettings:
        """A person's settings."""
        return await self._get(self.user_key(user_id), UserSettings)

    async def save_user_settings(self, user_id: int, settings: UserSettings) -> None:
        """Store a person's settings."""
        await self.client.set(self.user_key(user_id), settings.model_dump_json(), ex=SETTINGS_TTL)

    async def _get(self, key: str, model: type[_S]) -> _S:
        data = await self.client.get(key)
        if data is None:
            return model()
        raw = json.loads(data)
        if raw.get("schema_version") != SCHEMA:
            return model()
        return model.model_validate(raw)

    async def claim_update(self, update_id: int) -> bool:
        """True the first time any process claims ``update_id`` (kept a day: Telegram retries for less)."""
        claimed = await self.client.set(f"{self.prefix}kozel:update:{update_id}", 1, nx=True, ex=86400)
        return bool(claimed)

    async def close(self) -> None:
        """Close the connection pool."""
        await self.client.aclose()
