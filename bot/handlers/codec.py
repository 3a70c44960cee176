"""Callback data and deep-link payloads: typed, signed, and at most 64 bytes.

Callback data: ``k1.<chat>.<thread>.<table>.<deal>.<payload>.<sig>`` (numbers in base 36). The table
id and the deal number let a tap on a keyboard of another table or an earlier deal be recognised as
stale; the signature (a truncated HMAC) makes forged data fail to decode at all.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

MAX_CALLBACK = 64
_VERSION = "k1"
_PAYLOAD = re.compile(r"^[A-Za-z0-9_:+\-]{1,24}$")
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


class BadData(ValueError):
    """Callback data or a payload that this bot did not produce (or not in this version)."""


def b36(n: int) -> str:
    """``n`` in base 36, with a leading ``-`` when negative."""
    if n < 0:
        return "-" + b36(-n)
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = _DIGITS[r] + out
        if n == 0:
            return out


def from_b36(s: str) -> int:
    """The inverse of :func:`b36`; raises :class:`BadData`."""
    try:
        return int(s, 36)
    except ValueError:
        raise BadData(f"not a base-36 number: {s!r}") from None


@dataclass(frozen=True, slots=True)
class Button:
    """What a button means: which table, which deal, and what it does (``payload``)."""

    chat_id: int
    thread_id: int | None
    table_id: str
    deal_seq: int
    payload: str


class Codec:
    """Packs and unpacks :class:`Button` values with a secret known only to this bot."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def _sig(self, body: str) -> str:
        mac = hmac.new(self._secret, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac[:6]).decode()

    def _link_sig(self, body: str) -> str:
        # Hex, because base64's "_" and "-" would clash with the payload's separator.
        return hmac.new(self._secret, body.encode(), hashlib.sha256).hexdigest()[:10]

    def pack(self, button: Button) -> str:
        """Callback data for ``button``; raises ValueError if it would not fit Telegram's 64 bytes."""
        if not _PAYLOAD.match(button.payload):
            raise ValueError(f"bad payload {button.payload!r}")
        if not re.fullmatch(r"[a-z0-9]{1,8}", button.table_id):
            raise ValueError(f"bad table id {button.table_id!r}")
        body = ".".join(
            (
                _VERSION,
                b36(button.chat_id),
                b36(button.thread_id or 0),
                button.table_id,
                b36(button.deal_seq),
                button.payload,
            )
        )
        data = f"{body}.{self._sig(body)}"
        if len(data.encode()) > MAX_CALLBACK:
            raise ValueError(f"callback data too long: {data!r}")
        return data

    def unpack(self, data: str | None) -> Button:
        """The button behind callback data; raises :class:`BadData` for anything else."""
        if not data:
            raise BadData("no data")
        parts = data.split(".")
        if len(parts) != 7 or parts[0] != _VERSION:
            raise BadData("not this bot's callback data")
        body, sig = ".".join(parts[:6]), parts[6]
        if not hmac.compare_digest(sig, self._sig(body)):
            raise BadData("bad signature")
        _, chat, thread, table_id, deal, payload = parts[:6]
        thread_id = from_b36(thread)
        return Button(from_b36(chat), thread_id or None, table_id, from_b36(deal), payload)

    # Deep links (t.me/<bot>?start=<payload>): [A-Za-z0-9_-]{1,64}, so "_" separates the fields.

    def pack_link(self, kind: str, chat_id: int, thread_id: int | None, table_id: str, arg: int = 0) -> str:
        """A deep-link payload: ``kind`` is ``j`` (join at seat ``arg``) or ``h`` (send my hand)."""
        body = "_".join((kind, b36(chat_id), b36(thread_id or 0), table_id, b36(arg)))
        return f"{body}_{self._link_sig(body)}"

    def unpack_link(self, payload: str) -> tuple[str, int, int | None, str, int]:
        """The fields of a deep-link payload; raises :class:`BadData`."""
        parts = payload.split("_")
        if len(parts) != 6:
            raise BadData("not this bot's link")
        body, sig = "_".join(parts[:5]), parts[5]
        if not hmac.compare_digest(sig, self._link_sig(body)):
            raise BadData("bad signature")
        kind, chat, thread, table_id, arg = parts[:5]
        return kind, from_b36(chat), from_b36(thread) or None, table_id, from_b36(arg)
