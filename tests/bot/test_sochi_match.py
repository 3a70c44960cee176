"""3-person ``sochi`` in Telegram (RULES.md §5): a lobby of three seats, the talon face up on the table
until the lone player takes it, the discard as a pick-two keyboard in his DM (a forged one refused in
words), individual scores to the goat, and bot players filling seats."""

from __future__ import annotations

import json
import random
from pathlib import Path

from bot.engine import Deal, Discard, Phase, Rules, view_for
from bot.engine.cards import QUEEN_OF_CLUBS, Card
from bot.render.hand_view import hand_content
from bot.render.i18n import Tr
from bot.render.table_view import live_content
from bot.render.words import cards_text
from bot.sandbox import Driver, SimGroup, SimUser, StoredMessage
from bot.storage import MatchState, Seat, Table
from bot.storage.invariants import table_problems
from bot.table import game
from bot.table.codec import Codec
from bot.table.payloads import Act, Sit
from bot.tg.services import Services
from tests.bot.helpers import NAMES, buttons, inject, lobby, play_until, sit

RECORDS = Path(__file__).resolve().parents[1] / "records"


async def _pick_sochi(driver: Driver, group: SimGroup, creator: SimUser, message: StoredMessage) -> None:
    await creator.tap(message, "Правила")
    await group.wait_until(message, lambda m: any("на троих" in b["text"] for r in m.buttons for b in r))
    await creator.tap(message, "сочинский на троих")
    await group.wait_until(message, lambda m: "Сочинский на троих" in m.content)
    await creator.tap(message, "Игра до: 12")  # a short match: to 6
    await group.wait_until(message, lambda m: any(b["text"] == "Игра до: 6" for r in m.buttons for b in r))
    await creator.tap(message, "Назад")
    await group.wait_until(message, lambda m: any("Начать" in b["text"] for r in m.buttons for b in r))


def _seat_buttons(message: StoredMessage) -> list[str]:
    return [b["text"] for r in message.buttons for b in r if b["text"].startswith(("🪑", "Место"))]


async def test_sochi_three_people_play_a_match_to_the_goat(
    app: object, driver: Driver, svc: Services
) -> None:
    users = [driver.add_user(name) for name in NAMES[:3]]
    group = driver.add_group("Козлятник", users)
    message = await lobby(driver, group, users[0])
    await _pick_sochi(driver, group, users[0], message)
    assert len(_seat_buttons(message)) == 3
    assert "счёт у всех свой" in message.content and "Пара 1" not in message.content
    for seat, user in enumerate(users):
        await sit(user, message, seat, group)
    await users[0].tap(message, "Начать")
    await group.wait_until(message, lambda m: "Играют: Аня, Борис, Вера" in m.content)
    # The talon lies face up on the table until the lone player has discarded, then who plays alone.
    await group.wait_bot_message(lambda m: "Прикуп открыт" in m.content and "его берёт" in m.content)

    def over() -> bool:
        return any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)

    await play_until(driver, svc, users, over, rng=random.Random(7), max_taps=8000)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "over" and table.match is not None
    m = table.match
    assert table.rules == {"preset": "sochi", "options": {"match_target": 6}}
    assert len(m.scores) == 3 and m.goats and all(m.scores[g] >= 6 for g in m.goats)
    assert m.loser is None and m.title is not None
    assert table_problems(table, deep=True) == []  # the stored scores and goats recount from the deals
    # The match result names the goat(s) and every person's total.
    final = next(x for x in group.bot_messages if "Ещё партию" in str(x.buttons))
    assert "Козё" in final.content or "Козлы" in final.content
    for seat, user in enumerate(users):
        assert f"{user.name} {m.scores[seat]}" in final.content
    # Every played deal's lone player discarded two cards, never the ♣Q.
    discards = [mv for record in m.deals for mv in record["moves"] if "discard" in mv]
    assert discards and all(len(mv["discard"]) == 2 and "QC" not in mv["discard"] for mv in discards)
    # /score: one tally per person, as a picture with the names in its caption.
    await users[0].send(group, "/score")
    score = await group.wait_bot_message(lambda x: "у всех свой" in x.content)
    assert all(u.name in score.content for u in users)
    assert score.photo_file_id is not None
    # /history names the three people, the goat(s) and the totals; the viewer shows three hands and
    # a played deal's result by its sides.
    await users[0].send(group, "/history")
    listing = await group.wait_text("Последние партии")
    totals = ":".join(str(n) for n in m.scores)
    assert "Аня, Борис, Вера" in listing.content and f"({totals})" in listing.content
    await users[0].tap(listing, "Просмотр 1")
    # Its first deal: played, or void (the ♣Q in the talon) and shown as redealt.
    viewer = await group.wait_bot_message(lambda x: "Просмотр" in x.content and "раздача 1 " in x.content)
    assert all(f"{u.name}: " in viewer.content for u in users)
    # /stats: the goat's own result, no partner of a whole match.
    goat = users[m.goats[0]]
    await goat.send(group, "/stats")
    mine = await group.wait_text(f"Статистика: {goat.name}")
    assert "Партий: 1" in mine.content and "в паре с" not in mine.content
    # 🔁: the rematch lobby keeps the three seats and the rules, and the next match starts.
    await users[1].tap(final, "Ещё партию")
    again = await group.wait_bot_message(lambda x: "Ещё партия" in x.content and "у всех свой" in x.content)
    assert len(_seat_buttons(again)) == 3
    for user in (users[0], users[2]):
        await user.tap(again, "Играю")
    await group.wait_until(again, lambda x: "Ответьте" not in x.content)
    await users[0].tap(again, "Начать")
    started = "🐐 Игра началась!\nИграют: Аня, Борис, Вера"
    await group.wait_until(again, lambda x: started in x.content)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "playing" and len(table.seats) == 3
    assert table.match is not None and table.match.scores == [0, 0, 0]
    await driver.settle()
    assert not driver.failed_calls(), driver.failed_calls()[:3]


async def test_sochi_discard_never_the_queen_and_exactly_two_forged_refused(
    app: object, driver: Driver, svc: Services
) -> None:
    users = [driver.add_user(name) for name in NAMES[:3]]
    group = driver.add_group("Козлятник", users)
    message = await lobby(driver, group, users[0])
    await _pick_sochi(driver, group, users[0], message)
    for seat, user in enumerate(users):
        await sit(user, message, seat, group)
    await users[0].tap(message, "Начать")
    # Deal 1's lone player is to discard (or the talon held the ♣Q and the dealer deals again).

    async def discarding() -> tuple[int, Deal] | None:
        table = await svc.storage.load_table(group.id, None)
        assert table is not None
        deal = game.deal_of(table)
        if deal is not None and deal.phase is Phase.DISCARD and deal.to_act is not None:
            return deal.to_act, deal
        return None

    found = None
    for _ in range(50):
        found = await discarding()
        if found is not None:
            break
        await driver.world.wait_change(0.5)
    assert found is not None
    lone, deal = found
    user = users[lone]
    hand = await user.dm.wait_bot_message(lambda x: "Снесите две карты" in x.content and bool(x.buttons))
    labels = [label for label, _, _ in buttons(svc, hand)]
    assert any(label.startswith("Снести: выбрано 0 из 2") for label in labels)
    view = view_for(deal, lone)
    others = [c for c in view.hand if c != QUEEN_OF_CLUBS]
    template = next(b for _, b, _ in buttons(svc, hand))

    def forged(cards: tuple[Card, ...]) -> str:
        t = template
        return svc.codec.data(t.chat_id, t.thread_id, t.table_id, t.deal_seq, Act(Discard(cards)))

    # The ♣Q on the keyboard, and confirming before two are ticked: answered in words.
    assert QUEEN_OF_CLUBS in view.hand
    tap = await user.tap(hand, "Д♣")
    assert tap.show_alert and tap.answer_text == "Даму треф сносить нельзя."
    tap = await user.tap(hand, "Снести: выбрано 0 из 2")
    assert tap.show_alert and tap.answer_text == "Снести нужно ровно две карты: выбрано 0."
    # A forged discard with the ♣Q: refused in words, nothing changes.
    inject(hand, forged((QUEEN_OF_CLUBS, others[0])))
    tap = await user.tap(hand, data=forged((QUEEN_OF_CLUBS, others[0])))
    assert tap.show_alert and tap.answer_text == "Даму треф сносить нельзя."
    # Three cards: refused, exactly two.
    data = forged(tuple(others[:3]))
    inject(hand, data)
    tap = await user.tap(hand, data=data)
    assert tap.show_alert and tap.answer_text == "Снести нужно ровно две карты: выбрано 3."
    # Someone else's forged discard: not their turn.
    other = users[(lone + 1) % 3]
    dm = await other.dm.wait_bot_message(lambda x: "раздача №" in x.content)
    data = forged(tuple(others[:2]))
    inject(dm, data)
    tap = await other.tap(dm, data=data)
    assert tap.show_alert
    table = await svc.storage.load_table(group.id, None)
    assert table is not None
    after = game.deal_of(table)
    assert after is not None and after.phase is Phase.DISCARD and after.to_act == lone


async def test_sochi_bot_fills_an_empty_seat(app: object, driver: Driver, svc: Services) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    message = await lobby(driver, group, anya)
    await sit(anya, message, 0, group)
    await sit(boris, message, 3, group)  # seat 4: he stands up when the table has only three
    await _pick_sochi(driver, group, anya, message)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and len(table.seats) == 3 and table.seat_of(boris.id) is None
    assert "Борис" not in message.content
    # A stale button for seat 4 is refused in words.
    seat4 = svc.codec.data(group.id, None, table.table_id, 0, Sit(3))
    shown = message.reply_markup
    inject(message, seat4)
    tap = await boris.tap(message, data=seat4)
    assert tap.show_alert and tap.answer_text == "За этим столом такого места нет."
    message.reply_markup = shown  # the client shows the lobby's own keyboard again
    await sit(boris, message, 1, group)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: "Свободно 1 место" in m.content)
    await anya.tap(message, "с ботами")
    await group.wait_until(message, lambda m: "Игра началась" in m.content)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "playing"
    assert table.seats[2] is not None and table.seats[2].is_bot
    # The bot plays its part: the match goes on past the first deal.
    users = [anya, boris]

    def second_deal() -> bool:
        return any("Раздача №2" in m.content or "раздача №2" in m.content for m in group.bot_messages)

    await play_until(driver, svc, users, second_deal, rng=random.Random(2), max_taps=2000)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.match is not None
    assert any(mv["seat"] == 2 for record in table.match.deals for mv in record["moves"])


def test_sochi_talon_shown_to_all_until_the_lone_player_discards() -> None:
    """The table and every DM show the talon face up while the lone player takes it; once he has
    discarded it is his (no longer shown), the table names who plays alone, and only he sees his two
    discards. In ru and en."""
    rules = Rules.make("sochi")
    seats: list[Seat | None] = [Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate("ABC")]
    table = Table(table_id="so1", chat_id=-100, creator_id=1, rules=rules.to_json(), seats=seats)
    rng = random.Random(3)
    game.start_match(table, rng)
    deal = game.deal_of(table)
    assert deal is not None and deal.phase is Phase.DISCARD and deal.to_act is not None
    lone = deal.to_act
    codec = Codec(b"k")
    talon = {"ru": "Прикуп открыт", "en": "The talon, face up"}
    alone = {"ru": "В одиночку против двоих", "en": "Alone against two"}
    for lang in ("ru", "en"):
        tr = Tr(lang)
        shown = cards_text(tr, deal.talon.talon)
        assert f"{talon[lang]}: {shown}" in live_content(tr, table, deal).text
        assert all(
            f"{talon[lang]}: {shown}" in hand_content(tr, codec, table, deal, s).text for s in range(3)
        )
    hand = view_for(deal, lone).hand
    discard = Discard(tuple(c for c in hand if c != QUEEN_OF_CLUBS)[:2])
    game.apply(table, lone, discard, rng)
    after = game.deal_of(table)
    assert after is not None and after.phase is Phase.PLAY
    for lang in ("ru", "en"):
        tr = Tr(lang)
        live = live_content(tr, table, after).text
        assert talon[lang] not in live and f"{alone[lang]}: {'ABC'[lone]}" in live
        gone = cards_text(tr, discard.cards)
        mine = hand_content(tr, codec, table, after, lone).text
        assert gone in mine and ("взятки 0 : 0" if lang == "ru" else "tricks 0 : 0") in mine
        assert all(gone not in hand_content(tr, codec, table, after, s).text for s in range(3) if s != lone)


async def test_sochi_lobby_has_three_seats_and_another_preset_four_again(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    assert len(_seat_buttons(message)) == 4
    await _pick_sochi(driver, group, anya, message)
    assert len(_seat_buttons(message)) == 3
    await anya.tap(message, "Правила")
    await group.wait_until(message, lambda m: any("классический" in b["text"] for r in m.buttons for b in r))
    await anya.tap(message, "классический")
    await anya.tap(message, "Назад")
    await group.wait_until(message, lambda m: "Пара 1" in m.content and len(_seat_buttons(m)) == 4)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and len(table.seats) == 4
    # The chat remembers sochi once played: a new lobby there has three seats from the start.
    settings = await svc.storage.chat_settings(group.id)
    settings.rules = {"preset": "sochi", "options": {}}
    await svc.storage.save_chat_settings(group.id, settings)
    await svc.storage.delete_table(table)
    svc.presenter.forget(table)
    fresh = await lobby(driver, group, anya)
    assert len(_seat_buttons(fresh)) == 3 and "счёт у всех свой" in fresh.content


def test_sochi_talon_queen_redeal_is_told_on_the_next_table() -> None:
    """The ♣Q in the talon voids the deal and the same dealer deals again: the table of the new deal
    says why, in ru and en."""
    record = json.loads((RECORDS / "sochi_talon_redeal.json").read_text())
    void = game.replay(record)
    assert void.result is not None and "talon_queen" in void.result.events
    rules = Rules.make("sochi")
    seats: list[Seat | None] = [Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate("ABC")]
    table = Table(table_id="so2", chat_id=-100, creator_id=1, rules=rules.to_json(), seats=seats)
    again = Deal.shuffled(rules, random.Random(1), dealer=record["dealer"])
    table.match = MatchState(
        first_dealer=record["dealer"], dealer=record["dealer"], deals=[record], deal_seq=2, scores=[0, 0, 0]
    )
    dealer = "ABC"[record["dealer"]]
    ru = live_content(Tr("ru"), table, again).text
    assert f"Пересдача: дама треф в прикупе. Снова сдаёт {dealer}." in ru
    en = live_content(Tr("en"), table, again).text
    assert f"Redeal: the ♣Q is in the talon. {dealer} deals again." in en
