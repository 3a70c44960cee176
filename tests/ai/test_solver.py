"""The open-hand solver's shortcuts (equivalent cards, bounds, the transposition table, the last trick
played at once) change nothing: it agrees with a plain minimax over every line of play."""

from __future__ import annotations

import random

import pytest

from bot.engine import Rules, Suit, cards, tables_for
from bot.engine.ai.sample import true_world
from bot.engine.ai.solver import CHECK_NODES, Solver, SolveTimeout
from bot.engine.ai.world import PAIR_OF, Static, World, bits_of
from bot.engine.cards import mask_of
from bot.measure.engine_bench import solver_positions
from tests.ai.deals import play_turns
from tests.engine.test_properties import IDS, RULESETS


def minimax(w: World) -> int:
    """The worth of ``w`` to pair A by trying every legal card at every turn: no pruning, no merging."""
    if w.over:
        return w.value0()
    seat = w.to_act()
    values = []
    for b in bits_of(w.legal(seat)):
        w2 = w.copy()
        w2.play(b)
        values.append(minimax(w2))
    return max(values) if PAIR_OF[seat] == 0 else min(values)


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_the_solver_agrees_with_plain_minimax(rules: Rules) -> None:
    rng = random.Random(5)
    shared = Solver()  # as in a search: one table for every world of a decision
    # Random deals' positions with 5 to 12 cards left (later deals too: brag, exchange, open hand), at
    # trick boundaries and within tricks, as the bench times them.
    for w in [w for left in range(5, 13) for w in solver_positions(rules, rng, left, 2)]:
        exact = minimax(w)
        assert Solver().value(w) == exact
        assert shared.value(w) == exact
        values = Solver().move_values(w)
        seat = w.to_act()
        assert (max if PAIR_OF[seat] == 0 else min)(values.values()) == exact


def test_the_solver_draws_from_the_stock_in_order() -> None:
    # draw: two cards each and four in the stock (the ♣Q and the ♣7 among them); the trick's winner
    # draws first, then clockwise. Pair A needs some 20 to 40 of the 43 card points left.
    rules = Rules.make("draw")
    s = Static(rules, tables_for(rules, Suit.CLUBS))
    seen = set()
    for stock in ("QC AS 7C 9H", "7C 9H QC AS", "AS QC 9H 7C", "9H 7C AS QC"):
        for pts in range(2, 40, 3):
            hands = [mask_of(cards(h)) for h in ("7S TS", "8S KH", "9S AH", "KS 8H")]
            w = World(s, hands, 0, [], [pts, 77 - pts], [3, 3], [c.bit for c in cards(stock)])
            exact = minimax(w)
            assert Solver().value(w) == exact, (stock, pts)
            seen.add(exact)
    assert len(seen) > 2  # the stock's order and the points decide: the check has teeth


def test_a_solve_stops_when_its_deadline_has_passed() -> None:
    rules = Rules.make("classic")
    for _, deal, _seat in play_turns(rules, random.Random(5), 20):
        w = true_world(deal)
        if sum(h.bit_count() for h in w.hands) == 20 and not w.trick:
            probe = Solver()
            probe.value(w)
            if probe.nodes > 2 * CHECK_NODES:  # a solve long enough to be stopped
                break
    else:
        raise AssertionError("no long 20-card solve in 20 classic deals")
    hands = w.hands.copy()
    checks: list[int] = []

    def expired() -> bool:
        checks.append(1)
        return True

    solver = Solver(expired=expired)
    with pytest.raises(SolveTimeout):
        solver.value(w)
    assert checks == [1] and solver.nodes == CHECK_NODES  # stopped at the first check
    assert w.hands == hands and not w.trick  # the world is untouched
    # Unexpired, the same solver (its table holds only finished entries) gives the exact value.
    solver.expired = lambda: False
    assert solver.value(w) == Solver().value(w)


def test_dummy_the_solver_plays_each_world_by_its_blind_stack() -> None:
    # Worlds alike in every hand but the order of a blind's stack are different positions: one table
    # shared by both (as in a search) must not give one the other's value.
    rng = random.Random(3)
    for rules in (Rules.make("dummy"), Rules.make("two_dummies")):
        shared = Solver()
        differed = 0
        for w in solver_positions(rules, rng, 16, 10):
            for _ in range(3):
                w2 = w.copy()
                stacks = [list(stack) for stack in w2.stacks]
                for h in rules.blind_seats:
                    left = [b for b in stacks[h] if w2.hands[h] & b]
                    rng.shuffle(left)
                    stacks[h] = left
                w2.stacks = tuple(tuple(stack) for stack in stacks)
                w2.refresh()
                exact = minimax(w2)
                assert shared.value(w2) == exact == Solver().value(w2)
                differed += exact != minimax(w)
        assert differed
