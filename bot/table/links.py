"""The links that open the live table and the session tokens its page then uses.

``start_param`` (the ``?startapp=`` of the link on the table message) names one table and is signed,
so a watcher needs the link the bot posted, not a guess. The session token is issued once
``initData`` is checked: it binds the user Telegram signed for to that table, expires after
``SESSION_SECONDS``, and is checked by any instance that knows the bot token (no server-side state).
Both are ASCII from ``[A-Za-z0-9_-.]``; anything else is refused as malformed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

__all__ = ["LinkError", "Session", "TableLink", "Tokens"]

#: How long a session token is good for; the page asks for a new one with its ``initData`` after that.
SESSION_SECONDS = 3600
_LINK = re.compile(r"k(m?)(\d{1,20})_(\d{1,12})_([0-9a-f]{1,16})_([A-Za-z0-9_-]{12})")
_TOKEN = re.compile(r"([A-Za-z0-9_-]{8,200})\.([A-Za-z0-9_-]{22})")


class LinkError(ValueError):
    """A start parameter or session token that is malformed, forged or expired (``reason`` says which)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class TableLink:
    """One table, as a link names it."""

    chat_id: int
    thread_id: int | None
    table_id: str


@dataclass(frozen=True, slots=True)
class Session:
    """A user at (or watching) one table, until ``expires``."""

    user_id: int
    link: TableLink
    expires: int


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


class Tokens:
    """Signs and checks links and session tokens with keys derived from the bot token."""

    def __init__(self, bot_token: str) -> None:
        self._link_key = hmac.new(bot_token.encode(), b"kozel-webapp-link", hashlib.sha256).digest()
        self._session_key = hmac.new(bot_token.encode(), b"kozel-webapp-session", hashlib.sha256).digest()

    def _sign(self, key: bytes, text: str, size: int) -> str:
        return _b64(hmac.new(key, text.encode(), hashlib.sha256).digest())[:size]

    def start_param(self, link: TableLink) -> str:
        """The ``startapp`` parameter that opens ``link``'s table (at most 64 characters)."""
        chat = f"m{-link.chat_id}" if link.chat_id < 0 else str(link.chat_id)
        body = f"k{chat}_{link.thread_id or 0}_{link.table_id}"
        return f"{body}_{self._sign(self._link_key, body, 12)}"

    def read_start_param(self, param: str) -> TableLink:
        """The table a start parameter names; raises :class:`LinkError` if malformed or forged."""
        found = _LINK.fullmatch(param) if param.isascii() else None
        if found is None:
            raise LinkError("malformed")
        minus, chat, thread, table_id, sig = found.groups()
        body = param[: -len(sig) - 1]
        if not hmac.compare_digest(sig.encode(), self._sign(self._link_key, body, 12).encode()):
            raise LinkError("forged")
        return TableLink(-int(chat) if minus else int(chat), int(thread) or None, table_id)

    def issue(self, user_id: int, link: TableLink, *, now: float) -> str:
        """A session token for ``user_id`` at ``link``'s table, good for :data:`SESSION_SECONDS`."""
        expires = int(now) + SESSION_SECONDS
        body = _b64(f"{user_id}:{link.chat_id}:{link.thread_id or 0}:{link.table_id}:{expires}".encode())
        return f"{body}.{self._sign(self._session_key, body, 22)}"

    def check(self, token: str, *, now: float) -> Session:
        """The session a token stands for; raises :class:`LinkError` if malformed, forged or expired."""
        found = _TOKEN.fullmatch(token) if token.isascii() else None
        if found is None:
            raise LinkError("malformed")
        body, sig = found.groups()
        if not hmac.compare_digest(sig.encode(), self._sign(self._session_key, body, 22).encode()):
            raise LinkError("forged")
        try:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
            user, chat, thread, table_id, expires = raw.split(":")
            session = Session(int(user), TableLink(int(chat), int(thread) or None, table_id), int(expires))
        except ValueError:
            raise LinkError("malformed") from None
        if session.expires < now:
            raise LinkError("expired")
        return session
