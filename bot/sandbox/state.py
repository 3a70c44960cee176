"""The emulated Telegram's state: the records it keeps, change notification, and lookups.

:class:`WorldState` creates every piece of state the world has — users, chats, messages, files,
callback queries, the call log, and the three parts with state of their own (the update queue
``updates.py``, the flood limits ``limits.py``, the injected faults ``faults.py``). The modules that
make up :class:`~bot.sandbox.world.World` build on it, each for one role:

* ``shapes.py`` — the Bot API JSON of chats, members, files and messages;
* ``store.py`` — storing messages (and which ones the bot sees in a group);
* ``users.py`` — what simulated users do; ``chats.py`` — groups, members, topics and the chat methods;
* ``callbacks.py`` — button taps and answerCallbackQuery; ``messages.py`` — sending, editing, deleting;
* ``bot_api.py`` — getMe, the webhook and the command menu; ``world.py`` — dispatching a call.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

from bot.sandbox.clock import Clock, SystemClock
from bot.sandbox.faults import FaultInjector
from bot.sandbox.limits import RateLimiter
from bot.sandbox.records import (
    MIGRATED,
    ApiCall,
    ApiError,
    CallbackRecord,
    ChatRecord,
    EmulatorConfig,
    Event,
    JSONDict,
    Params,
    SandboxError,
    StoredFile,
    StoredMessage,
    UserRecord,
    bad_request,
)
from bot.sandbox.updates import UpdateQueue


class WorldState:
    """The world's records and the helpers every part of it uses."""

    def __init__(self, config: EmulatorConfig | None = None, *, clock: Clock | None = None) -> None:
        self.config = config or EmulatorConfig()
        self.clock: Clock = clock or SystemClock()
        self.bot_id = int(self.config.token.split(":", 1)[0])
        self.bot = UserRecord(
            id=self.bot_id,
            first_name=self.config.bot_first_name,
            username=self.config.bot_username,
            is_bot=True,
            language_code=None,
        )
        self.users: dict[int, UserRecord] = {self.bot_id: self.bot}
        self.chats: dict[int, ChatRecord] = {}
        self.messages: dict[tuple[int, int], StoredMessage] = {}
        self._chat_messages: dict[int, list[int]] = {}
        self.files: dict[str, StoredFile] = {}
        self.callbacks: dict[str, CallbackRecord] = {}
        self.calls: list[ApiCall] = []
        self.events: list[Event] = []
        self.commands: dict[str, list[JSONDict]] = {}
        self.webhook_url = ""
        self._updates = UpdateQueue(
            self.config.first_update_id or 100_000_000 + secrets.randbelow(900_000_000)
        )
        # Bot API calls other than getUpdates, so "the bot went quiet" can ignore idle polling.
        self.api_call_count = 0
        self._user_ids = itertools.count(1_000_001)
        self._group_ids = itertools.count(4_001)
        self._supergroup_ids = itertools.count(1_000_000_001)
        self._waiters: set[asyncio.Future[None]] = set()
        self._version = 0
        self._rates = RateLimiter(self.config)
        self.last_api_activity = self.clock.time()
        self._faults = FaultInjector()

    # ----- time, change notification -----------------------------------------------------------

    def now(self) -> int:
        """Current Unix time in whole seconds, as Telegram dates are."""
        return int(self.clock.time())

    @property
    def version(self) -> int:
        """A counter that grows on every visible change."""
        return self._version

    def _changed(self) -> None:
        self._version += 1
        self._wake()

    def _wake(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    async def wait_change(self, timeout: float) -> bool:
        """Wait until anything changes or ``timeout`` seconds pass; True if something changed."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.add(waiter)
        try:
            await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            return False
        finally:
            self._waiters.discard(waiter)
        return True

    def wake_all(self) -> None:
        """Release every waiter, e.g. on shutdown."""
        self._wake()

    def _event(
        self, kind: str, chat_id: int, message_id: int | None = None, user_id: int | None = None
    ) -> None:
        self.events.append(Event(len(self.events) + 1, kind, chat_id, message_id, user_id))
        self._changed()

    def _queue_update(self, kind: str, payload: JSONDict) -> None:
        self._updates.push(kind, payload)
        self._changed()

    # ----- lookups ------------------------------------------------------------------------------

    def _user(self, user_id: int) -> UserRecord:
        try:
            return self.users[user_id]
        except KeyError:
            raise SandboxError(f"no user {user_id}") from None

    def _chat(self, chat_id: int) -> ChatRecord:
        try:
            return self.chats[chat_id]
        except KeyError:
            raise SandboxError(f"no chat {chat_id}") from None

    def _resolve_chat(self, params: Params, name: str = "chat_id") -> ChatRecord:
        raw = params.string(name)
        if raw is None or raw == "":
            raise bad_request("chat_id is empty")
        if raw.startswith("@"):
            for chat in self.chats.values():
                if chat.username and chat.username.lower() == raw[1:].lower():
                    return chat
            raise bad_request("chat not found")
        try:
            chat_id = int(raw)
        except ValueError:
            raise bad_request("chat not found") from None
        found = self.chats.get(chat_id)
        if found is None:
            raise bad_request("chat not found")
        if found.migrated_to is not None:
            raise ApiError(400, MIGRATED, migrate_to_chat_id=found.migrated_to)
        return found

    def _check_can_write(self, chat: ChatRecord) -> None:
        if chat.type == "private":
            user = self.users[chat.id]
            if user.blocked_bot:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if not user.started_bot:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
            return
        status = chat.members.get(self.bot_id)
        if status == "kicked":
            raise ApiError(403, f"Forbidden: bot was kicked from the {self._chat_noun(chat)} chat")
        if status not in ("member", "administrator", "creator"):
            raise ApiError(403, f"Forbidden: bot is not a member of the {self._chat_noun(chat)} chat")

    @staticmethod
    def _chat_noun(chat: ChatRecord) -> str:
        return "supergroup" if chat.type == "supergroup" else "group"

    def deep_link_payload(self, url: str) -> str | None:
        """The start payload of a ``t.me/<this bot>?start=...`` link, None for any other URL."""
        parts = urlsplit(url if "://" in url else f"https://{url}")
        if parts.hostname not in ("t.me", "telegram.me") or not self.bot.username:
            return None
        if parts.path.strip("/").lower() != self.bot.username.lower():
            return None
        values = parse_qs(parts.query).get("start")
        return values[0] if values else ""

    # ----- reading the world -------------------------------------------------------------------

    def chat_messages(self, chat_id: int, *, include_deleted: bool = False) -> list[StoredMessage]:
        """Messages of a chat, oldest first."""
        result = []
        for mid in self._chat_messages.get(chat_id, []):
            message = self.messages[(chat_id, mid)]
            if include_deleted or not message.deleted:
                result.append(message)
        return result

    def message(self, chat_id: int, message_id: int) -> StoredMessage:
        """One message by id."""
        try:
            return self.messages[(chat_id, message_id)]
        except KeyError:
            raise SandboxError(f"no message {message_id} in chat {chat_id}") from None

    def calls_of(self, method: str) -> list[ApiCall]:
        """Logged calls of one Bot API method (case-insensitive)."""
        return [call for call in self.calls if call.method.lower() == method.lower()]

    def iter_users(self) -> Iterator[UserRecord]:
        """Simulated users, the bot excluded, in creation order."""
        return (user for user in self.users.values() if not user.is_bot)
