"""The emulated Telegram world's records: users, chats, messages, files, calls, the errors it answers
with, and the request parameters as Telegram reads them. :class:`bot.sandbox.world.World` keeps them
(its state is created in :mod:`bot.sandbox.state`)."""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import Any

from bot.sandbox.formatting import render_html

JSONDict = dict[str, Any]


class ApiError(Exception):
    """A Bot API error response: HTTP status, Telegram's description and optional parameters."""

    def __init__(
        self,
        code: int,
        description: str,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
    ) -> None:
        super().__init__(f"{code} {description}")
        self.code = code
        self.description = description
        self.retry_after = retry_after
        self.migrate_to_chat_id = migrate_to_chat_id

    def to_json(self) -> JSONDict:
        """The response body Telegram sends for this error (ResponseParameters included)."""
        body: JSONDict = {"ok": False, "error_code": self.code, "description": self.description}
        parameters: JSONDict = {}
        if self.retry_after is not None:
            parameters["retry_after"] = self.retry_after
        if self.migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = self.migrate_to_chat_id
        if parameters:
            body["parameters"] = parameters
        return body


class LateAnswer(Exception):
    """A call that was applied but whose answer is held back ``delay`` seconds (a lost response).

    Raised by :meth:`World.call` for a fault injected with ``delay``; the HTTP layer sleeps, then
    answers with ``result`` — by then a client with a shorter read timeout has given up.
    """

    def __init__(self, result: Any, delay: float) -> None:
        super().__init__(f"answer held back {delay} s")
        self.result = result
        self.delay = delay


#: Telegram's descriptions of the server errors a fault injector can answer with.
SERVER_ERRORS = {
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}
MIGRATED = "Bad Request: group chat was upgraded to a supergroup chat"
#: What an injected 400 says (as a group that forbids media refuses a picture).
INJECTED_REFUSAL = "not enough rights to send this to the chat"


@dataclass
class Fault:
    """An injected failure: the next ``count`` matching calls fail (see :meth:`World.inject_faults`)."""

    status: int
    count: int
    method: str | None = None
    chat_id: int | None = None
    retry_after: int | None = None
    probability: float = 1.0
    #: Seconds the answer of an *applied* call is held back (a timeout on the client); 0: an error.
    delay: float = 0.0
    #: Calls this fault has failed (or delayed) so far.
    hits: int = 0

    def matches(self, method: str, chat_id: int | None) -> bool:
        """Whether a call of ``method`` to ``chat_id`` is one this fault is for."""
        if self.count <= 0:
            return False
        if self.method is not None and self.method.lower() != method.lower():
            return False
        return self.chat_id is None or self.chat_id == chat_id

    def error(self) -> ApiError:
        """The error response this fault answers with."""
        if self.status == 429:
            retry = self.retry_after if self.retry_after is not None else 1
            return ApiError(429, f"Too Many Requests: retry after {retry}", retry_after=retry)
        if self.status == 400:
            return bad_request(INJECTED_REFUSAL)
        return ApiError(self.status, SERVER_ERRORS.get(self.status, "Internal Server Error"))


def bad_request(what: str) -> ApiError:
    """A 400 error with Telegram's "Bad Request: " prefix."""
    return ApiError(400, f"Bad Request: {what}")


class SandboxError(RuntimeError):
    """A simulated user tried something a Telegram client would not let them do."""


@dataclass
class EmulatorConfig:
    """Who the bot is and which of Telegram's rules the emulator enforces."""

    token: str = "123456789:SANDBOX-token-for-local-tests-only"
    bot_first_name: str = "Козёл"
    bot_username: str = "kozel_sandbox_bot"
    # Telegram's default: in groups the bot sees only commands, replies to it and service messages.
    privacy_mode: bool = True
    # Off by default so functional tests are not flaky; the limit tests and the sandbox turn it on.
    rate_limits: bool = False
    group_max_per_minute: int = 20
    chat_rate_per_second: float = 1.0
    # "About one a second": short bursts pass, as they do on Telegram.
    chat_burst: int = 3
    global_max_per_second: int = 30
    callback_answer_timeout: float = 15.0
    max_long_poll: float = 50.0
    messages_kept_per_chat: int = 2000
    #: Telegram starts a bot's update ids at "a certain positive number", not at 1. A fixed start
    #: would make a restarted sandbox reuse ids its bot's (persistent) store has already handled.
    first_update_id: int | None = None


@dataclass
class UserRecord:
    """A simulated Telegram account and its relationship with the bot."""

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = "ru"
    is_bot: bool = False
    started_bot: bool = False
    blocked_bot: bool = False

    def to_json(self) -> JSONDict:
        """The Bot API User object."""
        data: JSONDict = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code and not self.is_bot:
            data["language_code"] = self.language_code
        return data

    @property
    def full_name(self) -> str:
        """First and last name, as clients show it."""
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name


@dataclass
class ChatRecord:
    """A private chat, group or supergroup (optionally a forum with topics)."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    is_forum: bool = False
    # user id -> "creator" | "administrator" | "member" | "left" | "kicked"; the bot is in here too.
    members: dict[int, str] = field(default_factory=dict)
    topics: dict[int, str] = field(default_factory=dict)
    pinned: list[int] = field(default_factory=list)
    next_message_id: int = 1
    #: A group upgraded to a supergroup: the supergroup's id (calls to this id then fail).
    migrated_to: int | None = None

    @property
    def is_group(self) -> bool:
        """True for groups and supergroups."""
        return self.type in ("group", "supergroup")


@dataclass
class StoredFile:
    """An uploaded file, kept in memory so tests and the sandbox page can read it back."""

    file_id: str
    file_unique_id: str
    data: bytes
    kind: str
    file_name: str | None
    mime_type: str | None
    width: int = 0
    height: int = 0

    @property
    def file_path(self) -> str:
        """Where getFile says the file lives under the file URL."""
        folder = "photos" if self.kind == "photo" else "documents"
        suffix = (self.file_name or "").rpartition(".")[2] or ("jpg" if self.kind == "photo" else "bin")
        return f"{folder}/{self.file_unique_id}.{suffix}"


@dataclass
class StoredMessage:
    """One message as the emulator keeps it, with its latest content."""

    chat_id: int
    message_id: int
    sender_id: int
    date: int
    text: str | None = None
    entities: list[JSONDict] = field(default_factory=list)
    caption: str | None = None
    caption_entities: list[JSONDict] = field(default_factory=list)
    photo_file_id: str | None = None
    document_file_id: str | None = None
    reply_markup: JSONDict | None = None
    thread_id: int | None = None
    reply_to: int | None = None
    edit_date: int | None = None
    deleted: bool = False
    service: JSONDict | None = None
    from_bot: bool = False
    edits: int = 0

    @property
    def key(self) -> tuple[int, int]:
        """(chat id, message id), unique across the world."""
        return (self.chat_id, self.message_id)

    @property
    def buttons(self) -> list[list[JSONDict]]:
        """The inline keyboard rows, or no rows."""
        if not self.reply_markup:
            return []
        rows: list[list[JSONDict]] = self.reply_markup.get("inline_keyboard", [])
        return rows

    @property
    def html(self) -> str:
        """The message text (or caption) rendered as HTML."""
        if self.text is not None:
            return render_html(self.text, self.entities)
        if self.caption is not None:
            return render_html(self.caption, self.caption_entities)
        return ""

    @property
    def content(self) -> str:
        """Plain text or caption, empty for neither."""
        return self.text if self.text is not None else (self.caption or "")


@dataclass
class CallbackRecord:
    """A button tap and what the bot answered."""

    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str | None
    created_at: float
    answered: bool = False
    answer_text: str | None = None
    show_alert: bool = False
    url: str | None = None
    answered_at: float | None = None


@dataclass
class ApiCall:
    """One Bot API request and its outcome, for tests and benchmarks."""

    seq: int
    method: str
    params: JSONDict
    time: float
    ok: bool
    result: Any = None
    error_code: int | None = None
    description: str | None = None
    chat_id: int | None = None


@dataclass
class Event:
    """Something a simulated user would see: a new, edited or deleted message, or a callback answer."""

    seq: int
    kind: str
    chat_id: int
    message_id: int | None = None
    user_id: int | None = None


class Params:
    """Request parameters as Telegram takes them: form fields hold JSON for anything not a string."""

    def __init__(self, raw: dict[str, Any], files: dict[str, tuple[str | None, str | None, bytes]]) -> None:
        self.raw = raw
        self.files = files

    def has(self, name: str) -> bool:
        """Whether the parameter was sent at all."""
        return name in self.raw and self.raw[name] is not None

    def string(self, name: str, default: str | None = None) -> str | None:
        """A string parameter."""
        value = self.raw.get(name)
        if value is None:
            return default
        return value if isinstance(value, str) else json.dumps(value)

    def required_str(self, name: str) -> str:
        """A string parameter that must be present."""
        value = self.string(name)
        if value is None:
            raise bad_request(f"{name} is empty" if name == "text" else f"parameter {name!r} is required")
        return value

    def integer(self, name: str, default: int | None = None) -> int | None:
        """An integer parameter."""
        value = self.raw.get(name)
        if value is None or value == "":
            return default
        if isinstance(value, bool):
            raise bad_request(f"invalid {name} specified")
        if isinstance(value, int):
            return value
        try:
            return int(str(value))
        except ValueError:
            raise bad_request(f"invalid {name} specified") from None

    def number(self, name: str, default: float) -> float:
        """A number parameter."""
        value = self.raw.get(name)
        if value is None or value == "":
            return default
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def flag(self, name: str) -> bool:
        """A boolean parameter; Telegram takes true/false, 1/0 and JSON booleans."""
        value = self.raw.get(name)
        if isinstance(value, bool):
            return value
        return str(value).lower() in ("true", "1")

    def json_value(self, name: str, what: str = "object") -> Any:
        """A parameter holding a JSON-serialized object or array."""
        value = self.raw.get(name)
        if value is None or value == "":
            return None
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                raise bad_request(f"can't parse {what} JSON object") from None
        return value


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG, GIF, JPEG or WebP image, None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP" and len(data) >= 30:
        if data[12:16] == b"VP8X":
            return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
        if data[12:16] == b"VP8 ":
            width, height = struct.unpack("<HH", data[26:30])
            return int(width) & 0x3FFF, int(height) & 0x3FFF
        if data[12:16] == b"VP8L":
            bits = int.from_bytes(data[21:25], "little")
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if data.startswith(b"\xff\xd8"):
        index = 2
        while index + 9 < len(data):
            if data[index] != 0xFF:
                index += 1
                continue
            marker = data[index + 1]
            length = int.from_bytes(data[index + 2 : index + 4], "big")
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                height, width = struct.unpack(">HH", data[index + 5 : index + 9])
                return int(width), int(height)
            index += 2 + length
    return None
