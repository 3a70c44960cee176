"""Telegram Mini App ``initData``: checked as Telegram specifies, never trusted from the page.

The secret is HMAC-SHA256 keyed with ``"WebAppData"`` over the bot token; the check string is every
field but ``hash``, sorted by key, ``key=value`` joined by newlines, values exactly as received
(URL-decoded once, the ``user`` JSON not re-serialised); the hash is the hex HMAC-SHA256 of the check
string under the secret, compared in constant time. ``auth_date`` older than ``max_age`` is refused:
Telegram leaves expiry to the bot.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

__all__ = ["InitDataError", "WebAppUser", "check_init_data", "sign_init_data"]

#: The longest ``initData`` accepted (Telegram's are a few hundred bytes).
MAX_LENGTH = 4096


class InitDataError(ValueError):
    """``initData`` that does not prove who opened the page; ``reason`` is a short word for logs."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class WebAppUser:
    """Who opened the page, as Telegram signed it, and the ``start_param`` of the link they opened."""

    user_id: int
    first_name: str
    language_code: str | None
    start_param: str | None
    auth_date: int


def _secret(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def _check_string(fields: list[tuple[str, str]]) -> bytes:
    return "\n".join(f"{k}={v}" for k, v in sorted(fields) if k != "hash").encode()


def check_init_data(raw: str, token: str, *, now: float, max_age: float) -> WebAppUser:
    """The user ``raw`` (the page's ``Telegram.WebApp.initData``) was signed for; raises
    :class:`InitDataError` for anything forged, malformed, repeated or older than ``max_age`` seconds."""
    if not raw or len(raw) > MAX_LENGTH:
        raise InitDataError("length")
    try:
        fields = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("malformed") from None
    keys = [k for k, _ in fields]
    if len(set(keys)) != len(keys):
        raise InitDataError("repeated field")
    values = dict(fields)
    given = values.get("hash", "")
    expected = hmac.new(_secret(token), _check_string(fields), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode()):
        raise InitDataError("signature")
    try:
        auth_date = int(values["auth_date"])
        user = json.loads(values["user"])
        user_id = user["id"]
    except (KeyError, ValueError, TypeError):
        raise InitDataError("fields") from None
    if not isinstance(user_id, int) or isinstance(user_id, bool) or not isinstance(user, dict):
        raise InitDataError("fields")
    if now - auth_date > max_age or auth_date - now > 60:
        raise InitDataError("expired")
    language = user.get("language_code")
    return WebAppUser(
        user_id=user_id,
        first_name=str(user.get("first_name", "")),
        language_code=language if isinstance(language, str) else None,
        start_param=values.get("start_param"),
        auth_date=auth_date,
    )


def sign_init_data(token: str, fields: dict[str, str]) -> str:
    """``initData`` as Telegram would make it for ``fields`` (the sandbox's own token signs its pages)."""
    items = sorted(fields.items())
    digest = hmac.new(_secret(token), _check_string(items), hashlib.sha256).hexdigest()
    return urlencode([*items, ("hash", digest)])
