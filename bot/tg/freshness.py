"""What the presenter knows of a table (:class:`View`), and whether what a render is about to send is
still current: the render's state still the newest (:meth:`View.outdated`), a new message still
wanted when its turn comes (:meth:`View.wants`; a new hand also by the table as stored then,
:meth:`View.hand_wanted`), a seat still its person's (:func:`holds`), a decision due as a new
message (:func:`push_due`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.engine import Deal
from bot.render.content import Content
from bot.storage import Storage, Table
from bot.storage.errors import STORAGE_DOWN
from bot.table.core import TableKey
from bot.table.game import FinishedDeal
from bot.table.usecase import Snapshot

_LOG = logging.getLogger(__name__)

#: A message of a deal: (table id, deal sequence, seat; None for the group's table message).
Slot = tuple[str, int, int | None]
#: A decision come due: (table id, deal sequence, moves made, seat).
Turn = tuple[str, int, int, int]
#: A hand message: (table id, deal sequence, seat, the person's user id).
HandSlot = tuple[str, int, int, int]
#: Asked when a new hand's turn comes: whether it is still wanted (see :meth:`View.hand_wanted`).
HandWanted = Callable[[], Awaitable[bool]]


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
    #: The contents made for one content stamp (see :meth:`made_now`): the renders after a
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

    def made_now(self) -> dict[tuple[object, ...], Content]:
        """The contents already made for the content of the newest snapshot (emptied when it changes)."""
        at = self.content_at()
        if self.made_at != at:
            self.made_at = at
            self.made = {}
        return self.made

    def outdated(self, at: tuple[str, tuple[int, str]]) -> bool:
        """Whether a render of the content ``at`` must stop: the table is gone, or a newer state of
        it is known (a person left, a move was made, the deal ended): the next render shows that."""
        return self.gone or self.content_at() != at

    def wants(
        self,
        table_id: str,
        seq: int,
        seat: int | None = None,
        user_id: int | None = None,
        *,
        moves: int | None = None,
    ) -> Callable[[], bool]:
        """Asked when a new message's turn comes (and before a retry): whether the table's newest
        state still wants it: the table there and playing the deal ``seq``; for a hand, ``seat``
        still the person ``user_id``'s; for a hand sent anew (``moves``: the moves made when its
        decision came due), that decision still open."""

        def wanted() -> bool:
            return not self.gone and plays(self.table, table_id, seq, seat, user_id, moves)

        return wanted

    def hand_wanted(
        self,
        storage: Storage,
        key: TableKey,
        slot: HandSlot,
        seen: Callable[[Table | None], None],
        moves: int | None = None,
    ) -> Callable[[], Awaitable[bool]]:
        """:meth:`wants` for a new hand message (``slot``: table id, deal sequence, seat, the person;
        ``moves`` for a hand sent anew), asked when its turn comes, and then also of the table as
        stored at that moment: another process may have changed it (a /leave, or the decision made,
        handled there) since this one's newest snapshot.

        One small read (the stored stamp); the table itself only if that is not the newest
        snapshot's, and then handed to ``seen`` (None: the table is gone), so this process shows it.
        While storage does not answer, the snapshot's word stands: keeping the message's id checks
        the stored table again, and deletes a hand that is no longer the seat's.
        """
        table_id, seq, seat, user_id = slot
        wanted = self.wants(table_id, seq, seat, user_id, moves=moves)

        async def stored_wants() -> bool:
            if not wanted():
                return False
            checked = self.table.stamp
            try:
                if await storage.table_stamp(*key) == checked:
                    return True  # the state ``wanted`` just looked at
                stored = await storage.load_table(*key)
            except STORAGE_DOWN:
                return True
            except Exception:  # the outbox's worker must not die of it
                _LOG.exception("checking the stored table %s before a hand is sent failed", key)
                return True
            seen(stored)
            return stored is not None and plays(stored, table_id, seq, seat, user_id, moves)

        return stored_wants


def plays(
    table: Table, table_id: str, seq: int, seat: int | None, user_id: int | None, moves: int | None = None
) -> bool:
    """Whether ``table`` is the table ``table_id`` playing the deal ``seq``, with ``seat`` (if given)
    the person ``user_id``'s, and (if given) ``moves`` moves made in the deal: a hand sent anew shows
    the decision that came due then, which is no longer open once someone moved (the person, on the
    hand another process sent, or a bot player for them)."""
    m = table.match
    if table.table_id != table_id or table.status != "playing" or m is None or m.deal_seq != seq:
        return False
    if moves is not None and len((m.current or {}).get("moves", [])) != moves:
        return False
    return seat is None or holds(table, seat, user_id)


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
