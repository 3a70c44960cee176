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
from bot.table.codec import Button
from bot.table.game import Refusal
from bot.table.rematch import may_rematch, reopen
from bot.table.usecase import Change
from bot.tg.common import quiet_answer
from bot.tg.services import Services, TableKey


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
        table = may_rematch(c.table, button, user.id)
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
