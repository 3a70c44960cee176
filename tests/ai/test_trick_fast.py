"""The trick policy's fast paths (:mod:`bot.engine.ai.trick`) play what the plain policy plays
(``tests/ai/reference_trick.py``): the same card from every seat, the same trick ends, the same leads."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, Rules
from bot.engine.ai import trick
from bot.engine.ai.knowledge import knowledge
from bot.engine.ai.sample import sample_world, true_world
from bot.engine.ai.world import bits_of
from bot.engine.view import view_for
from tests.ai import reference_trick as ref
from tests.ai.deals import play_turns
from tests.engine.test_properties import IDS, RULESETS


def test_the_stronger_masks_hold_exactly_the_cards_that_beat_a_strength() -> None:
    s = true_world(Deal.shuffled(Rules.make("classic"), random.Random(1), dealer=0, deal_no=1)).s
    for e, strength in enumerate(s.by_led):
        for p in range(-2, max(strength) + 1):
            want = {cid for cid, q in enumerate(strength) if q > p}
            assert set(b.bit_length() - 1 for b in bits_of(trick.beaters(s)[e][p + 2])) == want


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_finish_and_lead_play_what_the_plain_policy_plays(rules: Rules) -> None:
    # True and sampled worlds at every kind of position: each legal card of the seat to act, the trick
    # finished with and without a careless pair, and the lead of a trick not yet started.
    rng = random.Random(17)
    compared = 0
    for _, deal, seat in play_turns(rules, rng, 8, 0.5):
        for w in (true_world(deal), sample_world(knowledge(view_for(deal, seat)), rng)):
            s, legal = w.s, w.legal(seat)
            if not w.trick:
                assert trick.lead(s, w.hands, seat, legal, w.stacks) == ref.lead(
                    s, w.hands, seat, legal, w.stacks
                )
            for b in bits_of(legal):
                plays = [*w.trick, (seat, b)]
                rest = s.orders[w.leader][len(plays) :]
                for careless in (None, (0, rng.random()), (1, rng.random())):
                    got: list[int] = []
                    want: list[int] = []
                    assert trick.finish(s, w.hands, plays, rest, careless, got, w.stacks) == ref.finish(
                        s, w.hands, plays, rest, careless, want, w.stacks
                    )
                    assert got == want
                    compared += 1
    assert compared > 300
