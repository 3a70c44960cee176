"""The search levels' time budget: the hard cap holds whatever the world count asks for."""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable

from pytest import MonkeyPatch

from bot.engine import Rules, card
from bot.engine.ai import search
from bot.engine.ai.budget import clear_lead
from bot.engine.ai.sample import true_world
from bot.engine.ai.search import HARD, MEDIUM, Budget, SearchPlayer
from bot.engine.ai.solver import Solver, merge_equivalent
from bot.engine.ai.trick import policy_rollout
from bot.engine.ai.world import POINT_WEIGHT, World
from tests.ai.deals import play_turns
from tests.ai.players import fixed
from tests.ai.test_endgames import world

# Seat 0 leads with three different cards: the search has something to weigh in every world.
HANDS = {0: "6C AS 7S", 1: "QC 7H 8H", 2: "7C 8C 9C", 3: "8S 9S 9H"}


def counted(w: World) -> tuple[list[int], Callable[[], World]]:
    """A world source that deals copies of ``w``, and the list that counts how many it dealt."""
    calls: list[int] = []

    def worlds() -> World:
        calls.append(1)
        return w.copy()

    return calls, worlds


def test_the_hard_cap_stops_the_search_mid_world() -> None:
    calls, worlds = counted(world(HANDS, leader=0, pts=(10, 96), won=(1, 5)))
    # The budget asks for a million worlds, but the cap has passed before the first is weighed.
    player = SearchPlayer(
        "capped", Budget(seconds=1e9, min_worlds=10**6, max_worlds=10**6, rollouts=1, solve_at=0, limit=0.5)
    )
    prior = card("7S").bit
    assert player.search(prior, worlds, random.Random(1), start=time.perf_counter() - 1.0) == prior
    assert len(calls) == 1  # the world in progress was dropped, no other was drawn


def capped(solve_at: int) -> SearchPlayer:
    """A search with no budget but a 0.05 s hard cap, on this thread's CPU clock (the arena's
    ``--clock cpu``), so a loaded machine cannot stretch it."""
    budget = Budget(
        seconds=1e9,
        min_worlds=10**6,
        max_worlds=10**6,
        rollouts=1,
        solve_at=solve_at,
        limit=0.05,
        clock=time.thread_time,
    )
    return SearchPlayer("capped", budget)


def test_a_capped_search_returns_within_its_limit() -> None:
    w = world(HANDS, leader=0, pts=(10, 96), won=(1, 5))
    player = capped(solve_at=0)
    t0 = time.thread_time()  # the CPU clock, as the budget's: a loaded machine cannot stretch it
    bit = player.search(card("7S").bit, w.copy, random.Random(1), start=t0)
    assert time.thread_time() - t0 < 0.05 + 0.2  # one play-out past the cap at most
    assert bit in (card("6C").bit, card("AS").bit, card("7S").bit)


def test_a_policy_playout_leads_the_shmon_into_the_lone_queen() -> None:
    # Seat 0's ♣6 is the one card nobody can beat, so the policy leads it; seat 1's only trump is the ♣Q,
    # which must follow and is caught: pair B is charged 4 whatever the random stream.
    w = world(HANDS, leader=0, pts=(10, 96), won=(1, 5))
    for seed in range(3):
        v = policy_rollout(w, random.Random(seed))
        assert v - POINT_WEIGHT * (10 - 96) == 4
    assert w.hands[0] == card("6C").bit | card("AS").bit | card("7S").bit  # the world itself is not played


def test_a_careless_pair_plays_legal_random_cards_in_a_policy_playout() -> None:
    w = world(HANDS, leader=0, pts=(10, 96), won=(1, 5))
    values = {policy_rollout(w, random.Random(seed), careless=0) for seed in range(20)}
    assert len(values) > 1  # pair A no longer always finds the ♣6 lead


def test_a_clear_lead_over_every_card_stops_the_search() -> None:
    # Card 1 is worth 2 more than card 2 in every world, give or take 0.5: clear after a few worlds.
    seen = {1: [2.0 + (i % 3) * 0.5 for i in range(24)], 2: [0.0 + (i % 2) * 0.5 for i in range(24)]}
    assert clear_lead(seen, [1.0] * 24, 3.0)


def test_a_lead_within_the_noise_does_not_stop_the_search() -> None:
    seen = {1: [4.0 if i % 2 else -3.0 for i in range(24)], 2: [0.0] * 24}
    assert not clear_lead(seen, [1.0] * 24, 3.0)


def test_cards_worth_the_same_in_every_world_need_no_more_worlds() -> None:
    assert clear_lead({1: [1.0] * 24, 2: [1.0] * 24}, [1.0] * 24, 3.0)


def test_a_confident_search_stops_before_its_budget_when_one_card_is_clearly_best() -> None:
    # The ♣6 lead catches the lone ♣Q in every world: a 10 s budget ends at the first check.
    calls, worlds = counted(world(HANDS, leader=0, pts=(10, 96), won=(1, 5)))
    player = SearchPlayer(
        "confident",
        Budget(
            seconds=10.0,
            min_worlds=4,
            max_worlds=10**6,
            rollouts=1,
            solve_at=0,
            policy_rollouts=True,
            confident=3.0,
        ),
    )
    assert player.search(0, worlds, random.Random(1)) == card("6C").bit
    assert len(calls) == 24


class CountingSolver(Solver):
    """The solver, counting its exact solves."""

    solves = 0

    def value(self, w: World) -> int:
        CountingSolver.solves += 1
        return super().value(w)


def test_hard_solves_flip_from_12_cards_and_classic_and_draw_from_20(monkeypatch: MonkeyPatch) -> None:
    assert HARD.solve_from("flip") == 12
    assert HARD.solve_from("classic") == HARD.solve_from("draw") == HARD.solve_at == 20
    assert MEDIUM.solve_from("flip") == MEDIUM.solve_from("classic") == 12
    monkeypatch.setattr(search, "Solver", CountingSolver)
    player = SearchPlayer("hard-4", fixed(HARD, 4))
    for preset, solved in (("flip", False), ("classic", True)):
        rules = Rules.make(preset)
        # A decision of seat to act with 16 cards left: the solver starts from 20, except on flip.
        for _, deal, seat in play_turns(rules, random.Random(3), 40):
            w = true_world(deal)
            if sum(h.bit_count() for h in w.hands) == 16 and len(merge_equivalent(w, w.legal(seat))) > 1:
                break
        else:
            raise AssertionError(f"no 16-card decision in 40 {preset} deals")
        CountingSolver.solves = 0
        player.search(0, w.copy, random.Random(1))
        assert (CountingSolver.solves > 0) is solved, preset


def test_the_hard_cap_stops_an_exact_solve_midway() -> None:
    # Solving a whole classic deal exactly takes minutes; the cap, checked inside the solver, ends the
    # decision at once and the search falls back on the rule player's card.
    rules = Rules.make("classic")
    _, deal, seat = next(play_turns(rules, random.Random(2), 1))
    w = true_world(deal)
    assert sum(h.bit_count() for h in w.hands) == 36
    player = capped(solve_at=36)
    legal = w.legal(seat)
    prior = legal & -legal  # the lowest legal card
    t0 = time.thread_time()
    assert player.search(prior, w.copy, random.Random(1)) == prior
    assert time.thread_time() - t0 < 0.05 + 0.2


def test_the_rule_players_head_start_settles_only_what_is_within_it(monkeypatch: MonkeyPatch) -> None:
    # Seat 0 leads; the play-outs say the ♠A is worth 0.2 more to his pair than the ♠7, the rule
    # player's card. A head start larger than the gap keeps the ♠7, a smaller one does not.
    w = world(HANDS, leader=0, pts=(10, 96), won=(1, 5))
    worth = {card("6C").bit: -1.0, card("AS").bit: 0.2, card("7S").bit: 0.0}

    def playout(w2: World, rng: random.Random, careless: int | None = None) -> float:
        return worth[w2.trick[-1][1]]

    monkeypatch.setattr(search, "policy_rollout", playout)
    prior = card("7S").bit
    for bonus, expected in ((0.3, prior), (0.1, card("AS").bit)):
        budget = Budget(seconds=0.0, min_worlds=4, max_worlds=4, rollouts=1, solve_at=0, policy_rollouts=True)
        budget = dataclasses.replace(budget, prior_bonus=bonus)
        assert SearchPlayer("t", budget).search(prior, w.copy, random.Random(1)) == expected, bonus
    assert (HARD.prior_bonus, MEDIUM.prior_bonus) == (0.1, 0.3)
