"""``learned``: ``hard``'s search with the learned policy weighing its worlds and playing them out, and
the end game defused.

Three changes to :class:`~bot.engine.ai.search.SearchPlayer` (``hard``'s budget otherwise):

* **World weights from the learned policy.** Each sampled world counts by the probability the learned
  policy (:mod:`bot.engine.ai.policy`) gives the plays the other seats were seen to make, each from
  what that seat saw — its hand in this world, the trick so far, the cards gone — instead of the
  fixed factors ``hard`` applies where the rule player would have played otherwise (×0.5 a follow,
  ×0.8 a lead). A probability is raised to :attr:`Defused.temper` and floored at
  :attr:`Defused.floor`, so no single play rules a world out. The brag's lays are weighed as before.
* **Play-outs by the learned policy.** Before the solver takes over, a card tried is played out with
  every seat's card drawn from the policy (:func:`learned_rollout`), not by the rule player's trick
  policy (:attr:`Defused.playouts`).
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
import math
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from bot.engine.cards import deck_mask
from bot.engine.view import SeatView

from .budget import Budget, Evaluation
from .features import card_features, legal_mask
from .knowledge import Knowledge, brag_tricks, played_since_brag
from .model import packaged_policy
from .policy import Policy
from .search import HARD, EndGame, SearchPlayer, _HandsFn
from .solver import Solver
from .world import Static, World, bits_of, worth

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
    #: Play out by cards drawn from the learned policy (:func:`learned_rollout`) instead of the rule
    #: player's trick policy.
    playouts: bool = True


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

    def plays_weight(self, view: SeatView, k: Knowledge, factors: tuple[float, float]) -> _HandsFn | None:
        """How likely a world's hands make the other seats' plays seen, by the learned policy
        (:func:`policy_likelihood`; ``factors`` are ``hard``'s and go unused)."""
        s = k.static
        d = self.defused
        seen = seen_plays(view, s, d.max_plays)
        if not seen:
            return None
        since = _since(seen, played_since_brag(view))
        policy = self.policy
        return lambda hands: policy_likelihood(policy, s, hands, seen, since, d)

    def playout(self, w: World, r: random.Random, careless: tuple[int, float] | None) -> float:
        """``w`` played out by the learned policy (:func:`learned_rollout`; the ``careless`` pair at
        random), unless :attr:`Defused.playouts` is off."""
        if not self.defused.playouts:
            return super().playout(w, r, careless)
        return learned_rollout(
            w, r, None if careless is None else careless[0], self.policy.family(w.s.rules.preset)
        )

    def end_game(self, w0: World, solve_at: int, solver: Solver, seat: int, sign: int) -> EndGame:
        """From :attr:`Defused.defuse_at` cards left, the end game defused (:class:`Defuse`)."""
        if solve_at and w0.cards_left() <= min(solve_at, self.defused.defuse_at):
            return Defuse(solver, seat, sign, bits_of(w0.legal(seat)))
        return super().end_game(w0, solve_at, solver, seat, sign)


def gone_in(w: World) -> int:
    """The cards of ``w``'s deck no longer in a hand or the stock: played (this trick's too) or laid away."""
    held = 0
    for h in w.hands:
        held |= h
    for c in w.stock[w.drawn :]:
        held |= c
    return deck_mask(w.s.rules.deck_size) & ~held


def learned_rollout(w: World, rng: random.Random, careless: int | None, weights: Sequence[float]) -> float:
    """Play ``w`` out (on a copy) with every seat drawing its card from the learned policy's
    probabilities for what it sees (its hand, the trick, the cards gone:
    :func:`~bot.engine.ai.features.card_features`) — the ``careless`` pair uniformly random legal cards
    instead — and return its worth to pair A.

    Drawn, not the likeliest card: on the same decks (flip, seed 54) the search playing out with the
    policy's likeliest card lost to ``hard`` by 0.25 penalty points a deal over 80 pairs, the drawn
    play-out did not (docs/bots.md) — though as a player the likeliest card beats the rule player's
    trick policy that ``hard`` plays out with on classic and flip (``python -m
    experiments.learned.duel``). A play-out that always makes the same plausible card judges the
    search's cards by one line of play; drawn cards spread it over the lines a table may take."""
    w = w.copy()
    s = w.s
    pair_of = s.pair_of
    rnd = rng.random
    exp = math.exp
    gone = gone_in(w)
    while not w.over:
        m = w.mask
        seat = w.seat
        if m & (m - 1) == 0:
            b = m
        elif pair_of[seat] == careless:
            ms = bits_of(m)
            b = ms[int(rnd() * len(ms))]
        else:
            rows = card_features(s, seat, w.hands[seat], m, w.trick, gone)
            scores = [sum(a * x for a, x in zip(weights, f, strict=True)) for _, f in rows]
            top = max(scores)
            ex = [exp(v - top) for v in scores]
            r = rnd() * sum(ex)
            i = 0
            while i < len(ex) - 1 and r >= ex[i]:
                r -= ex[i]
                i += 1
            b = rows[i][0]
        gone |= b
        w.play(b)
    return worth(w)


class Defuse(EndGame):
    """The end game with strategy fusion cut at the player's own next decision (see the module's notes):
    a card is valued in each world by the solver at that decision, and its worth there is chosen once
    every world is seen (:func:`defused_values`)."""

    def __init__(self, solver: Solver, seat: int, sign: int, moves: list[int]) -> None:
        super().__init__(solver, seat, sign)
        #: Per card tried, in each world counted, the player's next decision after it.
        self.nexts: dict[int, list[Next]] = {m: [] for m in moves}
        self._found: dict[int, Next] = {}

    def value(self, m: int, w: World) -> float:
        """The best of the player's cards at his next decision after ``m`` (the open-hand value)."""
        found = self._found[m] = next_decision(self.solver, w, self.seat, self.sign)
        return max(found[1].values())

    def keep(self) -> None:
        """Record the next decisions of the world in progress."""
        for m, found in self._found.items():
            self.nexts[m].append(found)
        self._found = {}

    def values(self, ev: Evaluation) -> dict[int, list[float]]:
        """Per card, its worth in each world with the next card chosen alike where worlds look alike."""
        return defused_values(self.nexts, ev.weights)


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
