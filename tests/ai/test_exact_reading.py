"""The exact reader of ``experiments.learned.exact_reading``: a world counts by how likely ``easy``
makes each play seen, from that seat's view with the world's hand — so the true world counts, and a
world in which a seat held a card of the led suit it did not follow counts nothing."""

from __future__ import annotations

import random

from bot.engine.actions import Play
from bot.engine.ai.easy import EasyPlayer
from bot.engine.ai.sample import true_world
from bot.engine.ai.weigh import history
from bot.engine.deal import Deal, Phase
from bot.engine.rules import Rules
from bot.engine.view import view_for
from experiments.learned.exact_reading import ExactReader, Seen


def _played_to(seed: int, plays: int) -> tuple[Deal, dict[int, Seen]]:
    """A flip deal played by four ``easy`` seats until ``plays`` cards are down, each play recorded."""
    rules = Rules.make("flip")
    deal = Deal.shuffled(rules, random.Random(seed), seed % 4, deal_no=1)
    rng = random.Random(seed)
    seen: dict[int, Seen] = {}
    while len(seen) < plays and not deal.over:
        seat = deal.to_act
        assert seat is not None
        view = view_for(deal, seat)
        action = EasyPlayer().decide(view, rng)
        if view.phase is Phase.PLAY and isinstance(action, Play):
            assert deal.play_state is not None
            seen[action.card.bit] = Seen(seat, view, deal.play_state.copy())
        deal.apply(seat, action)
    return deal, seen


def test_the_true_world_counts_and_a_world_where_a_seat_did_not_follow_counts_nothing() -> None:
    checked = 0
    for seed in range(40):
        if checked >= 5:
            break
        deal, seen = _played_to(seed, 12)
        if deal.over or deal.phase is not Phase.PLAY:
            continue
        me = deal.to_act
        assert me is not None
        truth = true_world(deal)
        tricks = history(view_for(deal, me), truth.s)
        reader = ExactReader(seen, 2, None, 0)
        assert reader.weight(me, truth, tricks) > 0
        # A seat that played off the led suit, and a card of that suit still hidden in a third hand:
        # give him that card (for one of his), and he held it when he did not follow.
        s = truth.s
        for plays in tricks:
            led = plays[0][1]
            suit = next(m for m in s.suit_masks if m & led)
            for x, b in plays[1:]:
                if x == me or b & suit:
                    continue
                for y in range(4):
                    c = truth.hands[y] & suit
                    if y in (me, x) or not c or not truth.hands[x]:
                        continue
                    c &= -c
                    d = truth.hands[x] & -truth.hands[x]
                    w = truth.copy()
                    w.hands[x] ^= d | c
                    w.hands[y] ^= c | d
                    assert ExactReader(seen, 2, None, 0).weight(me, w, tricks) == 0.0
                    checked += 1
                    break
    assert checked >= 5
