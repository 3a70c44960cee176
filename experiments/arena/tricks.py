"""Experiments: ``medium`` on ``tricks`` (RULES.md §5), where a deal's worth is a step function of the
tricks taken (2, 4 or 6 penalty points) and every trick counts the same.

* ``weight1``: the play-outs' tie-break at 1.0 penalty point a trick instead of 0.25
  (:data:`bot.engine.ai.world.TRICK_WEIGHT`), set for this player's decisions only;
* ``solve16``: the exact solver from 16 cards left instead of 12 (the solver is about twice as fast on
  tricks as on classic: ``python -m bot.measure.engine_bench --solver 16 --preset tricks``);
* ``nobonus``: no head start for the rule player's card;
* ``solve16_weight1``: both.

Against ``easy`` on the first 150 pairs of seed 1 (``--b easy --preset tricks --deals 150 --seed 1``)
none stood out from ``medium`` itself, whose own figure there moved from about −0.1 to +0.19 between a
run on a heavily loaded machine and one on a lighter load (its search is timed): see
experiments/README.md.
"""

from __future__ import annotations

import dataclasses
import random

import bot.engine.ai.search as S
import bot.engine.ai.world as W
from bot.engine.actions import Action
from bot.engine.view import SeatView


class _Weighted(S.SearchPlayer):
    def __init__(self, name: str, budget: S.Budget, weight: float) -> None:
        super().__init__(name, budget)
        self.trick_weight = weight

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        old = W.TRICK_WEIGHT
        W.TRICK_WEIGHT = self.trick_weight
        try:
            return super().decide(view, rng)
        finally:
            W.TRICK_WEIGHT = old


def weight1() -> S.SearchPlayer:
    return _Weighted("medium-tw1", S.MEDIUM, 1.0)


def solve16() -> S.SearchPlayer:
    return S.SearchPlayer("medium-s16", dataclasses.replace(S.MEDIUM, solve_at_preset=(("tricks", 16),)))


def nobonus() -> S.SearchPlayer:
    return S.SearchPlayer("medium-nobonus", dataclasses.replace(S.MEDIUM, prior_bonus=0.0))


def solve16_weight1() -> S.SearchPlayer:
    budget = dataclasses.replace(S.MEDIUM, solve_at_preset=(("tricks", 16),))
    return _Weighted("medium-s16-tw1", budget, 1.0)
