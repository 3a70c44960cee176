"""Cards, suits and ranks as frozen value types, and the card codes of RULES.md §1 (`6C`, `TD`, `QC`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from bot.engine.errors import KozelError


class Suit(StrEnum):
    """The four suits, in the order that fixes card ids: clubs, spades, hearts, diamonds."""

    CLUBS = "C"
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"

    @property
    def ordinal(self) -> int:
        """Position in :data:`SUITS` (0..3)."""
        return _SUIT_INDEX[self]


class Rank(StrEnum):
    """The nine ranks of the 36-card deck, lowest printed value first."""

    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    ACE = "A"

    @property
    def ordinal(self) -> int:
        """Position in :data:`RANKS` (0..8)."""
        return _RANK_INDEX[self]

    @property
    def points(self) -> int:
        """Card points: A 11, 10 10, K 4, Q 3, J 2, the rest 0."""
        return _POINTS.get(self, 0)


SUITS: Final = tuple(Suit)
RANKS: Final = tuple(Rank)
_SUIT_INDEX: Final = {s: i for i, s in enumerate(SUITS)}
_RANK_INDEX: Final = {r: i for i, r in enumerate(RANKS)}
_POINTS: Final = {Rank.ACE: 11, Rank.TEN: 10, Rank.KING: 4, Rank.QUEEN: 3, Rank.JACK: 2}
N_IDS: Final = len(SUITS) * len(RANKS)


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card; equal cards compare and hash equal, and ``id`` (0..35) indexes the engine tables."""

    rank: Rank
    suit: Suit
    id: int = field(init=False, repr=False, compare=False)
    points: int = field(init=False, repr=False, compare=False)
    #: The card code: rank then suit, e.g. ``"TD"`` (worked out once: records list every card).
    code: str = field(init=False, repr=False, compare=False)
    #: This card's bit in the engine's hand masks, ``1 << id``.
    bit: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cid = self.suit.ordinal * len(RANKS) + self.rank.ordinal
        object.__setattr__(self, "id", cid)
        object.__setattr__(self, "points", self.rank.points)
        object.__setattr__(self, "code", self.rank.value + self.suit.value)
        object.__setattr__(self, "bit", 1 << cid)

    def __str__(self) -> str:
        return self.code

    @staticmethod
    def parse(code: str) -> Card:
        """The card for a code such as ``"6C"`` or ``"td"``; a bad code raises :class:`KozelError`."""
        try:
            return _BY_CODE[code.strip().upper()]
        except (KeyError, AttributeError):
            raise KozelError(
                f"not a card code: {code!r} (expected rank 6789TJQKA + suit CSHD, e.g. 'QC')"
            ) from None


#: Every card of the 36-card deck, indexed by ``Card.id``.
ALL_CARDS: Final = tuple(Card(r, s) for s in SUITS for r in RANKS)
_BY_CODE: Final = {c.code: c for c in ALL_CARDS}
#: Card points by card id.
POINTS_BY_ID: Final = tuple(c.points for c in ALL_CARDS)

SHMON_36: Final = Card(Rank.SIX, Suit.CLUBS)
SHMON_32: Final = Card(Rank.SEVEN, Suit.CLUBS)
QUEEN_OF_CLUBS: Final = Card(Rank.QUEEN, Suit.CLUBS)
JACK_OF_CLUBS: Final = Card(Rank.JACK, Suit.CLUBS)


def card(code: str) -> Card:
    """Shorthand for :meth:`Card.parse`."""
    return Card.parse(code)


def cards(codes: str) -> list[Card]:
    """Cards from space-separated codes: ``cards("QC 7S TD")``."""
    return [Card.parse(c) for c in codes.split()]


def canonical(c: Card) -> Card:
    """The interned instance of ``c`` (the one in :data:`ALL_CARDS`)."""
    return ALL_CARDS[c.id]


def mask_of(cs: list[Card] | tuple[Card, ...]) -> int:
    """The bit mask of a collection of cards."""
    m = 0
    for c in cs:
        m |= 1 << c.id
    return m


def cards_of(mask: int) -> list[Card]:
    """The cards of a bit mask, in id order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(ALL_CARDS[low.bit_length() - 1])
        mask ^= low
    return out


def deck_for(size: int) -> tuple[Card, ...]:
    """The cards of a deck of ``size`` 36, 32 (no sixes) or 24 (no sevens, eights or nines), in id order."""
    try:
        return _DECKS[size]
    except KeyError:
        raise KozelError(f"no {size}-card deck: Kozel is played with 36, 32 or 24 cards") from None


def deck_mask(size: int) -> int:
    """The bit mask of :func:`deck_for` ``(size)``."""
    return _DECK_MASKS[size]


_DECKS: Final = {
    36: ALL_CARDS,
    32: tuple(c for c in ALL_CARDS if c.rank is not Rank.SIX),
    24: tuple(c for c in ALL_CARDS if c.rank not in (Rank.SEVEN, Rank.EIGHT, Rank.NINE)),
}
_DECK_MASKS: Final = {n: mask_of(d) for n, d in _DECKS.items()}
