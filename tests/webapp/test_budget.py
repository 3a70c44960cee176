"""The Bot API budget of the live table: while a seated person has the page open, the bot spends no
private call on their hand (no edit, no hand sent anew for a turn); once the page closes, the DM hand
is brought up to date. Four people all on the page play a whole deal for at most 15 Bot API calls
(inline, the same deal costs about 84): the table message once, an edit a trick, the summary and
the table message deleted — here 11, with the lobby's last edit and the next deal's table message 13."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from typing import Any

import aiohttp
import pytest

from bot.sandbox import Driver, SimUser
from bot.sandbox.driver import AnyApplication
from bot.table.core import Limits
from bot.tg.services import Services, Settings
from bot.webapp.server import LiveTable
from tests.bot.helpers import NAMES, lobby, sit
from tests.webapp.pages import Page, init_data, link_of

#: Bot API methods that spend the budget (getUpdates is the bot's own polling).
SPENDING = {"sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage", "sendPhoto"}


async def _play_on_pages(pages: dict[int, Page], rng: random.Random, until: Any) -> None:
    """Each page taps a legal card (or its first decision) whenever its person is to act."""
    latest: dict[int, dict[str, Any]] = {}

    async def follow(user: int, page: Page) -> None:
        while True:
            latest[user] = await page.states.get()

    followers = [asyncio.create_task(follow(u, p)) for u, p in pages.items()]
    try:
        for _ in range(2000):
            if [s for s in latest.values() if until(s)]:
                return
            acted = False
            for user, page in pages.items():
                state = latest.get(user)
                hand = state and state.get("hand")
                if not hand or not hand["your_turn"]:
                    continue
                choices = [b["data"] for row in hand["buttons"] for b in row if b.get("data")]
                legal = {c["code"] for c in hand["cards"] if c["legal"]}
                cards = [b["data"] for row in hand["buttons"] for b in row if b.get("card") in legal]
                data = rng.choice(cards or choices)
                answer = await page.act(data)
                acted = acted or bool(answer.get("ok"))
            await asyncio.sleep(CARD_TIME if acted else 0.05)
        raise AssertionError("the deal did not end")
    finally:
        for task in followers:
            task.cancel()


class DealOver:
    """Whether the first deal is over: a state of the second deal, or of the match over, after one of
    the first deal's (the pages start in the lobby)."""

    def __init__(self) -> None:
        self.played = 0

    def __call__(self, state: dict[str, Any]) -> bool:
        deal = state.get("deal") or {}
        if state["status"] == "playing" and deal.get("no") == 1:
            self.played = max(self.played, deal.get("tricks", 0) + 1)
            return False
        return self.played > 0 and (state["status"] == "over" or deal.get("no", 1) > 1)


#: The clock of this test runs ten times as fast as a real table's: Telegram's pacing a tenth of
#: production's (a group's call every 0.31 s instead of 3.1 s) against people and bot players taking
#: 0.2-0.3 s a card instead of 2-3 s, so the table message coalesces as much as at a real table.
SCALE = 10
CARD_TIME = 0.25


@pytest.fixture
def settings() -> Settings:
    """Production's pacing, ten times as fast; bot players take a (scaled) moment a card."""
    real = Limits()
    limits = replace(
        real,
        group_interval=real.group_interval / SCALE,
        private_interval=real.private_interval / SCALE,
        global_interval=real.global_interval / SCALE,
        relaxed_interval=real.relaxed_interval / SCALE,
    )
    return Settings(bot_delay=CARD_TIME, limits=limits)


async def test_a_deal_with_everyone_on_the_page_costs_at_most_15_bot_api_calls(
    driver: Driver, app: AnyApplication, svc: Services, live: tuple[LiveTable, str]
) -> None:
    table_app, base = live
    users: list[SimUser] = [driver.add_user(name) for name in NAMES]
    group = driver.add_group("Козлятник", users)
    message = await lobby(driver, group, users[0])
    for seat, user in enumerate(users):
        await sit(user, message, seat, group)
    param = table_app.tokens.start_param(await link_of(svc, group))
    async with aiohttp.ClientSession() as http:
        pages = {u.id: Page(http, base) for u in users}
        for user in users:
            await pages[user.id].open(init_data(app.bot.token, user.id, user.name, param))
        for user in users:  # every page is open (and counted present) before the cards are dealt
            await pages[user.id].next_state()
        since = len(driver.calls())
        await users[0].tap(message, "Начать")
        over = DealOver()
        await _play_on_pages(pages, random.Random(3), over)
        assert over.played >= 2, "tricks were played on the pages"
        await svc.presenter.idle()
        await svc.outbox.drain()  # what waits for the group's pace (20 calls a minute) is sent too
        spent = [c for c in driver.calls()[since:] if c.method in SPENDING]
        private = [c for c in spent if c.chat_id is not None and c.chat_id > 0]
        assert not private, [(c.method, c.chat_id) for c in private]
        assert len(spent) <= 15, [(c.method, c.chat_id) for c in spent]
        # A page closed: that person's DM hand is brought up to date (sent, since none was).
        anya = users[0]
        await pages[anya.id].close()
        await driver.wait_for(
            lambda: any("раздача" in m.content for m in anya.dm.bot_messages) or None,
            timeout=25,
            what="Аня's hand in her DM once her page closed",
        )
        for page in pages.values():
            await page.close()
