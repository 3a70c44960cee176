"""Two bot processes behind one webhook share Redis: every update delivered to both applies once."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bot.app import services_of
from bot.sandbox import Driver, Emulator, EmulatorConfig
from bot.storage import RedisStorage
from bot.table.core import Limits
from bot.tg.services import Settings
from bot.webhook import SECRET_HEADER
from tests.bot.helpers import NAMES
from tests.deploy.webhooks import webhook_instances

SECRET = "two-instances"


@pytest.fixture
async def twins(
    redis_url: str, storage: RedisStorage
) -> AsyncIterator[tuple[Emulator, list[int], list[Any]]]:
    """One emulator, two bot applications (each its own Redis client, the same keys), two webhooks."""
    async with webhook_instances(
        redis_url, storage.prefix, EmulatorConfig(), Settings(bot_delay=0.0, limits=Limits.off()), SECRET
    ) as running:
        yield running


async def _post(http: aiohttp.ClientSession, port: int, update: dict[str, Any]) -> int:
    async with http.post(f"http://127.0.0.1:{port}/tg", json=update, headers={SECRET_HEADER: SECRET}) as r:
        return r.status


async def _deliver_to_both(emulator: Emulator, ports: list[int]) -> int:
    """Post every queued update to both webhooks at once, as a duplicating front end would.

    Each update is answered 200 by at least one of them; one that finds it claimed by the other
    answers 503 ("busy", deliver again later), and the update delivered again there is answered 200
    without being handled twice (the other finished it)."""
    updates = emulator.world.take_updates()
    async with aiohttp.ClientSession() as http:
        for update in updates:
            statuses = await asyncio.gather(*(_post(http, port, update) for port in ports))
            assert 200 in statuses and set(statuses) <= {200, 503}, statuses
            for port, status in zip(ports, statuses, strict=True):
                if status == 503:
                    assert await _post(http, port, update) == 200
    return len(updates)


async def test_two_instances_apply_each_update_once(
    twins: tuple[Emulator, list[int], list[Any]], caplog: pytest.LogCaptureFixture
) -> None:
    emulator, ports, apps = twins
    driver = Driver(emulator.world, default_timeout=10.0)
    people = [driver.add_user(n) for n in NAMES]
    group = driver.add_group("Козлятник", people)

    async def pump() -> None:
        for _ in range(40):
            if not await _deliver_to_both(emulator, ports):
                await asyncio.sleep(0.05)
                if not emulator.world.pending_updates:
                    return

    with caplog.at_level(logging.WARNING):
        for user in people:
            await user.start()
        await people[0].send(group, "/newgame")
        await pump()
        lobby = await group.wait_bot_message(
            lambda m: any("🪑" in b.get("text", "") for r in m.buttons for b in r)
        )
        for seat, user in enumerate(people):
            tap = user.tap(lobby, f"Место {seat + 1}", wait_answer=False)
            await tap
            await pump()
        await asyncio.sleep(0.3)
        await pump()
    svc = services_of(apps[0])
    table = await svc.storage.load_table(group.id, None)
    assert table is not None
    seated = [s.user_id for s in table.seats if s is not None]
    assert seated == [u.id for u in people], "each seat taken exactly once, by the right person"
    # One lobby message, and no "a game is already running" reply: the second delivery did nothing.
    assert len(group.bot_messages) == 1, group.transcript()
    answers = [c for c in emulator.world.calls if c.method == "answerCallbackQuery"]
    assert len(answers) == len(people) and all(c.ok for c in answers), "each tap answered once"
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, errors
    # Every update was handled to the end by one of them: its claim is "done", not a lease that
    # would let a later delivery be handled again.
    store = svc.storage
    assert isinstance(store, RedisStorage)
    claims = [k async for k in store.client.scan_iter(match=f"{store.prefix}kozel:update:*")]
    assert len(claims) >= len(people) + 1
    assert set(await store.client.mget(claims)) == {"done"}


async def test_an_update_held_by_a_dead_process_is_delivered_again_and_handled(
    twins: tuple[Emulator, list[int], list[Any]],
) -> None:
    """A process killed while handling an update never answered its POST and leaves a live claim.
    The delivery that reaches the other process meanwhile is answered 503, not 200, so Telegram
    delivers it again; once the claim's lease ends, that delivery is handled."""
    emulator, ports, apps = twins
    driver = Driver(emulator.world, default_timeout=10.0)
    people = [driver.add_user(n) for n in NAMES]
    group = driver.add_group("Козлятник", people)
    await _deliver_to_both(emulator, ports)  # the bot added to the group
    await people[0].send(group, "/newgame")
    (update,) = emulator.world.take_updates()
    assert update["message"]["text"] == "/newgame"
    svc = services_of(apps[1])
    lease = svc.settings.update_lease
    # The dead process's claim: taken just under a lease ago, so it ends in about half a second.
    assert await svc.storage.claim_update(update["update_id"], now=time.time() - lease + 0.5, lease=lease)
    async with aiohttp.ClientSession() as http:
        assert await _post(http, ports[1], update) == 503
        assert not group.bot_messages, "not handled while the dead process's lease lives"
        await asyncio.sleep(0.7)
        assert await _post(http, ports[1], update) == 200
        assert len(group.bot_messages) == 1, group.transcript()
        assert await svc.storage.update_done(update["update_id"])
        # Delivered once more (to either process): done, answered at once, nothing sent again.
        for port in ports:
            assert await _post(http, port, update) == 200
    assert len(group.bot_messages) == 1, group.transcript()
