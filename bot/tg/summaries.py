"""A finished deal's summary: shown once by this process, its pending mark dropped once Telegram took it."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import NamedTuple

from bot.render.hand_view import finished_hand_content
from bot.render.i18n import Tr
from bot.render.table_view import summary_content
from bot.storage import Seat, Table
from bot.storage.errors import STORAGE_DOWN
from bot.storage.models import PendingSummary
from bot.table.core import TableKey
from bot.table.game import FinishedDeal
from bot.table.rotation import as_seated
from bot.table.usecase import Tables
from bot.tg.calls import Sent
from bot.tg.parts import Parts

_LOG = logging.getLogger(__name__)
#: Summaries remembered as shown (oldest forgotten first).
SHOWN_KEPT = 10_000
#: While Redis is down, confirming waits this long (doubling up to the cap) and tries again.
STORAGE_RETRY = 0.5
STORAGE_RETRY_CAP = 5.0


class Unshown(NamedTuple):
    """A finished deal's hand message its summary has not confirmed yet (it may still look live)."""

    user_id: int
    message_id: int
    #: The deal's index in the match's records, its number, and the seat as seated then.
    deal_index: int
    deal_no: int
    seat: int


def deal_no_of(table: Table, index: int) -> int:
    """The number of the finished deal at ``index`` of the match's records."""
    return table.match.deals[index].get("deal_no", 1) if table.match else 1


def unshown_hands(table: Table, of: list[PendingSummary] | None = None) -> list[Unshown]:
    """The hand messages of the finished deals whose summaries are not confirmed (those ``of``, if
    given), with whose they are (``/leave`` and ``/stop`` close them: the presenter will not, for a
    person gone or a table gone)."""
    found: list[Unshown] = []
    for pending in table.pending_summaries if of is None else of:
        deal_no = deal_no_of(table, pending.index)
        seated = as_seated(table, deal_no)
        for seat, message_id in pending.hand_messages.items():
            person = seated.seats[seat]
            if person is not None and person.user_id is not None:
                found.append(Unshown(person.user_id, message_id, pending.index, deal_no, seat))
    return found


class Summaries:
    """Shows each finished deal's summary once (see :meth:`show`).

    ``user_tr``: a player's language; ``tasks``: where the confirming tasks are kept (the presenter
    cancels them on shutdown).
    """

    def __init__(
        self,
        core: Parts,
        tables: Tables,
        user_tr: Callable[[Seat], Awaitable[Tr]],
        tasks: set[asyncio.Task[None]],
    ) -> None:
        self.core = core
        self.usecase = tables
        self._user_tr = user_tr
        self._tasks = tasks
        #: (table id, deal index) of the summaries shown by this process (each is shown once).
        self._shown: OrderedDict[tuple[str, int], None] = OrderedDict()

    async def show(self, key: TableKey, table: Table, fin: FinishedDeal, tr: Tr) -> None:
        """Show a finished deal's summary, once; then drop its pending mark.

        The summary goes to the group as a new message (Telegram notifies of it; at the match's end
        it carries the goat, so nothing of the match comes below it) and the deal's table message is
        deleted: the summary tells its tricks. Each hand message says the deal is over, and the one
        of the deal before goes, so a private chat keeps one such line per table. (The hand of a
        person who left since is closed by ``/leave``: bot/tg/commands.py.)

        The calls are confirmed in a task of their own (a group call may wait seconds for its turn);
        only then is the deal's :class:`PendingSummary` dropped from the stored table, so a process
        killed before that leaves the next start to show the summary (sent again if the kill came
        between the send and the confirmation).
        """
        done = (table.table_id, fin.index)
        if done in self._shown:
            return
        self._shown[done] = None
        while len(self._shown) > SHOWN_KEPT:
            self._shown.popitem(last=False)
        outbox = self.core.outbox
        # Queued now, ahead of the next deal's messages; the task only waits for them.
        calls: list[Awaitable[Sent]] = []
        content = summary_content(tr, self.core.codec, table, fin.index)
        calls.append(outbox.post(table.chat_id, content, thread_id=table.thread_id))
        if fin.table_message_id is not None:
            calls.append(outbox.delete(table.chat_id, fin.table_message_id))
        deal_no = deal_no_of(table, fin.index)
        # ``blind_rotates``: the hand messages are by the finished deal's seats, read as seated then.
        seated = as_seated(table, deal_no)
        for seat, message_id in fin.hand_messages.items():
            person = seated.seats[seat]
            if person is not None and person.user_id is not None:
                utr = await self._user_tr(person)
                over = finished_hand_content(utr, table, deal_no, self.core.codec, fin.index, seat)
                calls.append(outbox.edited(person.user_id, message_id, over))
        # The deal before's "deal N is over" lines go: each chat keeps this deal's.
        now = {p.user_id: fin.hand_messages.get(s) for s, p in seated.humans}
        for user_id, message_id in fin.earlier.items():
            if now.get(user_id) != message_id:
                calls.append(outbox.delete(user_id, message_id))
        task = asyncio.create_task(
            self._confirm(key, table.table_id, fin.index, calls), name=f"summary {key} {fin.index}"
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def shown(self, table_id: str, index: int) -> bool:
        """Whether this process has shown (queued) the summary of the deal at ``index`` of a table."""
        return (table_id, index) in self._shown

    async def show_pending(self, key: TableKey, table: Table, tr: Tr) -> None:
        """Show the summaries stored but not confirmed: left by a process that died before its edits
        (or this one's, already under way: each is shown once)."""
        for p in table.pending_summaries:
            fin = FinishedDeal(p.index, p.table_message_id, dict(p.hand_messages), dict(p.earlier))
            await self.show(key, table, fin, tr)

    async def _confirm(self, key: TableKey, table_id: str, index: int, calls: list[Awaitable[Sent]]) -> None:
        """Wait for a summary's calls, then drop its pending mark from the stored table."""
        # A refused call counts as done: trying it again after a restart would not help.
        await asyncio.gather(*calls)

        def change(table: Table | None) -> None:
            if table is not None and table.table_id == table_id:
                table.pending_summaries = [p for p in table.pending_summaries if p.index != index]

        pause = STORAGE_RETRY
        while True:
            try:
                await self.usecase.transact(key, change)
                return
            except STORAGE_DOWN as e:
                _LOG.warning("confirming the summary of table %s waits for storage: %s", key, e)
                await asyncio.sleep(pause)
                pause = min(pause * 2, STORAGE_RETRY_CAP)
            except Exception:
                # The mark stays: the next start shows the summary again.
                _LOG.exception("could not confirm the summary of table %s", key)
                return
