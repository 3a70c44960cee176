"""What a finished deal came to (RULES.md §7's replay result)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar, dataclass_transform

from bot.engine.cards import Card, Suit
from bot.engine.phase import Trick

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True)
def _value(cls: type[_T]) -> type[_T]:
    """A dataclass the type checker holds frozen (no field may be assigned), with slots and a hash as a
    frozen one has; at run time its ``__init__`` stores the fields into their slots directly. A frozen
    dataclass sets each field through ``object.__setattr__``, which for a result's 16 fields cost more
    than every other part of a deal's end together (a result is built at the end of every deal played
    and replayed)."""
    return dataclass(slots=True, unsafe_hash=True)(cls)


@_value
class DealResult:
    """What a deal came to: the tricks, card points, events and the penalty charged per pair."""

    trump: Suit | None
    tricks: tuple[Trick, ...]
    points: tuple[int, int]
    tricks_won: tuple[int, int]
    events: tuple[str, ...]
    penalty: tuple[int, int]
    #: The deal was void (no scoring); ``same_dealer`` says whether the same dealer deals again.
    void: bool = False
    same_dealer: bool = False
    #: The seat dealt ♣J (deals the next deal in classic and in flip's ``jack_declares``).
    jack_holder: int | None = None
    loser: int | None = None
    multiplier: int = 1
    #: The kind of brag played where the kind rotates by round (``sochi4``), else ``None``.
    brag_kind: str | None = None
    #: The side of each seat in this deal (``penalty`` and ``points`` are per side): fixed pairs with
    #: four seats; in ``sochi`` side 0 is the lone player and side 1 the other two.
    pair_of: tuple[int, ...] = (0, 1, 0, 1)
    #: ``sochi``: the lone player (the ♣Q holder), the talon shown and the two cards he discarded.
    lone: int | None = None
    talon: tuple[Card, ...] = ()
    discards: tuple[Card, ...] = ()

    def charged(self, seat: int) -> int:
        """The penalty written to ``seat``'s person: his side's (RULES.md §5: each of its people)."""
        return self.penalty[self.pair_of[seat]]

    def to_json(self) -> dict[str, Any]:
        """The result as RULES.md §7 prints it."""
        out: dict[str, Any] = {
            "trump": self.trump.value if self.trump else None,
            "tricks": [t.to_json() for t in self.tricks],
            "points": list(self.points),
            "events": list(self.events),
            "penalty": list(self.penalty),
        }
        if self.multiplier != 1:
            out["multiplier"] = self.multiplier
        if self.brag_kind is not None:
            out["brag_kind"] = self.brag_kind
        if self.talon:
            out["talon"] = [c.code for c in self.talon]
        if self.lone is not None:
            out["lone"] = self.lone
            out["discards"] = [c.code for c in self.discards]
        return out
