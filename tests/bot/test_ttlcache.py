"""The settings cache the presenter reads languages and hints through (bot/table/ttlcache.py)."""

from __future__ import annotations

import asyncio

import pytest

from bot.table.ttlcache import TtlCache


class Store:
    """A settings store whose reads can be held open, counting them."""

    def __init__(self) -> None:
        self.values: dict[int, str] = {}
        self.reads: list[int] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail = False

    async def read(self, key: int) -> str:
        self.reads.append(key)
        await self.gate.wait()
        if self.fail:
            raise ConnectionError("storage is down")
        return self.values.get(key, "ru")

    async def held(self, cache: TtlCache[int, str], n: int) -> list[asyncio.Task[str]]:
        """``n`` lookups of key 1 started while its read is held open (the caller lets it go)."""
        self.gate.clear()
        waiting = [asyncio.create_task(cache.get(1)) for _ in range(n)]
        await asyncio.sleep(0)
        return waiting


async def test_lookups_during_a_read_share_it() -> None:
    store = Store()
    cache = TtlCache(store.read, ttl=60)
    store.values[1] = "en"
    waiting = await store.held(cache, 5)
    store.gate.set()
    assert await asyncio.gather(*waiting) == ["en"] * 5
    assert store.reads == [1]
    assert await cache.get(1) == "en"
    assert store.reads == [1]


async def test_a_value_is_read_again_after_its_ttl() -> None:
    store = Store()
    now = [100.0]
    cache = TtlCache(store.read, ttl=30, clock=lambda: now[0])
    assert await cache.get(1) == "ru"
    store.values[1] = "en"
    now[0] += 29.9
    assert await cache.get(1) == "ru"
    now[0] += 0.2
    assert await cache.get(1) == "en"
    assert store.reads == [1, 1]


async def test_forget_during_a_read_keeps_the_old_value_out() -> None:
    """A person chooses a language while a render is reading the old one: the next render reads anew."""
    store = Store()
    cache = TtlCache(store.read, ttl=60)
    (old,) = await store.held(cache, 1)
    store.values[1] = "en"  # /language en is stored ...
    cache.forget(1)  # ... and the cache told
    store.gate.set()
    assert await old in ("ru", "en")  # the render under way shows either
    assert await cache.get(1) == "en"
    assert store.reads == [1, 1]


async def test_a_failed_read_is_not_kept_and_reaches_every_waiter() -> None:
    store = Store()
    cache = TtlCache(store.read, ttl=60)
    store.fail = True
    waiting = await store.held(cache, 3)
    store.gate.set()
    results = await asyncio.gather(*waiting, return_exceptions=True)
    assert all(isinstance(r, ConnectionError) for r in results)
    store.fail = False
    assert await cache.get(1) == "ru"
    assert store.reads == [1, 1]


async def test_a_cancelled_waiter_does_not_cancel_the_read_others_wait_on() -> None:
    store = Store()
    cache = TtlCache(store.read, ttl=60)
    first, second = await store.held(cache, 2)
    first.cancel()
    store.gate.set()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert await second == "ru"
    assert store.reads == [1]


async def test_the_cache_keeps_at_most_size_keys_the_oldest_going_first() -> None:
    store = Store()
    cache = TtlCache(store.read, ttl=60, size=3)
    for key in range(5):
        await cache.get(key)
    assert len(cache) == 3
    await cache.get(4)
    await cache.get(0)
    assert store.reads == [0, 1, 2, 3, 4, 0]


async def test_close_stops_the_reads_under_way() -> None:
    store = Store()
    cache = TtlCache(store.read, ttl=60)
    (waiter,) = await store.held(cache, 1)
    await cache.close()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert len(cache) == 0
