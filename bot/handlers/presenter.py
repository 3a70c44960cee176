"""Keeps the group's table message and every player's DM hand in step with the stored table.

One render task per table in this process: it takes the newest snapshot it was shown, sends the
messages a deal still lacks (remembering their ids in the table) and hands every other change to the
outbox as an edit, which the outbox coalesces and paces.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.engine import Phase
from bot.handlers.game import FinishedDeal, Progress, deal_of
from bot.handlers.hand_view import finished_hand_content, hand_content
from bot.handlers.i18n import Tr, pick_lang
from bot.handlers.lobby_view import lobby_content
from bot.handlers.outbox import Content
from bot.handlers.services import Services, TableKey
from bot.handlers.table_view import live_content, summary_content
from bot.handlers.words import seat_name
from bot.storage import Seat, Table

_LOG = logging.getLogger(__name__)
LANG_CACHE_SECONDS = 30.0


@dataclass
class _View:
    table: Table
    finished: list[FinishedDeal] = field(default_factory=list)
    dirty: bool = True
    task: asyncio.Task[None] | None = None


def key_of(table: Table) -> TableKey:
    """The storage key of a table: its chat and forum topic."""
    return (table.chat_id, table.thread_id)


class Presenter:
    """See the module docstring."""

    def __init__(self, svc: Services) -> None:
        self.svc = svc
        self._views: dict[TableKey, _View] = {}
        self._langs: dict[int, tuple[float, str | None]] = {}

    def show(self, table: Table, progress: Progress | None = None) -> None:
        """Bring the table's messages up to ``table`` (a newer snapshot wins over an older one)."""
        key = key_of(table)
        view = self._views.get(key)
        if view is None:
            view = self._views[key] = _View(table)
        elif table.table_id != view.table.table_id or table.version >= view.table.version:
            view.table = table
        if progress is not None:
            view.finished.extend(progress.finished)
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
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def forget(self, table: Table) -> None:
        """Drop what is kept about a table that no longer exists."""
        view = self._views.get(key_of(table))
        if (
            view is not None
            and view.table.table_id == table.table_id
            and (view.task is None or view.task.done())
        ):
            del self._views[key_of(table)]

    async def group_tr(self, chat_id: int) -> Tr:
        """Texts in the group's language."""
        return Tr(pick_lang(await self._lang(chat_id, group=True)))

    async def user_tr(self, seat: Seat) -> Tr:
        """Texts in a player's language: their own choice, else their Telegram language."""
        assert seat.user_id is not None
        return Tr(pick_lang(await self._lang(seat.user_id, group=False), seat.lang))

    async def _lang(self, chat_id: int, *, group: bool) -> str | None:
        # Every render needs five languages; a few seconds' staleness after /language is fine.
        now = time.monotonic()
        cached = self._langs.get(chat_id)
        if cached is not None and cached[0] > now:
            return cached[1]
        storage = self.svc.storage
        lang = (
            (await storage.chat_settings(chat_id)).lang
            if group
            else (await storage.user_settings(chat_id)).lang
        )
        if len(self._langs) > 10_000:
            self._langs.clear()
        self._langs[chat_id] = (now + LANG_CACHE_SECONDS, lang)
        return lang

    def forget_lang(self, chat_id: int) -> None:
        """A chat or person chose a language: use it from the next render on."""
        self._langs.pop(chat_id, None)

    async def _run(self, key: TableKey, view: _View) -> None:
        while view.dirty:
            view.dirty = False
            try:
                await self._render(key, view)
            except Exception:
                _LOG.exception("rendering table %s failed", key)

    async def _render(self, key: TableKey, view: _View) -> None:
        table = view.table
        outbox, codec = self.svc.outbox, self.svc.codec
        tr = await self.group_tr(table.chat_id)
        while view.finished:
            fin = view.finished.pop(0)
            if fin.table_message_id is not None:
                outbox.edit(table.chat_id, fin.table_message_id, summary_content(tr, codec, table, fin.index))
            for seat, message_id in fin.hand_messages.items():
                person = table.seats[seat]
                if person is not None and person.user_id is not None:
                    deal_no = table.match.deals[fin.index].get("deal_no", 1) if table.match else 1
                    content = finished_hand_content(await self.user_tr(person), table, deal_no)
                    outbox.edit(person.user_id, message_id, content)
        if table.status == "lobby":
            if table.lobby_message_id is not None:
                outbox.edit(table.chat_id, table.lobby_message_id, lobby_content(tr, codec, table))
            return
        deal = deal_of(table)
        if deal is None or table.match is None:
            return
        seq = table.match.deal_seq
        content = live_content(tr, table, deal)
        if table.table_message_id is None:
            sent = await outbox.send(table.chat_id, content, thread_id=table.thread_id)
            if sent.message_id is not None:
                await self._remember(key, seq, sent.message_id, None, tr)
        else:
            # Mid-trick states may wait; a finished trick or a decision is shown at the first chance.
            urgent = not (deal.trick and deal.phase is Phase.PLAY)
            outbox.edit(table.chat_id, table.table_message_id, content, urgent=urgent)
        for seat, person in table.humans:
            assert person.user_id is not None
            utr = await self.user_tr(person)
            hand = hand_content(utr, codec, table, deal, seat)
            hand_id = table.hand_messages.get(seat)
            if hand_id is not None:
                # The player to act, and the one who just acted, get every change at once; the others'
                # DMs may catch up a few seconds later.
                just_acted = bool(deal.moves) and deal.moves[-1][0] == seat
                mine = deal.to_act == seat or just_acted or not (deal.trick and deal.phase is Phase.PLAY)
                outbox.edit(person.user_id, hand_id, hand, urgent=mine)
            elif seat not in table.dm_failed:
                sent = await outbox.send(person.user_id, hand)
                if sent.forbidden:
                    await self._dm_failed(key, seq, seat, tr)
                elif sent.message_id is not None:
                    await self._remember(key, seq, sent.message_id, seat, utr)

    async def _remember(self, key: TableKey, seq: int, message_id: int, seat: int | None, tr: Tr) -> None:
        """Store a new message's id in the table, unless its deal has ended meanwhile."""

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
            return True

        table, ok = await self.svc.transact(key, change)
        if not ok:
            # The deal ended before its message was shown: don't leave a live-looking keyboard behind.
            chat = key[0] if seat is None else message_chat(table, seat)
            if chat is not None:
                self.svc.outbox.edit(chat, message_id, Content(tr("deal.gone")))
        elif table is not None:
            self.show(table)

    async def _dm_failed(self, key: TableKey, seq: int, seat: int, tr: Tr) -> None:
        """The player blocked the bot or never started it: tell the group once, with a way to fix it."""

        def change(table: Table | None) -> bool:
            if table is None or table.match is None or table.match.deal_seq != seq or seat in table.dm_failed:
                return False
            table.dm_failed.append(seat)
            return True

        table, ok = await self.svc.transact(key, change)
        if not ok or table is None:
            return
        link = self.svc.deep_link(
            self.svc.codec.pack_link("h", table.chat_id, table.thread_id, table.table_id)
        )
        markup = InlineKeyboardMarkup([[InlineKeyboardButton(tr("btn.open_bot"), url=link)]])
        text = tr("dm.forbidden", name=seat_name(tr, table, seat, mention=True))
        await self.svc.outbox.send(table.chat_id, Content(text, markup), thread_id=table.thread_id)


def message_chat(table: Table | None, seat: int) -> int | None:
    """The private chat of the person in ``seat``."""
    if table is None:
        return None
    person = table.seats[seat]
    return person.user_id if person is not None else None
