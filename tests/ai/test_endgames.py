"""``hard`` finds the forced line in hand-built endgames, where one line catches (or saves) the ♣Q."""

from __future__ import annotations

import random

from bot.engine import Rules, Suit, card, cards, tables_for
from bot.engine.ai.search import HARD, SearchPlayer
from bot.engine.ai.solver import Solver
from bot.engine.ai.world import Static, World
from bot.engine.cards import mask_of

RULES = Rules.make("classic")


def world(
    hands: dict[int, str], leader: int, pts: tuple[int, int], won: tuple[int, int], trick: str = ""
) -> World:
    """A classic world (♦ trump) with the given hands, points so far and cards already in the trick."""
    s = Static(RULES, tables_for(RULES, Suit.DIAMONDS))
    plays = [((leader + i) % 4, c.bit) for i, c in enumerate(cards(trick))] if trick else []
    return World(s, [mask_of(cards(hands[h])) for h in range(4)], leader, plays, list(pts), list(won), [])


def best(w: World) -> str:
    """``hard``'s card in ``w`` (every world is ``w``: the solver decides)."""
    bit = SearchPlayer("hard", HARD).search(0, w.copy, random.Random(1))
    return next(c.code for c in cards("6C QC 8D AS 7S 7H 8H 9H TH AH 7C 8C 9C 8S 9S KS") if c.bit == bit)


def test_leading_the_shmon_catches_the_lone_queen() -> None:
    # Pair A is far behind on points (a черпак), but B's only trump is the ♣Q: leading ♣6 forces it out.
    w = world(
        {0: "6C AS 7S", 1: "QC 7H 8H", 2: "7C 8C 9C", 3: "8S 9S 9H"}, leader=0, pts=(10, 96), won=(1, 5)
    )
    values = Solver().move_values(w)
    assert values[card("6C").bit] == 4
    assert all(v == -4 for b, v in values.items() if b != card("6C").bit)
    assert best(w) == "6C"


def test_the_queen_stays_home_when_the_shmon_is_still_to_come() -> None:
    # Seat 1 (pair B) must follow the ♦8 lead; the ♣Q would be caught by seat 2's ♣6.
    w = world(
        {0: "AS 7S", 1: "QC 8D 7H", 2: "6C 7C 8C", 3: "8S 9S 9H"},
        leader=0,
        pts=(36, 70),
        won=(2, 4),
        trick="9D",
    )
    values = Solver().move_values(w)
    assert values[card("QC").bit] == 4  # caught: pair B charged 4
    assert values[card("8D").bit] < 4
    assert best(w) == "8D"


def test_the_last_tricks_are_taken_to_reach_61() -> None:
    # Pair A has 50 and seat 1 will trump the second heart: cashing the ♥A first makes 61, the ♥10 first 60.
    w = world({0: "AH TH", 1: "7H 8D", 2: "7C 8C", 3: "8H 9H"}, leader=0, pts=(50, 49), won=(4, 3))
    values = Solver().move_values(w)
    assert max(values.values()) > 0
    assert best(w) == "AH"


def test_equivalent_cards_are_decided_without_searching() -> None:
    # Seat 3 leads ♠9; seat 0, void in spades, holds ♥9 ♥8 and no other heart is in play: the two are one
    # card to the search, which returns the rule player's card at once (no world is ever played out).
    w = world(
        {0: "9H 8H", 1: "AS 7S", 2: "7C 8C", 3: "8S 9S"}, leader=3, pts=(40, 50), won=(3, 3), trick="9S"
    )
    calls = []

    def one_world() -> World:
        calls.append(1)
        return w.copy()

    player = SearchPlayer("hard", HARD)
    assert player.search(card("8H").bit, one_world, random.Random(1)) == card("8H").bit
    assert len(calls) == 1
