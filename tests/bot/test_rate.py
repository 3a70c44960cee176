"""Telegram's flood limits on: the outbox paces the group and coalesces edits, so no call gets a 429."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from bot.app import build_application, services_of
from bot.render.content import Content
from bot.sandbox import Driver, Emulator, EmulatorConfig, FakeClock, running_bot
from bot.sandbox.driver import AnyApplication
from bot.storage import RedisStorage
from bot.table.core import Limits
from bot.tg.outbox import Outbox
from bot.tg.services import Services, Settings
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
    """An emulator enforcing Telegram's flood limits.

    Its clock is moved by the outbox's waits, so it runs ahead of the real time a tap takes to be
    handled: many chats' paced waits can add up to more than Telegram's 15 s for answering a tap
    while the bot handles it in milliseconds. The answer window is therefore set wide here: these
    tests are about the flood limits; the window is tested on the real clock elsewhere.
    """
    config = EmulatorConfig(rate_limits=True, callback_answer_timeout=3600.0)
    async with Emulator(config, clock=clock) as running:
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


class _Edits:
    """A bot that records (time, chat, text) of every edit, on the test's clock."""

    def __init__(self, pace: ManualPace) -> None:
        self.pace = pace
        self.edits: list[tuple[float, int, str]] = []

    async def edit_message_text(self, text: str, *, chat_id: int, **kwargs: object) -> None:
        self.edits.append((self.pace.now(), chat_id, text))


class ManualPace:
    """A clock the test moves by hand; the outbox's waits only yield to the event loop."""

    def __init__(self) -> None:
        self.t = 100.0

    def now(self) -> float:
        """The test's time."""
        return self.t

    async def sleep(self, seconds: float) -> None:
        """Yield; time moves only when the test moves it."""
        await asyncio.sleep(0.001)

    async def advance(self, seconds: float, step: float = 0.25) -> None:
        """Move the clock forward in steps, letting the outbox look at each."""
        end = self.t + seconds
        while self.t < end - 1e-9:
            self.t = min(end, self.t + step)
            for _ in range(3):
                await asyncio.sleep(0.001)


async def test_a_mid_trick_edit_waits_until_the_table_waits_for_someone() -> None:
    pace = ManualPace()
    bot = _Edits(pace)
    limits = Limits(group_interval=3.1, private_interval=1.0, global_interval=0.0, relaxed_interval=6.0)
    outbox = Outbox(bot, limits=limits, pace=pace)  # type: ignore[arg-type]
    group = -100
    outbox.edit(group, 1, Content("trick 1 over"))  # urgent: goes at once
    await pace.advance(0.5)
    assert [text for _, _, text in bot.edits] == ["trick 1 over"]
    # Cards of the next trick every 4 s (slower than the relaxed interval since the last call, but
    # the table never waits 6 s for anyone): none of them is shown on its own.
    for card in range(1, 4):
        outbox.edit(group, 1, Content(f"trick 2, card {card}"), urgent=False)
        await pace.advance(4.0)
    assert [text for _, _, text in bot.edits] == ["trick 1 over"]
    outbox.edit(group, 1, Content("trick 2 over"))
    await pace.advance(0.5)
    assert [text for _, _, text in bot.edits] == ["trick 1 over", "trick 2 over"]
    # Now someone thinks: the card before him is shown once the table has waited 6 s.
    changed = pace.now()
    outbox.edit(group, 1, Content("trick 3, card 1"), urgent=False)
    await pace.advance(8.0)
    assert [text for _, _, text in bot.edits][-1] == "trick 3, card 1"
    assert bot.edits[-1][0] == pytest.approx(changed + 6.0, abs=0.3)
    await outbox.close()


async def test_chats_with_nothing_left_to_pace_are_forgotten() -> None:
    pace = ManualPace()
    bot = _Edits(pace)
    limits = Limits(group_interval=3.1, private_interval=1.0, global_interval=0.0, relaxed_interval=6.0)
    outbox = Outbox(bot, limits=limits, pace=pace)  # type: ignore[arg-type]
    for chat in (-100, 7, 8):
        outbox.edit(chat, 1, Content("hello"))
    await pace.advance(0.5)
    assert len(bot.edits) == 3
    # Just after their calls they still pace the next one, and a chat with an edit waiting stays.
    outbox.edit(-100, 1, Content("mid-trick"), urgent=False)
    assert outbox.prune() == 3
    await pace.advance(6.0)
    assert outbox.prune() == 1  # the group's relaxed edit is still waiting
    await pace.advance(7.0)
    assert [text for _, chat, text in bot.edits if chat == -100] == ["hello", "mid-trick"]
    assert outbox.prune() == 0
    # A forgotten chat is written to as before.
    outbox.edit(7, 1, Content("again"))
    await pace.advance(0.5)
    assert bot.edits[-1][1:] == (7, "again")
    await outbox.close()
