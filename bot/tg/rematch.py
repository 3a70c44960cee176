"""The 🔁 button under a finished match: a new lobby with the same rules and seats.

Each person of the match before says "I'm playing" or "not this time" (bot/tg/lobby.py); the
creator starts (which says she plays: her seat is kept), or whoever tapped 🔁 when the creator has left
the table. The button goes from the
summary once used, so the chat keeps one way into the next match.
"""

from __future__ import annotations

import secrets

from telegram import Update

from bot.render.content import Content
from bot.render.lobby_view import lobby_content
from bot.render.table_view import summary_content
from bot.storage import Table
from bot.table.codec import Button
from bot.table.game import Notice, Refusal
from bot.table.usecase import Change
from bot.tg.common import quiet_answer
from bot.tg.services import Services, TableKey


def reopen(table: Table, user_id: int, table_id: str, now: float) -> None:
    """Turn a finished match's table into a lobby with its rules and seats; ``user_id`` tapped 🔁."""
    if table.seat_of(table.creator_id) is None:
        table.creator_id = user_id
    table.table_id = table_id  # a new id: keyboards of the finished match must not act on the lobby
    table.status = "lobby"
    table.lobby_view = "seats"
    table.match = None
    table.lobby_message_id = None
    table.table_message_id = None
    table.hand_messages = {}
    table.pushed = {}
    table.dm_failed = []
    table.pending_summaries = []
    table.timeouts = {}
    table.away = []
    table.blocked = []
    # Who tapped plays; the others say so (or leave) in the lobby.
    table.unconfirmed = [p.user_id for _, p in table.humans if p.user_id is not None and p.user_id != user_id]
    table.created_at = table.updated_at = now


async def rematch_tap(update: Update, button: Button, svc: Services) -> None:
    """🔁 under a finished match: a lobby for the next one, below it; the button goes."""
    query = update.callback_query
    assert query is not None
    user = query.from_user
    key: TableKey = (button.chat_id, button.thread_id)
    message = query.message
    if message is None or message.chat.id != button.chat_id:
        raise Refusal("alert.unknown_button")
    tr = await svc.presenter.group_tr(button.chat_id)
    finished: list[Content] = []
    table_id = secrets.token_hex(3)

    def change(c: Change) -> None:
        table = c.table
        if table is not None and table.table_id != button.table_id and table.status != "over":
            raise Notice("rematch.taken")  # someone tapped first: the new lobby is below
        if table is None or table.table_id != button.table_id or table.status != "over":
            raise Refusal("alert.stale")
        if table.seat_of(user.id) is None:
            raise Refusal("alert.not_seated")
        assert table.match is not None
        finished[:] = [summary_content(tr, svc.codec, table, len(table.match.deals) - 1)]
        reopen(table, user.id, table_id, svc.settings.clock())

    snap, _ = await svc.run(key, change)
    await quiet_answer(query)
    assert snap is not None
    # The summary stays as it was, without its button.
    svc.outbox.edit(button.chat_id, message.message_id, Content(finished[0].text))
    table = snap.table
    sent = await svc.outbox.send(
        table.chat_id, lobby_content(tr, svc.codec, table), thread_id=table.thread_id
    )
    if sent.message_id is None:
        return  # bot/tg/faults.py posts a stored lobby without a message at the next start
    stored = await svc.presenter.lobby_posted(key, table_id, sent.message_id)
    if stored is None or not stored.armed:
        await svc.timers.arm(stored or table)
