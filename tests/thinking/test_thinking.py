"""Where bot players think: the haste rule, a process pool, jobs in a Redis Stream and their workers."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.engine import Deal, Rules, view_for
from bot.engine.ai import pool
from bot.engine.ai.base import make_player
from bot.engine.ai.search import HARD, SearchPlayer
from bot.engine.view import SeatView
from bot.storage import RedisStorage
from bot.thinking.job import NICE, pack, unpack
from bot.thinking.local import PoolThinker
from bot.thinking.stream import GROUP, StreamThinker, jobs_key
from bot.worker import Worker

ROOT = Path(__file__).resolve().parents[2]


def a_view(seed: int = 3) -> SeatView:
    deal = Deal.shuffled(Rules.make("classic"), random.Random(seed), 3)
    seat = deal.to_act
    assert seat is not None
    return view_for(deal, seat)


def test_haste_shrinks_a_waiting_decision_linearly_to_a_floor() -> None:
    assert pool.haste(0.0) == 1.0
    assert pool.haste(1.0) == 0.75
    assert pool.haste(2.0) == 0.5
    assert pool.haste(60.0) == pool.MIN_HASTE
    assert pool.haste(-1.0) == 1.0


def test_a_hastened_search_player_thinks_for_its_share_of_the_budget() -> None:
    hard = make_player("hard")
    assert isinstance(hard, SearchPlayer)
    half = pool.hastened(hard, 0.5)
    assert isinstance(half, SearchPlayer) and half.name == "hard"
    assert half.budget == dataclasses.replace(HARD, seconds=HARD.seconds / 2, limit=HARD.limit / 2)
    assert pool.hastened(hard, 1.0) is hard
    easy = make_player("easy")
    assert pool.hastened(easy, 0.1) is easy  # no budget to shrink


def test_a_job_crosses_as_text_and_comes_back_equal() -> None:
    view = a_view()
    assert unpack(pack(view)) == view
    assert unpack(pack(view.legal[0])) == view.legal[0]


async def test_a_process_pool_decides_as_the_level_does_in_process() -> None:
    thinker = PoolThinker.processes(1)
    try:
        await thinker.start()
        view = a_view()
        got = await thinker.decide("easy", view, 7)
        assert got == make_player("easy").decide(view, random.Random(7))
        assert await thinker.decide("hard", view, 7) in view.legal
        # The worker runs in another process: its pid is not ours.
        loop = asyncio.get_running_loop()
        assert await loop.run_in_executor(thinker.executor, os.getpid) != os.getpid()
        # ... at a lower CPU priority than the bot's event loop (by NICE, up to the system's lowest, 19:
        # a bot already started under `nice` can go no lower than that).
        assert await loop.run_in_executor(thinker.executor, os.nice, 0) >= min(os.nice(0) + NICE, 19)
    finally:
        await thinker.close()


@pytest.mark.cluster
async def test_stream_jobs_are_answered_by_a_worker(storage: RedisStorage) -> None:
    thinker = StreamThinker(storage.client, PoolThinker.threads(1), prefix=storage.prefix)
    beats: list[float] = []
    worker = Worker(storage.client, prefix=storage.prefix, name="w1", beat=lambda: beats.append(time.time()))
    task = asyncio.create_task(worker.run())
    try:
        view = a_view()
        answers = await asyncio.gather(*(thinker.decide("easy", view, s) for s in range(5)))
        assert answers == [make_player("easy").decide(view, random.Random(s)) for s in range(5)]
        assert thinker.fell_back == 0
        worker.stopping.set()
        await task  # it ends after the job in hand
        assert worker.done == 5
        assert len(beats) == 1  # at its start; the next after 15 s
        # Answered jobs leave nothing behind: not in the stream, not pending.
        assert await storage.client.xlen(jobs_key(storage.prefix)) == 0
        assert (await storage.client.xpending(jobs_key(storage.prefix), GROUP))["pending"] == 0
    finally:
        worker.stopping.set()
        await task
        await thinker.close()


@pytest.mark.cluster
async def test_with_no_worker_the_instance_thinks_itself_and_the_stale_job_is_dropped(
    storage: RedisStorage,
) -> None:
    thinker = StreamThinker(storage.client, PoolThinker.threads(1), prefix=storage.prefix, timeout=0.5)
    try:
        view = a_view()
        assert await thinker.decide("easy", view, 1) in view.legal
        assert thinker.fell_back == 1
    finally:
        await thinker.close()
    worker = Worker(storage.client, prefix=storage.prefix, name="late")
    task = asyncio.create_task(worker.run())
    for _ in range(100):
        if worker.dropped:
            break
        await asyncio.sleep(0.05)
    worker.stopping.set()
    await task
    assert (worker.dropped, worker.done) == (1, 0)


@pytest.mark.cluster
async def test_a_decision_whose_worker_died_is_thought_again_by_another(
    storage: RedisStorage, redis_url: str
) -> None:
    """A worker process killed mid-decision: its job stays pending, another worker claims it once idle
    and answers; the instance gets exactly one answer."""
    prefix = storage.prefix
    dead = subprocess.Popen(
        [sys.executable, "-m", "bot.worker", "--processes", "1", "--redis-url", redis_url,
         "--prefix", prefix],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    thinker = StreamThinker(storage.client, PoolThinker.threads(1), prefix=prefix, timeout=30)
    await thinker.start()
    view = a_view()
    answer = asyncio.create_task(thinker.decide("tests.thinking.slow:slow", view, 4))
    try:
        jobs = jobs_key(prefix)
        for _ in range(600):  # the worker has taken the job (it is pending under its name)
            if (await storage.client.xpending(jobs, GROUP))["pending"] == 1:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the worker process never took the job")
        dead.send_signal(signal.SIGKILL)
        dead.wait(timeout=10)
        began = time.monotonic()
        other = Worker(storage.client, prefix=prefix, name="rescuer", claim_after=0.5)
        task = asyncio.create_task(other.run())
        got = await asyncio.wait_for(answer, 20)
        assert got == make_player("random").decide(view, random.Random(4))
        # The worker counts a job once its answer is sent; the answer may be read before that.
        for _ in range(100):
            if other.done == 1:
                break
            await asyncio.sleep(0.02)
        assert other.done == 1 and thinker.fell_back == 0
        assert time.monotonic() - began < 15
        other.stopping.set()
        await task
        assert (await storage.client.xpending(jobs, GROUP))["pending"] == 0
    finally:
        if dead.poll() is None:
            dead.kill()
        answer.cancel()
        await thinker.close()


_OWNER = """
import asyncio, os, sys
from bot.thinking.local import PoolThinker

async def main() -> None:
    thinker = PoolThinker.processes(1)
    await thinker.start()
    pid = await asyncio.get_running_loop().run_in_executor(thinker.executor, os.getpid)
    print(pid, flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


def test_a_pool_worker_ends_when_its_bot_is_killed_outright() -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", _OWNER],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert owner.stdout is not None
        worker = int(owner.stdout.readline())
        os.kill(worker, 0)  # alive
        owner.kill()  # SIGKILL: no shutdown of the pool
        owner.wait(timeout=10)
        for _ in range(100):
            try:
                os.kill(worker, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.kill(worker, signal.SIGKILL)
            raise AssertionError("the pool's worker outlived its bot")
    finally:
        if owner.poll() is None:
            owner.kill()
