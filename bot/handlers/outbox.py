"""Everything the bot sends goes through the outbox: paced per chat, with edits coalesced.

Telegram allows about 20 messages (edits included) a minute in a group and about one a second in a
private chat. Rather than bursting and then stalling, the outbox spaces calls to each chat evenly;
while a call waits its turn, newer content for the same message replaces the older, so quick play
costs few calls and the last state always arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from telegram import Bot, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, RetryAfter, TelegramError

_LOG = logging.getLogger(__name__)
MAX_REMEMBERED = 20_000


@dataclass(frozen=True)
class Limits:
    """Seconds between two calls to one group, to one private chat, and to Telegram at all."""

    # 20 a minute would be 3.0 s; the margin keeps clock jitter from making a 21st call in a minute.
    group_interval: float = 3.1
    private_interval: float = 1.0
    global_interval: float = 1 / 30
    #: Seconds since the chat's last call before a non-urgent edit (a card inside a trick) goes out.
    #: Quick players then cost about one group edit per trick; slow ones still see every card.
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


@dataclass
class _Op:
    kind: str  # "edit", "send" or "photo"
    chat_id: int
    content: Content
    message_id: int | None = None
    thread_id: int | None = None
    photo: bytes | None = None
    future: asyncio.Future[Sent] | None = None
    urgent: bool = True


@dataclass
class _Chat:
    queue: deque[_Op] = field(default_factory=deque)
    edits: dict[int, _Op] = field(default_factory=dict)
    next_at: float = 0.0
    last_at: float = float("-inf")
    task: asyncio.Task[None] | None = None


@dataclass
class CallLog:
    """Calls made per chat (for the bench and the tests)."""

    calls: dict[int, list[float]] = field(default_factory=dict)

    def add(self, chat_id: int, at: float) -> None:
        """Log a call to ``chat_id`` at time ``at``."""
        self.calls.setdefault(chat_id, []).append(at)


class Outbox:
    """Paced, coalescing sends and edits; see the module docstring."""

    def __init__(
        self,
        bot: Bot,
        *,
        limits: Limits | None = None,
        pace: Pace | None = None,
        on_error: Callable[[BaseException], Awaitable[None]] | None = None,
    ) -> None:
        self.bot = bot
        self.limits = limits or Limits()
        self.pace: Pace = pace or LoopPace()
        self.log = CallLog()
        self._chats: dict[int, _Chat] = {}
        self._sent: dict[tuple[int, int], Content] = {}
        self._global_at = 0.0
        self._on_error = on_error

    def edit(self, chat_id: int, message_id: int, content: Content, *, urgent: bool = True) -> None:
        """Show ``content`` in a message; an edit still waiting for the same message is replaced.

        A non-urgent edit waits ``Limits.relaxed_interval`` after the chat's last call, unless an
        urgent one for the same message replaces it first.
        """
        if self._sent.get((chat_id, message_id)) == content:
            chat = self._chats.get(chat_id)
            pending = chat.edits.get(message_id) if chat else None
            if pending is None:
                return
        chat = self._chats.setdefault(chat_id, _Chat())
        pending = chat.edits.get(message_id)
        if pending is not None:
            pending.content = content
            pending.urgent = pending.urgent or urgent
            return
        op = _Op("edit", chat_id, content, message_id=message_id, urgent=urgent)
        chat.edits[message_id] = op
        chat.queue.append(op)
        self._wake(chat_id, chat)

    async def send(self, chat_id: int, content: Content, *, thread_id: int | None = None) -> Sent:
        """Send a new message when its turn comes; ``Sent.forbidden`` if the user blocked the bot."""
        return await self._enqueue(_Op("send", chat_id, content, thread_id=thread_id))

    async def send_photo(
        self, chat_id: int, photo: bytes, caption: Content, *, thread_id: int | None = None
    ) -> Sent:
        """Send a picture with a caption."""
        return await self._enqueue(_Op("photo", chat_id, caption, thread_id=thread_id, photo=photo))

    async def _enqueue(self, op: _Op) -> Sent:
        op.future = asyncio.get_running_loop().create_future()
        chat = self._chats.setdefault(op.chat_id, _Chat())
        chat.queue.append(op)
        self._wake(op.chat_id, chat)
        return await op.future

    def _wake(self, chat_id: int, chat: _Chat) -> None:
        if chat.task is None or chat.task.done():
            chat.task = asyncio.create_task(self._run(chat_id, chat), name=f"outbox {chat_id}")

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
                continue
            if not op.urgent:
                relaxed_at = chat.last_at + self.limits.relaxed_interval
                now = self.pace.now()
                if now < relaxed_at:
                    # Polled rather than woken: an urgent call may arrive meanwhile and go first.
                    await self.pace.sleep(min(0.25, relaxed_at - now))
                    continue
            await self._wait_turn(chat_id, chat)
            self._take(chat, op)
            if op.kind == "edit" and self._sent.get((chat_id, op.message_id or 0)) == op.content:
                continue
            result = await self._call(op)
            if op.future is not None and not op.future.done():
                op.future.set_result(result)

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
        now = max(self.pace.now(), at)
        chat.next_at = now + interval
        chat.last_at = now
        self._global_at = now + self.limits.global_interval
        self.log.add(chat_id, now)

    async def _call(self, op: _Op) -> Sent:
        for _ in range(5):
            try:
                return await self._call_once(op)
            except RetryAfter as e:
                # Only when someone else spent this chat's budget (another process): wait and retry.
                delay = (
                    e.retry_after if isinstance(e.retry_after, int | float) else e.retry_after.total_seconds()
                )
                await self.pace.sleep(float(delay))
            except Forbidden:
                return Sent(None, forbidden=True)
            except BadRequest as e:
                if "not modified" in e.message:
                    return Sent(op.message_id)
                _LOG.warning("Telegram refused %s in chat %s: %s", op.kind, op.chat_id, e.message)
                return Sent(None)
            except TelegramError as e:
                _LOG.warning("%s in chat %s failed: %s", op.kind, op.chat_id, e)
                return Sent(None)
        return Sent(None)

    async def _call_once(self, op: _Op) -> Sent:
        kwargs: dict[str, Any] = {"parse_mode": ParseMode.HTML, "reply_markup": op.content.markup}
        if op.kind == "edit":
            assert op.message_id is not None
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
        else:
            message = await self.bot.send_message(
                op.chat_id,
                op.content.text,
                message_thread_id=op.thread_id,
                link_preview_options=None,
                **kwargs,
            )
            self._remember(op.chat_id, message.message_id, op.content)
        return Sent(message.message_id)

    def _remember(self, chat_id: int, message_id: int, content: Content) -> None:
        # Only to skip edits that change nothing; old messages are forgotten oldest first.
        self._sent.pop((chat_id, message_id), None)
        self._sent[(chat_id, message_id)] = content
        if len(self._sent) > MAX_REMEMBERED:
            for key in list(self._sent)[: MAX_REMEMBERED // 2]:
                del self._sent[key]
