"""The presenter keeps a view only of live tables: a finished match or a deleted table is dropped."""

from __future__ import annotations

import random

from bot.sandbox import Driver, SimGroup, SimUser, StoredMessage
from bot.table.payloads import StopGame
from bot.tg.presenter import key_of
from bot.tg.services import Services
from tests.bot.helpers import inject, lobby, play_until, sit, start_game, stop_game


async def test_a_finished_match_is_dropped_and_a_rematch_shown_again(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and svc.presenter.live() == 1

    def over() -> bool:
        return any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)

    await play_until(driver, svc, [anya], over, rng=random.Random(3))
    await svc.driver.idle()
    await svc.presenter.idle()
    finished = await svc.storage.load_table(group.id, None)
    assert finished is not None and finished.status == "over"
    assert svc.presenter.live() == 0
    # Every move of hers was timed twice: handled, and its messages queued by the presenter.
    moves = svc.stats.tap_times
    assert moves and len(svc.stats.queued_times) == len(moves)
    assert sorted(svc.stats.queued_times)[len(moves) // 2] >= sorted(moves)[len(moves) // 2]

    # A late snapshot of the finished match (say, from a slow handler) is not shown again.
    await driver.settle()
    calls = len(driver.calls())
    svc.presenter.show(table)
    await svc.presenter.idle()
    await svc.outbox.drain()
    assert svc.presenter.live() == 0 and len(driver.calls()) == calls

    summary = next(
        m for m in group.bot_messages if any("Ещё партию" in b["text"] for r in m.buttons for b in r)
    )
    tap = await anya.tap(summary, "Ещё партию")
    assert not tap.show_alert
    lobby_message = await group.wait_bot_message(lambda m: "собираемся за столом" in m.content)
    await anya.tap(lobby_message, "Начать")
    await anya.dm.wait_bot_message(lambda m: "раздача №" in m.content and bool(m.buttons))
    assert svc.presenter.live() == 1


async def test_a_stopped_table_is_dropped_even_while_it_renders(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya])
    table = await svc.storage.load_table(group.id, None)
    assert table is not None
    # A render is under way when the table goes: the view goes once that render is done.
    svc.presenter.show(table)
    await stop_game(anya, group)
    await svc.driver.idle()
    await svc.presenter.idle()
    assert svc.presenter.live() == 0
    assert await svc.storage.load_table(group.id, None) is None
    # The stopped game's last snapshot, shown late, does not bring its messages back.
    await driver.settle()
    calls = len(driver.calls())
    svc.presenter.show(table)
    await svc.presenter.idle()
    await svc.outbox.drain()
    assert len(driver.calls()) == calls and svc.presenter.live() == 0
    assert key_of(table) == (group.id, None)


async def test_a_deals_messages_still_on_their_way_when_the_game_stops_are_deleted(
    app: object, driver: Driver, svc: Services
) -> None:
    """/stop while the first deal's table message is being sent (Telegram answers late): once it is
    out it is deleted, not left as a stray "that deal is over" in the group, and the hand behind it
    is not left live-looking in the private chat (seen walking a match in the sandbox)."""
    anya, group, message = await _asked_to_fill(driver)
    # Sent, but answered only after the /stop below.
    driver.world.inject_faults(method="sendMessage", chat_id=group.id, count=1, delay=1.5)
    await _fill_and_stop(svc, anya, group, message)

    def hands() -> list[str]:
        return [m.content for m in anya.dm.bot_messages if "раздача №1" in m.content]

    await driver.wait_for(lambda: [c for c in driver.calls("deleteMessage") if c.chat_id == group.id] or None)
    await driver.settle()
    assert [c for c in driver.calls("sendMessage") if c.ok and c.chat_id == group.id]  # it was sent
    assert not any("Раздача №1" in m.content or "окончена" in m.content for m in group.bot_messages)
    assert not hands()
    assert not driver.failed_calls(), driver.failed_calls()[:3]


async def test_a_deals_messages_waiting_for_their_turn_when_the_game_stops_are_never_sent(
    app: object, driver: Driver, svc: Services
) -> None:
    """The first deal's table message waits its turn (Telegram said "retry after 2 s") when /stop
    comes: it is dropped unsent, and so is the hand behind it, so nobody is notified of a deal that
    will not be played."""
    anya, group, message = await _asked_to_fill(driver)
    driver.world.inject_faults(method="sendMessage", chat_id=group.id, status=429, retry_after=2, count=1)
    await _fill_and_stop(svc, anya, group, message)
    await driver.settle()
    sent = [str(c.params.get("text", "")) for c in driver.calls("sendMessage") if c.ok]
    assert not any("Раздача №1" in t or "раздача №1" in t for t in sent), sent
    assert [c.error_code for c in driver.failed_calls()] == [429]


async def _asked_to_fill(driver: Driver) -> tuple[SimUser, SimGroup, StoredMessage]:
    """Аня alone in a lobby, asked whether to fill the empty seats with bot players."""
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await sit(anya, message, 0, group)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: "Посадить туда" in m.content)
    return anya, group, message


async def _fill_and_stop(svc: Services, anya: SimUser, group: SimGroup, message: StoredMessage) -> None:
    """Start with bot players, and stop the game as soon as it has started: /stop's confirm button
    tapped at once (put on the lobby message: the confirm itself would queue behind the deal's
    messages in the group)."""
    await anya.tap(message, "с ботами")
    await group.wait_until(message, lambda m: "Игра началась" in m.content)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None
    inject(message, svc.codec.data(group.id, None, table.table_id, 0, StopGame()))
    tap = await anya.tap(message, "👆")
    assert not tap.show_alert, tap.answer_text
    assert await svc.storage.load_table(group.id, None) is None
