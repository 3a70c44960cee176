"""Keeps the group's table message and every player's DM hand in step with the stored table.

One render task per table in this process: it takes the newest snapshot it was shown, sends the
messages a deal still lacks (remembering their ids in the table) and hands every other change to the
outbox as an edit, which the outbox coalesces and paces. Telegram notifies of a new message, never
of an edit: a hand whose decision comes due after others' moves is sent anew (:func:`push_due`),
and a deal's summary goes to the group as a new message.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.engine import Deal, Phase
from bot.handlers.codec import Link
from bot.handlers.core import Core, TableKey, key_of
from bot.handlers.game import FinishedDeal, Progress
from bot.handlers.hand_view import finished_hand_content, hand_content
from bot.handlers.i18n import Tr, pick_lang
from bot.handlers.lobby_view import lobby_content
from bot.handlers.outbox import Content, Sent
from bot.handlers.rotation import as_seated
from bot.handlers.table_view import live_content, summary_content
from bot.handlers.ttlcache import TtlCache
from bot.handlers.usecase import Change, Snapshot, Tables
from bot.handlers.words import decider, seat_name
from bot.storage import Seat, Table
from bot.storage.errors import STORAGE_DOWN

__all__ = ["Presenter", "key_of", "push_due"]

_LOG = logging.getLogger(__name__)
LANG_CACHE_SECONDS = 30.0
#: How stale a chat's hints setting may be in a render (another instance's /settings change).
HINTS_CACHE_SECONDS = 5.0
#: While Redis is down, rendering waits this long (doubling up to the cap) and tries again.
STORAGE_RETRY = 0.5
STORAGE_RETRY_CAP = 5.0
#: Tables whose view was dropped, remembered (oldest forgotten first) so a late snapshot of one is
#: not shown again.
GONE_KEPT = 10_000
#: States of a table remembered as showing an earlier state's content (see ``_View.same``).
SAME_KEPT = 16


@dataclass
class _View:
    snap: Snapshot
    finished: list[FinishedDeal] = field(default_factory=list)
    dirty: bool = True
    task: asyncio.Task[None] | None = None
    #: The table was deleted while a render ran: drop the view when it is done.
    gone: bool = False
    #: When the updates behind the snapshots not yet rendered were taken (timed for the bench).
    taken: list[float] = field(default_factory=list)
    #: States of the table (``Table.stamp``) that differ from an earlier one only in message ids this
    #: presenter stored (see :meth:`Presenter._keep`): stamp -> the stamp whose content it shows.
    same: dict[tuple[int, str], tuple[int, str]] = field(default_factory=dict)
    #: The contents made for one content stamp (see :meth:`Presenter._made`): the renders after a
    #: message id is stored show the same texts and keyboards, and do not make them again.
    made_at: tuple[str, tuple[int, str]] | None = None
    made: dict[tuple[object, ...], Content] = field(default_factory=dict)

    @property
    def table(self) -> Table:
        return self.snap.table

    def alive(self) -> bool:
        """Whether the table still exists (a new message for it is still wanted)."""
        return not self.gone


class Presenter:
    """See the module docstring."""

    def __init__(self, core: Core, tables: Tables) -> None:
        self.core = core
        self.usecase = tables
        self._views: dict[TableKey, _View] = {}
        # Every render needs five languages; a few seconds' staleness after /language is fine.
        self._group_langs = TtlCache(self._read_group_lang, LANG_CACHE_SECONDS)
        self._user_langs = TtlCache(self._read_user_lang, LANG_CACHE_SECONDS)
        self._hints = TtlCache(self._read_hints, HINTS_CACHE_SECONDS)
        #: (table id, version) of the last snapshot of each table whose view was dropped.
        self._gone: OrderedDict[TableKey, tuple[str, int]] = OrderedDict()
        #: (table id, deal index) of the summaries shown by this process (each is shown once).
        self._summarized: OrderedDict[tuple[str, int], None] = OrderedDict()
        #: (table id, seat) whose hand is being sent anew (see :meth:`_push`), with the moves made then.
        self._pushing: dict[tuple[str, int], int] = {}
        #: Tasks waiting for summary edits to be confirmed (see :meth:`_summarize`), and hands being
        #: sent anew (:meth:`_push`).
        self._confirming: set[asyncio.Task[None]] = set()

    def show(
        self, shown: Snapshot | Table, progress: Progress | None = None, *, taken: float | None = None
    ) -> None:
        """Bring the table's messages up to a snapshot (a newer snapshot wins over an older one).

        A view is kept only while its table is live: it is dropped once a finished match (or a
        deleted table) has been rendered, and a late snapshot of that table no newer than the last
        one shown is ignored. A snapshot's ``taken`` (or ``taken`` here): when the update behind it
        was taken; the time until its messages are queued goes to ``Stats.queued_times``. A table
        given as it is stored is shown through :meth:`Tables.snapshot` (its deal from the cache).
        """
        snap = shown if isinstance(shown, Snapshot) else self.usecase.snapshot(shown)
        progress = progress or snap.progress
        taken = snap.taken if taken is None else taken
        table = snap.table
        key = key_of(table)
        view = self._views.get(key)
        if view is None:
            gone = self._gone.get(key)
            if gone is not None:
                if gone[0] == table.table_id and table.version <= gone[1]:
                    return
                del self._gone[key]
            view = self._views[key] = _View(snap)
        elif table.table_id != view.table.table_id:
            view.snap, view.gone = snap, False
        elif table.version >= view.table.version:
            view.snap = snap
        if progress is not None:
            view.finished.extend(progress.finished)
        if taken is not None:
            view.taken.append(taken)
        view.dirty = True
        if view.task is None or view.task.done():
            view.task = asyncio.create_task(self._run(key, view), name=f"present {key}")

    async def idle(self, key: TableKey | None = None) -> None:
        """Wait until the table's (or every table's) messages have been sent or queued."""
        while True:
            views = [self._views.get(key)] if key is not None else list(self._views.values())
            tasks = [v.task for v in views if v is not None and v.task is not None and not v.task.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop rendering (on shutdown)."""
        tasks = [v.task for v in self._views.values() if v.task is not None and not v.task.done()]
        tasks += list(self._confirming)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for cache in (self._group_langs, self._user_langs, self._hints):
            await cache.close()

    def forget(self, table: Table) -> None:
        """Drop what is kept about a table that no longer exists (once a render under way is done)."""
        key = key_of(table)
        view = self._views.get(key)
        if view is None or view.table.table_id != table.table_id:
            return
        if table.version > view.table.version:
            view.snap = self.usecase.snapshot(table)
        if view.task is None or view.task.done():
            self._drop(key, view)
        else:
            view.gone = True

    def live(self) -> int:
        """How many tables this process keeps a view of."""
        return len(self._views)

    def _drop(self, key: TableKey, view: _View) -> None:
        if self._views.get(key) is view:
            del self._views[key]
        self._gone[key] = (view.table.table_id, view.table.version)
        self._gone.move_to_end(key)
        while len(self._gone) > GONE_KEPT:
            self._gone.popitem(last=False)

    async def group_tr(self, chat_id: int) -> Tr:
        """Texts in the group's language."""
        return Tr(pick_lang(await self._group_langs.get(chat_id)))

    async def user_tr(self, seat: Seat) -> Tr:
        """Texts in a player's language: their own choice, else their Telegram language."""
        assert seat.user_id is not None
        return Tr(pick_lang(await self._user_langs.get(seat.user_id), seat.lang))

    async def lang_of(self, user_id: int) -> str | None:
        """The language a person chose (``/language``), if any, read at most every few seconds."""
        return await self._user_langs.get(user_id)

    async def _read_group_lang(self, chat_id: int) -> str | None:
        return (await self.core.storage.chat_settings(chat_id)).lang

    async def _read_user_lang(self, user_id: int) -> str | None:
        return (await self.core.storage.user_settings(user_id)).lang

    def forget_lang(self, chat_id: int) -> None:
        """A chat or person chose a language: use it from the next render on."""
        self._group_langs.forget(chat_id)
        self._user_langs.forget(chat_id)

    async def hints_on(self, chat_id: int) -> bool:
        """Whether the chat's ``/settings`` allow hints (the 💡 button), read at most every few seconds."""
        return await self._hints.get(chat_id)

    async def _read_hints(self, chat_id: int) -> bool:
        return (await self.core.storage.chat_settings(chat_id)).hints

    def forget_hints(self, chat_id: int) -> None:
        """The chat changed its hints setting: use it from the next render on."""
        self._hints.forget(chat_id)

    def tables(self) -> list[Table]:
        """The newest snapshot of every table this process shows."""
        return [view.table for view in self._views.values()]

    async def _run(self, key: TableKey, view: _View) -> None:
        pause = STORAGE_RETRY
        while view.dirty:
            view.dirty = False
            try:
                await self._render(key, view)
            except STORAGE_DOWN as e:
                # Redis is down: show this table again once it is back, rather than leave it stale.
                _LOG.warning("rendering table %s waits for storage: %s", key, e)
                view.dirty = True
                await asyncio.sleep(pause)
                pause = min(pause * 2, STORAGE_RETRY_CAP)
            except Exception:
                _LOG.exception("rendering table %s failed", key)
            self._queued(view)
        if view.gone or view.table.status == "over":
            # Nothing more to show: a rematch (or a new table) starts a new view.
            self._drop(key, view)

    async def _render(self, key: TableKey, view: _View) -> None:
        snap = view.snap
        table = snap.table
        outbox, codec = self.core.outbox, self.core.codec
        tr = await self.group_tr(table.chat_id)
        while view.finished:
            fin = view.finished.pop(0)
            await self._summarize(key, table, fin, tr)
        for pending in table.pending_summaries:
            # Stored but not confirmed: left by a process that died before its edits (or this one's,
            # already under way: _summarize does each once).
            fin = FinishedDeal(
                pending.index, pending.table_message_id, dict(pending.hand_messages), dict(pending.earlier)
            )
            await self._summarize(key, table, fin, tr)
        if table.status == "lobby":
            if table.lobby_message_id is not None:
                outbox.edit(table.chat_id, table.lobby_message_id, lobby_content(tr, codec, table))
            return
        deal = snap.deal
        if deal is None or table.match is None:
            return
        seq = table.match.deal_seq
        made = self._made(view)
        content = made.get(("table", tr.lang))
        if content is None:
            content = made[("table", tr.lang)] = live_content(tr, table, deal)
        hint = await self.hints_on(table.chat_id)
        pushes: list[asyncio.Task[None]] = []
        if table.table_message_id is None:
            self._queued(view)
            # Not sent at all if the table is stopped while the message waits for the group's pace.
            sent = await outbox.send(table.chat_id, content, thread_id=table.thread_id, wanted=view.alive)
            if sent.message_id is not None:
                # A group upgraded meanwhile: the message is in the supergroup, and so is the table.
                where = (sent.chat_id or key[0], key[1])
                await self._remember(where, seq, where[0], sent.message_id, None)
        else:
            # Mid-trick states may wait; a finished trick or a decision is shown at the first chance.
            urgent = not (deal.trick and deal.phase is Phase.PLAY)
            outbox.edit(table.chat_id, table.table_message_id, content, urgent=urgent)
        for seat, person in table.humans:
            assert person.user_id is not None
            if seat in table.blocked and seat in table.away:
                continue  # they blocked the bot (bot/handlers/faults.py): no DMs until they are back
            if (table.table_id, seat) in self._pushing:
                continue  # its hand is on its way as a new message; shown again once it is there
            utr = await self.user_tr(person)
            shown = seat
            if deal.to_act is not None and deal.to_act != seat and decider(table, deal.to_act) == seat:
                shown = deal.to_act  # his blind's brag: its cards and the decision, in his DM
            made_key = ("hand", utr.lang, seat, shown, hint)
            hand = made.get(made_key)
            if hand is None:
                hand = made[made_key] = hand_content(utr, codec, table, deal, shown, hint=hint)
            hand_id = table.hand_messages.get(seat)
            if hand_id is not None and push_due(table, deal, seat):
                self._pushing[(table.table_id, seat)] = len(deal.moves)
                turn = (table.table_id, seq, len(deal.moves), seat)
                # A task at once: it clears its mark even if this render fails before awaiting it.
                push = asyncio.create_task(self._push(key, turn, person.user_id, hand_id, hand))
                self._confirming.add(push)
                push.add_done_callback(self._confirming.discard)
                pushes.append(push)
            elif hand_id is not None:
                # The player to act, and the one who just acted, get every change at once; the others'
                # DMs may catch up a few seconds later.
                just_acted = bool(deal.moves) and deal.moves[-1][0] == seat
                mine = deal.to_act == seat or just_acted or not (deal.trick and deal.phase is Phase.PLAY)
                outbox.edit(person.user_id, hand_id, hand, urgent=mine)
            elif seat not in table.dm_failed:
                self._queued(view)
                sent = await outbox.send(person.user_id, hand, wanted=view.alive)
                if sent.forbidden and not sent.blocked:  # a block is bot/handlers/faults.py's
                    await self._dm_failed(key, seq, seat, tr)
                elif sent.message_id is not None:
                    moves = len(deal.moves)
                    await self._remember(key, seq, person.user_id, sent.message_id, seat, moves=moves)
        if pushes:
            self._queued(view)
            await asyncio.gather(*pushes)

    @staticmethod
    def _made(view: _View) -> dict[tuple[object, ...], Content]:
        """The contents already made for the content of the view's snapshot (emptied when it changes)."""
        table = view.table
        at = (table.table_id, view.same.get(table.stamp, table.stamp))
        if view.made_at != at:
            view.made_at = at
            view.made = {}
        return view.made

    def _queued(self, view: _View) -> None:
        """The render has queued what it can without waiting for Telegram: time the updates behind it."""
        if view.taken:
            now = time.perf_counter()
            self.core.stats.queued_times.extend(now - t for t in view.taken)
            view.taken.clear()

    async def _summarize(self, key: TableKey, table: Table, fin: FinishedDeal, tr: Tr) -> None:
        """Show a finished deal's summary, once; then drop its pending mark.

        The summary goes to the group as a new message (Telegram notifies of it; at the match's end
        it carries the goat, so nothing of the match comes below it) and the deal's table message is
        deleted: the summary tells its tricks. Each hand message says the deal is over, and the one
        of the deal before goes, so a private chat keeps one such line per table.

        The calls are confirmed in a task of their own (a group call may wait seconds for its turn);
        only then is the deal's :class:`PendingSummary` dropped from the stored table, so a process
        killed before that leaves the next start to show the summary (sent again if the kill came
        between the send and the confirmation).
        """
        done = (table.table_id, fin.index)
        if done in self._summarized:
            return
        self._summarized[done] = None
        while len(self._summarized) > GONE_KEPT:
            self._summarized.popitem(last=False)
        outbox = self.core.outbox
        # Queued now, ahead of the next deal's messages; the task only waits for them.
        calls: list[Awaitable[Sent]] = []
        content = summary_content(tr, self.core.codec, table, fin.index)
        calls.append(outbox.post(table.chat_id, content, thread_id=table.thread_id))
        if fin.table_message_id is not None:
            calls.append(outbox.delete(table.chat_id, fin.table_message_id))
        deal_no = table.match.deals[fin.index].get("deal_no", 1) if table.match else 1
        # ``blind_rotates``: the hand messages are by the finished deal's seats, read as seated then.
        seated = as_seated(table, deal_no)
        for seat, message_id in fin.hand_messages.items():
            person = seated.seats[seat]
            if person is not None and person.user_id is not None:
                utr = await self.user_tr(person)
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
        self._confirming.add(task)
        task.add_done_callback(self._confirming.discard)

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

    async def _remember(
        self, key: TableKey, seq: int, chat: int, message_id: int, seat: int | None, *, moves: int = 0
    ) -> None:
        """Store a new message's id (sent to ``chat``) in the table (a hand's: sent at ``moves``),
        unless its deal has ended meanwhile."""

        def change(table: Table | None) -> bool:
            if (
                table is None
                or table.match is None
                or table.match.deal_seq != seq
                or table.status != "playing"
            ):
                return False
            if seat is None:
                table.table_message_id = message_id
            else:
                table.hand_messages[seat] = message_id
                table.pushed[seat] = moves
            return True

        snap, ok = await self._keep(key, change, f"message {message_id}")
        if not ok:
            # The deal ended (or the game was stopped) before its message was shown: nothing will
            # edit it again, so it goes rather than stay behind (a live-looking hand, a stray table).
            self.core.outbox.delete(chat, message_id)
        elif snap is not None:
            self.show(snap)

    async def lobby_posted(self, key: TableKey, table_id: str, message_id: int) -> Snapshot | None:
        """A table's lobby message is out: keep its id (unless another process kept one first) and show
        the table again, for the taps made while the message was on its way."""

        def remember(stored: Table | None) -> None:
            if stored is not None and stored.table_id == table_id and stored.lobby_message_id is None:
                stored.lobby_message_id = message_id

        stored, _ = await self.usecase.run(key, lambda c: remember(c.table))
        if stored is not None:
            self.show(stored)
        return stored

    async def _keep(
        self, key: TableKey, change: Callable[[Table | None], bool], what: str
    ) -> tuple[Snapshot | None, bool]:
        """Store a message that is out (``change`` puts its id in the table), waiting for Redis as long
        as it takes: a message whose id is lost would be sent again by the next render."""
        pause = STORAGE_RETRY
        ran_on: list[tuple[str, tuple[int, str]]] = []

        def keep(c: Change) -> bool:
            # The state this change was decided on (the last one, if a lost race made it decide again).
            ran_on[:] = [(c.table.table_id, c.table.stamp)] if c.table is not None else []
            return change(c.table)

        while True:
            try:
                snap, ok = await self.usecase.run(key, keep)
            except STORAGE_DOWN as e:
                _LOG.warning("remembering %s of table %s waits for storage: %s", what, key, e)
                await asyncio.sleep(pause)
                pause = min(pause * 2, STORAGE_RETRY_CAP)
                continue
            view = self._views.get(key)
            if snap is not None and ran_on and view is not None and ran_on[0][0] == snap.table.table_id:
                # Only message ids changed: the new version shows what the one it was made from shows.
                base = ran_on[0][1]
                view.same[snap.table.stamp] = view.same.get(base, base)
                while len(view.same) > SAME_KEPT:
                    del view.same[next(iter(view.same))]
            return snap, ok

    async def _push(
        self, key: TableKey, turn: tuple[str, int, int, int], user_id: int, old_id: int, hand: Content
    ) -> None:
        """A decision came due: the hand goes as a new message (Telegram notifies of it, not of an
        edit) and the old one is deleted, so the chat keeps one hand. ``turn``: (table id, deal
        sequence, moves made, seat)."""
        try:
            snap = await self._repoint(key, turn, user_id, old_id, hand)
        finally:
            self._pushing.pop((turn[0], turn[3]), None)
            # Changes while it was on its way were not shown in this DM: the render goes round again.
            view = self._views.get(key)
            if view is not None:
                view.dirty = True
        if snap is not None:
            self.show(snap)

    async def _repoint(
        self, key: TableKey, turn: tuple[str, int, int, int], user_id: int, old_id: int, hand: Content
    ) -> Snapshot | None:
        """Send the hand anew and store the new message's id in place of ``old_id``; delete the one
        no longer the seat's."""
        table_id, seq, moves, seat = turn
        outbox = self.core.outbox
        sent = await outbox.send(user_id, hand)
        new_id = sent.message_id
        if new_id is None:
            # Not sent (or not known to be: a timed-out send is not repeated): the old one shows the
            # decision, and the push counts as made, so the next render does not try again.
            outbox.edit(user_id, old_id, hand)
            new_id = old_id

        def change(table: Table | None) -> bool:
            if (
                table is None
                or table.table_id != table_id
                or table.match is None
                or table.match.deal_seq != seq
                or table.hand_messages.get(seat) != old_id
            ):
                return False
            table.hand_messages[seat] = new_id
            table.pushed[seat] = moves
            return True

        snap, ok = await self._keep(key, change, "the hand")
        if new_id != old_id:
            # The new message is the seat's hand now, so the old one goes; unless the deal ended (or
            # the seat changed hands) meanwhile: then the old one tells how it ended, the new one goes.
            outbox.delete(user_id, old_id if ok else new_id)
        return snap

    async def _dm_failed(self, key: TableKey, seq: int, seat: int, tr: Tr) -> None:
        """The player blocked the bot or never started it: tell the group once, with a way to fix it."""

        def change(table: Table | None) -> bool:
            if table is None or table.match is None or table.match.deal_seq != seq or seat in table.dm_failed:
                return False
            table.dm_failed.append(seat)
            return True

        table, ok = await self.usecase.transact(key, change)
        if not ok or table is None:
            return
        codec = self.core.codec
        link = self.core.deep_link(codec.link(Link("hand", table.chat_id, table.thread_id, table.table_id)))
        markup = InlineKeyboardMarkup([[InlineKeyboardButton(tr("btn.open_bot"), url=link)]])
        text = tr("dm.forbidden", name=seat_name(tr, table, seat, mention=True))
        await self.core.outbox.send(table.chat_id, Content(text, markup), thread_id=table.thread_id)


def push_due(table: Table, deal: Deal, seat: int) -> bool:
    """Whether ``seat``'s hand is sent again as a new message, to notify its person of a decision.

    When the decision is theirs and came after someone else's move (the person waited), once per
    decision. Not when their own move came just before (they are looking at the hand: the lead
    after their card won the trick, classic's exchange right after their brag), nor at the deal's
    first decision (the hand has just arrived as a new message), nor for a seat the bot plays.
    """
    if deal.to_act != seat or seat in table.away or not deal.moves or deal.moves[-1][0] == seat:
        return False
    return table.pushed.get(seat) != len(deal.moves)
