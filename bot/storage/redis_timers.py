"""The Redis storage's timers and claims: who fires a turn timer, and who handles an update, once.

Pending timers are a sorted set (member: timer id, score: due Unix time): ``kozel:timers`` on a single
Redis, several buckets ``kozel:timers:K`` on a cluster (:func:`bot.storage.cluster.timer_bucket`), so
no one node holds every deadline. A claim moves the due timers of a bucket to its in-flight set for a
lease, in one Lua script (:data:`bot.storage.scripts.CLAIM`); an update is claimed by its id the same
way (:data:`bot.storage.scripts.CLAIM_UPDATE`). :class:`bot.storage.redis_store.RedisStorage` is made
of this and the tables' part.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection
from typing import Any

from bot.storage import scripts
from bot.storage.cluster import timer_bucket

#: Seconds an update's claim is kept (Telegram stops retrying long before).
UPDATE_KEPT = 86400


class RedisTimers:
    """The timers and update claims of :class:`bot.storage.protocol.Storage` on Redis."""

    def __init__(self, client: Any, *, prefix: str, timer_buckets: int) -> None:
        self.client: Any = client
        self.prefix = prefix
        #: Sorted sets the timers are spread over (each polled): one on a single Redis, several on a
        #: cluster so no one node holds every deadline. A process must agree with the others on it.
        self.timer_buckets = timer_buckets
        self._next_bucket = 0
        self._claim = client.register_script(scripts.CLAIM)
        self._add_timers = client.register_script(scripts.ADD_TIMERS)
        self._claim_update = client.register_script(scripts.CLAIM_UPDATE)

    # ----- updates -----------------------------------------------------------------------------

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

    def claim_key(self, bucket: int, token: str) -> str:
        """What the claim ``token`` took from a bucket (kept for its lease; the bucket's slot)."""
        return f"{{{self.timers_key(bucket)}}}:claim:{token}"

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

    async def claim_timers(
        self, now: float, limit: int = 100, *, lease: float = 60.0, token: str | None = None
    ) -> list[str]:
        """Move the due timers to the in-flight sets for ``lease`` seconds, one Lua script per bucket.

        Buckets are polled in turn, from a different one each call, until ``limit`` are claimed;
        the claimed timers come back in the order they were due. A claim made again with the same
        ``token`` (while the lease lasts) returns what that claim took: a claim whose answer was lost
        with its connection (applied, then retried on a new one, or by the next tick) is not left to
        its lease. Without a token the call makes one (redis-py's own retries reuse it).
        """
        token = token or secrets.token_hex(8)
        found: list[tuple[float, str]] = []
        first = self._next_bucket
        self._next_bucket = (first + 1) % self.timer_buckets
        for step in range(self.timer_buckets):
            if len(found) >= limit:
                break
            bucket = (first + step) % self.timer_buckets
            keys = [self.timers_key(bucket), self.inflight_key(bucket), self.claim_key(bucket, token)]
            args = [repr(now), str(limit - len(found)), repr(now + lease), str(max(1, int(lease * 1000)))]
            flat = await self._claim(keys=keys, args=args)
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


def timer_args(due: dict[str, float], unless: str | None, drop: Collection[str]) -> list[str]:
    """The arguments of ADD_TIMERS (and of SAVE_ARM after its own six)."""
    args: list[str] = [str(len(drop)), *drop, unless or ""]
    for member, when in due.items():
        args += [repr(when), member]
    return args
