"""Every button tap: decode, check it belongs to this person and deal, apply, save, render.

A tap is read by the codec (:meth:`~bot.table.codec.Codec.read`) into a typed payload and routed
by its type; a card or a decision is :func:`bot.table.moves.play_move` (a tick
:func:`~bot.table.moves.pick_move`), the same the live table's page calls: the table use case
(:meth:`~bot.table.usecase.Tables.run`) saves it and hands its snapshot to the renderers.
"""

from __future__ import annotations

import logging
import time
from html import escape

from telegram import Update

from bot.render.content import Content
from bot.storage import StaleWrite
from bot.table.codec import Button
from bot.table.game import Notice, Refusal
from bot.table.moves import back_move, pick_move, play_move
from bot.table.payloads import (
    Act,
    Back,
    BadData,
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
from bot.tg.coach import hint_tap, review_tap
from bot.tg.commands import language_tap, stop_tap
from bot.tg.common import Context, alert, private_tapper, quiet_answer, services, user_tr
from bot.tg.lobby import lobby_tap
from bot.tg.rematch import rematch_tap
from bot.tg.services import Services, taken_at
from bot.tg.settings_menu import settings_tap
from bot.tg.social import export_tap, top_tap, view_tap

_LOG = logging.getLogger(__name__)


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
    await play_move(svc.tables, button, payload, user.id, started)
    await quiet_answer(query)


async def pick_tap(update: Update, button: Button, payload: Tick, svc: Services) -> None:
    """A card ticked or unticked in a choice of several (the exchange's give, sochi's discard), kept in
    the table.

    ``C`` alone (the confirm button before the count is right) only says how many to tick. A tick
    holds off the turn's reminder and timeout: they count from the last tick.
    """
    query = update.callback_query
    assert query is not None
    user = private_tapper(query)
    await pick_move(svc.tables, button, payload, user.id)
    await quiet_answer(query)


async def back_tap(update: Update, button: Button, svc: Services) -> None:
    """ "I'm back": the person decides for their seat again (the tap may come from the group or the DM)."""
    query = update.callback_query
    assert query is not None
    user = query.from_user

    snap = await back_move(svc.tables, button, user.id)
    tr = await user_tr(svc, user)
    await quiet_answer(query, tr("timer.back_toast"))
    if query.message is not None:
        # Its keyboard goes even when the person was back already (a keyboard a restart left behind).
        lang_tr = tr if query.message.chat.id == user.id else await svc.presenter.group_tr(snap.table.chat_id)
        name = escape(user.first_name)
        svc.outbox.edit(
            query.message.chat.id, query.message.message_id, Content(lang_tr("timer.back", name=name))
        )
