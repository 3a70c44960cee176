"""The bot's poller confirms an update only once handled, so a killed process loses no tap."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from telegram import Bot, Update

from bot.app import build_application, services_of
from bot.polling import SOLE_CONSUMER, Poller
from bot.sandbox import Driver, Emulator, running_bot
from bot.sandbox.driver import AnyApplication
from bot.storage import RedisStorage
from bot.tg.services import Settings

pytestmark = pytest.mark.cluster  # each test also runs on a real Redis Cluster


class _Consumer:
    """What the poller needs of an Application: a bot, bot_data and process_update.

    Handling blocks until ``release`` is set, so a test can stop the process mid-update.
    """

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.bot_data: dict[str, Any] = {}
        self.seen: list[int] = []
        self.release = asyncio.Event()

    async def process_update(self, update: Update) -> None:
        self.seen.append(update.update_id)
        await self.release.wait()


async def _wait(condition: Any, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


async def test_an_update_still_being_handled_is_not_confirmed_and_comes_back_after_a_kill(
    emulator: Emulator, driver: Driver
) -> None:
    anya = driver.add_user("Аня")
    async with Bot(emulator.token, base_url=emulator.base_url) as bot:
        first = _Consumer(bot)
        poller = Poller(first, timeout=1)  # type: ignore[arg-type]
        task = poller.start()
        await anya.start()
        await _wait(lambda: len(first.seen) == 1)
        # Offered again while still being handled: the poller does not take it twice.
        await asyncio.sleep(1.2)
        assert first.seen == first.seen[:1] and len(first.seen) == 1
        assert first.bot_data[SOLE_CONSUMER] is True
        (update_id,) = first.seen
        assert emulator.world.queued_update_ids() == [update_id], "never confirmed while in flight"
        # SIGKILL: the process is gone with the update half-handled.
        task.cancel()
        for in_flight in list(poller.in_flight.values()):
            in_flight.cancel()
        await asyncio.gather(task, *poller.in_flight.values(), return_exceptions=True)

        second = _Consumer(bot)
        second.release.set()
        restarted = Poller(second, timeout=1)  # type: ignore[arg-type]
        restarted.start()
        await _wait(lambda: second.seen == [update_id])
        await anya.send_dm("/help")
        await _wait(lambda: len(second.seen) == 2)
        await restarted.close()
        assert second.seen[0] == update_id and second.seen[1] > update_id
        assert emulator.world.queued_update_ids() == [], "handled updates are confirmed on the way out"


async def test_a_tap_whose_process_died_holding_its_claim_is_handled_by_the_next_poller(
    emulator: Emulator, driver: Driver, storage: RedisStorage
) -> None:
    settings = Settings(bot_delay=0.0)
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await anya.send(group, "/newgame")
    pending = emulator.world.queued_update_ids()
    assert pending
    # A process claimed these updates (its lease is live) and was killed before finishing them.
    for update_id in pending:
        assert await storage.claim_update(update_id, now=settings.clock(), lease=3600.0)

    def factory(token: str, **kwargs: object) -> AnyApplication:
        return build_application(token, storage=storage, settings=settings, rate_limiter=False, **kwargs)  # type: ignore[arg-type]

    async with running_bot(factory, emulator, poll_timeout=1.0) as application:
        lobby = await group.wait_bot_message(timeout=10)
        assert lobby.buttons, "the lobby came up: the update was taken over, not skipped"
        await services_of(application).outbox.drain()
    for update_id in pending:
        assert not await storage.claim_update(update_id, now=settings.clock(), lease=1.0, takeover=True), (
            "handled to the end: done, never handled again"
        )
