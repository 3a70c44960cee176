"""``python -m bot.measure.arena``: a duplicate tournament between two bot levels.

Matches are played on a fixed, seeded sequence of decks, each match twice: once with side A in seats
0 and 2, once with the sides swapped, so both sides hold the same cards. A paired deal is the k-th
deal of a match in both runs; its margin is side A's penalty-point advantage averaged over the two
runs. Prints the mean margin per deal with its paired 95% confidence interval, the share of deals won
with its 95% confidence interval (:func:`share_ci`), the share of matches won, and each side's decision
times (median, p95, max).

A side is a level name (``random``, ``easy``, ``medium``, ``hard``, ``cheat``) or an import path
``package.module:factory``; ``--a easy,medium`` seats easy in seat 0 and medium in seat 2. The factory
returns an object with ``name`` and ``decide(view, rng) -> Action`` (see :mod:`bot.engine.ai.base`);
an object that also has ``decide_open(deal, seat, rng)`` is shown the whole deal (the cheating ceiling).

``--clock cpu`` reads the search levels' time budgets (and the decision times reported) on each
process's CPU clock instead of the wall clock: a level then gets the CPU time it would on a quiet
machine, however many other processes share the cores (a busy machine's core still does somewhat
less per CPU second: the same margins need a quiet machine to be exact).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from bot.engine.ai.base import Player, make_player
from bot.engine.ai.search import Budget
from bot.engine.deal import PAIR_OF, DealResult
from bot.engine.match import Match
from bot.engine.rules import PRESETS, ClassicOptions, Rules
from bot.engine.view import view_for


@dataclass
class RunStats:
    """What one run of a match produced: per deal index its value to side A, and the timings."""

    margins: dict[int, int] = field(default_factory=dict)
    a_won_match: bool | None = None
    times: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))


def deal_value(rules: Rules, result: DealResult, pair: int) -> int:
    """What a finished deal is worth to ``pair`` in penalty points (the other pair's charge minus its own)."""
    v = result.penalty[1 - pair] - result.penalty[pair]
    opts = rules.options
    return -v if isinstance(opts, ClassicOptions) and opts.score_winners else v


def _seed(*parts: int) -> int:
    h = 1469598103934665603
    for p in parts:
        h = ((h ^ (p & 0xFFFFFFFFFFFF)) * 1099511628211) % (1 << 64)
    return h


#: The clocks ``--clock`` names: what a search level's budget and the reported times are read on.
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}


def on_clock(player: Player, clock: Callable[[], float]) -> Player:
    """``player`` with its search budget (if it has one) read on ``clock``."""
    budget = getattr(player, "budget", None)
    if isinstance(budget, Budget):
        player.budget = dataclasses.replace(budget, clock=clock)  # type: ignore[attr-defined]
    return player


def play_run(
    rules: Rules,
    sides: tuple[Sequence[str], Sequence[str]],
    seed: int,
    match_no: int,
    swapped: bool,
    clock: str = "wall",
) -> RunStats:
    """Play match ``match_no`` once; side A sits in seats 0 and 2 unless ``swapped``."""
    a, b = sides
    names = [a[0], b[0], a[-1], b[-1]] if not swapped else [b[0], a[0], b[-1], a[-1]]
    tick = CLOCKS[clock]
    players: list[Player] = [on_clock(make_player(n), tick) for n in names]
    a_pair = 1 if swapped else 0
    rngs = [random.Random(_seed(seed, match_no, int(swapped), s)) for s in range(4)]
    match = Match(rules, dealer=random.Random(_seed(seed, match_no)).randrange(4))
    out = RunStats()
    k = 0
    while not match.over and k < 200:
        deal = match.new_deal(rng=random.Random(_seed(seed, match_no, k, 7)))
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            p = players[seat]
            t0 = tick()
            decide_open = getattr(p, "decide_open", None)
            if decide_open is not None:
                action = decide_open(deal, seat, rngs[seat])
            else:
                action = p.decide(view_for(deal, seat), rngs[seat])
            dt = tick() - t0
            out.times[0 if PAIR_OF[seat] == a_pair else 1].append(dt)
            deal.apply(seat, action)
        result = deal.result
        assert result is not None
        if not result.void:
            out.margins[k] = deal_value(rules, result, a_pair)
        match.add(result)
        k += 1
    if match.loser is not None:
        out.a_won_match = match.loser != a_pair
    return out


def play_duplicate(
    rules: Rules, sides: tuple[Sequence[str], Sequence[str]], seed: int, match_no: int, clock: str = "wall"
) -> dict[str, Any]:
    """Both runs of one match; the paired deals' margins, the match outcomes and the timings."""
    r1 = play_run(rules, sides, seed, match_no, swapped=False, clock=clock)
    r2 = play_run(rules, sides, seed, match_no, swapped=True, clock=clock)
    paired = sorted(set(r1.margins) & set(r2.margins))
    return {
        "pairs": [(r1.margins[k], r2.margins[k]) for k in paired],
        "keys": [(match_no, k) for k in paired],
        "matches": [r.a_won_match for r in (r1, r2)],
        "times_a": r1.times[0] + r2.times[0],
        "times_b": r1.times[1] + r2.times[1],
    }


def run(
    rules: Rules,
    sides: tuple[Sequence[str], Sequence[str]],
    deals: int,
    seed: int,
    jobs: int = 1,
    progress: Callable[[dict[str, Any]], None] | None = None,
    clock: str = "wall",
) -> dict[str, Any]:
    """Play duplicate matches until ``deals`` paired deals are in, and summarise them; ``progress``
    gets the summary so far after every batch of matches (long runs can be stopped at any time)."""
    pairs: list[tuple[int, int]] = []
    keys: list[tuple[int, int]] = []
    matches: list[bool | None] = []
    times: tuple[list[float], list[float]] = ([], [])
    match_no = 0
    pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
    try:
        while len(pairs) < deals:
            batch = list(range(match_no, match_no + max(jobs, 1) * 2))
            match_no += len(batch)
            if pool is not None:
                results = list(
                    pool.map(
                        play_duplicate, *zip(*[(rules, sides, seed, m, clock) for m in batch], strict=True)
                    )
                )
            else:
                results = [play_duplicate(rules, sides, seed, m, clock) for m in batch]
            for r in results:
                if len(pairs) >= deals:
                    break
                pairs.extend(r["pairs"])
                keys.extend(r["keys"])
                matches.extend(r["matches"])
                times[0].extend(r["times_a"])
                times[1].extend(r["times_b"])
            if progress is not None:
                progress(summarise(pairs[:deals], matches, times, keys[:deals]))
    finally:
        if pool is not None:
            pool.shutdown()
    return summarise(pairs[:deals], matches, times, keys[:deals])


def summarise(
    pairs: list[tuple[int, int]],
    matches: list[bool | None],
    times: tuple[list[float], list[float]],
    keys: Sequence[tuple[int, int]] = (),
) -> dict[str, Any]:
    """Mean paired margin with its 95% CI, deal and match shares, decision-time percentiles; with
    ``keys`` (each pair's match and deal index) also ``deals``, every pair as ``[match, deal, run 1's
    value, run 2's]``: the same key is the same deck in any run of the same seed and preset, so two
    runs can be compared deal by deal (``experiments/arena/gap.py``)."""
    margins = [(x + y) / 2 for x, y in pairs]
    n = len(margins)
    mean = statistics.fmean(margins) if margins else 0.0
    sd = statistics.stdev(margins) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n else 0.0
    games = [v for p in pairs for v in p]
    won = sum(1 for v in games if v > 0)
    lost = sum(1 for v in games if v < 0)
    decided = [m for m in matches if m is not None]
    share = won / (won + lost) if won + lost else None
    return {
        "paired_deals": n,
        "margin_per_deal": round(mean, 3),
        "ci95": [round(mean - half, 3), round(mean + half, 3)],
        "deals_won_share": None if share is None else round(share, 3),
        "deals_won_ci95": share_ci(pairs),
        "deals_tied_share": round((len(games) - won - lost) / len(games), 3) if games else None,
        "matches": len(decided),
        "matches_won_share": round(sum(decided) / len(decided), 3) if decided else None,
        "time_ms_a": decision_times(times[0]),
        "time_ms_b": decision_times(times[1]),
        **({"deals": [[m, k, x, y] for (m, k), (x, y) in zip(keys, pairs, strict=True)]} if keys else {}),
    }


def share_ci(pairs: list[tuple[int, int]]) -> list[float] | None:
    """The 95% CI of the share of deals won (ties left out) over ``pairs``.

    A deal's two plays share their cards, so they are not independent: the standard error is the ratio
    estimator's, taken over pairs (each pair's wins against its decided plays), not over plays."""
    wins = [sum(1 for v in p if v > 0) for p in pairs]
    plays = [sum(1 for v in p if v != 0) for p in pairs]
    n, total = len(pairs), sum(plays)
    if n < 2 or not total:
        return None
    share = sum(wins) / total
    mean_plays = total / n
    resid = [w - share * d for w, d in zip(wins, plays, strict=True)]
    se = math.sqrt(sum(r * r for r in resid) / (n - 1) / n) / mean_plays
    return [round(max(0.0, share - 1.96 * se), 3), round(min(1.0, share + 1.96 * se), 3)]


def decision_times(ts: list[float]) -> dict[str, float]:
    """Decision times in seconds as the summaries give them: how many, median, p95 and max in ms."""
    if not ts:
        return {}
    s = sorted(ts)
    return {
        "n": len(s),
        "median": round(1000 * s[len(s) // 2], 2),
        "p95": round(1000 * s[min(len(s) - 1, int(0.95 * len(s)))], 2),
        "max": round(1000 * s[-1], 2),
    }


def _option(text: str) -> tuple[str, Any]:
    key, _, value = text.partition("=")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    ap = argparse.ArgumentParser(prog="python -m bot.measure.arena", description=__doc__.splitlines()[0])
    ap.add_argument(
        "--a", required=True, help="side A: a level or package.module:factory; 'x,y' mixes a pair"
    )
    ap.add_argument("--b", required=True, help="side B, likewise")
    ap.add_argument("--preset", default="classic", choices=list(PRESETS))
    ap.add_argument("--option", action="append", default=[], help="a rule option, key=value (JSON value)")
    ap.add_argument("--deals", type=int, default=100, help="paired deals to play (each is played twice)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    ap.add_argument("--progress", metavar="FILE", help="rewrite FILE with the JSON summary after every batch")
    ap.add_argument(
        "--clock",
        choices=list(CLOCKS),
        default="wall",
        help="what time budgets and decision times are read on",
    )
    args = ap.parse_args(argv)
    rules = Rules.make(args.preset, **dict(_option(o) for o in args.option))
    if rules.seats != 4:
        ap.error(f"{args.preset} seats {rules.seats}: its arena is python -m bot.measure.arena3")
    sides = (args.a.split(","), args.b.split(","))
    head = {"a": args.a, "b": args.b, "preset": args.preset, "seed": args.seed, "clock": args.clock}

    def write(partial: dict[str, Any]) -> None:
        with open(args.progress, "w", encoding="utf-8") as f:
            json.dump({**head, **partial}, f)

    summary = run(
        rules, sides, args.deals, args.seed, args.jobs, write if args.progress else None, args.clock
    )
    summary = {**head, **summary}
    if args.json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            if key != "deals":
                print(f"{key:18} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
