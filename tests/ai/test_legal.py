"""Every level makes only legal decisions through whole random matches of every preset."""

from __future__ import annotations

import random

import pytest

from bot.engine import Cut, Deal, Match, Phase, Rules, cut_points, view_for
from bot.engine.ai.base import Player, make_player
from tests.engine.test_properties import IDS, RULESETS

LEVELS = [
    "greedy",
    "easy",
    "tests.ai.players:tiny_medium",
    "tests.ai.players:tiny_hard",
    "tests.ai.players:tiny_learned",
]


def play_match(rules: Rules, players: list[Player], seed: int, max_deals: int = 40) -> int:
    """Play a match (or ``max_deals`` deals); every decision must be one of ``view.legal``."""
    rng = random.Random(seed)
    match = Match(rules, dealer=seed % 4)
    decisions = 0
    for _ in range(max_deals):
        if match.over:
            break
        deal = match.new_deal(rng=rng)
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            view = view_for(deal, seat)
            action = players[seat].decide(view, rng)
            assert action in view.legal, f"{players[seat].name} chose {action} not in {view.legal}"
            deal.apply(seat, action)
            decisions += 1
        assert deal.result is not None
        match.add(deal.result)
    return decisions


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_easy_and_random_play_legal_matches(rules: Rules) -> None:
    players = [make_player(n) for n in ("easy", "random", "easy", "random")]
    assert play_match(rules, players, seed=1) > 0


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_every_level_plays_legal_deals(rules: Rules) -> None:
    players = [make_player(n) for n in LEVELS]
    assert play_match(rules, players, seed=2, max_deals=3) > 0


def test_levels_are_seated_by_name() -> None:
    for level in ("random", "greedy", "easy", "medium", "hard", "cheat"):
        assert make_player(level).name == level


@pytest.mark.parametrize("level", ["random", "greedy", "easy", "medium", "hard"])
def test_mirror_every_level_makes_each_cut_decision(level: str) -> None:
    """Every level cuts for its seat in the mirror, as often as a packet of trumps only asks it to;
    easy and the search levels at one of the handful of points the keyboards offer."""
    player = make_player(level)
    rng = random.Random(3)
    cuts = 0
    for i in range(12):
        deal = Deal.shuffled(Rules.make("classic", brag="mirror"), rng, i % 4, deal_no=2)
        while deal.phase is Phase.CUT:
            view = view_for(deal, deal.to_act or 0)
            action = player.decide(view, rng)
            assert isinstance(action, Cut) and action in view.legal
            if level not in ("random", "greedy"):  # they take any legal decision but a card
                assert action.at in dict(cut_points(view.stock_size)).values()
            deal.apply(view.seat, action)
            cuts += 1
    assert cuts >= 48
