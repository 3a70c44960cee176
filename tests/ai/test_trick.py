"""The rule player's one-trick lookahead: how a trick ends when everyone still to play plays sensibly."""

from __future__ import annotations

import random

import pytest

from bot.engine import Rules, Suit, cards, tables_for
from bot.engine.ai.knowledge import knowledge
from bot.engine.ai.sample import sample_world, true_world
from bot.engine.ai.trick import finish, lead, policy_rollout
from bot.engine.ai.world import PAIR_OF, POINT_WEIGHT, TRICK_WEIGHT, Static, World, bits_of
from bot.engine.cards import mask_of
from bot.engine.view import view_for
from tests.ai.deals import play_turns
from tests.engine.test_properties import IDS, RULESETS

RULES = Rules.make("classic")
S = Static(RULES, tables_for(RULES, Suit.DIAMONDS))


def hands(given: dict[int, str]) -> list[int]:
    return [mask_of(cards(given.get(h, ""))) for h in range(4)]


def plays(leader: int, codes: str) -> list[tuple[int, int]]:
    return [((leader + i) % 4, c.bit) for i, c in enumerate(cards(codes))]


def test_an_opponent_catches_the_queen_with_the_shmon() -> None:
    # Seat 1 led ♣Q; seat 2 (the other pair) holds the шмон and plays it: pair B's queen is caught.
    _ws, _pts, queen_pair = finish(S, hands({2: "6C 7S", 3: "8S"}), plays(1, "QC"), (2, 3))
    assert queen_pair == 1


def test_the_queen_stays_home_when_the_shmon_follows() -> None:
    # Seat 1 must follow the trump lead; seat 2 still holds the шмон, so seat 1 plays the ♦8, not the ♣Q.
    ws, _pts, queen_pair = finish(S, hands({1: "QC 8D", 2: "6C 7C", 3: "9D"}), plays(0, "7D"), (1, 2, 3))
    assert queen_pair == -1
    assert ws == 2  # the шмон takes the trick instead


def test_a_partner_smears_points_on_a_sure_trick() -> None:
    # Seat 0's ♦A leads; seat 1 must follow with the ♦7; no opponent can beat ♦A after seat 2, so seat 2
    # gives its ♥A (11) and seat 3, void in trumps, throws its cheapest card.
    ws, pts, queen_pair = finish(S, hands({1: "7D 8H", 2: "AH 7H", 3: "7S KS"}), plays(0, "AD"), (1, 2, 3))
    assert ws == 0 and queen_pair == -1
    assert pts == 11 + 0 + 11 + 0


def test_an_opponent_beats_with_the_cheapest_winning_card() -> None:
    # Seat 0 leads ♠K; seat 1 holds ♠A and ♠10: the ten beats the king as surely, and it is cheaper.
    ws, pts, _ = finish(S, hands({1: "AS TS", 2: "7S", 3: "8S"}), plays(0, "KS"), (1, 2, 3))
    assert ws == 1
    assert pts == 4 + 10


def _reference_policy_rollout(w: World, rng: random.Random, careless: int | None = None) -> float:
    """The policy play-out as first written: every card through :meth:`World.play` on a copy."""
    w = w.copy()
    s = w.s
    rnd = rng.random
    while not w.over:
        if not w.trick:
            seat = w.to_act()
            m = w.legal(seat)
            if PAIR_OF[seat] == careless:
                ms = bits_of(m)
                w.play(ms[int(rnd() * len(ms))])
            else:
                w.play(lead(s, w.hands, seat, m, w.stacks))
            if w.over:
                break
        out: list[int] = []
        rest = s.orders[w.leader][len(w.trick) :]
        finish(s, w.hands, w.trick, rest, None if careless is None else (careless, rnd()), out, w.stacks)
        for b in out:
            if w.over:
                break
            w.play(b)
    if w.s.by_tricks:
        return w.value0() + TRICK_WEIGHT * (w.won[0] - w.won[1])
    return w.value0() + POINT_WEIGHT * (w.pts[0] - w.pts[1])


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_the_policy_playout_on_masks_is_the_playout_through_world_play(rules: Rules) -> None:
    # Sampled worlds (as the search levels play them out) and true worlds, at trick starts and mid-trick,
    # every careless pair: the same value, the same numbers drawn, the world not changed.
    rng = random.Random(13)
    compared = 0
    for _, deal, seat in play_turns(rules, rng, 6, 0.4):
        worlds = [true_world(deal), sample_world(knowledge(view_for(deal, seat)), rng)]
        for w in worlds:
            hands = w.hands.copy()
            for careless in (None, 0, 1):
                seed = rng.getrandbits(32)
                a, b = random.Random(seed), random.Random(seed)
                assert policy_rollout(w, a, careless) == _reference_policy_rollout(w, b, careless)
                assert a.random() == b.random()
                assert w.hands == hands
                compared += 1
    assert compared > 100
