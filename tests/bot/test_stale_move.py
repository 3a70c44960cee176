"""A hand's button is for the decision its keyboard was drawn at: a tap on an older keyboard of the same
deal (a double tap arriving late, an earlier DM of the hand) plays nothing on a later turn."""

from __future__ import annotations

import dataclasses
import random

from bot.engine import Play
from bot.engine.cards import QUEEN_OF_CLUBS, Card
from bot.render.hand_view import hand_content
from bot.render.i18n import Tr
from bot.sandbox import Driver, SimGroup, SimUser, StoredMessage
from bot.storage import Table
from bot.table import game
from bot.table.codec import Button, Codec
from bot.table.payloads import b36
from bot.tg.services import Services
from tests.bot.helpers import buttons, inject, play_until, start_game, started_table, table_of

STALE = "Эта клавиатура устарела: ход уже другой. Ничего не сыграно."


async def _version(svc: Services, group: SimGroup) -> object:
    """What a refused tap must not change: the seats, the match and the deal's moves."""
    table = await table_of(svc, group)
    assert table is not None
    return (table.seats, table.status, table.match.model_dump() if table.match else None)


def _plays(svc: Services, message: StoredMessage) -> dict[str, str]:
    """The cards a hand's keyboard offers to play, by card code: their callback data."""
    return {b.payload[2:]: d for _, b, d in buttons(svc, message) if b.payload.startswith("Ap")}


def _current_plays(svc: Services, anya: SimUser) -> dict[str, str] | None:
    """Аня's plays on her newest keyboard if it is drawn for the decision open now (hers)."""
    shown = svc.presenter.tables()
    deal = game.deal_of(shown[0]) if shown else None
    if deal is None or deal.to_act != 0 or not anya.dm.bot_messages:
        return None
    hand = anya.dm.bot_messages[-1]
    plays = _plays(svc, hand)
    legal = {a.card.code for a in deal.legal_actions(0) if isinstance(a, Play)}
    drawn_at = {b.moves for _, b, _ in buttons(svc, hand) if b.payload.startswith("Ap")}
    if set(plays) != legal or drawn_at != {len(deal.moves)}:
        return None
    return plays


async def _old_card_at_a_later_turn(
    driver: Driver, svc: Services, anya: SimUser, rng: random.Random
) -> tuple[StoredMessage, str, str, dict[str, str]]:
    """Аня plays a card from a keyboard offering several; the deal comes round to her again with a card
    of that keyboard still hers to play. Returns her hand message, that card, its button's data as the
    old keyboard had it, and the plays of the keyboard drawn for this turn."""
    for _attempt in range(20):
        await play_until(driver, svc, [anya], lambda: len(_current_plays(svc, anya) or ()) >= 2, rng=rng)
        hand = anya.dm.bot_messages[-1]
        old = _current_plays(svc, anya)
        tables = svc.presenter.tables()
        assert old is not None and tables and tables[0].match is not None
        seq, moves = tables[0].match.deal_seq, len(tables[0].match.current["moves"])
        tap = await anya.tap(hand, data=old.pop(next(iter(old))))
        assert not tap.show_alert, tap.answer_text

        def later_turn(
            seq: int = seq, moves: int = moves, old: dict[str, str] = old
        ) -> tuple[str, dict[str, str]] | None:
            # Her turn again in the same deal, with a card of the old keyboard legal now ("": none).
            shown = svc.presenter.tables()
            table = shown[0] if shown else None
            deal = game.deal_of(table) if table is not None else None
            if table is None or table.match is None or deal is None or table.match.deal_seq != seq:
                return "", {}  # the deal is over
            current = _current_plays(svc, anya)
            if deal.to_act != 0 or len(deal.moves) <= moves or current is None:
                return None
            return next((c for c in old if deal.can(0, Play(Card.parse(c)))), ""), current

        found, current = await driver.wait_for(later_turn, what="Аня's next turn in the same deal")
        if found:
            return anya.dm.bot_messages[-1], found, old[found], current
    raise AssertionError("never a later turn in the deal with a card of the old keyboard")


def _deal_no(svc: Services) -> int:
    """The number of the deal in play."""
    shown = svc.presenter.tables()
    assert shown and shown[0].match is not None and shown[0].match.current is not None
    return int(shown[0].match.current["deal_no"])


def _played(table: Table | None, deal_no: int, card: str) -> list[dict[str, object]]:
    """The moves that played ``card`` in deal ``deal_no`` of the match (in play, or just ended by it)."""
    assert table is not None and table.match is not None
    # The latest record of that number: a void deal is dealt again under the same number.
    records = [
        r for r in (*table.match.deals, table.match.current) if r is not None and r["deal_no"] == deal_no
    ]
    return [move for move in records[-1]["moves"] if move.get("play") == card]


async def _at_her_turn(
    driver: Driver, svc: Services, anya: SimUser
) -> tuple[StoredMessage, dict[str, str], Button]:
    """Аня's hand at a card of hers to play, drawn for it: the message, its plays, and one play's button."""
    plays = await driver.wait_for(lambda: _current_plays(svc, anya), what="Аня's turn to play a card")
    return anya.dm.bot_messages[-1], plays, svc.codec.unpack(next(iter(plays.values())))


async def test_a_tap_on_an_older_keyboard_of_the_deal_plays_nothing_and_the_current_one_plays(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    hand, card, stale, plays = await _old_card_at_a_later_turn(driver, svc, anya, random.Random(7))
    before = await _version(svc, group)
    inject(hand, stale)
    tap = await anya.tap(hand, "👆")
    assert tap.show_alert and tap.answer_text == STALE, (card, tap.answer_text)
    assert await _version(svc, group) == before
    # The same card on the keyboard drawn for this turn is played.
    assert plays[card] != stale
    inject(hand, plays[card])
    deal_no = _deal_no(svc)
    played = await anya.tap(hand, "👆")
    assert not played.show_alert, played.answer_text
    assert _played(await table_of(svc, group), deal_no, card) == [{"seat": 0, "play": card}]


async def test_a_forged_count_of_moves_is_refused(app: object, driver: Driver, svc: Services) -> None:
    """A signed button with another count (an older or a later one) plays nothing; a count changed in
    the data breaks its signature."""
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    await play_until(driver, svc, [anya], lambda: _current_plays(svc, anya) is not None, rng=random.Random(8))
    hand, plays, button = await _at_her_turn(driver, svc, anya)
    assert button.moves is not None
    before = await _version(svc, group)
    for moves in (button.moves + 1, button.moves - 1, button.moves + 36):
        if moves < 0:
            continue
        inject(hand, svc.codec.pack(dataclasses.replace(button, moves=moves)))
        tap = await anya.tap(hand, "👆")
        assert tap.show_alert and tap.answer_text == STALE, moves
    real = svc.codec.pack(button)
    fields = real.split(".")
    fields[5] = b36(button.moves + 1)
    inject(hand, ".".join(fields))
    tap = await anya.tap(hand, "👆")
    assert tap.show_alert and tap.answer_text == "Эта кнопка не работает."
    assert await _version(svc, group) == before
    assert real in plays.values()


async def test_a_hand_button_sent_before_the_count_is_taken_as_before(
    app: object, driver: Driver, svc: Services
) -> None:
    """Callback data without the count (``k1``, drawn by a release before it, still in play during a
    rolling upgrade) is checked by its table and deal alone, as it was: its card is played."""
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    await play_until(driver, svc, [anya], lambda: _current_plays(svc, anya) is not None, rng=random.Random(9))
    hand, _, button = await _at_her_turn(driver, svc, anya)
    old_format = svc.codec.pack(dataclasses.replace(button, moves=None))
    assert old_format.startswith("k1.") and old_format.count(".") == 6
    inject(hand, old_format)
    deal_no = _deal_no(svc)
    tap = await anya.tap(hand, "👆")
    assert not tap.show_alert, tap.answer_text
    card = button.payload[2:]
    assert _played(await table_of(svc, group), deal_no, card) == [{"seat": 0, "play": card}]


def test_only_the_hand_to_act_carries_the_count_so_a_waiting_hand_stays_as_it_was() -> None:
    """Only the keyboard of the seat to act carries the count: a waiting seat's hand would otherwise
    change at every move of the others, and its message be edited for its buttons alone, spending the
    chat's Bot API budget."""
    tr, codec = Tr("ru"), Codec(b"k")
    table = started_table("classic", 4)
    deal = game.deal_of(table)
    assert deal is not None

    def counts(seat: int) -> set[int | None]:
        markup = hand_content(tr, codec, table, deal, seat).markup
        assert markup is not None
        return {codec.read(str(b.callback_data))[0].moves for row in markup.inline_keyboard for b in row}

    for _ in range(6):  # moves of the deal's opening, whatever they are
        before = {seat: hand_content(tr, codec, table, deal, seat).markup for seat in range(4)}
        acted = deal.to_act
        assert acted is not None
        assert counts(acted) == {len(deal.moves)}
        legal = deal.legal_actions(acted)
        # Anything but the ♣Q, whose catch would end the deal.
        deal.apply(acted, next((a for a in legal if a != Play(QUEEN_OF_CLUBS)), legal[0]))
        assert deal.to_act is not None
        for seat in set(range(4)) - {acted, deal.to_act}:
            assert counts(seat) == {None}
            assert hand_content(tr, codec, table, deal, seat).markup == before[seat], seat
