"""``dummy`` and ``two_dummies`` in Telegram (RULES.md §5): picked in the rules menu, the blind's seat
shown and never taken, the partner bragging for his blind in his DM, the blind's turned cards and its
stack on the table, a whole match played to the goat by three people (two for ``two_dummies``)."""

from __future__ import annotations

import random

from bot.sandbox import Driver, SimGroup, SimUser, StoredMessage
from bot.tg.services import Services
from tests.bot.helpers import NAMES, buttons, inject, lobby, play_until, sit


async def _pick(
    driver: Driver,
    group: SimGroup,
    creator: SimUser,
    label: str,
    about: str,
    message: StoredMessage | None = None,
) -> StoredMessage:
    message = message or await lobby(driver, group, creator)
    await creator.tap(message, "Правила")
    await group.wait_until(message, lambda m: any(label in b["text"] for r in m.buttons for b in r))
    await creator.tap(message, label)
    await group.wait_until(message, lambda m: about in m.content)
    labels = [b["text"] for r in message.buttons for b in r]
    assert any(text.startswith(f"✓ {label}") for text in labels)
    await creator.tap(message, "Игра до: 12")  # a short match: to 6
    await group.wait_until(message, lambda m: any(b["text"] == "Игра до: 6" for r in m.buttons for b in r))
    await creator.tap(message, "Назад")
    await group.wait_until(message, lambda m: any("Начать" in b["text"] for r in m.buttons for b in r))
    return message


def _seat_buttons(message: StoredMessage) -> list[str]:
    return [b["text"] for r in message.buttons for b in r if b["text"].startswith(("🪑", "Место"))]


async def _play_match(
    driver: Driver, svc: Services, group: SimGroup, users: list[SimUser], preset: str
) -> None:
    def over() -> bool:
        return any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)

    await play_until(driver, svc, users, over, rng=random.Random(5), max_taps=8000)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "over" and table.match is not None
    assert table.rules == {"preset": preset, "options": {"match_target": 6}}
    assert table.match.loser is not None and max(table.match.penalty) >= 6
    # Nobody sat where a blind sits, and no record holds a blind's card as a move.
    blinds = (3,) if preset == "dummy" else (2, 3)
    assert all(table.seats[b] is None for b in blinds)
    for record in table.match.deals:
        assert not any(m["seat"] in blinds and "play" in m for m in record["moves"])
    # In every brag deal the blinds laid their brag cards, taken by their partners (a match to 6 may
    # end with deal 1's шестак, before any brag).
    for record in table.match.deals:
        if record.get("deal_no", 1) > 1 and any("play" in m for m in record["moves"]):  # brag done
            assert set(blinds) <= {m["seat"] for m in record["moves"] if "brag" in m}


async def test_dummy_three_people_play_a_match_with_a_blind(
    app: object, driver: Driver, svc: Services
) -> None:
    users = [driver.add_user(name) for name in NAMES[:3]]
    group = driver.add_group("Козлятник", users)
    message = await _pick(driver, group, users[0], "со слепым", "Со слепым: трое")
    # Three seats to take; the fourth is the blind's, named after its partner once he sits.
    assert len(_seat_buttons(message)) == 3
    for seat, user in enumerate(users):
        await sit(user, message, seat, group)
    assert "🙈 слепой (Борис)" in message.content
    await users[0].tap(message, "Начать")
    # The table shows the blind's turned cards and its stack as play goes on.
    await group.wait_bot_message(lambda m: "🙈 слепой (Борис): открыты" in m.content)
    await _play_match(driver, svc, group, users, "dummy")


async def test_two_dummies_two_people_play_a_match(app: object, driver: Driver, svc: Services) -> None:
    users = [driver.add_user(name) for name in NAMES[:2]]
    group = driver.add_group("Козлятник", users)
    message = await _pick(driver, group, users[0], "с двумя слепыми", "С двумя слепыми: двое")
    assert len(_seat_buttons(message)) == 2
    for seat, user in enumerate(users):
        await sit(user, message, seat, group)
    assert "🙈 слепой (Аня)" in message.content and "🙈 слепой (Борис)" in message.content
    await users[0].tap(message, "Начать")
    await _play_match(driver, svc, group, users, "two_dummies")


async def test_dummy_blind_seat_cannot_be_taken_and_bots_fill_the_others(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await sit(anya, message, 0, group)
    await _pick(driver, group, anya, "со слепым", "Со слепым: трое", message)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: "Свободно 2 места" in m.content)
    await anya.tap(message, "с ботами")
    await group.wait_until(message, lambda m: "Игра началась" in m.content)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "playing"
    assert [s is not None for s in table.seats] == [True, True, True, False]
    assert table.seats[1] is not None and table.seats[1].is_bot  # the bot brags for its blind


async def test_dummy_blind_seat_tap_is_refused(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    seat4 = next(data for label, _, data in buttons(svc, message) if "Место 4" in label)
    await sit(anya, message, 0, group)
    await _pick(driver, group, anya, "со слепым", "Со слепым: трое", message)
    # A client still showing seat 4's button (or a forged one) gets a clear answer; nothing changes.
    inject(message, seat4)
    tap = await anya.tap(message, data=seat4)
    assert tap.show_alert and tap.answer_text == "Это место слепого: его никто не занимает."
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.seats[3] is None and table.seat_of(anya.id) == 0


async def test_dummy_picking_a_blind_preset_stands_up_whoever_sat_in_the_blind_seat(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, gleb = driver.add_user("Аня"), driver.add_user("Глеб")
    group = driver.add_group("Козлятник", [anya, gleb])
    message = await lobby(driver, group, anya)
    await sit(anya, message, 0, group)
    await sit(gleb, message, 3, group)
    await _pick(driver, group, anya, "со слепым", "Со слепым: трое", message)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.seats[3] is None and table.seat_of(gleb.id) is None
    assert "Глеб" not in message.content and "Пара 2: свободно и 🙈 слепой\n" in message.content
    await sit(gleb, message, 1, group)  # he may take a person's seat: now the blind is his
    assert "🙈 слепой (Глеб)" in message.content
