"""Every button tap: decode, check it belongs to this person and deal, apply, save, render."""

from __future__ import annotations

import logging
import random
import secrets
import time

from telegram import Chat, Update

from bot.engine import Card, IllegalMoveError, KozelError, Play
from bot.handlers import game
from bot.handlers.codec import BadData, Button
from bot.handlers.commands import language_tap
from bot.handlers.common import Context, alert, quiet_answer, services, user_tr
from bot.handlers.game import Progress, Refusal
from bot.handlers.lobby import LOBBY_PAYLOADS, lobby_tap
from bot.handlers.services import Services, TableKey
from bot.storage import MatchState, StaleWrite, Table

_LOG = logging.getLogger(__name__)

#: Engine refusal reasons (IllegalMoveError messages) and the alert each one gets.
_REASONS = (
    ("turn", "alert.not_your_turn"),
    ("is to ", "alert.not_your_turn"),
    ("not in his hand", "alert.not_in_hand"),
    ("must follow", "alert.must_follow"),
    ("must play a trump", "alert.must_trump"),
    ("may not be led", "alert.lead_rule"),
    ("first lead", "alert.lead_rule"),
    ("must lead", "alert.lead_rule"),
    ("deal is over", "alert.stale"),
)


def reason_key(error: IllegalMoveError) -> str:
    """The alert for an engine refusal."""
    text = str(error)
    return next((key for needle, key in _REASONS if needle in text), "alert.illegal")


async def on_tap(update: Update, context: Context) -> None:
    """Route a callback query by its payload; bad input gets a short alert and changes nothing."""
    query = update.callback_query
    if query is None:
        return
    svc = services(context)
    try:
        try:
            button = svc.codec.unpack(query.data)
        except BadData:
            raise Refusal("alert.unknown_button") from None
        op = button.payload[0]
        if op in LOBBY_PAYLOADS:
            await lobby_tap(query, button, svc, context)
        elif op in "AX":
            await play_tap(update, button, svc)
        elif op == "M":
            await rematch_tap(update, button, svc)
        elif op == "N":
            await language_tap(update, button, svc)
        else:
            raise Refusal("alert.unknown_button")
    except Refusal as refusal:
        tr = await user_tr(svc, query.from_user)
        await alert(query, tr(refusal.key, **refusal.values))
    except StaleWrite:
        tr = await user_tr(svc, query.from_user)
        await alert(query, tr("alert.busy"))


async def play_tap(update: Update, button: Button, svc: Services) -> None:
    """A card or a decision in a player's DM."""
    started = time.perf_counter()
    query = update.callback_query
    assert query is not None
    chat = query.message.chat if query.message is not None else None
    user = query.from_user
    if chat is None or chat.type != Chat.PRIVATE or chat.id != user.id:
        raise Refusal("alert.unknown_button")
    try:
        action = game.decode_action(button.payload[1:]) if button.payload[0] == "A" else None
        if action is None:
            action = Play(Card.parse(button.payload[1:]))
    except KozelError:
        raise Refusal("alert.unknown_button") from None
    key: TableKey = (button.chat_id, button.thread_id)

    def change(table: Table | None) -> Progress:
        if table is None or table.table_id != button.table_id:
            raise Refusal("alert.stale")
        if table.status != "playing" or table.match is None or table.match.deal_seq != button.deal_seq:
            raise Refusal("alert.stale_deal")
        seat = table.seat_of(user.id)
        if seat is None:
            raise Refusal("alert.not_seated")
        try:
            return game.apply(table, seat, action, svc.rng)
        except IllegalMoveError as e:
            raise Refusal(reason_key(e)) from None

    table, progress = await svc.transact(key, change)
    assert table is not None
    await svc.after_change(table, progress)
    # The handling time of a move, network excluded: the answer below is the first Telegram call.
    svc.stats.tap_times.append(time.perf_counter() - started)
    await quiet_answer(query)


async def rematch_tap(update: Update, button: Button, svc: Services) -> None:
    """Another match at the same table, same seats and rules; any seated person may ask."""
    query = update.callback_query
    assert query is not None
    user = query.from_user
    key: TableKey = (button.chat_id, button.thread_id)
    message = query.message
    if message is None or message.chat.id != button.chat_id:
        raise Refusal("alert.unknown_button")
    bits = svc.rng.getrandbits(64)

    def change(table: Table | None) -> Progress:
        if table is None or table.table_id != button.table_id or table.status != "over":
            raise Refusal("alert.stale")
        if table.seat_of(user.id) is None:
            raise Refusal("alert.not_seated")
        # A new id: keyboards of the finished match must not act on the new one.
        table.table_id = secrets.token_hex(3)
        table.match = MatchState(first_dealer=0, dealer=0)
        table.table_message_id = None
        table.hand_messages = {}
        table.dm_failed = []
        return game.start_match(table, random.Random(bits))

    table, progress = await svc.transact(key, change)
    await quiet_answer(query)
    assert table is not None
    # The old summary keeps its button: a second tap finds the match gone and says so.
    await svc.after_change(table, progress)
