"""The phases a deal goes through and the trick record: shared by the deal and its brag."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from bot.engine.cards import Card


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
    PLAY = "play"
    OVER = "over"


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
