"""Bad input gets a short localized alert, changes nothing and logs no error."""

from __future__ import annotations

import contextlib
import logging
import random
from collections.abc import Iterator

import pytest

from bot.engine import ALL_CARDS
from bot.sandbox import Driver, StoredMessage
from bot.table import game
from bot.table.codec import Button
from bot.table.game import SUIT_SYMBOLS
from bot.tg.services import Services
from tests.bot.helpers import buttons, hand_of, inject, legal_hand, lobby, play_until, sit, start_game


@pytest.fixture(autouse=True)
def no_errors_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Nothing these tests do may be logged as an error."""
    with caplog.at_level(logging.WARNING):
        yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


async def _version(svc: Services, chat_id: int) -> object:
    """What a bad tap must not change: the seats, the match and the deal's moves (message ids may)."""
    table = await svc.storage.load_table(chat_id, None)
    assert table is not None
    return (table.seats, table.status, table.match.model_dump() if table.match else None)


async def test_a_tap_from_someone_not_at_the_table(app: object, driver: Driver, svc: Services) -> None:
    anya, gleb = driver.add_user("Аня"), driver.add_user("Глеб")
    group = driver.add_group("Козлятник", [anya, gleb])
    await start_game(driver, group, [anya])
    hand = await legal_hand(driver, svc, anya)
    data = next(d for _, b, d in buttons(svc, hand) if b.payload.startswith("A"))
    await gleb.start()
    greeting = await gleb.dm.wait_bot_message()
    inject(greeting, data)
    before = await _version(svc, group.id)
    tap = await gleb.tap(greeting, "👆")
    assert tap.show_alert and tap.answer_text == "Вы не сидите за этим столом."
    assert await _version(svc, group.id) == before


async def test_a_card_not_in_the_hand(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    await play_until(
        driver,
        svc,
        [anya],
        lambda: any(b.payload.startswith("Ap") for _, b, _ in buttons(svc, anya.dm.bot_messages[-1])),
        rng=random.Random(1),
    )
    hand = anya.dm.bot_messages[-1]
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.match is not None
    held = {b.payload[-2:] for _, b, _ in buttons(svc, hand)}
    missing = next(c.code for c in ALL_CARDS if c.code not in held)
    forged = svc.codec.pack(Button(group.id, None, table.table_id, table.match.deal_seq, "Ap" + missing))
    inject(hand, forged)
    before = await _version(svc, group.id)
    tap = await anya.tap(hand, "👆")
    assert tap.show_alert and tap.answer_text == "Такой карты у вас нет."
    assert await _version(svc, group.id) == before


async def test_forged_callback_data(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    real = next(d for _, _, d in buttons(svc, message))
    for forged in ("k1.garbage", real[:-3] + "AAA", real.replace(".S0.", ".S1."), "demo:pass"):
        inject(message, forged)
        tap = await anya.tap(message, "👆")
        assert tap.show_alert and tap.answer_text == "Эта кнопка не работает.", forged


async def test_a_stale_keyboard_from_an_earlier_deal(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    first = await legal_hand(driver, svc, anya)
    old = next(d for _, b, d in buttons(svc, first) if b.payload.startswith("A"))

    def ended() -> StoredMessage | None:
        # Her first hand, or the one that replaced it when a decision came due (a new message).
        return next((m for m in anya.dm.bot_messages if "№1 окончена" in m.content), None)

    await play_until(driver, svc, [anya], lambda: ended() is not None, rng=random.Random(2))
    message = ended()
    assert message is not None
    inject(message, old)
    tap = await anya.tap(message, "👆")
    assert tap.show_alert and tap.answer_text in ("Это карты прошлой раздачи.", "Эта игра уже закончилась.")


async def test_not_your_turn_and_someone_elses_seat(app: object, driver: Driver, svc: Services) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    lobby_message = await lobby(driver, group, anya)
    await sit(anya, lobby_message, 0, group)
    refused = await boris.tap(lobby_message, "Место 1")
    assert not refused.show_alert and refused.answer_text == "Это место занято."
    await sit(boris, lobby_message, 1, group)
    await anya.tap(lobby_message, "Начать")
    await group.wait_until(lobby_message, lambda m: "Посадить туда" in m.content)
    await anya.tap(lobby_message, "с ботами")
    await hand_of(anya)
    await hand_of(boris)

    def waiting_hand() -> tuple[object, object] | None:
        for user in (anya, boris):
            hand = user.dm.bot_messages[-1]
            marks = [b.payload for _, b, _ in buttons(svc, hand)]
            if marks and not any(p.startswith("A") for p in marks):
                other = boris if user is anya else anya
                if any(b.payload.startswith("A") for _, b, _ in buttons(svc, other.dm.bot_messages[-1])):
                    return user, hand
        return None

    user, hand = await driver.wait_for(waiting_hand, what="one human waiting for the other")
    before = await _version(svc, group.id)
    tap = await user.tap(hand, data=next(d for _, b, d in buttons(svc, hand) if b.payload.startswith("X")))  # type: ignore[attr-defined,arg-type]
    assert tap.show_alert and tap.answer_text == "Сейчас не ваш ход."
    assert await _version(svc, group.id) == before


async def test_group_commands_in_private(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    await anya.dm.wait_bot_message()
    for command in ("/score", "/stop", "/leave"):
        await anya.send_dm(command)
        answer = await anya.dm.wait_bot_message()
        assert answer.content == "Эта команда работает в группе, где идёт игра.", command
    await anya.send_dm("/newgame")  # says how a table is gathered (tests/bot/test_variant_texts.py)
    assert "добавьте меня в группу" in (await anya.dm.wait_bot_message()).content


async def test_a_blocked_dm_is_reported_to_the_group_with_a_way_back(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    lobby_message = await lobby(driver, group, anya)
    await sit(anya, lobby_message, 0, group)
    await sit(boris, lobby_message, 1, group)
    boris.block_bot()
    await anya.tap(lobby_message, "Начать")
    await group.wait_until(lobby_message, lambda m: "Посадить туда" in m.content)
    await anya.tap(lobby_message, "с ботами")
    # A block (not a bot never started) also hands the seat to the bot player: bot/tg/faults.py.
    notice = await group.wait_text("личка с ботом заблокирована")
    assert "Борис" in notice.content
    result = await boris.tap(notice, "Открыть бота", follow_url=True)
    assert result.url is not None and "start=h" in result.url
    hand = await boris.dm.wait_bot_message(lambda m: "раздача №" in m.content)
    assert hand.buttons


async def test_a_second_tap_on_a_card_just_played(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    rng = random.Random(4)

    def two_cards() -> bool:
        # Two cards she may play: this play is not the deal's last, so the deal goes on after it (with
        # one, the bots' replies could end the deal and the stale tap would meet the next deal instead).
        return sum(b.payload.startswith("Ap") for _, b, _ in buttons(svc, anya.dm.bot_messages[-1])) >= 2

    for _attempt in range(5):
        await play_until(driver, svc, [anya], two_cards, rng=rng)
        hand = anya.dm.bot_messages[-1]
        label, _, data = next(t for t in buttons(svc, hand) if t[1].payload.startswith("Ap"))
        first = await anya.tap(hand, data=data)
        assert not first.show_alert, first.answer_text
        inject(hand, data, label)  # the keyboard as it was before its edit arrived
        again = await anya.tap(hand, label)
        if again.answer_text == "Это карты прошлой раздачи.":
            assert again.show_alert
            # The bots' cards ended the deal at once (a caught ♣Q ends it mid-trick): the stale tap met
            # the next deal, and says so. Try again at a later card.
            continue
        # A harmless repeat: told with a toast, not a modal alert.
        assert again.answer_text == "Эта карта уже сыграна." and not again.show_alert
        break
    else:  # pragma: no cover - a caught queen right after her card five times running
        raise AssertionError("every try met a deal that had just ended")
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.match is not None and table.match.current is not None
    card = svc.codec.unpack(data).payload[2:]
    assert [m for m in table.match.current["moves"] if m.get("play") == card] == [{"seat": 0, "play": card}]


async def test_a_card_that_does_not_follow_is_refused_naming_the_suit_or_the_trump(
    app: object, driver: Driver, svc: Services
) -> None:
    """The alert says what is required: the led plain suit by its sign, or a trump when a trump was led.
    (A card she may not play is a button too, without the ✅: a tap on it explains why.)"""
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    rng = random.Random(5)
    seen: dict[str, str] = {}

    def refused_cards() -> bool:
        # Her turn to follow, with cards she may not play (shown without the ✅).
        payloads = [b.payload for _, b, _ in buttons(svc, anya.dm.bot_messages[-1])]
        return any(p.startswith("Ap") for p in payloads) and any(p.startswith("X") for p in payloads)

    for _ in range(60):
        if {"suit", "trump"} <= set(seen):
            break
        await play_until(driver, svc, [anya], refused_cards, rng=rng)
        # The keyboard seen may be the one from before her last tap (its edit on the way): let the
        # bot finish what it is doing, then look at the table and her hand again.
        with contextlib.suppress(TimeoutError):
            await driver.settle(quiet=0.3, timeout=15)
        table = await svc.storage.load_table(group.id, None)
        assert table is not None
        deal = game.deal_of(table)
        if deal is None or deal.to_act != 0 or not deal.trick or not refused_cards():
            continue
        hand = anya.dm.bot_messages[-1]
        assert deal.tables is not None
        t, led = deal.tables, deal.trick[0][1]
        mine = deal.hand(0)
        if t.is_trump(led):
            kind, expected = "trump", "Ход с козыря — нужно положить козырь."
        elif any(c.suit is led.suit and not t.is_trump(c) for c in mine):
            kind, expected = "suit", f"Нужно ходить в масть: {SUIT_SYMBOLS[led.suit]}."
        else:
            kind, expected = "void", "Масти нет — нужно бить козырем."
        found = buttons(svc, hand)
        wrong = next(d for _, b, d in found if b.payload.startswith("X"))
        before = await _version(svc, group.id)
        tap = await anya.tap(hand, data=wrong)
        assert tap.show_alert and tap.answer_text == expected, (led, mine, tap.answer_text)
        assert await _version(svc, group.id) == before
        seen[kind] = expected
        # Play on with a card she may play, and wait for the hand to move past this turn.
        edits = hand.edits
        right = rng.choice([d for _, b, d in found if b.payload.startswith("Ap")])
        assert not (await anya.tap(hand, data=right)).show_alert
        await driver.wait_for(
            lambda h=hand, e=edits: h.edits != e or anya.dm.bot_messages[-1] is not h or None
        )
    assert {"suit", "trump"} <= set(seen), seen


async def test_another_card_tapped_on_the_keyboard_just_used_is_told_with_a_toast(
    app: object, driver: Driver, svc: Services
) -> None:
    """A quick second tap on another card, before the hand's edit arrives (a ✅ card) or just after
    (a card without it now): the turn has passed to Борис, the card stays in her hand, and she is told
    so with a toast, not an alert to dismiss."""
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya, boris])
    rng = random.Random(6)

    def live_cards() -> list[tuple[str, str]]:
        if not anya.dm.bot_messages:
            return []
        found = buttons(svc, anya.dm.bot_messages[-1])
        return [(label, d) for label, b, d in found if b.payload.startswith("Ap")]

    def before_boris() -> bool:
        # Her card, then Борис's (a person: the deal waits for him), with two cards she may play.
        tables = svc.presenter.tables()
        deal = game.deal_of(tables[0]) if tables else None
        return (
            deal is not None
            and deal.to_act == 0
            and all(s != 1 for s, _ in deal.trick)
            and len(live_cards()) >= 2
        )

    for _attempt in range(20):
        await play_until(driver, svc, [anya, boris], before_boris, rng=rng)
        with contextlib.suppress(TimeoutError):
            await driver.settle(quiet=0.3, timeout=15)
        if before_boris():
            break
    else:  # pragma: no cover - the state is met within a few tricks
        raise AssertionError("never her card right before Борис's")
    hand = anya.dm.bot_messages[-1]
    (_, first), (second_label, second) = live_cards()[:2]
    played = await anya.tap(hand, data=first)
    assert not played.show_alert, played.answer_text
    inject(hand, second, second_label)  # the keyboard as it was before its edit arrived
    again = await anya.tap(hand, second_label)
    assert again.answer_text == "Сейчас не ваш ход." and not again.show_alert

    # Or on the keyboard already redrawn (no ✅ now: not her turn), the second tap as quick.
    def redrawn_keyboard(m: StoredMessage) -> bool:
        return not any(b.payload.startswith("Ap") for _, b, _ in buttons(svc, m))

    await anya.dm.wait_until(hand, redrawn_keyboard)
    held = next(label for label, b, _ in buttons(svc, hand) if b.payload.startswith("X"))
    redrawn = await anya.tap(hand, held)
    assert redrawn.answer_text == "Сейчас не ваш ход." and not redrawn.show_alert
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.match is not None and table.match.current is not None
    card = svc.codec.unpack(second).payload[2:]
    assert not any(m.get("play") == card for m in table.match.current["moves"])
