"""Keeps the group's table message and every player's DM hand in step with the stored table.

One render task per table in this process: it takes the newest snapshot it was shown, sends the
messages a deal still lacks (remembering their ids in the table) and hands every other change to the
outbox as an edit, which the outbox coalesces and paces.

A render acts on the newest state of the table, never on a snapshot outdated while it waited: once a
newer state is shown (or the table is stopped) it stops, and the next render starts from that state;
a new message is sent only if, when its turn comes, the newest state still wants it (a hand only to
the person who holds the seat then); its id is kept only if the stored table still wants it, and a
refused save shows the table as stored (a table gone from storage is dropped).

Telegram notifies of a new message, never of an edit: a hand whose decision comes due after others'
moves is sent anew (:func:`push_due`), and a deal's summary goes to the group as a new message.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import partial

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.engine import Phase
from bot.render.content import Content
from bot.render.i18n import Tr, pick_lang
from bot.render.live_buttons import everyone, hand_message, on_page, table_message
from bot.render.lobby_view import lobby_content
from bot.render.words import seat_name
from bot.storage import Seat, Table
from bot.storage.errors import STORAGE_DOWN
from bot.table.codec import Link
from bot.table.core import TableKey, key_of
from bot.table.game import Progress, decider
from bot.table.ttlcache import TtlCache
from bot.table.usecase import Change, Snapshot, Tables
from bot.tg.freshness import HandSlot, HandWanted, Slot, Turn, View, holds, plays, push_due
from bot.tg.parts import Parts
from bot.tg.summaries import Summaries

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
#: States of a table remembered as showing an earlier state's content (see ``View.same``).
SAME_KEPT = 16


class Presenter:
    """See the module docstring."""

    def __init__(self, core: Parts, tables: Tables) -> None:
        self.core = core
        self.usecase = tables
        self._views: dict[TableKey, View] = {}
        # Every render needs five languages; a few seconds' staleness after /language is fine.
        self._group_langs = TtlCache(self._read_group_lang, LANG_CACHE_SECONDS)
        self._user_langs = TtlCache(self._read_user_lang, LANG_CACHE_SECONDS)
        self._hints = TtlCache(self._read_hints, HINTS_CACHE_SECONDS)
        #: (table id, version) of the last snapshot of each table whose view was dropped.
        self._gone: OrderedDict[TableKey, tuple[str, int]] = OrderedDict()
        #: (table id, seat) whose hand is being sent anew (see :meth:`_push`), with the moves made then.
        self._pushing: dict[tuple[str, int], int] = {}
        #: Tasks waiting for summary edits to be confirmed (see :class:`Summaries`), and hands being
        #: sent anew (:meth:`_push`).
        self._confirming: set[asyncio.Task[None]] = set()
        self.summaries = Summaries(core, tables, self.user_tr, self._confirming)

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
            view = self._views[key] = View(snap)
        elif table.table_id != view.table.table_id:
            view.snap, view.gone = snap, False
        elif table.version >= view.table.version:
            view.snap = snap
        if progress is not None:
            view.finished.extend(progress.finished)
        if taken is not None:
            view.taken.append(taken)
        self._wake(key, view)

    def _wake(self, key: TableKey, view: View) -> None:
        """Render the view's newest state (again), in its task."""
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
        """Drop what is kept about a table that no longer exists: a render under way sends nothing
        more for it (it stops at its next step), and the view goes once it has."""
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

    def _drop(self, key: TableKey, view: View) -> None:
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

    async def _run(self, key: TableKey, view: View) -> None:
        pause = STORAGE_RETRY
        while view.dirty and not view.gone:  # a stopped table gets nothing more
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

    async def _render(self, key: TableKey, view: View) -> None:
        snap = view.snap
        table = snap.table
        at = view.content_at()
        outbox, codec = self.core.outbox, self.core.codec
        tr = await self.group_tr(table.chat_id)
        if view.outdated(at):
            return  # the next render shows the newer state (a stopped table: nothing)
        while view.finished:
            await self.summaries.show(key, table, view.finished.pop(0), tr)
        await self.summaries.show_pending(key, table, tr)
        if view.outdated(at):
            return
        if table.status == "lobby":
            if table.lobby_message_id is not None:
                outbox.edit(table.chat_id, table.lobby_message_id, lobby_content(tr, codec, table))
            return
        deal = snap.deal
        if deal is None or table.match is None:
            return
        seq = table.match.deal_seq
        made = view.made_now()
        content = made.get(("table", tr.lang))
        if content is None:
            content = made[("table", tr.lang)] = table_message(self.core, tr, table, deal)
        hint = await self.hints_on(table.chat_id)
        present = await on_page(self.core, table)  # their hands and turns are on the live table
        if view.outdated(at):
            return
        pushes: list[asyncio.Task[None]] = []
        if table.table_message_id is None:
            self._queued(view)
            # Not sent at all if the table is stopped (or its deal over) while it waits for the pace.
            wanted = view.wants(table.table_id, seq)
            sent = await outbox.send(table.chat_id, content, thread_id=table.thread_id, wanted=wanted)
            if sent.message_id is not None:
                # A group upgraded meanwhile: the message is in the supergroup, and so is the table.
                where = (sent.chat_id or key[0], key[1])
                await self._remember(where, (table.table_id, seq, None), where[0], sent.message_id)
        else:
            # Mid-trick states may wait; a finished trick or a decision is shown at the first chance.
            urgent = not (deal.trick and deal.phase is Phase.PLAY)
            if urgent or not everyone(table, present):  # all on the page: each trick once it is done
                outbox.edit(table.chat_id, table.table_message_id, content, urgent=urgent)
        for seat, person in table.humans:
            assert person.user_id is not None
            if seat in table.blocked and seat in table.away:
                continue  # they blocked the bot (bot/tg/faults.py): no DMs until they are back
            if (table.table_id, seat) in self._pushing or person.user_id in present:
                continue  # its hand is on its way as a new message, or on the live table
            utr = await self.user_tr(person)
            if view.outdated(at):
                break  # e.g. the person left meanwhile: the seat's hand is not theirs to see
            shown = seat
            if deal.to_act is not None and deal.to_act != seat and decider(table, deal.to_act) == seat:
                shown = deal.to_act  # his blind's brag: its cards and the decision, in his DM
            made_key = ("hand", utr.lang, seat, shown, hint)
            hand = made.get(made_key)
            if hand is None:
                hand = made[made_key] = hand_message(self.core, utr, table, deal, shown, hint=hint)
            hand_id = table.hand_messages.get(seat)
            if hand_id is not None and push_due(table, deal, seat):
                self._pushing[(table.table_id, seat)] = len(deal.moves)
                turn = (table.table_id, seq, len(deal.moves), seat)
                # A task at once: it clears its mark even if this render fails before awaiting it.
                push = asyncio.create_task(self._push(key, view, turn, person.user_id, hand_id, hand))
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
                slot = (table.table_id, seq, seat)
                sent = await outbox.send(
                    person.user_id, hand, wanted=self._hand_wanted(key, view, (*slot, person.user_id))
                )
                if sent.forbidden and not sent.blocked:  # a block is bot/tg/faults.py's
                    await self._dm_failed(key, (table.table_id, seq, seat), person.user_id, tr)
                elif sent.message_id is not None:
                    await self._remember(key, slot, person.user_id, sent.message_id, moves=len(deal.moves))
        if pushes:
            self._queued(view)
            await asyncio.gather(*pushes)

    def _queued(self, view: View) -> None:
        """The render has queued what it can without waiting for Telegram: time the updates behind it."""
        if view.taken:
            now = time.perf_counter()
            self.core.stats.queued_times.extend(now - t for t in view.taken)
            view.taken.clear()

    async def _remember(
        self, key: TableKey, slot: Slot, chat: int, message_id: int, *, moves: int = 0
    ) -> None:
        """Store a new message's id (sent to ``chat``) in the table (a hand's: sent at ``moves``),
        unless the stored table no longer wants it: its deal ended, the game was stopped, or the
        seat is no longer that person's."""
        table_id, seq, seat = slot

        def change(table: Table | None) -> bool:
            if table is None or not plays(table, table_id, seq, seat, chat):
                return False
            if seat is None:
                table.table_message_id = message_id
            else:
                table.hand_messages[seat] = message_id
                table.pushed[seat] = moves
            return True

        snap, ok = await self._keep(key, change, f"message {message_id}")
        if not ok:
            # Nothing will edit it again, so it goes rather than stay behind (a live-looking hand,
            # a stray table, a bot seat's cards); the table is shown as it is stored.
            self.core.outbox.delete(chat, message_id)
            self._stored(key, table_id, snap)
        elif snap is not None:
            self.show(snap)

    def _hand_wanted(self, key: TableKey, view: View, slot: HandSlot, moves: int | None = None) -> HandWanted:
        """A new hand goes only if its seat is still the person's in the table as stored when its turn
        comes (:meth:`View.hand_wanted`); one sent anew, only while its decision (``moves``) is open."""
        return view.hand_wanted(self.core.storage, key, slot, partial(self._stored, key, slot[0]), moves)

    def _stored(self, key: TableKey, table_id: str, snap: Snapshot | Table | None) -> None:
        """A change this presenter wanted was refused: its snapshot is outdated. Show the table as
        stored; a table no longer stored gets nothing more."""
        if snap is not None:
            self.show(snap)
            return
        view = self._views.get(key)
        if view is not None and view.table.table_id == table_id:
            self.forget(view.table)

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
        self, key: TableKey, view: View, turn: Turn, user_id: int, old_id: int, hand: Content
    ) -> None:
        """A decision came due: the hand goes as a new message (Telegram notifies of it, not of an
        edit) and the old one is deleted, so the chat keeps one hand. ``turn``: (table id, deal
        sequence, moves made, seat)."""
        try:
            done = await self._repoint(key, view, turn, user_id, old_id, hand)
        finally:
            self._pushing.pop((turn[0], turn[3]), None)
        if done is not None:
            snap, ok = done
            if ok and snap is not None:
                self.show(snap)
            elif not ok:
                self._stored(key, turn[0], snap)  # never the outdated snapshot again: no second push
        if not view.gone and self._views.get(key) is view:
            # Changes while it was on its way were not shown in this DM: the render goes round again.
            self._wake(key, view)

    async def _repoint(
        self, key: TableKey, view: View, turn: Turn, user_id: int, old_id: int, hand: Content
    ) -> tuple[Snapshot | None, bool] | None:
        """Send the hand anew and store the new message's id in place of ``old_id``; delete the one
        no longer the seat's. Returns the table as stored and whether the id was stored; None if the
        push was no longer wanted (nothing sent, nothing changed)."""
        table_id, seq, moves, seat = turn
        outbox = self.core.outbox
        wanted = view.wants(table_id, seq, seat, user_id, moves=moves)  # while the decision is open
        sent = await outbox.send(
            user_id, hand, wanted=self._hand_wanted(key, view, (table_id, seq, seat, user_id), moves)
        )
        new_id = sent.message_id
        if new_id is None:
            if not wanted():
                return None  # the table stopped, the deal ended or the seat changed hands meanwhile
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
                or not holds(table, seat, user_id)
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
        return snap, ok

    async def _dm_failed(self, key: TableKey, slot: Slot, user_id: int, tr: Tr) -> None:
        """The player blocked the bot or never started it: tell the group once, with a way to fix it."""
        table_id, seq, seat = slot
        assert seat is not None

        def change(table: Table | None) -> bool:
            if (
                table is None
                or table.table_id != table_id
                or table.match is None
                or table.match.deal_seq != seq
                or seat in table.dm_failed
                or not holds(table, seat, user_id)
            ):
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
