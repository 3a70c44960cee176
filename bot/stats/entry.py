"""A chat's history entry: the match record (RULES.md §7) beside who played it, when, and its id.

The entry is the match record itself, with one more key, ``meta`` (versioned like every stored
document), so older readers that take an entry for a record (the soak's check) still work; the
record alone, as ``python -m bot.engine.replay`` takes it, is :func:`record_of`. Entries stored
before ``meta`` existed have none: they are shown and exported, but name no one, so they add nothing
to the standings.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bot.engine.rules import Rules
from bot.storage.models import Seat, Table

#: The version of ``meta``'s shape.
META_SCHEMA = 1
#: The standings' key a blind was counted under before blinds were left out (a seat with no one, stored
#: as a bot of no level; every bot player has a level): no player, never shown.
BLIND_KEY = "bbot"
#: The keys of an entry that belong to the match record.
RECORD_KEYS = ("rules", "deals", "egg_cards")


class Player(BaseModel):
    """Who sat in a seat: a person (``user_id``) or a bot player (``level``)."""

    model_config = ConfigDict(extra="allow")

    kind: str
    name: str = ""
    user_id: int | None = None
    level: str | None = None

    @property
    def key(self) -> str:
        """The player's id in the standings: ``u<user id>`` for a person, ``b<level>`` for a bot."""
        if self.kind == "human" and self.user_id is not None:
            return f"u{self.user_id}"
        return f"b{self.level or 'bot'}"

    @property
    def is_person(self) -> bool:
        """Whether a person sat here (not a bot player)."""
        return self.key.startswith("u")


class Meta(BaseModel):
    """Who played a match, where and when: what its record does not say."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = META_SCHEMA
    #: The table's id, unique to the match within its chat (a rematch gets a new one).
    id: str
    chat_id: int
    chat_title: str = ""
    #: When the match ended (Unix time).
    at: float
    seats: list[Player] = Field(default_factory=list)
    #: The match was played to the goat (not stopped).
    finished: bool = True
    #: Who played what where it was not ``seats``' player (a person who left mid-match, the bot player
    #: deciding for someone away): ``MatchState.played_by`` and ``left`` (bot/render/labels.py).
    played_by: dict[int, dict[str, str]] = Field(default_factory=dict)
    left: dict[int, dict[int, str]] = Field(default_factory=dict)


def make_entry(record: dict[str, Any], meta: Meta) -> dict[str, Any]:
    """A history entry: ``record`` with its ``meta``."""
    return {**record, "meta": meta.model_dump(mode="json")}


def meta_of(entry: dict[str, Any]) -> Meta | None:
    """The entry's ``meta``; None for entries stored before it existed, or of another version."""
    raw = entry.get("meta")
    if not isinstance(raw, dict) or raw.get("schema_version") != META_SCHEMA:
        return None
    try:
        return Meta.model_validate(raw)
    except ValueError:
        return None


def record_of(entry: dict[str, Any]) -> dict[str, Any]:
    """The match record alone (RULES.md §7), as ``python -m bot.engine.replay`` takes it."""
    return {k: entry[k] for k in RECORD_KEYS if k in entry}


def entry_of(table: Table, *, at: float) -> dict[str, Any]:
    """The history entry of ``table``'s match (finished when it has a goat, else stopped)."""
    match = table.match
    record: dict[str, Any] = {"rules": table.rules, "deals": list(match.deals) if match else []}
    if match is not None and match.egg_cards:
        record["egg_cards"] = list(match.egg_cards)
    seats = [
        Player(kind=s.kind, name=s.name, user_id=s.user_id, level=s.level)
        if s is not None
        else Player(kind="bot")
        for s in _seats_by_person(table)
    ]
    meta = Meta(
        id=table.table_id,
        chat_id=table.chat_id,
        chat_title=table.chat_title,
        at=at,
        seats=seats,
        finished=match is not None and (match.loser is not None or bool(match.goats)),
        played_by=match.played_by if match is not None else {},
        left=match.left if match is not None else {},
    )
    return make_entry(record, meta)


def _seats_by_person(table: Table) -> list[Seat | None]:
    """The table's seats as in deal 1: where the people move (``dummy`` with ``blind_rotates``), seat
    ``s`` of the entry is person ``s`` (the stored table has them where the last deal put them)."""
    rules = Rules.parse(table.rules)
    if table.match is None or not rules.blind_rotates:
        return list(table.seats)
    now = rules.seating(table.match.deal_no)
    first = rules.seating(1)
    return [table.seats[now.index(p)] if p is not None else table.seats[s] for s, p in enumerate(first)]


def entry_id(entry: dict[str, Any]) -> str:
    """The match's id: its table's, or for an entry stored before ``meta`` a digest of its record."""
    meta = meta_of(entry)
    if meta is not None:
        return meta.id
    digest = hashlib.sha1(json.dumps(record_of(entry), sort_keys=True).encode(), usedforsecurity=False)
    return digest.hexdigest()[:8]
