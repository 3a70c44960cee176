"""Private-chat hygiene: messages that stop meaning anything once the table moves on.

A half-time reminder ("осталось 30 с") is deleted once its decision is taken (by the person or by
the bot player at the timeout) or the game ends; an "I'm back" keyboard goes once the person is
back (the group's message then says so, the DM's is deleted), or the game ends. What is to be
tidied is kept in this process's memory, by table, and tidied as this process sees the table change.
A reminder also has a ``tidy`` timer in Redis (bot/table/timers.py), which deletes it after a
restart or when another process handled the change; tidied here first, its timer is dropped
(``dropped``). An "I'm back" keyboard left by a restart goes when it is tapped.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from bot.render.content import Content
from bot.storage import Table
from bot.tg.outbox import Outbox

#: Tables whose leftovers are kept at most (the oldest are forgotten first).
TABLES_KEPT = 10_000

TableKey = tuple[int, int | None]
#: A person's decision: (deal number, moves made, seat).
TurnKey = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Leftover:
    """A message to tidy: a reminder of ``turn``, or an "I'm back" keyboard of ``seat``."""

    table_id: str
    seat: int
    chat_id: int
    message_id: int
    #: The reminder's turn; None for an "I'm back" message.
    turn: TurnKey | None = None
    #: An "I'm back" message: what it says once the person is back, and once the game is gone.
    back: Content | None = None
    ended: Content | None = None
    #: A reminder's ``tidy`` timer (its sorted-set member).
    timer: str | None = None


class Leftovers:
    """Remembers leftovers per table and tidies them when a change of the table makes them moot."""

    def __init__(self, outbox: Outbox, *, dropped: Callable[[str], None] | None = None) -> None:
        self.outbox = outbox
        #: Called with a reminder's timer once the reminder is deleted here.
        self.dropped = dropped
        self._kept: OrderedDict[TableKey, list[Leftover]] = OrderedDict()

    def add(self, key: TableKey, item: Leftover) -> None:
        """Remember a message to tidy later."""
        self._kept.setdefault(key, []).append(item)
        self._kept.move_to_end(key)
        while len(self._kept) > TABLES_KEPT:
            self._kept.popitem(last=False)

    def tidy(self, table: Table, turn: TurnKey | None) -> None:
        """The table as it now stands (``turn``: the person's decision it waits for): tidy what is moot."""
        key = (table.chat_id, table.thread_id)
        kept = self._kept.get(key)
        if not kept:
            return
        playing = table.status == "playing"
        still = []
        for item in kept:
            if not playing or item.table_id != table.table_id:
                self._end(item)
            elif item.turn is not None and item.turn != turn:
                self._delete(item)
            elif item.turn is None and item.seat not in table.away:
                if item.chat_id > 0:  # the private chat keeps no leftover: the hand says it all
                    self.outbox.delete(item.chat_id, item.message_id)
                elif item.back is not None:
                    self.outbox.edit(item.chat_id, item.message_id, item.back)
            else:
                still.append(item)
        if still:
            self._kept[key] = still
        else:
            del self._kept[key]

    def discard(self, key: TableKey, chat_id: int, message_id: int) -> None:
        """Forget a message tidied elsewhere (a reminder's timer deleted it)."""
        kept = self._kept.get(key)
        if kept:
            kept[:] = [i for i in kept if (i.chat_id, i.message_id) != (chat_id, message_id)]

    def forget(self, table: Table) -> None:
        """The table is gone (stopped, expired): tidy all its leftovers."""
        for item in self._kept.pop((table.chat_id, table.thread_id), []):
            self._end(item)

    def _delete(self, item: Leftover) -> None:
        self.outbox.delete(item.chat_id, item.message_id)
        if item.timer is not None and self.dropped is not None:
            self.dropped(item.timer)

    def _end(self, item: Leftover) -> None:
        if item.turn is not None:
            self._delete(item)
        elif item.ended is not None:
            self.outbox.edit(item.chat_id, item.message_id, item.ended)
