"""One call to the Bot API and its faults: the part of the outbox (:mod:`bot.tg.outbox`) that talks to
Telegram.

A 429 is waited out for its ``retry_after``; a 5xx or a network error (Telegram did not apply the
call) is retried with exponential backoff; a timed-out send is not repeated (``uncertain``), a
timed-out edit is. A message and a keyboard go as the JSON the Bot API takes, a keyboard's made once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import operator
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
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

from bot.render.content import Content

_LOG = logging.getLogger(__name__)
MAX_REMEMBERED = 20_000
#: Keyboards whose JSON is kept (a few per seat of a few hundred live tables).
MARKUPS_KEPT = 4096
#: Attempts per call, and the backoff between attempts after a 5xx or a network error (seconds).
MAX_ATTEMPTS = 6
RETRY_FIRST = 0.5
RETRY_CAP = 8.0


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
class Op:
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


class Calls:
    """Makes the outbox's calls, one at a time, through its faults (see the module docstring)."""

    bot: Bot
    pace: Pace
    _sent: dict[tuple[int, int], Content]
    _markups: OrderedDict[int, tuple[InlineKeyboardMarkup, str]]
    on_blocked: Callable[[int], None] | None
    on_migrated: Callable[[int, int], None] | None

    def migrate(self, old: int, new: int) -> None:
        """A group became the supergroup ``new``: its waiting calls go there (the outbox's)."""
        raise NotImplementedError

    def _superseded(self, op: Op) -> bool:
        """A newer edit of the same message waits (the outbox's)."""
        raise NotImplementedError

    async def _turn_again(self, chat_id: int) -> None:
        """Wait the chat's turn again before a retry (the outbox's)."""
        raise NotImplementedError

    async def _call(self, op: Op) -> Sent:
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
            # The failed attempt may have reached Telegram (a timed-out edit is applied, only its
            # answer lost) and counts in the chat's budget: the next one waits a turn of its own.
            await self._turn_again(op.chat_id)
        _LOG.warning("%s in chat %s failed %d times; given up", op.kind, op.chat_id, MAX_ATTEMPTS)
        return Sent(None)

    async def _call_once(self, op: Op) -> Sent:
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

    async def _raw(self, method: str, op: Op, kwargs: dict[str, Any], **fields: Any) -> Any:
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

        Keyboards are shared between renders (bot/render/hand_view.py keeps those a move did not
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
