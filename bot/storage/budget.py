"""One Telegram budget for every bot instance: token buckets kept in Redis and counted by Lua.

Telegram counts what a *bot* sends, whichever process sends it: about 30 calls a second in all, 20 a
minute to a group, about one a second to a private chat. Each instance's outbox paces itself
(bot/tg/outbox.py); N instances behind one webhook would still send N times the budget. So
before each call the outbox also asks this shared budget, which answers "go" or "wait so long".

Each bucket is one Redis string, in the GCRA form of a token bucket: the time (µs, Redis's own clock,
so the instances' clocks do not matter) at which the bucket is full again. A bucket of ``burst``
tokens refills one token per ``interval``: a take at ``now`` is granted when that time is at most
``now + (burst - 1) * interval`` and moves it on by ``interval``; otherwise the script answers how long
until it would be granted. It expires when full, so idle chats leave no keys. One script per bucket,
each touching one key, so each runs on one Redis Cluster slot: the chat's key carries the chat's
hash tag like its other keys (``kozel:{chat_id}:budget:<bot>``), the global bucket has a key of its
own (``kozel:budget:<bot>``).

A call needs both buckets. On a cluster they are taken by two scripts: the global one first, then
the chat's, and the call
is made at once when the chat's is granted. That order is safe: the call follows both grants within
a Redis round trip, so each bucket counts it when it is made; when the chat's bucket says wait, the
global token already taken is simply not used, and a token not used can only make the bot send less
than its budget, never more. (The other order would hold a chat's token, 3 s of a group's budget,
while waiting for the global one, and make the call later than its bucket counted it.) Within one
process one chat at a time waits for the global bucket (a lock, first come first served), so the
chats waiting do not all ask Redis at every grant.

On a single Redis both buckets are in one script (:data:`_TAKE_BOTH`): it takes the two tokens
only when both are there, and otherwise answers which bucket says wait and how long, taking
nothing. So a call costs one round trip to Redis there, two on a cluster. A bucket of interval 0
is not asked. Needs Redis 5 or later (a script that reads TIME, then writes). A failover to a
replica that missed the last writes (its replication lag) forgets those grants: the calls of that
lag are granted again, so for about as long the bot may send up to twice its budget.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisClusterException

_LOG = logging.getLogger(__name__)

# KEYS[1] a bucket; ARGV: interval (µs), burst (tokens), '1' to only look. Returns 0 when granted
# (when one would be, looking), else the µs until it would be.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local full_at = tonumber(redis.call('GET', KEYS[1]) or '0')
if full_at < now then full_at = now end
local wait = full_at - (tonumber(ARGV[2]) - 1) * interval - now
if wait > 0 then return math.ceil(wait) end
if ARGV[3] == '1' then return 0 end
full_at = full_at + interval
redis.call('SET', KEYS[1], string.format('%.0f', full_at), 'PX', math.ceil((full_at - now) / 1000) + 1)
return 0
"""

# KEYS[1] the global bucket, KEYS[2] the chat's; ARGV: their intervals (µs; burst 1). Returns {0, 0}
# when both tokens are taken, else {1, µs} while the global bucket says wait, {2, µs} while the
# chat's does, and takes nothing.
_TAKE_BOTH = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local full = {}
for i = 1, 2 do
  local f = tonumber(redis.call('GET', KEYS[i]) or '0')
  if f < now then f = now end
  if f > now then return {i, math.ceil(f - now)} end
  full[i] = f + tonumber(ARGV[i])
end
for i = 1, 2 do
  redis.call('SET', KEYS[i], string.format('%.0f', full[i]), 'PX', math.ceil((full[i] - now) / 1000) + 1)
end
return {0, 0}
"""


class Budget(Protocol):
    """What the outbox asks before each call (see the module docstring)."""

    async def turn(
        self,
        chat_id: int,
        *,
        chat_interval: float,
        global_interval: float,
        sleep: Callable[[float], Awaitable[None]],
    ) -> float:
        """Wait (by ``sleep``) until one call to ``chat_id`` fits the budget; return seconds waited."""
        ...


class RedisBudget:
    """:class:`Budget` in Redis, shared by every process of the bot ``bot_id`` on that Redis."""

    def __init__(
        self, client: aioredis.Redis, *, bot_id: int | str, prefix: str = "", together: bool | None = None
    ) -> None:
        """``together``: take both buckets in one script (default: unless ``client`` is a cluster's)."""
        self.client = client
        self.bot_id = bot_id
        self.prefix = prefix
        self._take = client.register_script(_TAKE)
        #: Both buckets in one script: not on a cluster, where they are on two slots.
        if together is None:
            together = not isinstance(client, RedisCluster)
        self._take_both = client.register_script(_TAKE_BOTH) if together else None
        self._global_lock = asyncio.Lock()

    def global_key(self) -> str:
        """The bot's bucket for all its calls (a key, and so a slot, of its own)."""
        return f"{self.prefix}kozel:budget:{self.bot_id}"

    def chat_key(self, chat_id: int) -> str:
        """The bot's bucket for one chat, under the chat's hash tag."""
        return f"{self.prefix}kozel:{{{chat_id}}}:budget:{self.bot_id}"

    async def take(self, key: str, interval: float, burst: int = 1, *, look: bool = False) -> float:
        """Take a token of the bucket ``key``: 0.0 if granted, else the seconds until one would be.

        ``look``: take nothing, only answer (0.0 if a token is there now).
        """
        if interval <= 0:
            return 0.0
        args = [_micros(interval), str(max(1, burst)), "1" if look else "0"]
        return int(await self._take(keys=[key], args=args)) / 1e6

    async def turn(
        self,
        chat_id: int,
        *,
        chat_interval: float,
        global_interval: float,
        sleep: Callable[[float], Awaitable[None]],
    ) -> float:
        """The global bucket, then the chat's; when the chat's says wait, both again once it has a
        token (looked at, not taken: the global token is spent only when the chat's is there).

        If Redis fails, the call goes on paced by this process alone (logged): a Redis that is down
        stops the bot anyway, and a chat's calls must not wait forever behind it.
        """
        waited = 0.0
        try:
            if self._take_both is not None and global_interval > 0 and chat_interval > 0:
                return await self._turn_both(chat_id, chat_interval, global_interval, sleep)
            while True:
                if global_interval > 0:
                    async with self._global_lock:
                        while (wait := await self.take(self.global_key(), global_interval)) > 0:
                            await sleep(wait)
                            waited += wait
                key = self.chat_key(chat_id)
                wait = await self.take(key, chat_interval)
                if wait <= 0:
                    return waited
                while wait > 0:
                    await sleep(wait)
                    waited += wait
                    wait = await self.take(key, chat_interval, look=True)
        except (aioredis.RedisError, RedisClusterException, OSError) as e:  # any storage fault, and more
            _LOG.warning("the shared Telegram budget is unavailable (%s); paced by this process only", e)
            return waited

    async def _turn_both(
        self,
        chat_id: int,
        chat_interval: float,
        global_interval: float,
        sleep: Callable[[float], Awaitable[None]],
    ) -> float:
        """:meth:`turn` on a single Redis: both tokens in one script, taken only together."""
        take = self._take_both
        assert take is not None
        keys = [self.global_key(), self.chat_key(chat_id)]
        args = [_micros(global_interval), _micros(chat_interval)]
        waited = 0.0
        while True:
            async with self._global_lock:
                while True:
                    which, micros = (int(x) for x in await take(keys=keys, args=args))
                    if which != 1:
                        break
                    await sleep(micros / 1e6)  # the global bucket: waited for holding the lock
                    waited += micros / 1e6
            if which == 0:
                return waited
            await sleep(micros / 1e6)  # the chat's: the others go on meanwhile
            waited += micros / 1e6


def _micros(seconds: float) -> str:
    """An interval as the scripts take it: whole microseconds, one at least."""
    return str(max(1, round(seconds * 1e6)))
