"""Two bot instances behind one webhook share one Telegram budget (bot/storage/budget.py).

The emulator enforces Telegram's flood limits and answers 429 over them. They are scaled up in time
here so that ten tables ask for more than they allow within seconds: 15 calls a second in all
(Telegram: 30) and 60 a minute to a group (Telegram: 20, which a short test would never reach). The
bot is paced to them with the margin its production pacing has (3.1 s a group call for 20 a
minute), for the jitter between a grant in Redis and the call's arrival: 12 calls a second, a group
call every 1.05 s, a private chat's every second. Two instances pacing alone would send up to 24 a
second, and to each chat at twice its pace.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bot.app import codec_for, services_of
from bot.measure.soak.people import Run, play_table
from bot.sandbox import Driver, Emulator, EmulatorConfig
from bot.sandbox.limits import COUNTED_METHODS
from bot.storage import RedisStorage
from bot.table.core import Limits
from bot.tg.services import Settings
from bot.webhook import SECRET_HEADER
from tests.deploy.webhooks import webhook_instances

SECRET = "shared-budget"
TABLES = 10
#: Seconds the tables play once all of them have started (at most OPEN_SECONDS after the first tap).
PLAY_SECONDS = 5.0
OPEN_SECONDS = 40.0
TELEGRAM = EmulatorConfig(rate_limits=True, global_max_per_second=15, group_max_per_minute=60)
LIMITS = Limits(group_interval=1.05, private_interval=1.0, global_interval=1 / 12)
#: Slack for the jitter between a grant in Redis and the call reaching the emulator (seconds).
SLACK = 0.1


@pytest.fixture
async def twins(
    redis_url: str, storage: RedisStorage
) -> AsyncIterator[tuple[Emulator, list[int], list[Any]]]:
    """One emulator with Telegram's flood limits, two bot applications paced as in production (each
    its own Redis client, the same keys), two webhooks."""
    async with webhook_instances(
        redis_url, storage.prefix, TELEGRAM, Settings(bot_delay=0.0, limits=LIMITS), SECRET
    ) as running:
        yield running


async def _pump(emulator: Emulator, ports: list[int], stop: asyncio.Event) -> None:
    """Deliver each update to the two instances by turns (again, to the other, until one answers
    200), so both handle every table's taps and both send to every chat."""
    turn = itertools.cycle(range(len(ports)))
    tasks: set[asyncio.Task[None]] = set()

    async def deliver(http: aiohttp.ClientSession, first: int, update: dict[str, Any]) -> None:
        for attempt in range(20):
            port = ports[(first + attempt) % len(ports)]
            with contextlib.suppress(aiohttp.ClientError, OSError):
                url = f"http://127.0.0.1:{port}/tg"
                async with http.post(url, json=update, headers={SECRET_HEADER: SECRET}) as response:
                    if response.status == 200:
                        return
            await asyncio.sleep(0.2)

    async with aiohttp.ClientSession() as http:
        while not stop.is_set():
            updates = emulator.world.take_updates()
            if not updates:
                await emulator.world.wait_change(0.05)
                continue
            for update in updates:
                task = asyncio.create_task(deliver(http, next(turn), update))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        await asyncio.gather(*tasks, return_exceptions=True)


def _most_within(times: list[float], window: float) -> int:
    """The most of ``times`` (sorted) inside any window of ``window`` seconds."""
    most, start = 0, 0
    for end, at in enumerate(times):
        while at - times[start] >= window:
            start += 1
        most = max(most, end - start + 1)
    return most


async def test_two_instances_driving_many_tables_stay_within_one_telegram_budget(
    twins: tuple[Emulator, list[int], list[Any]], caplog: pytest.LogCaptureFixture
) -> None:
    emulator, ports, apps = twins
    driver = Driver(emulator.world, default_timeout=10.0)
    run = Run(
        emulator, driver, codec_for(emulator.token), [], SECRET, stop_at=time.monotonic() + OPEN_SECONDS
    )

    async def play_a_while() -> None:
        while run.counts.tables_started < TABLES and not run.over:
            await asyncio.sleep(0.1)
        run.stop_at = min(run.stop_at, time.monotonic() + PLAY_SECONDS)

    stop = asyncio.Event()
    pump = asyncio.create_task(_pump(emulator, ports, stop))
    rng = random.Random(21)
    with caplog.at_level(logging.WARNING):
        try:
            tables = (play_table(run, n, random.Random(rng.random())) for n in range(TABLES))
            await asyncio.gather(play_a_while(), *tables)
        finally:
            stop.set()
            await pump
            for application in apps:
                await services_of(application).outbox.close()

    calls = [c for c in emulator.world.calls if c.method.lower() in COUNTED_METHODS]
    refused = [c for c in calls if c.error_code == 429]
    assert not refused, f"{len(refused)} calls got 429, first: {refused[0].description}"
    assert run.counts.tables_started == TABLES, run.counts
    assert run.counts.taps >= TABLES, run.counts
    # Both instances sent (to the same chats), and together they asked for more than the budget:
    # some second was full.
    logs = [services_of(a).outbox.log.calls for a in apps]
    assert all(logs) and set(logs[0]) & set(logs[1])
    times = sorted(c.time for c in calls)
    print(
        "FIG",
        len(calls),
        _most_within(times, 1.0),
        run.counts,
        min(b - a for a, b in itertools.pairwise(times)),
    )
    assert _most_within(times, 1.0) <= TELEGRAM.global_max_per_second
    assert _most_within(times, 1.0) >= 10, "the tables never asked for the whole budget"
    by_chat: dict[int, list[float]] = {}
    for c in calls:
        assert c.chat_id is not None
        by_chat.setdefault(c.chat_id, []).append(c.time)
    for chat_id, made in by_chat.items():
        made.sort()
        interval = LIMITS.group_interval if chat_id < 0 else LIMITS.private_interval
        gaps = [b - a for a, b in itertools.pairwise(made)]
        assert not gaps or min(gaps) >= interval - SLACK, (chat_id, gaps)
        if chat_id < 0:
            assert _most_within(made, 60.0) <= TELEGRAM.group_max_per_minute
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, errors[:3]
