"""``medium``, ``hard`` and the ``cheat`` ceiling: Perfect-Information Monte Carlo over sampled worlds.

Each decision samples worlds consistent with the seat's view (:mod:`bot.engine.ai.sample`), plays
every legal card in each world, and scores the result by a play-out in which every seat follows the
rule player's trick policy — the opponents playing at random in every second world — or, once few
enough cards are left, by the exact open-hand solver (:mod:`bot.engine.ai.solver`). Uniformly random
play-outs judge a card by what happens when its own side then plays at random; measured against
``easy``, that search was no stronger than the rule player it started from. ``hard`` also finishes the
current trick with the policy first. Each world counts by how likely it makes the plays seen
(:mod:`bot.engine.ai.weigh`). The card with the best weighted mean worth in penalty points wins;
near-ties go to the rule player's choice, and when every legal card is equivalent the answer is
immediate. The search is anytime: it stops at its time budget (a minimum number of worlds is always
seen), earlier once the leading card is ahead of every other by three standard errors, and, whatever
the minimum, at a hard cap counted from the start of the decision. Clear decisions so take a few
dozen worlds and close ones the whole budget.

The decisions before the first lead named in ``Budget.preplay`` are searched the same way on worlds
sampled at that point: classic's exchange and gift, flip's swap, the card returned and the declared
trump on worlds of four hands (:mod:`bot.engine.ai.preplay`), classic's brag — the cards laid, the
mirror's cut, the kind under ``brag_choice`` — on whole decks (:mod:`bot.engine.ai.bragsearch`), and
``sochi``'s discard on the worlds of the first lead (:mod:`bot.engine.ai.discardsearch`).

Only :class:`CheatPlayer` is shown the deal: the arena hands the whole deal to a player with
``decide_open``, so the levels that fill seats must not have one.

This module reads a clock for the budget (``Budget.clock``: ``time.perf_counter`` unless told otherwise),
and nothing else impure.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

from bot.engine.actions import Action, Play
from bot.engine.cards import ALL_CARDS
from bot.engine.deal import Deal, Phase
from bot.engine.errors import KozelError
from bot.engine.view import SeatView, view_for

from . import bragsearch, discardsearch, preplay
from .budget import CHECK_EVERY, Budget, Evaluation, clear_lead
from .easy import choose_card, choose_other
from .knowledge import Knowledge, knowledge, played_since_brag
from .sample import sample_world, true_world
from .solver import Solver, SolveTimeout, merge_equivalent
from .trick import finish, policy_rollout
from .weigh import brag_lays, brag_likelihood, history, likelihood
from .world import World, bits_of, rollout

_WorldFn = Callable[[], World]
_WeightFn = Callable[[World], float]
#: A world's weight from its hands (see :meth:`SearchPlayer.plays_weight`).
_HandsFn = Callable[[list[int]], float]


class SearchPlayer:
    """PIMC: sample worlds, try every card in each, keep the best mean worth."""

    def __init__(self, name: str, budget: Budget) -> None:
        self.name = name
        self.budget = budget

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        """The card with the best mean worth over sampled worlds; the decisions before the first lead
        that ``Budget.preplay`` names are searched alike (:mod:`bot.engine.ai.preplay`,
        :mod:`bot.engine.ai.bragsearch`), the others follow the rule player's rules."""
        if not view.legal:
            raise KozelError(f"seat {view.seat} has no decision to take")
        if view.phase is not Phase.PLAY:
            if preplay.searched(view, self.budget.preplay):
                return preplay.decide(view, rng, self.budget, self.budget.clock())
            if bragsearch.searched(view, self.budget.preplay):
                return bragsearch.decide(view, rng, self.budget, self.budget.clock())
            if discardsearch.searched(view, self.budget.preplay):
                return discardsearch.decide(view, rng, self.budget, self.budget.clock())
            return choose_other(view)
        if len(view.legal) == 1:
            return view.legal[0]
        start = self.budget.clock()
        prior, world, weight = self.worlds(view, rng)
        return _play(self.search(prior, world, rng, start, weight))

    def worlds(self, view: SeatView, rng: random.Random) -> tuple[int, _WorldFn, _WeightFn | None]:
        """For a card to play: the rule player's card (bit), a function dealing worlds consistent with
        ``view``, and each world's weight (:meth:`weight`)."""
        k = knowledge(view)
        prior = choose_card(view, k, rng)
        return prior, lambda: sample_world(k, rng), self.weight(view, k)

    def weight(self, view: SeatView, k: Knowledge) -> _WeightFn | None:
        """Each world's weight under ``Budget.weigh``: how likely it makes the plays seen
        (:meth:`plays_weight`) and, with ``Budget.weigh_brag``, the brag's lays (``None``: equal)."""
        if self.budget.weigh is None:
            return None
        s = k.static
        plays = self.plays_weight(view, k, self.budget.weigh)
        lays, mates = brag_lays(view, s) if self.budget.weigh_brag else ((), 0)
        if plays is None and not lays:
            return None
        follow_miss = self.budget.weigh[0]
        played = played_since_brag(view)

        def weigh(w: World) -> float:
            x = 1.0 if plays is None else plays(w.hands)
            return x * brag_likelihood(s, w.hands, played, lays, mates, follow_miss) if lays else x

        return weigh

    def plays_weight(self, view: SeatView, k: Knowledge, factors: tuple[float, float]) -> _HandsFn | None:
        """How likely a world's hands make the other seats' plays seen: ``factors`` (``Budget.weigh``)
        for a follow and for a lead the trick policy would not have made (``None``: no play to weigh)."""
        s = k.static
        tricks = history(view, s)
        if not tricks:
            return None
        follow_miss, lead_miss = factors
        return lambda hands: likelihood(s, k.me, hands, tricks, follow_miss, lead_miss)

    def search(
        self,
        prior: int,
        world: _WorldFn,
        rng: random.Random,
        start: float | None = None,
        weight: _WeightFn | None = None,
    ) -> int:
        """The card (bit) with the best mean worth over the worlds ``world()`` deals; ties go to ``prior``.

        ``start`` is when the decision began (now if not given): the budget's ``limit`` counts from it.
        ``weight(world)``, if given, is how much each world counts in the mean."""
        ev = self.evaluate(prior, world, rng, start, weight)
        if ev.worlds == 0:
            # Every card is as good as any other, or not one world was seen in time: the rule player's.
            return prior if prior in ev.moves else ev.moves[0]
        # The rule player's card gets a small head start: it settles ties (common when every card reaches
        # the same score) and keeps play-out noise from overruling sound craft on thin evidence.
        bonus = self.budget.prior_bonus
        return max(ev.moves, key=lambda m: (ev.mean(m) + (bonus if m == prior else 0.0), m == prior))

    def evaluate(
        self,
        prior: int,
        world: _WorldFn,
        rng: random.Random,
        start: float | None = None,
        weight: _WeightFn | None = None,
    ) -> Evaluation:
        """Every legal card's worth in each world ``world()`` deals, within the budget (see :meth:`search`);
        no world at all when every card is equivalent. Once the exact solver takes over, what a card is
        worth is the :meth:`end_game`'s to say."""
        b = self.budget
        clock = b.clock
        now = clock()
        deadline = now + b.seconds
        cutoff = (now if start is None else start) + b.limit if b.limit else float("inf")
        w0 = world()
        seat = w0.to_act()
        solve_at = b.solve_from(w0.s.rules.preset)
        bonus = b.prior_bonus
        pair_of = w0.s.pair_of  # this deal's sides (``sochi`` forms them per deal)
        sign = 1 if pair_of[seat] == 0 else -1
        moves = bits_of(w0.legal(seat))
        ev = Evaluation(moves, {m: [] for m in moves}, [])
        if len(merge_equivalent(w0, w0.legal(seat))) == 1:
            return ev
        solver = Solver(expired=(lambda: clock() > cutoff) if b.limit else None)
        end = self.end_game(w0, solve_at, solver, seat, sign)
        n = 0
        w = w0
        while True:
            solve = bool(solve_at) and w.cards_left() <= solve_at
            # Common random numbers: every card's play-outs in this world use the same random stream.
            seed = rng.getrandbits(32)
            careless = (1 - pair_of[seat], rng.random()) if n % 2 == 0 else None
            values: dict[int, float] = {}
            try:
                for m in moves:
                    w2 = w.copy()
                    w2.play(m)
                    if solve:
                        values[m] = end.value(m, w2)
                    else:
                        values[m] = sign * self.playout(w2, random.Random(seed), careless)
                    if clock() > cutoff:
                        break
            except SolveTimeout:
                pass  # the hard cap struck inside a solve
            if len(values) < len(moves):
                break  # the hard cap struck mid-world: this world is dropped
            ev.weights.append(1.0 if weight is None else weight(w))
            for m, v in values.items():
                ev.values[m].append(v)
            end.keep()
            n += 1
            if n >= b.max_worlds or (n >= b.min_worlds and clock() > deadline):
                break
            if b.confident and n >= b.check_from and n % CHECK_EVERY == 0:
                seen = {m: [v + bonus for v in vs] if m == prior else vs for m, vs in end.values(ev).items()}
                if clear_lead(seen, ev.weights, b.confident):
                    break
            if clock() > cutoff:
                break
            w = world()
        ev.values = end.values(ev)
        return ev

    def playout(self, w: World, r: random.Random, careless: tuple[int, float] | None) -> float:
        """``w`` (a card just tried) played out before the solver takes over: its worth to pair A. The
        rule player's trick policy finishes the trick (``policy_trick``) and plays on
        (``policy_rollouts``: the ``careless`` pair, if any, at random), else random play-outs."""
        b = self.budget
        if b.policy_trick and w.trick and not w.over:
            _finish_trick(w, careless)
        if b.policy_rollouts:
            return policy_rollout(w, r, None if careless is None else careless[0])
        return sum(rollout(w, r) for _ in range(b.rollouts)) / b.rollouts

    def end_game(self, w0: World, solve_at: int, solver: Solver, seat: int, sign: int) -> EndGame:
        """How a card is valued in a decision once the solver takes over (from ``solve_at`` cards left;
        ``w0`` is the decision's first world, ``seat`` is to act, ``sign`` turns pair A's worth into his
        side's): the open-hand solve (PIMC)."""
        return EndGame(solver, seat, sign)


class EndGame:
    """A card's worth once the exact solver takes over: the solver's value of its world with every hand
    open (PIMC). A search level may value it otherwise (:meth:`SearchPlayer.end_game`)."""

    def __init__(self, solver: Solver, seat: int, sign: int) -> None:
        self.solver = solver
        self.seat = seat
        self.sign = sign

    def value(self, m: int, w: World) -> float:
        """Card ``m``'s worth in ``w``, where it was just played, for the deciding side (raises
        :class:`~bot.engine.ai.solver.SolveTimeout` at the budget's hard cap)."""
        return self.sign * self.solver.value(w)

    def keep(self) -> None:
        """Every card has been valued in the world in progress, and that world counts."""

    def values(self, ev: Evaluation) -> dict[int, list[float]]:
        """Per card, its worth in each world of ``ev``, whose values :meth:`value` gave."""
        return ev.values


class CheatPlayer(SearchPlayer):
    """The all-hands-open ceiling: the arena hands it the whole deal through :meth:`decide_open`.

    Only this class has ``decide_open``: the arena shows the deal to any player that has it, so the
    levels that fill real seats (``medium``, ``hard``) must never grow one.
    """

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
    finish(w.s, w.hands, w.trick, w.s.orders[w.leader][len(w.trick) :], careless, out, w.stacks)
    for c in out:
        if w.over:
            break
        w.play(c)


def _play(b: int) -> Action:
    return Play(ALL_CARDS[b.bit_length() - 1])


MEDIUM = Budget(
    seconds=0.07,
    min_worlds=8,
    max_worlds=400,
    rollouts=1,
    solve_at=12,
    limit=0.085,
    policy_rollouts=True,
    weigh=(0.5, 0.8),
    confident=3.0,
)
#: ``medium`` with five times the time, checking from 48 worlds, the policy-finished trick and the
#: solver from five tricks out (20 cards: since the solver stopped copying worlds, it costs there what
#: it cost at 16) — except on flip, where it solves from the last three tricks as ``medium`` does. An
#: all-hands-open solve assumes every seat knows every hand (strategy fusion); flip's eight-card hands
#: keep more hidden at 16-20 cards left, and there the early solve gave back what the extra worlds won:
#: +0.018 (-0.090, 0.127) per deal against ``medium`` from 20 cards, +0.055 (-0.060, 0.170) from 16
#: (600 pairs each), +0.039 (-0.074, 0.152) from 12 (592 pairs) and +0.04 to +0.17 in 200-300 pair
#: screens, for less solver time (experiments/README.md). The rule player's card gets a head start of 0.1
#: instead of 0.3: five times the worlds make ``hard``'s means tighter than ``medium``'s, and the
#: larger head start overruled what they found (600 pairs each against ``medium``, seed 1: flip
#: +0.045 with 0.3, +0.142 with 0.1; draw +0.005 and +0.152; classic +0.095 and +0.172).
HARD = dataclasses.replace(
    MEDIUM,
    seconds=0.35,
    min_worlds=4,
    max_worlds=2000,
    solve_at=20,
    solve_at_preset=(("flip", 12),),
    prior_bonus=0.1,
    policy_trick=True,
    limit=0.85,
    check_from=48,
)
#: The ceiling plays the true world with the trick policy's play-outs and finish, as ``hard`` plays its
#: sampled ones. With uniformly random play-outs, as first built, it was a low ceiling: on flip it won
#: 80.3% of deals against ``random`` (+2.68 per deal), with these 82.3% (+2.92; experiments/README.md).
CHEAT = Budget(
    seconds=0.1,
    min_worlds=1,
    max_worlds=1000,
    rollouts=1,
    solve_at=20,
    policy_trick=True,
    policy_rollouts=True,
)


def medium() -> SearchPlayer:
    """The ``medium`` level: PIMC over weighted worlds with policy play-outs, up to ~70 ms (85 ms at most,
    less once the choice is clear), the solver for the last 3 tricks."""
    return SearchPlayer("medium", MEDIUM)


def hard() -> SearchPlayer:
    """The ``hard`` level: PIMC over weighted worlds with policy play-outs, up to ~0.35 s (0.85 s at most,
    less once the choice is clear after 48 worlds), policy-finished tricks and the exact solver for the
    last five tricks (the last three on flip); a smaller head start for the rule player's card."""
    return SearchPlayer("hard", HARD)


def cheat() -> CheatPlayer:
    """The all-hands-open ceiling (arena only): searches the true deal instead of sampled worlds."""
    return CheatPlayer("cheat", CHEAT)


__all__ = [
    "HARD", "MEDIUM", "Budget", "CheatPlayer", "EndGame", "Evaluation", "SearchPlayer", "World",
    "cheat", "hard", "medium",
]  # fmt: skip
