"""A small cache of settings read from storage: each value kept a few seconds, one read at a time.

Every render asks for several chats' languages and the group's hints setting; reading them from Redis
each time would be most of a render's round trips. :class:`TtlCache` keeps each value for ``ttl``
seconds, and lookups of a key while its read is under way wait for that read instead of starting their
own (single flight). :meth:`TtlCache.forget` drops a key at once — a person chose another language —
and a read that was under way then does not store the old value over the forgetting.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class TtlCache(Generic[K, V]):
    """Values of ``read(key)`` kept ``ttl`` seconds of ``clock``; at most ``size`` keys (the one read
    longest ago goes first)."""

    def __init__(
        self,
        read: Callable[[K], Awaitable[V]],
        ttl: float,
        size: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._read = read
        self.ttl = ttl
        self.size = size
        self._clock = clock
        self._values: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._reading: dict[K, asyncio.Future[V]] = {}

    async def get(self, key: K) -> V:
        """The cached value, else one read (shared with every lookup of ``key`` made meanwhile)."""
        kept = self._values.get(key)
        if kept is not None and kept[0] > self._clock():
            return kept[1]
        reading = self._reading.get(key)
        if reading is None:
            reading = self._reading[key] = asyncio.ensure_future(self._fetch(key))
            # a failed read every waiter gave up on is not reported as "never retrieved"
            reading.add_done_callback(lambda f: f.cancelled() or f.exception())
        # shield: one waiter cancelled (its render stopped) must not cancel the read the others wait on
        return await asyncio.shield(reading)

    async def _fetch(self, key: K) -> V:
        try:
            value = await self._read(key)
        finally:
            # Still this key's read: not forgotten (or closed) while it was under way.
            mine = self._reading.get(key) is asyncio.current_task()
            if mine:
                del self._reading[key]
        if mine:
            self._values[key] = (self._clock() + self.ttl, value)
            self._values.move_to_end(key)
            while len(self._values) > self.size:
                self._values.popitem(last=False)
        return value

    def forget(self, key: K) -> None:
        """Read ``key`` again on its next lookup (a read under way is not stored)."""
        self._values.pop(key, None)
        self._reading.pop(key, None)

    async def close(self) -> None:
        """Stop the reads under way (on shutdown)."""
        reading = list(self._reading.values())
        self._reading.clear()
        for f in reading:
            f.cancel()
        await asyncio.gather(*reading, return_exceptions=True)

    def __len__(self) -> int:
        return len(self._values)
