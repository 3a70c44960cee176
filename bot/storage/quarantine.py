"""A stored table that does not load (garbage bytes, plain text, JSON of another shape, invalid
values, a key of the wrong type) is moved aside, not retried for ever.

:meth:`bot.storage.RedisStorage.load_table` reads the stored hash as bytes and parses it with
:func:`parse_table`. A table that does not parse is renamed to a key of its own
(:func:`quarantine_key`, kept ``QUARANTINE_KEPT`` seconds for inspection) by one script that moves it
only if it is still what was read, so of several processes finding it at once one moves it: that one
logs one line (chat, key, why) and tells the chat, through ``RedisStorage.on_quarantine``; a storage
with none (a tool's, such as the soak's scan) leaves the table for the bot to move. The chat then
has no table: ``/newgame`` works at once, and every timer, bot move and render of the old table
finds none and stops, as for a deleted table.

A document of a *newer* schema is not corrupt (a newer release wrote it during a rolling deploy): it
is left alone and reads as no table, as before.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from redis.client import NEVER_DECODE
from redis.exceptions import ResponseError

from bot.storage.models import SCHEMA, Table
from bot.storage.scripts import QUARANTINE, wrong_type

_LOG = logging.getLogger(__name__)

#: Seconds a quarantined table is kept for inspection.
QUARANTINE_KEPT = 30 * 86400
#: Characters of a parse error kept in the reason.
_WHY_KEPT = 160


class Corrupt(Exception):
    """A stored table that does not load; the message says why."""


@dataclass(frozen=True)
class Quarantined:
    """A table this process moved aside: its chat (and topic), where it was and is, and why."""

    chat_id: int
    thread_id: int | None
    key: str
    moved_to: str
    why: str


class TableReader:
    """Reads stored tables for :class:`~bot.storage.RedisStorage`; moves one that does not load aside."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self._quarantine = client.register_script(QUARANTINE)

    async def load(
        self, key: str, chat_id: int, thread_id: int | None, tell: Callable[[Quarantined], None] | None
    ) -> Table | None:
        """The table stored under ``key`` (see :func:`parse_table`); one that does not load is moved
        aside, and ``tell`` told, by the one process that moves it (none without ``tell``)."""
        seen: list[str | bytes]
        for _ in range(3):  # a table made again since one was moved aside is read again
            try:  # bytes: a table that is not UTF-8 is corrupt, not a decoding error of the client
                version, revision, data = await self.client.execute_command(
                    "HMGET", key, "v", "r", "data", **{NEVER_DECODE: []}
                )
                table = parse_table(version, revision, data)
            except ResponseError as e:
                if not wrong_type(e):
                    raise
                why, seen = "not a hash: a key of another type", ["other", "", ""]
            except Corrupt as e:
                why, seen = str(e), seen_args(version, data)
            else:
                return table
            if tell is None:  # a tool's storage (the soak's scan): the bot moves it, and tells the chat
                _LOG.warning("the table under %s does not load (%s); left for the bot", key, why)
                return None
            lost = Quarantined(chat_id, thread_id, key, quarantine_key(key, int(time.time() * 1000)), why)
            if await self.set_aside(lost, seen):
                tell(lost)
                return None
            if not await self.client.exists(key):
                return None  # moved aside by another process meanwhile
        return None

    async def set_aside(self, lost: Quarantined, seen: list[Any]) -> bool:
        """Move the table that did not load aside if it is still ``seen`` (then log it); False if it
        changed since (or is gone)."""
        args = [*seen, str(QUARANTINE_KEPT * 1000)]
        if not await self._quarantine(keys=[lost.key, lost.moved_to], args=args):
            return False
        chat = f"chat {lost.chat_id}" + (f" (topic {lost.thread_id})" if lost.thread_id else "")
        _LOG.error(
            "the table of %s does not load (%s): key %s moved to %s for inspection; the chat can "
            "start a new game", chat, lost.why, lost.key, lost.moved_to,
        )  # fmt: skip
        return True


def quarantine_key(table_key: str, at_ms: int) -> str:
    """Where the table stored under ``table_key`` is kept once it failed to load at ``at_ms``.

    The same hash tag (the chat's), so the move is one script on a cluster too; not ``…:table:…``,
    so no scan for tables finds it.
    """
    head, _, thread = table_key.rpartition(":table:")
    return f"{head}:corrupt:{thread}:{at_ms}"


def parse_table(version: bytes | None, revision: bytes | None, data: bytes | None) -> Table | None:
    """The table stored as these fields of its hash (None when there is none, or it is of a newer
    schema); raises :class:`Corrupt` when they do not make one."""
    if version is None and data is None:
        return None
    if version is None or data is None:
        raise Corrupt("no version" if version is None else "no data")
    try:
        number = int(version)
    except ValueError:
        raise Corrupt(f"the version {_short(version)} is not a number") from None
    try:
        table = Table.model_validate_json(data)  # parsed and validated in one pass
    except ValidationError as e:
        if _newer(data):
            return None
        raise Corrupt(_why(data, e)) from None
    if table.schema_version > SCHEMA:
        return None
    if table.schema_version != SCHEMA:
        raise Corrupt(f"schema_version {table.schema_version}")
    try:
        table.revision = (revision or b"").decode("ascii")
    except UnicodeDecodeError:
        raise Corrupt(f"the revision {_short(revision or b'')} is not ours") from None
    table.version = number
    return table


def seen_args(version: bytes | None, data: bytes | None) -> list[str | bytes]:
    """The quarantine script's arguments for a hash read as ``version`` and ``data``."""
    digest = hashlib.sha1(data).hexdigest() if data is not None else ""
    return ["hash", version or b"", digest]


def _newer(data: bytes) -> bool:
    try:
        doc = json.loads(data)
    except ValueError:
        return False
    schema = doc.get("schema_version") if isinstance(doc, dict) else None
    return isinstance(schema, int) and not isinstance(schema, bool) and schema > SCHEMA


def _why(data: bytes, error: ValidationError) -> str:
    """What is wrong with a table's JSON, in one short line."""
    try:
        doc = json.loads(data.decode())
    except UnicodeDecodeError as e:
        return _clip(f"not JSON, not even UTF-8 text ({e.reason} at byte {e.start}): {_short(data)}")
    except ValueError as e:
        return _clip(f"not JSON ({e}): {_short(data)}")
    if not isinstance(doc, dict):
        return _clip(f"JSON {type(doc).__name__}, not an object: {_short(data)}")
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the table"
    more = error.error_count() - 1
    return _clip(f"{where}: {first['msg']}" + (f" (and {more} more)" if more else ""))


def _short(raw: bytes) -> str:
    return repr(raw[:40].decode(errors="backslashreplace")) + ("…" if len(raw) > 40 else "")


def _clip(text: str) -> str:
    return text if len(text) <= _WHY_KEPT else text[: _WHY_KEPT - 1] + "…"
