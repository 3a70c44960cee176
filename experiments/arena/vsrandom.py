"""Experiment: how much a player can win against ``random`` when it knows that is what it plays.

The search levels play out every second world with the opponents careless (uniformly random cards) and
the solver assumes perfect opponents; against ``random`` neither is the truth. Here the opponents play at
random in every play-out, the trick in progress is finished the same way, and nothing is solved.

* ``make_cheat``: ``cheat`` so modelled — every world is the true deal: it sees every hand and
  knows how its opponents play, so it shows about how much of ``random``'s share any player can take
  (about, not exactly: its play-outs are the trick policy's, not perfect play).
* ``make_fair``: ``medium``'s budget so modelled, on sampled worlds: unweighted (a random player's
  cards say nothing but its voids), the trick in progress finished by the policy, never solved."""

import dataclasses

import bot.engine.ai.search as S
from experiments.arena.nocare import careless_search

_search = careless_search("True")


class FairVsRandom(S.SearchPlayer):
    search = _search


class CheatVsRandom(S.CheatPlayer):
    search = _search


def make_cheat() -> CheatVsRandom:
    return CheatVsRandom("cheat-vsrandom", dataclasses.replace(S.CHEAT, solve_at=0))


def make_fair() -> FairVsRandom:
    return FairVsRandom(
        "medium-vsrandom", dataclasses.replace(S.MEDIUM, solve_at=0, weigh=None, policy_trick=True)
    )
