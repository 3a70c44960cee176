"""Builders for hand-made ``sochi`` deals: three hands of ten and a talon of two."""

from __future__ import annotations

import random

from bot.engine import Card, Deal, Phase, Rules, cards, deck_for

SOCHI = Rules.make("sochi")


def sochi_deck(given: dict[int, str], talon: str = "", dealer: int = 0, seed: int = 0) -> list[Card]:
    """A deal-1 deck: ten cards to each seat one at a time from the dealer's left, then the talon;
    cards not given are filled in a seeded random order."""
    named = [c for v in (*given.values(), talon) for c in cards(v)]
    rest = [c for c in deck_for(32) if c not in named]
    random.Random(seed).shuffle(rest)
    hands = {}
    for seat in range(3):
        mine = cards(given.get(seat, ""))
        while len(mine) < 10:
            mine.append(rest.pop())
        hands[seat] = mine
    tal = cards(talon)
    while len(tal) < 2:
        tal.append(rest.pop())
    assert not rest
    first = (dealer + 1) % 3
    out = [hands[(first + k) % 3][i] for i in range(10) for k in range(3)]
    return out + tal


def random_to(deal: Deal, rng: random.Random, phase: Phase) -> Deal:
    """Take random legal actions in ``deal`` until it reaches ``phase`` or is over."""
    while not deal.over and deal.phase is not phase:
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, rng.choice(deal.legal_actions(seat)))
    return deal


def random_play(deal: Deal, rng: random.Random) -> Deal:
    """Play ``deal`` to its end with random legal actions."""
    while not deal.over:
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, rng.choice(deal.legal_actions(seat)))
    return deal
