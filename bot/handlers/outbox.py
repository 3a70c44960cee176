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
import json
import logging
import operator
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Message, ReplyParameters
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from bot.storage.budget import Budget

_LOG = logging.getLogger(__name__)
MAX_REMEMBERED = 20_000
#: Keyboards whose JSON is kept (a few per seat of a few hundred live tables).
MARKUPS_KEPT = 4096
#: Chat workers started between two sweeps of the chats that have nothing left to pace.
PRUNE_EVERY = 1000
#: Attempts per call, and the backoff between attempts after a 5xx or a network error (seconds).
MAX_ATTEMPTS = 6
RETRY_FIRST = 0.5
RETRY_CAP = 8.0


@dataclass(frozen=True)
class Limits:
    """Seconds between two calls to one group, to one private chat, and to Telegram at all."""

    # 20 a minute would be 3.0 s; the margin keeps clock jitter from making a 21st call in a minute.
    group_interval: float = 3.1
    private_interval: float = 1.0
    global_interval: float = 1 / 30
    #: Seconds a non-urgent edit (a card inside a trick) waits, both since the chat's last call and
    #: since its content last changed: it shows a table that waits for someone. Quick players (and
    #: players slowed by a busy bot) then cost one group edit per trick; a slow one is still shown.
    relaxed_interval: float = 6.0

    @classmethod
    def off(cls) -> Limits:
        """No pacing (for tests against an emulator with its flood limits off)."""
        return cls(0.0, 0.0, 0.0, 0.0)


class Pace(Protocol):
    """The clock the outbox paces by (the event loop's, or a test's virtual one)."""

    def now(self) -> float:
        """Seconds on this clock."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` on this clock."""
        ...


class LoopPace:
    """Real time, from the running event loop."""

    def now(self) -> float:
        """The loop's monotonic time."""
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        """asyncio.sleep."""
        await asyncio.sleep(seconds)


@dataclass(frozen=True)
class Content:
    """A message's text (HTML) and inline keyboard."""

    text: str
    markup: InlineKeyboardMarkup | None = None


@dataclass
class Sent:
    """The outcome of a send: the message, or why there is none."""

    message_id: int | None
    forbidden: bool = False
    #: Forbidden because the user blocked the bot (reported to ``Outbox.on_blocked``).
    blocked: bool = False
    #: The call timed out: Telegram may have applied it (see the module docstring).
    uncertain: bool = False
    #: The chat it went to, when a group upgrade sent it to the supergroup instead.
    chat_id: int | None = None


#: Whether a call is still wanted when its turn comes: at once, or after a look (a read of storage).
Wanted = Callable[[], bool | Awaitable[bool]]


@dataclass
class _Op:
    kind: str  # "edit", "send", "photo", "document" or "delete"
    chat_id: int
    content: Content
    message_id: int | None = None
    thread_id: int | None = None
    photo: bytes | None = None
    #: A document's file name and bytes (kind "document").
    document: tuple[str, bytes] | None = None
    future: asyncio.Future[Sent] | None = None
    urgent: bool = True
    #: When a non-urgent edit's content last changed (the pace's clock).
    changed_at: float = 0.0
    reply_to: int | None = None
    #: Queued by :meth:`Outbox.post`: an identical one still waiting is not queued twice.
    posted: bool = False
    #: Asked before each attempt: False drops the call unsent (its message is moot by then).
    wanted: Wanted | None = None


@dataclass
class _Chat:
    queue: deque[_Op] = field(default_factory=deque)
    edits: dict[int, _Op] = field(default_factory=dict)
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


class Outbox:
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
        op = _Op("edit", chat_id, content, message_id=message_id, urgent=urgent, changed_at=self.pace.now())
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
        return await self._enqueue(_Op("send", chat_id, content, thread_id=thread_id, wanted=wanted))

    async def send_photo(
        self, chat_id: int, photo: bytes, caption: Content, *, thread_id: int | None = None
    ) -> Sent:
        """Send a picture with a caption."""
        return await self._enqueue(_Op("photo", chat_id, caption, thread_id=thread_id, photo=photo))

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
        op = _Op("delete", chat_id, Content(""), message_id=message_id)
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
        op = _Op(kind, chat_id, content, thread_id=thread_id, photo=photo, reply_to=reply_to, posted=True)
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

    async def _enqueue(self, op: _Op) -> Sent:
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
    def _take(chat: _Chat, op: _Op) -> None:
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

    async def _call(self, op: _Op) -> Sent:
        backoff = RETRY_FIRST
        for _ in range(MAX_ATTEMPTS):
            if op.wanted is not None:
                answer = op.wanted()
                if not (answer if isinstance(answer, bool) else await answer):
                    return Sent(None)
            try:
                sent = await self._call_once(op)
                if sent.message_id is not None and op.kind != "edit":
                    sent.chat_id = op.chat_id
                return sent
            except RetryAfter as e:
                # Only when someone else spent this chat's budget (another process): wait and retry.
                delay = (
                    e.retry_after if isinstance(e.retry_after, int | float) else e.retry_after.total_seconds()
                )
                await self.pace.sleep(float(delay))
                continue
            except Forbidden as e:
                blocked = op.chat_id > 0 and "blocked" in e.message
                if blocked and self.on_blocked is not None:
                    self.on_blocked(op.chat_id)
                return Sent(None, forbidden=True, blocked=blocked)
            except ChatMigrated as e:
                old = op.chat_id
                self.migrate(old, e.new_chat_id)
                if self.on_migrated is not None:
                    self.on_migrated(old, e.new_chat_id)
                if op.kind == "edit":
                    return Sent(None)
                op.chat_id = e.new_chat_id
                continue
            except TimedOut as e:
                if op.kind in ("send", "photo", "document"):  # an edit or a delete is safe to repeat
                    _LOG.warning("%s in chat %s timed out; not repeated: %s", op.kind, op.chat_id, e)
                    return Sent(None, uncertain=True)
                _LOG.info("an edit in chat %s timed out; retrying in %s s", op.chat_id, backoff)
            except BadRequest as e:
                if "not modified" in e.message:
                    return Sent(op.message_id)
                _LOG.warning("Telegram refused %s in chat %s: %s", op.kind, op.chat_id, e.message)
                return Sent(None)
            except NetworkError as e:
                # A 5xx or a connection that failed: Telegram did not apply the call.
                _LOG.info("%s in chat %s failed (%s); retrying in %s s", op.kind, op.chat_id, e, backoff)
            except TelegramError as e:
                _LOG.warning("%s in chat %s failed: %s", op.kind, op.chat_id, e)
                return Sent(None)
            except Exception:
                # Never let a chat's worker die: its later calls would wait forever.
                _LOG.exception("%s in chat %s failed", op.kind, op.chat_id)
                return Sent(None)
            await self.pace.sleep(backoff)
            backoff = min(backoff * 2, RETRY_CAP)
            if op.kind == "edit" and self._superseded(op):
                return Sent(None)
            chat = self._chats.get(op.chat_id)
            if chat is not None:
                # The failed attempt may have reached Telegram (a timed-out edit is applied, only its
                # answer lost) and counts in the chat's budget: the next one waits a turn of its own.
                await self._wait_turn(op.chat_id, chat)
        _LOG.warning("%s in chat %s failed %d times; given up", op.kind, op.chat_id, MAX_ATTEMPTS)
        return Sent(None)

    def _superseded(self, op: _Op) -> bool:
        """A newer edit of the same message is waiting: retrying this one is pointless."""
        chat = self._chats.get(op.chat_id)
        return chat is not None and op.message_id is not None and op.message_id in chat.edits

    async def _call_once(self, op: _Op) -> Sent:
        kwargs: dict[str, Any] = {"parse_mode": ParseMode.HTML, "reply_markup": op.content.markup}
        if op.reply_to is not None:
            kwargs["reply_parameters"] = ReplyParameters(op.reply_to, allow_sending_without_reply=True)
        if op.kind == "delete":
            assert op.message_id is not None
            await self.bot.delete_message(op.chat_id, op.message_id)
            self._sent.pop((op.chat_id, op.message_id), None)
            return Sent(op.message_id)
        if op.kind == "edit":
            assert op.message_id is not None
            if isinstance(self.bot, Bot):  # its answer (the edited message) is not needed
                await self._raw("editMessageText", op, kwargs, message_id=op.message_id)
            else:  # a test's stand-in for the bot
                await self.bot.edit_message_text(
                    op.content.text, chat_id=op.chat_id, message_id=op.message_id, **kwargs
                )
            self._remember(op.chat_id, op.message_id, op.content)
            return Sent(op.message_id)
        message: Message
        if op.kind == "photo":
            assert op.photo is not None
            message = await self.bot.send_photo(
                op.chat_id, op.photo, caption=op.content.text, message_thread_id=op.thread_id, **kwargs
            )
        elif op.kind == "document":
            assert op.document is not None
            file_name, file_data = op.document
            message = await self.bot.send_document(
                op.chat_id,
                InputFile(file_data, filename=file_name),
                caption=op.content.text,
                message_thread_id=op.thread_id,
                **kwargs,
            )
        elif isinstance(self.bot, Bot):  # of its answer only the new message's id is needed
            answer = await self._raw("sendMessage", op, kwargs, message_thread_id=op.thread_id)
            message_id = answer["message_id"] if isinstance(answer, dict) else None
            if not isinstance(message_id, int):
                _LOG.warning("sendMessage in chat %s answered no message id: %r", op.chat_id, answer)
                return Sent(None, uncertain=True)
            self._remember(op.chat_id, message_id, op.content)
            return Sent(message_id)
        else:  # a test's stand-in for the bot
            message = await self.bot.send_message(
                op.chat_id,
                op.content.text,
                message_thread_id=op.thread_id,
                link_preview_options=None,
                **kwargs,
            )
            self._remember(op.chat_id, message.message_id, op.content)
        return Sent(message.message_id)

    async def _raw(self, method: str, op: _Op, kwargs: dict[str, Any], **fields: Any) -> Any:
        """``op``'s text as ``method``, straight to the Bot API call; its answer as the JSON it is.

        python-telegram-bot's parsing an answer into objects cost more CPU than the call itself; the
        request layer underneath raises the same errors (RetryAfter, BadRequest...), and leaves out
        the fields that are None. The keyboard goes as JSON made once (:meth:`_markup_json`).
        """
        data = {"chat_id": op.chat_id, "text": op.content.text, **kwargs, **fields}
        if op.content.markup is not None:
            data["reply_markup"] = self._markup_json(op.content.markup)
        return await self.bot._post(method, data)

    def _markup_json(self, markup: InlineKeyboardMarkup) -> str:
        """A keyboard as the JSON the Bot API takes, made once per keyboard object.

        Keyboards are shared between renders (bot/handlers/hand_view.py keeps those a move did not
        change), so most edits carry one already made.
        """
        found = self._markups.get(id(markup))
        if found is not None and found[0] is markup:
            self._markups.move_to_end(id(markup))
            return found[1]
        text = markup_json(markup)
        self._markups[id(markup)] = (markup, text)
        if len(self._markups) > MARKUPS_KEPT:
            self._markups.popitem(last=False)
        return text

    def _remember(self, chat_id: int, message_id: int, content: Content) -> None:
        # Only to skip edits that change nothing; old messages are forgotten oldest first.
        self._sent.pop((chat_id, message_id), None)
        self._sent[(chat_id, message_id)] = content
        if len(self._sent) > MAX_REMEMBERED:
            for key in list(self._sent)[: MAX_REMEMBERED // 2]:
                del self._sent[key]


def _settle(op: _Op, sent: Sent) -> None:
    """Answer whoever waits for ``op`` (an edit skipped because the message shows it already)."""
    if op.future is not None and not op.future.done():
        op.future.set_result(sent)


#: The fields of a button besides its text, callback data and link: a button with any of them set is
#: made into JSON by python-telegram-bot itself.
_OTHER_FIELDS = tuple(f for f in InlineKeyboardButton.__slots__ if f not in ("text", "callback_data", "url"))
_others = operator.attrgetter(*_OTHER_FIELDS)
_NONE_OF_THEM = (None,) * len(_OTHER_FIELDS)


def markup_json(markup: InlineKeyboardMarkup) -> str:
    """``markup`` as the JSON the Bot API takes, as ``markup.to_dict()`` would give it.

    The bot's card buttons carry a text and callback data only; those are written directly, about
    four times quicker than python-telegram-bot's generic ``to_dict``. Any other button (a link)
    goes through ``to_dict``.
    """
    if not markup.inline_keyboard:  # python-telegram-bot leaves the empty list out
        return json.dumps(markup.to_dict(), ensure_ascii=False, separators=(",", ":"))
    rows = []
    for row in markup.inline_keyboard:
        out = []
        for b in row:
            if b.url is None and not b.api_kwargs and _others(b) == _NONE_OF_THEM:
                out.append({"callback_data": b.callback_data, "text": b.text})
            else:
                out.append(b.to_dict())
        rows.append(out)
    return json.dumps({"inline_keyboard": rows}, ensure_ascii=False, separators=(",", ":"))
