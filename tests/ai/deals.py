"""Positions of random deals for the AI's property tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

from bot.engine import Deal, Phase, Rules


def play_turns(
    rules: Rules, rng: random.Random, deals: int, share: float = 1.0, deal_nos: int = 3
) -> Iterator[tuple[int, Deal, int]]:
    """``deals`` deals of ``rules`` played with random legal decisions — a match's first to
    ``deal_nos``-th deal in turn, so classic's brag, exchange and open hand come up too — yielding
    ``(deal index, deal, seat to act)`` before about ``share`` of the play-phase turns (the turn is
    then played at random; the caller must not change the deal)."""
    for i in range(deals):
        deal = Deal.shuffled(rules, rng, dealer=i % 4, deal_no=1 + i % deal_nos)
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            if deal.phase is Phase.PLAY and (share >= 1.0 or rng.random() < share):
                yield i, deal, seat
            acts = deal.legal_actions(seat)
            deal.apply(seat, acts[int(rng.random() * len(acts))])
