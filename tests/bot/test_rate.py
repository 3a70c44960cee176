"""Telegram's flood limits on: the outbox paces the group and coalesces edits, so no call gets a 429."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from bot.app import build_application, services_of
from bot.handlers.services import Services, Settings
from bot.sandbox import Driver, Emulator, EmulatorConfig, FakeClock, running_bot
from bot.sandbox.driver import AnyApplication
from bot.storage import RedisStorage
from tests.bot.helpers import lobby, play_until, sit


class VirtualPace:
    """The outbox's clock in this test: the emulator's fake clock, moved forward by every wait."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock

    def now(self) -> float:
        """The fake time."""
        return self.clock.time()

    async def sleep(self, seconds: float) -> None:
        """Move the fake clock instead of waiting."""
        self.clock.advance(max(0.0, seconds))
        await asyncio.sleep(0)


@pytest.fixture
def clock() -> FakeClock:
    """Time shared by the emulator's flood limits and the bot's pacing."""
    return FakeClock()


@pytest.fixture
async def limited(clock: FakeClock) -> AsyncIterator[Emulator]:
    """An emulator enforcing Telegram's flood limits."""
    async with Emulator(EmulatorConfig(rate_limits=True), clock=clock) as running:
        yield running


@pytest.fixture
async def paced_app(
    limited: Emulator, storage: RedisStorage, clock: FakeClock
) -> AsyncIterator[AnyApplication]:
    """The bot with its production pacing, on virtual time."""

    def factory(token: str, **kwargs: object) -> AnyApplication:
        return build_application(  # type: ignore[arg-type]
            token, storage=storage, settings=Settings(bot_delay=0.0), pace=VirtualPace(clock),
            rate_limiter=False, **kwargs,
        )  # fmt: skip

    async with running_bot(factory, limited, poll_timeout=1.0) as application:
        yield application


async def test_a_match_with_bots_never_trips_the_flood_limits(
    paced_app: AnyApplication, limited: Emulator
) -> None:
    svc: Services = services_of(paced_app)
    driver = Driver(limited.world, default_timeout=20.0)
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await sit(anya, message, 0, group)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: any("с ботами" in b["text"] for r in m.buttons for b in r))
    await anya.tap(message, "с ботами")

    def over() -> bool:
        return any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)

    await play_until(driver, svc, [anya], over, rng=random.Random(11))
    await svc.outbox.drain()
    await driver.settle()

    assert [c for c in driver.calls() if c.error_code == 429] == []
    assert not driver.failed_calls(), driver.failed_calls()[:3]
    group_calls = [
        c for c in driver.calls() if c.chat_id == group.id and c.method in ("sendMessage", "editMessageText")
    ]
    times = [c.time for c in group_calls]
    for i, t in enumerate(times):
        in_minute = sum(1 for u in times[i:] if u < t + 60)
        assert in_minute <= 20, f"{in_minute} group calls within a minute from call {i}"
    # Every deal was shown and summed up (edits coalesced under virtual time are checked by the bench).
    assert [m for m in group.bot_messages if m.content.startswith("🏁")], group.transcript()
