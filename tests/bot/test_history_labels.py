"""History stays true (issue 20, item 8): every card is named by who played it, after a mid-deal
/leave and after the bot player decided for someone away; 💤 only on the cards the bot played."""

from __future__ import annotations

import random

from bot.engine import Card
from bot.handlers.i18n import Tr
from bot.handlers.labels import BY_BOT, BY_PERSON
from bot.handlers.services import Services
from bot.handlers.words import card_text
from bot.sandbox import Driver, SimGroup
from bot.sandbox.clock import FakeClock
from bot.storage import Table
from tests.bot.helpers import buttons, legal_hand, play_until, start_game, table_of
from tests.bot.test_timers import armed, clock, eventually, one_human_game, played, settings

__all__ = ["clock", "settings"]  # the timer tests' fixtures: a clock the test moves

RU = Tr("ru")


def _seat_cards(table: Table, index: int, seat: int) -> list[Card]:
    assert table.match is not None
    moves = table.match.deals[index]["moves"]
    return [Card.parse(m["play"]) for m in moves if m["seat"] == seat and "play" in m]


def _summary(group: SimGroup, n: int) -> str | None:
    found = [m.content for m in group.bot_messages if f"Раздача №{n} окончена" in m.content]
    return found[0] if found else None


async def test_after_a_mid_deal_leave_each_card_keeps_the_name_of_who_played_it(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya, boris])

    def anya_played() -> bool:
        tables = svc.presenter.tables()
        current = tables[0].match.current if tables and tables[0].match else None
        return current is not None and any(m["seat"] == 0 and "play" in m for m in current["moves"])

    await play_until(driver, svc, [anya, boris], anya_played, rng=random.Random(1))
    await anya.send(group, "/leave")
    await group.wait_bot_message(lambda m: "Аня выходит из-за стола." in m.content)
    await play_until(driver, svc, [boris], lambda: _summary(group, 1) is not None, rng=random.Random(2))
    table = await table_of(svc, group)
    assert table is not None and table.match is not None and table.seats[0] is not None
    assert table.seats[0].is_bot
    text = _summary(group, 1)
    assert text is not None
    tags = table.match.played_by.get(0, {})
    mine = [c for c in _seat_cards(table, 0, 0) if tags.get(c.code, "").startswith(BY_PERSON)]
    bots = [c for c in _seat_cards(table, 0, 0) if c.code not in tags]
    assert mine and bots, (tags, text)
    for c in mine:  # hers, with her name, though a bot sits there now
        assert f"Аня {card_text(RU, c)}" in text, text
    for c in bots:  # the bot's, saying it played for her
        assert f"Аня (🤖) {card_text(RU, c)}" in text, text
    tricks = [line for line in text.splitlines() if line[:1].isdigit()]
    assert not any("Бот №1" in line for line in tricks)  # the seat's new occupant played none of it


async def test_the_bot_playing_for_someone_away_marks_only_its_own_cards_with_zz(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya, group = await one_human_game(driver)
    first = await armed(svc, group, "timeout")
    hand = await legal_hand(driver, svc, anya)
    for _, button, data in buttons(svc, hand):  # her own card: the first legal one
        if button.payload.startswith("A") and not (await anya.tap(hand, data=data)).show_alert:
            break
    await played(svc, group, first)
    second = await armed(svc, group, "timeout", after=first)
    clock.advance(61)  # out of time: the bot plays this one for her
    await played(svc, group, second)
    third = await armed(svc, group, "timeout", after=second)
    clock.advance(61)  # out of time again: she is away, the bot plays the rest of the deal
    await played(svc, group, third)
    await eventually(lambda: _summary(group, 1), "the first deal's summary", timeout=30)
    table = await table_of(svc, group)
    assert table is not None and table.match is not None and 0 in table.away
    text = _summary(group, 1)
    assert text is not None
    tags = table.match.played_by.get(0, {})
    cards = _seat_cards(table, 0, 0)
    own = [c for c in cards if c.code not in tags]
    by_bot = [c for c in cards if tags.get(c.code, "").startswith(BY_BOT)]
    assert own and len(by_bot) == len(cards) - len(own) >= 2, (tags, text)
    for c in own:  # she is away now, but this card she played herself: no 💤
        assert f"Аня {card_text(RU, c)}" in text and f"Аня 💤 {card_text(RU, c)}" not in text, text
    for c in by_bot:
        assert f"Аня 💤 {card_text(RU, c)}" in text, text
