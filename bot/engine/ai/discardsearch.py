"""``sochi``'s discard searched (RULES.md §5) for ``medium`` and ``hard``: which two cards the lone
player lays away once he has taken the talon.

The lone player sees his twelve cards and the brag's public history; the other two hands are the
twenty cards he cannot see, ten each. A world is drawn as for a card (:func:`bot.engine.ai.sample.
sample_world` on :func:`bot.engine.ai.knowledge.knowledge`, which holds at the discard too: no voids
yet, the trumps the others took in a mirror or fishing brag), each candidate discard is taken in it —
the two cards leave his hand and their points count for his side, as :func:`bot.engine.sochi.discard`
counts them — and the deal is played out by the trick policy from the first lead (the brag's taker's,
else his own), every candidate on the same random numbers, within the card search's budget and with
the rule's head start (:func:`bot.engine.ai.preplay.search`).

The candidates are the rule's best :data:`MAX_DISCARDS` by its own measure
(:func:`bot.engine.ai.discard.choose_discard`): of the 55 legal pairs most throw away a trump or an
ace, which no play-out needs to confirm, and fewer candidates leave more worlds for the rest.
Pure apart from the clock the budget reads.
"""

from __future__ import annotations

import random

from bot.engine.actions import Action, Discard
from bot.engine.cards import mask_of
from bot.engine.deal import Phase
from bot.engine.play import PlayState
from bot.engine.view import SeatView

from .budget import Budget
from .discard import choose_discard, ranked
from .knowledge import knowledge
from .preplay import brag_leader, search
from .sample import sample_world
from .trick import policy_rollout
from .world import World

#: The decision kind, by the name ``Budget.preplay`` lists it under.
KIND = "discard"
#: Discards weighed at most: the rule's best by its own measure.
MAX_DISCARDS = 8


def searched(view: SeatView, kinds: tuple[str, ...]) -> bool:
    """Whether ``view`` is a discard and ``kinds`` names it."""
    return view.phase is Phase.DISCARD and KIND in kinds and len(view.legal) > 1


def candidates(view: SeatView) -> list[Action]:
    """The discards weighed: the rule's best :data:`MAX_DISCARDS`, its own choice first."""
    return list(ranked(view)[:MAX_DISCARDS])


def first_leader(view: SeatView) -> int:
    """Who leads once the discard is made: the brag's taker, else the lone player."""
    assert view.lone is not None
    return brag_leader(view) if view.tricks else view.lone


def decide(view: SeatView, rng: random.Random, budget: Budget, start: float) -> Action:
    """The searched discard for ``view``."""
    rule = choose_discard(view)
    cands = candidates(view)
    k = knowledge(view)
    me = view.seat
    side = view.pair_of[me]
    leader = first_leader(view)

    def world() -> World:
        return sample_world(k, rng)

    def value(w: World, a: Action, seed: int, careless: int | None) -> float:
        assert isinstance(a, Discard)
        out = mask_of(list(a.cards))
        hands = w.hands.copy()
        hands[me] &= ~out
        pts = list(w.pts)
        pts[side] += sum(c.points for c in a.cards)
        st = PlayState(w.s, hands, leader, (), pts, w.won, (), w.restricted, w.first, w.stacks)
        return policy_rollout(st, random.Random(seed), careless)

    return search(view, cands, rule, world, value, rng, budget, start)


__all__ = ["KIND", "MAX_DISCARDS", "candidates", "decide", "first_leader", "searched"]
