"""A lobby nobody starts expires, and the group is told."""

from __future__ import annotations

import pytest

from bot.sandbox import Driver
from bot.table.core import Limits
from bot.tg.services import Services, Settings
from tests.bot.helpers import lobby


@pytest.fixture
def settings() -> Settings:
    """Lobbies expire after half a second of the real clock; the Redis timers are checked every 50 ms."""
    return Settings(bot_delay=0.0, limits=Limits.off(), lobby_ttl=0.5, timer_interval=0.05)


async def test_a_lobby_nobody_starts_expires_with_a_notice(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await group.wait_until(message, lambda m: "никто и не собрал" in m.content, timeout=10)
    assert message.buttons == []
    assert await svc.storage.load_table(group.id, None) is None
