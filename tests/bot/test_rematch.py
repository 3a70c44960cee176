"""The rematch (issue 20, item 7): 🔁 opens a lobby with the same rules and seats; each person says
whether they play, the creator starts; the old button goes once used."""

from __future__ import annotations

import random

from bot.render.i18n import Tr
from bot.sandbox import Driver, SimGroup, StoredMessage
from bot.tg.services import Services
from tests.bot.helpers import buttons, inject, play_until, start_game

RU = Tr("ru")


def _rematch_button(group: SimGroup) -> StoredMessage | None:
    return next(
        (m for m in group.bot_messages if any("Ещё партию" in b["text"] for r in m.buttons for b in r)), None
    )


async def test_rematch_opens_a_lobby_with_the_same_seats_each_person_confirms_the_creator_starts(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris, vera = driver.add_user("Аня"), driver.add_user("Борис"), driver.add_user("Вера")
    group = driver.add_group("Козлятник", [anya, boris, vera])
    await start_game(driver, group, [anya, boris])
    await play_until(
        driver, svc, [anya, boris], lambda: _rematch_button(group) is not None, rng=random.Random(4)
    )
    summary = _rematch_button(group)
    assert summary is not None
    first = await svc.storage.load_table(group.id, None)
    assert first is not None and first.status == "over"
    old = next(d for label, _, d in buttons(svc, summary) if "Ещё партию" in label)

    # Someone who did not play may not reopen the table.
    refused = await vera.tap(summary, "Ещё партию")
    assert refused.show_alert and refused.answer_text == "Вы не сидите за этим столом."
    # Boris (not the creator) taps: a new lobby below, the same rules and seats, Anya to answer.
    tap = await boris.tap(summary, "Ещё партию")
    assert not tap.show_alert
    lobby_message = await group.wait_bot_message(lambda m: "Ещё партия" in m.content)
    assert group.bot_messages[-1].message_id == lobby_message.message_id
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "lobby" and table.table_id != first.table_id
    assert table.seats == first.seats and table.rules == first.rules and table.creator_id == anya.id
    assert table.unconfirmed == [anya.id]
    assert "Ждём ответа: " in lobby_message.content and "Аня" in lobby_message.content
    # The old button is gone from the summary; a stale tap on it says the new match is below.
    await group.wait_until(summary, lambda m: m.buttons == [])
    inject(summary, old)
    stale = await anya.tap(summary, "👆")
    assert not stale.show_alert and stale.answer_text == "Новая партия уже открыта — смотрите ниже."

    # Only the creator starts; Boris's "I'm playing" is a harmless repeat (he tapped 🔁).
    refused = await boris.tap(lobby_message, "Начать")
    assert not refused.show_alert and refused.answer_text is not None and "создатель" in refused.answer_text
    repeat = await boris.tap(lobby_message, "Играю")
    assert not repeat.show_alert and repeat.answer_text == "Вы уже в игре."
    outsider = await vera.tap(lobby_message, "Играю")
    assert outsider.show_alert and outsider.answer_text == "Вы не сидите за этим столом."
    confirm = next(d for label, _, d in buttons(svc, lobby_message) if "Играю" in label)
    # Anya answers with her own seat's button: that says "I'm in" too.
    tap = await anya.tap(lobby_message, "Место 1")
    assert not tap.show_alert
    await group.wait_until(lobby_message, lambda m: "Ждём ответа" not in m.content)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.unconfirmed == [] and table.seats == first.seats
    await anya.tap(lobby_message, "Начать")
    await group.wait_until(lobby_message, lambda m: "Игра началась" in m.content)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "playing" and table.seats == first.seats
    # A late (or forged) "I'm in" on the lobby of a game under way is told so.
    inject(lobby_message, confirm)
    late = await anya.tap(lobby_message, "👆")
    assert late.show_alert and late.answer_text == RU("lobby.game_started")


async def test_in_a_rematch_lobby_a_person_may_decline_and_the_creator_role_passes_on(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya, boris])
    await play_until(
        driver, svc, [anya, boris], lambda: _rematch_button(group) is not None, rng=random.Random(8)
    )
    summary = _rematch_button(group)
    assert summary is not None
    await boris.tap(summary, "Ещё партию")
    lobby_message = await group.wait_bot_message(lambda m: "Ещё партия" in m.content)
    # The creator leaves: Boris, who answered (by tapping 🔁), may start now.
    tap = await anya.tap(lobby_message, "Не в этот раз")
    assert not tap.show_alert
    again = await anya.tap(lobby_message, "Не в этот раз")
    assert not again.show_alert and again.answer_text is not None and "места" in again.answer_text
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.seats[0] is None and table.creator_id == boris.id
    await group.wait_until(lobby_message, lambda m: "Ждём ответа" not in m.content)
    await boris.tap(lobby_message, "Начать")
    await group.wait_until(lobby_message, lambda m: "Посадить туда" in m.content)
    await boris.tap(lobby_message, "с ботами")
    await group.wait_until(lobby_message, lambda m: "Игра началась" in m.content)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "playing"
    assert table.seats[0] is not None and table.seats[0].is_bot


async def test_in_a_rematch_lobby_the_creator_who_taps_start_first_keeps_her_seat(
    app: object, driver: Driver, svc: Services
) -> None:
    """Issue 34, item 1: Boris taps 🔁; Anya (the creator) taps "Начать" without "Играю" first —
    starting says she plays: her seat is kept and the match starts at once, no bot put in her place."""
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya, boris])
    await play_until(
        driver, svc, [anya, boris], lambda: _rematch_button(group) is not None, rng=random.Random(8)
    )
    summary = _rematch_button(group)
    assert summary is not None
    first = await svc.storage.load_table(group.id, None)
    assert first is not None
    await boris.tap(summary, "Ещё партию")
    lobby_message = await group.wait_bot_message(lambda m: "Ещё партия" in m.content)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.unconfirmed == [anya.id] and table.creator_id == anya.id
    tap = await anya.tap(lobby_message, "Начать")
    assert not tap.show_alert
    await group.wait_until(lobby_message, lambda m: "Игра началась" in m.content)
    assert "Посадить туда" not in lobby_message.content and "Аня" in lobby_message.content
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "playing" and table.seats == first.seats
    seat0 = table.seats[0]
    assert seat0 is not None and seat0.user_id == anya.id and table.unconfirmed == []
