"""The emulated Telegram world: users, chats, messages, updates, and the Bot API methods over them.

Everything here is synchronous and single-threaded (it lives on one asyncio loop); the HTTP layer in
``emulator.py`` turns requests into :meth:`World.call` and long-polls with :meth:`World.wait_change`.
Errors are raised as :class:`ApiError` with Telegram's own codes and descriptions, so that
python-telegram-bot raises the same exceptions it would raise in production.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import math
import random
import re
import secrets
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bot.sandbox.clock import Clock, SystemClock
from bot.sandbox.formatting import EntityParseError, parse_text, user_entities, utf16_len
from bot.sandbox.records import (
    MIGRATED,
    SERVER_ERRORS,
    ApiCall,
    ApiError,
    CallbackRecord,
    ChatRecord,
    EmulatorConfig,
    Event,
    Fault,
    JSONDict,
    LateAnswer,
    Params,
    SandboxError,
    StoredFile,
    StoredMessage,
    UserRecord,
    bad_request,
    image_size,
)

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_CALLBACK_DATA = 64
MAX_BUTTONS = 100
MAX_BUTTONS_PER_ROW = 8
MAX_CALLBACK_ANSWER = 200
# Updates Telegram leaves out when a bot does not ask for them explicitly.
_OPT_IN_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
_COUNTED_METHODS = frozenset(
    {
        "sendmessage",
        "sendphoto",
        "senddocument",
        "editmessagetext",
        "editmessagecaption",
        "editmessagereplymarkup",
    }
)
_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
_TEXT_BUTTONS = "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"


class World:
    """All state of the emulated Telegram and the Bot API methods that act on it."""

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
        self._updates: deque[JSONDict] = deque()
        self._next_update_id = self.config.first_update_id or 100_000_000 + secrets.randbelow(900_000_000)
        self._last_confirmed = 0
        self._last_delivered = 0
        # Bot API calls other than getUpdates, so "the bot went quiet" can ignore idle polling.
        self.api_call_count = 0
        self._allowed_updates: list[str] | None = None
        self._user_ids = itertools.count(1_000_001)
        self._group_ids = itertools.count(4_001)
        self._supergroup_ids = itertools.count(1_000_000_001)
        self._waiters: set[asyncio.Future[None]] = set()
        self._version = 0
        self._chat_buckets: dict[int, tuple[float, float]] = {}
        self._group_windows: dict[int, deque[float]] = {}
        self._global_window: deque[float] = deque()
        self._poll_generation = 0
        self.last_api_activity = self.clock.time()
        #: Injected failures, first match wins (see :meth:`inject_faults`).
        self.faults: list[Fault] = []
        self._fault_rng = random.Random(0)
        self._methods: dict[str, Callable[[Params], Any]] = {
            name.lower(): getattr(self, f"api_{name}")
            for name in (
                "getMe",
                "logOut",
                "close",
                "deleteWebhook",
                "setWebhook",
                "getWebhookInfo",
                "setMyCommands",
                "getMyCommands",
                "deleteMyCommands",
                "sendMessage",
                "sendPhoto",
                "sendDocument",
                "editMessageText",
                "editMessageCaption",
                "editMessageReplyMarkup",
                "deleteMessage",
                "deleteMessages",
                "answerCallbackQuery",
                "getChat",
                "getChatMember",
                "getChatAdministrators",
                "getChatMemberCount",
                "sendChatAction",
                "pinChatMessage",
                "unpinChatMessage",
                "unpinAllChatMessages",
                "getFile",
                "leaveChat",
            )
        }

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

    # ----- building the world ------------------------------------------------------------------

    def add_user(
        self,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "ru",
        user_id: int | None = None,
    ) -> UserRecord:
        """Create a simulated account with its (not yet started) private chat with the bot."""
        uid = user_id if user_id is not None else next(self._user_ids)
        if uid in self.users:
            raise SandboxError(f"user id {uid} already exists")
        user = UserRecord(
            id=uid, first_name=first_name, last_name=last_name, username=username, language_code=language_code
        )
        self.users[uid] = user
        self.chats[uid] = ChatRecord(id=uid, type="private", members={uid: "member", self.bot_id: "member"})
        self._chat_messages[uid] = []
        return user

    def add_group(
        self,
        title: str,
        members: list[int],
        *,
        supergroup: bool = True,
        forum: bool = False,
        username: str | None = None,
        owner: int | None = None,
        admins: list[int] | None = None,
        bot_status: str | None = "member",
        chat_id: int | None = None,
    ) -> ChatRecord:
        """Create a group whose first member (or ``owner``) created it, and optionally add the bot."""
        if forum and not supergroup:
            raise SandboxError("only supergroups can be forums")
        if chat_id is None:
            chat_id = (
                -(1_000_000_000_000 + next(self._supergroup_ids)) if supergroup else -next(self._group_ids)
            )
        chat = ChatRecord(
            id=chat_id,
            type="supergroup" if supergroup else "group",
            title=title,
            username=username,
            is_forum=forum,
        )
        creator = owner if owner is not None else (members[0] if members else None)
        for uid in members:
            if uid not in self.users:
                raise SandboxError(f"no user {uid}")
            chat.members[uid] = "member"
        for uid in admins or []:
            chat.members[uid] = "administrator"
        if creator is not None:
            chat.members[creator] = "creator"
        self.chats[chat_id] = chat
        self._chat_messages[chat_id] = []
        if bot_status is not None:
            self.add_bot_to_group(chat_id, by=creator, status=bot_status)
        return chat

    def add_bot_to_group(self, chat_id: int, *, by: int | None, status: str = "member") -> None:
        """Add the bot to a group: a ``new_chat_members`` service message and a my_chat_member update."""
        chat = self._chat(chat_id)
        old = chat.members.get(self.bot_id, "left")
        chat.members[self.bot_id] = status
        actor = by if by is not None else self.bot_id
        self._queue_update(
            "my_chat_member",
            {
                "chat": self._chat_json(chat),
                "from": self.users[actor].to_json(),
                "date": self.now(),
                "old_chat_member": self._member_json(chat, self.bot_id, old),
                "new_chat_member": self._member_json(chat, self.bot_id, status),
            },
        )
        if by is not None:
            self._store_incoming(
                chat, by, text=None, service={"new_chat_members": [self.bot.to_json()]}, thread_id=None
            )

    def set_bot_status(self, chat_id: int, status: str) -> None:
        """Promote or demote the bot in a group (sends my_chat_member like Telegram)."""
        chat = self._chat(chat_id)
        old = chat.members.get(self.bot_id, "left")
        chat.members[self.bot_id] = status
        owner = next((uid for uid, s in chat.members.items() if s == "creator"), self.bot_id)
        self._queue_update(
            "my_chat_member",
            {
                "chat": self._chat_json(chat),
                "from": self.users[owner].to_json(),
                "date": self.now(),
                "old_chat_member": self._member_json(chat, self.bot_id, old),
                "new_chat_member": self._member_json(chat, self.bot_id, status),
            },
        )

    def create_topic(self, chat_id: int, name: str, *, by: int) -> int:
        """Create a forum topic; returns its message_thread_id (the id of its creation message)."""
        chat = self._chat(chat_id)
        if not chat.is_forum:
            raise SandboxError("topics exist only in forum supergroups")
        thread_id = chat.next_message_id
        chat.topics[thread_id] = name
        self._store_incoming(
            chat,
            by,
            text=None,
            service={"forum_topic_created": {"name": name, "icon_color": 7322096}},
            thread_id=thread_id,
        )
        return thread_id

    def migrate_to_supergroup(self, chat_id: int, *, by: int) -> ChatRecord:
        """Upgrade a basic group to a supergroup, as Telegram does when a group grows or changes settings.

        The supergroup gets a new id and the same members. Telegram then sends two service messages:
        ``migrate_to_chat_id`` in the old group, ``migrate_from_chat_id`` in the new supergroup. From
        then on every call naming the old id fails with 400 "group chat was upgraded to a supergroup
        chat" carrying ``migrate_to_chat_id``. The old messages are not the bot's to edit in the new
        chat (their ids there are unknown to it), so the supergroup starts without them.
        """
        chat = self._chat(chat_id)
        if chat.type != "group" or chat.migrated_to is not None:
            raise SandboxError("only a basic group that was not upgraded yet can become a supergroup")
        if chat.members.get(by) not in ("creator", "administrator"):
            raise SandboxError("only the group's owner or an admin can upgrade it")
        new_id = -(1_000_000_000_000 + next(self._supergroup_ids))
        new = ChatRecord(
            id=new_id, type="supergroup", title=chat.title, username=chat.username, members=dict(chat.members)
        )
        self.chats[new_id] = new
        self._chat_messages[new_id] = []
        self._store_incoming(chat, by, text=None, service={"migrate_to_chat_id": new_id}, thread_id=None)
        chat.migrated_to = new_id
        self._store_incoming(new, by, text=None, service={"migrate_from_chat_id": chat_id}, thread_id=None)
        return new

    # ----- what simulated users do -------------------------------------------------------------

    def user_sends(
        self,
        user_id: int,
        chat_id: int,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: int | None = None,
    ) -> StoredMessage:
        """A user types ``text`` into a chat; the bot gets an update if Telegram would send one."""
        user = self._user(user_id)
        chat = self._chat(chat_id)
        if not text:
            raise SandboxError("Telegram clients do not send empty messages")
        if chat.type == "private":
            if chat_id != user_id:
                raise SandboxError("a user can only write in their own private chat with the bot")
            is_start = text == "/start" or text.startswith("/start ")
            if user.blocked_bot:
                # Clients offer "Restart" on a blocked bot: it unblocks and sends /start.
                self.set_blocked(user_id, False)
                if not is_start:
                    raise SandboxError(f"{user.first_name} blocked the bot and must restart it with /start")
            if not user.started_bot and not is_start:
                raise SandboxError(f"{user.first_name} has not started the bot: the client only offers START")
            if is_start:
                user.started_bot = True
        elif chat.migrated_to is not None:
            raise SandboxError(f"{chat.title!r} is now the supergroup {chat.migrated_to}")
        elif chat.members.get(user_id) not in ("creator", "administrator", "member"):
            raise SandboxError(f"{user.first_name} is not a member of {chat.title!r}")
        if utf16_len(text) > MAX_TEXT:
            raise SandboxError("Telegram clients split text over 4096 characters")
        if thread_id is not None and chat.is_forum and thread_id not in chat.topics:
            raise SandboxError(f"no topic {thread_id} in {chat.title!r}")
        if reply_to is not None:
            target = self.messages.get((chat_id, reply_to))
            if target is None or target.deleted:
                raise SandboxError(f"no message {reply_to} to reply to")
            if chat.is_forum and thread_id is None:
                thread_id = target.thread_id
        return self._store_incoming(chat, user_id, text=text, thread_id=thread_id, reply_to=reply_to)

    def start_bot(self, user_id: int, payload: str | None = None) -> StoredMessage:
        """The user opens the bot (optionally via a t.me deep link) and presses START."""
        if payload is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", payload):
            raise SandboxError("deep-link payloads are 1-64 characters of A-Z, a-z, 0-9, _ and -")
        text = "/start" if payload is None else f"/start {payload}"
        return self.user_sends(user_id, user_id, text)

    def set_blocked(self, user_id: int, blocked: bool) -> None:
        """The user blocks (or unblocks) the bot; the bot gets a my_chat_member update."""
        user = self._user(user_id)
        if user.blocked_bot == blocked:
            return
        user.blocked_bot = blocked
        chat = self.chats[user_id]
        old, new = ("member", "kicked") if blocked else ("kicked", "member")
        self._queue_update(
            "my_chat_member",
            {
                "chat": self._chat_json(chat),
                "from": user.to_json(),
                "date": self.now(),
                "old_chat_member": self._member_json(chat, self.bot_id, old),
                "new_chat_member": self._member_json(chat, self.bot_id, new),
            },
        )
        self._changed()

    def tap(
        self, user_id: int, chat_id: int, message_id: int, *, row: int, column: int
    ) -> CallbackRecord | str:
        """A user taps an inline button: a callback query for callback buttons, the URL for url buttons."""
        user = self._user(user_id)
        chat = self._chat(chat_id)
        message = self.messages.get((chat_id, message_id))
        if message is None or message.deleted:
            raise SandboxError(f"message {message_id} is not in the chat")
        if chat.type == "private" and chat_id != user_id:
            raise SandboxError("users see only their own private chat")
        if chat.migrated_to is not None:
            raise SandboxError(f"{chat.title!r} is now the supergroup {chat.migrated_to}")
        if chat.is_group and chat.members.get(user_id) not in ("creator", "administrator", "member"):
            raise SandboxError(f"{user.first_name} is not a member of {chat.title!r}")
        try:
            button = message.buttons[row][column]
        except IndexError:
            raise SandboxError(f"message {message_id} has no button at row {row}, column {column}") from None
        if "url" in button:
            return str(button["url"])
        if "callback_data" not in button:
            raise SandboxError(f"the button {button.get('text')!r} is not a callback button")
        query_id = str(secrets.randbits(63))
        record = CallbackRecord(
            id=query_id,
            user_id=user_id,
            chat_id=chat_id,
            message_id=message_id,
            data=button["callback_data"],
            created_at=self.clock.time(),
        )
        self.callbacks[query_id] = record
        self._queue_update(
            "callback_query",
            {
                "id": query_id,
                "from": user.to_json(),
                "message": self._message_json(message),
                "chat_instance": self._chat_instance(chat_id),
                "data": button["callback_data"],
            },
        )
        self._event("tap", chat_id, message_id, user_id)
        return record

    def deep_link_payload(self, url: str) -> str | None:
        """The start payload of a ``t.me/<this bot>?start=...`` link, None for any other URL."""
        parts = urlsplit(url if "://" in url else f"https://{url}")
        if parts.hostname not in ("t.me", "telegram.me") or not self.bot.username:
            return None
        if parts.path.strip("/").lower() != self.bot.username.lower():
            return None
        values = parse_qs(parts.query).get("start")
        return values[0] if values else ""

    def follow_url(self, user_id: int, url: str) -> StoredMessage | None:
        """Open a URL as the user: a deep link to this bot starts it with the payload; others do nothing."""
        payload = self.deep_link_payload(url)
        if payload is None:
            return None
        return self.start_bot(user_id, payload or None)

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

    @property
    def pending_updates(self) -> int:
        """Updates queued but not yet confirmed by the bot."""
        return len(self._updates)

    @property
    def undelivered_updates(self) -> int:
        """Updates the bot has not fetched yet."""
        return sum(1 for update in self._updates if update["update_id"] > self._last_delivered)

    def queued_update_ids(self) -> list[int]:
        """Ids of the updates queued and not yet confirmed by the bot (fetched or not)."""
        return [update["update_id"] for update in self._updates]

    def take_updates(self) -> list[JSONDict]:
        """Remove and return every queued update, for delivering them by webhook (to one or more bots)."""
        taken = list(self._updates)
        self._updates.clear()
        if taken:
            self._last_delivered = max(self._last_delivered, taken[-1]["update_id"])
        return taken

    # ----- the Bot API -------------------------------------------------------------------------

    def call(self, method: str, params: Params) -> Any:
        """Run one Bot API method and log it; raises :class:`ApiError` as Telegram would answer."""
        handler = self._methods.get(method.lower())
        self.last_api_activity = self.clock.time()
        loggable = {k: v for k, v in params.raw.items()}
        for name, (filename, _, data) in params.files.items():
            loggable[name] = f"<file {filename or name}: {len(data)} bytes>"
        call = ApiCall(
            seq=len(self.calls) + 1, method=method, params=loggable, time=self.clock.time(), ok=False
        )
        with contextlib.suppress(ApiError, ValueError):
            call.chat_id = params.integer("chat_id")
        if method.lower() != "getupdates":
            self.calls.append(call)
            self.api_call_count += 1
        fault = self._take_fault(method, call.chat_id)
        try:
            if handler is None:
                raise ApiError(404, "Not Found")
            if fault is not None and not fault.delay:
                raise fault.error()
            if method.lower() in _COUNTED_METHODS:
                self._check_rate(params)
            result = handler(params)
        except ApiError as error:
            call.error_code, call.description = error.code, error.description
            raise
        call.ok, call.result = True, result
        if method.lower() in _COUNTED_METHODS and self.config.rate_limits:
            self._consume_rate(params)
        if fault is not None:
            raise LateAnswer(result, fault.delay)
        return result

    # ----- injected faults ---------------------------------------------------------------------

    def inject_faults(
        self,
        *,
        method: str | None = None,
        status: int = 500,
        count: int = 1,
        retry_after: int | None = None,
        chat_id: int | None = None,
        probability: float = 1.0,
        delay: float = 0.0,
    ) -> Fault:
        """Make the next ``count`` matching Bot API calls fail, as Telegram sometimes does.

        ``status`` 429 answers "Too Many Requests" with ``retry_after`` (default 1 s); 500, 502, 503
        and 504 answer Telegram's server errors; 400 refuses the call for good ("Bad Request", as a
        group that forbids media refuses a picture). Such a call is *not* applied. With ``delay`` > 0 the
        call *is* applied but its answer is held back ``delay`` seconds, so a client with a shorter
        read timeout sees a timeout for a call that took effect. ``method`` (any when None) and
        ``chat_id`` narrow which calls fail; with ``probability`` < 1 each matching call fails only
        with that chance (from a seeded generator, so runs repeat), until ``count`` have failed.
        """
        if status not in (400, 429) and status not in SERVER_ERRORS:
            raise SandboxError(f"no injected fault answers with HTTP {status}")
        if not 0.0 < probability <= 1.0:
            raise SandboxError("probability must be in (0, 1]")
        fault = Fault(
            status=status,
            count=count,
            method=method,
            chat_id=chat_id,
            retry_after=retry_after,
            probability=probability,
            delay=delay,
        )
        self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        """Remove every injected fault."""
        self.faults.clear()

    def _take_fault(self, method: str, chat_id: int | None) -> Fault | None:
        for fault in self.faults:
            if not fault.matches(method, chat_id):
                continue
            if fault.probability < 1.0 and self._fault_rng.random() >= fault.probability:
                return None
            fault.count -= 1
            fault.hits += 1
            return fault
        return None

    def get_updates(self, params: Params) -> list[JSONDict]:
        """Return pending updates for getUpdates (the waiting is done by the HTTP layer)."""
        if self.webhook_url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete "
                "the webhook first",
            )
        offset = params.integer("offset", 0) or 0
        limit = max(1, min(100, params.integer("limit", 100) or 100))
        allowed = params.json_value("allowed_updates", "allowed_updates")
        if allowed is not None:
            self._allowed_updates = list(allowed) or None
        if offset > 0:
            while self._updates and self._updates[0]["update_id"] < offset:
                self._updates.popleft()
            self._last_confirmed = max(self._last_confirmed, offset - 1)
        elif offset < 0:
            keep = -offset
            while len(self._updates) > keep:
                self._updates.popleft()
        batch = [update for update in self._updates if self._is_allowed(update)][:limit]
        if batch:
            self._last_delivered = max(self._last_delivered, batch[-1]["update_id"])
        return batch

    def log_get_updates(self, params: Params, result: list[JSONDict]) -> None:
        """Log a completed getUpdates (logged at its end, since it long-polls)."""
        self.calls.append(
            ApiCall(
                seq=len(self.calls) + 1,
                method="getUpdates",
                params=dict(params.raw),
                time=self.clock.time(),
                ok=True,
                result=result,
            )
        )

    def new_poll_generation(self) -> int:
        """Start a getUpdates request; an older one still waiting is then answered with 409."""
        self._poll_generation += 1
        self._wake()
        return self._poll_generation

    def poll_superseded(self, generation: int) -> bool:
        """Whether a newer getUpdates request arrived since ``generation`` started."""
        return generation != self._poll_generation

    def has_updates_for(self, params: Params) -> bool:
        """Whether getUpdates with these parameters would return something now."""
        offset = params.integer("offset", 0) or 0
        return any(u["update_id"] >= offset and self._is_allowed(u) for u in self._updates)

    def _is_allowed(self, update: JSONDict) -> bool:
        kind = next(key for key in update if key != "update_id")
        if self._allowed_updates is None:
            return kind not in _OPT_IN_UPDATES
        return kind in self._allowed_updates

    def _queue_update(self, kind: str, payload: JSONDict) -> None:
        update = {"update_id": self._next_update_id, kind: payload}
        self._next_update_id += 1
        self._updates.append(update)
        self._changed()

    # ----- API: bot, webhook, commands ---------------------------------------------------------

    def api_getMe(self, params: Params) -> JSONDict:
        """getMe."""
        data = self.bot.to_json()
        data.update(
            can_join_groups=True,
            can_read_all_group_messages=not self.config.privacy_mode,
            supports_inline_queries=False,
            can_connect_to_business=False,
            has_main_web_app=False,
        )
        return data

    def api_logOut(self, params: Params) -> bool:
        """logOut (accepted, nothing to do locally)."""
        return True

    def api_close(self, params: Params) -> bool:
        """close (accepted, nothing to do locally)."""
        return True

    def api_deleteWebhook(self, params: Params) -> bool:
        """deleteWebhook, optionally dropping pending updates."""
        self.webhook_url = ""
        if params.flag("drop_pending_updates"):
            self._updates.clear()
        return True

    def api_setWebhook(self, params: Params) -> bool:
        """setWebhook: remembered (so getUpdates then conflicts) but nothing is delivered to it."""
        url = params.string("url", "") or ""
        if url and not url.startswith("https://"):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        self.webhook_url = url
        if params.flag("drop_pending_updates"):
            self._updates.clear()
        return True

    def api_getWebhookInfo(self, params: Params) -> JSONDict:
        """getWebhookInfo."""
        return {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }

    def _commands_key(self, params: Params) -> str:
        scope = params.json_value("scope") or {"type": "default"}
        return json.dumps([scope, params.string("language_code", "") or ""], sort_keys=True)

    def api_setMyCommands(self, params: Params) -> bool:
        """setMyCommands with Telegram's validation of names and descriptions."""
        commands = params.json_value("commands", "commands") or []
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("too many commands" if isinstance(commands, list) else "can't parse commands")
        for command in commands:
            if not isinstance(command, dict) or not _COMMAND_NAME.match(str(command.get("command", ""))):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise bad_request("command description must be non-empty")
        self.commands[self._commands_key(params)] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        self._changed()
        return True

    def api_getMyCommands(self, params: Params) -> list[JSONDict]:
        """getMyCommands."""
        return self.commands.get(self._commands_key(params), [])

    def api_deleteMyCommands(self, params: Params) -> bool:
        """deleteMyCommands."""
        self.commands.pop(self._commands_key(params), None)
        self._changed()
        return True

    def default_commands(self) -> list[JSONDict]:
        """The command menu for the default scope and no language, for the sandbox page."""
        return self.commands.get(json.dumps([{"type": "default"}, ""], sort_keys=True), [])

    # ----- API: sending ------------------------------------------------------------------------

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

    def _validate_markup(self, params: Params) -> JSONDict | None:
        markup = params.json_value("reply_markup", "reply keyboard markup")
        if markup is None:
            return None
        if not isinstance(markup, dict):
            raise bad_request("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" not in markup:
            # Reply keyboards and ForceReply are accepted but not modelled by the sandbox.
            return markup
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request("can't parse inline keyboard button: InlineKeyboardButton must be an Object")
        # Telegram's own limits; real clients also hide buttons past 8 in a row, so the emulator refuses them.
        if sum(len(row) for row in rows) > MAX_BUTTONS or any(len(row) > MAX_BUTTONS_PER_ROW for row in rows):
            raise bad_request("reply markup is too long")
        if len(json.dumps(markup, ensure_ascii=False).encode()) > 10_000:
            raise bad_request("reply markup is too long")
        for row in rows:
            for button in row:
                if not isinstance(button, dict):
                    raise bad_request(
                        "can't parse inline keyboard button: InlineKeyboardButton must be an Object"
                    )
                if not str(button.get("text", "")):
                    raise bad_request(
                        "can't parse inline keyboard button: Text buttons are unallowed in the "
                        "inline keyboard"
                    )
                if "callback_data" in button:
                    data = button["callback_data"]
                    if not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA:
                        raise bad_request("BUTTON_DATA_INVALID")
                elif "url" in button:
                    url = str(button["url"])
                    if not re.match(r"^(https?|tg)://\S+$", url) and not url.startswith("t.me/"):
                        raise bad_request(f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL")
                elif not any(
                    key in button
                    for key in (
                        "login_url",
                        "switch_inline_query",
                        "switch_inline_query_current_chat",
                        "switch_inline_query_chosen_chat",
                        "callback_game",
                        "pay",
                        "web_app",
                        "copy_text",
                    )
                ):
                    raise bad_request(_TEXT_BUTTONS)
        return {"inline_keyboard": rows}

    def _thread_for(self, chat: ChatRecord, params: Params) -> int | None:
        thread_id = params.integer("message_thread_id")
        if not chat.is_forum:
            return None
        if thread_id is not None and thread_id != 1 and thread_id not in chat.topics:
            raise bad_request("message thread not found")
        return None if thread_id == 1 else thread_id

    def _reply_target(self, chat: ChatRecord, params: Params) -> int | None:
        reply = params.json_value("reply_parameters")
        reply_id = params.integer("reply_to_message_id")
        allow_missing = params.flag("allow_sending_without_reply")
        if isinstance(reply, dict):
            reply_id = reply.get("message_id")
            allow_missing = bool(reply.get("allow_sending_without_reply", allow_missing))
        if reply_id is None:
            return None
        target = self.messages.get((chat.id, int(reply_id)))
        if target is None or target.deleted:
            if allow_missing:
                return None
            raise bad_request("message to be replied not found")
        return int(reply_id)

    def _parse_content(
        self, params: Params, field_name: str, limit: int, too_long: str
    ) -> tuple[str, list[JSONDict]]:
        source = params.string(field_name, "") or ""
        entities_param = params.json_value(f"{'caption_' if field_name == 'caption' else ''}entities")
        try:
            text, entities = parse_text(source, params.string("parse_mode"))
        except EntityParseError as error:
            raise bad_request(str(error)) from None
        if isinstance(entities_param, list):
            entities = entities_param
        if utf16_len(text) > limit:
            raise bad_request(too_long)
        return text, entities

    def api_sendMessage(self, params: Params) -> JSONDict:
        """sendMessage with text limits, HTML parsing, inline keyboards, topics and replies."""
        chat = self._resolve_chat(params)
        text, entities = self._parse_content(params, "text", MAX_TEXT, "message is too long")
        if not text.strip():
            raise bad_request("message text is empty")
        markup = self._validate_markup(params)
        self._check_can_write(chat)
        thread_id = self._thread_for(chat, params)
        reply_to = self._reply_target(chat, params)
        message = self._store_outgoing(
            chat, text=text, entities=entities, reply_markup=markup, thread_id=thread_id, reply_to=reply_to
        )
        return self._message_json(message)

    def _upload(self, params: Params, name: str, kind: str) -> StoredFile:
        if name in params.files:
            filename, mime, data = params.files[name]
        else:
            ref = params.string(name) or ""
            if ref.startswith("attach://") and ref[9:] in params.files:
                filename, mime, data = params.files[ref[9:]]
            elif ref in self.files:
                existing = self.files[ref]
                if existing.kind != kind:
                    raise bad_request(
                        f"can't use file of type {existing.kind.capitalize()} as {kind.capitalize()}"
                    )
                return existing
            elif ref.startswith(("http://", "https://")):
                raise bad_request("wrong file identifier/HTTP URL specified")
            elif not ref:
                raise bad_request(f"there is no {kind} in the request")
            else:
                raise bad_request("wrong file identifier/HTTP URL specified")
        width = height = 0
        if kind == "photo":
            if len(data) > 10 * 1024 * 1024:
                raise bad_request("PHOTO_SAVE_FILE_INVALID")
            size = image_size(data)
            if size is None:
                raise bad_request("IMAGE_PROCESS_FAILED")
            width, height = size
        elif len(data) > 50 * 1024 * 1024:
            raise ApiError(413, "Request Entity Too Large")
        digest = hashlib.sha256(data).hexdigest()[:20]
        unique = f"AQAD{digest}"
        file_id = f"{'AgAC' if kind == 'photo' else 'BQAC'}{digest}{len(self.files):04d}"
        stored = StoredFile(
            file_id=file_id,
            file_unique_id=unique,
            data=data,
            kind=kind,
            file_name=filename,
            mime_type=mime,
            width=width,
            height=height,
        )
        self.files[file_id] = stored
        return stored

    def api_sendPhoto(self, params: Params) -> JSONDict:
        """sendPhoto from a multipart upload or a known file_id; the bytes are kept."""
        return self._send_file(params, "photo")

    def api_sendDocument(self, params: Params) -> JSONDict:
        """sendDocument from a multipart upload or a known file_id."""
        return self._send_file(params, "document")

    def _send_file(self, params: Params, kind: str) -> JSONDict:
        """A message carrying an uploaded (or re-sent) file of ``kind`` "photo" or "document"."""
        chat = self._resolve_chat(params)
        caption, entities = self._parse_content(params, "caption", MAX_CAPTION, "message caption is too long")
        markup = self._validate_markup(params)
        self._check_can_write(chat)
        stored = self._upload(params, kind, kind)
        message = self._store_outgoing(
            chat,
            caption=caption or None,
            entities=entities,
            reply_markup=markup,
            thread_id=self._thread_for(chat, params),
            reply_to=self._reply_target(chat, params),
            **{f"{kind}_file_id": stored.file_id},
        )
        return self._message_json(message)

    # ----- API: editing and deleting -----------------------------------------------------------

    def _editable(self, params: Params) -> StoredMessage:
        if params.has("inline_message_id"):
            raise bad_request("MESSAGE_ID_INVALID")
        chat = self._resolve_chat(params)
        message_id = params.integer("message_id")
        if message_id is None:
            raise bad_request("message identifier is not specified")
        self._check_can_write(chat)
        message = self.messages.get((chat.id, message_id))
        if message is None or message.deleted:
            raise bad_request("message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
        return message

    def _apply_edit(self, message: StoredMessage, **changes: Any) -> JSONDict:
        if all(getattr(message, name) == value for name, value in changes.items()):
            raise ApiError(400, NOT_MODIFIED)
        for name, value in changes.items():
            setattr(message, name, value)
        message.edit_date = self.now()
        message.edits += 1
        self._event("edit", message.chat_id, message.message_id)
        return self._message_json(message)

    def api_editMessageText(self, params: Params) -> JSONDict:
        """editMessageText; an edit that changes nothing is refused as "message is not modified"."""
        message = self._editable(params)
        if message.text is None:
            raise bad_request("there is no text in the message to edit")
        text, entities = self._parse_content(params, "text", MAX_TEXT, "MESSAGE_TOO_LONG")
        if not text.strip():
            raise bad_request("message text is empty")
        markup = self._validate_markup(params)
        return self._apply_edit(message, text=text, entities=entities, reply_markup=markup)

    def api_editMessageCaption(self, params: Params) -> JSONDict:
        """editMessageCaption."""
        message = self._editable(params)
        if message.photo_file_id is None and message.document_file_id is None:
            raise bad_request("there is no caption in the message to edit")
        caption, entities = self._parse_content(params, "caption", MAX_CAPTION, "message caption is too long")
        markup = self._validate_markup(params)
        return self._apply_edit(
            message, caption=caption or None, caption_entities=entities, reply_markup=markup
        )

    def api_editMessageReplyMarkup(self, params: Params) -> JSONDict:
        """editMessageReplyMarkup; no reply_markup removes the keyboard."""
        message = self._editable(params)
        markup = self._validate_markup(params)
        if markup == {"inline_keyboard": []}:
            markup = None
        return self._apply_edit(message, reply_markup=markup)

    def _delete_one(self, chat: ChatRecord, message_id: int | None) -> None:
        if message_id is None:
            raise bad_request("message identifier is not specified")
        message = self.messages.get((chat.id, message_id))
        if message is None or message.deleted:
            raise bad_request("message to delete not found")
        if message.service and "forum_topic_created" in message.service:
            raise bad_request("message can't be deleted")
        if chat.is_group:
            is_admin = chat.members.get(self.bot_id) in ("administrator", "creator")
            if not message.from_bot and not is_admin:
                raise bad_request("message can't be deleted")
            if self.now() - message.date > 48 * 3600 and not is_admin:
                raise bad_request("message can't be deleted for everyone")
        message.deleted = True
        self._event("delete", chat.id, message_id)

    def api_deleteMessage(self, params: Params) -> bool:
        """deleteMessage with Telegram's ownership and admin rules."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        self._delete_one(chat, params.integer("message_id"))
        return True

    def api_deleteMessages(self, params: Params) -> bool:
        """deleteMessages: deletes what it can, as Telegram does."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        ids = params.json_value("message_ids", "message_ids") or []
        for message_id in ids:
            with contextlib.suppress(ApiError):
                self._delete_one(chat, int(message_id))
        return True

    # ----- API: callbacks, chats, misc ---------------------------------------------------------

    def api_answerCallbackQuery(self, params: Params) -> bool:
        """answerCallbackQuery: too late or twice is "query is too old"; a URL must be a deep link."""
        query_id = params.string("callback_query_id") or ""
        record = self.callbacks.get(query_id)
        if (
            record is None
            or record.answered
            or self.clock.time() - record.created_at > self.config.callback_answer_timeout
        ):
            raise ApiError(400, QUERY_TOO_OLD)
        text = params.string("text")
        if text is not None and len(text) > MAX_CALLBACK_ANSWER:
            raise bad_request("MESSAGE_TOO_LONG")
        url = params.string("url")
        if url is not None and self.deep_link_payload(url) is None:
            raise bad_request("URL_INVALID")
        record.answered = True
        record.answer_text = text
        record.show_alert = params.flag("show_alert")
        record.url = url
        record.answered_at = self.clock.time()
        self._event("answer", record.chat_id, record.message_id, record.user_id)
        return True

    def _knows_user(self, user_id: int) -> bool:
        user = self.users.get(user_id)
        if user is None:
            return False
        if user.started_bot or user.is_bot:
            return True
        return any(
            user_id in chat.members and self.bot_id in chat.members
            for chat in self.chats.values()
            if chat.is_group
        )

    def api_getChat(self, params: Params) -> JSONDict:
        """getChat returning a ChatFullInfo."""
        chat = self._resolve_chat(params)
        if chat.type == "private" and not self._knows_user(chat.id):
            raise bad_request("chat not found")
        if chat.is_group and chat.members.get(self.bot_id) not in ("member", "administrator", "creator"):
            raise ApiError(403, f"Forbidden: bot is not a member of the {self._chat_noun(chat)} chat")
        data = self._chat_json(chat)
        data.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        if chat.pinned:
            data["pinned_message"] = self._message_json(self.messages[(chat.id, chat.pinned[-1])])
        return data

    def _group_for_members(self, params: Params) -> ChatRecord:
        chat = self._resolve_chat(params)
        if chat.is_group and chat.members.get(self.bot_id) not in ("member", "administrator", "creator"):
            raise ApiError(403, f"Forbidden: bot is not a member of the {self._chat_noun(chat)} chat")
        return chat

    def api_getChatMember(self, params: Params) -> JSONDict:
        """getChatMember (status creator / administrator / member / left / kicked)."""
        chat = self._group_for_members(params)
        user_id = params.integer("user_id")
        if user_id is None or user_id not in self.users:
            raise bad_request("user not found")
        if chat.type == "private":
            status = "member" if user_id in (chat.id, self.bot_id) else "left"
        else:
            status = chat.members.get(user_id, "left")
        return self._member_json(chat, user_id, status)

    def api_getChatAdministrators(self, params: Params) -> list[JSONDict]:
        """getChatAdministrators, owner first."""
        chat = self._group_for_members(params)
        if chat.type == "private":
            raise bad_request("there are no administrators in the private chat")
        admins = [uid for uid, s in chat.members.items() if s == "creator"]
        admins += [uid for uid, s in chat.members.items() if s == "administrator"]
        return [self._member_json(chat, uid, chat.members[uid]) for uid in admins]

    def api_getChatMemberCount(self, params: Params) -> int:
        """getChatMemberCount."""
        chat = self._group_for_members(params)
        return sum(1 for s in chat.members.values() if s in ("creator", "administrator", "member"))

    def api_sendChatAction(self, params: Params) -> bool:
        """sendChatAction: validated and logged, shown by nothing."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        if params.string("action") not in _CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        return True

    def api_pinChatMessage(self, params: Params) -> bool:
        """pinChatMessage; in groups the bot needs to be an administrator."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        if chat.is_group and chat.members.get(self.bot_id) not in ("administrator", "creator"):
            raise bad_request("not enough rights to manage pinned messages in the chat")
        message_id = params.integer("message_id")
        message = self.messages.get((chat.id, message_id or 0))
        if message is None or message.deleted:
            raise bad_request("message to pin not found")
        if message.message_id not in chat.pinned:
            chat.pinned.append(message.message_id)
        self._event("pin", chat.id, message.message_id)
        return True

    def api_unpinChatMessage(self, params: Params) -> bool:
        """unpinChatMessage (the latest pinned one when no message_id is given)."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        if chat.is_group and chat.members.get(self.bot_id) not in ("administrator", "creator"):
            raise bad_request("not enough rights to manage pinned messages in the chat")
        message_id = params.integer("message_id")
        if message_id is None and chat.pinned:
            message_id = chat.pinned[-1]
        if message_id in chat.pinned:
            chat.pinned.remove(message_id)
        self._event("pin", chat.id, message_id)
        return True

    def api_unpinAllChatMessages(self, params: Params) -> bool:
        """unpinAllChatMessages."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        if chat.is_group and chat.members.get(self.bot_id) not in ("administrator", "creator"):
            raise bad_request("not enough rights to manage pinned messages in the chat")
        chat.pinned.clear()
        self._event("pin", chat.id)
        return True

    def api_getFile(self, params: Params) -> JSONDict:
        """getFile: the file_path is served under ``/file/bot<token>/``."""
        stored = self.files.get(params.string("file_id") or "")
        if stored is None:
            raise bad_request("invalid file_id")
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": len(stored.data),
            "file_path": stored.file_path,
        }

    def file_by_path(self, path: str) -> StoredFile | None:
        """The stored file that getFile placed at ``path``."""
        return next((f for f in self.files.values() if f.file_path == path), None)

    def api_leaveChat(self, params: Params) -> bool:
        """leaveChat."""
        chat = self._resolve_chat(params)
        if chat.type == "private":
            raise bad_request("chat member status can't be changed in private chats")
        self._check_can_write(chat)
        chat.members[self.bot_id] = "left"
        self._changed()
        return True

    # ----- rate limits -------------------------------------------------------------------------

    def _limit_chat_id(self, params: Params) -> int | None:
        try:
            return self._resolve_chat(params).id
        except ApiError:
            return None

    def _check_rate(self, params: Params) -> None:
        if not self.config.rate_limits:
            return
        now = self.clock.time()
        chat_id = self._limit_chat_id(params)
        waits: list[float] = []
        window = self._global_window
        while window and window[0] <= now - 1.0:
            window.popleft()
        if len(window) >= self.config.global_max_per_second:
            waits.append(window[0] + 1.0 - now)
        if chat_id is not None:
            tokens, last = self._chat_buckets.get(chat_id, (float(self.config.chat_burst), now))
            tokens = self._refill(tokens, now - last)
            if tokens < 1.0:
                waits.append((1.0 - tokens) / self.config.chat_rate_per_second)
            if self.chats[chat_id].is_group:
                group = self._group_windows.setdefault(chat_id, deque())
                while group and group[0] <= now - 60.0:
                    group.popleft()
                if len(group) >= self.config.group_max_per_minute:
                    waits.append(group[0] + 60.0 - now)
        if waits:
            retry_after = max(1, math.ceil(max(waits)))
            raise ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)

    def _refill(self, tokens: float, elapsed: float) -> float:
        return min(float(self.config.chat_burst), tokens + elapsed * self.config.chat_rate_per_second)

    def _consume_rate(self, params: Params) -> None:
        now = self.clock.time()
        self._global_window.append(now)
        chat_id = self._limit_chat_id(params)
        if chat_id is None:
            return
        tokens, last = self._chat_buckets.get(chat_id, (float(self.config.chat_burst), now))
        tokens = self._refill(tokens, now - last)
        self._chat_buckets[chat_id] = (tokens - 1.0, now)
        if self.chats[chat_id].is_group:
            self._group_windows.setdefault(chat_id, deque()).append(now)

    # ----- storage and JSON shapes -------------------------------------------------------------

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

    def _append(self, chat: ChatRecord, message: StoredMessage) -> None:
        self.messages[message.key] = message
        ids = self._chat_messages.setdefault(chat.id, [])
        ids.append(message.message_id)
        if len(ids) > self.config.messages_kept_per_chat:
            old = ids.pop(0)
            self.messages.pop((chat.id, old), None)

    def _store_incoming(
        self,
        chat: ChatRecord,
        user_id: int,
        *,
        text: str | None,
        thread_id: int | None,
        reply_to: int | None = None,
        service: JSONDict | None = None,
    ) -> StoredMessage:
        message = StoredMessage(
            chat_id=chat.id,
            message_id=chat.next_message_id,
            sender_id=user_id,
            date=self.now(),
            text=text,
            entities=user_entities(text) if text else [],
            thread_id=thread_id,
            reply_to=reply_to,
            service=service,
        )
        chat.next_message_id += 1
        self._append(chat, message)
        if self._bot_sees(chat, message):
            self._queue_update("message", self._message_json(message))
        self._event("message", chat.id, message.message_id, user_id)
        return message

    def _bot_sees(self, chat: ChatRecord, message: StoredMessage) -> bool:
        if chat.type == "private":
            return True
        if chat.members.get(self.bot_id) not in ("member", "administrator", "creator"):
            return False
        if not self.config.privacy_mode or chat.members.get(self.bot_id) in ("administrator", "creator"):
            return True
        if message.service is not None:
            return True
        if message.reply_to is not None:
            target = self.messages.get((chat.id, message.reply_to))
            if target is not None and target.from_bot:
                return True
        for entity in message.entities:
            if entity["type"] != "bot_command" or message.text is None:
                continue
            units = message.text.encode("utf-16-le")
            command = units[entity["offset"] * 2 : (entity["offset"] + entity["length"]) * 2]
            _, _, mention = command.decode("utf-16-le").partition("@")
            if not mention or mention.lower() == (self.bot.username or "").lower():
                return True
        return False

    def _store_outgoing(
        self,
        chat: ChatRecord,
        *,
        text: str | None = None,
        caption: str | None = None,
        entities: list[JSONDict],
        reply_markup: JSONDict | None,
        thread_id: int | None,
        reply_to: int | None,
        photo_file_id: str | None = None,
        document_file_id: str | None = None,
    ) -> StoredMessage:
        if reply_to is not None and chat.is_forum and thread_id is None:
            thread_id = self.messages[(chat.id, reply_to)].thread_id
        message = StoredMessage(
            chat_id=chat.id,
            message_id=chat.next_message_id,
            sender_id=self.bot_id,
            date=self.now(),
            text=text,
            entities=entities if text is not None else [],
            caption=caption,
            caption_entities=entities if caption is not None else [],
            photo_file_id=photo_file_id,
            document_file_id=document_file_id,
            reply_markup=reply_markup if reply_markup and "inline_keyboard" in reply_markup else None,
            thread_id=thread_id,
            reply_to=reply_to,
            from_bot=True,
        )
        chat.next_message_id += 1
        self._append(chat, message)
        self._event("message", chat.id, message.message_id)
        return message

    def _chat_instance(self, chat_id: int) -> str:
        digest = hashlib.sha256(f"{self.bot_id}:{chat_id}".encode()).digest()
        return str(int.from_bytes(digest[:8], "big") >> 1)

    def _chat_json(self, chat: ChatRecord) -> JSONDict:
        if chat.type == "private":
            user = self.users[chat.id]
            data: JSONDict = {"id": chat.id, "type": "private", "first_name": user.first_name}
            if user.last_name:
                data["last_name"] = user.last_name
            if user.username:
                data["username"] = user.username
            return data
        data = {"id": chat.id, "type": chat.type, "title": chat.title}
        if chat.username:
            data["username"] = chat.username
        if chat.is_forum:
            data["is_forum"] = True
        return data

    def _member_json(self, chat: ChatRecord, user_id: int, status: str) -> JSONDict:
        user = self.users[user_id].to_json()
        if status == "creator":
            return {"status": "creator", "user": user, "is_anonymous": False}
        if status == "administrator":
            is_bot = user_id == self.bot_id
            return {
                "status": "administrator",
                "user": user,
                "can_be_edited": not is_bot,
                "is_anonymous": False,
                "can_manage_chat": True,
                "can_delete_messages": True,
                "can_manage_video_chats": True,
                "can_restrict_members": True,
                "can_promote_members": False,
                "can_change_info": True,
                "can_invite_users": True,
                "can_post_stories": False,
                "can_edit_stories": False,
                "can_delete_stories": False,
                "can_pin_messages": True,
                "can_manage_topics": chat.is_forum,
            }
        if status == "kicked":
            return {"status": "kicked", "user": user, "until_date": 0}
        if status in ("member", "left"):
            return {"status": status, "user": user}
        raise SandboxError(f"unknown member status {status!r}")

    def _file_json(self, file_id: str) -> JSONDict:
        stored = self.files[file_id]
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": len(stored.data),
        }

    def _message_json(self, message: StoredMessage, *, nested: bool = False) -> JSONDict:
        chat = self.chats[message.chat_id]
        data: JSONDict = {
            "message_id": message.message_id,
            "from": self.users[message.sender_id].to_json(),
            "chat": self._chat_json(chat),
            "date": message.date,
        }
        if message.thread_id is not None and chat.is_forum:
            data["message_thread_id"] = message.thread_id
            data["is_topic_message"] = True
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        reply_to = message.reply_to
        if reply_to is None and message.thread_id is not None and chat.is_forum and not message.service:
            # Telegram presents every topic message as a reply to the topic's creation message.
            reply_to = message.thread_id
        if reply_to is not None and not nested:
            target = self.messages.get((chat.id, reply_to))
            if target is not None:
                data["reply_to_message"] = self._message_json(target, nested=True)
        if message.text is not None:
            data["text"] = message.text
            if message.entities:
                data["entities"] = message.entities
        if message.photo_file_id is not None:
            stored = self.files[message.photo_file_id]
            size = {"width": stored.width, "height": stored.height}
            data["photo"] = [{**self._file_json(stored.file_id), **size}]
        if message.document_file_id is not None:
            stored = self.files[message.document_file_id]
            document = self._file_json(stored.file_id)
            if stored.file_name:
                document["file_name"] = stored.file_name
            if stored.mime_type:
                document["mime_type"] = stored.mime_type
            data["document"] = document
        if message.caption is not None:
            data["caption"] = message.caption
            if message.caption_entities:
                data["caption_entities"] = message.caption_entities
        if message.service:
            data.update(message.service)
        if message.reply_markup and not nested:
            data["reply_markup"] = message.reply_markup
        return data

    def message_json(self, message: StoredMessage) -> JSONDict:
        """The Bot API Message object of a stored message."""
        return self._message_json(message)

    def iter_users(self) -> Iterator[UserRecord]:
        """Simulated users, the bot excluded, in creation order."""
        return (user for user in self.users.values() if not user.is_bot)
