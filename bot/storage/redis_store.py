"""Redis storage: every key of a chat shares the hash tag ``{chat_id}``, so it also runs on a cluster.

A table is a hash ``{v: version, r: revision, data: JSON}``; saving is one Lua compare-and-set on
``v`` and ``r`` (:mod:`bot.storage.scripts`), so a double tap, or two bot processes handling the same
tap, apply a move once, also after Redis went back to an older state. A table that does not load is
moved aside (:mod:`bot.storage.quarantine`). Every script touches the keys of one slot; on a Redis
Cluster (``redis+cluster://``, :mod:`bot.storage.cluster`) the timers are spread over several sorted
sets, and a group's move to its supergroup is done in steps.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff

from bot.storage import scripts
from bot.storage.cluster import (
    CLUSTER_TIMER_BUCKETS,
    cluster_client,
    is_cluster_url,
    move_across_slots,
    move_key,
    timer_bucket,
)
from bot.storage.errors import STORAGE_DOWN, Redis
from bot.storage.invariants import check_table
from bot.storage.models import SCHEMA, ChatSettings, Table, UserSettings
from bot.storage.protocol import StaleWrite, TimerPlan
from bot.storage.quarantine import Quarantined, TableReader
from bot.storage.scripts import cas, new_revision
from bot.storage.stats_store import CHAT_PARTS, StatsStore

_LOG = logging.getLogger(__name__)
_S = TypeVar("_S", ChatSettings, UserSettings)
HISTORY_KEPT = 100
#: Seconds an update's claim is kept (Telegram stops retrying long before).
UPDATE_KEPT = 86400
SETTINGS_TTL = 400 * 24 * 3600
#: Seconds a chat's settings read from Redis are reused by this process: every move arms turn timers
#: by them. A change made here is seen at once; one made by another process within this time.
CHAT_SETTINGS_CACHE = 5.0
#: Chats whose settings are cached at most (the cache starts over beyond).
CHAT_SETTINGS_KEPT = 10_000


class RedisStorage:
    """:class:`bot.storage.protocol.Storage` on Redis; ``prefix`` separates deployments (and tests)."""

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        *,
        prefix: str = "",
        check: bool = True,
        timer_buckets: int | None = None,
    ) -> None:
        self.client: Any = client
        self.prefix = prefix
        #: On a Redis Cluster: the two chats of a move are on different slots (done in steps).
        self.cluster = isinstance(client, RedisCluster)
        #: Sorted sets the timers are spread over (each polled): one on a single Redis, several on a
        #: cluster so no one node holds every deadline. A process must agree with the others on it.
        self.timer_buckets = timer_buckets or (CLUSTER_TIMER_BUCKETS if self.cluster else 1)
        self._next_bucket = 0
        #: Check every table state before saving it (card conservation, a sane match); see
        #: bot/storage/invariants.py. A state that fails is refused, never stored.
        self.check = check
        self._save = client.register_script(scripts.SAVE)
        self._save_arm = client.register_script(scripts.SAVE_ARM)
        self._delete = client.register_script(scripts.DELETE)
        self._move = client.register_script(scripts.MOVE)
        self._claim = client.register_script(scripts.CLAIM)
        self._add_timers = client.register_script(scripts.ADD_TIMERS)
        self._claim_update = client.register_script(scripts.CLAIM_UPDATE)
        self._put_new = client.register_script(scripts.PUT_NEW)
        self._push = client.register_script(scripts.PUSH)
        self._reader = TableReader(client)
        #: Told of each table this process moved aside because it did not load (the handlers tell its
        #: chat; see bot/storage/quarantine.py).
        self.on_quarantine: Callable[[Quarantined], None] | None = None
        #: The standings' keys and scripts (bot/storage/stats_store.py).
        self.stats = StatsStore(client, prefix)
        #: Chat settings key -> (monotonic time it may be used until, the settings read).
        self._chat_cache: dict[str, tuple[float, ChatSettings]] = {}

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "", max_connections: int = 100) -> RedisStorage:
        """Connect to the Redis at ``url`` (``redis://``, ``rediss://``, ``unix://``), or to the Redis
        Cluster a node of which ``redis+cluster://`` (``rediss+cluster://``) names. When
        ``max_connections`` (per node on a cluster) are busy a command waits for one (up to 20 s):
        redis-py's default pool refuses at once, which 200 busy tables reach (the soak).
        """
        if is_cluster_url(url):
            return cls(cluster_client(url, max_connections=max_connections), prefix=prefix)
        # Connections made by a pool of our own get no retries unless told: a connection that a
        # Redis restart closed would fail its next command. Retried on a new connection instead
        # (about 1.5 s in all); a compare-and-set retried after it was applied is refused as stale.
        retry = Retry(ExponentialWithJitterBackoff(base=0.05, cap=1.0), 5)
        pool = aioredis.BlockingConnectionPool.from_url(
            url, decode_responses=True, max_connections=max_connections, timeout=20, retry=retry
        )
        return cls(Redis.from_pool(pool), prefix=prefix)

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
        """The stored table, with ``version`` and ``revision`` set from the stored hash (the JSON's
        are not read). None if there is none, or it is of a newer schema; one that does not load is
        moved aside and reads as none (:mod:`bot.storage.quarantine`)."""
        key = self.table_key(chat_id, thread_id)
        return await self._reader.load(key, chat_id, thread_id, self.on_quarantine)

    async def save_table(
        self, table: Table, *, ttl: float, data: str | None = None, timers: TimerPlan | None = None
    ) -> None:
        """Compare-and-set ``table`` on its version; raises :class:`StaleWrite` if it lost.

        ``data``: the table's JSON when the caller has just made it (its ``version`` field is not
        read back: the stored counter is the version). A state that breaks an invariant raises
        :class:`~bot.storage.invariants.InvariantViolation` and is not stored. ``timers`` are armed
        in the same script, only if the save is made (on a cluster: just after it, by
        :meth:`add_timers`; a process that dies between the two leaves them to the next start's
        :meth:`~bot.handlers.timers.Timers.resume`, which arms every table).
        """
        if self.check:
            check_table(table)
        new, revision = table.version + 1, new_revision()
        if data is None:
            data = table.model_dump_json()
        args = [str(table.version), table.revision, str(new), revision, data, str(max(1, int(ttl * 1000)))]
        key = self.table_key(table.chat_id, table.thread_id)
        if timers is None or self.cluster:
            ok = await cas(self._save(keys=[key], args=args))
            if ok and timers is not None:
                try:
                    await self.add_timers(timers.due, unless=timers.unless, drop=timers.drop)
                except STORAGE_DOWN as e:  # the save stands
                    _LOG.warning("the timers of table %s wait for its next change: %s", table.table_id, e)
        else:
            args += _timer_args(timers.due, timers.unless, timers.drop)
            ok = await cas(self._save_arm(keys=[key, self.timers_key()], args=args))
        if not ok:
            raise StaleWrite(f"table {table.table_id} in chat {table.chat_id} changed since it was loaded")
        table.version, table.revision = new, revision

    async def delete_table(self, table: Table, *, archive: dict[str, Any] | None = None) -> None:
        """Compare-and-delete ``table``, pushing ``archive`` onto the chat's history."""
        archived = json.dumps(archive) if archive else ""
        ok = await cas(
            self._delete(
                keys=[self.table_key(table.chat_id, table.thread_id), self.history_key(table.chat_id)],
                args=[str(table.version), table.revision, archived, str(HISTORY_KEPT)],
            )
        )
        if not ok:
            raise StaleWrite(f"table {table.table_id} in chat {table.chat_id} changed since it was loaded")

    async def move_chat(self, old: int, new: int, table: Table | None, *, ttl: float) -> None:
        """Move a group's table, settings and history to the supergroup it became, in one script.

        ``table`` is the old chat's table as loaded (its ``version``) with ``chat_id`` set to ``new``;
        None moves only settings and history. Raises :class:`StaleWrite` if the table changed since
        it was loaded, or the new chat already has one. (The keys of two chats have different hash
        tags: on a Redis Cluster this script needs both on one node.)
        """
        data, revision = "", new_revision()
        if table is not None:
            data = table.model_copy(update={"version": table.version + 1}).model_dump_json()
        if self.cluster:
            ok = await self._move_in_steps(old, new, table, data, revision, max(1, int(ttl * 1000)))
        else:
            ok = await self._move(
                keys=[
                    self.table_key(old, None),
                    self.table_key(new, None),
                    self.chat_key(old),
                    self.chat_key(new),
                    self.history_key(old),
                    self.history_key(new),
                    *(key for part in CHAT_PARTS for key in self._stats_pair(old, new, part)),
                ],
                args=[
                    str(table.version) if table is not None else "",
                    table.revision if table is not None else "",
                    revision,
                    data,
                    str(max(1, int(ttl * 1000))),
                ],
            )
        for chat_id in (old, new):
            self._chat_cache.pop(self.chat_key(chat_id), None)
        if ok != 1:
            raise StaleWrite(f"the table of chat {old} changed, or chat {new} has one already")
        if table is not None:
            table.version, table.revision = table.version + 1, revision

    async def _move_in_steps(
        self, old: int, new: int, table: Table | None, data: str, revision: str, ttl_ms: int
    ) -> int:
        """:meth:`move_chat` on a cluster: the table, then settings and history, each key on its own."""
        if table is not None:
            ok = await move_across_slots(self, old, new, data, table.stamp, revision, ttl_ms)
            if ok != 1:
                return ok
        await move_key(self, self.chat_key(old), self.chat_key(new))
        await move_key(self, self.history_key(old), self.history_key(new))
        for part in CHAT_PARTS:
            await move_key(self, *self._stats_pair(old, new, part))
        return 1

    def _stats_pair(self, old: int, new: int, part: str) -> tuple[str, str]:
        return self.stats.chat_stats_key(old, part), self.stats.chat_stats_key(new, part)

    async def run_put_new(self, key: str, version: int, revision: str, data: str, ttl_ms: int) -> int:
        """Create the table ``key`` at ``version`` and ``revision`` unless it exists (-1)."""
        return int(await self._put_new(keys=[key], args=[str(version), revision, data, str(ttl_ms)]))

    async def run_delete(self, table_key: str, history_key: str, stamp: tuple[int, str]) -> int:
        """Compare-and-delete the table ``key`` at ``stamp`` (version, revision), archiving nothing
        (1 if deleted)."""
        args = [str(stamp[0]), stamp[1], "", "0"]
        return int(await cas(self._delete(keys=[table_key, history_key], args=args)))

    async def tables(self) -> AsyncIterator[Table]:
        """Every stored table, found with SCAN (on a cluster: on every master, which redis-py does)."""
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
        await self._push(keys=[self.history_key(chat_id)], args=[json.dumps(record), str(HISTORY_KEPT)])

    async def history(self, chat_id: int, limit: int = 10) -> list[dict[str, Any]]:
        """Finished matches of the chat, newest first."""
        items = await self.client.lrange(self.history_key(chat_id), 0, limit - 1)
        return [json.loads(item) for item in items]

    # ----- standings (bot/storage/stats_store.py) ----------------------------------------------

    async def archive_match(
        self,
        chat_id: int,
        match_id: str,
        *,
        at: float,
        month: str,
        entry: dict[str, Any] | None,
        counts: dict[str, int],
        names: dict[str, str],
    ) -> bool:
        """Keep a finished match's entry and add its figures to the chat's standings, in one script,
        unless ``match_id`` was counted already (then nothing: False)."""
        return await self.stats.archive(
            chat_id,
            self.history_key(chat_id),
            match_id,
            at=at,
            month=month,
            entry=entry,
            counts=counts,
            names=names,
            history_kept=HISTORY_KEPT,
        )

    async def count_person(
        self,
        user_id: int,
        match_key: str,
        *,
        at: float,
        won: bool,
        counts: dict[str, int],
        values: dict[str, str],
    ) -> bool:
        """Add a match to a person's figures across chats, unless ``match_key`` was counted."""
        return await self.stats.count_person(user_id, match_key, at=at, won=won, counts=counts, values=values)

    async def award(self, user_id: int, ids: list[str], *, at: float) -> list[str]:
        """Mark achievements earned by a person (once for ever); the ids not earned before."""
        return await self.stats.award(user_id, ids, at=at)

    async def count_hint(self, user_id: int) -> int:
        """One more 💡 hint given to a person (their stats); how many now."""
        return await self.stats.count_hint(user_id)

    async def standings(self, chat_id: int, period: str) -> tuple[dict[str, int], dict[str, str]]:
        """A chat's standings counters for ``period`` (``all`` or ``YYYY-MM``) and the players' names."""
        return await self.stats.standings(chat_id, period)

    async def personal(self, user_id: int) -> dict[str, str]:
        """A person's figures across chats."""
        return await self.stats.personal(user_id)

    async def clear_stats(self) -> int:
        """Delete every standings key (to rebuild them from the history)."""
        return await self.stats.clear()

    async def history_chats(self) -> list[int]:
        """Every chat with a stored history (SCAN; on a cluster on every master)."""
        chats = []
        async for key in self.client.scan_iter(match=f"{self.prefix}kozel:*:history", count=500):
            chat = key[len(self.prefix) + len("kozel:{") :].partition("}:history")[0]
            try:
                chats.append(int(chat))
            except ValueError:
                continue
        return chats

    # ----- settings ----------------------------------------------------------------------------

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
        settings = self._parse(await self.client.get(key), ChatSettings)
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

    async def user_settings(self, user_id: int) -> UserSettings:
        """A person's settings."""
        return await self._get(self.user_key(user_id), UserSettings)

    async def save_user_settings(self, user_id: int, settings: UserSettings) -> None:
        """Store a person's settings."""
        await self.client.set(self.user_key(user_id), settings.model_dump_json(), ex=SETTINGS_TTL)

    async def _get(self, key: str, model: type[_S]) -> _S:
        return self._parse(await self.client.get(key), model)

    @staticmethod
    def _parse(data: str | bytes | None, model: type[_S]) -> _S:
        if data is None:
            return model()
        raw = json.loads(data)
        if raw.get("schema_version") != SCHEMA:
            return model()
        return model.model_validate(raw)

    async def claim_update(self, update_id: int, *, now: float, lease: float, takeover: bool = False) -> bool:
        """Take ``update_id`` for ``lease`` seconds, unless it is done or (without ``takeover``)
        another lease is live.

        Claims are kept a day (Telegram retries for less).
        """
        args = [repr(now), repr(now + lease), str(UPDATE_KEPT), "1" if takeover else "0"]
        return bool(await self._claim_update(keys=[self._update_key(update_id)], args=args))

    async def finish_update(self, update_id: int) -> None:
        """Mark ``update_id`` handled: no later delivery of it is handled again."""
        await self.client.set(self._update_key(update_id), "done", ex=UPDATE_KEPT)

    async def update_done(self, update_id: int) -> bool:
        """Whether ``update_id`` was handled to the end (by any process)."""
        return bool(await self.client.get(self._update_key(update_id)) == "done")

    def _update_key(self, update_id: int) -> str:
        return f"{self.prefix}kozel:update:{update_id}"

    # ----- timers ------------------------------------------------------------------------------

    def timers_key(self, bucket: int = 0) -> str:
        """A bucket of the pending timers (member: timer id, score: due Unix time).

        One bucket (a single Redis): ``kozel:timers``. On a cluster bucket K is ``kozel:timers:K``,
        each its own slot; a timer's table picks its bucket (:func:`bot.storage.cluster.timer_bucket`).
        """
        base = f"{self.prefix}kozel:timers"
        return base if self.timer_buckets == 1 else f"{base}:{bucket}"

    def inflight_key(self, bucket: int = 0) -> str:
        """The claimed timers of a bucket not yet fired (score: when the claim's lease ends).

        Its hash tag is the whole bucket's key, so both keys share one slot on a Redis Cluster.
        """
        return f"{{{self.timers_key(bucket)}}}:inflight"

    def bucket_of(self, member: str) -> int:
        """The bucket that holds the timer ``member``."""
        return timer_bucket(member, self.timer_buckets)

    async def add_timers(
        self, due: dict[str, float], *, unless: str | None = None, drop: Collection[str] = ()
    ) -> bool:
        """ZADD NX the timers, unless ``unless`` is pending; ZREM ``drop`` first.

        One Lua script per bucket; the bot's calls name one table's timers, one bucket, so the guard,
        the drops and the additions are one atomic step. Timers of several buckets (only tests) are
        added after the guard's bucket said yes.
        """
        if not due and not drop:
            return False
        buckets: dict[int, tuple[list[str], list[str]]] = {}
        guard = self.bucket_of(unless) if unless else None
        if guard is not None:
            buckets[guard] = ([], [])
        for member in drop:
            buckets.setdefault(self.bucket_of(member), ([], []))[0].append(member)
        for member, when in due.items():
            buckets.setdefault(self.bucket_of(member), ([], []))[1].extend((repr(when), member))
        order = sorted(buckets, key=lambda b: b != guard)  # the guard's bucket first
        added = True
        for bucket in order:
            drops, pairs = buckets[bucket]
            args: list[str] = [str(len(drops)), *drops, (unless or "") if bucket == guard else ""]
            ok = await self._add_timers(keys=[self.timers_key(bucket)], args=args + (pairs if added else []))
            added = added and bool(ok)
        return added

    async def claim_timers(self, now: float, limit: int = 100, *, lease: float = 60.0) -> list[str]:
        """Move the due timers to the in-flight sets for ``lease`` seconds, one Lua script per bucket.

        Buckets are polled in turn, from a different one each call, until ``limit`` are claimed;
        the claimed timers come back in the order they were due.
        """
        found: list[tuple[float, str]] = []
        first = self._next_bucket
        self._next_bucket = (first + 1) % self.timer_buckets
        for step in range(self.timer_buckets):
            if len(found) >= limit:
                break
            bucket = (first + step) % self.timer_buckets
            keys = [self.timers_key(bucket), self.inflight_key(bucket)]
            flat = await self._claim(keys=keys, args=[repr(now), str(limit - len(found)), repr(now + lease)])
            found += [(float(flat[i + 1]), str(flat[i])) for i in range(0, len(flat), 2)]
        found.sort()
        return [member for _, member in found]

    async def finish_timer(self, member: str) -> None:
        """A claimed timer has fired: drop its lease."""
        await self.client.zrem(self.inflight_key(self.bucket_of(member)), member)

    async def timer_due(self, member: str) -> float | None:
        """When the pending timer ``member`` is due (its score), or None."""
        due = await self.client.zscore(self.timers_key(self.bucket_of(member)), member)
        return None if due is None else float(due)

    async def release_timer(self, member: str, at: float) -> None:
        """A claimed timer could not fire: its lease ends at ``at`` (XX: unless it is over already)."""
        await self.client.zadd(self.inflight_key(self.bucket_of(member)), {member: at}, xx=True)

    async def close(self) -> None:
        """Close the connection pool."""
        await self.client.aclose()


def _timer_args(due: dict[str, float], unless: str | None, drop: Collection[str]) -> list[str]:
    """The arguments of ADD_TIMERS (and of SAVE_ARM after its own six)."""
    args: list[str] = [str(len(drop)), *drop, unless or ""]
    for member, when in due.items():
        args += [repr(when), member]
    return args
