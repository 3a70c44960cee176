"""The phases of a deal, the trick record, ``sochi``'s talon, and the deal as the phases before the first
lead see it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple, Protocol

from bot.engine.actions import (
    Action,
    Brag,
    ChooseBragKind,
    Cut,
    Declare,
    Discard,
    Exchange,
    ExchangeGive,
    Swap,
    SwapReturn,
)
from bot.engine.cards import Card, Suit
from bot.engine.errors import Reason
from bot.engine.order import Tables
from bot.engine.rules import Rules


class Phase(StrEnum):
    """What the deal waits for."""

    BRAG_KIND = "brag_kind"
    CUT = "cut"
    BRAG = "brag"
    EXCHANGE = "exchange"
    EXCHANGE_GIVE = "exchange_give"
    DECLARE = "declare"
    SWAP = "swap"
    SWAP_RETURN = "swap_return"
    DISCARD = "discard"
    PLAY = "play"
    OVER = "over"


#: The phase each kind of decision belongs to (to tell a refused choice from one asked at the wrong time).
PHASE_OF: dict[type, Phase] = {
    Brag: Phase.BRAG,
    Exchange: Phase.EXCHANGE,
    ExchangeGive: Phase.EXCHANGE_GIVE,
    ChooseBragKind: Phase.BRAG_KIND,
    Cut: Phase.CUT,
    Declare: Phase.DECLARE,
    Swap: Phase.SWAP,
    SwapReturn: Phase.SWAP_RETURN,
    Discard: Phase.DISCARD,
}
#: Why a decision before the first lead is refused: the reason, and what to say (``None``: say whose
#: decision the deal waits for).
Refusal = tuple[Reason, str | None]


def refused(phase: Phase, action: Action) -> Refusal:
    """The refusal of ``action`` by the seat to act in ``phase``: a choice the rules do not allow, or a
    decision of another phase."""
    return (Reason.NOT_ALLOWED if PHASE_OF.get(type(action)) is phase else Reason.WRONG_PHASE), None


class Trick(NamedTuple):
    """A trick as played: its leader, the cards in order and the winner (``None`` if cut short).

    A named tuple rather than a frozen dataclass: one is built per trick on the search path.
    """

    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int | None

    @property
    def points(self) -> int:
        """Card points in the trick."""
        return sum(c.points for _, c in self.plays)

    def to_json(self) -> dict[str, Any]:
        """The trick as RULES.md §7 prints it."""
        return {"leader": self.leader, "plays": [[s, c.code] for s, c in self.plays], "winner": self.winner}


@dataclass(slots=True)
class TalonState:
    """The talon and the discards of a ``sochi`` deal, which :mod:`bot.engine.sochi` plays; kept here, as
    :class:`DealCore` shows it to the brag too (a ``sochi`` brag deal's talon forms its sides)."""

    #: The two talon cards, shown to all once dealt (empty before).
    talon: tuple[Card, ...] = ()
    #: The ♣Q holder, once the sides are formed.
    lone: int | None = None
    #: The two cards he discarded face down (empty until he has).
    discards: tuple[Card, ...] = ()
    #: Who leads the first trick: the brag's taker, else the lone player.
    leader: int | None = None

    def copy(self) -> TalonState:
        """An independent copy (its fields are immutable)."""
        return TalonState(self.talon, self.lone, self.discards, self.leader)

    @property
    def taken(self) -> bool:
        """Whether the lone player has taken the talon into his hand."""
        return self.lone is not None


class DealCore(Protocol):
    """What the phases before the first lead (:mod:`bot.engine.brag`, :mod:`bot.engine.flip`) may see
    and do of the deal they drive: its public facts and a few operations, nothing else."""

    rules: Rules
    #: The shuffled deck, top card first.
    deck: tuple[Card, ...]
    dealer: int
    #: The seat left of the dealer.
    left: int
    deal_no: int
    #: The reading of the rules the deal is played by (:data:`bot.engine.rules.VERSION`).
    version: int
    pair_of: tuple[int, ...]
    #: Per seat, the cards every seat has seen in his hand; ``known[o][h]``: seen by seat ``o`` alone.
    shown: list[int]
    known: list[list[int]]
    events: list[str]
    #: ``sochi``'s talon, lone player and discards.
    talon: TalonState
    #: What the deal waits for, and whose decision.
    phase: Phase
    to_act: int | None

    @property
    def hands(self) -> list[int]:
        """The hands as bit masks over ``Card.id`` (changed in place)."""
        ...

    @property
    def tables(self) -> Tables | None:
        """The card order, once trump is known."""
        ...

    def hand(self, seat: int) -> list[Card]:
        """``seat``'s cards in display order."""
        ...

    def give(self, seat: int, cs: Sequence[Card]) -> None:
        """Put ``cs`` into ``seat``'s hand."""
        ...

    def one_at_a_time(self, cs: Sequence[Card], first: int) -> None:
        """Deal ``cs`` one at a time clockwise from ``first``."""
        ...

    def holder(self, c: Card) -> int:
        """The seat holding ``c``."""
        ...

    def set_trump(self, trump: Suit) -> None:
        """Trump is known: the card order follows from it."""
        ...

    def wait_for(self, phase: Phase, seat: int) -> None:
        """The deal waits for ``seat``'s decision in ``phase``."""
        ...

    def void(self, event: str, *, same_dealer: bool) -> None:
        """The deal is void (``event`` says why); ``same_dealer``: he deals again."""
        ...

    def redeal_if_four_queens(self) -> bool:
        """Void the deal if a hand holds all four queens and the rules say so; whether it was."""
        ...

    def count_trick(self, trick: Trick) -> None:
        """A trick taken before play (the brag's): its points and the trick go to the winner's pair."""
        ...

    def set_sides(self, pair_of: tuple[int, ...]) -> None:
        """The sides of this deal, per seat (``sochi``: once the talon is shown)."""
        ...

    def bank(self, side: int, points: int) -> None:
        """Card points taken outside any trick count for ``side`` (``sochi``'s discards)."""
        ...

    def open_hand(self, seat: int) -> None:
        """``seat``'s hand is shown to all and plays last, never winning (classic's exchange)."""
        ...

    def start_play(self, leader: int) -> None:
        """The decisions before the first lead are over: ``leader`` leads."""
        ...
