"""Builders for hand-made deals: decks arranged so that each seat gets chosen cards."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bot.engine import Card, Deal, Phase, Rules, cards, deck_for


def interleave(hands: dict[int, Sequence[Card]], first: int) -> list[Card]:
    """The cards dealt one at a time clockwise from ``first`` so that each seat gets ``hands[seat]``."""
    n = len(hands[first])
    assert all(len(h) == n for h in hands.values())
    out: list[Card] = []
    for i in range(n):
        for k in range(4):
            out.append(hands[(first + k) % 4][i])
    return out


def fill(rules: Rules, given: dict[int, str], dealer: int = 0, seed: int = 0) -> list[Card]:
    """A one-at-a-time deck (classic deal 1, flip ``first_card``) with the given cards in given hands.

    Seats not fully specified are filled with the remaining cards in a seeded random order.
    """
    size = rules.hand_size
    rest = [c for c in deck_for(rules.deck_size) if all(c not in cards(v) for v in given.values())]
    random.Random(seed).shuffle(rest)
    hands = {}
    for seat in range(4):
        mine = cards(given.get(seat, ""))
        while len(mine) < size:
            mine.append(rest.pop())
        hands[seat] = mine
    return interleave(hands, (dealer + 1) % 4)


def play_out(deal: Deal, rng: random.Random) -> Deal:
    """Play ``deal`` to its end with random legal actions."""
    while not deal.over:
        seat = deal.to_act
        assert seat is not None
        acts = deal.legal_actions(seat)
        assert acts, f"no legal action for seat {seat} in {deal.phase}"
        deal.apply(seat, rng.choice(acts))
    return deal


def to_play(deal: Deal) -> Deal:
    """Take every decision before the first lead by refusing (no swap) or naming hearts."""
    from bot.engine import Declare, Suit, Swap

    while deal.phase not in (Phase.PLAY, Phase.OVER):
        seat = deal.to_act
        assert seat is not None
        if deal.phase is Phase.DECLARE:
            deal.apply(seat, Declare(Suit.HEARTS))
        elif deal.phase is Phase.SWAP:
            deal.apply(seat, Swap(False))
        else:  # pragma: no cover
            raise AssertionError(deal.phase)
    return deal
