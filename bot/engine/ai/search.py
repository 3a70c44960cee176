"""``medium``, ``hard`` and the ``cheat`` ceiling: Perfect-Information Monte Carlo over sampled worlds.

Each decision samples worlds consistent with the seat's view (:mod:`bot.engine.ai.sample`), plays
every legal card in each world, and scores the result by random play-outs or, once few enough cards
are left, by the exact open-hand solver (:mod:`bot.engine.ai.solver`). ``hard`` first finishes the
current trick with the rule player's trick policy (:mod:`bot.engine.ai.trick`), so a card is not
judged by a trick the others finish at random. The card with the best mean worth in penalty points
wins; near-ties go to the rule player's choice, and when every legal card is equivalent the answer is
immediate. The search is anytime: it stops at its time budget (a minimum number of worlds is always
seen).

This module reads a clock (``time.perf_counter``) for the budget, and nothing else impure.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.engine.actions import Action, Play
from bot.engine.cards import ALL_CARDS
from bot.engine.deal import Deal, Phase
from bot.engine.errors import KozelError
from bot.engine.view import SeatView, view_for

from .easy import choose_card, choose_other
from .sample import knowledge, sample_world, true_world
from .solver import Solver, merge_equivalent
from .trick import finish
from .world import PAIR_OF, World, bits_of, fast_rollout

_WorldFn = Callable[[], World]


@dataclass(frozen=True, slots=True)
class Budget:
    """How hard a search level thinks."""

    #: Seconds per decision (the search stops at the first world boundary after it).
    seconds: float
    min_worlds: int
    max_worlds: int
    #: Play-outs per card per world when the solver is not used.
    rollouts: int
    #: Solve exactly once at most this many cards are left in hands and stock (0: never).
    solve_at: int
    #: Finish the current trick with the rule player's trick policy (:mod:`bot.engine.ai.trick`, the
    #: opponents careless in every second world) before the random play-out: a random finish would
    #: let a lead or a second-hand card look safe because nobody sensibly beats it.
    policy_trick: bool = False


class SearchPlayer:
    """PIMC: sample worlds, try every card in each, keep the best mean worth."""

    def __init__(self, name: str, budget: Budget) -> None:
        self.name = name
        self.budget = budget

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        """The card with the best mean worth over sampled worlds (other decisions: the rule player's)."""
        if not view.legal:
            raise KozelError(f"seat {view.seat} has no decision to take")
        if view.phase is not Phase.PLAY:
            return choose_other(view)
        if len(view.legal) == 1:
            return view.legal[0]
        k = knowledge(view)
        prior = choose_card(view, k, rng)
        return _play(self.search(prior, lambda: sample_world(k, rng), rng))

    def search(self, prior: int, world: _WorldFn, rng: random.Random) -> int:
        """The card (bit) with the best mean worth over the worlds ``world()`` deals; ties go to ``prior``."""
        b = self.budget
        deadline = time.perf_counter() + b.seconds
        w0 = world()
        seat = w0.to_act()
        sign = 1 if PAIR_OF[seat] == 0 else -1
        moves = bits_of(w0.legal(seat))
        if len(merge_equivalent(w0, w0.legal(seat))) == 1:
            return prior if prior in moves else moves[0]  # every card is as good as any other here
        totals = dict.fromkeys(moves, 0.0)
        solver = Solver()
        n = 0
        w = w0
        while True:
            left = sum(h.bit_count() for h in w.hands) + len(w.stock)
            if b.solve_at and left <= b.solve_at:
                for m, v in solver.move_values(w).items():
                    totals[m] += v
            else:
                # Common random numbers: every card's play-outs in this world use the same random stream.
                seed = rng.getrandbits(32)
                careless = (1 - PAIR_OF[seat], rng.random()) if n % 2 == 0 else None
                for m in moves:
                    w2 = w.copy()
                    w2.play(m)
                    if b.policy_trick and w2.trick and not w2.over:
                        _finish_trick(w2, careless)
                    r = random.Random(seed)
                    totals[m] += sum(fast_rollout(w2, r) for _ in range(b.rollouts)) / b.rollouts
            n += 1
            if n >= b.max_worlds or (n >= b.min_worlds and time.perf_counter() > deadline):
                break
            w = world()
        # The rule player's card gets a small head start: it settles ties (common when every card reaches
        # the same score) and keeps play-out noise from overruling sound craft on thin evidence.
        return max(
            moves, key=lambda m: (sign * totals[m] / n + (PRIOR_BONUS if m == prior else 0.0), m == prior)
        )

    def decide_open(self, deal: Deal, seat: int, rng: random.Random) -> Action:
        """Decide with the true deal in view: every world is the real one (the arena's ceiling)."""
        view = view_for(deal, seat)
        if view.phase is not Phase.PLAY:
            return choose_other(view)
        if len(view.legal) == 1:
            return view.legal[0]
        k = knowledge(view)
        prior = choose_card(view, k, rng)
        w = true_world(deal)
        return _play(self.search(prior, w.copy, rng))


def _finish_trick(w: World, careless: tuple[int, float] | None) -> None:
    """Play the rest of ``w``'s current trick by the rule player's trick policy."""
    out: list[int] = []
    finish(w.s, w.hands, w.trick, w.s.orders[w.leader][len(w.trick) :], careless, out)
    for c in out:
        if w.over:
            break
        w.play(c)


def _play(b: int) -> Action:
    return Play(ALL_CARDS[b.bit_length() - 1])


#: Penalty points per deal by which the rule player's card is preferred (see :meth:`SearchPlayer.search`).
PRIOR_BONUS = 0.3

MEDIUM = Budget(seconds=0.04, min_worlds=8, max_worlds=400, rollouts=1, solve_at=12)
HARD = Budget(seconds=0.35, min_worlds=4, max_worlds=2000, rollouts=1, solve_at=16, policy_trick=True)
CHEAT = Budget(seconds=0.3, min_worlds=1, max_worlds=1000, rollouts=1, solve_at=20)


def medium() -> SearchPlayer:
    """The ``medium`` level: PIMC with random play-outs, a ~40 ms budget, the solver for the last 3 tricks."""
    return SearchPlayer("medium", MEDIUM)


def hard() -> SearchPlayer:
    """The ``hard`` level: PIMC with a ~0.35 s budget, policy-finished tricks and the exact solver for the
    last four tricks."""
    return SearchPlayer("hard", HARD)


def cheat() -> SearchPlayer:
    """The all-hands-open ceiling (arena only): searches the true deal instead of sampled worlds."""
    return SearchPlayer("cheat", CHEAT)


__all__ = ["HARD", "MEDIUM", "Budget", "SearchPlayer", "World", "cheat", "hard", "medium"]
