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
import inspect
import textwrap
from typing import Any

import bot.engine.ai.search as S

_src = textwrap.dedent(inspect.getsource(S.SearchPlayer.search))
assert "if n % 2 == 0 else None" in _src
_ns: dict[str, Any] = dict(vars(S))
exec(compile(_src.replace("if n % 2 == 0 else None", "if True else None"), "vsrandom", "exec"), _ns)


class FairVsRandom(S.SearchPlayer):
    search = _ns["search"]


class CheatVsRandom(S.CheatPlayer):
    search = _ns["search"]


def make_cheat() -> CheatVsRandom:
    return CheatVsRandom("cheat-vsrandom", dataclasses.replace(S.CHEAT, solve_at=0))


def make_fair() -> FairVsRandom:
    return FairVsRandom(
        "medium-vsrandom", dataclasses.replace(S.MEDIUM, solve_at=0, weigh=None, policy_trick=True)
    )
