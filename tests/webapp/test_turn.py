"""The live table shows whose turn it is with the time left (the turn timer's), and a person the turn
timers marked away gets "I'm back" on the page: the same use case as the group's and the DM's button,
on a clock the test moves."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest

from bot.render.i18n import Tr
from bot.sandbox import Driver
from bot.sandbox.clock import FakeClock
from bot.sandbox.driver import AnyApplication
from bot.storage import ChatSettings
from bot.table.core import Limits
from bot.tg.services import Services, Settings
from bot.webapp.server import LiveTable
from tests.bot.helpers import start_game, table_of
from tests.webapp.pages import Page, init_data, link_of

RU = Tr("ru")


def fired(svc: Services) -> list[str]:
    """The timers this process fired."""
    return list(svc.timers.fired)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=time.time())


@pytest.fixture
def settings(clock: FakeClock) -> Settings:
    """Bots move at once; the timers run by the test's clock, checked every 20 ms."""
    return Settings(bot_delay=0.0, limits=Limits.off(), clock=clock.time, timer_interval=0.02)


async def test_the_page_counts_down_the_turn_and_an_away_person_comes_back_from_it(
    driver: Driver,
    app: AnyApplication,
    svc: Services,
    live: tuple[LiveTable, str],
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table_app, base = live
    # An open page renews its presence every RECHECK seconds of real time; the test's clock jumps
    # 21 s in one real second, so the page renews as often as the jumps need.
    monkeypatch.setattr("bot.webapp.server.RECHECK", 0.2)
    table_app.clock = clock.time
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await svc.storage.save_chat_settings(group.id, ChatSettings(turn_time=20, timeout_action="away"))
    await start_game(driver, group, [anya])
    param = table_app.tokens.start_param(await link_of(svc, group))
    async with aiohttp.ClientSession() as http:
        mine, watcher = Page(http, base), Page(http, base)
        await mine.open(init_data(app.bot.token, anya.id, "Аня", param))
        await watcher.open(init_data(app.bot.token, boris.id, "Борис", param))
        # Her turn: she and the watcher see it with the turn timer's 20 s (less what has passed).
        state = await mine.next_state(lambda s: s.get("hand") is not None and s["hand"]["your_turn"], 30)
        assert state["deal"]["turn"]["seat"] == 0 and 15 < state["deal"]["turn"]["left"] <= 20
        assert state["hand"]["back"] is None
        seen = await watcher.next_state(lambda s: s["version"] >= state["version"])
        assert seen["deal"]["turn"]["seat"] == 0 and seen["deal"]["turn"]["left"] > 15
        clock.advance(6)
        async with http.get(f"{base}/webapp/api/state", params={"token": mine.token}) as r:
            later = await r.json()
        # The same turn (a save meanwhile, such as a message id kept, may have a newer version).
        assert later["deal"]["turn"]["seat"] == 0 and later["deal"]["trick"] == state["deal"]["trick"]
        assert 9 < later["deal"]["turn"]["left"] <= 14

        # Half her time: her page counts it down (and counts her present), so no reminder goes to her DM.
        clock.advance(5)
        await asyncio.sleep(0.5)  # the timers' ticks (every 20 ms) see the reminder due
        assert "remind" in " ".join(fired(svc)) and not [m for m in anya.dm.bot_messages if "⏳" in m.content]
        # Time runs out: the bot plays for her and she is away; the page offers "I'm back".
        clock.advance(10)
        away = await mine.next_state(lambda s: bool(s.get("hand") and s["hand"]["back"]), 15)
        assert away["seats"][0]["away"] is True and away["hand"]["away"] == RU("webapp.away_note")
        back = away["hand"]["back"]
        assert back["text"] == RU("timer.back_button")
        # The watcher has no such button; a tap of hers would be refused as the group's is.
        refused = await watcher.act(back["data"])
        assert refused == {"ok": False, "text": RU("alert.not_seated")}
        answer = await mine.act(back["data"])
        assert answer == {"ok": True, "text": RU("timer.back_toast")}
        here = await mine.next_state(lambda s: s["version"] > away["version"] and s["hand"]["back"] is None)
        assert here["seats"][0]["away"] is False
        # The group's "I'm back" message goes as when its own button is tapped.
        await group.wait_bot_message(lambda m: "Аня снова в игре" in m.content)
        stored = await table_of(svc, group)
        assert stored is not None and stored.away == []
        # With her page open, her DM got no "your time ran out" message: the page said it (no call spent).
        away_dm = RU("timer.away_dm", chat="Козлятник").split("«")[0]
        sent = driver.world.calls_of("sendMessage")
        to_her = [str(c.params.get("text", "")) for c in sent if str(c.params.get("chat_id")) == str(anya.id)]
        assert to_her and not [text for text in to_her if text.startswith(away_dm)]
        await mine.close()
        await watcher.close()
