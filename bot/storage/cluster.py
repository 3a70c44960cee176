"""What the storage does differently on a Redis Cluster: the client, timer buckets, a move across slots.

``REDIS_URL=redis+cluster://host:port`` (or ``rediss+cluster://``) names any node of a cluster; redis-py's
:class:`~redis.asyncio.cluster.RedisCluster` discovers the rest, follows ``MOVED`` and finds the new
master after a failover. Every script of :mod:`bot.storage.redis_store` touches the keys of one slot:
a chat's keys share the hash tag ``{chat_id}``, and each timer bucket's due and in-flight sets share one.
"""

from __future__ import annotations

import asyncio
import zlib
from typing import TYPE_CHECKING, Any

from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import MaxConnectionsError, ResponseError

if TYPE_CHECKING:
    from bot.storage.redis_store import RedisStorage

CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")
#: Sorted sets the timers are spread over on a cluster (each in a slot of its own, polled in turn);
#: a single Redis keeps one, ``kozel:timers``, as it always had.
CLUSTER_TIMER_BUCKETS = 8
#: Seconds a command waits for a free connection to its node before it fails.
POOL_WAIT = 20.0


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://`` or ``rediss+cluster://``)."""
    return url.startswith(CLUSTER_SCHEMES)


class _Cluster(RedisCluster):
    """RedisCluster that learns the cluster's map before its first command, and waits for a
    connection when a node's are all busy.

    redis-py 8's async client, first used by many commands at once (a tick claiming every timer
    bucket beside other work), resolves their routing against the one startup node before any has
    loaded the map, and some fail ("'NoneType' object has no attribute 'writelines'"); loading the
    map first, under the client's own lock, avoids it. Its per-node pool refuses at once when
    ``max_connections`` are busy; like the single Redis's blocking pool, a command waits for one
    instead (up to ``POOL_WAIT`` seconds; the refusal comes before anything is sent).
    """

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        if self._initialize:
            await self.initialize()
        waited = 0.0
        while True:
            try:
                return await super().execute_command(*args, **kwargs)
            except MaxConnectionsError:
                if waited >= POOL_WAIT:
                    raise
                await asyncio.sleep(0.005)
                waited += 0.005


def cluster_client(url: str, *, max_connections: int) -> RedisCluster:
    """A cluster client for a ``redis+cluster://`` URL (``max_connections`` per node).

    Commands that meet a dead node are retried (about 6 s in all, backing off) while the cluster
    promotes its replica; the client then reloads the slots' map and goes to the new master.
    """
    plain = url.replace("+cluster://", "://", 1)
    retry = Retry(ExponentialWithJitterBackoff(base=0.1, cap=1.0), 10)
    return _Cluster.from_url(
        plain, decode_responses=True, max_connections=max_connections, retry=retry,
        socket_connect_timeout=1.0, socket_timeout=5.0,
    )  # fmt: skip


def timer_group(member: str) -> str:
    """What picks a timer's bucket: its second and third ``|``-separated fields, else all of it.

    For the bot's timers (``kind|chat|thread|table|...``, bot/handlers/timers.py) that is the chat and
    the topic: every timer of one table lands in one bucket, so arming a turn (its guard, its drops
    and its new timers) stays one script on one slot.
    """
    parts = member.split("|")
    return "|".join(parts[1:3]) if len(parts) >= 3 else member


def timer_bucket(member: str, buckets: int) -> int:
    """The bucket of ``member`` among ``buckets`` (0 when there is one)."""
    if buckets <= 1:
        return 0
    return zlib.crc32(timer_group(member).encode()) % buckets


async def move_across_slots(
    store: RedisStorage, old: int, new: int, data: str, stamp: tuple[int, str], revision: str, ttl_ms: int
) -> int:
    """Move a table from chat ``old`` to ``new`` when the two chats' keys are on different slots.

    No script can hold both, so: the copy is put in the new chat first (refused, -1, if it has a
    table), then the old one is compare-and-deleted; if that loses (0: the table changed since it was
    loaded) the copy is taken back. For a moment both chats hold the table; the old chat is dead
    by then (Telegram has moved the group), so nobody plays it there. ``stamp``: the old table's
    version and revision as loaded; ``revision``: the copy's. Returns 1 when moved.
    """
    version = stamp[0]
    put = await store.run_put_new(store.table_key(new, None), version + 1, revision, data, ttl_ms)
    if put != 1:
        return -1
    deleted = await store.run_delete(store.table_key(old, None), store.history_key(old), stamp)
    if not deleted:
        await store.run_delete(store.table_key(new, None), store.history_key(new), (version + 1, revision))
        return 0
    return 1


async def move_key(store: RedisStorage, old: str, new: str) -> None:
    """Move ``old`` to ``new`` across slots (DUMP, RESTORE, DEL) unless ``new`` exists (RENAMENX's rule)."""
    client = store.client
    payload = await client.dump(old)
    if payload is None or await client.exists(new):
        return
    ttl = await client.pttl(old)
    try:
        await client.restore(new, max(0, int(ttl)), payload)
    except ResponseError as e:  # BUSYKEY: written meanwhile; it stays, as RENAMENX would leave it
        if "BUSYKEY" not in str(e):
            raise
        return
    await client.delete(old)
