"""The moves a person makes at a table, whichever front end they tap in (a DM's keyboard, the live
table's page): a card or a decision (:func:`play_move`), a card ticked in a choice of several
(:func:`pick_move`, the exchange's give and sochi's discard), and why one is refused.

Each goes through the table use case (:meth:`bot.table.usecase.Tables.run`: one compare-and-set
save) and publishes its snapshot; a refusal raises :class:`~bot.table.game.Refusal` (an alert) or
:class:`~bot.table.game.Notice` (a toast: a harmless repeat). A tick holds off the turn's reminder
and timeout: they count from the last tick.

A hand's button is for the decision its keyboard was drawn at (:func:`drawn_for_now`): a tap on an
older keyboard of the deal (a late double tap, an earlier message of the hand, a page not yet
updated) is never taken on a later turn.
"""

from __future__ import annotations

import time

from bot.engine import Action, Deal, Discard, ExchangeGive, IllegalMoveError, Phase, Play
from bot.engine.cards import QUEEN_OF_CLUBS, Card
from bot.engine.errors import Reason
from bot.engine.sochi import N_DISCARDS
from bot.storage import Table
from bot.storage.models import Picking
from bot.table.codec import Button
from bot.table.core import TableKey
from bot.table.game import SUIT_SYMBOLS, Notice, Progress, Refusal, decided_himself, decider
from bot.table.payloads import Act, Held, Tick
from bot.table.usecase import Change, Snapshot, Tables

#: The alert each engine refusal gets (every reason has one: tests/bot/test_reasons.py).
REASON_KEYS: dict[Reason, str] = {
    Reason.DEAL_OVER: "alert.stale_deal",
    Reason.NOT_YOUR_TURN: "alert.not_your_turn",
    Reason.WRONG_PHASE: "alert.wrong_phase",
    Reason.NOT_IN_HAND: "alert.not_in_hand",
    Reason.FIRST_LEAD: "alert.first_lead",
    Reason.TRUMP_LEAD: "alert.lead_rule",
    Reason.MUST_FOLLOW: "alert.must_follow",
    Reason.MUST_FOLLOW_TRUMP: "alert.must_follow_trump",
    Reason.MUST_TRUMP: "alert.must_trump",
    Reason.BY_THE_LAST: "alert.by_the_last",
    Reason.NOT_ALLOWED: "alert.illegal",
}


def reason_key(error: IllegalMoveError) -> str:
    """The alert for an engine refusal."""
    return REASON_KEYS.get(error.reason, "alert.illegal")


def refusal_of(error: IllegalMoveError) -> Refusal:
    """The alert for an engine refusal, naming what is required (the suit to follow)."""
    if error.reason is Reason.MUST_FOLLOW and error.suit is not None:
        return Refusal("alert.must_follow_suit", suit=SUIT_SYMBOLS[error.suit])
    return Refusal(reason_key(error))


def discard_refusal(action: Discard, error: IllegalMoveError) -> Refusal:
    """Why a discard (a forged or stale button) was refused, in words: never the ♣Q, exactly two."""
    if QUEEN_OF_CLUBS in action.cards:
        return Refusal("alert.discard_queen")
    if len(set(action.cards)) != N_DISCARDS:
        return Refusal("alert.discard_two", n=N_DISCARDS, k=len(set(action.cards)))
    return refusal_of(error)


def seat_of_hand(table: Table | None, button: Button, user_id: int) -> int:
    """The seat of ``user_id`` at the table whose hand ``button`` stands in, while the deal it names is
    in play; refused as stale (another table, another deal) or not seated."""
    if table is None or table.table_id != button.table_id:
        raise Refusal("alert.stale")
    m = table.match
    if table.status != "playing" or m is None or m.deal_seq != button.deal_seq:
        raise Refusal("alert.stale_deal")
    seat = table.seat_of(user_id)
    if seat is None:
        raise Refusal("alert.not_seated")
    return seat


def drawn_for_now(button: Button, deal: Deal) -> bool:
    """Whether ``button``'s keyboard was drawn for the decision open now: the count of moves it carries
    is the deal's. A button without one (a waiting seat's hand, not a hand's, or sent before the count
    was carried) is taken as it always was: the deal's number is all it is checked by."""
    return button.moves is None or button.moves == len(deal.moves)


PICK_PHASES = frozenset({Phase.EXCHANGE_GIVE, Phase.DISCARD})


def pick_choices(legal: tuple[Action, ...] | list[Action]) -> list[ExchangeGive | Discard]:
    """The choices of several cards among ``legal`` (all of one kind and size)."""
    return [a for a in legal if isinstance(a, ExchangeGive | Discard)]


def picked(table: Table, seat: int, moves: int) -> list[Card]:
    """The cards ``seat`` has ticked for the decision now open (none if the ticks are of an earlier one)."""
    m = table.match
    p = m.picking if m is not None else None
    if m is None or p is None or (p.deal_seq, p.moves, p.seat) != (m.deal_seq, moves, seat):
        return []
    return [Card.parse(code) for code in p.cards]


async def play_move(
    tables: Tables, button: Button, payload: Act | Held, user_id: int, started: float | None = None
) -> None:
    """Apply ``user_id``'s card or decision from the hand ``button`` stands in (a DM's keyboard or the
    live table's page): raises :class:`Refusal` (or :class:`Notice`) saying why not."""
    started = time.perf_counter() if started is None else started
    # A card that may not be played now is tried anyway: the engine says why not.
    action = payload.action if isinstance(payload, Act) else Play(payload.card)
    key: TableKey = (button.chat_id, button.thread_id)

    def change(c: Change) -> Progress:
        table = c.table
        seat = seat_of_hand(table, button, user_id)
        assert table is not None
        person_seat = seat
        deal = c.deal
        to_act = deal.to_act if deal is not None else None
        if to_act is not None and decider(table, to_act) == seat != to_act:
            seat = to_act  # he brags for his blind: the decision is the blind seat's
        try:
            if deal is not None and not drawn_for_now(button, deal):
                # Drawn for an earlier decision: never taken now. Why it would be refused anyway (a
                # double tap, not the seat's turn) is said as for any tap; else, that it is outdated.
                error = deal.why_not(seat, action)
                raise error if error is not None else Refusal("alert.stale_move")
            progress = c.play(seat, action)
        except IllegalMoveError as e:
            moves = c.deal.moves if c.deal is not None else []
            # A second tap (its keyboard not yet updated) is a harmless repeat: a toast, not an
            # alert to dismiss. For a card, the card (not the turn) is why.
            if isinstance(action, Play) and (seat, action) in moves:
                raise Notice("alert.already_played") from None
            own = [a for s, a in moves if s == seat]
            if own and own[-1] == action:
                raise Notice("alert.already_done") from None
            recent = [s for s, _ in moves[-len(table.seats) :]]
            if e.reason is Reason.NOT_YOUR_TURN and seat in recent:
                # A quick second tap right after the seat's own decision, on another card of the old
                # keyboard or of the one just redrawn: nothing to read and dismiss.
                raise Notice("alert.not_your_turn") from None
            if isinstance(action, Discard):
                raise discard_refusal(action, e) from None
            raise refusal_of(e) from None
        if table.match is not None:
            table.match.picking = None  # a choice in progress ends with any move
        decided_himself(table, person_seat)  # turn timers: no longer away, timeouts in a row start over
        return progress

    snap, _ = await tables.run(key, change, taken=started)
    assert snap is not None
    await tables.publish(snap)
    # The handling time of a move, network excluded: the answer to the tap is the first Telegram call.
    tables.core.stats.tap_times.append(time.perf_counter() - started)


async def pick_move(tables: Tables, button: Button, payload: Tick, user_id: int) -> None:
    """Tick or untick ``user_id``'s card in a choice of several (see the module docstring); raises
    :class:`Refusal` saying why not."""
    card = payload.card
    key: TableKey = (button.chat_id, button.thread_id)

    def change(c: Change) -> None:
        table = c.table
        seat = seat_of_hand(table, button, user_id)
        assert table is not None and table.match is not None
        m = table.match
        deal = c.deal
        if deal is None or deal.to_act != seat:
            raise Refusal("alert.not_your_turn")
        gives = pick_choices(deal.legal_actions(seat))
        if deal.phase not in PICK_PHASES or not gives:
            raise Refusal("alert.wrong_phase")
        if not drawn_for_now(button, deal):
            raise Refusal("alert.stale_move")  # a tick of an earlier choice's keyboard
        discard = deal.phase is Phase.DISCARD
        need = len(gives[0].cards)
        moves = len(deal.moves)
        chosen = [c.code for c in picked(table, seat, moves)]
        if card is None:
            raise Refusal("alert.discard_two" if discard else "alert.pick_count", n=need, k=len(chosen))
        if not any(card in a.cards for a in gives):
            if discard:
                raise Refusal("alert.discard_queen" if card == QUEEN_OF_CLUBS else "alert.not_in_hand")
            raise Refusal("alert.pick_card")
        if card.code in chosen:
            chosen.remove(card.code)
        elif len(chosen) < need:
            chosen.append(card.code)
        elif need == 1:
            chosen = [card.code]
        else:
            raise Refusal("alert.pick_full", n=need)
        # A tick is the person at work on their turn: it counts as present for the turn timers (no
        # longer away, timeouts in a row start over) and the timers count from it (timers.held_until).
        m.picking = Picking(
            deal_seq=m.deal_seq, moves=moves, seat=seat, cards=chosen, at=tables.core.settings.clock()
        )
        decided_himself(table, seat)

    snap, _ = await tables.run(key, change)
    assert snap is not None
    await tables.publish(snap)


async def back_move(tables: Tables, button: Button, user_id: int) -> Snapshot:
    """ "I'm back" from ``user_id`` (a group's or DM's button, or the live table's page): they decide
    for their seat again; raises :class:`Refusal` saying why not."""

    def change(table: Table | None) -> bool:
        if table is None or table.table_id != button.table_id or table.status != "playing":
            raise Refusal("alert.stale")
        seat = table.seat_of(user_id)
        if seat is None:
            raise Refusal("alert.not_seated")
        was_away = seat in table.away
        decided_himself(table, seat)
        return was_away

    snap, was_away = await tables.run((button.chat_id, button.thread_id), lambda c: change(c.table))
    assert snap is not None
    if was_away:
        await tables.publish(snap)
    return snap
