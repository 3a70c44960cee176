"""What the presenter knows of a table (:class:`View`), and whether what a render is about to send is
still current: the render's state still the newest (:meth:`View.outdated`), a new message still
wanted when its turn comes (:meth:`View.wants`), a seat still its person's (:func:`holds`), a
decision due as a new message (:func:`push_due`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.engine import Deal
from bot.render.content import Content
from bot.storage import Table
from bot.table.game import FinishedDeal
from bot.table.usecase import Snapshot

#: A message of a deal: (table id, deal sequence, seat; None for the group's table message).
Slot = tuple[str, int, int | None]
#: A decision come due: (table id, deal sequence, moves made, seat).
Turn = tuple[str, int, int, int]


@dataclass
class View:
    """A table as this process shows it: its newest snapshot and the render task that shows it."""

    snap: Snapshot
    finished: list[FinishedDeal] = field(default_factory=list)
    dirty: bool = True
    task: asyncio.Task[None] | None = None
    #: The table was deleted (stopped, expired): nothing more is sent; dropped once its render stops.
    gone: bool = False
    #: When the updates behind the snapshots not yet rendered were taken (timed for the bench).
    taken: list[float] = field(default_factory=list)
    #: States of the table (``Table.stamp``: version and revision) that differ from an earlier one
    #: only in message ids the presenter stored (see ``Presenter._keep``): stamp -> the stamp whose
    #: content it shows.
    same: dict[tuple[int, str], tuple[int, str]] = field(default_factory=dict)
    #: The contents made for one content stamp (see ``Presenter._made``): the renders after a
    #: message id is stored show the same texts and keyboards, and do not make them again.
    made_at: tuple[str, tuple[int, str]] | None = None
    made: dict[tuple[object, ...], Content] = field(default_factory=dict)

    @property
    def table(self) -> Table:
        """The newest state of the table shown."""
        return self.snap.table

    def content_at(self) -> tuple[str, tuple[int, str]]:
        """What the newest snapshot shows: (table id, the state whose content it has)."""
        table = self.table
        return table.table_id, self.same.get(table.stamp, table.stamp)

    def outdated(self, at: tuple[str, tuple[int, str]]) -> bool:
        """Whether a render of the content ``at`` must stop: the table is gone, or a newer state of
        it is known (a person left, a move was made, the deal ended): the next render shows that."""
        return self.gone or self.content_at() != at

    def wants(
        self, table_id: str, seq: int, seat: int | None = None, user_id: int | None = None
    ) -> Callable[[], bool]:
        """Asked when a new message's turn comes (and before a retry): whether the table's newest
        state still wants it: the table there and playing the deal ``seq``; for a hand, ``seat``
        still the person ``user_id``'s."""

        def wanted() -> bool:
            table = self.table
            if self.gone or table.table_id != table_id or table.status != "playing" or table.match is None:
                return False
            return table.match.deal_seq == seq and (seat is None or holds(table, seat, user_id))

        return wanted


def holds(table: Table, seat: int, user_id: int | None) -> bool:
    """Whether ``seat`` is the person ``user_id``'s at ``table`` (not a bot's, not someone else's)."""
    person = table.seats[seat] if 0 <= seat < len(table.seats) else None
    return person is not None and not person.is_bot and person.user_id == user_id


def push_due(table: Table, deal: Deal, seat: int) -> bool:
    """Whether ``seat``'s hand is sent again as a new message, to notify its person of a decision.

    When the decision is theirs and came after someone else's move (the person waited), once per
    decision. Not when their own move came just before (they are looking at the hand: the lead
    after their card won the trick, classic's exchange right after their brag), nor at the deal's
    first decision (the hand has just arrived as a new message), nor for a seat the bot plays.
    """
    if deal.to_act != seat or seat in table.away or not deal.moves or deal.moves[-1][0] == seat:
        return False
    return table.pushed.get(seat) != len(deal.moves)
