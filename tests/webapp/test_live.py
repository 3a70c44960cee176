"""A version saved by one instance reaches the pages another instance serves, through Redis (a single
Redis and a real Redis Cluster)."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import RedisStorage, Table
from bot.table.usecase import Snapshot
from bot.webapp.live import LiveHub

pytestmark = pytest.mark.cluster


def _snap(version: int) -> Snapshot:
    table = Table(table_id="abc123", chat_id=-100, creator_id=1, rules={"preset": "classic"}, version=version)
    return Snapshot(table, None)


async def test_a_save_on_one_instance_wakes_the_pages_of_another(redis_url: str) -> None:
    saver, server = RedisStorage.from_url(redis_url), RedisStorage.from_url(redis_url)
    one, two = LiveHub(saver.client, "t:"), LiveHub(server.client, "t:")
    try:
        async with two.watch((-100, None)) as changed, one.watch((-999, None)) as other:
            # The subscription is made in the background; publish until it is heard.
            for version in range(1, 100):
                one.show(_snap(version))
                try:
                    await asyncio.wait_for(changed.wait(), 0.2)
                    break
                except TimeoutError:
                    continue
            assert changed.is_set() and two.heard >= 1
            assert not other.is_set()  # another table's page is not woken
            changed.clear()
            one.show(_snap(200))
            await asyncio.wait_for(changed.wait(), 5)
            assert one.open_pages == 1 and two.open_pages == 1
        assert two.open_pages == 0
    finally:
        await one.close()
        await two.close()
        await saver.close()
        await server.close()


async def test_a_save_wakes_the_pages_of_its_own_instance_at_once_and_its_echo_none(redis_url: str) -> None:
    saver, other = RedisStorage.from_url(redis_url), RedisStorage.from_url(redis_url)
    hub, elsewhere = LiveHub(saver.client, "t2:"), LiveHub(other.client, "t2:")
    try:
        async with hub.watch((-100, None)) as changed:
            watched = hub.watched((-100, None))
            assert watched is not None
            for version in range(1, 100):  # until the subscription is made (it is in the background)
                elsewhere.show(_snap(version))
                try:
                    await asyncio.wait_for(changed.wait(), 0.2)
                    break
                except TimeoutError:
                    continue
            changed.clear()
            hub.show(_snap(200))  # its own save: its pages are woken with the snapshot, no read
            assert changed.is_set() and watched.saved is not None and watched.saved[1].table.version == 200
            assert watched.saved[0] == watched.wakes
            changed.clear()
            heard = hub.heard
            for _ in range(50):  # the echo of its own publish comes back, and wakes nobody
                await asyncio.sleep(0.02)
                if hub.heard > heard:
                    break
            assert hub.heard > heard and not changed.is_set()
            elsewhere.show(_snap(201))  # another instance's save wakes them
            await asyncio.wait_for(changed.wait(), 5)
            changed.clear()
            new = Table(table_id="new456", chat_id=-100, creator_id=1, rules={"preset": "classic"}, version=1)
            elsewhere.show(Snapshot(new, None))  # a new game in the chat: a lower version, but new
            await asyncio.wait_for(changed.wait(), 5)
    finally:
        await hub.close()
        await elsewhere.close()
        await saver.close()
        await other.close()
