"""``python -m experiments.learned.defuse_rate PRESET DECKS [WORLDS [DEFUSE_AT]]``: how often cutting
strategy fusion at the next decision changes the ``learned`` level's card.

Plays ``DECKS`` deals of ``easy`` self-play (deck ``k`` from seed ``k``); at every card decision with
a choice in the defused end game (at most ``DEFUSE_AT`` cards left, default 12) runs the ``learned``
search on ``WORLDS`` fixed worlds (default 60) and reports how often the card with the best defused
mean differs from the card with the best open-hand (PIMC) mean, and by how much the defused value of
PIMC's card falls short of the defused best (what PIMC's choice would lose, by the defused reckoning).
"""

from __future__ import annotations

import dataclasses
import random
import sys

from bot.engine.ai.base import make_player
from bot.engine.ai.learned import DEFUSED, LEARNED, Defuse, LearnedPlayer
from bot.engine.ai.search import EndGame
from bot.engine.ai.solver import Solver
from bot.engine.ai.world import World
from bot.engine.deal import Deal, Phase
from bot.engine.rules import Rules
from bot.engine.view import view_for


class _Recording(LearnedPlayer):
    """The ``learned`` player, keeping the end game of its latest search."""

    end: EndGame | None = None

    def end_game(self, w0: World, solve_at: int, solver: Solver, seat: int, sign: int) -> EndGame:
        self.end = super().end_game(w0, solve_at, solver, seat, sign)
        return self.end


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    args = sys.argv[1:] if argv is None else argv
    preset, decks = args[0], int(args[1])
    worlds = int(args[2]) if len(args) > 2 else 60
    defused = dataclasses.replace(DEFUSED, defuse_at=int(args[3])) if len(args) > 3 else DEFUSED
    rules = Rules.make(preset)
    budget = dataclasses.replace(
        LEARNED, seconds=1e9, min_worlds=worlds, max_worlds=worlds, limit=0.0, confident=0.0
    )
    player = _Recording("learned", budget, defused)
    easy = make_player("easy")
    n = changed = 0
    loss = 0.0
    for k in range(decks):
        rng = random.Random(k)
        deal = Deal.shuffled(rules, random.Random(k), k % 4, deal_no=1)
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            view = view_for(deal, seat)
            if view.phase is Phase.PLAY and len(view.legal) > 1:
                r = random.Random(k)
                prior, world, weight = player.worlds(view, r)
                player.end = None
                ev = player.evaluate(prior, world, r, None, weight)  # its values: the defused ones
                if isinstance(player.end, Defuse):
                    n += 1
                    # The open-hand (PIMC) worth of a card in a world: the best at the next decision.
                    pimc = {m: [max(vals.values()) for _, vals in nx] for m, nx in player.end.nexts.items()}
                    mass = sum(ev.weights)
                    fused = {
                        m: sum(x * v for x, v in zip(ev.weights, pimc[m], strict=True)) / mass
                        for m in ev.moves
                    }
                    de = {
                        m: sum(x * v for x, v in zip(ev.weights, ev.values[m], strict=True)) / mass
                        for m in ev.moves
                    }
                    bf, bd = max(fused, key=fused.__getitem__), max(de, key=de.__getitem__)
                    if bf != bd:
                        changed += 1
                        loss += de[bd] - de[bf]
            deal.apply(seat, easy.decide(view, rng))
    print(
        f"{preset}: {n} end-game decisions with a choice, defused card differs in {changed}"
        f" ({changed / max(n, 1):.1%}); PIMC's card loses {loss / max(n, 1):.4f} penalty points per decision"
        f" ({loss / max(changed, 1):.3f} where they differ), by the defused reckoning"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
