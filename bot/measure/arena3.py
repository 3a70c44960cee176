"""``python -m bot.measure.arena3``: two bot levels at a three-person table, seats rotated.

Three people cannot be split into two equal sides, so a fair comparison cannot seat a level in a fixed
pair. Each deck is played six times, once per seating of the three people: level A as person 0, 1 or
2 with B as the other two, then B as each person with A as the other two. Over the six plays each
level fills every person's place equally often (three times) on the same cards.

The people's seats come from the rules (:meth:`~bot.engine.rules.Rules.seating`), and so do their roles:

* ``sochi``: person ``s`` sits at seat ``s``; the sides form per deal (the ♣Q holder alone against the
  other two), so a level plays the lone player, one of the pair, bragger and dealer as often as the
  other level does because it sits at every seat as often on the same cards.
* ``dummy``: seats 0 and 2 are a pair, seat 1 owns the blind (seat 3, which the deal plays itself; its
  brag decisions are seat 1's, :meth:`~bot.engine.rules.Rules.decider`). Each level is a pair member
  six times and the blind's owner three times per deck.
* ``dummy`` with ``blind_rotates``: the people move a seat each deal (the deal number says where), so
  person ``p`` is not always at seat ``p``. The six seatings are every way to put one level apart
  from the other two, a set that any reordering of the people maps onto itself: whatever the deal
  number, the six plays seat the levels exactly as plain ``dummy``'s do, and each level again owns the
  blind three times per deck. The deal plays alike (only the match's tally is per person), so this is
  a second sample of the same measure, reached through the rotating seating.

A deck's figure for a level is the mean penalty charged per person of that level per play, as the
deal's result charges it (:meth:`~bot.engine.result.DealResult.charged`: each person carries his
side's penalty); the margin is B's mean minus A's (above zero: A concedes fewer penalty points per
person per deal). The decks run through deal numbers 1 to 9, so deal 1 (dealt one card at a time, no
brag), the brag deals and, in ``sochi``, each brag kind of the rotation are played alike; the dealer
cycles over every seat. Void deals (a redeal, a brag that runs out) charge no one and count as 0.

Prints both levels' means, the mean margin per deck with its 95% CI, and each level's person slots
per role (``lone``/``pair`` in ``sochi``, where a void deal has no lone player; ``pair``/``blind_owner``
in ``dummy``), with, in ``sochi``, each level's share of lone deals (close to 1/3 for both), and each
level's decision times (``time_ms_a``/``time_ms_b``: count, median, p95, max; on ``--clock``).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from bot.engine.ai.base import make_player
from bot.engine.deal import Deal
from bot.engine.result import DealResult
from bot.engine.rules import Rules
from bot.engine.seats import DUMMY_PARTNER
from bot.engine.view import view_for
from bot.measure.arena import CLOCKS, decision_times, on_clock

#: The presets with three people.
PRESETS3 = ("sochi", "dummy")
#: The six seatings of one deck: the level of each person.
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


def seat_levels(rules: Rules, seating: tuple[str, ...], deal_no: int) -> list[str]:
    """The level of each seat in deal ``deal_no``: a person's seat his level, a blind's its partner's
    (who takes its brag decisions)."""
    people = rules.seating(deal_no)
    mine = [seating[p] if p is not None else None for p in people]
    return [level if level is not None else str(mine[rules.decider(s)]) for s, level in enumerate(mine)]


def role(rules: Rules, result: DealResult, seat: int) -> str:
    """The role of the person at ``seat`` in a finished deal."""
    if rules.preset == "sochi":
        return "void" if result.void else "lone" if result.lone == seat else "pair"
    return "blind_owner" if seat == DUMMY_PARTNER else "pair"


def play_deck(rules: Rules, levels: dict[str, str], seed: int, k: int, clock: str = "wall") -> dict[str, Any]:
    """Deck ``k`` under the six seatings: per level, the penalty its people were charged, the person
    slots it filled and its slots per role; and each play's seat levels and result. ``clock``: what
    the search levels' budgets are read on (``python -m bot.measure.arena``'s ``--clock``)."""
    charged = {"a": 0, "b": 0}
    slots = {"a": 0, "b": 0}
    roles: dict[str, Counter[str]] = {"a": Counter(), "b": Counter()}
    plays: list[tuple[list[str], DealResult]] = []
    times: dict[str, list[float]] = {"a": [], "b": []}
    tick = CLOCKS[clock]
    deal_no, dealer = 1 + k % DEAL_NUMBERS, k % rules.seats
    for j, seating in enumerate(SEATINGS):
        deal = Deal.shuffled(rules, random.Random(_seed(seed, k, 7)), dealer, deal_no=deal_no)
        sides = seat_levels(rules, seating, deal_no)
        players = [on_clock(make_player(levels[side]), tick) for side in sides]
        rngs = [random.Random(_seed(seed, k, j, s)) for s in range(rules.seats)]
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            t0 = tick()
            action = players[seat].decide(view_for(deal, seat), rngs[seat])
            times[sides[seat]].append(tick() - t0)
            deal.apply(seat, action)
        result = deal.result
        assert result is not None
        plays.append((sides, result))
        for seat, person in enumerate(rules.seating(deal_no)):
            if person is None:
                continue
            side = seating[person]
            slots[side] += 1
            roles[side][role(rules, result, seat)] += 1
            if not result.void:
                charged[side] += result.charged(seat)
    return {"charged": charged, "slots": slots, "roles": roles, "plays": plays, "times": times}


def run(
    rules: Rules,
    levels: dict[str, str],
    decks: int,
    seed: int,
    clock: str = "wall",
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play ``decks`` decks and summarise them; ``progress`` gets the summary so far after each deck."""
    means: dict[str, list[float]] = {"a": [], "b": []}
    roles: dict[str, Counter[str]] = {"a": Counter(), "b": Counter()}
    times: dict[str, list[float]] = {"a": [], "b": []}
    for k in range(decks):
        r = play_deck(rules, levels, seed, k, clock)
        for side in ("a", "b"):
            means[side].append(r["charged"][side] / r["slots"][side])
            roles[side] += r["roles"][side]
            times[side] += r["times"][side]
        if progress is not None:
            progress(summarise(rules, means, roles, times))
    return summarise(rules, means, roles, times)


def summarise(
    rules: Rules,
    means: dict[str, list[float]],
    roles: dict[str, Counter[str]],
    times: dict[str, list[float]] | None = None,
) -> dict[str, Any]:
    """Each level's mean penalty per person per deal over the decks so far, the margin, the roles, and
    each level's decision times (as ``python -m bot.measure.arena`` gives them: ``time_ms_a``/``_b``)."""
    margins = [b - a for a, b in zip(means["a"], means["b"], strict=True)]
    n = len(margins)
    mean = statistics.fmean(margins) if margins else 0.0
    half = 1.96 * statistics.stdev(margins) / math.sqrt(n) if n > 1 else 0.0
    out: dict[str, Any] = {
        "decks": n,
        "penalty_per_person_a": round(statistics.fmean(means["a"]), 3) if n else None,
        "penalty_per_person_b": round(statistics.fmean(means["b"]), 3) if n else None,
        "margin_per_deal": round(mean, 3),
        "ci95": [round(mean - half, 3), round(mean + half, 3)],
        "roles_a": dict(sorted(roles["a"].items())),
        "roles_b": dict(sorted(roles["b"].items())),
    }
    if rules.preset == "sochi":
        # Each play seats three people; a level fills half the person slots over the six seatings.
        plays = n * len(SEATINGS)
        out["lone_share_a"] = round(roles["a"]["lone"] / (plays * 1.5), 3) if n else None
        out["lone_share_b"] = round(roles["b"]["lone"] / (plays * 1.5), 3) if n else None
    for side, ts in (times or {}).items():
        if ts:
            out[f"time_ms_{side}"] = decision_times(ts)
    return out


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    ap = argparse.ArgumentParser(prog="python -m bot.measure.arena3", description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="level A")
    ap.add_argument("--b", required=True, help="level B")
    ap.add_argument("--preset", choices=PRESETS3, default="sochi")
    ap.add_argument("--option", action="append", default=[], help="a rule option, key=value (JSON value)")
    ap.add_argument("--deals", type=int, default=100, help="decks to play (each six times)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--clock", choices=list(CLOCKS), default="wall", help="what time budgets are read on")
    ap.add_argument("--progress", metavar="FILE", help="rewrite FILE with the JSON summary after every deck")
    args = ap.parse_args(argv)
    options = {}
    for text in args.option:
        key, _, value = text.partition("=")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    rules = Rules.make(args.preset, **options)
    summary: dict[str, Any] = {"a": args.a, "b": args.b, "preset": args.preset, "seed": args.seed}
    if options:
        summary["options"] = options
    if args.clock != "wall":
        summary["clock"] = args.clock

    def write(partial: dict[str, Any]) -> None:
        with open(args.progress, "w", encoding="utf-8") as f:
            json.dump(summary | partial, f)

    summary |= run(
        rules, {"a": args.a, "b": args.b}, args.deals, args.seed, args.clock, write if args.progress else None
    )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
