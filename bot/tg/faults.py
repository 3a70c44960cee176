"""Faults the bot meets in production: Redis down, a player who blocks the bot, a group upgraded.

* **Storage down.** A tap or a command that fails because Redis cannot serve it (down, restarting,
  out of memory, a replica, a cluster failing over: :mod:`bot.storage.errors`) gets a short "try
  again" in the person's Telegram language (no storage needed to pick it). Nothing is half-applied:
  every change is one compare-and-set, which either ran or did not. redis-py reconnects by itself;
  the background workers (bot players, rendering, timers) retry with a pause instead of dying.
* **A player blocks the bot.** Learnt from a 403 "bot was blocked by the user" (the outbox reports
  it) or from the private ``my_chat_member`` update. At every table this process shows, the seat
  becomes *away* (the turn timers' state: the default bot player decides for it) and *blocked* (no
  DMs while away); the group is told, with a button that opens the bot and the timers' "I'm back".
  Starting the bot again gives the seat back and sends a fresh hand; so does "I'm back" (or a tap on
  the hand) once unblocked — if the bot is still blocked, the next DM fails and the seat is handed
  over again.
* **A group becomes a supergroup.** Telegram gives it a new id. Learnt from the ``migrate_to`` /
  ``migrate_from`` service messages or from a call refused with ``migrate_to_chat_id``: the table,
  the chat's settings and history move to the new id in one script, waiting sends follow, and the
  table message is sent again in the supergroup. Hand keyboards carry the chat id, so they are
  edited to the new one at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterable
from typing import Any

from telegram import Chat, ChatMember, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import TelegramError
from telegram.ext import ApplicationHandlerStop

from bot.render.content import Content
from bot.render.i18n import Tr, pick_lang
from bot.render.lobby_view import lobby_content
from bot.render.words import person
from bot.storage import StaleWrite, Table
from bot.storage.errors import STORAGE_DOWN, storage_down
from bot.table.codec import Link
from bot.table.core import key_of
from bot.table.game import decided_himself
from bot.table.payloads import Back
from bot.tg.common import Context, alert, say, services
from bot.tg.services import Services, TableKey

_LOG = logging.getLogger(__name__)
_TASKS: set[asyncio.Task[None]] = set()


def _spawn(coro: Coroutine[Any, Any, None], name: str) -> None:
    """Run ``coro`` in the background, keeping a reference until it ends."""
    task = asyncio.create_task(coro, name=name)
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


def install(svc: Services) -> None:
    """Let the outbox report blocked users and upgraded groups to this module."""
    svc.outbox.on_blocked = lambda user_id: _spawn(user_blocked(svc, user_id), f"blocked {user_id}")
    svc.outbox.on_migrated = lambda old, new: _spawn(migrate_chat(svc, old, new), f"migrate {old}")


async def idle() -> None:
    """Wait until the background work started here is done (tests)."""
    while _TASKS:
        await asyncio.gather(*list(_TASKS), return_exceptions=True)


# ----- storage down ----------------------------------------------------------------------------


async def on_error(update: object, context: Context) -> None:
    """The first error handler: an update that failed because Redis is down gets "try again".

    Raises ApplicationHandlerStop for those (the update is answered, a job such as the timers' tick
    simply runs again; one line is logged, not a traceback); any other error goes on to the logging
    handler.
    """
    error = context.error
    if error is None or not storage_down(error):
        return
    what = "an update" if isinstance(update, Update) else "a job"
    _LOG.warning("storage unavailable while handling %s: %s", what, error)
    if isinstance(update, Update):
        user = update.effective_user
        tr = Tr(pick_lang(user.language_code if user is not None else None))
        query, message = update.callback_query, update.effective_message
        try:
            if query is not None:
                await alert(query, tr("fault.try_again"))
            elif message is not None and (message.text or "").startswith("/"):
                say(services(context), update, tr("fault.storage_down"))
        except TelegramError as e:
            _LOG.info("could not tell a person that storage is down: %s", e)
    raise ApplicationHandlerStop


# ----- a player blocks the bot -----------------------------------------------------------------


async def on_my_chat_member(update: Update, context: Context) -> None:
    """A person blocked the bot in private (their chat's member status became "kicked")."""
    change = update.my_chat_member
    if change is None or change.chat.type != Chat.PRIVATE:
        return
    if change.new_chat_member.status == ChatMember.BANNED:
        await user_blocked(services(context), change.chat.id)


def _tables_of(svc: Services, user_id: int, keys: Iterable[TableKey] = ()) -> list[TableKey]:
    """Keys of the running tables this process shows where ``user_id`` sits, plus ``keys``."""
    found = list(dict.fromkeys(keys))
    for table in svc.presenter.tables():
        key = key_of(table)
        if table.status == "playing" and table.seat_of(user_id) is not None and key not in found:
            found.append(key)
    return found


async def user_blocked(svc: Services, user_id: int) -> None:
    """Hand the person's seats to the bot player and tell each group (once per block)."""
    for key in _tables_of(svc, user_id):

        def change(table: Table | None) -> int | None:
            if table is None or table.status != "playing":
                return None
            seat = table.seat_of(user_id)
            if seat is None or (seat in table.blocked and seat in table.away):
                return None  # handed over already
            if seat not in table.blocked:
                table.blocked.append(seat)
            if seat not in table.away:
                table.away.append(seat)
            # A fresh hand goes out when they are back; the old message may be gone with the chat.
            table.hand_messages.pop(seat, None)
            return seat

        try:
            snap, seat = await svc.run(key, lambda c: change(c.table))
        except StaleWrite:
            _LOG.exception("could not hand the seat of user %s at table %s to the bot", user_id, key)
            continue
        except STORAGE_DOWN as e:
            _LOG.warning("could not hand the seat of user %s at table %s to the bot: %s", user_id, key, e)
            continue
        if snap is None or seat is None:
            continue
        await svc.publish(snap)
        table = snap.table
        tr = await svc.presenter.group_tr(table.chat_id)
        link = svc.deep_link(svc.codec.link(Link("hand", table.chat_id, table.thread_id, table.table_id)))
        # Two ways back: start the bot again (its link), or the turn timers' "I'm back" once unblocked.
        back = svc.codec.data(table.chat_id, table.thread_id, table.table_id, 0, Back())
        markup = InlineKeyboardMarkup(
            [
                [InlineKeyboardButton(tr("btn.open_bot"), url=link)],
                [InlineKeyboardButton(tr("timer.back_button"), callback_data=back)],
            ]
        )
        who = table.seats[seat]
        assert who is not None
        text = tr("fault.blocked", name=person(tr, who, seat, mention=True))
        svc.outbox.post(table.chat_id, Content(text, markup), thread_id=table.thread_id)


async def user_back(svc: Services, user_id: int, keys: Iterable[TableKey] = ()) -> None:
    """The person started the bot again: give back every seat they lost by blocking it."""
    for key in _tables_of(svc, user_id, keys):

        def change(table: Table | None) -> int | None:
            if table is None or table.status != "playing":
                return None
            seat = table.seat_of(user_id)
            if seat is None or seat not in table.blocked:
                return None
            table.blocked.remove(seat)
            decided_himself(table, seat)
            if seat in table.dm_failed:
                table.dm_failed.remove(seat)
            return seat

        snap, seat = await svc.run(key, lambda c: change(c.table))
        if snap is None or seat is None:
            continue
        await svc.publish(snap)
        table = snap.table
        tr = await svc.presenter.group_tr(table.chat_id)
        who = table.seats[seat]
        assert who is not None
        text = tr("fault.back", name=person(tr, who, seat))
        svc.outbox.post(table.chat_id, Content(text), thread_id=table.thread_id)


# ----- a group becomes a supergroup ------------------------------------------------------------


async def on_migrate(update: Update, context: Context) -> None:
    """The service message of a group upgrade, in the old group or in the new supergroup."""
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        await migrate_chat(services(context), message.chat.id, message.migrate_to_chat_id)
    elif message.migrate_from_chat_id:
        await migrate_chat(services(context), message.migrate_from_chat_id, message.chat.id)


async def migrate_chat(svc: Services, old: int, new: int) -> None:
    """Move the group's table (and settings, history) to its supergroup and show it there.

    Idempotent: Telegram tells about one upgrade up to three times (two service messages, and every
    call to the old id), and the second time finds nothing left to move.
    """
    svc.outbox.migrate(old, new)
    moved: Table | None = None
    async with svc.lock((old, None)):
        for _ in range(8):
            table = await svc.storage.load_table(old, None)
            moved = None
            if table is not None:
                moved = table.model_copy(deep=True)
                moved.chat_id = new
                # Its messages stayed in the old group (the supergroup's copies have ids we don't know).
                moved.table_message_id = None
                moved.lobby_message_id = None
            try:
                await svc.storage.move_chat(old, new, moved, ttl=svc.ttl(moved) if moved else 1.0)
            except StaleWrite:
                if moved is not None and await svc.storage.load_table(new, None) is not None:
                    _LOG.warning("chat %s became %s, which has a table already; keeping that one", old, new)
                    return
                continue
            break
        else:
            _LOG.error("could not move the table of chat %s to %s: too busy", old, new)
            return
    svc.presenter.forget_lang(old)
    if moved is None:
        return
    _LOG.info("chat %s became the supergroup %s; its table moved along", old, new)
    if moved.status == "lobby":
        await _lobby_again(svc, moved)
    else:
        await svc.after_change(moved, None)


async def _lobby_again(svc: Services, table: Table) -> None:
    """Post the lobby in the supergroup and remember the new message."""
    tr = await svc.presenter.group_tr(table.chat_id)
    sent = await svc.outbox.send(table.chat_id, lobby_content(tr, svc.codec, table))
    if sent.message_id is None:
        return
    message_id = sent.message_id

    def change(stored: Table | None) -> None:
        if stored is not None and stored.table_id == table.table_id and stored.status == "lobby":
            stored.lobby_message_id = message_id

    stored, _ = await svc.run(key_of(table), lambda c: change(c.table))
    if stored is not None:
        svc.presenter.show(stored)
