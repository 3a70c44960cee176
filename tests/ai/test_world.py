"""The search model agrees with the engine: same legal cards at every step, same deal value at the end."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, Phase, Rules
from bot.engine.ai.sample import true_world
from bot.engine.ai.world import rollout, worth
from bot.engine.play import play_out, random_choice
from bot.measure.arena import deal_value
from tests.ai.deals import play_turns
from tests.engine.test_properties import IDS, RULESETS


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_world_follows_the_engine_card_for_card(rules: Rules) -> None:
    rng = random.Random(11)
    checked = 0
    for i in range(12):
        deal = Deal.shuffled(rules, rng, dealer=i % 4, deal_no=1 + i % 3)
        w = None
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            if deal.phase is Phase.PLAY:
                if w is None:
                    w = true_world(deal)
                assert w.to_act() == seat
                assert w.legal(seat) == deal.legal_mask(seat)
                acts = deal.legal_actions(seat)
                action = acts[int(rng.random() * len(acts))]
                w.play(action.card.bit)  # type: ignore[union-attr]
                while w.s.blinds >> w.seat & 1 and not w.over:
                    w.play(w.mask)  # a blind's card: the deal plays it by itself, a world as a play-out does
                deal.apply(seat, action)
            else:
                acts = deal.legal_actions(seat)
                deal.apply(seat, acts[int(rng.random() * len(acts))])
        assert deal.result is not None
        if w is not None:
            assert w.over
            assert w.value0() == deal_value(rules, deal.result, 0)
            checked += 1
    assert checked


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_the_fast_playout_makes_the_same_choices_as_the_model(rules: Rules) -> None:
    rng = random.Random(7)
    compared = 0
    for _, deal, _seat in play_turns(rules, rng, 10, 0.3):
        w = true_world(deal)
        seed = rng.getrandbits(32)
        chosen = worth(play_out(w.copy(), random_choice(random.Random(seed).random)))
        assert rollout(w, random.Random(seed)) == chosen
        assert w.hands == true_world(deal).hands  # the world is not changed
        compared += 1
    assert compared
