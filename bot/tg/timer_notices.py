"""What the turn timers (:mod:`bot.table.timers`) say in Telegram, and the messages of theirs tidied
once moot.

The half-time reminder (a DM), the group's notice of a timeout or of a person now away (with an
"I'm back" button, in the group and in the DM), and the notices of a lobby or a game deleted for
nobody using it. A reminder is deleted, and the "I'm back" keyboards removed, once moot: by
:mod:`bot.tg.leftovers`, in this process's memory, and by the reminder's ``tidy`` timer (in Redis)
after a restart or a move another process handled.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.render.content import Content
from bot.render.lobby_view import expired_content
from bot.render.words import seat_name
from bot.storage import Seat, Table
from bot.table.core import TableKey
from bot.table.payloads import Back
from bot.table.timers import Reminder
from bot.tg.leftovers import Leftover, Leftovers
from bot.tg.parts import Parts
from bot.tg.presenter import Presenter


class TimerNotices:
    """The timers' messages (see the module docstring): :class:`bot.table.timers.Notices` in Telegram."""

    def __init__(self, core: Parts, presenter: Presenter, *, dropped: Callable[[str], None]) -> None:
        self.core = core
        self.presenter = presenter
        #: Reminders and "I'm back" keyboards to tidy once moot (bot/tg/leftovers.py); a reminder
        #: tidied so drops its ``tidy`` timer (``dropped``), which would otherwise delete it again.
        self.leftovers = Leftovers(core.outbox, dropped=dropped)

    def turn_moved(self, table: Table, turn: tuple[int, int, int] | None) -> None:
        """``table`` changed: tidy the reminders and keyboards now moot."""
        self.leftovers.tidy(table, turn)

    async def remind(self, table: Table, person: Seat, seconds: float) -> int | None:
        """The half-time reminder, in ``person``'s DM; its message id."""
        assert person.user_id is not None
        tr = await self.presenter.user_tr(person)
        text = tr("timer.reminder", chat=escape(table.chat_title), seconds=math.ceil(seconds / 2))
        sent = await self.core.outbox.send(person.user_id, Content(text))
        return sent.message_id

    def reminded(self, key: TableKey, item: Reminder) -> None:
        """Delete the reminder ``item`` once its turn is gone."""
        self.leftovers.add(
            key,
            Leftover(
                item.table_id, item.seat, item.chat_id, item.message_id, turn=item.turn, timer=item.timer
            ),
        )

    def tidy(self, key: TableKey, chat_id: int, message_id: int) -> None:
        """Delete a reminder whose turn is gone."""
        self.leftovers.discard(key, chat_id, message_id)
        self.core.outbox.delete(chat_id, message_id)

    async def tell(self, table: Table, seat: int, notice: str) -> None:
        """Tell the group a seat timed out (or is away now); an away person also gets "I'm back" in DM."""
        core = self.core
        person = table.seats[seat]
        assert person is not None and person.user_id is not None
        group = await self.presenter.group_tr(table.chat_id)
        name = seat_name(group, table, seat)
        if notice == "timeout":
            await core.outbox.send(
                table.chat_id, Content(group("timer.timeout", name=name)), thread_id=table.thread_id
            )
            return
        data = core.codec.data(table.chat_id, table.thread_id, table.table_id, 0, Back())
        text = group(f"timer.{notice}", name=name)
        markup = InlineKeyboardMarkup(
            [[InlineKeyboardButton(group("timer.back_button"), callback_data=data)]]
        )
        key = (table.chat_id, table.thread_id)
        # Each "I'm back" keyboard goes once the person is back (by its button, the other one, or a
        # move of their own), or when the game ends.
        sent = await core.outbox.send(table.chat_id, Content(text, markup), thread_id=table.thread_id)
        if sent.message_id is not None:
            back = Content(group("timer.back", name=name))
            item = Leftover(
                table.table_id, seat, table.chat_id, sent.message_id, back=back, ended=Content(text)
            )
            self.leftovers.add(key, item)
        if core.live_present is not None and person.user_id in await core.live_present(table):
            return  # their live table's page says they are away and offers "I'm back" itself
        own = await self.presenter.user_tr(person)
        dm = InlineKeyboardMarkup([[InlineKeyboardButton(own("timer.back_button"), callback_data=data)]])
        text = own("timer.away_dm", chat=escape(table.chat_title))
        sent = await core.outbox.send(person.user_id, Content(text, dm))
        if sent.message_id is not None:
            back = Content(own("timer.back", name=escape(person.name)))
            item = Leftover(
                table.table_id, seat, person.user_id, sent.message_id, back=back, ended=Content(text)
            )
            self.leftovers.add(key, item)

    async def lobby_expired(self, table: Table) -> None:
        """The lobby's message says it expired."""
        core, presenter = self.core, self.presenter
        presenter.forget(table)
        tr = await presenter.group_tr(table.chat_id)
        if table.lobby_message_id is not None:
            core.outbox.edit(table.chat_id, table.lobby_message_id, expired_content(tr))

    async def table_expired(self, table: Table) -> None:
        """The table's message and every hand say the game expired."""
        core, presenter = self.core, self.presenter
        presenter.forget(table)
        self.leftovers.forget(table)
        tr = await presenter.group_tr(table.chat_id)
        if table.table_message_id is not None:
            core.outbox.edit(table.chat_id, table.table_message_id, Content(tr("timer.table_expired")))
        else:
            await core.outbox.send(
                table.chat_id, Content(tr("timer.table_expired")), thread_id=table.thread_id
            )
        for seat, message_id in table.hand_messages.items():
            person = table.seats[seat]
            if person is not None and person.user_id is not None:
                own = await presenter.user_tr(person)
                core.outbox.edit(person.user_id, message_id, Content(own("timer.table_expired")))
