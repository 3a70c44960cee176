"""What a timer is: its id (a member of the timers' sorted set), the turn it times, when a tick holds it.

Pure helpers of :mod:`bot.table.timers`, which arms and fires the timers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.storage import ChatSettings, Table
from bot.table.core import Settings, TableKey
from bot.table.game import decider
from bot.table.usecase import Snapshot

TimerKind = Literal["remind", "timeout", "away", "lobby", "table", "tidy"]
KINDS: tuple[TimerKind, ...] = ("remind", "timeout", "away", "lobby", "table", "tidy")
#: The timers of a person's turn.
TURN_KINDS: tuple[TimerKind, ...] = ("remind", "timeout", "away")
#: A reminder's ``tidy`` timer fires this long after the turn's timeout, and again as long after that
#: while the turn still waits (its person ticking cards holds it off).
TIDY_AFTER = 5.0


@dataclass(frozen=True, slots=True)
class TimerId:
    """What a timer is for; the sorted set's member is ``kind|chat|thread|table|deal|moves|seat``, and
    for ``tidy`` (a reminder to delete once its turn is gone) ``…|seat|<user id>:<message id>``."""

    kind: TimerKind
    chat_id: int
    thread_id: int | None
    table_id: str
    deal_seq: int = 0
    moves: int = 0
    seat: int = 0
    #: ``tidy``: the private chat and the message of the reminder.
    message: tuple[int, int] | None = None

    def pack(self) -> str:
        """The sorted-set member."""
        fields = (
            self.kind,
            self.chat_id,
            self.thread_id or 0,
            self.table_id,
            self.deal_seq,
            self.moves,
            self.seat,
        )
        tail = f"|{self.message[0]}:{self.message[1]}" if self.message is not None else ""
        return "|".join(str(f) for f in fields) + tail

    @classmethod
    def parse(cls, member: str) -> TimerId | None:
        """The timer behind a member, or None for anything malformed."""
        parts = member.split("|")
        if len(parts) not in (7, 8) or parts[0] not in KINDS or (len(parts) == 8) != (parts[0] == "tidy"):
            return None
        kind = next(k for k in KINDS if k == parts[0])
        try:
            chat, thread, seq, moves, seat = (int(parts[i]) for i in (1, 2, 4, 5, 6))
            message = None
            if len(parts) == 8:
                user, _, message_id = parts[7].partition(":")
                message = (int(user), int(message_id))
        except ValueError:
            return None
        return cls(kind, chat, thread or None, parts[3], seq, moves, seat, message)

    @property
    def key(self) -> TableKey:
        """The table's storage key."""
        return (self.chat_id, self.thread_id)


@dataclass(frozen=True, slots=True)
class Turn:
    """A person's decision the deal waits for."""

    deal_seq: int
    moves: int
    seat: int


def turn_of(shown: Snapshot | Table) -> Turn | None:
    """The person (not a bot player) the table waits for, if any."""
    snap = shown if isinstance(shown, Snapshot) else Snapshot(shown)
    table = snap.table
    if table.status != "playing" or table.match is None or table.match.current is None:
        return None
    deal = snap.deal
    if deal is None or deal.to_act is None:
        return None
    # A blind's decision (its brag) is its partner's: his turn, timed as his own.
    seat = table.seats[decider(table, deal.to_act)]
    if seat is None or seat.is_bot:
        return None
    return Turn(table.match.deal_seq, len(deal.moves), deal.to_act)


#: Turn timers of this many latest moves are dropped when the next turn's are armed.
TAKEN_TURNS = 4


def taken_turn_timers(snap: Snapshot) -> list[str]:
    """The turn timers of the deal's latest decisions (``TAKEN_TURNS``): they could only fire for nothing.

    Dropped when the next turn's timers are armed, so a quick game does not leave two stale timers
    per move, each loading its table when it fires (the latest four moves reach back to a person's
    previous turn past three bot players).
    """
    table = snap.table
    m = table.match
    deal = snap.deal if table.status == "playing" and m is not None else None
    if m is None or deal is None:
        return []
    kinds = TURN_KINDS
    key = (table.chat_id, table.thread_id, table.table_id)
    first = max(0, len(deal.moves) - TAKEN_TURNS)
    return [
        TimerId(k, *key, m.deal_seq, i, deal.moves[i][0]).pack()
        for i in range(first, len(deal.moves))
        for k in kinds
    ]


def turn_time(chat: ChatSettings, settings: Settings) -> int:
    """Seconds a person of this chat has for a decision (0: no turn timer)."""
    return settings.turn_time if chat.turn_time is None else chat.turn_time


def held_until(table: Table | None, timer: TimerId, span: float, now: float) -> float | None:
    """When ``timer`` should fire instead, if its person is ticking cards for its decision.

    A tick (``MatchState.picking``, the exchange's give) shows the person is there: the reminder
    and the timeout count from their last tick (``span`` after it), not from when the turn came.
    None when they have not ticked for this decision or that time has come.
    """
    m = table.match if table is not None else None
    p = m.picking if m is not None else None
    if p is None or (p.deal_seq, p.moves, p.seat) != (timer.deal_seq, timer.moves, timer.seat):
        return None
    return p.at + span if p.at + span > now else None


__all__ = [
    "KINDS", "TAKEN_TURNS", "TIDY_AFTER", "TURN_KINDS", "TimerId", "TimerKind", "Turn", "held_until",
    "taken_turn_timers", "turn_of", "turn_time",
]  # fmt: skip
