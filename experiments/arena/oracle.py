"""Experiment: how much ``hard`` could win from knowing the hidden cards, by part of the deal — a bound on
what a better reading of the table (world weights) or a cure for strategy fusion can buy there.

``hard`` plays each card on worlds sampled from what its seat sees. Here it is shown the true deal
(the arena hands it over through ``decide_open``, as it does ``cheat``), and searches that one world
with ``hard``'s own budget, play-outs and solver — but only for some of its card decisions; the others,
and every decision before the first lead, it takes as ``hard`` does:

* ``play_open``: every card decision on the true deal. Perfect inference with ``hard``'s search: no
  reading of the table, learned or not, can give ``hard``'s search more than this, and on the one true
  world there is no strategy fusion left either.
* ``end_open``: only the card decisions once the solver takes over (``Budget.solve_from``: the last
  five tricks, the last three on flip). What the end game's hidden cards are worth: the most any
  end-game fix — a defused solver (``learned``'s EPIMC-style cut), αμ, sharper weights there — can
  gain with ``hard``'s play before it.
* ``mid_open``: the card decisions before that, the end game sampled as ``hard`` does.

Not a player for a table: it cheats. ``--a experiments.arena.oracle:end_open --b hard``."""

from __future__ import annotations

import dataclasses
import random

import bot.engine.ai.search as S
from bot.engine.actions import Action
from bot.engine.ai.easy import choose_card
from bot.engine.ai.knowledge import knowledge
from bot.engine.ai.sample import true_world
from bot.engine.deal import Deal, Phase
from bot.engine.view import view_for


class Oracle(S.SearchPlayer):
    """``hard`` shown the true deal for the card decisions with ``lo`` < cards left ≤ ``hi``."""

    def __init__(self, name: str, lo: int | None, hi: int | None) -> None:
        super().__init__(name, dataclasses.replace(S.HARD))
        self.lo = lo
        self.hi = hi

    def decide_open(self, deal: Deal, seat: int, rng: random.Random) -> Action:
        view = view_for(deal, seat)
        if view.phase is not Phase.PLAY or len(view.legal) == 1:
            return self.decide(view, rng)
        w = true_world(deal)
        solve_at = self.budget.solve_from(deal.rules.preset)
        lo = solve_at if self.lo is None else self.lo
        hi = solve_at if self.hi is None else self.hi
        if not lo < w.cards_left() <= hi:
            return self.decide(view, rng)
        start = self.budget.clock()
        prior = choose_card(view, knowledge(view), rng)
        return S._play(self.search(prior, w.copy, rng, start))


def play_open() -> Oracle:
    return Oracle("hard-play-open", -1, 99)


def end_open() -> Oracle:
    return Oracle("hard-end-open", -1, None)


def mid_open() -> Oracle:
    return Oracle("hard-mid-open", None, 99)
