"""Every level makes only legal decisions through whole random matches of every preset."""

from __future__ import annotations

import random

import pytest

from bot.engine import Match, Rules, view_for
from bot.engine.ai.base import Player, make_player
from tests.engine.test_properties import IDS, RULESETS

LEVELS = ["greedy", "easy", "tests.ai.players:tiny_medium", "tests.ai.players:tiny_hard"]


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
