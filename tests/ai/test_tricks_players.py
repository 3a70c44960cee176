"""Bot players under ``tricks`` (RULES.md §5): no queen rules where there is no queen catch, every trick
worth the same, and a search that plays for tricks, not card points."""

from __future__ import annotations

import random

from bot.engine import Deal, Match, Rules, Suit, cards, tables_for, view_for
from bot.engine.ai import make_player
from bot.engine.ai.solver import Solver
from bot.engine.ai.trick import finish
from bot.engine.ai.world import Static, World, worth
from bot.engine.cards import mask_of

TRICKS = Rules.make("tricks")
S = Static(TRICKS, tables_for(TRICKS, Suit.CLUBS))
CLASSIC = Rules.make("classic", trump_suit="C")


def _hands(given: dict[int, str]) -> list[int]:
    return [mask_of(cards(given.get(h, ""))) for h in range(4)]


def test_tricks_policy_spends_the_shmon_with_no_queen_to_catch() -> None:
    # Seat 0 leads the ♣9; seat 1 holds the шмон and the ♣8. Where the шмон catches the ♣Q the policy
    # keeps it back and loses the trick; in tricks it is just the top trump and takes the trick.
    hands = _hands({1: "6C 8C", 2: "7S", 3: "8S"})
    lead = [(0, cards("9C")[0].bit)]
    classic = Static(CLASSIC, tables_for(CLASSIC, Suit.CLUBS))
    assert finish(classic, hands, lead, (1, 2, 3))[0] == 0
    assert finish(S, hands, lead, (1, 2, 3))[0] == 1


def test_tricks_every_trick_is_worth_the_same_to_the_policy() -> None:
    # An ace-high trick and a trick of sevens count alike: only the number of tricks scores.
    rich = finish(S, _hands({1: "TS", 2: "KS", 3: "QS"}), [(0, cards("AS")[0].bit)], (1, 2, 3))
    poor = finish(S, _hands({1: "7H", 2: "8H", 3: "6H"}), [(0, cards("9H")[0].bit)], (1, 2, 3))
    assert rich[1] == poor[1] == 12


def test_tricks_the_solver_counts_tricks_not_card_points() -> None:
    # One trick left at 4-4 in tricks: pair A holds 100 of the card points, but the last trick goes to
    # pair B's ♠A, so pair A has four tricks and is charged 2.
    w = World(S, _hands({0: "7S", 1: "AS", 2: "8S", 3: "9S"}), 0, [], [100, 5], [4, 4])
    assert Solver().value(w) == -2
    w2 = World(S, _hands({0: "AS", 1: "7S", 2: "8S", 3: "9S"}), 0, [], [5, 100], [4, 4])
    assert Solver().value(w2) == 2
    finished = w2.copy()
    for b in (cards(c)[0].bit for c in ("AS", "7S", "8S", "9S")):
        finished.play(b)
    assert worth(finished) == 2 + 0.25 * (5 - 4)  # tricks, not points, break ties


def test_tricks_every_level_plays_a_whole_match() -> None:
    rules = Rules.make("tricks", match_target=4)
    for level in ("random", "easy", "medium"):
        players = [make_player(level) for _ in range(4)]
        rngs = [random.Random(s) for s in range(4)]
        match = Match(rules, dealer=0)
        deck_rng = random.Random(11)
        while not match.over:
            deal: Deal = match.new_deal(rng=deck_rng)
            while not deal.over:
                seat = deal.to_act
                assert seat is not None
                action = players[seat].decide(view_for(deal, seat), rngs[seat])
                deal.apply(seat, action)
            assert deal.result is not None
            match.add(deal.result)
        assert match.loser in (0, 1)
