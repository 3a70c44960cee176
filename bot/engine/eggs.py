"""The eggs the losing pair draws at the end of a match (RULES.md §2 scoring; seed 000, "яйца").

For each 60-60 deal of the match ("eggs") the goats draw a pair of cards from the deck, one at a time:
the first gives the eggs' diameter, the second their weight; with several eggs the numbers are summed.
A joke the bot tells, nothing more: it scores nothing. The randomness is passed in, and the cards drawn
are kept (in the match and its record), so the joke replays.

A card's number is its face value from six to ten, the jack 2, the queen 3, the king 4 and the ace 11,
as cards are counted in "очко" (docs/rules-notes.md). The pairs come off one shuffled deck, one after
another; a deck run out (after 18 eggs with 36 cards) is gathered and shuffled again.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.engine.cards import Card, Rank, deck_for
from bot.engine.errors import KozelError

#: What each card counts for in the draw.
EGG_NUMBER: dict[Rank, int] = {
    Rank.SIX: 6,
    Rank.SEVEN: 7,
    Rank.EIGHT: 8,
    Rank.NINE: 9,
    Rank.TEN: 10,
    Rank.JACK: 2,
    Rank.QUEEN: 3,
    Rank.KING: 4,
    Rank.ACE: 11,
}


def egg_number(c: Card) -> int:
    """What ``c`` counts for as a diameter or a weight."""
    return EGG_NUMBER[c.rank]


def draw_egg_cards(deck_size: int, eggs: int, rng: random.Random) -> tuple[Card, ...]:
    """Two cards per egg, diameter then weight, drawn from a deck of ``deck_size`` shuffled by ``rng``."""
    if eggs < 0:
        raise KozelError(f"no {eggs} eggs to draw")
    deck = list(deck_for(deck_size))
    out: list[Card] = []
    while len(out) < 2 * eggs:
        pile = deck.copy()
        rng.shuffle(pile)
        out.extend(pile[: 2 * eggs - len(out)])
    return tuple(out)


@dataclass(frozen=True, slots=True)
class EggDraw:
    """The cards drawn, in pairs (diameter, weight), and the two sums."""

    pairs: tuple[tuple[Card, Card], ...]

    @property
    def diameter(self) -> int:
        """The eggs' diameter: the first cards' numbers summed."""
        return sum(egg_number(d) for d, _ in self.pairs)

    @property
    def weight(self) -> int:
        """The eggs' weight: the second cards' numbers summed."""
        return sum(egg_number(w) for _, w in self.pairs)

    @classmethod
    def of(cls, cards: Sequence[Card]) -> EggDraw:
        """The draw from the cards in the order drawn (two per egg)."""
        if len(cards) % 2:
            raise KozelError(f"eggs are drawn in pairs of cards, not {len(cards)} cards")
        return cls(tuple((cards[i], cards[i + 1]) for i in range(0, len(cards), 2)))

    def to_json(self) -> dict[str, Any]:
        """``{"pairs": [["8S", "AH"], ...], "diameter": 8, "weight": 11}``."""
        return {
            "pairs": [[d.code, w.code] for d, w in self.pairs],
            "diameter": self.diameter,
            "weight": self.weight,
        }
