"""A test driver over the emulator: simulated users who write, start the bot, tap buttons and read.

Typical use in an async test::

    async with Emulator() as emulator, running_bot(build_application, emulator):
        driver = Driver(emulator.world)
        anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
        group = driver.add_group("Козлятник", [anya, boris])
        await anya.send(group, "/demo")
        prompt = await group.wait_bot_message(lambda m: bool(m.buttons))
        tap = await boris.tap(prompt, "Пас")
        assert tap.answer_text and "Пас" in tap.answer_text

Every wait is bounded (``default_timeout``) and fails with a readable dump of the chat.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from telegram.ext import Application

from bot.polling import Poller
from bot.sandbox.emulator import Emulator
from bot.sandbox.records import ApiCall, CallbackRecord, SandboxError, StoredMessage, UserRecord
from bot.sandbox.world import World

T = TypeVar("T")
AnyApplication = Application[Any, Any, Any, Any, Any, Any]


@asynccontextmanager
async def running_bot(
    factory: Callable[..., AnyApplication], emulator: Emulator, *, poll_timeout: float = 1.0
) -> AsyncIterator[AnyApplication]:
    """Run ``factory(token, base_url=..., base_file_url=...)`` polling the emulator, then stop it cleanly."""
    application = factory(emulator.token, base_url=emulator.base_url, base_file_url=emulator.base_file_url)
    await application.initialize()
    await application.start()
    # The bot's own poller (bot/polling.py), as `python -m bot` runs in polling mode.
    poller = Poller(application, timeout=max(1, round(poll_timeout)))
    poller.start()
    try:
        yield application
    finally:
        await poller.close()
        await application.stop()
        await application.shutdown()


@dataclass
class TapResult:
    """What a tap did: the callback query (with the bot's answer) or the URL a url button opened."""

    callback: CallbackRecord | None
    url: str | None = None

    @property
    def answered(self) -> bool:
        """Whether the bot answered the callback query."""
        return self.callback is not None and self.callback.answered

    @property
    def answer_text(self) -> str | None:
        """The toast or alert text of the answer."""
        return self.callback.answer_text if self.callback else None

    @property
    def show_alert(self) -> bool:
        """Whether the answer is an alert rather than a toast."""
        return bool(self.callback and self.callback.show_alert)

    @property
    def answer_url(self) -> str | None:
        """The URL the answer asked the client to open (a t.me deep link)."""
        return self.callback.url if self.callback else None


def describe(message: StoredMessage) -> str:
    """One line describing a message, for failure messages."""
    sender = "bot" if message.from_bot else f"user {message.sender_id}"
    buttons = " | ".join(" ".join(f"[{b.get('text')}]" for b in row) for row in message.buttons)
    flags = " (edited)" if message.edit_date else ""
    return f"#{message.message_id} {sender}{flags}: {message.content!r} {buttons}".rstrip()


class SimChat:
    """A chat as the simulated users see it, with a read cursor over the bot's messages."""

    def __init__(self, driver: Driver, chat_id: int) -> None:
        self.driver = driver
        self.id = chat_id
        self._read_up_to = 0

    @property
    def world(self) -> World:
        """The emulated world."""
        return self.driver.world

    @property
    def messages(self) -> list[StoredMessage]:
        """Visible messages, oldest first."""
        return self.world.chat_messages(self.id)

    @property
    def bot_messages(self) -> list[StoredMessage]:
        """Visible messages sent by the bot."""
        return [m for m in self.messages if m.from_bot]

    @property
    def last_bot_message(self) -> StoredMessage | None:
        """The newest visible bot message."""
        bot_messages = self.bot_messages
        return bot_messages[-1] if bot_messages else None

    def unread(self) -> list[StoredMessage]:
        """Bot messages newer than the read cursor."""
        return [m for m in self.bot_messages if m.message_id > self._read_up_to]

    def mark_read(self) -> None:
        """Move the read cursor past every message in the chat."""
        messages = self.messages
        if messages:
            self._read_up_to = max(self._read_up_to, messages[-1].message_id)

    def message(self, message_id: int) -> StoredMessage:
        """A message by id (deleted ones included)."""
        return self.world.message(self.id, message_id)

    def transcript(self) -> str:
        """The chat as text, for failure messages and debugging."""
        return "\n".join(describe(m) for m in self.messages) or "(no messages)"

    async def wait_bot_message(
        self, predicate: Callable[[StoredMessage], bool] | None = None, *, timeout: float | None = None
    ) -> StoredMessage:
        """Wait for the first unread bot message matching ``predicate``; it and older ones become read."""

        def find() -> StoredMessage | None:
            return next((m for m in self.unread() if predicate is None or predicate(m)), None)

        found = await self.driver.wait_for(
            find, timeout=timeout, what=f"a bot message in chat {self.id}", chat=self
        )
        self._read_up_to = max(self._read_up_to, found.message_id)
        return found

    async def wait_text(self, pattern: str, *, timeout: float | None = None) -> StoredMessage:
        """Wait for an unread bot message whose text matches the regular expression ``pattern``."""
        regex = re.compile(pattern)
        return await self.wait_bot_message(lambda m: bool(regex.search(m.content)), timeout=timeout)

    async def wait_edit(
        self,
        message: StoredMessage,
        predicate: Callable[[StoredMessage], bool] | None = None,
        *,
        timeout: float | None = None,
    ) -> StoredMessage:
        """Wait until ``message`` is edited again (and then matches ``predicate``)."""
        edits = message.edits

        def edited() -> StoredMessage | None:
            ok = message.edits > edits and (predicate is None or predicate(message))
            return message if ok else None

        return await self.driver.wait_for(
            edited, timeout=timeout, what=f"an edit of message {message.message_id}", chat=self
        )

    async def wait_until(
        self,
        message: StoredMessage,
        predicate: Callable[[StoredMessage], bool],
        *,
        timeout: float | None = None,
    ) -> StoredMessage:
        """Wait until ``message`` (as edited so far) satisfies ``predicate``."""
        return await self.driver.wait_for(
            lambda: message if predicate(message) else None,
            timeout=timeout,
            what=f"message {message.message_id} to reach the expected state",
            chat=self,
        )

    async def wait_deleted(self, message: StoredMessage, *, timeout: float | None = None) -> None:
        """Wait until the bot deletes ``message``."""
        await self.driver.wait_for(
            lambda: True if message.deleted else None,
            timeout=timeout,
            what=f"deletion of message {message.message_id}",
            chat=self,
        )


class SimGroup(SimChat):
    """A group or supergroup (possibly a forum)."""

    @property
    def title(self) -> str:
        """The group's title."""
        return self.world.chats[self.id].title or ""

    def add_topic(self, name: str, *, by: SimUser) -> int:
        """Create a forum topic; returns its message_thread_id."""
        return self.world.create_topic(self.id, name, by=by.id)

    def topic_messages(self, thread_id: int | None) -> list[StoredMessage]:
        """Visible messages of one topic (None: the General topic)."""
        return [m for m in self.messages if m.thread_id == thread_id]

    def set_bot_status(self, status: str) -> None:
        """Make the bot an "administrator" or a plain "member" (or remove it: "left" / "kicked")."""
        self.world.set_bot_status(self.id, status)

    def upgrade(self, *, by: SimUser) -> SimGroup:
        """Upgrade this basic group to a supergroup (a new chat id); returns the supergroup."""
        chat = self.world.migrate_to_supergroup(self.id, by=by.id)
        return SimGroup(self.driver, chat.id)


class SimUser:
    """A simulated Telegram user."""

    def __init__(self, driver: Driver, record: UserRecord) -> None:
        self.driver = driver
        self.record = record
        self.dm = SimChat(driver, record.id)

    @property
    def id(self) -> int:
        """The user id (also the id of their private chat with the bot)."""
        return self.record.id

    @property
    def name(self) -> str:
        """The user's first name."""
        return self.record.first_name

    def __repr__(self) -> str:
        return f"SimUser({self.name!r}, id={self.id})"

    async def send(
        self,
        chat: SimChat | int,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: StoredMessage | int | None = None,
    ) -> StoredMessage:
        """Type ``text`` into a chat (a group, or this user's DM with the bot)."""
        chat_id = chat.id if isinstance(chat, SimChat) else chat
        reply_id = reply_to.message_id if isinstance(reply_to, StoredMessage) else reply_to
        message = self.driver.world.user_sends(self.id, chat_id, text, thread_id=thread_id, reply_to=reply_id)
        await asyncio.sleep(0)
        return message

    async def send_dm(self, text: str) -> StoredMessage:
        """Write to the bot in private."""
        return await self.send(self.dm, text)

    async def start(self, payload: str | None = None) -> StoredMessage:
        """Start the bot in private, optionally through a deep link's payload."""
        message = self.driver.world.start_bot(self.id, payload)
        await asyncio.sleep(0)
        return message

    async def open_url(self, url: str) -> StoredMessage | None:
        """Open a URL: a ``t.me/<bot>?start=...`` link starts the bot with its payload."""
        message = self.driver.world.follow_url(self.id, url)
        await asyncio.sleep(0)
        return message

    def block_bot(self) -> None:
        """Block the bot (it then gets 403 writing here)."""
        self.driver.world.set_blocked(self.id, True)

    def unblock_bot(self) -> None:
        """Unblock the bot."""
        self.driver.world.set_blocked(self.id, False)

    async def tap(
        self,
        message: StoredMessage,
        text: str | None = None,
        *,
        data: str | None = None,
        wait_answer: bool = True,
        follow_url: bool = False,
        timeout: float | None = None,
    ) -> TapResult:
        """Tap the button of ``message`` whose label contains ``text`` (or whose callback data is ``data``).

        With ``wait_answer`` the call waits until the bot answers the callback query (a real client
        shows a spinner until then). With ``follow_url`` an answer URL or url button is opened.
        """
        row, column = self._find_button(message, text, data)
        outcome = self.driver.world.tap(self.id, message.chat_id, message.message_id, row=row, column=column)
        if isinstance(outcome, str):
            if follow_url:
                await self.open_url(outcome)
            return TapResult(callback=None, url=outcome)
        if wait_answer:
            await self.driver.wait_for(
                lambda: True if outcome.answered else None,
                timeout=timeout,
                what=f"an answer to {self.name}'s tap on {message.buttons[row][column].get('text')!r}",
            )
            if follow_url and outcome.url:
                await self.open_url(outcome.url)
        return TapResult(callback=outcome)

    @staticmethod
    def _find_button(message: StoredMessage, text: str | None, data: str | None) -> tuple[int, int]:
        for r, row in enumerate(message.buttons):
            for c, button in enumerate(row):
                if data is not None and button.get("callback_data") == data:
                    return r, c
                if data is None and (text is None or text in str(button.get("text", ""))):
                    return r, c
        raise SandboxError(f"no button {text or data!r} on {describe(message)}")


class Driver:
    """Creates simulated users and groups and waits for the bot's reactions."""

    def __init__(self, world: World, *, default_timeout: float = 5.0) -> None:
        self.world = world
        self.default_timeout = default_timeout

    def add_user(self, first_name: str, **details: Any) -> SimUser:
        """A new simulated user (``last_name``, ``username``, ``language_code`` may be given)."""
        return SimUser(self, self.world.add_user(first_name, **details))

    def user(self, user_id: int) -> SimUser:
        """A handle on an existing user."""
        return SimUser(self, self.world.users[user_id])

    def add_group(
        self,
        title: str,
        members: list[SimUser],
        *,
        supergroup: bool = True,
        forum: bool = False,
        admins: list[SimUser] | None = None,
        bot_status: str | None = "member",
        username: str | None = None,
    ) -> SimGroup:
        """A group created by the first member, with the bot added as ``bot_status``."""
        chat = self.world.add_group(
            title,
            [m.id for m in members],
            supergroup=supergroup,
            forum=forum,
            admins=[a.id for a in admins or []],
            bot_status=bot_status,
            username=username,
        )
        return SimGroup(self, chat.id)

    def group(self, chat_id: int) -> SimGroup:
        """A handle on an existing group."""
        return SimGroup(self, chat_id)

    def calls(self, method: str | None = None) -> list[ApiCall]:
        """The Bot API call log, optionally of one method."""
        return list(self.world.calls) if method is None else self.world.calls_of(method)

    def failed_calls(self) -> list[ApiCall]:
        """Calls Telegram would have refused."""
        return [call for call in self.world.calls if not call.ok]

    async def wait_for(
        self,
        probe: Callable[[], T | None],
        *,
        timeout: float | None = None,
        what: str = "a condition",
        chat: SimChat | None = None,
    ) -> T:
        """Wait until ``probe()`` returns something other than None and return it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.default_timeout if timeout is None else timeout)
        while True:
            found = probe()
            if found is not None:
                return found
            remaining = deadline - loop.time()
            if remaining <= 0:
                detail = f"\n--- chat {chat.id} ---\n{chat.transcript()}" if chat is not None else ""
                failed = [f"{c.method}: {c.description}" for c in self.failed_calls()[-5:]]
                if failed:
                    detail += "\n--- last refused calls ---\n" + "\n".join(failed)
                raise TimeoutError(f"timed out waiting for {what}{detail}")
            await self.world.wait_change(min(remaining, 0.25))

    async def settle(self, *, quiet: float = 0.1, timeout: float | None = None) -> None:
        """Wait until the bot has fetched every update and made no API call for ``quiet`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.default_timeout if timeout is None else timeout)
        calls_seen = self.world.api_call_count
        quiet_since = loop.time()
        while True:
            now = loop.time()
            if self.world.api_call_count != calls_seen or self.world.undelivered_updates:
                calls_seen = self.world.api_call_count
                quiet_since = now
            elif now - quiet_since >= quiet:
                return
            if now > deadline:
                raise TimeoutError(
                    f"the bot did not settle within the timeout ({self.world.undelivered_updates} "
                    "updates not fetched)"
                )
            await asyncio.sleep(min(quiet / 4, 0.05))
