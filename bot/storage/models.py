"""The stored shapes of a table, a chat and a user: versioned JSON through pydantic, never pickle.

``SCHEMA`` is written into every document; a document of another schema is refused on load, so an
upgrade that changes a shape must migrate (or drop) old documents explicitly. A field added within a
schema needs no migration, in either direction: a document saved by a newer release carries fields
this one does not know, and they are kept as they are and written back on save (pydantic's
``extra="allow"``), so during a rolling deploy an old process can load, change and save a table a new
one wrote without losing what the new one added. Code cannot misspell a field: the pydantic mypy
plugin's ``init_forbid_extra`` refuses unknown keyword arguments at type-check time.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA = 1
N_SEATS = 4

TableStatus = Literal["lobby", "playing", "over"]
LobbyView = Literal["seats", "rules", "confirm"]
TimeoutAction = Literal["bot", "away"]


class _Doc(BaseModel):
    # Unknown fields (from a newer release) are kept and saved back, not refused: see the module's notes.
    model_config = ConfigDict(extra="allow")


class Seat(_Doc):
    """Who sits in a seat: a person (by Telegram user id) or a bot player of some level."""

    kind: Literal["human", "bot"]
    name: str
    user_id: int | None = None
    level: str | None = None
    #: Telegram's ``language_code`` of the person, for their DM when they set no language.
    lang: str | None = None

    @property
    def is_bot(self) -> bool:
        """Whether a bot player fills the seat."""
        return self.kind == "bot"


class Picking(_Doc):
    """Cards a player has ticked so far for a decision of several cards (the exchange's give).

    Kept in the table so the choice survives a restart; it belongs to one decision: the deal
    (``deal_seq``) with ``moves`` moves made, and ``seat``. Once the deal moves on it is stale.
    """

    deal_seq: int
    moves: int
    seat: int = Field(ge=0, le=3)
    cards: list[str] = Field(default_factory=list)
    #: When the last card was ticked or unticked (Unix time): a person ticking is present, so the
    #: turn timers count from then (bot/table/timers.py, :func:`held_until`).
    at: float = 0.0


class PendingSummary(_Doc):
    """A finished deal whose messages still show it live: its summary edits are not confirmed yet.

    Stored with the change that ends the deal and dropped once Telegram has taken the edits, so a
    process killed in between leaves the next start (``BotDriver.resume``) something to finish.
    """

    #: The deal's index in ``MatchState.deals``.
    index: int
    table_message_id: int | None = None
    hand_messages: dict[int, int] = Field(default_factory=dict)
    #: The deal before's "deal N is over" lines, deleted with this summary (by person's id).
    earlier: dict[int, int] = Field(default_factory=dict)


class MatchState(_Doc):
    """The running match: the engine's match counters, finished deal records and the deal in play."""

    first_dealer: int = Field(ge=0, le=3)
    dealer: int = Field(ge=0, le=3)
    deal_no: int = 1
    penalty: tuple[int, int] = (0, 0)
    eggs: int = 0
    eggs_in_row: int = 0
    loser: int | None = None
    title: str | None = None
    #: Individual scores (``dummy`` with ``blind_rotates``; 3-person ``sochi``, where person = seat):
    #: each person's penalty, by person (numbered by their seats in deal 1), and the goat(s) once the
    #: match is over; empty in pair games.
    scores: list[int] = Field(default_factory=list)
    goats: list[int] = Field(default_factory=list)
    #: The cards the losing pair drew for the eggs when the match ended (two per egg, the diameter
    #: first): drawn once, so every rendering tells the same joke.
    egg_cards: list[str] = Field(default_factory=list)
    #: Deals dealt in this match, void ones included; a keyboard carries it to be recognised as stale.
    deal_seq: int = 0
    #: Finished deals as replayable records (RULES.md §7).
    deals: list[dict[str, Any]] = Field(default_factory=list)
    #: The deal in play as a record: its moves so far.
    current: dict[str, Any] | None = None
    #: A choice of several cards in progress in a player's DM (see :class:`Picking`).
    picking: Picking | None = None
    #: By deal index: cards (and "dealer") whose player is not the seat's occupant as shown, "p:" and
    #: the person's name (who left since), or "b:" and the name of the person the bot played for.
    played_by: dict[int, dict[str, str]] = Field(default_factory=dict)
    #: By deal index: the seats a person left mid-deal, with their names (bot/render/labels.py).
    left: dict[int, dict[int, str]] = Field(default_factory=dict)


def _empty_seats() -> list[Seat | None]:
    return [None] * N_SEATS


def seats_for(rules: dict[str, Any]) -> int:
    """How many seats a table of ``rules`` (their JSON form) has: three for 3-person ``sochi``."""
    return 3 if rules.get("preset") == "sochi" else N_SEATS


class Table(_Doc):
    """One table in a chat (or a forum topic): lobby, seats, rules, the match and its messages."""

    schema_version: int = SCHEMA
    #: Compare-and-set counter; every successful save increments it.
    version: int = 0
    #: The stored state's revision: a random token each save stores beside the version, compared by
    #: the compare-and-set too (bot/storage/scripts.py). Not in the JSON. A Redis that went back to
    #: an older state and was advanced again by another process can repeat a version, never this.
    revision: str = Field(default="", exclude=True)
    table_id: str
    chat_id: int
    thread_id: int | None = None
    chat_title: str = ""
    creator_id: int
    status: TableStatus = "lobby"
    lobby_view: LobbyView = "seats"
    rules: dict[str, Any]
    seats: list[Seat | None] = Field(default_factory=lambda: _empty_seats())
    #: A rematch's lobby: the people seated from the match before who have not said yet whether they
    #: play (user ids; bot/tg/lobby.py).
    unconfirmed: list[int] = Field(default_factory=list)
    bot_level: str = "random"
    lobby_message_id: int | None = None
    table_message_id: int | None = None
    #: Each human seat's hand message of the current deal, by seat number.
    hand_messages: dict[int, int] = Field(default_factory=dict)
    #: Each human seat's count of the deal's moves when its hand message was sent (a new message
    #: notifies, an edit does not: bot/tg/presenter.py sends the hand again when a decision
    #: comes due after others' moves).
    pushed: dict[int, int] = Field(default_factory=dict)
    #: The last finished deal's hand messages ("deal N is over"), by person's id: each private chat
    #: keeps one such line per table, the one before is deleted when the next deal ends.
    over_lines: dict[int, int] = Field(default_factory=dict)
    #: Seats whose DM failed this deal (the group has been told once).
    dm_failed: list[int] = Field(default_factory=list)
    #: Finished deals of this match whose summary edits are not confirmed yet (a restart does them).
    pending_summaries: list[PendingSummary] = Field(default_factory=list)
    created_at: float = 0.0
    updated_at: float = 0.0
    match: MatchState | None = None
    #: Turn timeouts in a row per seat (reset when the person decides again); see bot/table/timers.py.
    timeouts: dict[int, int] = Field(default_factory=dict)
    #: Seats whose person is away: the bot player decides for them until they tap "I'm back".
    away: list[int] = Field(default_factory=list)
    #: Seats whose person blocked the bot (bot/tg/faults.py): also away, and sent no DMs until
    #: they start the bot again or tap.
    blocked: list[int] = Field(default_factory=list)

    @property
    def stamp(self) -> tuple[int, str]:
        """The version and revision: one stored state of the table, even across a rolled-back Redis
        (what anything kept per state is keyed by)."""
        return self.version, self.revision

    def seat_of(self, user_id: int) -> int | None:
        """The seat ``user_id`` sits in, if any."""
        for i, seat in enumerate(self.seats):
            if seat is not None and seat.user_id == user_id:
                return i
        return None

    @property
    def full(self) -> bool:
        """Whether every seat is taken."""
        return all(seat is not None for seat in self.seats)

    @property
    def humans(self) -> list[tuple[int, Seat]]:
        """The seats people sit in, with their numbers."""
        return [(i, s) for i, s in enumerate(self.seats) if s is not None and not s.is_bot]


class ChatSettings(_Doc):
    """What a chat remembers: its language and the rules it played last."""

    schema_version: int = SCHEMA
    lang: str | None = None
    rules: dict[str, Any] | None = None
    bot_level: str | None = None
    #: Seconds a person has for a decision (0: no turn timer); None: the bot's default.
    turn_time: int | None = None
    #: At a timeout: ``bot`` plays that one decision (two in a row: the seat is away), ``away`` at once.
    timeout_action: TimeoutAction = "bot"
    #: The 💡 hint button in the hands (the ``hard`` player's suggestion): off unless the chat turns it on.
    hints: bool = False


class UserSettings(_Doc):
    """What the bot knows about a person: whether they started it, and their language override."""

    schema_version: int = SCHEMA
    started: bool = False
    lang: str | None = None
