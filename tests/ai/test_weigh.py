"""``hard``'s world weighting: a world counts by how likely it makes the plays the seat has seen."""

from __future__ import annotations

import random
import statistics

from bot.engine import card
from bot.engine.ai.base import make_player
from bot.engine.ai.knowledge import knowledge
from bot.engine.ai.sample import sample_world, true_world
from bot.engine.ai.weigh import history, likelihood
from bot.engine.cards import mask_of
from bot.engine.deal import Phase
from bot.engine.match import Match
from bot.engine.rules import Rules
from bot.engine.view import view_for
from tests.ai.test_endgames import world
from tests.engine.helpers import cards

# Seat 0 led the ♠A; seat 2, his partner, threw the ♠9 onto that sure trick.
TRICK = ((0, card("AS").bit), (1, card("7S").bit), (2, card("9S").bit), (3, card("KS").bit))


def _weight(hands: dict[int, str]) -> float:
    s = world(hands, leader=0, pts=(0, 0), won=(0, 0)).s
    return likelihood(s, 3, [mask_of(cards(hands[h])) for h in range(4)], (TRICK,), 0.5, 1.0)


def test_a_partner_who_did_not_smear_the_ten_probably_had_none() -> None:
    # Seat 1 holding the ♠10 followed low, as the policy would; seat 2 holding it would have smeared it.
    assert _weight({0: "7H 8H", 1: "TS 9H", 2: "8D 7C", 3: "AH TH"}) == 1.0
    assert _weight({0: "7H 8H", 1: "8D 9H", 2: "TS 7C", 3: "AH TH"}) == 0.5


def test_a_seven_for_an_eight_is_the_same_choice() -> None:
    # Seat 1 held ♠7 and ♠8: the policy throws the ♠8 or the ♠7, both worthless and alike.
    assert _weight({0: "7H 8H", 1: "8S 9H", 2: "8D 7C", 3: "AH TH"}) == 1.0


def test_the_true_world_is_likelier_than_a_sampled_one() -> None:
    # Four rule players: the world they really hold makes their plays likelier than most sampled worlds.
    for preset in ("classic", "flip"):
        rules = Rules.make(preset)
        ratios = []
        for n in range(20):
            deal = Match(rules, dealer=0).new_deal(rng=random.Random(n))
            players = [make_player("easy") for _ in range(4)]
            rng = random.Random(n)
            stop, plays = rng.randrange(12, 28), 0
            while not deal.over:
                seat = deal.to_act
                assert seat is not None
                if deal.phase is Phase.PLAY:
                    plays += 1
                    if plays == stop:
                        break
                deal.apply(seat, players[seat].decide(view_for(deal, seat), rng))
            if deal.over:
                continue
            assert deal.to_act is not None
            view = view_for(deal, deal.to_act)
            k = knowledge(view)
            tricks = history(view, k.static)
            true = likelihood(k.static, k.me, true_world(deal).hands, tricks, 0.4, 0.8)
            sampled = [
                likelihood(k.static, k.me, sample_world(k, rng).hands, tricks, 0.4, 0.8) for _ in range(30)
            ]
            ratios.append(true / statistics.fmean(sampled))
        assert sum(r > 1 for r in ratios) >= 0.6 * len(ratios), (preset, ratios)
