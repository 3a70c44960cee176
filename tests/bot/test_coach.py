"""The bot that teaches (issue 22, items 4 and 5), through the emulator: a finished deal's review in
private, and the 💡 hint where the chat allows it."""

from __future__ import annotations

import random

import pytest

from bot.engine import Play, Rules, card, view_for
from bot.engine.ai import pool
from bot.engine.ai.hint import why
from bot.render.i18n import Tr
from bot.render.standings_view import personal_text
from bot.render.words import card_text
from bot.sandbox import Driver, SimGroup, SimUser, StoredMessage
from bot.stats.entry import Meta, Player, make_entry
from bot.stats.standings import personal_of
from bot.storage import MatchState, RedisStorage, Table
from bot.table import game, hints
from bot.table.payloads import BadData, Hint, Hints, Review, decode, encode
from bot.tg import coach
from bot.tg.services import Services
from tests.ai.test_analysis import with_blunder
from tests.ai.test_blunders import SHMON_LED, position
from tests.bot.helpers import buttons, inject, legal_hand, play_until, start_game, table_of

RU = Tr("ru")


def _review_line(message: StoredMessage) -> bool:
    return "окончена" in message.content and any("Разбор" in b["text"] for r in message.buttons for b in r)


async def test_the_review_button_is_under_a_finished_deals_line_in_private(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    done = lambda: any(_review_line(m) for m in anya.dm.bot_messages)  # noqa: E731
    await play_until(driver, svc, [anya], done, rng=random.Random(3))
    line = next(m for m in anya.dm.bot_messages if _review_line(m))
    ((_, button, _),) = [t for t in buttons(svc, line) if "Разбор" in t[0]]
    # Аня's seat, and a finished deal of the match: the chat keeps one "deal over" line, so it is the
    # newest finished deal's (the first, unless a void deal or a quick second deal came first).
    assert button.payload == "U0"
    table = await table_of(svc, group)
    assert table is not None and table.match is not None and button.deal_seq < len(table.match.deals)
    deal_no = table.match.deals[button.deal_seq].get("deal_no", 1)
    tap = await anya.tap(line, "Разбор")
    assert not tap.show_alert and tap.answer_text and "Разбираю" in tap.answer_text
    review = await anya.dm.wait_text("🔍 Разбор ·", timeout=30)
    assert f"раздача №{deal_no}" in review.content and "48 раскладах" in review.content
    assert "0,35 очка" in review.content


async def _stored(driver: Driver, svc: Services) -> tuple[SimUser, SimGroup, Table]:
    """Аня in seat 2 of a table whose finished deal 0 is the ♣Q fed to the opponents' шмон
    (tests/ai/test_analysis.py), and whose deal in play waits for her, the шмон led."""
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    await legal_hand(driver, svc, anya)
    finished = with_blunder(SHMON_LED, ["6C"], "QC").record()
    now = position(SHMON_LED, ["6C"])

    def change(table: Table | None) -> Table:
        assert table is not None
        # A table id of its own: no keyboard, cached deal or bot's thought of the match before applies.
        table.table_id = "coach1"
        table.rules = Rules.make("classic").to_json()
        table.seats[0], table.seats[2] = table.seats[2], table.seats[0]
        table.match = MatchState(first_dealer=3, dealer=3, deals=[finished], deal_seq=2, current=now.record())
        table.table_message_id, table.hand_messages = None, {}
        return table

    table, _ = await svc.transact((group.id, None), change)
    assert table is not None
    await svc.after_change(table, None)
    return anya, group, table


def _data(svc: Services, table: Table, deal: int, payload: Review | Hint) -> str:
    return svc.codec.data(table.chat_id, table.thread_id, table.table_id, deal, payload)


async def _hand(anya: SimUser) -> StoredMessage:
    return await anya.dm.wait_bot_message(
        lambda m: "раздача №1 · ваше место 3" in m.content and bool(m.buttons) and not m.deleted
    )


async def test_the_review_names_the_queen_fed_to_the_opponents_shmon(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, _group, table = await _stored(driver, svc)
    message = await _hand(anya)
    # Another seat's review, and one of the deal still in play: refused.
    inject(message, _data(svc, table, 0, Review(0)))
    tap = await anya.tap(message)
    assert tap.show_alert and tap.answer_text == RU("review.not_yours")
    inject(message, _data(svc, table, 1, Review(2)))
    tap = await anya.tap(message)
    assert tap.show_alert and tap.answer_text == RU("review.unfinished")
    # A tap while the same review runs: a toast, nothing started.
    inject(message, _data(svc, table, 0, Review(2)))
    coach._REVIEWING.add((table.table_id, 0, 2))
    try:
        tap = await anya.tap(message)
    finally:
        coach._REVIEWING.discard((table.table_id, 0, 2))
    assert not tap.show_alert and tap.answer_text == RU("review.running")
    assert not any("🔍 Разбор ·" in m.content for m in anya.dm.bot_messages)

    tap = await anya.tap(message)
    assert not tap.show_alert
    review = await anya.dm.wait_text("🔍 Разбор ·", timeout=30)
    assert "Взятка 1: сыграно Д♣, лучше было 9♦" in review.content, review.content
    assert RU("review.why.queen_caught") in review.content


async def test_a_hint_is_hards_choice_with_its_why_seen_only_by_the_person_and_counted(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, group, table = await _stored(driver, svc)
    hand = await _hand(anya)
    # Hints are off unless the chat turns them on: no 💡, and a forged one is refused.
    assert not any("💡" in b["text"] for r in hand.buttons for b in r)
    inject(hand, _data(svc, table, 2, Hint(1)))
    tap = await anya.tap(hand)
    assert tap.show_alert and tap.answer_text == RU("hint.off")

    await anya.send(group, "/settings")
    menu = await group.wait_text("Подсказки 💡: выключены")
    await anya.tap(menu, "💡 Подсказки")
    await group.wait_until(menu, lambda m: "Подсказки 💡: включены" in m.content)
    svc.presenter.forget_hints(group.id)
    table = await svc.storage.load_table(group.id, None)  # type: ignore[assignment]
    assert table is not None
    await svc.after_change(table, None)

    def with_hint() -> StoredMessage | None:
        return next(
            (m for m in anya.dm.bot_messages if any("💡" in b["text"] for r in m.buttons for b in r)), None
        )

    hand = await driver.wait_for(with_hint, what="a hand with 💡")

    tap = await anya.tap(hand, "💡")
    deal = game.deal_of(table)
    assert deal is not None
    view = view_for(deal, 2)
    expected = pool.decide("hard", view, hints.hint_seed(table.table_id, 2, 1))
    assert expected == Play(card("9D"))  # the ♣Q kept from the шмон
    reason = why(view, expected)
    line = RU("hint.text", what=card_text(RU, card("9D")))
    said = line if reason is None else line + "\n" + RU(f"hint.why.{reason}")
    assert tap.show_alert and tap.answer_text == said
    again = await anya.tap(hand, "💡")  # the same decision again: the same answer, counted once
    assert again.answer_text == tap.answer_text
    await anya.send_dm("/stats")
    assert "Подсказок взято: 1" in (await anya.dm.wait_text("Статистика: Аня")).content
    # Not for a decision already made.
    inject(hand, _data(svc, table, 2, Hint(0)))
    stale = await anya.tap(hand)
    assert stale.show_alert and stale.answer_text == RU("hint.stale")


async def test_a_review_comes_from_the_chats_history_once_the_match_left_the_table(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, group, _table = await _stored(driver, svc)
    message = await _hand(anya)
    finished = with_blunder(SHMON_LED, ["6C"], "QC").record()
    seats = [Player(kind="bot", level="random") for _ in range(4)]
    seats[2] = Player(kind="human", name="Аня", user_id=anya.id)
    meta = Meta(id="past1", chat_id=group.id, chat_title="Козлятник", at=1.0, seats=seats)
    await svc.storage.push_history(
        group.id, make_entry({"rules": finished["rules"], "deals": [finished]}, meta)
    )

    def past(deal: int, seat: int) -> str:
        return svc.codec.data(group.id, None, "past1", deal, Review(seat))

    for data, refusal in ((past(0, 1), "review.not_yours"), (past(3, 2), "review.gone")):
        inject(message, data)
        tap = await anya.tap(message)
        assert tap.show_alert and tap.answer_text == RU(refusal)
    inject(message, svc.codec.data(group.id, None, "nowhere", 0, Review(2)))
    assert (await anya.tap(message)).answer_text == RU("review.gone")
    inject(message, past(0, 2))
    assert not (await anya.tap(message)).show_alert
    review = await anya.dm.wait_text("🔍 Разбор ·", timeout=30)
    assert "Взятка 1: сыграно Д♣, лучше было 9♦" in review.content


def test_the_review_and_hint_buttons_travel_and_come_back_as_they_were() -> None:
    for payload in (Review(0), Review(3), Hint(0), Hint(35), Hints()):
        assert decode(encode(payload)) == payload
    for bad in ("U4", "Ux", "U", "H", "H1234", "Hx"):
        with pytest.raises(BadData):
            decode(bad)


async def test_hints_are_counted_per_person_and_a_rebuild_keeps_them(storage: RedisStorage) -> None:
    assert [await storage.count_hint(7), await storage.count_hint(7), await storage.count_hint(8)] == [
        1,
        2,
        1,
    ]
    assert personal_of(await storage.personal(7)).hints == 2
    await storage.clear_stats()  # python -m bot.stats rebuild: the hints are not in the history
    assert personal_of(await storage.personal(7)).hints == 2
    assert "Подсказок взято: 2" in personal_text(RU, "Аня", personal_of(await storage.personal(7)))
