"""Turn timers at a table with blinds: a blind's brag is its partner's turn, timed like his own, and
an away partner's bot takes it."""

from __future__ import annotations

import time

import pytest

from bot.sandbox import Driver
from bot.sandbox.clock import FakeClock
from bot.table.core import Limits
from bot.tg.services import Services, Settings
from tests.bot.helpers import lobby, sit, table_of
from tests.bot.test_dummy_match import _pick
from tests.bot.test_timers import armed, eventually


@pytest.fixture
def clock() -> FakeClock:
    """The time every timer of the test runs by; it moves only when the test says so."""
    return FakeClock(start=time.time())


@pytest.fixture
def settings(clock: FakeClock) -> Settings:
    """Bots move at once, nothing is paced, timers are checked every 20 ms against the fake clock."""
    return Settings(bot_delay=0.0, limits=Limits.off(), clock=clock.time, timer_interval=0.02)


async def test_dummy_an_away_partner_brags_for_the_blind_by_bot(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await sit(anya, message, 0, group)
    await _pick(driver, group, anya, "с двумя слепыми", "С двумя слепыми: двое", message)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: "Свободно 1 место" in m.content)
    await anya.tap(message, "с ботами")
    await group.wait_until(message, lambda m: "Игра началась" in m.content)
    # Two timeouts in a row: Аня is away, and the bot decides for her — and for her blind.
    first = await armed(svc, group, "timeout")
    clock.advance(61)
    await armed(svc, group, "timeout", after=first)
    clock.advance(61)

    async def blind_bragged() -> bool:
        table = await table_of(svc, group)
        if table is None or table.match is None:
            return False
        deals = [*table.match.deals, *([table.match.current] if table.match.current else [])]
        return any(m["seat"] == 2 and "brag" in m for d in deals for m in d["moves"])

    await eventually(blind_bragged, "the blind's brag taken for the away partner", timeout=30)
    table = await table_of(svc, group)
    assert table is not None and 0 in table.away and table.seats[2] is None
