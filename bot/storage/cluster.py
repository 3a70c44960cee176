"""What the storage does differently on a Redis Cluster: the client, timer buckets, a move across slots.

``REDIS_URL=redis+cluster://host1:port1,host2:port2,host3:port3`` (or ``rediss+cluster://``, with
``user:password@`` and ``?options`` as in a ``redis://`` URL) names seed nodes of a cluster: the client
asks them in turn for the cluster's map until one answers, so a process can start while a seed is
down; one seed is enough when it is up. redis-py's :class:`~redis.asyncio.cluster.RedisCluster`
discovers the rest, follows ``MOVED`` and finds the new master after a failover. Every script of
:mod:`bot.storage.redis_store` touches the keys of one slot: a chat's keys share the hash tag
``{chat_id}``, and each timer bucket's due and in-flight sets share one.
"""

from __future__ import annotations

import asyncio
import re
import zlib
from typing import Any, Protocol

from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import SSLConnection, parse_url
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import MaxConnectionsError, RedisClusterException, ResponseError

from bot.storage.errors import unwrapped

CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")
#: Sorted sets the timers are spread over on a cluster (each in a slot of its own, polled in turn);
#: a single Redis keeps one, ``kozel:timers``, as it always had.
CLUSTER_TIMER_BUCKETS = 8
#: Seconds a command waits for a free connection to its node before it fails.
POOL_WAIT = 20.0


#: A seed: a host name, an IPv4 address or a bracketed IPv6 one, and an optional port (default 6379).
_SEED = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?")
CLUSTER_URL_EXAMPLE = "redis+cluster://10.0.0.5:7000,10.0.0.6:7000,10.0.0.7:7000"


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://`` or ``rediss+cluster://``)."""
    return url.startswith(CLUSTER_SCHEMES)


def cluster_seeds(url: str) -> tuple[list[tuple[str, int]], str]:
    """The seed nodes ``(host, port)`` a cluster URL names, and the first seed's URL in plain
    ``redis://`` or ``rediss://`` form with the URL's credentials and options.

    Raises ValueError saying what is wrong: no seed, a seed that is not ``host[:port]``, a port out
    of range, or a database other than 0 (a cluster has no other).
    """
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("redis+cluster", "rediss+cluster"):
        raise ValueError("must start with redis+cluster:// or rediss+cluster://")
    where = re.match(r"[^/?#]*", rest)
    netloc = where.group(0) if where else ""
    tail = rest[len(netloc) :]
    userinfo, at, hosts = netloc.rpartition("@")
    if not hosts:
        raise ValueError(f"names no seed node: list host:port of one or more, e.g. {CLUSTER_URL_EXAMPLE}")
    seeds: list[tuple[str, int]] = []
    first_host = ""
    for item in hosts.split(","):
        found = _SEED.fullmatch(item)
        if not item:
            raise ValueError(f"an empty seed (a comma too many?), e.g. {CLUSTER_URL_EXAMPLE}")
        if found is None:
            raise ValueError(
                f"seed {item!r} is not host:port (seeds are separated by commas, e.g. {CLUSTER_URL_EXAMPLE})"
            )
        port = int(found.group(2) or 6379)
        if not 1 <= port <= 65535:
            raise ValueError(f"seed {item!r}: the port must be 1-65535")
        first_host = first_host or found.group(1)
        seeds.append((found.group(1).strip("[]"), port))
    path = tail.split("?", 1)[0].split("#", 1)[0]
    if path not in ("", "/", "/0"):
        raise ValueError(f"a cluster has database 0 only: drop {path!r}")
    first = f"{scheme.removesuffix('+cluster')}://{userinfo}{at}{first_host}:{seeds[0][1]}{tail}"
    return seeds, first


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
        try:
            return await self._execute(*args, **kwargs)
        except (ResponseError, RedisClusterException) as e:
            plain = unwrapped(e)  # a storage fault in a generic class as its own (bot/storage/errors.py)
            if plain is e:
                raise
            raise plain from e

    async def _execute(self, *args: Any, **kwargs: Any) -> Any:
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
    """A cluster client for a ``redis+cluster://`` URL of one or more seeds (``max_connections`` per
    node); raises ValueError for a malformed URL (:func:`cluster_seeds`).

    Commands that meet a dead node are retried (about 6 s in all, backing off) while the cluster
    promotes its replica; the client then reloads the slots' map and goes to the new master.
    """
    seeds, first = cluster_seeds(url)
    options: dict[str, Any] = dict(parse_url(first))  # credentials and ?options, as redis:// has them
    for own in ("host", "port", "db"):
        options.pop(own, None)
    if options.pop("connection_class", None) is SSLConnection:
        options["ssl"] = True
    retry = Retry(ExponentialWithJitterBackoff(base=0.1, cap=1.0), 10)
    return _Cluster(
        startup_nodes=[ClusterNode(host, port) for host, port in seeds],
        **{"decode_responses": True, "max_connections": max_connections, "retry": retry,
           "socket_connect_timeout": 1.0, "socket_timeout": 5.0, **options},
    )  # fmt: skip


def timer_group(member: str) -> str:
    """What picks a timer's bucket: its second and third ``|``-separated fields, else all of it.

    For the bot's timers (``kind|chat|thread|table|...``, bot/table/timers.py) that is the chat and
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


class SlotMover(Protocol):
    """What a move across slots needs of the storage (:class:`bot.storage.redis_store.RedisStorage`,
    which calls these functions): its client, its keys and its two table scripts."""

    client: Any

    def table_key(self, chat_id: int, thread_id: int | None) -> str:
        """The table of a chat, or of a forum topic in it."""
        ...

    def history_key(self, chat_id: int) -> str:
        """The chat's finished matches."""
        ...

    async def run_put_new(self, key: str, version: int, revision: str, data: str, ttl_ms: int) -> int:
        """Create the table ``key`` at ``version`` and ``revision`` unless it exists (-1)."""
        ...

    async def run_delete(self, table_key: str, history_key: str, stamp: tuple[int, str]) -> int:
        """Compare-and-delete the table ``key`` at ``stamp`` (version, revision) (1 if deleted)."""
        ...


async def move_across_slots(
    store: SlotMover, old: int, new: int, data: str, stamp: tuple[int, str], revision: str, ttl_ms: int
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


async def move_key(store: SlotMover, old: str, new: str) -> None:
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
