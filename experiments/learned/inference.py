"""``python -m experiments.learned.inference PRESET DECKS [WORLDS] [SEED]``: how well each way of weighing
the sampled worlds reads the hidden cards, measured on the true deal — no arena needed.

Deals are played by four clock-free ``medium`` seats (the self-play records' level: a search like the
arena's opponents). At each card decision with a choice, ``WORLDS`` worlds are sampled from what the
deciding seat sees (the levels' own sampler), and each weighing gives every hidden card (another
seat's, or the stock's on draw) a probability of being where it truly is: the weighted share of the
worlds that put it there. Printed per weighing and part of the deal (before the solver takes over,
and after): the mean log-loss of the true places (lower reads better) and the mean probability of
the true place.

* ``uniform``: every sampled world counts the same (the sampler's own constraints only: voids, the
  brag's lays, the cards seen).
* ``hard``: ``hard``'s fixed factors (×0.5 a follow, ×0.8 a lead the rule player would not make) and
  the brag's lays.
* ``learned``: the learned policy's probabilities of the plays seen (``learned``'s weights: each
  raised to 0.5); ``learned, temper 1`` and ``2``: raised to 1 (Bayes' rule as it is) and to 2.

The arena found no gain from the learned weights (docs/bots.md); if they read the cards no better here
either, a stronger reading needs a stronger model of the plays, not another way to use it.
"""

from __future__ import annotations

import dataclasses
import math
import random
import sys
from collections import defaultdict

from bot.engine.ai.learned import DEFUSED, LEARNED, LearnedPlayer, learned
from bot.engine.ai.sample import true_world
from bot.engine.ai.search import HARD, SearchPlayer
from bot.engine.ai.world import World
from bot.engine.deal import Deal, Phase
from bot.engine.rules import PRESETS, Rules
from bot.engine.view import SeatView, view_for
from experiments.learned.selfplay import MEDIUM_FIXED, _seed

STOCK = 4


def places(w: World) -> dict[int, int]:
    """Where each card still held is in ``w``: a seat, or :data:`STOCK`."""
    out: dict[int, int] = {}
    for seat, h in enumerate(w.hands):
        while h:
            b = h & -h
            out[b] = seat
            h ^= b
    for c in w.stock[w.drawn :]:
        h = c
        while h:
            b = h & -h
            out[b] = STOCK
            h ^= b
    return out


def base_weighers() -> dict[str, SearchPlayer]:
    """The weighings every reading compares: every world alike, ``hard``'s factors, the learned policy."""
    return {
        "uniform": SearchPlayer("uniform", dataclasses.replace(HARD, weigh=None)),
        "hard": SearchPlayer("hard", HARD),
        "learned": learned(),
    }


def deck(rules: Rules, seed: int, preset_no: int, d: int) -> tuple[Deal, list[random.Random]]:
    """Deck ``d``'s deal and its seats' random streams (the same for every reading)."""
    rngs = [random.Random(_seed(seed, preset_no, d, 2, s)) for s in range(rules.seats)]
    deal = Deal.shuffled(
        rules, random.Random(_seed(seed, preset_no, d, 7)), d % rules.seats, deal_no=1 + d % 9
    )
    return deal, rngs


@dataclasses.dataclass
class Sampled:
    """One decision's sampled worlds, where each holds every card, and where the cards truly are."""

    part: str
    true_at: dict[int, int]
    worlds: list[World]
    at: list[dict[int, int]]


def sample(deal: Deal, view: SeatView, solve_at: int, n_worlds: int, rng: random.Random) -> Sampled:
    """``n_worlds`` worlds from ``view`` (the levels' own sampler) and the true places of the cards
    hidden from its seat; ``part``: ``mid`` before the solver takes over, ``end`` after."""
    truth = true_world(deal)
    mine = truth.hands[view.seat]
    _, world_fn, _ = SearchPlayer("hard", HARD).worlds(view, rng)
    worlds = [world_fn() for _ in range(n_worlds)]
    return Sampled(
        "mid" if truth.cards_left() > solve_at else "end",
        {b: p for b, p in places(truth).items() if not b & mine},
        worlds,
        [places(w) for w in worlds],
    )


class Tally:
    """Per part of the deal and weighing: the log-loss and mean probability of the true places."""

    def __init__(self) -> None:
        # per (part, weighing): [sum of -log p, sum of p, count]
        self.acc: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        self.decisions: dict[str, int] = defaultdict(int)

    def add(self, sampled: Sampled, name: str, ws: list[float]) -> None:
        """Score weighing ``name``'s weights ``ws`` of ``sampled``'s worlds."""
        total = sum(ws)
        a = self.acc[(sampled.part, name)]
        for b, place in sampled.true_at.items():
            p = sum(x for x, pl in zip(ws, sampled.at, strict=True) if pl.get(b) == place) / total
            a[0] -= math.log(max(p, 1e-3))
            a[1] += p
            a[2] += 1

    def print(self, names: list[str]) -> None:
        print("| part | decisions | weighing | log-loss of the true places | mean p of the true place |")
        print("|---|---|---|---|---|")
        for part in ("mid", "end"):
            for name in names:
                s_log, s_p, n = self.acc[(part, name)]
                if n:
                    print(f"| {part} | {self.decisions[part]} | {name} | {s_log / n:.4f} | {s_p / n:.4f} |")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    preset = args[0]
    decks = int(args[1])
    n_worlds = int(args[2]) if len(args) > 2 else 200
    seed = int(args[3]) if len(args) > 3 else 77
    rules = Rules.make(preset)
    preset_no = PRESETS.index(preset)
    solve_at = HARD.solve_from(preset)
    weighers: dict[str, SearchPlayer] = {
        **base_weighers(),
        "learned, temper 1": LearnedPlayer("learned-t1", LEARNED, dataclasses.replace(DEFUSED, temper=1.0)),
        "learned, temper 2": LearnedPlayer("learned-t2", LEARNED, dataclasses.replace(DEFUSED, temper=2.0)),
    }
    tally = Tally()
    for k in range(decks):
        players = [SearchPlayer("medium", MEDIUM_FIXED) for _ in range(rules.seats)]
        deal, rngs = deck(rules, seed, preset_no, k)
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            view = view_for(deal, seat)
            if view.phase is Phase.PLAY and len(view.legal) > 1:
                r = random.Random(_seed(seed, preset_no, k, 3, len(deal.moves)))
                sampled = sample(deal, view, solve_at, n_worlds, r)
                tally.decisions[sampled.part] += 1
                for name, player in weighers.items():
                    _, _, weigh = player.worlds(view, random.Random(0))
                    tally.add(sampled, name, [1.0 if weigh is None else weigh(w) for w in sampled.worlds])
            deal.apply(seat, players[seat].decide(view, rngs[seat]))
    print(f"{preset}: {decks} decks, {n_worlds} worlds a decision, seed {seed}; solver from {solve_at} cards")
    tally.print(list(weighers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
