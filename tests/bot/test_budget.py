"""The Telegram budget the bot's processes share in Redis (bot/storage/budget.py), against real Redis."""

from __future__ import annotations

import asyncio
import itertools
import logging
import socket
import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.render.content import Content
from bot.storage import RedisStorage
from bot.storage.budget import RedisBudget
from bot.storage.cluster import cluster_client
from bot.table.core import Limits
from bot.tg.outbox import Outbox

#: Slack for the event loop and the round trip to Redis when comparing times (seconds).
SLACK = 0.03


@pytest.fixture(params=["one script", "two scripts"])
async def twin_budgets(
    request: pytest.FixtureRequest, redis_url: str, storage: RedisStorage
) -> AsyncIterator[tuple[RedisBudget, RedisBudget]]:
    """Two budgets of one bot, each on a Redis client of its own (two processes), one key prefix;
    taking a call's two tokens in one script (a single Redis), or in two (as on a cluster)."""
    other = aioredis.Redis.from_url(redis_url, decode_responses=True)
    together = request.param == "one script"
    try:
        yield (
            RedisBudget(storage.client, bot_id=42, prefix=storage.prefix, together=together),
            RedisBudget(other, bot_id=42, prefix=storage.prefix, together=together),
        )
    finally:
        await other.aclose()


async def test_a_burst_is_granted_at_once_then_each_take_waits_for_a_token(
    twin_budgets: tuple[RedisBudget, RedisBudget],
) -> None:
    budget, _ = twin_budgets
    key, interval = budget.chat_key(-100), 0.4
    assert [await budget.take(key, interval, burst=3) for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = await budget.take(key, interval, burst=3)
    assert interval / 2 < wait <= interval
    # A refused take spends nothing: asking again is told to wait no longer.
    again = await budget.take(key, interval, burst=3)
    assert 0 < again <= wait
    assert await budget.take(key, interval, burst=3, look=True) > 0  # looking takes nothing either
    await asyncio.sleep(again + 0.01)
    assert await budget.take(key, interval, burst=3, look=True) == 0.0
    assert await budget.take(key, interval, burst=3) == 0.0
    assert await budget.take(key, interval, burst=3) > interval / 2  # one token refilled, one spent


async def test_tokens_refill_up_to_the_burst_and_a_full_bucket_leaves_no_key(
    twin_budgets: tuple[RedisBudget, RedisBudget],
) -> None:
    budget, _ = twin_budgets
    key = budget.chat_key(-101)
    for _ in range(2):
        assert await budget.take(key, 0.1, burst=2) == 0.0
    assert await budget.take(key, 0.1, burst=2) > 0
    assert 0 < await budget.client.pttl(key) <= 201
    await asyncio.sleep(0.5)  # five intervals: the bucket holds two tokens, no more
    assert not await budget.client.exists(key)
    assert [await budget.take(key, 0.1, burst=2) for _ in range(2)] == [0.0, 0.0]
    assert await budget.take(key, 0.1, burst=2) > 0


async def test_each_chat_has_a_bucket_of_its_own_beside_the_global_one(
    twin_budgets: tuple[RedisBudget, RedisBudget],
) -> None:
    budget, _ = twin_budgets
    assert await budget.take(budget.chat_key(-200), 3.1) == 0.0
    assert await budget.take(budget.chat_key(-200), 3.1) > 3.0
    assert await budget.take(budget.chat_key(-201), 3.1) == 0.0
    assert await budget.take(budget.chat_key(7), 1.0) == 0.0
    assert await budget.take(budget.global_key(), 1.0) == 0.0
    # Another bot on the same Redis has buckets of its own.
    other_bot = RedisBudget(budget.client, bot_id=43, prefix=budget.prefix)
    assert await other_bot.take(other_bot.chat_key(-200), 3.1) == 0.0
    # Each bucket is one key, on one Redis Cluster slot: the chat's under the chat's hash tag.
    assert budget.chat_key(-200).endswith("kozel:{-200}:budget:42")
    assert "{" not in budget.global_key()


async def test_two_clients_share_one_budget(twin_budgets: tuple[RedisBudget, RedisBudget]) -> None:
    first, second = twin_budgets
    assert await first.take(first.chat_key(-300), 1.0) == 0.0
    assert await second.take(second.chat_key(-300), 1.0) > 0.5
    assert await second.take(second.global_key(), 1.0) == 0.0
    assert await first.take(first.global_key(), 1.0) > 0.5


async def test_two_processes_taking_turns_keep_every_chat_and_the_total_within_the_budget(
    twin_budgets: tuple[RedisBudget, RedisBudget],
) -> None:
    """Each of two processes makes 8 calls to each of four chats, every chat's calls 0.1 s apart at
    least and all calls 0.02 s apart: the grants interleave, as one process's would."""
    granted: list[tuple[float, int]] = []

    async def calls(budget: RedisBudget, chat_id: int) -> None:
        for _ in range(8):
            await budget.turn(chat_id, chat_interval=0.1, global_interval=0.02, sleep=asyncio.sleep)
            granted.append((time.monotonic(), chat_id))

    started = time.monotonic()
    await asyncio.gather(*(calls(b, c) for b in twin_budgets for c in (-1, -2, -3, 4)))
    took = time.monotonic() - started
    assert len(granted) == 64
    # 16 calls to a chat ten a second take 1.5 s at least; two processes pacing alone, half that.
    assert took >= 15 * 0.1 - SLACK
    for chat_id in (-1, -2, -3, 4):
        times = sorted(t for t, c in granted if c == chat_id)
        assert len(times) == 16
        assert min(b - a for a, b in itertools.pairwise(times)) >= 0.1 - SLACK, chat_id
    times = sorted(t for t, _ in granted)
    for i in range(len(times) - 10):
        assert times[i + 10] - times[i] >= 10 * 0.02 - SLACK, "11 calls span 0.2 s at least: 50 a second"


async def test_without_redis_the_turn_goes_on_paced_by_its_process(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once the socket is closed
    client = aioredis.Redis(host="127.0.0.1", port=port, retry=Retry(NoBackoff(), 0))
    try:
        with caplog.at_level(logging.WARNING):
            budget = RedisBudget(client, bot_id=42)
            assert await budget.turn(-1, chat_interval=3.1, global_interval=1 / 30, sleep=asyncio.sleep) == 0
        assert any("budget is unavailable" in r.getMessage() for r in caplog.records)
    finally:
        await client.aclose()


async def test_without_a_reachable_cluster_the_turn_goes_on_paced_by_its_process(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The cluster client's "no node answers" is no RedisError (issue 33, item 3).
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once the socket is closed
    client = cluster_client(f"redis+cluster://127.0.0.1:{port}", max_connections=4)
    try:
        with caplog.at_level(logging.WARNING):
            budget = RedisBudget(client, bot_id=42)  # type: ignore[arg-type]
            assert await budget.turn(-1, chat_interval=3.1, global_interval=1 / 30, sleep=asyncio.sleep) == 0
        assert any("budget is unavailable" in r.getMessage() for r in caplog.records)
    finally:
        await client.aclose()


class _TimedBot:
    """A stand-in for the bot that notes when each edit is made."""

    def __init__(self, log: list[float]) -> None:
        self.log = log

    async def edit_message_text(self, text: str, **kwargs: object) -> None:
        self.log.append(time.monotonic())


async def test_two_outboxes_with_one_budget_pace_a_chat_together(
    twin_budgets: tuple[RedisBudget, RedisBudget],
) -> None:
    """Each outbox alone would edit every 0.15 s; together they still edit the chat every 0.15 s."""
    made: list[float] = []
    limits = Limits(group_interval=0.15, private_interval=0.15, global_interval=0.0, relaxed_interval=0.0)
    outboxes = [Outbox(_TimedBot(made), limits=limits, budget=b) for b in twin_budgets]  # type: ignore[arg-type]
    for i in range(5):
        for n, outbox in enumerate(outboxes):
            outbox.edit(-500, 10 + n, Content(f"state {i}"))
        await asyncio.sleep(0.16)
    for outbox in outboxes:
        await outbox.drain()
    assert len(made) >= 6
    made.sort()
    assert min(b - a for a, b in itertools.pairwise(made)) >= 0.15 - SLACK


async def test_one_script_spends_no_global_token_on_a_call_its_chat_must_wait_for(
    storage: RedisStorage,
) -> None:
    """On a single Redis a call's two tokens are taken together: a chat that must wait leaves the
    global token to another chat (two scripts would have spent it)."""
    budget = RedisBudget(storage.client, bot_id=44, prefix=storage.prefix)

    async def turn(chat_id: int) -> float:
        return await budget.turn(chat_id, chat_interval=1.0, global_interval=0.2, sleep=asyncio.sleep)

    assert await turn(-1) == 0.0
    again = asyncio.create_task(turn(-1))
    await asyncio.sleep(0.25)
    assert not again.done()
    started = time.monotonic()
    assert await turn(-2) == 0.0
    assert time.monotonic() - started < SLACK
    assert 1.0 - 0.25 - SLACK < await again <= 1.0
