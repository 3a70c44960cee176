"""Callback data and deep-link payloads: typed, signed, and at most 64 bytes.

Callback data: ``k1.<chat>.<thread>.<table>.<deal>.<payload>.<sig>`` (numbers in base 36). The table
id and the deal number let a tap on a keyboard of another table or an earlier deal be recognised as
stale; the signature (a truncated HMAC) makes forged data fail to decode at all. A hand's button, while
the decision is its seat's, also carries the count of the deal's moves its keyboard was drawn at:
``k2.<chat>.<thread>.<table>.<deal>.<moves>.<payload>.<sig>``, so a tap on an older keyboard of the same
deal is recognised too (:func:`bot.table.moves.drawn_for_now`). Every other button stays ``k1``, as
do the hand buttons sent before the counter existed (read with ``moves`` None).

What a button does is one of the typed payloads of :mod:`bot.table.payloads` (:data:`Payload`):
every keyboard is built with :meth:`Codec.data` and every tap read with :meth:`Codec.read`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

from bot.table.payloads import BadData, Payload, b36, decode, encode, from_b36

MAX_CALLBACK = 64
#: Callback data kept once made (the buttons of the keyboards changed lately).
DATA_KEPT = 8192
_VERSION = "k1"
#: Callback data that carries the count of moves its keyboard was drawn at.
_VERSION_MOVES = "k2"
_PAYLOAD = re.compile(r"^[A-Za-z0-9_:+\-]{1,24}$")
#: What callback data and deep links are written in: anything else is refused before its signature.
_DATA = re.compile(r"[A-Za-z0-9_:+.\-]{1,64}")
_LINK = re.compile(r"[A-Za-z0-9_\-]{1,64}")


@dataclass(frozen=True, slots=True)
class Button:
    """What a button means: which table, which deal, and what it does (``payload``); a hand's button
    while the decision is its seat's, also after how many moves of the deal its keyboard was drawn
    (``moves``; None: a waiting hand's, not a hand's, or sent before the count was carried)."""

    chat_id: int
    thread_id: int | None
    table_id: str
    deal_seq: int
    payload: str
    moves: int | None = None


@dataclass(frozen=True, slots=True)
class Link:
    """A deep link's meaning: join the lobby at ``seat``, or send me my hand again."""

    kind: Literal["join", "hand"]
    chat_id: int
    thread_id: int | None
    table_id: str
    seat: int = 0


_LINK_KINDS: dict[str, Literal["join", "hand"]] = {"j": "join", "h": "hand"}
_LINK_CODES = {kind: code for code, kind in _LINK_KINDS.items()}


def payload_code(data: str) -> str | None:
    """The payload's short code in callback data this bot made itself (its signature not checked), or
    None if ``data`` is not of its shape."""
    parts = data.split(".")
    if (parts[0], len(parts)) in ((_VERSION, 7), (_VERSION_MOVES, 8)):
        return parts[-2]
    return None


class Codec:
    """Packs and unpacks :class:`Button` values with a secret known only to this bot."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret
        #: Callback data made lately: a render makes the same buttons for the DM and the live page, and
        #: again when it is repeated.
        self._made: OrderedDict[tuple[int, int | None, str, int, int | None, Payload], str] = OrderedDict()

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
        if button.moves is not None and button.moves < 0:
            raise ValueError(f"bad count of moves {button.moves!r}")
        fields = [
            _VERSION,
            b36(button.chat_id),
            b36(button.thread_id or 0),
            button.table_id,
            b36(button.deal_seq),
        ]
        if button.moves is not None:
            fields[0] = _VERSION_MOVES
            fields.append(b36(button.moves))
        body = ".".join((*fields, button.payload))
        data = f"{body}.{self._sig(body)}"
        if len(data.encode()) > MAX_CALLBACK:
            raise ValueError(f"callback data too long: {data!r}")
        return data

    def data(
        self,
        chat_id: int,
        thread_id: int | None,
        table_id: str,
        deal_seq: int,
        payload: Payload,
        *,
        moves: int | None = None,
    ) -> str:
        """Callback data of a button that does ``payload`` at a table (and deal) of a chat; ``moves``: a
        hand's button, drawn after that many moves of the deal."""
        key = (chat_id, thread_id, table_id, deal_seq, moves, payload)
        data = self._made.get(key)
        if data is None:
            data = self.pack(Button(chat_id, thread_id, table_id, deal_seq, encode(payload), moves))
            self._made[key] = data
            if len(self._made) > DATA_KEPT:
                self._made.popitem(last=False)
        return data

    def read(self, data: str | None) -> tuple[Button, Payload]:
        """The button behind callback data and what it does; raises :class:`BadData`."""
        button = self.unpack(data)
        return button, decode(button.payload)

    def unpack(self, data: str | None) -> Button:
        """The button behind callback data; raises :class:`BadData` for anything else."""
        if not data or not _DATA.fullmatch(data):
            raise BadData("not this bot's callback data")
        parts = data.split(".")
        if (parts[0], len(parts)) not in ((_VERSION, 7), (_VERSION_MOVES, 8)):
            raise BadData("not this bot's callback data")
        body, sig = ".".join(parts[:-1]), parts[-1]
        if not hmac.compare_digest(sig.encode(), self._sig(body).encode()):
            raise BadData("bad signature")
        chat, thread, table_id, deal = parts[1:5]
        moves = from_b36(parts[5]) if parts[0] == _VERSION_MOVES else None
        return Button(from_b36(chat), from_b36(thread) or None, table_id, from_b36(deal), parts[-2], moves)

    # Deep links (t.me/<bot>?start=<payload>): [A-Za-z0-9_-]{1,64}, so "_" separates the fields.

    def pack_link(self, kind: str, chat_id: int, thread_id: int | None, table_id: str, arg: int = 0) -> str:
        """A deep-link payload: ``kind`` is ``j`` (join at seat ``arg``) or ``h`` (send my hand)."""
        body = "_".join((kind, b36(chat_id), b36(thread_id or 0), table_id, b36(arg)))
        return f"{body}_{self._link_sig(body)}"

    def link(self, link: Link) -> str:
        """The deep-link payload of ``link``."""
        return self.pack_link(_LINK_CODES[link.kind], link.chat_id, link.thread_id, link.table_id, link.seat)

    def read_link(self, payload: str) -> Link:
        """What a deep-link payload asks; raises :class:`BadData`."""
        code, chat_id, thread_id, table_id, arg = self.unpack_link(payload)
        kind = _LINK_KINDS.get(code)
        if kind is None or (kind == "join" and arg not in range(4)):
            raise BadData("not this bot's link")
        return Link(kind, chat_id, thread_id, table_id, arg)

    def unpack_link(self, payload: str) -> tuple[str, int, int | None, str, int]:
        """The fields of a deep-link payload; raises :class:`BadData`."""
        parts = payload.split("_")
        if not _LINK.fullmatch(payload) or len(parts) != 6:
            raise BadData("not this bot's link")
        body, sig = "_".join(parts[:5]), parts[5]
        if not hmac.compare_digest(sig.encode(), self._link_sig(body).encode()):
            raise BadData("bad signature")
        kind, chat, thread, table_id, arg = parts[:5]
        return kind, from_b36(chat), from_b36(thread) or None, table_id, from_b36(arg)
