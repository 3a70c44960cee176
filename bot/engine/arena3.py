"""``python -m bot.engine.arena3``: two bot levels at a three-person table (``sochi``), seats rotated.

With three people the sides change every deal (the ♣Q holder alone against the other two), so a fair
comparison cannot seat a level in a fixed pair. Each deck is played six times, once per seating: level
A alone at seat 0, 1 or 2 with B at the other two, and B alone at each seat with A at the other two.
Over the six plays each level sits at every seat equally often (three times) with the same cards, so
it plays each role (lone player, one of the pair, bragger, dealer) as often as the other level does.
A deck's figure for a level is the mean penalty charged per person of that level per play (each of its
people carries his side's penalty, RULES.md §5); the margin is B's mean minus A's (above zero: A
concedes fewer penalty points per person per deal). The decks run through deal numbers 1 to 9, so
deal 1 (no brag) and each brag kind of the rotation are played alike. Void deals (a talon redeal, a
brag that runs out) charge no one and count as 0.

Prints both levels' means, the mean margin per deck with its 95% CI, and the share of plays in which
each level held the talon (the lone player), which should be close to 1/3 for both.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from typing import Any

from bot.engine.ai.base import make_player
from bot.engine.deal import Deal
from bot.engine.rules import Rules
from bot.engine.view import view_for

#: The six seatings of one deck: the level of each seat.
SEATINGS = tuple(
    tuple(alone if s == seat else other for s in range(3))
    for alone, other in (("a", "b"), ("b", "a"))
    for seat in range(3)
)
#: Deal numbers cycle through three rounds: deal 1 (no brag) and the three brag kinds.
DEAL_NUMBERS = 9


def _seed(*parts: int) -> int:
    h = 1469598103934665603
    for p in parts:
        h = ((h ^ (p & 0xFFFFFFFFFFFF)) * 1099511628211) % (1 << 64)
    return h


def play_deck(rules: Rules, levels: dict[str, str], seed: int, k: int) -> dict[str, Any]:
    """Deck ``k`` under the six seatings: per level, the penalty its people were charged, the person
    slots it filled, and how often it was the lone player."""
    charged = {"a": 0, "b": 0}
    slots = {"a": 0, "b": 0}
    lone = {"a": 0, "b": 0}
    deal_no, dealer = 1 + k % DEAL_NUMBERS, k % 3
    for j, seating in enumerate(SEATINGS):
        deal = Deal.shuffled(rules, random.Random(_seed(seed, k, 7)), dealer, deal_no=deal_no)
        players = [make_player(levels[side]) for side in seating]
        rngs = [random.Random(_seed(seed, k, j, s)) for s in range(3)]
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            deal.apply(seat, players[seat].decide(view_for(deal, seat), rngs[seat]))
        result = deal.result
        assert result is not None
        for seat, side in enumerate(seating):
            slots[side] += 1
            if not result.void:
                charged[side] += result.charged(seat)
                lone[side] += int(result.lone == seat)
    return {"charged": charged, "slots": slots, "lone": lone}


def run(rules: Rules, levels: dict[str, str], decks: int, seed: int) -> dict[str, Any]:
    """Play ``decks`` decks and summarise them."""
    means: dict[str, list[float]] = {"a": [], "b": []}
    lone = {"a": 0, "b": 0}
    for k in range(decks):
        r = play_deck(rules, levels, seed, k)
        for side in ("a", "b"):
            means[side].append(r["charged"][side] / r["slots"][side])
            lone[side] += r["lone"][side]
    margins = [b - a for a, b in zip(means["a"], means["b"], strict=True)]
    n = len(margins)
    mean = statistics.fmean(margins) if margins else 0.0
    half = 1.96 * statistics.stdev(margins) / math.sqrt(n) if n > 1 else 0.0
    plays = n * len(SEATINGS)
    return {
        "decks": n,
        "penalty_per_person_a": round(statistics.fmean(means["a"]), 3) if n else None,
        "penalty_per_person_b": round(statistics.fmean(means["b"]), 3) if n else None,
        "margin_per_deal": round(mean, 3),
        "ci95": [round(mean - half, 3), round(mean + half, 3)],
        # Each play seats three people; a level fills half the person slots over the six seatings.
        "lone_share_a": round(lone["a"] / (plays * 1.5), 3) if n else None,
        "lone_share_b": round(lone["b"] / (plays * 1.5), 3) if n else None,
    }


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    ap = argparse.ArgumentParser(prog="python -m bot.engine.arena3", description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="level A")
    ap.add_argument("--b", required=True, help="level B")
    ap.add_argument("--option", action="append", default=[], help="a rule option, key=value (JSON value)")
    ap.add_argument("--deals", type=int, default=100, help="decks to play (each six times)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    options = {}
    for text in args.option:
        key, _, value = text.partition("=")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    rules = Rules.make("sochi", **options)
    summary = {"a": args.a, "b": args.b, "preset": "sochi", "seed": args.seed}
    summary |= run(rules, {"a": args.a, "b": args.b}, args.deals, args.seed)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
