"""Not a player: how far each level's card falls short of the exact solver's best on the true hands.

``python -m experiments.arena.regret PRESET LO HI N`` plays deals with four ``easy`` players and, at
about half of the play decisions with LO to HI cards left and a choice that matters, asks ``easy`` and
``medium`` (60 worlds a decision, untimed, so the load of the machine does not count) for their card;
its regret is the solver's best value for the seat minus the value of that card, with every hand open
(a yardstick that favours open-hand play, but the same for every level). Prints each level's mean
regret in penalty points and the share of decisions with none.
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import sys

from bot.engine import Deal, Phase, Play, Rules, view_for
from bot.engine.ai.base import Player
from bot.engine.ai.easy import EasyPlayer
from bot.engine.ai.sample import true_world
from bot.engine.ai.search import MEDIUM, SearchPlayer
from bot.engine.ai.solver import Solver
from bot.engine.ai.world import PAIR_OF


def main(argv: list[str]) -> int:
    preset, lo, hi, n = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    fixed = dataclasses.replace(MEDIUM, seconds=10.0, limit=0.0, min_worlds=60, max_worlds=60)
    levels: dict[str, Player] = {"easy": EasyPlayer(), "medium": SearchPlayer("medium-60", fixed)}
    rules = Rules.make(preset)
    rng = random.Random(7)
    table = [EasyPlayer() for _ in range(4)]
    regrets: dict[str, list[int]] = {k: [] for k in levels}
    done = d = 0
    while done < n:
        deal = Deal.shuffled(rules, rng, dealer=d % 4, deal_no=1 + d % 2)
        d += 1
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            view = view_for(deal, seat)
            if deal.phase is Phase.PLAY and len(view.legal) > 1 and done < n:
                w = true_world(deal)
                if lo <= w.cards_left() <= hi and rng.random() < 0.5:
                    values = Solver().move_values(w)
                    sign = 1 if PAIR_OF[seat] == 0 else -1
                    best = max(sign * v for v in values.values())
                    if len(set(values.values())) > 1:
                        for name, player in levels.items():
                            action = player.decide(view, random.Random(done))
                            assert isinstance(action, Play)
                            regrets[name].append(best - sign * values[action.card.bit])
                        done += 1
            deal.apply(seat, table[seat].decide(view, rng))
    for name, rs in regrets.items():
        none = sum(1 for r in rs if r == 0) / len(rs)
        mean = statistics.fmean(rs)
        print(f"{preset} {lo}-{hi} {name}: {len(rs)} decisions, mean regret {mean:.3f}, none {none:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
