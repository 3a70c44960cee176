"""Decisions on a Redis Stream when storage fails (issue 33, items 3 and 4).

* A worker that finds the jobs stream deleted (and its consumer group with it) creates both again:
  the next decision is a worker's, not the instance's after its 15-s wait.
* A decision the storage cannot queue (out of memory, Redis gone) raises its storage error — the bot
  player then waits for storage — instead of being played at random.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Iterator

import pytest
import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError

from bot.engine.ai.base import make_player
from bot.storage import RedisStorage
from bot.table.bots import decide
from bot.thinking.local import PoolThinker
from bot.thinking.stream import GROUP, StreamThinker, jobs_key
from bot.worker import Worker
from tests.bot.test_faults import PrivateRedis
from tests.conftest import _free_port
from tests.thinking.test_thinking import a_view


@pytest.mark.cluster
async def test_a_worker_creates_its_group_again_after_the_jobs_stream_is_deleted(
    storage: RedisStorage,
) -> None:
    thinker = StreamThinker(storage.client, PoolThinker.threads(1), prefix=storage.prefix, timeout=15)
    worker = Worker(storage.client, prefix=storage.prefix, name="w1")
    task = asyncio.create_task(worker.run())
    view = a_view()
    try:
        assert await thinker.decide("easy", view, 1) == make_player("easy").decide(view, random.Random(1))
        jobs = jobs_key(storage.prefix)
        assert await storage.client.delete(jobs) == 1  # the stream, and its consumer group with it
        began = time.monotonic()
        for seed in (2, 3):
            got = await thinker.decide("easy", view, seed)
            assert got == make_player("easy").decide(view, random.Random(seed))
        assert thinker.fell_back == 0, "a decision waited out the instance's timeout"
        assert time.monotonic() - began < 5
        assert [g["name"] for g in await storage.client.xinfo_groups(jobs)] == [GROUP]
        # The worker counts a job once its answer is sent; the answer may be read before that.
        for _ in range(100):
            if worker.done == 3:
                break
            await asyncio.sleep(0.02)
        assert worker.done == 3
    finally:
        worker.stopping.set()
        await task
        await thinker.close()


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    """A private Redis whose ``maxmemory`` the test may set (never the shared server's)."""
    server = PrivateRedis()
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def test_a_decision_redis_cannot_queue_for_lack_of_memory_is_not_played_at_random(
    private_redis: PrivateRedis,
) -> None:
    storage = RedisStorage.from_url(private_redis.url, prefix=f"t-{uuid.uuid4().hex[:8]}:")
    thinker = StreamThinker(storage.client, PoolThinker.threads(1), prefix=storage.prefix, timeout=15)
    admin = redis.Redis.from_url(private_redis.url)
    try:
        await thinker.start()
        admin.config_set("maxmemory", "1")
        with pytest.raises(OutOfMemoryError):
            await decide("easy", a_view(), random.Random(1), thinker)
    finally:
        admin.config_set("maxmemory", "0")
        admin.close()
        await thinker.close()
        await storage.close()


async def test_a_decision_for_a_redis_that_is_gone_is_not_played_at_random() -> None:
    storage = RedisStorage.from_url(f"redis://127.0.0.1:{_free_port()}/0")  # nothing listens there
    thinker = StreamThinker(storage.client, PoolThinker.threads(1), timeout=15)
    try:
        with pytest.raises(RedisConnectionError):
            await decide("easy", a_view(), random.Random(1), thinker)
    finally:
        await thinker.close()
        await storage.close()


async def test_a_worker_started_while_redis_is_down_waits_for_it() -> None:
    """Issue 33: a worker started while its Redis is down (restarting, a master failing over) waits
    and takes jobs once it answers, rather than exit."""
    server = PrivateRedis()
    storage = RedisStorage.from_url(server.url, prefix=f"t-{uuid.uuid4().hex[:8]}:")
    worker = Worker(storage.client, prefix=storage.prefix, name="early")
    task = asyncio.create_task(worker.run())
    try:
        await asyncio.sleep(1.5)
        assert not task.done(), "the worker gave up while Redis was down"
        await asyncio.to_thread(server.start)
        jobs = jobs_key(storage.prefix)
        for _ in range(200):
            try:
                if [g["name"] for g in await storage.client.xinfo_groups(jobs)] == [GROUP]:
                    break
            except redis.exceptions.ResponseError:
                pass
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the worker never made its group once Redis was up")
        thinker = StreamThinker(storage.client, PoolThinker.threads(1), prefix=storage.prefix, timeout=15)
        try:
            view = a_view()
            assert await thinker.decide("easy", view, 5) == make_player("easy").decide(view, random.Random(5))
            assert thinker.fell_back == 0
        finally:
            await thinker.close()
    finally:
        worker.stopping.set()
        await asyncio.wait_for(task, 10)
        await storage.close()
        server.stop()
