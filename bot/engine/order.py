"""Card order for one deal: which cards are trumps, what beats what, and the masks the engine plays on.

A deal's order depends only on the deck, the trump suit, the jack order and whether queens are trumps
(not in ``tricks``), so tables are built once and shared (:func:`tables_for` is cached).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from bot.engine.cards import ALL_CARDS, N_IDS, SUITS, Card, Rank, Suit, deck_for, mask_of
from bot.engine.rules import JackOrder, Rules

#: Effective suit of a trump; plain suits are ``1 + suit.ordinal``.
TRUMP = 0
#: Plain-suit order, high to low: the ten is above the king.
PLAIN_ORDER = (Rank.ACE, Rank.TEN, Rank.KING, Rank.NINE, Rank.EIGHT, Rank.SEVEN, Rank.SIX)
#: ``tricks``' plain order, where queens but the ♣Q are plain cards: the queen under the king, as in its
#: trump suit (RULES.md §5: clubs A 10 K Q 9 8 7).
PLAIN_ORDER_WITH_QUEEN = (Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, *PLAIN_ORDER[3:])
_QUEENS = tuple(Card(Rank.QUEEN, s) for s in SUITS)
_JACKS = {
    JackOrder.STANDARD: tuple(Card(Rank.JACK, s) for s in SUITS),
    JackOrder.LITERAL: tuple(
        Card(Rank.JACK, s) for s in (Suit.CLUBS, Suit.HEARTS, Suit.SPADES, Suit.DIAMONDS)
    ),
}


@dataclass(frozen=True, slots=True)
class Tables:
    """Everything about card order in a deal, indexed by ``Card.id``."""

    trump: Suit
    deck: tuple[Card, ...]
    #: Trumps, highest first.
    trumps: tuple[Card, ...]
    #: Effective suit per card id: :data:`TRUMP` or ``1 + suit.ordinal``; -1 for a card not in the deck.
    eff: tuple[int, ...]
    #: Strength per card id: every trump is above every plain card; plain cards compare within a suit.
    power: tuple[int, ...]
    #: Mask of the cards of each effective suit.
    suit_masks: tuple[int, ...]
    trump_mask: int
    deck_mask: int
    top: Card
    #: Queens and jacks (the ``matadors`` option).
    matador_mask: int
    #: Per card id, the matadors that outrank it.
    higher_matadors: tuple[int, ...]
    #: ``strength_by_led[e][id]``: a card's power in a trick led in effective suit ``e``; -1: it can't win.
    strength_by_led: tuple[tuple[int, ...], ...]

    def is_trump(self, c: Card) -> bool:
        """Whether ``c`` is a trump in this deal."""
        return self.eff[c.id] == TRUMP

    def beats(self, a: Card, b: Card, led_eff: int) -> bool:
        """Whether ``a`` beats ``b`` in a trick whose led effective suit is ``led_eff``."""
        return self.strength(a, led_eff) > self.strength(b, led_eff)

    def strength(self, c: Card, led_eff: int) -> int:
        """How strong ``c`` is in a trick led in ``led_eff``: -1 when it can't win."""
        e = self.eff[c.id]
        return self.power[c.id] if e in (TRUMP, led_eff) else -1

    def sort_key(self, c: Card) -> tuple[int, int]:
        """Display order: trumps first, strongest first; then plain suits in suit order, strongest first."""
        return (self.eff[c.id], -self.power[c.id])

    def sorted(self, cs: list[Card] | tuple[Card, ...]) -> list[Card]:
        """``cs`` in display order."""
        return sorted(cs, key=self.sort_key)


def tables_for(rules: Rules, trump: Suit) -> Tables:
    """The card order of a deal played under ``rules`` with ``trump`` as trump suit."""
    return _tables(rules.deck_size, trump, rules.jack_order, not rules.by_tricks)


@lru_cache(maxsize=64)
def _tables(deck_size: int, trump: Suit, jack_order: JackOrder, queens_trump: bool = True) -> Tables:
    deck = deck_for(deck_size)
    in_deck = set(deck)
    top = Card(Rank.SEVEN, Suit.CLUBS) if deck_size == 32 else Card(Rank.SIX, Suit.CLUBS)
    trumps: list[Card] = [top]
    queens, plain_order = (_QUEENS, PLAIN_ORDER) if queens_trump else ((), PLAIN_ORDER_WITH_QUEEN)
    for c in (*queens, *_JACKS[jack_order], *(Card(r, trump) for r in plain_order)):
        if c in in_deck and c not in trumps:
            trumps.append(c)
    eff = [-1] * N_IDS
    power = [-1] * N_IDS
    for i, c in enumerate(trumps):
        eff[c.id] = TRUMP
        power[c.id] = 100 + len(trumps) - i
    for c in deck:
        if eff[c.id] != TRUMP:
            eff[c.id] = 1 + c.suit.ordinal
            power[c.id] = len(plain_order) - plain_order.index(c.rank)
    suit_masks = [0] * 5
    for c in deck:
        suit_masks[eff[c.id]] |= c.bit
    matadors = [c for c in trumps if c.rank in (Rank.QUEEN, Rank.JACK)]
    higher = [0] * N_IDS
    for c in ALL_CARDS:
        if eff[c.id] == TRUMP:
            higher[c.id] = mask_of([m for m in matadors if power[m.id] > power[c.id]])
    return Tables(
        trump=trump,
        deck=deck,
        trumps=tuple(trumps),
        eff=tuple(eff),
        power=tuple(power),
        suit_masks=tuple(suit_masks),
        trump_mask=suit_masks[TRUMP],
        deck_mask=mask_of(deck),
        top=top,
        matador_mask=mask_of(matadors),
        higher_matadors=tuple(higher),
        strength_by_led=tuple(
            tuple(power[i] if eff[i] == TRUMP or (eff[i] == led and led >= 0) else -1 for i in range(N_IDS))
            for led in range(5)
        ),
    )
