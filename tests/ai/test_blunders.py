"""Partner-play blunders that ``easy`` and every level above it never make."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, Match, Play, Rules, card, view_for
from bot.engine.actions import Exchange
from bot.engine.ai.base import make_player
from bot.engine.deal import Phase
from tests.engine.helpers import fill

RULES = Rules.make("classic")
# Search levels on a fixed number of worlds, so the test is deterministic.
LEVELS = ["easy", "tests.ai.players:small_medium", "tests.ai.players:small_hard"]


def position(given: dict[int, str], plays: list[str]) -> Deal:
    """Classic deal 1 (dealer 3, ♦ trump) with the given hands, after ``plays`` from the ♣J holder on."""
    deal = Deal(RULES, fill(RULES, given, dealer=3, seed=4), dealer=3)
    for code in plays:
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, Play(card(code)))
    return deal


def choice(level: str, deal: Deal, seed: int) -> str:
    seat = deal.to_act
    assert seat is not None
    action = make_player(level).decide(view_for(deal, seat), random.Random(seed))
    assert isinstance(action, Play)
    return action.card.code


# Seat 0 holds ♣J (it leads) and the шмон ♣6: its ♣6 lead wins the trick for sure.
SURE = {0: "6C JC 7S 8S 9S 6S 7H 8H 9H", 1: "8D 9D 7D KS TS AC TC KC 9C", 2: "TD QS 6D AS KH TH 6H 7C 8C"}
# Seat 1 holds ♣J and leads the шмон; seat 2 holds the ♣Q.
SHMON_LED = {1: "6C JC 7S 8S 9S 6S 7H 8H 9H", 2: "QC 9D AS KH TH 6H 7C 8C 9C"}
# Seat 2 is void in trumps while its partner's ♣6 wins.
SMEAR = {0: "6C JC 7S 8S 9S 7H 8H 9H 6D", 1: "8D 9D 7D KD AD TD QD JD QS", 2: "AH 6H 7C 8C KH 6S TS KS AS"}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", range(3))
def test_never_overtakes_a_partners_sure_trick(level: str, seed: int) -> None:
    deal = position(SURE, ["6C", "8D"])
    played = choice(level, deal, seed)
    assert played not in ("QS", "AS")  # a queen wasted on a won trick; the ♠A is not even a trump here
    if level == "easy":
        assert played == "TD"  # the richest trump goes to the partner


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", range(3))
def test_never_feeds_the_queen_to_the_opponents_shmon(level: str, seed: int) -> None:
    deal = position(SHMON_LED, ["6C"])
    assert choice(level, deal, seed) == "9D"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", range(3))
def test_gives_points_to_a_winning_partner(level: str, seed: int) -> None:
    deal = position(SMEAR, ["6C", "8D"])
    view = view_for(deal, 2)
    assert not any(c.rank.value in "QJ" or c.suit.value == "D" for c in view.hand)
    played = card(choice(level, deal, seed))
    # An ace or a ten: keeping the ♠A, still master, for a trick of its own and giving the ♠10 is sound.
    assert played.points >= 10


def test_every_level_accepts_an_offered_exchange() -> None:
    # Refusing the exchange cost the rule player 0.39 penalty points per deal head to head (classic).
    offers = 0
    for seed in range(40):
        rng = random.Random(seed)
        match = Match(RULES, dealer=0)
        first = match.new_deal(rng=rng)
        while not first.over:
            seat = first.to_act
            assert seat is not None
            first.apply(seat, rng.choice(first.legal_actions(seat)))
        assert first.result is not None
        match.add(first.result)
        deal = match.new_deal(rng=rng)
        while not deal.over and offers < 6:
            seat = deal.to_act
            assert seat is not None
            acts = deal.legal_actions(seat)
            if Exchange(True) in acts:
                offers += 1
                view = view_for(deal, seat)
                for level in ("easy", "medium", "hard"):
                    assert make_player(level).decide(view, random.Random(seed)) == Exchange(True), level
            if deal.phase is Phase.PLAY:
                break
            deal.apply(seat, rng.choice(acts))
    assert offers >= 3
