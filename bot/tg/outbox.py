"""Everything the bot sends goes through the outbox: paced per chat, with edits coalesced.

Telegram allows about 20 messages (edits included) a minute in a group and about one a second in a
private chat. Rather than bursting and then stalling, the outbox spaces calls to each chat evenly;
while a call waits its turn, newer content for the same message replaces the older, so quick play
costs few calls and the last state always arrives. Telegram counts what the bot sends from all its
processes: with a shared ``budget`` (bot/storage/budget.py, token buckets in Redis) each call also
waits its turn there, so N instances together stay within the limits one would.

Faults: a 429 is waited out for its ``retry_after``; a 5xx or a network error (Telegram did not apply
the call) is retried with exponential backoff. A *timed-out* send is not repeated: the request
reached Telegram and may have been applied, and a repeated send would leave a duplicate message (a
second live hand keyboard); the result says ``uncertain`` and the caller shows the state again at
its next change. A timed-out edit is repeated (an edit applied twice is "not modified"). A user who
blocked the bot is reported to ``on_blocked``; a group upgraded to a supergroup to ``on_migrated``,
and its waiting sends go to the supergroup (edits of its old messages are dropped: their ids do not
exist there).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram import Bot, InlineKeyboardMarkup

from bot.render.content import Content
from bot.storage.budget import Budget
from bot.table.core import Limits
from bot.tg.calls import Calls, LoopPace, Op, Pace, Sent, Wanted

#: Chat workers started between two sweeps of the chats that have nothing left to pace.
PRUNE_EVERY = 1000


@dataclass
class _Chat:
    queue: deque[Op] = field(default_factory=deque)
    edits: dict[int, Op] = field(default_factory=dict)
    next_at: float = 0.0
    last_at: float = float("-inf")
    task: asyncio.Task[None] | None = None
    #: Set while the worker waits out a relaxed edit: a call queued (or made urgent) wakes it.
    nudge: asyncio.Event | None = None


#: Calls logged per chat, and chats logged, at most (the oldest are forgotten first).
CALLS_KEPT = 100
CHATS_LOGGED = 10_000


@dataclass
class CallLog:
    """The latest calls made per chat (for the bench and the tests), bounded in both directions."""

    calls: OrderedDict[int, deque[float]] = field(default_factory=OrderedDict)

    def add(self, chat_id: int, at: float) -> None:
        """Log a call to ``chat_id`` at time ``at``."""
        found = self.calls.get(chat_id)
        if found is None:
            found = self.calls[chat_id] = deque(maxlen=CALLS_KEPT)
            if len(self.calls) > CHATS_LOGGED:
                self.calls.popitem(last=False)
        else:
            self.calls.move_to_end(chat_id)
        found.append(at)


class Outbox(Calls):
    """Paced, coalescing sends and edits; see the module docstring."""

    def __init__(
        self,
        bot: Bot,
        *,
        limits: Limits | None = None,
        pace: Pace | None = None,
        on_error: Callable[[BaseException], Awaitable[None]] | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.bot = bot
        self.limits = limits or Limits()
        self.pace: Pace = pace or LoopPace()
        #: The Telegram budget shared with the bot's other processes (bot/storage/budget.py), asked
        #: after this process's own pacing before each call; None: this process paces alone.
        self.budget = budget
        self.log = CallLog()
        self._chats: dict[int, _Chat] = {}
        self._sent: dict[tuple[int, int], Content] = {}
        self._global_at = 0.0
        self._on_error = on_error
        self._started = 0
        #: Called with a private chat's id when its user blocked the bot.
        self.on_blocked: Callable[[int], None] | None = None
        #: Called with (old, new) when a group turns out to be a supergroup now.
        self.on_migrated: Callable[[int, int], None] | None = None
        self._moved: dict[int, int] = {}
        #: Keyboard JSON by the keyboard's id (with the keyboard, so the id stays its own).
        self._markups: OrderedDict[int, tuple[InlineKeyboardMarkup, str]] = OrderedDict()

    def edit(self, chat_id: int, message_id: int, content: Content, *, urgent: bool = True) -> None:
        """Show ``content`` in a message; an edit still waiting for the same message is replaced.

        A non-urgent edit waits ``Limits.relaxed_interval`` after the chat's last call and after its
        latest change of content, unless an urgent one for the same message replaces it first.
        """
        if chat_id in self._moved:
            return  # its messages stayed behind in the old group
        if self._sent.get((chat_id, message_id)) == content:
            chat = self._chats.get(chat_id)
            pending = chat.edits.get(message_id) if chat else None
            if pending is None:
                return
        chat = self._chats.setdefault(chat_id, _Chat())
        pending = chat.edits.get(message_id)
        if pending is not None:
            if pending.content != content:
                pending.content = content
                pending.changed_at = self.pace.now()
            if urgent and not pending.urgent:
                pending.urgent = True
                self._wake(chat_id, chat)
            return
        op = Op("edit", chat_id, content, message_id=message_id, urgent=urgent, changed_at=self.pace.now())
        chat.edits[message_id] = op
        chat.queue.append(op)
        self._wake(chat_id, chat)

    async def edited(self, chat_id: int, message_id: int, content: Content) -> Sent:
        """:meth:`edit` (urgent), then wait until the message shows ``content`` or the edit failed.

        A newer edit of the same message that replaces this one while it waits answers for it.
        """
        self.edit(chat_id, message_id, content)
        chat = self._chats.get(chat_id)
        op = chat.edits.get(message_id) if chat is not None else None
        if op is None:  # it shows ``content`` already, or the chat moved and its messages stayed
            return Sent(None if chat_id in self._moved else message_id)
        if op.future is None:
            op.future = asyncio.get_running_loop().create_future()
        return await asyncio.shield(op.future)

    async def send(
        self,
        chat_id: int,
        content: Content,
        *,
        thread_id: int | None = None,
        wanted: Wanted | None = None,
    ) -> Sent:
        """Send a new message when its turn comes; ``Sent.forbidden`` if the user blocked the bot.
        ``wanted`` is asked when the turn comes (and before a retry): False drops the message unsent
        (``Sent(None)``), as a table stopped while its next deal's messages waited for the pace. It
        may be a coroutine function (awaited then: it must not raise), e.g. to read the stored table."""
        return await self._enqueue(Op("send", chat_id, content, thread_id=thread_id, wanted=wanted))

    async def send_photo(
        self, chat_id: int, photo: bytes, caption: Content, *, thread_id: int | None = None
    ) -> Sent:
        """Send a picture with a caption."""
        return await self._enqueue(Op("photo", chat_id, caption, thread_id=thread_id, photo=photo))

    def delete(self, chat_id: int, message_id: int) -> asyncio.Future[Sent]:
        """Delete a message when the chat's turn comes (a leftover: a reminder no longer due).

        Not awaited by the caller; an edit of the message still waiting is dropped.
        """
        chat_id = self._moved.get(chat_id, chat_id)
        chat = self._chats.setdefault(chat_id, _Chat())
        waiting = chat.edits.pop(message_id, None)
        if waiting is not None:
            chat.queue.remove(waiting)
            _settle(waiting, Sent(None))
        op = Op("delete", chat_id, Content(""), message_id=message_id)
        op.future = asyncio.get_running_loop().create_future()
        chat.queue.append(op)
        self._wake(chat_id, chat)
        return op.future

    def post(
        self,
        chat_id: int,
        content: Content,
        *,
        thread_id: int | None = None,
        photo: bytes | None = None,
        reply_to: int | None = None,
        document: tuple[str, bytes] | None = None,
    ) -> asyncio.Future[Sent]:
        """Queue a message (a picture with ``photo``, a file with ``document``: its name and bytes)
        without waiting for it: a command's reply.

        The handler goes on at once rather than holding an update slot for the chat's pace. A post
        identical to one still waiting in the chat is not queued again (a burst of one command costs
        one message); its future is shared. ``reply_to`` makes it a reply to that message.
        """
        chat_id = self._moved.get(chat_id, chat_id)
        chat = self._chats.setdefault(chat_id, _Chat())
        kind = "photo" if photo is not None else "document" if document is not None else "send"
        op = Op(kind, chat_id, content, thread_id=thread_id, photo=photo, reply_to=reply_to, posted=True)
        op.document = document
        for o in chat.queue:
            if o.posted and (o.kind, o.content, o.thread_id, o.photo, o.reply_to, o.document) == (
                kind, content, thread_id, photo, reply_to, document
            ):  # fmt: skip
                assert o.future is not None
                return o.future
        op.future = asyncio.get_running_loop().create_future()
        chat.queue.append(op)
        self._wake(chat_id, chat)
        return op.future

    def migrate(self, old: int, new: int) -> None:
        """The group ``old`` is the supergroup ``new`` now: its waiting sends go there, edits are dropped."""
        if self._moved.get(old) == new:
            return
        self._moved[old] = new
        chat = self._chats.get(old)
        if chat is None:
            return
        target = self._chats.setdefault(new, _Chat())
        for op in list(chat.queue):
            self._take(chat, op)
            if op.kind == "edit":
                if op.future is not None and not op.future.done():
                    op.future.set_result(Sent(None))
                continue
            op.chat_id = new
            target.queue.append(op)
        if target.queue:
            self._wake(new, target)

    async def _enqueue(self, op: Op) -> Sent:
        op.chat_id = self._moved.get(op.chat_id, op.chat_id)
        op.future = asyncio.get_running_loop().create_future()
        chat = self._chats.setdefault(op.chat_id, _Chat())
        chat.queue.append(op)
        self._wake(op.chat_id, chat)
        return await op.future

    def _wake(self, chat_id: int, chat: _Chat) -> None:
        if chat.nudge is not None:
            chat.nudge.set()
        if chat.task is None or chat.task.done():
            chat.task = asyncio.create_task(self._run(chat_id, chat), name=f"outbox {chat_id}")
            self._started += 1
            if self._started % PRUNE_EVERY == 0:
                self.prune()

    def prune(self) -> int:
        """Forget the chats with nothing queued whose last call no longer paces the next one.

        Every chat the bot ever wrote to would stay otherwise. Returns how many chats are kept.
        """
        now = self.pace.now()
        for chat_id, chat in list(self._chats.items()):
            idle = not chat.queue and (chat.task is None or chat.task.done())
            if idle and now >= chat.next_at and now >= chat.last_at + self.limits.relaxed_interval:
                del self._chats[chat_id]
        return len(self._chats)

    async def drain(self) -> None:
        """Wait until every queued call has been made."""
        while True:
            tasks = [c.task for c in self._chats.values() if c.task is not None and not c.task.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop the workers (queued calls are dropped)."""
        for chat in self._chats.values():
            if chat.task is not None:
                chat.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await chat.task

    async def _run(self, chat_id: int, chat: _Chat) -> None:
        while chat.queue:
            # Urgent calls go first; a waiting edit stays registered, so newer content (or urgency)
            # for its message lands in it instead of queueing behind it.
            op = next((o for o in chat.queue if o.urgent), chat.queue[0])
            if op.kind == "edit" and self._sent.get((chat_id, op.message_id or 0)) == op.content:
                self._take(chat, op)
                _settle(op, Sent(op.message_id))
                continue
            if not op.urgent:
                relaxed_at = max(chat.last_at, op.changed_at) + self.limits.relaxed_interval
                now = self.pace.now()
                if now < relaxed_at:
                    # Until then, or until an urgent call arrives meanwhile and goes first.
                    await self._nap(chat, relaxed_at - now)
                    continue
            await self._wait_turn(chat_id, chat)
            if op not in chat.queue:
                # Dropped while it waited for its turn (a delete of the message it edits) or moved to
                # the chat's new id: nothing to send here.
                continue
            self._take(chat, op)
            if op.kind == "edit" and self._sent.get((chat_id, op.message_id or 0)) == op.content:
                _settle(op, Sent(op.message_id))
                continue
            result = await self._call(op)
            if op.future is not None and not op.future.done():
                op.future.set_result(result)

    async def _nap(self, chat: _Chat, seconds: float) -> None:
        """Wait ``seconds`` on the pace's clock, or less if a call is queued (or made urgent) in the chat.

        Woken rather than polled: hundreds of chats each holding a relaxed edit for seconds would
        otherwise wake the event loop several times a second apiece.
        """
        nudge = chat.nudge = asyncio.Event()
        sleeper = asyncio.ensure_future(self.pace.sleep(seconds))
        woken = asyncio.ensure_future(nudge.wait())
        try:
            await asyncio.wait({sleeper, woken}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            chat.nudge = None
            sleeper.cancel()
            woken.cancel()

    @staticmethod
    def _take(chat: _Chat, op: Op) -> None:
        chat.queue.remove(op)
        if op.kind == "edit" and op.message_id is not None and chat.edits.get(op.message_id) is op:
            del chat.edits[op.message_id]

    async def _wait_turn(self, chat_id: int, chat: _Chat) -> None:
        interval = self.limits.group_interval if chat_id < 0 else self.limits.private_interval
        now = self.pace.now()
        at = max(chat.next_at, self._global_at, now)
        if at > now:
            await self.pace.sleep(at - now)
        if self.budget is not None:
            shared = self.limits.global_interval
            await self.budget.turn(
                chat_id, chat_interval=interval, global_interval=shared, sleep=self.pace.sleep
            )
        now = max(self.pace.now(), at)
        chat.next_at = now + interval
        chat.last_at = now
        self._global_at = now + self.limits.global_interval
        self.log.add(chat_id, now)

    def _superseded(self, op: Op) -> bool:
        """A newer edit of the same message is waiting: retrying this one is pointless."""
        chat = self._chats.get(op.chat_id)
        return chat is not None and op.message_id is not None and op.message_id in chat.edits

    async def _turn_again(self, chat_id: int) -> None:
        chat = self._chats.get(chat_id)
        if chat is not None:
            await self._wait_turn(chat_id, chat)


def _settle(op: Op, sent: Sent) -> None:
    """Answer whoever waits for ``op`` (an edit skipped because the message shows it already)."""
    if op.future is not None and not op.future.done():
        op.future.set_result(sent)
