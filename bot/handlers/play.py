"""Every button tap: decode, check it belongs to this person and deal, apply, save, render.

A tap is read by the codec (:meth:`~bot.handlers.codec.Codec.read`) into a typed payload and routed
by its type; a move goes through the table use case (:meth:`~bot.handlers.usecase.Tables.run`) and
its snapshot is handed to the renderers.
"""

from __future__ import annotations

import logging
import time
from html import escape

from telegram import Update

from bot.engine import Discard, IllegalMoveError, Phase, Play
from bot.engine.cards import QUEEN_OF_CLUBS
from bot.engine.errors import Reason
from bot.engine.sochi import N_DISCARDS
from bot.handlers.coach import hint_tap, review_tap
from bot.handlers.codec import (
    Act,
    Back,
    BadData,
    Button,
    Export,
    Held,
    Hint,
    Hints,
    Language,
    LobbyButton,
    OnTimeout,
    Rematch,
    Review,
    StopGame,
    Tick,
    Top,
    TurnTime,
    View,
)
from bot.handlers.commands import language_tap, stop_tap
from bot.handlers.common import Context, alert, private_tapper, quiet_answer, seat_of_hand, services, user_tr
from bot.handlers.game import Notice, Progress, Refusal, decided_himself
from bot.handlers.hand_view import PICK_PHASES, pick_choices, picked
from bot.handlers.lobby import lobby_tap
from bot.handlers.outbox import Content
from bot.handlers.rematch import rematch_tap
from bot.handlers.services import Services, TableKey, taken_at
from bot.handlers.settings_menu import settings_tap
from bot.handlers.social import export_tap, top_tap, view_tap
from bot.handlers.usecase import Change, Snapshot
from bot.handlers.words import SUIT_SYMBOLS, decider
from bot.storage import StaleWrite, Table
from bot.storage.models import Picking

_LOG = logging.getLogger(__name__)

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


async def on_tap(update: Update, context: Context) -> None:
    """Route a callback query by its payload; bad input gets a short alert and changes nothing."""
    query = update.callback_query
    if query is None:
        return
    svc = services(context)
    try:
        try:
            button, payload = svc.codec.read(query.data)
        except BadData:
            raise Refusal("alert.unknown_button") from None
        if isinstance(payload, LobbyButton):
            await lobby_tap(query, button, payload, svc, context)
        elif isinstance(payload, Act | Held):
            await play_tap(update, button, payload, svc, taken_at(context))
        elif isinstance(payload, Tick):
            await pick_tap(update, button, payload, svc)
        elif isinstance(payload, Rematch):
            await rematch_tap(update, button, svc)
        elif isinstance(payload, StopGame):
            await stop_tap(update, button, svc, context)
        elif isinstance(payload, Language):
            await language_tap(update, button, payload, svc, context)
        elif isinstance(payload, TurnTime | OnTimeout | Hints):
            await settings_tap(update, button, payload, svc)
        elif isinstance(payload, Back):
            await back_tap(update, button, svc)
        elif isinstance(payload, View):
            await view_tap(update, button, payload, svc)
        elif isinstance(payload, Top):
            await top_tap(update, button, payload, svc)
        elif isinstance(payload, Export):
            await export_tap(update, button, payload, svc)
        elif isinstance(payload, Review):
            await review_tap(update, button, payload, svc)
        elif isinstance(payload, Hint):
            await hint_tap(update, button, payload, svc)
        else:  # pragma: no cover - every payload type is routed above
            raise Refusal("alert.unknown_button")
    except Notice as notice:  # a harmless repeat: a toast, nothing to read and dismiss
        tr = await user_tr(svc, query.from_user)
        await quiet_answer(query, tr(notice.key, **notice.values))
    except Refusal as refusal:
        tr = await user_tr(svc, query.from_user)
        await alert(query, tr(refusal.key, **refusal.values))
    except StaleWrite:
        tr = await user_tr(svc, query.from_user)
        await alert(query, tr("alert.busy"))


async def play_tap(
    update: Update, button: Button, payload: Act | Held, svc: Services, started: float | None = None
) -> None:
    """A card or a decision in a player's DM; ``started``: when the update was taken (for handling times)."""
    started = time.perf_counter() if started is None else started
    query = update.callback_query
    assert query is not None
    user = private_tapper(query)
    await play_move(svc, button, payload, user.id, started)
    await quiet_answer(query)


async def play_move(
    svc: Services, button: Button, payload: Act | Held, user_id: int, started: float | None = None
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

    snap, _ = await svc.run(key, change, taken=started)
    assert snap is not None
    await svc.publish(snap)
    # The handling time of a move, network excluded: the answer to the tap is the first Telegram call.
    svc.stats.tap_times.append(time.perf_counter() - started)


async def pick_tap(update: Update, button: Button, payload: Tick, svc: Services) -> None:
    """A card ticked or unticked in a choice of several (the exchange's give, sochi's discard), kept in
    the table.

    ``C`` alone (the confirm button before the count is right) only says how many to tick. A tick
    holds off the turn's reminder and timeout: they count from the last tick.
    """
    query = update.callback_query
    assert query is not None
    user = private_tapper(query)
    await pick_move(svc, button, payload, user.id)
    await quiet_answer(query)


async def pick_move(svc: Services, button: Button, payload: Tick, user_id: int) -> None:
    """Tick or untick ``user_id``'s card in a choice of several (see :func:`pick_tap`); raises
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
            deal_seq=m.deal_seq, moves=moves, seat=seat, cards=chosen, at=svc.settings.clock()
        )
        decided_himself(table, seat)

    snap, _ = await svc.run(key, change)
    assert snap is not None
    await svc.publish(snap)


async def back_tap(update: Update, button: Button, svc: Services) -> None:
    """ "I'm back": the person decides for their seat again (the tap may come from the group or the DM)."""
    query = update.callback_query
    assert query is not None
    user = query.from_user
    snap = await back_move(svc, button, user.id)
    tr = await user_tr(svc, user)
    await quiet_answer(query, tr("timer.back_toast"))
    if query.message is not None:
        # Its keyboard goes even when the person was back already (a keyboard a restart left behind).
        lang_tr = tr if query.message.chat.id == user.id else await svc.presenter.group_tr(snap.table.chat_id)
        name = escape(user.first_name)
        svc.outbox.edit(
            query.message.chat.id, query.message.message_id, Content(lang_tr("timer.back", name=name))
        )


async def back_move(svc: Services, button: Button, user_id: int) -> Snapshot:
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

    snap, was_away = await svc.run((button.chat_id, button.thread_id), lambda c: change(c.table))
    assert snap is not None
    if was_away:
        await svc.publish(snap)
    return snap
