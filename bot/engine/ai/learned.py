"""``learned``: ``hard``'s search with the learned policy weighing its worlds and the end game defused.

Two changes to :class:`~bot.engine.ai.search.SearchPlayer` (``hard``'s budget otherwise):

* **World weights from the learned policy.** Each sampled world counts by the probability the learned
  policy (:mod:`bot.engine.ai.policy`) gives the plays the other seats were seen to make, each from
  what that seat saw — its hand in this world, the trick so far, the cards gone — instead of the
  fixed factors ``hard`` applies where the rule player would have played otherwise (×0.5 a follow,
  ×0.8 a lead). A probability is raised to :attr:`Defused.temper` and floored at
  :attr:`Defused.floor`, so no single play rules a world out. The brag's lays are weighed as before.
* **Strategy fusion cut at the player's own next decision (EPIMC-style).** Once the exact solver
  takes over (at most :attr:`Defused.defuse_at` cards left), a card is not worth the open-hand value
  of its world: in each world, after the card the others play on by the solver until the player is to
  act again, and there the solver values each of his cards. Worlds he cannot tell apart at that
  point — the same cards played since, the same hand — must get the same next card: per such group
  the one with the best weighted mean is taken, and a card's worth in a world is that card's value.
  In PIMC each world's solve dodges the шмон knowing who holds it; here the next card must be chosen
  not knowing, so keeping the ♣Q costs what it costs at a real table.

This module reads a clock for the budget (``Budget.clock``) and nothing else impure; the weights come
in as a :class:`~bot.engine.ai.policy.Policy` (by default the packaged one, read by
:mod:`bot.engine.ai.model`).
"""

from __future__ import annotations

import dataclasses
import random
from collections import defaultdict
from dataclasses import dataclass

from bot.engine.view import SeatView

from .budget import CHECK_EVERY, Budget, Evaluation, clear_lead
from .easy import choose_card
from .features import card_features, legal_mask
from .knowledge import brag_tricks, knowledge, played_since_brag
from .model import packaged_policy
from .policy import Policy
from .sample import sample_world
from .search import HARD, SearchPlayer, _finish_trick, _WeightFn, _WorldFn
from .solver import Solver, SolveTimeout, merge_equivalent
from .trick import policy_rollout
from .weigh import brag_lays, brag_likelihood
from .world import Static, World, bits_of

#: One seen play of another seat, ready to weigh: the seat, the card, the trick before it and the cards
#: gone before it (the trick's earlier cards included).
Seen = tuple[int, int, tuple[tuple[int, int], ...], int]
#: Per world, for one card tried: what the player has seen by his next decision, and his cards' values.
Next = tuple[tuple[object, ...], dict[int, float]]


@dataclass(frozen=True, slots=True)
class Defused:
    """How the ``learned`` level weighs worlds and defuses the end game."""

    #: Defuse once at most this many cards are left (in hands and stock) and the solver is on.
    defuse_at: int = 12
    #: Each seen play's probability under the policy counts to this power (1: Bayes' rule as it is).
    temper: float = 0.5
    #: ... and at least this much (a play the policy finds unlikely does not rule a world out).
    floor: float = 0.02
    #: Weigh by at most this many of the latest seen plays (a bound on the time per world).
    max_plays: int = 24


def seen_plays(view: SeatView, s: Static, max_plays: int) -> list[Seen]:
    """The other seats' plays ``view`` shows that a world's hands can be rebuilt to and that were a
    choice (see :func:`bot.engine.ai.weigh.history`): latest last, at most ``max_plays``."""
    skip = brag_tricks(view)
    n_draw = (view.rules.deck_size - 4 * s.n) // s.n if s.is_draw else 0
    tricks = [tuple((st, c.bit) for st, c in tr.plays) for tr in view.tricks]
    if view.trick:
        tricks.append(tuple((st, c.bit) for st, c in view.trick))
    gone = 0
    out: list[Seen] = []
    for i, plays in enumerate(tricks):
        counted = i >= skip + n_draw
        for j, (seat, b) in enumerate(plays):
            if counted and seat != view.seat and seat != s.open_seat and not s.blinds >> seat & 1:
                out.append((seat, b, plays[:j], gone))
            gone |= b
    return out[-max_plays:] if max_plays else []


def policy_likelihood(
    policy: Policy, s: Static, hands: list[int], seen: list[Seen], since: list[list[int]], d: Defused
) -> float:
    """A world's weight from the plays ``seen``: the product of each play's probability under the
    policy, tempered and floored (:class:`Defused`). ``since[i]`` is, per seat, the cards that seat
    played after ``seen[i]`` (not it): his hand then is his hand now plus those and the card itself."""
    w = policy.family(s.rules.preset)
    weight = 1.0
    for (seat, b, trick, gone), later in zip(seen, since, strict=True):
        hand = hands[seat] | later[seat] | b
        legal = legal_mask(s, seat, hand, trick)
        if legal & (legal - 1) == 0:
            continue
        p = policy.prob_of(w, card_features(s, seat, hand, legal, trick, gone), b)
        weight *= max(p, d.floor) ** d.temper
    return weight


def _since(seen: list[Seen], played: list[int]) -> list[list[int]]:
    """Per seen play, the cards each seat played after it (up to now): those of ``played`` (per seat,
    his plays since the brag) not yet gone then."""
    return [[p & ~(gone | b) for p in played] for _, b, _, gone in seen]


class LearnedPlayer(SearchPlayer):
    """PIMC with learned world weights and an end game that chooses the next card per information set."""

    def __init__(self, name: str, budget: Budget, defused: Defused, policy: Policy | None = None) -> None:
        super().__init__(name, budget)
        self.defused = defused
        self.policy = policy if policy is not None else packaged_policy()

    def worlds(self, view: SeatView, rng: random.Random) -> tuple[int, _WorldFn, _WeightFn | None]:
        """The rule player's card, worlds consistent with ``view`` and each world's learned weight."""
        k = knowledge(view)
        prior = choose_card(view, k, rng)
        s = k.static
        d = self.defused
        seen = seen_plays(view, s, d.max_plays)
        played = played_since_brag(view)
        since = _since(seen, played)
        lays, mates = brag_lays(view, s) if self.budget.weigh_brag else ((), 0)
        follow_miss = self.budget.weigh[0] if self.budget.weigh else 0.5
        policy = self.policy

        def weigh(w: World) -> float:
            x = policy_likelihood(policy, s, w.hands, seen, since, d) if seen else 1.0
            return x * brag_likelihood(s, w.hands, played, lays, mates, follow_miss) if lays else x

        weight = weigh if seen or lays else None
        return prior, lambda: sample_world(k, rng), weight

    def search(
        self,
        prior: int,
        world: _WorldFn,
        rng: random.Random,
        start: float | None = None,
        weight: _WeightFn | None = None,
    ) -> int:
        """The card (bit) with the best mean worth, defused in the end game; ties go to ``prior``."""
        ev, nexts = self._evaluate(prior, world, rng, start, weight)
        if ev.worlds == 0:
            return prior if prior in ev.moves else ev.moves[0]
        if nexts:
            ev = Evaluation(ev.moves, defused_values(nexts, ev.weights), ev.weights)
        bonus = self.budget.prior_bonus
        return max(ev.moves, key=lambda m: (ev.mean(m) + (bonus if m == prior else 0.0), m == prior))

    def _evaluate(
        self,
        prior: int,
        world: _WorldFn,
        rng: random.Random,
        start: float | None,
        weight: _WeightFn | None,
    ) -> tuple[Evaluation, dict[int, list[Next]]]:
        """:meth:`SearchPlayer.evaluate`, recording in the defused end game each card's next decision."""
        b = self.budget
        clock = b.clock
        now = clock()
        deadline = now + b.seconds
        cutoff = (now if start is None else start) + b.limit if b.limit else float("inf")
        w0 = world()
        seat = w0.to_act()
        solve_at = b.solve_from(w0.s.rules.preset)
        bonus = b.prior_bonus
        pair_of = w0.s.pair_of
        sign = 1 if pair_of[seat] == 0 else -1
        moves = bits_of(w0.legal(seat))
        ev = Evaluation(moves, {m: [] for m in moves}, [])
        nexts: dict[int, list[Next]] = {m: [] for m in moves}
        if len(merge_equivalent(w0, w0.legal(seat))) == 1:
            return ev, {}
        solver = Solver(expired=(lambda: clock() > cutoff) if b.limit else None)
        defuse = bool(solve_at) and w0.cards_left() <= min(solve_at, self.defused.defuse_at)
        n = 0
        w = w0
        while True:
            solve = bool(solve_at) and w.cards_left() <= solve_at
            seed = rng.getrandbits(32)
            careless = (1 - pair_of[seat], rng.random()) if n % 2 == 0 else None
            values: dict[int, float] = {}
            found: dict[int, Next] = {}
            try:
                for m in moves:
                    w2 = w.copy()
                    w2.play(m)
                    if defuse:
                        found[m] = next_decision(solver, w2, seat, sign)
                        values[m] = max(found[m][1].values())
                    elif solve:
                        values[m] = sign * solver.value(w2)
                    else:
                        if b.policy_trick and w2.trick and not w2.over:
                            _finish_trick(w2, careless)
                        r = random.Random(seed)
                        values[m] = sign * policy_rollout(w2, r, None if careless is None else careless[0])
                    if clock() > cutoff:
                        break
            except SolveTimeout:
                pass
            if len(values) < len(moves):
                break  # the hard cap struck mid-world: this world is dropped
            ev.weights.append(1.0 if weight is None else weight(w))
            for m, v in values.items():
                ev.values[m].append(v)
            for m, nx in found.items():
                nexts[m].append(nx)
            n += 1
            if n >= b.max_worlds or (n >= b.min_worlds and clock() > deadline):
                break
            if b.confident and n >= b.check_from and n % CHECK_EVERY == 0:
                vals = defused_values(nexts, ev.weights) if defuse else ev.values
                seen = {m: [v + bonus for v in vs] if m == prior else vs for m, vs in vals.items()}
                if clear_lead(seen, ev.weights, b.confident):
                    break
            if clock() > cutoff:
                break
            w = world()
        return ev, nexts if defuse else {}


def next_decision(solver: Solver, w: World, seat: int, sign: int) -> Next:
    """From ``w`` (a card of ``seat`` just played), the others play by the solver until ``seat`` is to
    act again: what ``seat`` has seen by then (the cards played, his hand) and the solver's value of
    each of his cards there, for his side (one entry, 0, when the deal is over first)."""
    w = w.copy()
    plays: list[int] = []
    while not w.over and w.seat != seat:
        mask = w.mask
        if mask & (mask - 1) == 0:
            b = mask
        else:
            vals = solver.move_values(w)
            side = 1 if w.s.pair_of[w.seat] == 0 else -1
            b = max(vals, key=lambda c: (side * vals[c], -c))
        plays.append(b)
        w.play(b)
    if w.over:
        return ("over",), {0: float(sign * w.value0())}
    return observed(w, seat, plays), {c: float(sign * v) for c, v in solver.move_values(w).items()}


def observed(w: World, seat: int, plays: list[int]) -> tuple[object, ...]:
    """What ``seat``, to act in ``w`` after ``plays``, decides on, coarsened so that a few hundred
    worlds share it: his hand, and of the trick so far only which of his cards would take it, its
    card points, whether his side holds it and where the шмон and the ♣Q have gone since. The exact
    cards the others played are left out: kept, nearly every sampled world would be alone in its
    group, and each would again choose its next card knowing its own hands."""
    s = w.s
    gone_special = 0
    for b in plays:
        gone_special |= b & s.special
    if not w.trick:
        return (w.hands[seat], w.mask, gone_special)
    takes = 0
    row = w.rows[seat]
    for b in bits_of(w.mask):
        if row[b.bit_length() - 1] > w.win_p:
            takes |= b
    mine = s.pair_of[w.win_seat] == s.pair_of[seat]
    in_trick = 0
    for _, b in w.trick:
        in_trick |= b & s.special
    return (w.hands[seat], w.mask, takes, w.tp, mine, in_trick, gone_special)


def defused_values(nexts: dict[int, list[Next]], weights: list[float]) -> dict[int, list[float]]:
    """Per card tried, its worth in each world when the next card is chosen alike in the worlds that
    look alike by then (per group, the card with the best weighted sum)."""
    out: dict[int, list[float]] = {}
    for m, per_world in nexts.items():
        groups: dict[tuple[object, ...], dict[int, float]] = defaultdict(lambda: defaultdict(float))
        for (key, vals), x in zip(per_world, weights, strict=False):
            g = groups[key]
            for c, v in vals.items():
                g[c] += x * v
        choice = {key: max(g, key=lambda c: (g[c], -c)) for key, g in groups.items()}
        out[m] = [vals[choice[key]] for key, vals in per_world]
    return out


LEARNED = dataclasses.replace(HARD)
DEFUSED = Defused()


def learned(policy: Policy | None = None) -> LearnedPlayer:
    """The ``learned`` level: ``hard``'s budget, learned world weights, the end game defused."""
    return LearnedPlayer("learned", LEARNED, DEFUSED, policy)
